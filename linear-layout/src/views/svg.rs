//! SVG pictures of layouts, as plain strings (no dependency): [`tensor_svg`] (who holds each
//! element of a distributed tensor), [`shared_svg`] (where each element lives in shared memory
//! and on which bank), [`tmem_svg`] (which tensor-memory lane and column holds each element)
//! and [`bank_conflict_svg`] (the banks one warp's request touches).
//!
//! Pictures are grids over the tensor: a 2-D tensor is drawn as rows × columns, a 1-D tensor as
//! one row, a scalar as one cell, and higher ranks with the leading dims folded into the rows.
//! Every tensor element is exactly one `<rect>`; legends use other shapes. Each cell carries a
//! hover `<title>` with the full story (every owner, every storage location). Grids wider or
//! taller than [`MAX_GRID_SIDE`] cells are refused with [`LayoutError::InvalidShape`] — they
//! would not be legible — as are layouts a [view](super::tensor_view) refuses.
//!
//! ```
//! use linear_layout::views::svg::{shared_svg, tensor_svg};
//! use linear_layout::LinearLayout;
//! let regs = LinearLayout::from_bases(&[("register", vec![vec![0, 1]]), ("lane", vec![vec![1, 0]])], &[("dim0", 2), ("dim1", 2)], true)?;
//! let svg = tensor_svg(&regs)?;
//! assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=") && svg.ends_with("</svg>\n"));
//! let smem = LinearLayout::from_bases(&[("offset", vec![vec![0, 1], vec![1, 1]])], &[("dim0", 2), ("dim1", 2)], true)?;
//! assert!(shared_svg(&smem, 4, 32)?.contains("(1,1): offset 2, bytes 8..12, bank 2"));
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

use std::fmt::Write as _;

use crate::analysis::warp_request;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

use super::style::{
    svg_open, xml_escape, AXIS, CHAR_W, EMPTY_FILL, INK, MUTED, PAD, SVG_CLOSE, WARP_PALETTE,
};
use super::tensor_view::{delinearize, linearize, InputEval};

/// Most cells a picture has along either side.
///
/// ```
/// use linear_layout::views::svg::{tensor_svg, MAX_GRID_SIDE};
/// use linear_layout::LinearLayout;
/// let row = LinearLayout::identity_1d(2 * MAX_GRID_SIDE, "lane", "dim0")?;
/// assert!(tensor_svg(&row).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const MAX_GRID_SIDE: u64 = 128;

const FONT: u64 = 11;
const CELL_H: u64 = 30;

