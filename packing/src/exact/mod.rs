//! The exact solver: branch and bound over canonical placements (MiniMalloc's search, with
//! cheaper bookkeeping and a table of refuted states).
//!
//! - [`fits`] is the decision form: does everything fit in a capacity? It answers
//!   [`Fit::Yes`] with a placement, [`Fit::No`] with a proof (the whole search space was
//!   refuted), or [`Fit::Unknown`] when the budget ran out first.
//! - [`minimize`] is the optimisation form: the lowest peak it can find, never worse than the
//!   best of the greedy rules ([`greedy`](super::greedy)), with a lower bound and
//!   whether the peak is proved optimal. It is *anytime*: when the budget runs out it returns
//!   the best placement so far.
//!
//! **How.** Free buffers in time-disjoint groups are solved separately
//! (`instance`). Each group is searched depth first over *canonical* placements
//! (`search`): buffers are appended in non-decreasing offset order, each at the top of the
//! placed buffers it is live with (rounded up to its alignment, lifted past fixed buffers),
//! pruned by dominance, per-section capacity inference, tight sections, dynamic
//! decomposition into independent components and a table of refuted states (`memo`).
//! Three preorderings take turns under doubling node limits (`order`, `decide`).
//! Capacities are rounded down to the grain of the sizes and alignments
//! ([`bound::granularity`](super::bound::granularity)). [`minimize`] starts from the better
//! greedy placement and the lower bound ([`bound::lower_bound`](super::bound::lower_bound))
//! and, in rounds whose work doubles, resumes a decider at the lower bound (a tight capacity
//! makes the inference strongest) and deciders on a ladder of capacities between the bounds
//! (the problem's capacity, eight evenly spaced ones, and four just below the incumbent).
//!
//! **Perfect packings.** When every instant has the same live units `C` (a tiling problem:
//! the generated perfect packings, guillotine or pinwheel), a placement of
//! height `C` leaves nothing unused, and a search over the tiling's normal form
//! (`skyline`: bottom-up, branching on which buffer fills a well's corner) finds it where
//! canonical placements drown: it runs first in every round of [`minimize`], and [`fits`]
//! at exactly `C` is decided by it alone. Out of nodes, its largest partial tilings,
//! completed by the greedy rules, still compete for the anytime answer.
//!
//! **Determinism.** Every choice depends on node counts only. A wall-clock `budget` decides
//! when to stop and nothing else, so the same input with the same `node_limit` (and no
//! budget, or a budget that is not reached) gives the same output on any machine.
//!
//! ```
//! use packing::exact::{fits, minimize, Fit, SolveOptions};
//! use packing::csv::read_csv;
//! // OmniMalloc's case `c`: every greedy order needs 11; the optimum is the lower bound, 8.
//! let p = read_csv("id,lower,upper,size\n0,0,5,3\n1,3,8,3\n2,0,3,4\n3,5,8,4\n4,2,6,1\n", Some(8))?;
//! let s = minimize(&p, &SolveOptions::default())?;
//! assert_eq!((s.peak, s.lower_bound, s.proven_optimal), (8, 8, true));
//! assert!(matches!(fits(&p, 8, &SolveOptions::default())?, Fit::Yes(_)));
//! assert_eq!(fits(&p, 7, &SolveOptions::default())?, Fit::No);
//! # Ok::<(), packing::PackError>(())
//! ```

mod decide;
mod instance;
mod memo;
mod order;
mod search;
mod skyline;

use std::time::{Duration, Instant};

use super::bound::{granularity, lower_bound};
use super::greedy::{best_fit_by_size_until, settle, SWEEPS};
use super::{PackError, Placement, Problem};
use decide::{Decider, Decision, Effort};
use instance::{fixed_collision, Instance, Prepared};
use skyline::{Perfect, Tiling};

/// How much work the solver may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SolveOptions {
    /// Wall-clock budget; `None`: no time limit. Only decides when to stop.
    pub budget: Option<Duration>,
    /// Search nodes (placements tried) over the whole call; `None`: no limit. With
    /// neither limit the solver runs until it proves optimality, which can take
    /// exponential time.
    pub node_limit: Option<u64>,
    /// Slots of the table of refuted states (32 bytes each; 0 turns it off).
    pub memo_slots: usize,
}

