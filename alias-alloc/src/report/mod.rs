//! Reports on a finished [`Plan`]: how much of each backing the buffers use, and where every
//! buffer lives — as text and as SVG, like the QK / P / alpha / l / m diagram of TLX's design
//! document.
//!
//! | item | what it gives | file |
//! |---|---|---|
//! | [`utilisation`] | per region: backing, used and unused units, holes per buffer group, a TMEM hint | `utilisation.rs` |
//! | [`memory_map_text`] | one row per buffer with an ASCII bar over the backing | `memory_map.rs` |
//! | [`memory_map_svg`] | the same map as a self-contained SVG with tooltips and a legend | `svg.rs` |
//! | [`kernel_totals`] | the whole kernel: every region where it lands in SMEM and TMEM, totals against the limits | `totals.rs` |
//! | [`kernel_svg`] | the kernel as two maps (SMEM, TMEM) above the charts of its large regions | `kernel_svg.rs` |
//! | [`with_arenas_svg`] | a picture with the lifetime arenas below it (time × offset charts) | `arena_svg.rs` |
//! | [`PlanOutcome`] | a program planned (packed by lifetime, or past capacity), checked, drawn and reported as JSON: `linalias plan`'s and the Python `Kernel.plan`'s pipeline | `outcome.rs` |
//!
//! Buffer `i` of an allocation occupies `[start, start + extent)` of its region: `start` from
//! the plan's [`placement`](crate::AllocPlan::placement) (what the kernel does in the plan's
//! mode), `extent` the span of its element layout
//! ([`AddressMap::element_span`](linear_layout::AddressMap::element_span)) or, for a layout
//! without a GF(2) form, its [`unit`](crate::AllocPlan::unit). Reports never fail and never
//! panic: what a plan lacks is left out, and at most [`MAX_BUFFERS`] buffers of one allocation
//! are looked at.
//!
//! ```
//! use alias_alloc::{report, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
//! // Two TMEM accumulators side by side: 80 columns of the 128 a tcgen05.alloc would take.
//! let mut p = Program::new();
//! let t = p.storage_alias_spec("acc", Storage::Tmem, None)?;
//! let x = p.local_alloc("x", &[128, 64], DType::F32, 1, t)?;
//! let y = p.local_alloc("y", &[128, 16], DType::F32, 1, t)?;
//! p.set_buffer_overlap(t, ReuseGroup::distinct(vec![x.into(), y.into()])?)?;
//! let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
//! let u = report::utilisation(&p, &plan);
//! assert_eq!((u[0].backing_units, u[0].used_units), (80, 80));
//! assert_eq!(u[0].suggestion.as_ref().map(|s| s.free_columns), Some(48));
//! assert!(report::memory_map_text(&p, &plan).contains("y[0]"));
//! assert_eq!(report::memory_map_svg(&p, &plan).matches("<rect").count(), 2);
//! # Ok::<(), alias_alloc::AllocError>(())
//! ```

mod arena_svg;
mod kernel_svg;
mod memory_map;
mod outcome;
mod svg;
mod totals;
mod utilisation;

pub use arena_svg::with_arenas_svg;
pub use kernel_svg::kernel_svg;
pub use memory_map::{memory_map_text, memory_map_text_of, BAR_WIDTH, MAX_ROWS};
pub use outcome::{arena_limit, rewrite_text, starts, PlanOutcome, MAX_STARTS};
pub use svg::{memory_map_svg, PALETTE};
pub use totals::{kernel_totals, KernelTotals, Placed};
pub use utilisation::{utilisation, GroupUtilisation, TmemSuggestion, Utilisation};

use crate::{AllocId, AllocPlan, GroupKind, Member, Mode, Plan, ReuseGroup, SpecPlan};

/// Most buffers of one allocation a report looks at; the rest are counted as skipped. Plans
/// this large are not legible, and Intended mode's capacity check keeps real ones far below.
///
/// ```
/// assert_eq!(alias_alloc::report::MAX_BUFFERS, 1 << 16);
/// ```
pub const MAX_BUFFERS: u64 = 1 << 16;

