//! [`utilisation`]: how much of each backing the buffers use, where the holes are, and — for
//! tensor memory — what the `tcgen05.alloc` rounding leaves idle (the "under-utilisation
//! warning" of TLX's design document).

use std::fmt;

use linear_layout::families::tcgen05_alloc_columns;

use super::{extent, group_range, holes, region_allocs, region_buffers, total, BufferRow};
use crate::{Plan, Program, SpecPlan, Storage};

/// Most holes a [`Utilisation`] line prints before `…`.
const MAX_HOLES_SHOWN: usize = 8;

/// How one region (a [`SpecPlan`]) uses its backing, in plan units (bytes for SMEM, 32-bit
/// columns for TMEM).
///
/// `used_units` counts the units covered by at least one buffer of at least one allocation
/// (the union of every `[start, start + extent)`, clipped to the backing: a buffer past the
/// backing is the [checker](crate::checker)'s business); `unused_units = backing_units −
/// used_units`.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.local_alloc("a", &[64, 64], DType::F32, 2, s)?; // 16 KiB
/// let b = p.local_alloc("b", &[64, 64], DType::BF16, 2, s)?; // 8 KiB, on a's first half
/// p.set_buffer_overlap(s, ReuseGroup::shared(vec![a.into(), b.into()])?)?;
/// let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// let u = &report::utilisation(&p, &plan)[0];
/// assert_eq!(u.to_string(), "s: 32768 bytes, 32768 used, 0 unused");
/// assert_eq!(u.groups.len(), 2);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Utilisation {
    /// The region's name (spec, or plain allocation).
    pub region: String,
    /// SMEM or TMEM: says what a unit is.
    pub storage: Storage,
    /// Size of the backing.
    pub backing_units: u64,
    /// Units some buffer covers.
    pub used_units: u64,
    /// `backing_units − used_units`.
    pub unused_units: u64,
    /// Every unused `[start, end)` of the backing, in order.
    pub unused: Vec<(u64, u64)>,
    /// One per buffer group `[k·U, (k+1)·U)` when the region has a reuse tree; empty otherwise.
    pub groups: Vec<GroupUtilisation>,
    /// TMEM only: columns the `tcgen05.alloc` of this backing would leave idle.
    pub suggestion: Option<TmemSuggestion>,
    /// Buffers left out (past [`MAX_BUFFERS`](super::MAX_BUFFERS), or without an offset).
    pub skipped_buffers: u64,
}

/// The holes of one buffer group of a reuse tree.
///
/// ```
/// use alias_alloc::{report, AllocLayout, Allocation, DType, Mode, PlanOptions, Program, Reuse, ReuseGroup, Storage};
/// // a (8 KiB, aligned to 16 KiB) and b (4 KiB) side by side: U = 16 KiB, 4 KiB idle in group 0
/// // (the backing ends with group 1's content).
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.alloc(Allocation { name: "a".into(), shape: vec![32, 64], dtype: DType::F32, num: 2,
///     storage: Storage::Smem, reuse: Reuse::Spec(s), layout: AllocLayout::Default, align: Some(16384) })?;
/// let b = p.local_alloc("b", &[32, 32], DType::F32, 2, s)?;
/// p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
/// let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// let g = &report::utilisation(&p, &plan)[0].groups[0];
/// assert_eq!((g.group, g.start, g.end), (0, 0, 16384));
/// assert_eq!(g.unused, [(12288, 16384)]);
/// assert_eq!(g.unused_units(), 4096);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GroupUtilisation {
    /// The buffer group `k`.
    pub group: u64,
    /// `k·U`.
    pub start: u64,
    /// `(k+1)·U`, clipped to the backing.
    pub end: u64,
    /// The `[start, end)` pieces of the group no buffer covers.
    pub unused: Vec<(u64, u64)>,
}

impl GroupUtilisation {
    /// Units of the group no buffer covers.
    ///
    /// ```
    /// use alias_alloc::report::GroupUtilisation;
    /// let g = GroupUtilisation { group: 0, start: 0, end: 128, unused: vec![(67, 128)] };
    /// assert_eq!(g.unused_units(), 61);
    /// ```
    pub fn unused_units(&self) -> u64 {
        total(&self.unused)
    }
}

/// TLX's under-utilisation idea for one TMEM region: `tcgen05.alloc` hands out a power of two
/// of at least 32 columns ([`tcgen05_alloc_columns`]), so a backing of `columns` leaves
/// `free_columns` idle. An allocation that shares memory with another and whose own buffers
/// (`extent × num` columns) fit in those idle columns could stop sharing at no TMEM cost —
/// removing a reuse dependency from the pipeline.
///
/// ```
/// use alias_alloc::report::TmemSuggestion;
/// let s = TmemSuggestion { columns: 192, alloc_columns: 256, free_columns: 64, unshare: vec![("alpha".into(), 3)] };
/// assert_eq!(s.to_string(),
///     "tcgen05.alloc rounds 192 columns up to 256, 64 idle: alpha (3 columns) could stop sharing and use them");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TmemSuggestion {
    /// The backing, in columns.
    pub columns: u64,
    /// What `tcgen05.alloc` allocates for it.
    pub alloc_columns: u64,
    /// `alloc_columns − columns`.
    pub free_columns: u64,
    /// Allocations that share memory and fit alone in the idle columns, with their columns.
    pub unshare: Vec<(String, u64)>,
}