/// A distributed layout (`register, lane, warp, block → dim*`) as a grid over the tensor: each
/// cell is coloured by the warp holding the element, labelled `T<thread>:<register>` as
/// Triton's views do (thread = `warp × lanes + lane`, prefixed `B<block>:` with several
/// blocks), with a `×n` badge when `n` threads/registers hold a copy and `-` when nobody
/// does. Errors: [`LayoutError::DimsMismatch`] for other in-dims,
/// [`LayoutError::InvalidShape`] past [`MAX_GRID_SIDE`] or
/// [`MAX_VIEW_CELLS`](super::MAX_VIEW_CELLS).
///
/// ```
/// use linear_layout::views::svg::tensor_svg;
/// use linear_layout::LinearLayout;
/// // 2 lanes × 2 registers over 4 elements, both warps holding the same data.
/// let l = LinearLayout::from_bases(&[
///     ("register", vec![vec![1]]), ("lane", vec![vec![2]]), ("warp", vec![vec![0]]),
/// ], &[("dim0", 4)], true)?;
/// let svg = tensor_svg(&l)?;
/// assert_eq!(svg.matches("<rect").count(), 4);
/// assert!(svg.contains(">T0:0<") && svg.contains(">×2<"));
/// assert!(svg.contains("(0): T0:0 | T2:0"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn tensor_svg(layout: &LinearLayout) -> Result<String> {
    const OP: &str = "tensor_svg";
    let eval = InputEval::new(layout, OP, &["register", "lane", "warp", "block"])?;
    let grid = Grid::new(layout, OP)?;
    eval.check_positions(OP, &grid.shape, "hardware positions")?;
    let (regs, lanes, warps, blocks) = (eval.size(0), eval.size(1), eval.size(2), eval.size(3));
    // owners[element] = (global warp, label) in Triton's enumeration order
    let mut owners: Vec<Vec<(u64, String)>> = vec![Vec::new(); grid.len()];
    for block in 0..blocks {
        for warp in 0..warps {
            for lane in 0..lanes {
                for reg in 0..regs {
                    let out = eval.apply(&[reg, lane, warp, block]);
                    if let Some(list) = owners.get_mut(linearize(&out, &grid.shape)) {
                        let thread = warp * lanes + lane;
                        let label = if blocks > 1 {
                            format!("B{block}:T{thread}:{reg}")
                        } else {
                            format!("T{thread}:{reg}")
                        };
                        list.push((block * warps + warp, label));
                    }
                }
            }
        }
    }
    let cells: Vec<Cell> = owners
        .iter()
        .enumerate()
        .map(|(i, list)| {
            let index = grid.index_text(i);
            match list.first() {
                None => Cell::empty(format!("{index}: held by no thread")),
                Some((warp, label)) => Cell {
                    fill: palette(*warp),
                    label: label.clone(),
                    sub: None,
                    badge: (list.len() > 1).then(|| format!("×{}", list.len())),
                    tooltip: format!("{index}: {}", joined(list.iter().map(|(_, l)| l.as_str()))),
                },
            }
        })
        .collect();
    let legend: Vec<(String, String)> = (0..(warps * blocks).min(WARP_PALETTE.len() as u64))
        .map(|w| (palette(w), format!("warp {w}")))
        .collect();
    let title = format!(
        "Distributed layout over a {} tensor: {blocks} block(s) × {warps} warp(s) × {lanes} lane(s) × {regs} register(s)",
        grid.shape_text()
    );
    Ok(render(&title, &grid, &cells, &legend))
}

/// A shared-memory layout (`offset, block → dim*`) as a grid over the tensor: each cell shows
/// the element's offset (in elements; `B<block>:` prefixed with several blocks) and the bank
/// of its first 4-byte word, `bank = offset × element_bytes / 4 mod num_banks`, coloured by
/// bank, so a swizzle shows as permuted colours from row to row. Elements stored several times
/// show the smallest offset and a `×n` badge; elements not stored show `-`.
///
/// Errors: [`LayoutError::InvalidParameter`] for `element_bytes == 0` or `num_banks == 0`,
/// [`LayoutError::DimsMismatch`] for other in-dims, [`LayoutError::InvalidShape`] past
/// [`MAX_GRID_SIDE`] or [`MAX_VIEW_CELLS`](super::MAX_VIEW_CELLS).
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
/// let acc = TensorMemory { block_m: 64, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false };
/// let svg = tmem_svg(&acc.to_linear_layout(&[64, 64])?, 32)?;
/// assert_eq!(svg.matches("<rect").count(), 64 * 64);
/// // rows 16..32 land on lanes 32..48 (warp 1), with copies in lanes 48..64
/// assert!(svg.contains("<title>(16,0): L32:c0 | L48:c0</title>"));
/// assert!(svg.contains("<title>(37,5): L69:c5 | L85:c5</title>") && svg.contains(">L69:c5<"));
/// assert_eq!(svg.matches(">×2<").count(), 64 * 64);
/// // f16 packed two to a column: element (0,1) is the high half of column 0
/// let f16 = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false };
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

