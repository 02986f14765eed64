//! [`tmem_svg`]: which tensor-memory lane and column holds each element.

use super::*;

/// A Blackwell tensor-memory layout (`row, col (, block) → dim*`, as
/// [`TensorMemory::to_linear_layout`](crate::families::TensorMemory::to_linear_layout) builds)
/// as a grid over the tensor: each cell is labelled `L<lane>:c<column>` with the TMEM lane
/// (`row`) and the 32-bit column holding the element (`col / (32 / element_bits)`: packed
/// elements share a column; prefixed `B<block>:` with several blocks), and coloured by the warp
/// of a warpgroup that may access that lane (`lane / 32`: warp `w` reaches lanes
/// `32w..32w+32`). An element held in several places shows its first one and a `×n` badge, and
/// the hover title lists them all (with the bits within the column for elements narrower than
/// 32 bits); the unused slots of an unpacked layout (`col_stride` > 1) are not copies. Elements
/// not in tensor memory show `-`.
///
/// Errors: [`LayoutError::InvalidParameter`] for `element_bits` not a power of two in `1..=32`,
/// [`LayoutError::DimsMismatch`] for in-dims other than `row`, `col`, `block`,
/// [`LayoutError::InvalidShape`] past [`MAX_GRID_SIDE`] or [`MAX_VIEW_CELLS`](crate::views::MAX_VIEW_CELLS).
///
/// ```
/// use linear_layout::families::TensorMemory;
/// use linear_layout::views::svg::tmem_svg;
/// // A 64×64 f32 accumulator with blockM = 64: row bits 4 and 5 go to lanes 32 and 64, and lane
/// // bit 4 is unused, so lanes 16..32 of each warp's slice repeat lanes 0..16.
/// let acc = TensorMemory { block_m: 64, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let svg = tmem_svg(&acc.to_linear_layout(&[64, 64])?, 32)?;
/// assert_eq!(svg.matches("<rect").count(), 64 * 64);
/// // rows 16..32 land on lanes 32..48 (warp 1), with copies in lanes 48..64
/// assert!(svg.contains("<title>(16,0): L32:c0 | L48:c0</title>"));
/// assert!(svg.contains("<title>(37,5): L69:c5 | L85:c5</title>"));
/// // 64 × 64 labelled cells would be over 4,000 pixels wide: drawn coarse, labels on hover,
/// // and the legend says what the copies are.
/// assert!(svg.contains("(coarse: hover a cell for its label)"));
/// assert!(svg.contains("×n: the element is held in n places"));
/// // f16 packed two to a column: element (0,1) is the high half of column 0
/// let f16 = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// assert!(tmem_svg(&f16.to_linear_layout(&[128, 64])?, 16)?.contains("(0,1): L0:c0 bits 16..32<"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn tmem_svg(layout: &LinearLayout, element_bits: u32) -> Result<String> {
    const OP: &str = "tmem_svg";
    if !element_bits.is_power_of_two() || element_bits > 32 {
        return Err(LayoutError::InvalidParameter {
            family: OP,
            param: "element_bits",
            value: element_bits.to_string(),
            reason: "must be a power of two from 1 to 32 (elements share 32-bit columns)".into(),
        });
    }
    let eval = InputEval::new(layout, OP, &["row", "col", "block"])?;
    let grid = Grid::new(layout, OP)?;
    eval.check_positions(OP, &grid.shape, "tensor-memory positions")?;
    let (lanes, cols, blocks) = (eval.size(0), eval.size(1), eval.size(2));
    let bits = u64::from(element_bits);
    let per_column = 32 / bits;
    // stored[element] = (block, lane, 32-bit column, first bit in the column), in
    // enumeration order; the `col` values of one column are consecutive, so an unpacked
    // element's unused slots repeat the last entry and are skipped.
    let mut stored: Vec<Vec<[u64; 4]>> = vec![Vec::new(); grid.len()];
    for block in 0..blocks {
        for lane in 0..lanes {
            for col in 0..cols {
                let out = eval.apply(&[lane, col, block]);
                let place = [block, lane, col / per_column, col % per_column * bits];
                if let Some(list) = stored.get_mut(linearize(&out, &grid.shape)) {
                    if list.last().is_none_or(|last| last[..3] != place[..3]) {
                        list.push(place);
                    }
                }
            }
        }
    }
    let warps = lanes.div_ceil(32).max(1);
    let name = |&[block, lane, column, _]: &[u64; 4]| {
        if blocks > 1 {
            format!("B{block}:L{lane}:c{column}")
        } else {
            format!("L{lane}:c{column}")
        }
    };
    let cells: Vec<Cell> = stored
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let index = grid.index_text(i);
            let Some(first) = list.first() else {
                return Cell::empty(format!("{index}: not in tensor memory"));
            };
            let places = joined(list.iter().map(|p| {
                if bits < 32 {
                    format!("{} bits {}..{}", name(p), p[3], p[3] + bits)
                } else {
                    name(p)
                }
            }));
            Cell {
                fill: palette(first[0] * warps + first[1] / 32),
                label: name(first),
                sub: None,
                badge: (list.len() > 1).then(|| format!("×{}", list.len())),
                tooltip: format!("{index}: {places}"),
            }
        })
        .collect();
    let legend: Vec<(String, String)> = (0..(warps * blocks).min(WARP_PALETTE.len() as u64))
        .map(|k| {
            let (block, warp) = (k / warps, k % warps);
            let range = format!("L{}..{}", 32 * warp, (32 * warp + 32).min(lanes));
            let text = if blocks > 1 {
                format!("B{block} warp {warp}: {range}")
            } else {
                format!("warp {warp}: {range}")
            };
            (palette(k), text)
        })
        .collect();
    let block_text = if blocks > 1 {
        format!(" × {blocks} blocks")
    } else {
        String::new()
    };
    let title = format!(
        "Tensor-memory layout over a {} tensor: lane:column (L<lane>:c<32-bit column>) of each {element_bits}-bit element in {lanes} lanes × {} columns{block_text}; colour: warp w of a warpgroup accesses lanes 32w..32w+32",
        grid.shape_text(),
        cols.div_ceil(per_column),
    );
    Ok(render(&title, &grid, &cells, &legend))
}