impl Default for SolveOptions {
    /// One second, no node limit, a table of 2^20 slots (32 MiB at most).
    ///
    /// ```
    /// use packing::exact::SolveOptions;
    /// let o = SolveOptions::default();
    /// assert_eq!(o.budget, Some(std::time::Duration::from_secs(1)));
    /// assert_eq!(o.node_limit, None);
    /// ```
    fn default() -> SolveOptions {
        SolveOptions {
            budget: Some(Duration::from_secs(1)),
            node_limit: None,
            memo_slots: 1 << 20,
        }
    }
}

/// The most pairs of time-conflicting free buffers an instance may hold for the exact search
/// (2^24: about 130 MiB of conflict lists, 8 bytes a pair; the rest of an instance is linear
/// in the buffers). Beyond it [`minimize`] returns the best greedy placement in greedy time
/// and [`fits`] answers from the bounds and the greedy rules alone: the measured instances
/// past it (20k-buffer training steps with thousands of buffers live) took more than a GiB and
/// several seconds to prepare, and the search found nothing in its budget.
pub const MAX_SEARCH_PAIRS: u64 = 1 << 24;

/// Pairs of time-conflicting buffers of non-zero size that are not fixed: what the exact
/// search's conflict lists hold (a sweep over lifetimes, `O(n log n)`).
///
/// ```
/// use packing::exact::conflict_pairs;
/// use packing::{Buffer, Problem};
/// let p = Problem::new(vec![Buffer::new("a", 0, 4, 1)?, Buffer::new("b", 2, 6, 1)?, Buffer::new("c", 4, 8, 1)?], None)?;
/// assert_eq!(conflict_pairs(&p), 2); // a–b, b–c (half-open: a ends where c starts)
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn conflict_pairs(problem: &Problem) -> u64 {
    let mut spans: Vec<(u64, u64)> = problem
        .buffers()
        .iter()
        .filter(|b| b.size > 0 && b.offset.is_none())
        .map(|b| (b.lower, b.upper))
        .collect();
    spans.sort_unstable();
    let mut live = std::collections::BinaryHeap::new();
    let mut pairs = 0u64;
    for (lower, upper) in spans {
        while live.peek().is_some_and(|&std::cmp::Reverse(u)| u <= lower) {
            live.pop();
        }
        pairs += live.len() as u64;
        live.push(std::cmp::Reverse(upper));
    }
    pairs
}

/// The result of [`minimize`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Solution {
    /// The best placement found (valid: checked by construction against every rule of
    /// [`check`](super::check::check) except the problem's capacity).
    pub placement: Placement,
    /// Its height: the largest `offset + size`.
    pub peak: u64,
    /// A proved lower bound on every placement's height: the cheap bound, raised by every
    /// capacity the search refuted.
    pub lower_bound: u64,
    /// Whether `peak == lower_bound`, i.e. the placement is optimal.
    pub proven_optimal: bool,
    /// Search nodes spent.
    pub nodes: u64,
    /// Wall-clock time spent.
    pub elapsed: Duration,
    /// `Some(pairs)` when the search did not run because the instance holds more
    /// time-conflicting pairs than [`MAX_SEARCH_PAIRS`] (its size, not the budget, ended it:
    /// a larger budget changes nothing); the placement is then the best greedy rule's.
    pub search_skipped: Option<u64>,
}

/// The answer of [`fits`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fit {
    /// Everything fits: a valid placement within the capacity.
    Yes(Placement),
    /// Proved: no placement fits.
    No,
    /// The budget ran out before either was shown.
    Unknown,
}

fn overlap_error(problem: &Problem, a: usize, b: usize) -> PackError {
    let id = |i: usize| {
        problem
            .buffers()
            .get(i)
            .map(|x| x.id.clone())
            .unwrap_or_default()
    };
    PackError::FixedOverlap { a: id(a), b: id(b) }
}

