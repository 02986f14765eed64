//! [`memory_map_svg`]: the memory map as an SVG picture — offset across, one lane per buffer
//! down, grouped by buffer group — in the house style of
//! [`linear_layout::views::style`] (plain string, monospace, `<title>` tooltips, circle legend).

use std::fmt::Write as _;

use linear_layout::views::style::{
    num, svg_open, tick_step, xml_escape, AXIS, CHAR_W, EMPTY_FILL, GRID, INK, MUTED, NO_COLOUR,
    PAD, SVG_CLOSE, WARP_PALETTE,
};

use super::{
    extent, group_range, mode_name, region_allocs, region_buffers, region_title, utilisation,
    BufferRow, Utilisation,
};
use crate::{AllocPlan, Plan, Program, SpecPlan};

/// Fill of the `k`-th allocation of a region (cycled): linear-layout's
/// [`WARP_PALETTE`], light colours under black text.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// p.local_alloc("a", &[64], DType::F32, 2, s)?;
/// let svg = report::memory_map_svg(&p, &p.plan(&PlanOptions::new(Mode::Intended))?);
/// assert!(svg.contains(report::PALETTE[0]));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub const PALETTE: [&str; 12] = WARP_PALETTE;

const PLOT_W: u64 = 640;
const LANE_H: u64 = 18;
const BAR_H: u64 = 14;
/// Room right of the plot for the last tick label.
const RIGHT: u64 = 40;
/// From a region's top to its first lane: title, utilisation line, tick labels, axis.
const HEAD_H: u64 = 60;
const LEGEND_H: u64 = 18;
const GAP: u64 = 24;

/// An SVG memory map of every region of `plan`, stacked top to bottom. Per region: a title
/// with name, storage, size, mode and buffer groups; the [`utilisation`](super::utilisation)
/// line; an axis of offsets within the backing (bytes or columns, power-of-two ticks); one lane
/// per buffer `name[i]`, grouped under a `group k` heading per buffer group, holding one
/// `<rect>` from its start to its end with a tooltip `p[1]: columns 32–64`; dashed lines at the
/// buffer-group boundaries, an `unused` lane with the holes; a legend with one colour per
/// allocation ([`PALETTE`], in program order).
///
/// Every buffer is exactly one `<rect>` and nothing else is; the picture is self-contained (no
/// fonts, stylesheets or scripts), deterministic and well-formed XML, names escaped. At most
/// [`MAX_ROWS`](super::MAX_ROWS) lanes per region are drawn.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
/// let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
/// let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
/// let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
/// p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), slices.into()])?)?;
/// let svg = report::memory_map_svg(&p, &p.plan(&PlanOptions::new(Mode::Intended))?);
/// assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\"") && svg.ends_with("</svg>\n"));
/// assert_eq!(svg.matches("<rect").count(), 2 + 4);
/// assert!(svg.contains("<title>p[1]: columns 32–64</title>"));
/// assert!(svg.contains(">group 1<"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn memory_map_svg(program: &Program, plan: &Plan) -> String {
    memory_map_svg_of(program, plan, |_| true, None)
}

/// A picture drawn above the region charts: its SVG elements (placed from `y = 0`) and height.
pub(crate) struct Header {
    pub(crate) body: String,
    pub(crate) height: u64,
    pub(crate) width: u64,
}

