//! [`shared_svg`]: where each element lives in shared memory, and on which bank.

use super::*;

/// A shared-memory layout (`offset, block → dim*`) as a grid over the tensor: each cell shows
/// the element's offset (in elements; `B<block>:` prefixed with several blocks) and the bank
/// of its first 4-byte word, `bank = offset × element_bytes / 4 mod num_banks`, coloured by
/// bank, so a swizzle shows as permuted colours from row to row. Elements stored several times
/// show the smallest offset and a `×n` badge; elements not stored show `-`.
///
/// Errors: [`LayoutError::InvalidParameter`] for `element_bytes == 0` or `num_banks == 0`,
/// [`LayoutError::DimsMismatch`] for other in-dims, [`LayoutError::InvalidShape`] past
/// [`MAX_GRID_SIDE`] or [`MAX_VIEW_CELLS`](crate::views::MAX_VIEW_CELLS).
///
/// ```
/// use linear_layout::views::svg::shared_svg;
/// use linear_layout::LinearLayout;
/// // 2 rows of 4 f32; the second row is stored rotated by 2 (XOR swizzle).
/// let l = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![0, 2], vec![1, 2]])], &[("dim0", 2), ("dim1", 4)], true)?;
/// let svg = shared_svg(&l, 4, 32)?;
/// assert_eq!(svg.matches("<rect").count(), 8);
/// // element (1,0) lives at offset 6, i.e. bank 6
/// assert!(svg.contains("(1,0): offset 6, bytes 24..28, bank 6"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn shared_svg(layout: &LinearLayout, element_bytes: u32, num_banks: u32) -> Result<String> {
    const OP: &str = "shared_svg";
    for (param, value) in [("element_bytes", element_bytes), ("num_banks", num_banks)] {
        if value == 0 {
            return Err(LayoutError::InvalidParameter {
                family: OP,
                param,
                value: "0".into(),
                reason: "must be at least 1".into(),
            });
        }
    }
    let eval = InputEval::new(layout, OP, &["offset", "block"])?;
    let grid = Grid::new(layout, OP)?;
    eval.check_positions(OP, &grid.shape, "shared-memory positions")?;
    let (offsets, blocks) = (eval.size(0), eval.size(1));
    let mut stored: Vec<Vec<(u64, u64)>> = vec![Vec::new(); grid.len()];
    for block in 0..blocks {
        for offset in 0..offsets {
            let out = eval.apply(&[offset, block]);
            if let Some(list) = stored.get_mut(linearize(&out, &grid.shape)) {
                list.push((block, offset));
            }
        }
    }
    let bytes = u64::from(element_bytes);
    let banks = u64::from(num_banks);
    let bank_of = |offset: u64| offset * bytes / 4 % banks;
    let cells: Vec<Cell> = stored
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let index = grid.index_text(i);
            let Some(&(block, offset)) = list.first() else {
                return Cell::empty(format!("{index}: not stored"));
            };
            let first = bank_of(offset);
            let bank_text = if bytes > 4 {
                format!(
                    "banks {first}..{}",
                    (offset * bytes + bytes - 1) / 4 % banks
                )
            } else {
                format!("bank {first}")
            };
            let place = |(b, o): (u64, u64)| {
                if blocks > 1 {
                    format!("B{b}:{o}")
                } else {
                    o.to_string()
                }
            };
            let places = joined(list.iter().map(|&p| place(p)));
            Cell {
                fill: bank_colour(first, banks),
                label: place((block, offset)),
                sub: Some(format!("b{first}")),
                badge: (list.len() > 1).then(|| format!("×{}", list.len())),
                tooltip: format!(
                    "{index}: offset {places}, bytes {}..{}, {bank_text}",
                    offset * bytes,
                    offset * bytes + bytes
                ),
            }
        })
        .collect();
    let legend = legend_banks(banks);
    let title = format!(
        "Shared-memory layout over a {} tensor: offset and bank ({num_banks} banks of 4 bytes, {element_bytes}-byte elements)",
        grid.shape_text()
    );
    Ok(render(&title, &grid, &cells, &legend))
}
