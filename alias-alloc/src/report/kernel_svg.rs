//! [`kernel_svg`]: a whole kernel in one picture — two maps on top, shared memory (every region
//! where it lands, against the target's limit) and tensor memory (512 columns), then the
//! buffer-by-buffer charts of the regions that are not small plain allocations.

use std::fmt::Write as _;

use linear_layout::views::style::{num, xml_escape, AXIS, EMPTY_FILL, INK, MUTED, NO_COLOUR, PAD};

use super::svg::{memory_map_svg_of, Header};
use super::totals::{kernel_totals, KernelTotals, Placed};
use super::{is_small, PALETTE};
use crate::{Plan, Program};

/// Width of a kernel map's bar.
const MAP_W: u64 = 640;
/// Room left of the bars for their labels.
const MAP_LEFT: u64 = 110;
const MAP_BAR_H: u64 = 26;
/// One map: title, bar, tick labels, gap.
const MAP_H: u64 = 74;
/// Over-limit marker.
const OVER: &str = "#d62728";

/// The kernel of `plan` as one SVG: a shared-memory map (every region where it lands, against
/// the target's limit) and a tensor-memory map (512 columns) above the charts of the regions
/// that are not small plain allocations ([`super::is_small`]). Every region of the kernel
/// maps is one `<rect>` with a tooltip (`q_tiles: bytes 0–65536`); a region past the limit
/// shows past a red limit line.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("tiles", Storage::Smem, None)?;
/// p.local_alloc("a", &[128, 128], DType::BF16, 2, s)?;
/// let t = p.storage_alias_spec("acc", Storage::Tmem, None)?;
/// p.local_alloc("d", &[128, 128], DType::F32, 1, t)?;
/// let svg = report::kernel_svg(&p, &p.plan(&PlanOptions::new(Mode::Intended))?);
/// assert!(svg.contains("<title>tiles: bytes 0–65536</title>"));
/// assert!(svg.contains("<title>acc: columns 0–128</title>"));
/// assert!(svg.contains("shared memory: 65536 of 232448 bytes"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn kernel_svg(program: &Program, plan: &Plan) -> String {
    let totals = kernel_totals(plan);
    let header = maps(plan, &totals);
    memory_map_svg_of(program, plan, |r| !is_small(plan, r), Some(header))
}

/// One kernel map: which memory, its regions, its limit and what the regions use.
struct MapSpec<'t> {
    memory: &'static str,
    label: &'static str,
    unit: &'static str,
    regions: &'t [Placed],
    limit: u64,
    used: u64,
}

fn maps(plan: &Plan, t: &KernelTotals) -> Header {
    let mut specs = vec![MapSpec {
        memory: "shared memory",
        label: "SMEM",
        unit: "bytes",
        regions: &t.smem,
        limit: t.smem_limit,
        used: t.smem_bytes,
    }];
    if t.tmem_limit > 0 || t.tmem_columns > 0 {
        specs.push(MapSpec {
            memory: "tensor memory",
            label: "TMEM",
            unit: "columns",
            regions: &t.tmem,
            limit: t.tmem_limit,
            used: t.tmem_columns,
        });
    }
    let mut body = String::new();
    let mut top = PAD;
    for spec in &specs {
        map(&mut body, plan, top, spec);
        top += MAP_H;
    }
    Header {
        body,
        height: top,
        width: MAP_LEFT + MAP_W + 2 * PAD + 40,
    }
}

fn map(s: &mut String, plan: &Plan, top: u64, spec: &MapSpec<'_>) {
    let MapSpec {
        memory,
        label,
        unit,
        regions,
        limit,
        used,
    } = *spec;
    let title = format!(
        "{memory}: {used} of {limit} {unit}{}",
        if used <= limit {
            ""
        } else {
            " — does not fit"
        }
    );
    let domain = limit.max(used).max(1);
    let x = |v: u64| MAP_LEFT as f64 + MAP_W as f64 * v as f64 / domain as f64;
    let bar_y = top + 20;
    let _ = writeln!(
        s,
        r#"<text x="{PAD}" y="{}" font-size="13" fill="{INK}">{}</text>"#,
        top + 12,
        xml_escape(&title)
    );
    let _ = writeln!(
        s,
        r#"<text x="{PAD}" y="{}" font-size="11" fill="{MUTED}">{}</text>"#,
        bar_y + MAP_BAR_H / 2 + 4,
        label
    );
    let _ = writeln!(
        s,
        r#"<g fill="{EMPTY_FILL}" stroke="{AXIS}" stroke-width="0.5"><path d="M{} {bar_y}h{}v{MAP_BAR_H}h-{}z"/></g>"#,
        num(x(0)),
        num(x(limit) - x(0)),
        num(x(limit) - x(0)),
    );
    let mut colour = 0usize;
    for r in regions {
        let fill = if is_small(plan, r.region) {
            NO_COLOUR
        } else {
            colour += 1;
            PALETTE
                .get((colour - 1) % PALETTE.len())
                .copied()
                .unwrap_or(NO_COLOUR)
        };
        let (x0, x1) = (x(r.start), x(r.start.saturating_add(r.size)));
        let _ = writeln!(
            s,
            r#"<rect x="{}" y="{bar_y}" width="{}" height="{MAP_BAR_H}" fill="{fill}" stroke="{INK}" stroke-width="0.3"><title>{}</title></rect>"#,
            num(x0),
            num((x1 - x0).max(0.5)),
            xml_escape(&format!(
                "{}: {unit} {}–{}{}",
                r.name,
                r.start,
                r.start.saturating_add(r.size),
                if r.aliased { " (aliased)" } else { "" }
            ))
        );
        // A name inside its rectangle where it fits.
        if x1 - x0 > 7.0 * r.name.chars().count() as f64 + 6.0 {
            let _ = writeln!(
                s,
                r#"<text x="{}" y="{}" font-size="11" fill="{INK}">{}</text>"#,
                num(x0 + 3.0),
                bar_y + MAP_BAR_H / 2 + 4,
                xml_escape(&r.name)
            );
        }
    }
    if used > limit {
        let _ = writeln!(
            s,
            r#"<path d="M{} {}v{}" stroke="{OVER}" stroke-width="2"/>"#,
            num(x(limit)),
            bar_y - 4,
            MAP_BAR_H + 8
        );
    }
    for (v, anchor) in [(0, "start"), (limit, "end")] {
        let _ = writeln!(
            s,
            r#"<text x="{}" y="{}" font-size="10" fill="{MUTED}" text-anchor="{anchor}">{v}</text>"#,
            num(x(v)),
            bar_y + MAP_BAR_H + 12
        );
    }
}
