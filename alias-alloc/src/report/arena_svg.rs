//! [`with_arenas_svg`]: a plan's picture with its lifetime arenas below it — each arena as
//! packing's time × offset chart ([`packing::chart::placement_svg`]): every region a rectangle
//! over its lifetime at its offset, against the target's capacity and the lower bound.

use packing::chart::placement_svg;
use packing::{Buffer, Placement, Problem};

use crate::{AllocError, Arena};

/// `svg` (a plan's picture) with a chart of each arena below it, in one SVG: the pictures are
/// nested `<svg>` elements one under the other. Errors: an arena packing cannot draw
/// ([`AllocError::Input`]; its regions come from a checked plan, so this is a bug).
///
/// ```
/// use alias_alloc::{report, DType, Mode, PackOptions, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// for (name, live) in [("a", [0, 2]), ("b", [2, 4])] {
///     let s = p.storage_alias_spec(name, Storage::Smem, None)?;
///     let id = p.local_alloc(name, &[128, 64], DType::BF16, 1, s)?;
///     p.set_lifetime(id, live[0], live[1])?;
/// }
/// let packed = p.pack(&PackOptions::new(PlanOptions::new(Mode::Intended)))?;
/// let map = report::memory_map_svg(&p, &packed.plan);
/// let svg = report::with_arenas_svg(&map, &packed.arenas)?;
/// assert!(svg.contains("<title>a: time [0, 2), offsets [0, 16384), size 16384</title>"));
/// assert!(svg.contains("<title>b: time [2, 4), offsets [0, 16384), size 16384</title>"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn with_arenas_svg(svg: &str, arenas: &[Arena]) -> Result<String, AllocError> {
    let mut parts = vec![svg.to_owned()];
    for arena in arenas {
        parts.push(arena_svg(arena)?);
    }
    Ok(stack(&parts))
}

/// One arena as packing's chart: its regions as buffers over their lifetimes.
fn arena_svg(arena: &Arena) -> Result<String, AllocError> {
    let bad = |e: packing::PackError| AllocError::Input(format!("arena chart: {e}"));
    let buffers = arena
        .slots
        .iter()
        .map(|s| {
            Buffer::new(s.name.clone(), s.lifetime.start, s.lifetime.end, s.units)
                .and_then(|b| b.aligned(s.alignment))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(bad)?;
    let problem = Problem::new(buffers, Some(arena.capacity)).map_err(bad)?;
    let offsets = arena.slots.iter().map(|s| s.offset).collect();
    placement_svg(&problem, &Placement { offsets }).map_err(bad)
}

/// A root attribute's number (`width="747"`), 0 when absent.
fn attribute(svg: &str, name: &str) -> u64 {
    let root = svg.split('>').next().unwrap_or_default();
    root.split(&format!(" {name}=\""))
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .and_then(|v| v.parse::<f64>().ok())
        .map_or(0, |v| v.ceil() as u64)
}

/// The SVG documents `parts`, one under the other, as nested `<svg>` elements.
fn stack(parts: &[String]) -> String {
    if let [one] = parts {
        return one.clone();
    }
    let width = parts
        .iter()
        .map(|p| attribute(p, "width"))
        .max()
        .unwrap_or(0);
    let height: u64 = parts.iter().map(|p| attribute(p, "height")).sum();
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" viewBox=\"0 0 {width} {height}\" font-family=\"monospace\">\n"
    );
    let mut y = 0;
    for p in parts {
        // The part's own root, placed at y (a nested <svg> takes x and y).
        out.push_str(&p.replacen("<svg ", &format!("<svg y=\"{y}\" "), 1));
        if !p.ends_with('\n') {
            out.push('\n');
        }
        y += attribute(p, "height");
    }
    out.push_str("</svg>\n");
    out
}
