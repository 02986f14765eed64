//! Which TMEM cells one warp group of a partition touches with a `tmem_load` / `tmem_store`
//! ([`tmem_group_cells`]): the register layout TLX gives the access (the first of Triton's
//! `getTmemCompatibleLayouts`), composed with the TMEM layout, restricted to the group's warps.
//!
//! A warp may only reach the 32 TMEM lanes `32·(w mod 4)` of its warp group, so within one
//! group of four warps two warps never share a cell: a partition of 4·G warps races with
//! itself on TMEM only between its G groups, and the group is the unit the check runs as a
//! thread (`docs/hazard-check.md`, *Warp groups*).

use std::collections::HashMap;

use linear_layout::families::{tmem_access::tmem_reg_layout, Encoding, Tcgen05Atom};
use linear_layout::{DType, LinearLayout};

use super::error::HazardError;
use super::trace::{BarrierId, Cells, EventId, Space, TimelineId, TraceBuilder, PARTITION_SYNC};

/// Warps in a warp group: the four that together reach all 128 TMEM lanes.
pub const WARPS_PER_GROUP: u64 = 4;

/// The order TLX's `getTmemCompatibleLayouts` tries the `tcgen05` messages in; the first that
/// fits is the layout of a `tmem_load` / `tmem_store` whose register layout the kernel left to
/// TLX (`#tlx.dummy_register_layout<…, true>`).
const COMPATIBLE: [Tcgen05Atom; 4] = [
    Tcgen05Atom::M32x32b,
    Tcgen05Atom::M16x256b,
    Tcgen05Atom::M16x128b,
    Tcgen05Atom::M16x64b,
];