/// Shared-memory regions of at most this many bytes without a reuse tree (mbarrier arrays, a
/// CLC context) are listed in one table of small allocations rather than drawn one by one.
pub const SMALL_REGION_BYTES: u64 = 1024;

/// Whether region `region` of `plan` is a small plain one ([`SMALL_REGION_BYTES`]).
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("tiles", Storage::Smem, None)?;
/// p.local_alloc("a", &[128, 128], DType::BF16, 1, s)?;
/// let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// assert!(!report::is_small(&plan, 0));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn is_small(plan: &Plan, region: usize) -> bool {
    plan.specs.get(region).is_some_and(|s| {
        s.tree.is_none()
            && matches!(s.origin, crate::Origin::Allocation(_))
            && s.storage != crate::Storage::Tmem
            && s.backing_units <= SMALL_REGION_BYTES
    })
}

/// One buffer of one allocation in its region.
#[derive(Debug, Clone)]
pub(crate) struct BufferRow<'p> {
    /// Position of the allocation among the region's allocations (program order).
    pub(crate) slot: usize,
    pub(crate) plan: &'p AllocPlan,
    pub(crate) index: u64,
    pub(crate) start: u64,
    pub(crate) end: u64,
    /// Buffer group in the reuse tree; `None` without a tree or outside it.
    pub(crate) group: Option<u64>,
    /// The phase of a phase pool the buffer sits in (index in [`SpecPlan::phases`]: the
    /// innermost pool's).
    pub(crate) phase: Option<usize>,
}

impl BufferRow<'_> {
    /// `name[i]`.
    pub(crate) fn label(&self) -> String {
        format!("{}[{}]", self.plan.name, self.index)
    }
}

/// The buffers of region `region`, allocation by allocation (program order), each in index
/// order, and how many buffers were skipped (past [`MAX_BUFFERS`], or without an offset).
pub(crate) fn region_buffers(plan: &Plan, region: usize) -> (Vec<BufferRow<'_>>, u64) {
    let spec = plan.specs.get(region);
    let tree = spec.and_then(|s| s.tree.as_ref());
    let mut rows = Vec::new();
    let mut skipped = 0u64;
    for (slot, a) in region_allocs(plan, region).into_iter().enumerate() {
        let extent = extent(a);
        let per_group = tree.and_then(|t| buffers_per_group(t, a.alloc));
        let phase = spec.and_then(|s| s.phases.iter().rposition(|p| p.allocs.contains(&a.alloc)));
        let shown = a.num.min(MAX_BUFFERS);
        skipped = skipped.saturating_add(a.num.saturating_sub(shown));
        for index in 0..shown {
            let Ok(start) = a.placement.offset(index) else {
                skipped = skipped.saturating_add(1);
                continue;
            };
            rows.push(BufferRow {
                slot,
                plan: a,
                index,
                start,
                end: start.saturating_add(extent),
                group: per_group.and_then(|n| index.checked_div(n)),
                phase,
            });
        }
    }
    (rows, skipped)
}

/// The allocations placed in region `region`, in program order.
pub(crate) fn region_allocs(plan: &Plan, region: usize) -> Vec<&AllocPlan> {
    let mut allocs: Vec<&AllocPlan> = plan.allocs.iter().filter(|a| a.region == region).collect();
    allocs.sort_by_key(|a| a.alloc);
    allocs
}

/// What one buffer spans: its element layout's span, else its plan unit.
pub(crate) fn extent(a: &AllocPlan) -> u64 {
    a.address_map.as_ref().map_or(a.unit, |m| m.element_span())
}

/// Buffers of `alloc` in one buffer group: the product of the `group_size`s of its shared
/// ancestors (TLX's subtiling). `None` when `alloc` is not in `tree`.
fn buffers_per_group(tree: &ReuseGroup, alloc: AllocId) -> Option<u64> {
    let own = match tree.kind {
        GroupKind::Shared => tree.group_size.max(1),
        GroupKind::Distinct => 1,
    };
    tree.members.iter().find_map(|m| match m {
        Member::Alloc(a) if *a == alloc => Some(own),
        Member::Alloc(_) => None,
        Member::Group(g) => buffers_per_group(g, alloc).map(|n| n.saturating_mul(own)),
    })
}