impl fmt::Display for TmemSuggestion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "tcgen05.alloc rounds {} columns up to {}, {} idle",
            self.columns, self.alloc_columns, self.free_columns
        )?;
        if !self.unshare.is_empty() {
            let names: Vec<String> = self
                .unshare
                .iter()
                .map(|(n, c)| format!("{n} ({c} columns)"))
                .collect();
            let verb = if self.unshare.len() == 1 {
                "could stop sharing and use them"
            } else {
                "could each stop sharing and use them"
            };
            write!(f, ": {} {verb}", names.join(", "))?;
        }
        Ok(())
    }
}

/// `s: 32768 bytes, 24576 used, 8192 unused (25.0 %): group 0 [12288, 16384); group 1 [28672,
/// 32768)` — the holes per buffer group (or of the whole backing without a tree), then the TMEM
/// suggestion after ` — `.
///
/// ```
/// use alias_alloc::report::{GroupUtilisation, Utilisation};
/// use alias_alloc::Storage;
/// let g = |group, start, end, unused| GroupUtilisation { group, start, end, unused };
/// let u = Utilisation {
///     region: "s".into(), storage: Storage::Smem, backing_units: 32768, used_units: 24576,
///     unused_units: 8192, unused: vec![(12288, 16384), (28672, 32768)],
///     groups: vec![g(0, 0, 16384, vec![(12288, 16384)]), g(1, 16384, 32768, vec![(28672, 32768)])],
///     suggestion: None, skipped_buffers: 0,
/// };
/// assert_eq!(u.to_string(),
///     "s: 32768 bytes, 24576 used, 8192 unused (25.0 %): group 0 [12288, 16384); group 1 [28672, 32768)");
/// ```
impl fmt::Display for Utilisation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let unit = self.storage.unit();
        write!(
            f,
            "{}: {} {unit}, {} used, {} unused",
            self.region, self.backing_units, self.used_units, self.unused_units
        )?;
        if self.unused_units > 0 && self.backing_units > 0 {
            write!(f, " ({})", percent(self.unused_units, self.backing_units))?;
            let mut parts = Vec::new();
            if self.groups.is_empty() {
                parts.push(intervals_text(&self.unused));
            } else {
                for g in self.groups.iter().filter(|g| !g.unused.is_empty()) {
                    parts.push(format!("group {} {}", g.group, intervals_text(&g.unused)));
                }
                let end = self.groups.iter().map(|g| g.end).max().unwrap_or(0);
                let beyond: Vec<(u64, u64)> = self
                    .unused
                    .iter()
                    .copied()
                    .filter(|&(s, _)| s >= end)
                    .collect();
                if !beyond.is_empty() {
                    parts.push(format!("after the groups {}", intervals_text(&beyond)));
                }
            }
            write!(f, ": {}", parts.join("; "))?;
        }
        if self.skipped_buffers > 0 {
            write!(f, " ({} buffers not counted)", self.skipped_buffers)?;
        }
        if let Some(s) = &self.suggestion {
            write!(f, " — {s}")?;
        }
        Ok(())
    }
}

/// `[a, b), [c, d)`, at most [`MAX_HOLES_SHOWN`] of them.
fn intervals_text(v: &[(u64, u64)]) -> String {
    let mut parts: Vec<String> = v
        .iter()
        .take(MAX_HOLES_SHOWN)
        .map(|(s, e)| format!("[{s}, {e})"))
        .collect();
    if v.len() > MAX_HOLES_SHOWN {
        parts.push(format!("… ({} in all)", v.len()));
    }
    parts.join(", ")
}