/// The first `ld/st.shared` request of warp 0 of a register ↔ shared copy (see
/// [`warp_request`]), one panel per phase of lanes: columns are banks, rows are the distinct
/// bank rows (`num_banks × 4` bytes each) the phase touches, and each access is a cell labelled
/// with its lanes (`L3`, or `L0,L8` for lanes reading the same word). A bank column with
/// several rows filled is a conflict: the phase needs as many wavefronts as its fullest column.
/// The title gives Triton's count ([`bank_conflicts`](fn@crate::analysis::bank_conflicts)).
///
/// Errors: as [`bank_conflicts`](fn@crate::analysis::bank_conflicts), and
/// [`LayoutError::InvalidShape`] for more than [`MAX_GRID_SIDE`] banks.
///
/// ```
/// use linear_layout::views::svg::bank_conflict_svg;
/// use linear_layout::LinearLayout;
/// // 32 lanes × one column of a 32×32 f32 tile stored row-major: 8 lanes a phase, 8 rows.
/// let reg = LinearLayout::from_bases(&[
///     ("register", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16]]),
///     ("lane", vec![vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]]),
/// ], &[("dim0", 32), ("dim1", 32)], true)?;
/// let smem = LinearLayout::from_bases(&[("offset", vec![
///     vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8], vec![0, 16],
///     vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 32)], true)?;
/// let svg = bank_conflict_svg(&reg, &smem, 32, 32)?;
/// assert!(svg.contains("7 conflicts"));
/// assert!(svg.contains(">phase 3: lanes 24..32<"));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn bank_conflict_svg(
    reg: &LinearLayout,
    shared: &LinearLayout,
    element_bits: u32,
    num_banks: u32,
) -> Result<String> {
    const OP: &str = "bank_conflict_svg";
    let request = warp_request(reg, shared, element_bits, num_banks)?;
    let banks = u64::from(num_banks);
    if banks > MAX_GRID_SIDE {
        return Err(LayoutError::InvalidShape {
            family: OP,
            shape: vec![banks],
            reason: format!("at most {MAX_GRID_SIDE} banks are drawn"),
        });
    }
    let vector_bytes = (request.conflicts.vector_bits / 8).max(1);
    let elem_bits = u64::from(element_bits);
    let cell_w = 40u64;
    let left = 64u64;
    let width = left + banks * cell_w + PAD;
    let mut body = String::new();
    let mut y = 52u64;
    let lanes = request.lane_offsets.len() as u64;
    let per_phase = request.lanes_per_phase.clamp(1, lanes.max(1));
    let mut worst = 1u64;
    for (phase, chunk) in request.lane_offsets.chunks(per_phase as usize).enumerate() {
        let first_lane = phase as u64 * per_phase;
        // (row, bank) → lanes touching that word
        let mut words: Vec<(u64, u64, Vec<u64>)> = Vec::new();
        for (k, &offset) in chunk.iter().enumerate() {
            let byte = offset.saturating_mul(elem_bits) / 8;
            let (w0, w1) = (byte / 4, (byte + vector_bytes).div_ceil(4));
            for word in w0..w1.max(w0 + 1) {
                let (row, bank) = (word / banks, word % banks);
                let lane = first_lane + k as u64;
                match words.iter_mut().find(|(r, b, _)| *r == row && *b == bank) {
                    Some((_, _, ls)) if !ls.contains(&lane) => ls.push(lane),
                    Some(_) => {}
                    None => words.push((row, bank, vec![lane])),
                }
            }
        }
        let mut rows: Vec<u64> = words.iter().map(|(r, _, _)| *r).collect();
        rows.sort_unstable();
        rows.dedup();
        for b in 0..banks {
            worst = worst.max(words.iter().filter(|(_, bank, _)| *bank == b).count() as u64);
        }
        let _ = writeln!(
            body,
            r#"<text x="{PAD}" y="{}" font-size="12" font-weight="bold">phase {phase}: lanes {first_lane}..{}</text>"#,
            y + 12,
            first_lane + chunk.len() as u64
        );
        y += 18;
        for (b, bank_x) in (0..banks).map(|b| (b, left + b * cell_w)) {
            let _ = writeln!(
                body,
                r##"<text x="{}" y="{}" font-size="9" text-anchor="middle" fill="{MUTED}">b{b}</text>"##,
                bank_x + cell_w / 2,
                y + 10,
            );
        }
        y += 14;
        for (ri, row) in rows.iter().enumerate() {
            let row_y = y + ri as u64 * 22;
            let _ = writeln!(
                body,
                r#"<text x="{}" y="{}" font-size="9" text-anchor="end">row {row}</text>"#,
                left - 4,
                row_y + 14
            );
            for b in 0..banks {
                let hit = words.iter().find(|(r, bank, _)| r == row && *bank == b);
                let (fill, text, tip) = match hit {
                    Some((_, _, ls)) => (
                        bank_colour(b, banks),
                        xml_escape(
                            &ls.iter()
                                .map(|l| format!("L{l}"))
                                .collect::<Vec<_>>()
                                .join(","),
                        ),
                        format!(
                            "bank {b}, row {row}: lanes {}",
                            joined(ls.iter().map(|l| l.to_string()))
                        ),
                    ),
                    None => (
                        EMPTY_FILL.to_string(),
                        String::new(),
                        format!("bank {b}, row {row}: idle"),
                    ),
                };
                let x = left + b * cell_w;
                let _ = writeln!(
                    body,
                    r##"<g><title>{}</title><rect x="{x}" y="{row_y}" width="{cell_w}" height="20" fill="{fill}" stroke="#888" stroke-width="0.5"/><text x="{}" y="{}" font-size="8" text-anchor="middle">{text}</text></g>"##,
                    xml_escape(&tip),
                    x + cell_w / 2,
                    row_y + 13
                );
            }
        }
        y += rows.len() as u64 * 22 + 10;
    }
    let c = request.conflicts;
    let title = format!(
        "First request of warp 0: {} lanes × {}-bit vectors on {num_banks} banks — Triton: {} conflicts ({} wavefronts per phase); fullest bank here: {worst} rows",
        lanes, c.vector_bits, c.conflicts, c.wavefronts
    );
    let height = y + PAD;
    let mut s = String::new();
    s.push_str(&svg_open(width, height));
    let _ = writeln!(s, "<title>{}</title>", xml_escape(&title));
    let _ = writeln!(
        s,
        r#"<text x="{PAD}" y="20" font-size="13">{}</text>"#,
        xml_escape(&title)
    );
    s.push_str(&body);
    s.push_str(SVG_CLOSE);
    Ok(s)
}