/// Whether every buffer fits in `capacity` (the problem's own capacity is ignored).
///
/// Cheap answers come first: a capacity below the lower bound or below a fixed buffer's top
/// is `No`, a greedy placement within it is `Yes`; otherwise the exact search decides each
/// time-disjoint group. Errors: [`PackError::Overflow`] for a fixed offset whose end passes
/// `u64` (or a greedy offset that would).
///
/// ```
/// use packing::exact::{fits, Fit, SolveOptions};
/// use packing::{Buffer, Problem};
/// // Two 32 KiB double buffers reuse a freed 64 KiB operand.
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 2, 65536)?, Buffer::new("ping", 2, 4, 32768)?, Buffer::new("pong", 2, 4, 32768)?],
///     None,
/// )?;
/// let o = SolveOptions::default();
/// assert!(matches!(fits(&p, 65536, &o)?, Fit::Yes(_)));
/// assert_eq!(fits(&p, 65535, &o)?, Fit::No);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn fits(problem: &Problem, capacity: u64, options: &SolveOptions) -> Result<Fit, PackError> {
    if fixed_collision(problem).is_some() {
        return Ok(Fit::No);
    }
    let deadline = options.budget.map(|b| Instant::now() + b);
    if lower_bound(problem) > capacity {
        return Ok(Fit::No);
    }
    for (k, sweep) in SWEEPS.into_iter().enumerate() {
        if k > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Ok(Fit::Unknown);
        }
        let greedy = sweep(problem)?;
        if greedy.peak(problem)? <= capacity {
            return Ok(Fit::Yes(greedy));
        }
    }
    match best_fit_by_size_until(problem, deadline) {
        Ok(greedy) if greedy.peak(problem)? <= capacity => return Ok(Fit::Yes(greedy)),
        Ok(_) => {}
        Err(PackError::Deadline { .. }) => return Ok(Fit::Unknown),
        Err(e) => return Err(e),
    }
    if conflict_pairs(problem) > MAX_SEARCH_PAIRS {
        return Ok(Fit::Unknown);
    }
    let prepared = Prepared::new(problem)?;
    if prepared.fixed_peak > capacity {
        return Ok(Fit::No);
    }
    let mut effort = Effort {
        nodes_left: options.node_limit,
        deadline,
        nodes: 0,
    };
    // Tight placements have heights on the grain: a tighter capacity, the same answer.
    let g = granularity(problem);
    let capacity = capacity / g * g;
    // At the height that every instant fills, fitting is tiling: the skyline search decides.
    let perfect =
        Perfect::new(problem, options.memo_slots / 2).filter(|p| p.capacity() == capacity);
    if let Some(mut search) = perfect {
        return Ok(match search.search(&mut effort, u64::MAX) {
            Tiling::Found(placement) => Fit::Yes(placement),
            Tiling::Refuted => Fit::No,
            Tiling::Unknown => Fit::Unknown,
        });
    }
    let mut offsets = prepared.base.clone();
    let mut unknown = false;
    for inst in &prepared.instances {
        match Decider::new(inst, capacity, options.memo_slots).run(&mut effort) {
            Decision::Yes(local) => write_back(inst, &local, &mut offsets),
            Decision::No => return Ok(Fit::No),
            Decision::Unknown => unknown = true,
        }
    }
    Ok(if unknown {
        Fit::Unknown
    } else {
        Fit::Yes(Placement { offsets })
    })
}

fn write_back(inst: &Instance, local: &[u64], offsets: &mut [u64]) {
    for (&i, &o) in inst.orig.iter().zip(local) {
        if let Some(x) = offsets.get_mut(i) {
            *x = o;
        }
    }
}

/// One time-disjoint group during [`minimize`]: its best offsets so far, and resumable
/// deciders at the lower bound and at each rung of the capacity ladder.
struct Group<'a> {
    inst: &'a Instance,
    best: Vec<u64>,
    peak: u64,
    low: Option<Decider<'a>>,
    rungs: Vec<Option<Decider<'a>>>,
}

impl Group<'_> {
    /// Fits the group in `cap` with the decider in `slot` (created at `cap` if missing):
    /// `Some(true)` (then `peak ≤ cap`), `Some(false)` (proved not), `None` (out of effort).
    fn probe(
        &mut self,
        cap: u64,
        slot: Option<usize>,
        effort: &mut Effort,
        slots: usize,
    ) -> Option<bool> {
        if self.peak <= cap {
            return Some(true);
        }
        let inst = self.inst;
        let decider = match slot {
            None => &mut self.low,
            Some(k) => self.rungs.get_mut(k)?,
        };
        match decider
            .get_or_insert_with(|| Decider::new(inst, cap, slots))
            .run(effort)
        {
            Decision::Yes(local) => {
                self.peak = peak_of(self.inst, &local);
                self.best = local;
                Some(true)
            }
            Decision::No => Some(false),
            Decision::Unknown => None,
        }
    }
}