/// [`memory_map_svg`] of the regions `keep` selects, below `header`.
pub(crate) fn memory_map_svg_of(
    program: &Program,
    plan: &Plan,
    keep: impl Fn(usize) -> bool,
    header: Option<Header>,
) -> String {
    let usage = utilisation(program, plan);
    let regions: Vec<Region<'_>> = plan
        .specs
        .iter()
        .enumerate()
        .filter(|(i, _)| keep(*i))
        .map(|(i, spec)| Region::new(program, plan, i, spec, usage.get(i)))
        .collect();
    let label_chars = regions
        .iter()
        .flat_map(|r| r.lanes.iter().map(Lane::label_chars))
        .chain(["unused".len(), "columns".len()])
        .max()
        .unwrap_or(0) as u64;
    let left = PAD + CHAR_W * label_chars + 10;
    let text_w = regions
        .iter()
        .flat_map(|r| [&r.title, &r.subtitle])
        .map(|t| 15 * t.chars().count() as u64 / 2 + 2 * PAD)
        .max()
        .unwrap_or(0);
    let header_w = header.as_ref().map_or(0, |h| h.width);
    let header_h = header.as_ref().map_or(0, |h| h.height);
    let width = (left + PLOT_W + RIGHT).max(text_w).max(header_w);
    let legend_per_line = (width / LEGEND_W).max(1);
    let height = regions
        .iter()
        .map(|r| r.height(legend_per_line) + GAP)
        .sum::<u64>()
        .saturating_add(header_h)
        .max(60);

    let mut s = String::new();
    s.push_str(&svg_open(width, height));
    let names: Vec<&str> = plan.specs.iter().map(|r| r.name.as_str()).collect();
    let _ = writeln!(
        s,
        "<title>{}</title>",
        xml_escape(&format!(
            "memory map ({} mode): {}",
            mode_name(plan.mode),
            names.join(", ")
        ))
    );
    if let Some(h) = &header {
        s.push_str(&h.body);
    }
    if regions.is_empty() && header.is_none() {
        let _ = writeln!(
            s,
            r#"<text x="{PAD}" y="20" font-size="12">no regions</text>"#
        );
    }
    let mut top = PAD + header_h;
    for r in &regions {
        r.render(&mut s, top, left, legend_per_line);
        top += r.height(legend_per_line) + GAP;
    }
    s.push_str(SVG_CLOSE);
    s
}

/// Width of one legend entry.
const LEGEND_W: u64 = 300;

/// One lane of a region: a buffer-group heading or a buffer.
enum Lane<'p> {
    Heading(String),
    Buffer(BufferRow<'p>),
    Unused(Vec<(u64, u64)>),
    More(u64),
}

impl Lane<'_> {
    fn label_chars(&self) -> usize {
        match self {
            Lane::Heading(t) => t.chars().count(),
            Lane::Buffer(r) => r.label().chars().count(),
            Lane::Unused(_) => "unused".len(),
            Lane::More(_) => 0,
        }
    }
}

struct Region<'p> {
    spec: &'p SpecPlan,
    title: String,
    subtitle: String,
    lanes: Vec<Lane<'p>>,
    legend: Vec<(&'static str, String)>,
    /// Right end of the axis: the backing, or the furthest buffer end past it.
    domain: u64,
}

impl<'p> Region<'p> {
    fn new(
        program: &Program,
        plan: &'p Plan,
        region: usize,
        spec: &'p SpecPlan,
        usage: Option<&Utilisation>,
    ) -> Self {
        let unit = spec.storage.unit();
        let title = region_title(plan, spec);
        let (rows, skipped) = region_buffers(plan, region);
        let domain = rows
            .iter()
            .map(|r| r.end)
            .chain([spec.backing_units])
            .max()
            .unwrap_or(0);
        let mut ordered = rows;
        ordered.sort_by_key(|r| (r.group.is_none(), r.group, r.slot, r.index));
        let hidden = (ordered.len().saturating_sub(super::MAX_ROWS) as u64).saturating_add(skipped);
        ordered.truncate(super::MAX_ROWS);
        let mut lanes = Vec::new();
        let mut heading: Option<Option<u64>> = None;
        for r in ordered {
            if spec.tree.is_some() && heading != Some(r.group) {
                heading = Some(r.group);
                lanes.push(Lane::Heading(match r.group {
                    Some(k) => format!("group {k}"),
                    None => "outside tree".into(),
                }));
            }
            lanes.push(Lane::Buffer(r));
        }
        if hidden > 0 {
            lanes.push(Lane::More(hidden));
        }
        if let Some(u) = usage.filter(|u| !u.unused.is_empty()) {
            lanes.push(Lane::Unused(u.unused.clone()));
        }
        let legend = region_allocs(plan, region)
            .into_iter()
            .enumerate()
            .map(|(k, a)| (fill(k), legend_text(program, a, unit)))
            .collect();
        Region {
            spec,
            title,
            subtitle: usage.map_or_else(String::new, ToString::to_string),
            lanes,
            legend,
            domain,
        }
    }