/// The `(32-bit column, lane)` pairs, relative to the view's first column, that warp group
/// `group` (warps `4·group .. 4·group + 4`) of a partition of `warps` warps moves with one
/// access to a TMEM view of `shape` with `element`s laid out by `encoding` (MLIR text), sorted.
/// `None` where the layout is outside what the check computes (not a 2-D TMEM layout, a
/// layout no `tcgen05` message fits, a CGA of more than one CTA): the caller then takes the
/// whole view, a superset.
///
/// ```
/// use alias_alloc::hazard::tmem_group_cells;
/// let enc = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
/// // Eight warps load a 128x64 f32 tile: group 1 (warps 4–7) holds columns 32..64.
/// let g1 = tmem_group_cells(&[128, 64], "f32", enc, 8, 1).ok_or("no layout")?;
/// assert_eq!((g1.first(), g1.last(), g1.len()), (Some(&(32, 0)), Some(&(63, 127)), 32 * 128));
/// // The bf16 tile packs two elements a column: group 1 stores columns 16..32.
/// let p1 = tmem_group_cells(&[128, 64], "bf16", enc, 8, 1).ok_or("no layout")?;
/// assert_eq!((p1.first(), p1.last()), (Some(&(16, 0)), Some(&(31, 127))));
/// # Ok::<(), &str>(())
/// ```
pub fn tmem_group_cells(
    shape: &[u64],
    element: &str,
    encoding: &str,
    warps: u64,
    group: u64,
) -> Option<Vec<(u64, u64)>> {
    let enc: Encoding = encoding.parse().ok()?;
    let dtype: DType = element.parse().ok()?;
    let bits = u64::from(dtype.bits());
    let num_warps = u32::try_from(warps).ok()?;
    let tmem = enc.to_linear_layout(shape).ok()?;
    let reg = COMPATIBLE
        .iter()
        .find_map(|&atom| tmem_reg_layout(dtype, shape, shape, &enc, num_warps, atom).ok())?;
    let cvt = reg.invert_and_compose(&tmem).ok()?;
    if cvt
        .in_dims()
        .iter()
        .any(|(d, n)| d.name() == "block" && *n > 1)
    {
        return None;
    }
    let bases = |dim: &str, l: &LinearLayout| -> Option<Vec<(u64, u64)>> {
        let b = l.bases_of(dim).ok()?;
        b.iter().map(|v| Some((*v.first()?, *v.get(1)?))).collect()
    };
    let (regs, lanes, warp_bases) = (
        bases("register", &cvt)?,
        bases("lane", &cvt)?,
        bases("warp", &cvt)?,
    );
    let xor = |basis: &[(u64, u64)], k: u64| {
        basis
            .iter()
            .enumerate()
            .filter(|(i, _)| k >> i & 1 == 1)
            .fold((0, 0), |(r, c), (_, &(br, bc))| (r ^ br, c ^ bc))
    };
    let mut out = Vec::new();
    let first = group.checked_mul(WARPS_PER_GROUP)?;
    for w in first..first.checked_add(WARPS_PER_GROUP)?.min(warps) {
        let (wr, wc) = xor(&warp_bases, w);
        for l in 0..1u64 << lanes.len() {
            let (lr, lc) = xor(&lanes, l);
            for r in 0..1u64 << regs.len() {
                let (rr, rc) = xor(&regs, r);
                let (row, col) = (wr ^ lr ^ rr, wc ^ lc ^ rc);
                out.push((col.saturating_mul(bits) / 32, row));
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    Some(out)
}

/// The key of a computed [`tmem_group_cells`]: encoding, element, shape, warps, group.
type TmemKey = (String, String, Vec<u64>, u64, u64);

/// A shared-memory effect of a split partition, as Triton's `Membar` sees the op: its whole
/// footprint, and the event each group has for it (none where only the leader issues it).
#[derive(Debug, Clone)]
struct Effect {
    cells: Cells,
    write: bool,
    events: Vec<Option<EventId>>,
}

/// A partition run as several warp groups.
#[derive(Debug, Clone)]
struct Split {
    name: String,
    /// One timeline per group, the leader (group 0) first.
    lanes: Vec<TimelineId>,
    warps: u64,
    /// The partition's `bar.sync`: an mbarrier of one arrival per group.
    sync: BarrierId,
    syncs: u64,
    effects: Vec<Effect>,
}

/// The reader's warp groups: which partitions run as several, their `bar.sync`s, the order
/// `Membar` gives their shared-memory accesses, and the TMEM cells of each group.
#[derive(Debug, Default)]
pub(super) struct WarpGroups {
    splits: HashMap<TimelineId, Split>,
    tmem: HashMap<TmemKey, Option<Vec<(u64, u64)>>>,
}

impl WarpGroups {
    /// A partition `name` of `warps` warps whose leader runs on `leader`: for 4·G warps with
    /// G > 1, G − 1 more timelines forked from `parent`. Returns every group's timeline.
    pub(super) fn split(
        &mut self,
        b: &mut TraceBuilder,
        name: &str,
        leader: TimelineId,
        parent: TimelineId,
        warps: u64,
    ) -> Result<Vec<TimelineId>, HazardError> {
        let count = if warps > WARPS_PER_GROUP && warps.is_multiple_of(WARPS_PER_GROUP) {
            warps / WARPS_PER_GROUP
        } else {
            return Ok(vec![leader]);
        };
        let n = u32::try_from(count).map_err(|_| HazardError::Module {
            message: format!("{name}: {warps} warps"),
        })?;
        let sync = b.barrier(&format!("{PARTITION_SYNC}{name}"), n)?;
        let mut lanes = vec![leader];
        for k in 1..count {
            lanes.push(b.partition_after(&format!("{name}.wg{k}"), parent)?);
        }
        self.splits.insert(
            leader,
            Split {
                name: name.to_string(),
                lanes: lanes.clone(),
                warps,
                sync,
                syncs: 0,
                effects: Vec::new(),
            },
        );
        Ok(lanes)
    }

    /// The partition of `leader` runs as one thread again (the default warps after their
    /// region).
    pub(super) fn join(&mut self, leader: TimelineId) {
        self.splits.remove(&leader);
    }

    /// The timelines `leader`'s partition runs on: its groups, or itself.
    pub(super) fn lanes(&self, leader: TimelineId) -> Vec<TimelineId> {
        self.splits
            .get(&leader)
            .map_or_else(|| vec![leader], |s| s.lanes.clone())
    }

    /// Whether `leader`'s partition runs as several groups.
    pub(super) fn is_split(&self, leader: TimelineId) -> bool {
        self.splits.contains_key(&leader)
    }

    /// A `bar.sync` of every warp of `leader`'s partition (nothing for one group): each group
    /// arrives on the partition's barrier and waits for the others.
    pub(super) fn sync(
        &mut self,
        b: &mut TraceBuilder,
        leader: TimelineId,
        label: &str,
    ) -> Result<(), HazardError> {
        let Some(s) = self.splits.get_mut(&leader) else {
            return Ok(());
        };
        let parity = u8::from(s.syncs % 2 == 1);
        s.syncs += 1;
        let label = format!("{label} bar.sync of {}", s.name);
        for &l in &s.lanes {
            b.arrive(l, &label, s.sync, 1)?;
        }
        for &l in &s.lanes {
            b.wait(l, &label, s.sync, parity)?;
        }
        Ok(())
    }

    /// A shared-memory effect of `leader`'s partition, just added as `events` (one per group,
    /// none where only the leader issues the op). Triton's `Membar` puts a `bar.sync` between
    /// two effects of one partition on overlapping bytes, at least one a write, on every path:
    /// so each group's latest such earlier effect comes before this one in every other group.
    pub(super) fn shared(
        &mut self,
        b: &mut TraceBuilder,
        leader: TimelineId,
        cells: Cells,
        write: bool,
        events: Vec<Option<EventId>>,
    ) -> Result<(), HazardError> {
        let Some(s) = self.splits.get_mut(&leader) else {
            return Ok(());
        };
        for (j, later) in events.iter().enumerate() {
            let Some(later) = *later else { continue };
            for i in (0..s.lanes.len()).filter(|&i| i != j) {
                let earlier = s.effects.iter().rev().find_map(|e| {
                    let hit = (e.write || write) && e.cells.overlaps(&cells);
                    e.events.get(i).copied().flatten().filter(|_| hit)
                });
                if let Some(earlier) = earlier {
                    b.order(earlier, later)?;
                }
            }
        }
        s.effects.push(Effect {
            cells,
            write,
            events,
        });
        Ok(())
    }

    /// The cells group `group` of `leader`'s partition touches with a register access to a
    /// view of `whole` cells (`first` its first TMEM column, `len` its columns): in TMEM the
    /// group's own cells through the access's layout ([`tmem_group_cells`]; the whole view
    /// where that has none); in shared memory the group's share, 1/G of each range (the warps
    /// of one op never write a byte twice, and `Membar` orders different ops: see
    /// [`WarpGroups::shared`]); `whole` for a partition of one group.
    pub(super) fn cells(
        &mut self,
        leader: TimelineId,
        group: usize,
        whole: Cells,
        (shape, element, encoding): (&[u64], &str, &str),
        first: u64,
        len: u64,
    ) -> Cells {
        let Some(s) = self.splits.get(&leader) else {
            return whole;
        };
        let (count, warps) = (s.lanes.len() as u64, s.warps);
        let group = group as u64;
        if whole.space() == Space::Smem {
            if whole.ranges().iter().any(|&(a, e)| e - a < count) {
                return whole;
            }
            let share = |&(a, e): &(u64, u64)| {
                let part = (e - a) / count;
                let from = a.saturating_add(part.saturating_mul(group));
                let to = if group + 1 == count {
                    e
                } else {
                    from.saturating_add(part)
                };
                (from, to)
            };
            return Cells::from_ranges(Space::Smem, whole.ranges().iter().map(share));
        }
        let key = (
            encoding.to_string(),
            element.to_string(),
            shape.to_vec(),
            warps,
            group,
        );
        let rel = self
            .tmem
            .entry(key)
            .or_insert_with(|| tmem_group_cells(shape, element, encoding, warps, group));
        match rel {
            Some(v) if v.iter().all(|&(c, _)| c < len) => Cells::from_ranges(
                Space::Tmem,
                v.iter().map(|&(c, lane)| {
                    let cell = first
                        .saturating_add(c)
                        .saturating_mul(128)
                        .saturating_add(lane);
                    (cell, cell.saturating_add(1))
                }),
            ),
            _ => whole,
        }
    }
}