/// The tensor's cells: rows × columns over the out-dims, row-major.
struct Grid {
    shape: Vec<u64>,
    rows: u64,
    cols: u64,
}

impl Grid {
    fn new(layout: &LinearLayout, op: &'static str) -> Result<Grid> {
        let shape: Vec<u64> = layout.out_dims().into_iter().map(|(_, s)| s).collect();
        let cols = shape.last().copied().unwrap_or(1);
        let rows = shape
            .iter()
            .rev()
            .skip(1)
            .try_fold(1u64, |acc, &s| acc.checked_mul(s));
        match rows {
            Some(rows) if rows <= MAX_GRID_SIDE && cols <= MAX_GRID_SIDE => {
                Ok(Grid { shape, rows, cols })
            }
            _ => Err(LayoutError::InvalidShape {
                family: op,
                shape,
                reason: format!(
                    "a picture has at most {MAX_GRID_SIDE} × {MAX_GRID_SIDE} cells (leading dims fold into rows); use a sub-tile or the ASCII view"
                ),
            }),
        }
    }

    fn len(&self) -> usize {
        (self.rows * self.cols) as usize
    }

    fn index_text(&self, i: usize) -> String {
        let index = delinearize(i as u64, &self.shape);
        format!(
            "({})",
            joined_with(index.iter().map(|v| v.to_string()), ",")
        )
    }

    fn shape_text(&self) -> String {
        if self.shape.is_empty() {
            "scalar".into()
        } else {
            joined_with(self.shape.iter().map(|v| v.to_string()), "×")
        }
    }

    /// Header of grid row `r`: the indices of the leading dims.
    fn row_text(&self, r: u64) -> String {
        let lead = self
            .shape
            .get(..self.shape.len().saturating_sub(1))
            .unwrap_or(&[]);
        joined_with(delinearize(r, lead).iter().map(|v| v.to_string()), ",")
    }
}