/// The parts of `[lo, hi)` that no interval covers, in order.
pub(crate) fn holes(intervals: &[(u64, u64)], lo: u64, hi: u64) -> Vec<(u64, u64)> {
    let mut sorted: Vec<(u64, u64)> = intervals
        .iter()
        .map(|&(s, e)| (s.max(lo), e.min(hi)))
        .filter(|(s, e)| s < e)
        .collect();
    sorted.sort_unstable();
    let mut out = Vec::new();
    let mut at = lo;
    for (s, e) in sorted {
        if s > at {
            out.push((at, s));
        }
        at = at.max(e);
    }
    if at < hi {
        out.push((at, hi));
    }
    out
}

/// Total length of `[s, e)` intervals.
pub(crate) fn total(intervals: &[(u64, u64)]) -> u64 {
    intervals
        .iter()
        .fold(0u64, |acc, &(s, e)| acc.saturating_add(e.saturating_sub(s)))
}

/// Buffer group `k` of a region with a tree: `[k·U, (k+1)·U)`, clipped to the backing.
pub(crate) fn group_range(spec: &SpecPlan, k: u64) -> Option<(u64, u64)> {
    if !spec.phases.is_empty() {
        return None;
    }
    let u = spec.group_stride?;
    let start = k.checked_mul(u)?.min(spec.backing_units);
    let end = k
        .checked_add(1)
        .and_then(|n| n.checked_mul(u))
        .unwrap_or(u64::MAX)
        .min(spec.backing_units);
    Some((start, end))
}

/// `[start, end)` of the buffer group `row` sits in: its phase's group in a phase pool, else
/// the tree's; clipped to the backing.
pub(crate) fn row_group_range(spec: &SpecPlan, row: &BufferRow<'_>) -> Option<(u64, u64)> {
    let k = row.group?;
    match row.phase.and_then(|p| spec.phases.get(p)) {
        Some(phase) => phase
            .group_range(k)
            .map(|(s, e)| (s.min(spec.backing_units), e.min(spec.backing_units))),
        None => group_range(spec, k),
    }
}

/// The mode as the reports print it.
pub(crate) fn mode_name(mode: Mode) -> &'static str {
    match mode {
        Mode::TlxCompatible => "TLX-compatible",
        Mode::Intended => "Intended",
    }
}

/// A region's heading: `qk_storage: tmem, 256 columns × 128 lanes, Intended mode, 2 buffer
/// groups of 128 columns`.
pub(crate) fn region_title(plan: &Plan, spec: &SpecPlan) -> String {
    let mut title = format!(
        "{}: {}, {}, {} mode",
        spec.name,
        spec.storage,
        backing_text(spec),
        mode_name(plan.mode)
    );
    if !spec.phases.is_empty() {
        let counts: Vec<String> = spec.phases.iter().map(|p| p.groups.to_string()).collect();
        title.push_str(&format!(
            ", a phase pool: {} phases of {} buffer groups sharing the bytes",
            spec.phases.len(),
            counts.join(", ")
        ));
    } else if let (Some(n), Some(u)) = (spec.groups, spec.group_stride) {
        let s = if n == 1 { "" } else { "s" };
        title.push_str(&format!(
            ", {n} buffer group{s} of {u} {}",
            spec.storage.unit()
        ));
    }
    title
}

/// How the backing reads: `256 columns × 128 lanes` or `32768 bytes`.
pub(crate) fn backing_text(spec: &SpecPlan) -> String {
    let unit = spec.storage.unit();
    if spec.rows > 0 {
        format!("{} {unit} × {} lanes", spec.backing_units, spec.rows)
    } else {
        format!("{} {unit}", spec.backing_units)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holes_and_totals() {
        assert_eq!(
            holes(&[(2, 4), (3, 6), (8, 9)], 0, 10),
            [(0, 2), (6, 8), (9, 10)]
        );
        assert_eq!(holes(&[(0, 20)], 5, 10), []);
        assert_eq!(holes(&[], 3, 3), []);
        assert_eq!(total(&[(0, 2), (6, 8)]), 4);
    }
}