/// Fits every group in `cap` (with the lower-bound decider, or that of rung `slot`) within
/// `allowance` nodes of `effort`: `Some(true)`, `Some(false)` (some group proved not to),
/// `None` (out of effort).
fn probe_all(
    groups: &mut [Group],
    cap: u64,
    slot: Option<usize>,
    allowance: u64,
    effort: &mut Effort,
    slots: usize,
) -> Option<bool> {
    let mut part = effort.share(allowance);
    let mut verdict = Some(true);
    for g in groups.iter_mut() {
        match g.probe(cap, slot, &mut part, slots) {
            Some(true) => {}
            Some(false) => {
                verdict = Some(false);
                break;
            }
            None => verdict = None,
        }
    }
    effort.absorb(&part);
    verdict
}

/// Keeps the items of `v` whose flag in `keep` is set.
fn retain_by<T>(v: &mut Vec<T>, keep: &[bool]) {
    let mut i = 0;
    v.retain(|_| {
        i += 1;
        keep.get(i - 1).copied().unwrap_or(false)
    });
}

fn peak_of(inst: &Instance, local: &[u64]) -> u64 {
    local
        .iter()
        .zip(&inst.size)
        .map(|(&o, &s)| o.saturating_add(s))
        .max()
        .unwrap_or(0)
}

/// `placement` settled both ways ([`settle`]), kept in `settled` when lower than what it holds.
fn settle_into(
    problem: &Problem,
    placement: &Placement,
    deadline: Option<Instant>,
    settled: &mut Option<(Placement, u64)>,
) -> Result<(), PackError> {
    let placement = settle(problem, placement, deadline)?;
    let peak = placement.peak(problem)?;
    if settled.as_ref().is_none_or(|&(_, best)| peak < best) {
        *settled = Some((placement, peak));
    }
    Ok(())
}

