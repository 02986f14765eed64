//! [`placement_svg`]: a placement as an SVG time × offset chart — program time across, offset
//! up, one rectangle per buffer — in the house style of [`linear_layout::views::style`] (plain
//! string, monospace, `<title>` tooltips, the shared palette).

use std::fmt::Write as _;

use linear_layout::views::style::{
    num, svg_open, tick_step, xml_escape, AXIS, GRID, MUTED, NO_COLOUR, SVG_CLOSE, WARP_PALETTE,
};

use super::bound::live_bound;
use super::{PackError, Placement, Problem};

const LEFT: u64 = 80;
const PLOT_W: u64 = 720;
const RIGHT: u64 = 130;
const TOP: u64 = 46;
const PLOT_H: u64 = 420;
const BOTTOM: u64 = 40;
const CHAR_W: f64 = 6.0;
const OVER: &str = "#c00";
const LB_COLOUR: &str = "#1f5fbf";

/// An SVG chart of `placement`: buffer `i` is the rectangle `[lower, upper) × [offset,
/// offset + size)` (time across, offset up), filled from the palette, labelled with its id
/// where the label fits, with a tooltip `id: time [l, u), offsets [o, e), size s`; buffers past
/// the capacity get a red outline. Horizontal lines mark the capacity (red, dashed), the lower
/// bound LB (blue, dashed) and the placement's peak when it differs from LB; a blue circle and
/// a vertical line mark where the live peak is reached (the time LB is attained). The title
/// line gives buffers, peak, LB, peak ÷ LB and capacity.
///
/// Every buffer of nonzero size is exactly one `<rect>` and nothing else is; size-0 buffers
/// occupy nothing and are not drawn. The picture is self-contained, deterministic and
/// well-formed XML, ids escaped.
///
/// Errors: [`PackError::PlacementLength`] when the placement does not have one offset per
/// buffer; [`PackError::Overflow`] naming a buffer whose `offset + size` passes `u64`.
///
/// ```
/// use packing::{chart::placement_svg, Buffer, Placement, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("held_a", 0, 2, 64)?, Buffer::new("a<0>", 2, 4, 32)?, Buffer::new("a1", 2, 4, 32)?],
///     Some(64),
/// )?;
/// let svg = placement_svg(&p, &Placement { offsets: vec![0, 0, 32] })?;
/// assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.ends_with("</svg>\n"));
/// assert_eq!(svg.matches("<rect").count(), 3);
/// assert!(svg.contains("<title>a&lt;0&gt;: time [2, 4), offsets [0, 32), size 32</title>"));
/// assert!(svg.contains("capacity 64") && svg.contains("LB 64"));
/// assert!(placement_svg(&p, &Placement { offsets: vec![0] }).is_err());
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn placement_svg(problem: &Problem, placement: &Placement) -> Result<String, PackError> {
    let peak = placement.peak(problem)?;
    let bound = live_bound(problem);
    let buffers = problem.buffers();
    let t0 = buffers.iter().map(|b| b.lower).min().unwrap_or(0);
    let t1 = buffers
        .iter()
        .map(|b| b.upper)
        .max()
        .unwrap_or(1)
        .max(t0 + 1);
    let span = t1 - t0;
    let capacity = problem.capacity();
    let top = peak.max(bound.peak).max(capacity.unwrap_or(0)).max(1);
    let x = |t: u64| LEFT as f64 + (t - t0) as f64 * PLOT_W as f64 / span as f64;
    let y = |o: u64| (TOP + PLOT_H) as f64 - o as f64 * PLOT_H as f64 / top as f64;

    // Reference lines, labelled right of the plot: equal levels share one label (`capacity 6
    // = LB 6`); the margin is as wide as the longest label.
    let mut marks: Vec<(u64, &str, &str, String)> = Vec::new();
    if let Some(c) = capacity {
        marks.push((c, OVER, "6,3", format!("capacity {c}")));
    }
    marks.push((bound.peak, LB_COLOUR, "3,3", format!("LB {}", bound.peak)));
    if peak != bound.peak {
        marks.push((peak, "#333", "1,0", format!("peak {peak}")));
    }
    marks.sort_by_key(|m| std::cmp::Reverse(m.0));
    let labels: Vec<(u64, String)> = marks
        .iter()
        .enumerate()
        .filter(|(k, m)| marks.get(k + 1).is_none_or(|next| next.0 != m.0))
        .map(|(_, m)| {
            let same: Vec<&str> = marks
                .iter()
                .filter(|n| n.0 == m.0)
                .map(|n| n.3.as_str())
                .collect();
            (m.0, same.join(" = "))
        })
        .collect();
    let longest = labels
        .iter()
        .map(|(_, l)| l.chars().count())
        .max()
        .unwrap_or(0);
    let right = RIGHT.max(6 + (longest as f64 * CHAR_W).ceil() as u64 + 8);
    let (width, height) = (LEFT + PLOT_W + right, TOP + PLOT_H + BOTTOM);

    let ratio = if bound.peak > 0 {
        format!(" (×{:.4})", peak as f64 / bound.peak as f64)
    } else {
        String::new()
    };
    let cap_text = capacity.map_or_else(|| "no capacity".to_string(), |c| format!("capacity {c}"));
    let title = format!(
        "{} buffers: peak {peak}, LB {}{ratio}, {cap_text}",
        buffers.len(),
        bound.peak
    );

    let mut s = String::new();
    s.push_str(&svg_open(width, height));
    let _ = writeln!(s, "<title>{}</title>", xml_escape(&title));
    let _ = writeln!(
        s,
        r#"<text x="8" y="20" font-size="12" font-weight="bold">{}</text>"#,
        xml_escape(&title)
    );

    // Grid and axes first, so that the buffers are drawn over them.
    let (plot_top, plot_bottom, plot_right) = (TOP, TOP + PLOT_H, LEFT + PLOT_W);
    let step = tick_step(top);
    let mut tick = 0u64;
    while tick <= top {
        let ty = num(y(tick));
        let _ = writeln!(
            s,
            r##"<line x1="{LEFT}" y1="{ty}" x2="{plot_right}" y2="{ty}" stroke="{GRID}" stroke-width="1"/><text x="{}" y="{ty}" font-size="10" text-anchor="end" dominant-baseline="middle" fill="{MUTED}">{tick}</text>"##,
            LEFT - 6
        );
        match tick.checked_add(step) {
            Some(t) => tick = t,
            None => break,
        }
    }
    let step = tick_step(span);
    let mut tick = 0u64;
    while tick <= span {
        let tx = num(x(t0 + tick));
        let _ = writeln!(
            s,
            r##"<line x1="{tx}" y1="{plot_top}" x2="{tx}" y2="{plot_bottom}" stroke="#f0f0f0" stroke-width="1"/><text x="{tx}" y="{}" font-size="10" text-anchor="middle" fill="{MUTED}">{}</text>"##,
            plot_bottom + 14,
            t0 + tick
        );
        match tick.checked_add(step) {
            Some(t) => tick = t,
            None => break,
        }
    }
    let _ = writeln!(
        s,
        r##"<line x1="{LEFT}" y1="{plot_bottom}" x2="{plot_right}" y2="{plot_bottom}" stroke="{AXIS}" stroke-width="1"/><line x1="{LEFT}" y1="{plot_top}" x2="{LEFT}" y2="{plot_bottom}" stroke="{AXIS}" stroke-width="1"/><text x="{plot_right}" y="{}" font-size="10" text-anchor="end" fill="{MUTED}">time</text><text x="8" y="{}" font-size="10" fill="{MUTED}">offset</text>"##,
        plot_bottom + 30,
        plot_top - 8
    );

    for (i, (b, &offset)) in buffers.iter().zip(&placement.offsets).enumerate() {
        if b.size == 0 {
            continue;
        }
        let end = offset
            .checked_add(b.size)
            .ok_or_else(|| PackError::Overflow { id: b.id.clone() })?;
        let (bx, bw) = (x(b.lower), (x(b.upper) - x(b.lower)).max(0.5));
        let (by, bh) = (y(end), (y(offset) - y(end)).max(0.5));
        let fill = WARP_PALETTE
            .get(i % WARP_PALETTE.len())
            .copied()
            .unwrap_or(NO_COLOUR);
        let stroke = if capacity.is_some_and(|c| end > c) {
            format!(r#"stroke="{OVER}" stroke-width="1.5""#)
        } else {
            r##"stroke="#555" stroke-width="0.5""##.to_string()
        };
        let tooltip = format!(
            "{}: time [{}, {}), offsets [{offset}, {end}), size {}",
            b.id, b.lower, b.upper, b.size
        );
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{}" width="{}" height="{}" fill="{fill}" {stroke}><title>{}</title></rect>"#,
            num(bx),
            num(by),
            num(bw),
            num(bh),
            xml_escape(&tooltip)
        );
        let label_w = b.id.chars().count() as f64 * CHAR_W + 4.0;
        if bw >= label_w && bh >= 12.0 {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="10" text-anchor="middle" dominant-baseline="middle">{}</text>"#,
                num(bx + bw / 2.0),
                num(by + bh / 2.0),
                xml_escape(&b.id)
            );
        }
    }

    // Reference lines over the buffers; labels closer than a text line are pushed apart.
    let mut last_label_y = f64::NEG_INFINITY;
    for (k, (level, colour, dash, _)) in marks.iter().enumerate() {
        let ly = y(*level);
        let _ = writeln!(
            s,
            r#"<line x1="{LEFT}" y1="{}" x2="{plot_right}" y2="{}" stroke="{colour}" stroke-width="1.5" stroke-dasharray="{dash}"/>"#,
            num(ly),
            num(ly)
        );
        if marks.get(k + 1).is_some_and(|next| next.0 == *level) {
            continue; // the last of equal levels carries the label
        }
        let Some((_, label)) = labels.iter().find(|(l, _)| l == level) else {
            continue;
        };
        let label_y = ly.max(last_label_y + 12.0);
        last_label_y = label_y;
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="10" dominant-baseline="middle" fill="{colour}">{}</text>"#,
            plot_right + 6,
            num(label_y),
            xml_escape(label)
        );
    }
    if bound.peak > 0 {
        let (px, py) = (num(x(bound.at)), num(y(bound.peak)));
        let _ = writeln!(
            s,
            r#"<line x1="{px}" y1="{plot_top}" x2="{px}" y2="{plot_bottom}" stroke="{LB_COLOUR}" stroke-width="1" stroke-dasharray="2,3"/><circle cx="{px}" cy="{py}" r="4" fill="{LB_COLOUR}"><title>{}</title></circle>"#,
            xml_escape(&format!(
                "live peak {} at time {} ({} buffers live)",
                bound.peak,
                bound.at,
                bound.live.len()
            ))
        );
    }
    s.push_str(SVG_CLOSE);
    Ok(s)
}
