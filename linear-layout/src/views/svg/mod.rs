//! SVG pictures of layouts, as plain strings (no dependency): [`tensor_svg`] (who holds each
//! element of a distributed tensor), [`shared_svg`] (where each element lives in shared memory
//! and on which bank), [`tmem_svg`] (which tensor-memory lane and column holds each element)
//! and [`bank_conflict_svg`] (the banks one warp's request touches).
//!
//! Pictures are grids over the tensor: a 2-D tensor is drawn as rows × columns, a 1-D tensor as
//! one row (folded into rows of 16 past 16 elements, each row headed by its first index), a
//! scalar as one cell, and higher ranks with the leading dims folded into the rows. A grid
//! too wide to label cell by cell ([`MAX_LABELLED_PX`]) is drawn coarse, labels on hover.
//! Every tensor element is exactly one `<rect>`; legends use other shapes. Each cell carries a
//! hover `<title>` with the full story (every owner, every storage location). Grids wider or
//! taller than [`MAX_GRID_SIDE`] cells are refused with [`LayoutError::InvalidShape`] — they
//! would not be legible — as are layouts a [view](crate::views::tensor_view) refuses.
//!
//! | picture | file |
//! |---|---|
//! | [`tensor_svg`] | `tensor.rs` |
//! | [`shared_svg`] | `shared.rs` |
//! | [`tmem_svg`] | `tmem.rs` |
//! | [`bank_conflict_svg`] | `bank_conflicts.rs` |
//! | the grid every picture but the bank one is drawn on, colours, legends | `mod.rs` |
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

mod bank_conflicts;
mod shared;
mod tensor;
mod tmem;

pub use bank_conflicts::bank_conflict_svg;
pub use shared::shared_svg;
pub use tensor::tensor_svg;
pub use tmem::tmem_svg;

use super::style::{
    svg_open, xml_escape, AXIS, CHAR_W, EMPTY_FILL, INK, MUTED, PAD, SVG_CLOSE, WARP_PALETTE,
};
use super::tensor_view::{delinearize, linearize, InputEval};

/// Most cells a picture has along either side.
///
/// ```
/// use linear_layout::views::svg::{tensor_svg, MAX_GRID_SIDE};
/// use linear_layout::LinearLayout;
/// // A 1-D tensor folds into rows of 16: 128 rows of it at most.
/// assert!(tensor_svg(&LinearLayout::identity_1d(16 * MAX_GRID_SIDE, "lane", "dim0")?).is_ok());
/// let row = LinearLayout::identity_1d(32 * MAX_GRID_SIDE, "lane", "dim0")?;
/// assert!(tensor_svg(&row).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const MAX_GRID_SIDE: u64 = 128;

const FONT: u64 = 11;
const CELL_H: u64 = 30;

/// The widest grid drawn cell by cell with its labels, in pixels. Past it the
/// picture is coarse: each cell an 8-pixel square in its colour, its label in its
/// hover title, the axes labelled every 8 cells — a 128 × 128 TMEM layout is then under 2,000 pixels
/// wide, not 9,400 with 16,384 labels.
///
/// ```
/// use linear_layout::families::TensorMemory;
/// use linear_layout::views::svg::{tmem_svg, MAX_LABELLED_PX};
/// let acc = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let svg = tmem_svg(&acc.to_linear_layout(&[128, 128])?, 32)?;
/// let width = svg.split("width=\"").nth(1).and_then(|w| w.split('"').next()).ok_or("no width")?;
/// assert!(width.parse::<u64>()? <= MAX_LABELLED_PX);
/// assert!(svg.contains("<title>(127,127): L127:c127</title>"));
/// assert!(svg.matches("<text").count() < 100);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub const MAX_LABELLED_PX: u64 = 2400;

/// Elements per row of a folded 1-D tensor.
const ROW_1D: u64 = 16;

/// A coarse picture's cell side, in pixels.
const COARSE_CELL: u64 = 8;

/// Cells between axis labels in a coarse picture.
const COARSE_TICK: u64 = 8;

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
        // A long 1-D tensor folds into rows of ROW_1D, row-major (element i at row i / ROW_1D).
        if let ([n], Some(1)) = (shape.as_slice(), rows) {
            if *n > ROW_1D && *n <= MAX_GRID_SIDE * ROW_1D {
                return Ok(Grid {
                    rows: n / ROW_1D,
                    cols: ROW_1D,
                    shape,
                });
            }
        }
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

    /// Header of grid row `r`: the indices of the leading dims (a folded 1-D tensor: its
    /// first element's index).
    fn row_text(&self, r: u64) -> String {
        if let [_] = self.shape.as_slice() {
            return (r * self.cols).to_string();
        }
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
    let labelled_w = (CHAR_W * longest + 10 + badge_w).max(36);
    // Too large to label cell by cell: small squares, labels on hover.
    // (Rows are at most MAX_GRID_SIDE: 128 labelled rows scroll; a row too wide does not.)
    let coarse = grid.cols * labelled_w > MAX_LABELLED_PX;
    let (cell_w, cell_h) = if coarse {
        (COARSE_CELL, COARSE_CELL)
    } else {
        (labelled_w, CELL_H)
    };
    let ticked = |i: u64| !coarse || i.is_multiple_of(COARSE_TICK);
    let row_labels: Vec<String> = (0..grid.rows).map(|r| grid.row_text(r)).collect();
    let row_w = row_labels
        .iter()
        .map(|l| l.chars().count() as u64)
        .max()
        .unwrap_or(0);
    let left = PAD + CHAR_W * row_w + 8;
    let top = 48u64;
    let grid_w = grid.cols * cell_w;
    let grid_h = grid.rows * cell_h;
    // The copies badge, explained once in the legend.
    let mut legend = legend.to_vec();
    if cells.iter().any(|c| c.badge.is_some()) {
        legend.push((
            "#ffffff".into(),
            "×n: the element is held in n places (hover for them)".into(),
        ));
    }
    let title = if coarse {
        format!("{title} (coarse: hover a cell for its label)")
    } else {
        title.to_string()
    };
    let title = title.as_str();
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
    for c in (0..grid.cols).filter(|&c| ticked(c)) {
        let _ = writeln!(
            s,
            r##"<text x="{}" y="{}" font-size="10" text-anchor="middle" fill="{MUTED}">{c}</text>"##,
            left + c * cell_w + cell_w / 2,
            top - 6,
        );
    }
    if grid.rows > 1 {
        for (r, label) in row_labels.iter().enumerate() {
            if !ticked(r as u64) {
                continue;
            }
            let _ = writeln!(
                s,
                r##"<text x="{}" y="{}" font-size="10" text-anchor="end" fill="{MUTED}">{}</text>"##,
                left - 6,
                top + r as u64 * cell_h + cell_h.min(CELL_H) / 2 + 4,
                xml_escape(label)
            );
        }
    }
    for (i, cell) in cells.iter().enumerate() {
        let (r, c) = (i as u64 / grid.cols.max(1), i as u64 % grid.cols.max(1));
        let (x, y) = (left + c * cell_w, top + r * cell_h);
        if coarse {
            // The label goes into the hover title, beside the tooltip's own text.
            let _ = writeln!(
                s,
                r##"<rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{}" stroke="{AXIS}" stroke-width="0.2"><title>{}</title></rect>"##,
                cell.fill,
                xml_escape(&cell.tooltip)
            );
            continue;
        }
        let _ = write!(
            s,
            r##"<g><title>{}</title><rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="{}" stroke="{AXIS}" stroke-width="0.5"/>"##,
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