/// The lowest peak found within the budget (module docs), never above the greedy rules'
/// (the three sweeps always; best fit by size when it finishes within the budget; each
/// settled both ways by [`settle`] while time remains), with a
/// proved lower bound. The problem's capacity is not a constraint here
/// (compare `peak` with it, or call [`fits`]).
///
/// Errors: [`PackError::FixedOverlap`] when two fixed buffers collide (nothing can be
/// placed), [`PackError::Overflow`] for an end past `u64`.
///
/// ```
/// use packing::exact::{minimize, SolveOptions};
/// use packing::check::check;
/// use packing::csv::read_csv;
/// // MiniMalloc's README example: the optimum is 12.
/// let p = read_csv("id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n", None)?;
/// let s = minimize(&p, &SolveOptions { budget: None, node_limit: Some(10_000), ..SolveOptions::default() })?;
/// assert_eq!(s.peak, 12);
/// assert!(s.proven_optimal);
/// assert!(check(&p, &s.placement).is_empty());
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn minimize(problem: &Problem, options: &SolveOptions) -> Result<Solution, PackError> {
    let start = Instant::now();
    if let Some((a, b)) = fixed_collision(problem) {
        return Err(overlap_error(problem, a, b));
    }
    let deadline = options.budget.map(|b| start + b);
    // The sweeps first (near-linear), then best fit by size while the budget lasts (it is
    // O(n·k) for k buffers live together: seconds on the largest traces).
    let bound = lower_bound(problem);
    let [first, others @ ..] = SWEEPS;
    let mut incumbent = first(problem)?;
    let mut greedy_peak = incumbent.peak(problem)?;
    // The first sweep always runs (every answer starts from its placement, O(n log n)); the
    // others only while the budget lasts.
    for sweep in others {
        if greedy_peak <= bound || deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        let placement = sweep(problem)?;
        let peak = placement.peak(problem)?;
        if peak < greedy_peak {
            (incumbent, greedy_peak) = (placement, peak);
        }
    }
    // Settled both ways (`greedy::settle`, a few rounds of the cost of best fit by size):
    // the best sweep's placement, then best fit by size's. From the sweep, which leaves more
    // room to move, settling went further on idealloc's S_1 and Y_1. The settled placement
    // is kept apart: the search still starts from the greedy incumbent (a lower start changed
    // its course, and its anytime answers on MiniMalloc's D and J came out higher), and the
    // answer is the lower of the two.
    let mut settled: Option<(Placement, u64)> = None;
    let open = |settled: &Option<(Placement, u64)>| {
        greedy_peak > bound && settled.as_ref().is_none_or(|&(_, p)| p > bound)
    };
    if open(&settled) {
        settle_into(problem, &incumbent, deadline, &mut settled)?;
    }
    if open(&settled) {
        match best_fit_by_size_until(problem, deadline) {
            Ok(placement) => {
                settle_into(problem, &placement, deadline, &mut settled)?;
                let peak = placement.peak(problem)?;
                if peak < greedy_peak {
                    (incumbent, greedy_peak) = (placement, peak);
                }
            }
            Err(PackError::Deadline { .. }) => {}
            Err(e) => return Err(e),
        }
    }
    // The lower of a placement and the settled one.
    let lowest = |placement: Placement, peak: u64, settled: Option<(Placement, u64)>| match settled
    {
        Some((s, p)) if p < peak => (s, p),
        _ => (placement, peak),
    };
    let settled_peak = settled.as_ref().map_or(greedy_peak, |&(_, p)| p);
    // Greedy time: nothing left to prove, no time left, or an instance too large to build
    // (its conflict lists would pass the memory the search may use).
    let out_of_time = deadline.is_some_and(|d| Instant::now() >= d);
    let too_large = (greedy_peak.min(settled_peak) > bound && !out_of_time)
        .then(|| conflict_pairs(problem))
        .filter(|&pairs| pairs > MAX_SEARCH_PAIRS);
    if greedy_peak.min(settled_peak) <= bound || out_of_time || too_large.is_some() {
        let (placement, peak) = lowest(incumbent, greedy_peak, settled);
        let lower_bound = bound.min(peak);
        return Ok(Solution {
            placement,
            peak,
            lower_bound,
            proven_optimal: peak == lower_bound,
            nodes: 0,
            elapsed: start.elapsed(),
            search_skipped: too_large,
        });
    }
    let prepared = Prepared::new(problem)?;
    let mut lo = bound.max(prepared.fixed_peak);
    let mut effort = Effort {
        nodes_left: options.node_limit,
        deadline,
        nodes: 0,
    };
    let mut groups: Vec<Group> = prepared
        .instances
        .iter()
        .map(|inst| {
            let best: Vec<u64> = inst
                .orig
                .iter()
                .map(|&i| incumbent.offsets.get(i).copied().unwrap_or(0))
                .collect();
            Group {
                inst,
                peak: peak_of(inst, &best),
                best,
                low: None,
                rungs: Vec::new(),
            }
        })
        .collect();
    let peak = |groups: &[Group]| {
        groups
            .iter()
            .map(|g| g.peak)
            .fold(prepared.fixed_peak, u64::max)
    };
    let mut hi = peak(&groups);
    let slots = options.memo_slots;
    // Heights of tight placements are multiples of the grain, so capacities are probed on
    // it: a refuted capacity `c` refutes everything below `c + grain`.
    let grain = granularity(problem);
    lo = lo.div_ceil(grain).saturating_mul(grain);
    // Rounds, the work doubling every round: the lower bound (tight capacities are where
    // the inference is strongest, and perfect packings are common), then as much again
    // shared by a ladder of capacities between the bounds: the problem's capacity, `RUNGS`
    // evenly spaced ones, and `NEAR` just below the incumbent (1, 2, 4 and 8 grains: small
    // steps down that stalled anytime answers can still take), refilled as the bounds move.
    // The difficulty of a capacity
    // is erratic (on MiniMalloc's J, 1,029,120 takes 0.2 s and 1,040,384 more than 3 s), so
    // many resumed rungs with small shares beat a few large probes. A met rung lowers the
    // incumbent (dropping the rungs above it), a refuted one raises the bound (dropping
    // the rungs below); each rung's failure table gets a share of the slots.
    const RUNGS: u64 = 8;
    const NEAR: u32 = 4;
    let rung_slots = slots / RUNGS as usize;
    let mut allowance = 1024u64.max(4 * problem.len() as u64);
    // The problem's own capacity first: meeting it is what a caller with one needs.
    let mut ladder: Vec<u64> = problem
        .capacity()
        .map(|c| c / grain * grain)
        .into_iter()
        .collect();
    // A problem whose every instant is full at the bound is a tiling problem: the skyline
    // search (`skyline`) runs first in every round, on sixteen times the allowance: its nodes
    // are several times cheaper than the canonical search's, and only a tiling proves the
    // bound. It searches while a tiling could still be optimal (the lower bound at its
    // height).
    let mut perfect = Perfect::new(problem, slots / 2).filter(|p| p.capacity() == lo);
    // Then a twentieth of the budget is kept for completing its partial tilings at the end.
    if perfect.is_some() {
        effort.deadline = deadline.map(|d| d - d.saturating_duration_since(start) / 20);
    }
    while lo < hi && !effort.exhausted() {
        if let Some(search) = perfect.as_mut().filter(|p| p.capacity() == lo) {
            match search.search(&mut effort, allowance.saturating_mul(16)) {
                Tiling::Found(placement) => {
                    let peak = placement.peak(problem)?;
                    return Ok(Solution {
                        placement,
                        peak,
                        lower_bound: lo.min(peak),
                        proven_optimal: peak <= lo,
                        nodes: effort.nodes,
                        elapsed: start.elapsed(),
                        search_skipped: None,
                    });
                }
                Tiling::Refuted => {
                    lo = search.capacity().saturating_add(grain);
                    groups.iter_mut().for_each(|g| g.low = None);
                    continue;
                }
                Tiling::Unknown => {}
            }
        }
        match probe_all(&mut groups, lo, None, allowance, &mut effort, slots) {
            Some(true) => {
                hi = peak(&groups);
                continue;
            }
            Some(false) => {
                lo = lo.saturating_add(grain);
                groups.iter_mut().for_each(|g| g.low = None);
                continue;
            }
            None => {}
        }
        let (first, last) = (lo / grain + 1, (hi - 1) / grain);
        let span = last.saturating_sub(first) + 1;
        for i in 1..=RUNGS {
            let cap = (first + span * i / (RUNGS + 1)).saturating_mul(grain);
            if !ladder.contains(&cap) {
                ladder.push(cap);
            }
        }
        for j in 0..NEAR {
            let cap = last.saturating_sub((1u64 << j) - 1).saturating_mul(grain);
            if cap > lo && !ladder.contains(&cap) {
                ladder.push(cap);
            }
        }
        // Keep distinct rungs strictly between the bounds (with their deciders).
        let mut seen: Vec<u64> = Vec::new();
        let keep: Vec<bool> = ladder
            .iter()
            .map(|&c| {
                let ok = c > lo && c < hi && !seen.contains(&c);
                seen.push(c);
                ok
            })
            .collect();
        retain_by(&mut ladder, &keep);
        for g in groups.iter_mut() {
            g.rungs.resize_with(keep.len(), || None);
            retain_by(&mut g.rungs, &keep);
        }
        let share = allowance / (ladder.len() as u64).max(1);
        for k in 0..ladder.len() {
            let cap = ladder.get(k).copied().unwrap_or(hi);
            if cap >= hi || cap < lo || effort.exhausted() {
                continue;
            }
            match probe_all(&mut groups, cap, Some(k), share, &mut effort, rung_slots) {
                Some(true) => hi = peak(&groups),
                Some(false) => {
                    lo = lo.max(cap.saturating_add(grain));
                    groups.iter_mut().for_each(|g| g.low = None);
                }
                None => {}
            }
        }
        allowance = allowance.saturating_mul(2);
    }
    let mut offsets = prepared.base.clone();
    for g in &groups {
        write_back(g.inst, &g.best, &mut offsets);
    }
    let placement = Placement { offsets };
    let peak = placement.peak(problem)?;
    let (placement, peak) = lowest(placement, peak, settled);
    // A tiling search that found none still leaves its largest partial tilings.
    effort.deadline = deadline;
    let completed = match perfect.as_ref() {
        Some(search) => search.complete(problem, deadline)?,
        None => None,
    };
    let (placement, peak) = match completed {
        Some((q, p)) if p < peak => (q, p),
        _ => (placement, peak),
    };
    let lower_bound = lo.min(peak);
    Ok(Solution {
        placement,
        peak,
        lower_bound,
        proven_optimal: peak == lower_bound,
        nodes: effort.nodes,
        elapsed: start.elapsed(),
        search_skipped: None,
    })
}