/// `part / whole` as `25.0 %`, rounded to a tenth without floating point.
fn percent(part: u64, whole: u64) -> String {
    let (part, whole) = (u128::from(part), u128::from(whole.max(1)));
    let tenths = (part * 2000 + whole) / (2 * whole);
    format!("{}.{} %", tenths / 10, tenths % 10)
}

/// How every region of `plan` uses its backing, in [`Plan::specs`] order. `program` is the one
/// the plan was made from (kept for symmetry with the other reports; the plan alone suffices).
///
/// Flash-Attention forward (the crate example): `qk` covers each 128-column group, so nothing
/// is unused, and 256 columns is already a `tcgen05.alloc` size.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
/// let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
/// let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
/// let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 2, s)?;
/// let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
/// let distinct = ReuseGroup::distinct(vec![slices.into(), alpha.into()])?;
/// p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
/// let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// let u = report::utilisation(&p, &plan);
/// assert_eq!(u[0].to_string(), "qk_storage: 256 columns, 256 used, 0 unused");
/// assert_eq!(u[0].suggestion, None);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn utilisation(program: &Program, plan: &Plan) -> Vec<Utilisation> {
    let _ = program;
    plan.specs
        .iter()
        .enumerate()
        .map(|(region, spec)| region_utilisation(plan, region, spec))
        .collect()
}

fn region_utilisation(plan: &Plan, region: usize, spec: &SpecPlan) -> Utilisation {
    let (rows, skipped_buffers) = region_buffers(plan, region);
    let intervals: Vec<(u64, u64)> = rows.iter().map(|r| (r.start, r.end)).collect();
    let unused = holes(&intervals, 0, spec.backing_units);
    let unused_units = total(&unused).min(spec.backing_units);
    let groups = match spec.groups {
        Some(n) if spec.group_stride.is_some() => (0..n)
            .filter_map(|k| {
                let (start, end) = group_range(spec, k)?;
                Some(GroupUtilisation {
                    group: k,
                    start,
                    end,
                    unused: holes(&intervals, start, end),
                })
            })
            .collect(),
        _ => Vec::new(),
    };
    Utilisation {
        region: spec.name.clone(),
        storage: spec.storage,
        backing_units: spec.backing_units,
        used_units: spec.backing_units.saturating_sub(unused_units),
        unused_units,
        unused,
        groups,
        suggestion: suggestion(plan, region, spec, &rows),
        skipped_buffers,
    }
}

fn suggestion(
    plan: &Plan,
    region: usize,
    spec: &SpecPlan,
    rows: &[BufferRow<'_>],
) -> Option<TmemSuggestion> {
    if spec.storage != Storage::Tmem {
        return None;
    }
    let columns = u32::try_from(spec.backing_units).ok()?;
    let alloc_columns = u64::from(tcgen05_alloc_columns(columns).ok()?);
    let free_columns = alloc_columns.checked_sub(spec.backing_units)?;
    if free_columns == 0 {
        return None;
    }
    let unshare = region_allocs(plan, region)
        .into_iter()
        .filter(|a| shares_memory(a.alloc, rows))
        .map(|a| (a.name.clone(), extent(a).saturating_mul(a.num)))
        .filter(|&(_, c)| c > 0 && c <= free_columns)
        .collect();
    Some(TmemSuggestion {
        columns: spec.backing_units,
        alloc_columns,
        free_columns,
        unshare,
    })
}

/// Whether some buffer of `alloc` overlaps a buffer of another allocation.
fn shares_memory(alloc: crate::AllocId, rows: &[BufferRow<'_>]) -> bool {
    let (mine, others): (Vec<&BufferRow<'_>>, Vec<&BufferRow<'_>>) =
        rows.iter().partition(|r| r.plan.alloc == alloc);
    mine.iter().any(|x| {
        others
            .iter()
            .any(|y| x.start < y.end && y.start < x.end && x.start < x.end && y.start < y.end)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_rounds_to_tenths() {
        assert_eq!(percent(8192, 32768), "25.0 %");
        assert_eq!(percent(1, 3), "33.3 %");
        assert_eq!(percent(2, 3), "66.7 %");
        assert_eq!(percent(5, 0), "500.0 %");
    }

    #[test]
    fn many_holes_are_elided() {
        let v: Vec<(u64, u64)> = (0..10).map(|k| (2 * k, 2 * k + 1)).collect();
        assert!(intervals_text(&v).ends_with("[14, 15), … (10 in all)"));
    }
}
