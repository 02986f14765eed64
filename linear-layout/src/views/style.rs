//! The house style of every SVG picture in the workspace — the layout pictures of
//! [`svg`](super::svg), `alias-alloc`'s memory maps and `packing`'s placement charts: plain
//! strings, monospace, one palette, one set of greys, the same margins, axis ticks and number
//! format, names escaped.
//!
//! ```
//! use linear_layout::views::style::{num, svg_open, tick_step, xml_escape, SVG_CLOSE};
//! let mut s = svg_open(120, 40);
//! s.push_str(&format!("<text x=\"{}\" y=\"20\">{}</text>\n", num(8.0), xml_escape("a<b")));
//! s.push_str(SVG_CLOSE);
//! assert!(s.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"120\" height=\"40\""));
//! assert!(s.contains(">a&lt;b<") && s.ends_with("</svg>\n"));
//! assert_eq!(tick_step(160), 32);
//! ```

/// Fill colours of warps 0, 1, … (cycled), and of any other series: light, distinct, readable
/// under black text.
///
/// ```
/// use linear_layout::views::svg::tensor_svg;
/// use linear_layout::views::style::WARP_PALETTE;
/// use linear_layout::LinearLayout;
/// let l = LinearLayout::from_bases(&[("lane", vec![]), ("warp", vec![vec![1]])], &[("dim0", 2)], true)?;
/// let svg = tensor_svg(&l)?;
/// assert!(svg.contains(WARP_PALETTE[0]) && svg.contains(WARP_PALETTE[1]));
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub const WARP_PALETTE: [&str; 12] = [
    "#a6cee3", "#b2df8a", "#fb9a99", "#fdbf6f", "#cab2d6", "#ffff99", "#8dd3c7", "#bebada",
    "#80b1d3", "#fdb462", "#b3de69", "#fccde5",
];

/// The fill of something empty or unused (an unowned element, an unused range).
pub const EMPTY_FILL: &str = "#f0f0f0";
/// The fill of something without a colour of its own.
pub const NO_COLOUR: &str = "#cccccc";
/// Grid lines behind a plot.
pub const GRID: &str = "#e4e4e4";
/// Axes and outlines.
pub const AXIS: &str = "#666";
/// Secondary text: tick labels, units, notes.
pub const MUTED: &str = "#555";
/// Small text drawn over a fill: cell labels, sizes.
pub const INK: &str = "#333";
/// The margin around a picture and between its parts, in pixels.
pub const PAD: u64 = 8;
/// The width of one character of 11-pixel monospace text, in pixels (for sizing labels).
pub const CHAR_W: u64 = 7;

/// The opening `<svg …>` line of a `width` × `height` picture (monospace, its own viewBox).
pub fn svg_open(width: impl std::fmt::Display, height: impl std::fmt::Display) -> String {
    format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\">\n"
    )
}

/// The closing line of a picture.
pub const SVG_CLOSE: &str = "</svg>\n";

/// The smallest power of two that cuts `[0, domain]` into at most 8 steps: the spacing of axis
/// ticks.
///
/// ```
/// use linear_layout::views::style::tick_step;
/// assert_eq!(tick_step(256), 32);
/// assert_eq!(tick_step(32768), 4096);
/// assert_eq!((tick_step(0), tick_step(u64::MAX)), (1, 1 << 61));
/// ```
pub fn tick_step(domain: u64) -> u64 {
    domain
        .div_ceil(8)
        .max(1)
        .checked_next_power_of_two()
        .unwrap_or(1 << 63)
}

/// A coordinate with at most one decimal (`80`, `162.5`).
///
/// ```
/// use linear_layout::views::style::num;
/// assert_eq!((num(80.0), num(162.5)), ("80".to_string(), "162.5".to_string()));
/// ```
pub fn num(v: f64) -> String {
    let t = format!("{v:.1}");
    match t.strip_suffix(".0") {
        Some(whole) => whole.to_string(),
        None => t,
    }
}

/// `text` with the five XML special characters escaped, for attributes and text nodes.
///
/// ```
/// use linear_layout::views::style::xml_escape;
/// assert_eq!(xml_escape("a<b & \"c\""), "a&lt;b &amp; &quot;c&quot;");
/// ```
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for ch in text.chars() {
        match ch {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers() {
        assert_eq!(tick_step(256), 32);
        assert_eq!(tick_step(160), 32);
        assert_eq!(tick_step(32768), 4096);
        assert_eq!(tick_step(0), 1);
        assert_eq!(tick_step(u64::MAX), 1 << 61);
        assert_eq!(num(80.0), "80");
        assert_eq!(num(162.5), "162.5");
        assert_eq!(xml_escape("a<b & 'c'"), "a&lt;b &amp; &apos;c&apos;");
    }
}