/// One tensor element as drawn.
struct Cell {
    fill: String,
    label: String,
    /// Second, smaller line under the label.
    sub: Option<String>,
    /// Corner note (`×n` copies).
    badge: Option<String>,
    tooltip: String,
}

impl Cell {
    fn empty(tooltip: String) -> Cell {
        Cell {
            fill: EMPTY_FILL.into(),
            label: "-".into(),
            sub: None,
            badge: None,
            tooltip,
        }
    }
}

fn render(title: &str, grid: &Grid, cells: &[Cell], legend: &[(String, String)]) -> String {
    let longest = cells
        .iter()
        .map(|c| {
            c.label
                .chars()
                .count()
                .max(c.sub.as_ref().map_or(0, |s| s.chars().count()))
        })
        .max()
        .unwrap_or(1) as u64;
    let badge_w = cells
        .iter()
        .filter_map(|c| c.badge.as_ref().map(|b| 5 * b.chars().count() as u64 + 4))
        .max()
        .unwrap_or(0);
    let cell_w = (CHAR_W * longest + 10 + badge_w).max(36);
    let row_labels: Vec<String> = (0..grid.rows).map(|r| grid.row_text(r)).collect();
    let row_w = row_labels
        .iter()
        .map(|l| l.chars().count() as u64)
        .max()
        .unwrap_or(0);
    let left = PAD + CHAR_W * row_w + 8;
    let top = 48u64;
    let grid_w = grid.cols * cell_w;
    let grid_h = grid.rows * CELL_H;
    let legend_w = legend
        .iter()
        .map(|(_, text)| 26 + 6 * text.chars().count() as u64)
        .max()
        .unwrap_or(0)
        .max(110);
    let legend_per_line = ((grid_w + left) / legend_w).max(1);
    let legend_lines = (legend.len() as u64).div_ceil(legend_per_line);
    let title_w = 15 * title.chars().count() as u64 / 2 + 2 * PAD;
    let width = (left + grid_w + PAD).max(title_w).max(200);
    let height = top + grid_h + 12 + legend_lines * 18 + PAD;

    let mut s = String::new();
    s.push_str(&svg_open(width, height));
    let _ = writeln!(s, "<title>{}</title>", xml_escape(title));
    let _ = writeln!(
        s,
        r#"<text x="{PAD}" y="18" font-size="12">{}</text>"#,
        xml_escape(title)
    );
    for c in 0..grid.cols {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="10" text-anchor="middle" fill="{MUTED}">{c}</text>"##,
            left + c * cell_w + cell_w / 2,
            top - 6,
        );
    }
    if grid.shape.len() > 1 {
        for (r, label) in row_labels.iter().enumerate() {
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" font-size="10" text-anchor="end" fill="{MUTED}">{}</text>"##,
                left - 6,
                top + r as u64 * CELL_H + CELL_H / 2 + 4,
                xml_escape(label)
            );
        }
    }
    for (i, cell) in cells.iter().enumerate() {
        let (r, c) = (i as u64 / grid.cols.max(1), i as u64 % grid.cols.max(1));
        let (x, y) = (left + c * cell_w, top + r * CELL_H);
        let _ = write!(
            s,
            r##"<g><title>{}</title><rect x="{x}" y="{y}" width="{cell_w}" height="{CELL_H}" fill="{}" stroke="{AXIS}" stroke-width="0.5"/>"##,
            xml_escape(&cell.tooltip),
            cell.fill
        );
        let label_y = if cell.sub.is_some() {
            y + 13
        } else {
            y + CELL_H / 2 + 4
        };
        let centre = x + (cell_w - badge_w) / 2;
        let _ = write!(
            s,
            r#"<text x="{centre}" y="{label_y}" font-size="{FONT}" text-anchor="middle">{}</text>"#,
            xml_escape(&cell.label)
        );
        if let Some(sub) = &cell.sub {
            let _ = write!(
                s,
                r##"<text x="{centre}" y="{}" font-size="9" text-anchor="middle" fill="{INK}">{}</text>"##,
                y + 25,
                xml_escape(sub)
            );
        }
        if let Some(badge) = &cell.badge {
            let _ = write!(
                s,
                r##"<text x="{}" y="{}" font-size="8" text-anchor="end" fill="#b00">{}</text>"##,
                x + cell_w - 2,
                y + 9,
                xml_escape(badge)
            );
        }
        s.push_str("</g>\n");
    }
    for (k, (fill, text)) in legend.iter().enumerate() {
        let (line, col) = (k as u64 / legend_per_line, k as u64 % legend_per_line);
        let (x, y) = (PAD + col * legend_w, top + grid_h + 12 + line * 18);
        let _ = writeln!(
            s,
            r##"<circle cx="{}" cy="{}" r="6" fill="{fill}" stroke="{AXIS}" stroke-width="0.5"/><text x="{}" y="{}" font-size="10">{}</text>"##,
            x + 6,
            y + 6,
            x + 16,
            y + 10,
            xml_escape(text)
        );
    }
    s.push_str(SVG_CLOSE);
    s
}