    fn height(&self, legend_per_line: u64) -> u64 {
        let legend_lines = (self.legend.len() as u64).div_ceil(legend_per_line.max(1));
        HEAD_H + self.lanes.len() as u64 * LANE_H + 8 + legend_lines * LEGEND_H
    }

    fn x(&self, left: u64, u: u64) -> f64 {
        let domain = self.domain.max(1) as f64;
        left as f64 + u as f64 * PLOT_W as f64 / domain
    }

    fn render(&self, s: &mut String, top: u64, left: u64, legend_per_line: u64) {
        let unit = self.spec.storage.unit();
        let _ = writeln!(s, "<g>");
        let _ = writeln!(
            s,
            r#"<text x="{PAD}" y="{}" font-size="12" font-weight="bold">{}</text>"#,
            top + 14,
            xml_escape(&self.title)
        );
        let _ = writeln!(
            s,
            r##"<text x="{PAD}" y="{}" font-size="10" fill="{INK}">{}</text>"##,
            top + 30,
            xml_escape(&self.subtitle)
        );
        let axis_y = top + HEAD_H - 6;
        let lanes_top = top + HEAD_H;
        let lanes_bottom = lanes_top + self.lanes.len() as u64 * LANE_H;
        // Ticks and grid first, so that the buffers are drawn over them.
        let step = tick_step(self.domain);
        let mut tick = 0u64;
        loop {
            let x = num(self.x(left, tick));
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{axis_y}" x2="{x}" y2="{lanes_bottom}" stroke="{GRID}" stroke-width="1"/><text x="{x}" y="{}" font-size="10" text-anchor="middle" fill="{MUTED}">{tick}</text>"##,
                axis_y - 4
            );
            match tick.checked_add(step) {
                Some(t) if t <= self.domain && step > 0 => tick = t,
                _ => break,
            }
        }
        let _ = writeln!(
            s,
            r##"<line x1="{left}" y1="{axis_y}" x2="{}" y2="{axis_y}" stroke="{AXIS}" stroke-width="1"/><text x="{}" y="{}" font-size="10" text-anchor="end" fill="{MUTED}">{unit}</text>"##,
            left + PLOT_W,
            left.saturating_sub(6),
            axis_y - 4
        );
        // Where a buffer group starts: the tree's, or each phase's in a phase pool.
        let mut starts: Vec<u64> = Vec::new();
        if let Some(n) = self
            .spec
            .groups
            .filter(|_| self.spec.group_stride.is_some())
        {
            starts.extend((1..n).map_while(|k| group_range(self.spec, k).map(|(s, _)| s)));
        }
        for p in &self.spec.phases {
            starts.extend((1..p.groups).map_while(|k| p.group_range(k).map(|(s, _)| s)));
        }
        starts.sort_unstable();
        starts.dedup();
        for start in starts.into_iter().filter(|&s| s < self.spec.backing_units) {
            let x = num(self.x(left, start));
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{axis_y}" x2="{x}" y2="{lanes_bottom}" stroke="#999" stroke-width="1" stroke-dasharray="4,3"/>"##
            );
        }
        if self.domain > self.spec.backing_units {
            let x = num(self.x(left, self.spec.backing_units));
            let _ = writeln!(
                s,
                r##"<line x1="{x}" y1="{axis_y}" x2="{x}" y2="{lanes_bottom}" stroke="#c00" stroke-width="1.5" stroke-dasharray="2,2"><title>end of the backing: {}</title></line>"##,
                self.spec.backing_units
            );
        }
        for (n, lane) in self.lanes.iter().enumerate() {
            let y = lanes_top + n as u64 * LANE_H;
            self.lane(s, lane, left, y, unit);
        }
        for (k, (colour, text)) in self.legend.iter().enumerate() {
            let k = k as u64;
            let (line, col) = (k / legend_per_line.max(1), k % legend_per_line.max(1));
            let (x, y) = (PAD + col * LEGEND_W, lanes_bottom + 8 + line * LEGEND_H);
            let _ = writeln!(
                s,
                r##"<circle cx="{}" cy="{}" r="6" fill="{colour}" stroke="{AXIS}" stroke-width="0.5"/><text x="{}" y="{}" font-size="10">{}</text>"##,
                x + 6,
                y + 6,
                x + 16,
                y + 10,
                xml_escape(text)
            );
        }
        let _ = writeln!(s, "</g>");
    }

    fn lane(&self, s: &mut String, lane: &Lane<'_>, left: u64, y: u64, unit: &str) {
        let label_x = left.saturating_sub(6);
        let text_y = y + BAR_H / 2 + 6;
        match lane {
            Lane::Heading(t) => {
                let _ = writeln!(
                    s,
                    r##"<text x="{label_x}" y="{text_y}" font-size="10" text-anchor="end" font-style="italic" fill="{MUTED}">{}</text>"##,
                    xml_escape(t)
                );
            }
            Lane::More(n) => {
                let _ = writeln!(
                    s,
                    r##"<text x="{left}" y="{text_y}" font-size="10" fill="{MUTED}">… {n} more buffers not drawn</text>"##
                );
            }
            Lane::Unused(holes) => {
                let _ = writeln!(
                    s,
                    r##"<text x="{label_x}" y="{text_y}" font-size="10" text-anchor="end" fill="{MUTED}">unused</text>"##
                );
                for &(a, b) in holes {
                    let (x0, x1) = (self.x(left, a), self.x(left, b));
                    let w = (x1 - x0).max(1.0);
                    let _ = writeln!(
                        s,
                        r##"<g><title>unused: {unit} {a}–{b}</title><path d="M{} {}h{}v{BAR_H}h-{}z" fill="{EMPTY_FILL}" stroke="#999" stroke-width="0.5" stroke-dasharray="3,2"/></g>"##,
                        num(x0),
                        y + 2,
                        num(w),
                        num(w)
                    );
                }
            }
            Lane::Buffer(r) => {
                let label = r.label();
                let mut tip = format!("{label}: {unit} {}–{}", r.start, r.end);
                if r.end > self.spec.backing_units {
                    let _ = write!(
                        tip,
                        " (past the end of the backing, {})",
                        self.spec.backing_units
                    );
                }
                let (x0, x1) = (self.x(left, r.start), self.x(left, r.end));
                let w = (x1 - x0).max(1.0);
                let _ = write!(
                    s,
                    r##"<text x="{label_x}" y="{text_y}" font-size="10" text-anchor="end">{}</text><g><title>{}</title><rect x="{}" y="{}" width="{}" height="{BAR_H}" fill="{}" stroke="{AXIS}" stroke-width="0.5"/>"##,
                    xml_escape(&label),
                    xml_escape(&tip),
                    num(x0),
                    y + 2,
                    num(w),
                    fill(r.slot)
                );
                let range = format!("{}–{}", r.start, r.end);
                if w >= (6 * range.chars().count() + 4) as f64 {
                    let _ = write!(
                        s,
                        r##"<text x="{}" y="{}" font-size="9" text-anchor="middle" fill="{INK}">{}</text>"##,
                        num(x0 + w / 2.0),
                        text_y - 1,
                        xml_escape(&range)
                    );
                }
                s.push_str("</g>\n");
            }
        }
    }
}

/// `qk: f32 [128, 128] ×2, 128 columns each`.
fn legend_text(program: &Program, a: &AllocPlan, unit: &str) -> String {
    let each = extent(a);
    let unit = if each == 1 {
        unit.strip_suffix('s').unwrap_or(unit)
    } else {
        unit
    };
    match program.allocation(a.alloc) {
        Ok(x) if x.name == a.name => {
            let dims: Vec<String> = x.shape.iter().map(u64::to_string).collect();
            format!(
                "{}: {} [{}] ×{}, {each} {unit} each",
                a.name,
                x.dtype,
                dims.join(", "),
                a.num
            )
        }
        _ => format!("{}: ×{}, {each} {unit} each", a.name, a.num),
    }
}

fn fill(slot: usize) -> &'static str {
    PALETTE
        .get(slot % PALETTE.len())
        .copied()
        .unwrap_or(NO_COLOUR)
}
