//! Whether a picture can be read: [`problems`] lists every `<text>` of an SVG that spills out of
//! the view box of the `<svg>` it is drawn in (its extent estimated for a monospace font: 0.6 em
//! a character, anchored as `text-anchor` says), and a picture larger than [`MAX_SIDE_PX`].
//!
//! ```
//! let ok = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40"><text x="4" y="20" font-size="10">fits</text></svg>"#;
//! assert!(test_support::svg::problems(ok).is_empty());
//! let out = r#"<svg xmlns="http://www.w3.org/2000/svg" width="100" height="40"><text x="90" y="20" font-size="10">spills over</text></svg>"#;
//! assert_eq!(test_support::svg::problems(out).len(), 1);
//! ```

/// The largest side of a picture a person reads without zooming out until text is unreadable.
pub const MAX_SIDE_PX: f64 = 4000.0;

/// A number attribute of a tag (`x="12.5"`).
fn attr(tag: &str, name: &str) -> Option<f64> {
    let key = format!(" {name}=\"");
    let rest = tag.split(&key).nth(1)?;
    rest.split('"').next()?.parse().ok()
}

/// A string attribute of a tag.
fn attr_str<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    tag.split(&key).nth(1)?.split('"').next()
}

/// The characters a text shows: the element's content with entities counted as one.
fn shown_len(content: &str) -> usize {
    let mut n = 0;
    let mut in_entity = false;
    for c in content.chars() {
        match c {
            '&' => {
                in_entity = true;
                n += 1;
            }
            ';' if in_entity => in_entity = false,
            _ if in_entity => {}
            _ => n += 1,
        }
    }
    n
}

/// Every text outside the view box of its `<svg>`, and every `<svg>` larger than
/// [`MAX_SIDE_PX`], described in a line each.
pub fn problems(svg: &str) -> Vec<String> {
    let mut out = Vec::new();
    // (width, height, font size) of the open <svg> elements, innermost last.
    let mut boxes: Vec<(f64, f64, f64)> = Vec::new();
    let mut rest = svg;
    while let Some(at) = rest.find('<') {
        rest = &rest[at..];
        let end = rest.find('>').map_or(rest.len(), |e| e + 1);
        let tag = &rest[..end];
        if tag.starts_with("<svg") {
            let (w, h) = (
                attr(tag, "width").unwrap_or(0.0),
                attr(tag, "height").unwrap_or(0.0),
            );
            if w > MAX_SIDE_PX || h > MAX_SIDE_PX {
                out.push(format!("a picture of {w} × {h} px (at most {MAX_SIDE_PX})"));
            }
            let inherited = boxes.last().map_or(16.0, |b| b.2);
            boxes.push((w, h, attr(tag, "font-size").unwrap_or(inherited)));
        } else if tag.starts_with("</svg") {
            boxes.pop();
        } else if tag.starts_with("<text") {
            let content_end = rest.find("</text>").unwrap_or(end);
            let content = rest.get(end..content_end).unwrap_or("");
            let (x, y) = (attr(tag, "x").unwrap_or(0.0), attr(tag, "y").unwrap_or(0.0));
            let size = attr(tag, "font-size").unwrap_or(boxes.last().map_or(16.0, |b| b.2));
            let w = 0.6 * size * shown_len(content) as f64;
            let (x0, x1) = match attr_str(tag, "text-anchor") {
                Some("middle") => (x - w / 2.0, x + w / 2.0),
                Some("end") => (x - w, x),
                _ => (x, x + w),
            };
            let (y0, y1) = match attr_str(tag, "dominant-baseline") {
                Some("middle") => (y - size / 2.0, y + size / 2.0),
                _ => (y - 0.8 * size, y + 0.2 * size),
            };
            let (bw, bh, _) = boxes.last().copied().unwrap_or((f64::MAX, f64::MAX, 16.0));
            let slack = 1.0;
            if x0 < -slack || y0 < -slack || x1 > bw + slack || y1 > bh + slack {
                out.push(format!(
                    "text {content:?} spans x {x0:.0}..{x1:.0}, y {y0:.0}..{y1:.0} outside {bw} × {bh}"
                ));
            }
        }
        rest = &rest[end.min(rest.len())..];
        if end == 0 {
            break;
        }
    }
    out
}