/// A few bank swatches for the legend (all of them when there are at most 8).
fn legend_banks(banks: u64) -> Vec<(String, String)> {
    let step = (banks / 8).max(1);
    (0..banks)
        .step_by(step as usize)
        .map(|b| (bank_colour(b, banks), format!("bank {b}")))
        .collect()
}

fn palette(warp: u64) -> String {
    WARP_PALETTE
        .get((warp % WARP_PALETTE.len() as u64) as usize)
        .copied()
        .unwrap_or(EMPTY_FILL)
        .to_string()
}

/// Bank `b` of `banks` as a light hue around the colour wheel (neighbouring banks get
/// neighbouring hues, so an unswizzled row reads as a rainbow and a swizzle as a permutation).
fn bank_colour(b: u64, banks: u64) -> String {
    let hue = 360.0 * (b % banks.max(1)) as f64 / banks.max(1) as f64;
    let (r, g, b) = hsl_to_rgb(hue, 0.65, 0.80);
    format!("#{r:02x}{g:02x}{b:02x}")
}

fn hsl_to_rgb(h: f64, s: f64, l: f64) -> (u8, u8, u8) {
    let c = (1.0 - (2.0 * l - 1.0).abs()) * s;
    let hp = h / 60.0;
    let x = c * (1.0 - (hp % 2.0 - 1.0).abs());
    let (r, g, b) = match hp as u32 {
        0 => (c, x, 0.0),
        1 => (x, c, 0.0),
        2 => (0.0, c, x),
        3 => (0.0, x, c),
        4 => (x, 0.0, c),
        _ => (c, 0.0, x),
    };
    let m = l - c / 2.0;
    let to = |v: f64| ((v + m) * 255.0).round().clamp(0.0, 255.0) as u8;
    (to(r), to(g), to(b))
}

/// At most 16 items joined by ` | `, then a count of the rest.
fn joined<S: AsRef<str>>(items: impl Iterator<Item = S>) -> String {
    let all: Vec<S> = items.collect();
    let mut text = joined_with(all.iter().take(16).map(|s| s.as_ref().to_string()), " | ");
    if all.len() > 16 {
        let _ = write!(text, " | … ({} in all)", all.len());
    }
    text
}

fn joined_with(items: impl Iterator<Item = String>, sep: &str) -> String {
    items.collect::<Vec<_>>().join(sep)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_and_escaping() {
        assert_eq!(hsl_to_rgb(0.0, 1.0, 0.5), (255, 0, 0));
        assert_eq!(hsl_to_rgb(120.0, 1.0, 0.5), (0, 255, 0));
        assert_eq!(hsl_to_rgb(240.0, 1.0, 0.5), (0, 0, 255));
        assert_eq!(bank_colour(0, 32).len(), 7);
        assert_eq!(xml_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
    }
}
