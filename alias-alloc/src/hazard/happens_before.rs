//! [`happens_before`]: the static relation that holds in every execution of a [`Trace`]
//! (`docs/hazard-check.md`, *The static check*), computed as a fixpoint without enumerating
//! interleavings.

use std::collections::BTreeSet;

use super::bitset::EventSet;
use super::trace::{BarrierId, EventId, EventKind, Trace};

/// The happens-before relation every execution of a trace has, and what never runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HappensBefore {
    /// Per event: the events that happen before it in every execution.
    before: Vec<EventSet>,
    /// Per wait: the fewest completed phases it passes with (`None` for other events).
    least_phases: Vec<Option<u32>>,
    /// Waits that can pass in no execution.
    pub never_complete: BTreeSet<EventId>,
    /// Events that run in no execution (after a wait that never completes, in an incomplete
    /// named-barrier generation, or on a cycle of waits).
    pub never_run: EventSet,
    /// `barrier_expect`s whose bytes differ from the bytes of the copies that complete on them.
    pub tx_mismatch: BTreeSet<EventId>,
    /// Waits whose barrier may complete the phase after the one they pass with before they
    /// poll: the arrivals that may come before the wait (not after it) are enough for it. Then
    /// the wait sees its parity again and blocks for one more phase (a hang or a skipped
    /// phase, if an execution gets there: the check runs one where these waits poll late).
    pub may_overrun: BTreeSet<EventId>,
}

impl HappensBefore {
    /// Whether `a` happens before `b` in every execution.
    pub fn ordered(&self, a: EventId, b: EventId) -> bool {
        self.before.get(b.0).is_some_and(|s| s.contains(a))
    }

    /// The events that happen before `e` in every execution.
    pub fn before(&self, e: EventId) -> Option<&EventSet> {
        self.before.get(e.0)
    }

    /// For a wait: the fewest completed phases of its barrier it can pass with.
    pub fn least_phases(&self, wait: EventId) -> Option<u32> {
        self.least_phases.get(wait.0).copied().flatten()
    }
}

/// The least `n ≥ lo` a wait on `parity` passes with (`n mod 2 ≠ parity`).
fn least_passing(lo: u32, parity: u8) -> u32 {
    if lo % 2 != u32::from(parity) {
        lo
    } else {
        lo.saturating_add(1)
    }
}

struct Barriers {
    /// Per barrier: its arrivals (arrive events) with their counts.
    arrivals: Vec<Vec<(EventId, u32)>>,
    /// Per barrier: its complete_tx events with the expect they belong to.
    completions: Vec<Vec<(EventId, Option<EventId>)>>,
    /// Per barrier: its waits with their parity.
    waits: Vec<Vec<(EventId, u8)>>,
    /// Per barrier: whether any arrival expects bytes.
    has_tx: Vec<bool>,
    counts: Vec<u32>,
}

impl Barriers {
    fn of(trace: &Trace) -> Self {
        let n = trace.barriers.len();
        let mut b = Barriers {
            arrivals: vec![vec![]; n],
            completions: vec![vec![]; n],
            waits: vec![vec![]; n],
            has_tx: vec![false; n],
            counts: trace.barriers.iter().map(|b| b.count).collect(),
        };
        for e in trace.ids() {
            let Some(x) = trace.events.get(e.0) else {
                continue;
            };
            match x.kind {
                EventKind::Arrive { barrier, count, tx } => {
                    if let Some(v) = b.arrivals.get_mut(barrier.0) {
                        v.push((e, count));
                    }
                    if tx > 0 {
                        if let Some(h) = b.has_tx.get_mut(barrier.0) {
                            *h = true;
                        }
                    }
                }
                EventKind::CompleteTx {
                    barrier, expect, ..
                } => {
                    if let Some(v) = b.completions.get_mut(barrier.0) {
                        v.push((e, expect));
                    }
                    if let Some(h) = b.has_tx.get_mut(barrier.0) {
                        *h = true;
                    }
                }
                EventKind::Wait { barrier, parity } => {
                    if let Some(v) = b.waits.get_mut(barrier.0) {
                        v.push((e, parity));
                    }
                }
                EventKind::Access { .. } | EventKind::Sync { .. } => {}
            }
        }
        b
    }

    fn count(&self, b: BarrierId) -> u64 {
        u64::from(self.counts.get(b.0).copied().unwrap_or(1))
    }
}

/// `barrier_expect`s whose bytes are not the bytes of the copies completing on them, and among
/// them those that expect more than arrives (their phase never completes).
fn tx_mismatches(trace: &Trace) -> (BTreeSet<EventId>, BTreeSet<EventId>) {
    let mut landed = vec![0u64; trace.events.len()];
    for x in &trace.events {
        if let EventKind::CompleteTx {
            bytes,
            expect: Some(e),
            ..
        } = x.kind
        {
            if let Some(l) = landed.get_mut(e.0) {
                *l = l.saturating_add(bytes);
            }
        }
    }
    let mut mismatch = BTreeSet::new();
    let mut over = BTreeSet::new();
    for e in trace.ids() {
        if let Some(EventKind::Arrive { tx, .. }) = trace.events.get(e.0).map(|x| &x.kind) {
            let got = landed.get(e.0).copied().unwrap_or(0);
            if *tx > 0 && got != *tx {
                mismatch.insert(e);
                if got < *tx {
                    over.insert(e);
                }
            }
        }
    }
    (mismatch, over)
}

/// Every event's predecessors: structural, and for a complete named-barrier generation every
/// member's structural predecessors. Members of incomplete generations are returned apart.
fn base_predecessors(trace: &Trace) -> (Vec<BTreeSet<EventId>>, Vec<EventId>) {
    let mut preds: Vec<BTreeSet<EventId>> = trace
        .events
        .iter()
        .map(|x| x.after.iter().copied().collect())
        .collect();
    let mut stuck = Vec::new();
    for g in &trace.syncs {
        if g.members.len() != g.threads as usize {
            stuck.extend(g.members.iter().copied());
            continue;
        }
        let all: BTreeSet<EventId> = g
            .members
            .iter()
            .filter_map(|m| trace.events.get(m.0))
            .flat_map(|x| x.after.iter().copied())
            .collect();
        for m in &g.members {
            if let Some(p) = preds.get_mut(m.0) {
                p.extend(all.iter().copied());
            }
        }
    }
    (preds, stuck)
}

/// Before-sets by Kahn's order; events on a cycle (never ordered) are returned apart.
fn closure(preds: &[BTreeSet<EventId>], events: usize) -> (Vec<EventSet>, Vec<EventId>) {
    let mut before = vec![EventSet::new(events); events];
    let mut missing: Vec<usize> = preds.iter().map(BTreeSet::len).collect();
    let mut succs: Vec<Vec<usize>> = vec![vec![]; events];
    for (e, ps) in preds.iter().enumerate() {
        for p in ps {
            if let Some(s) = succs.get_mut(p.0) {
                s.push(e);
            }
        }
    }
    let mut ready: Vec<usize> = (0..events)
        .filter(|&e| missing.get(e) == Some(&0))
        .collect();
    let mut placed = vec![false; events];
    while let Some(e) = ready.pop() {
        if let Some(p) = placed.get_mut(e) {
            *p = true;
        }
        let mut set = EventSet::new(events);
        for p in preds.get(e).into_iter().flatten() {
            set.insert(*p);
            if let Some(b) = before.get(p.0) {
                set.union_with(b);
            }
        }
        if let Some(slot) = before.get_mut(e) {
            *slot = set;
        }
        for &s in succs.get(e).into_iter().flatten() {
            if let Some(m) = missing.get_mut(s) {
                *m -= 1;
                if *m == 0 {
                    ready.push(s);
                }
            }
        }
    }
    let cyclic = (0..events)
        .filter(|&e| placed.get(e) == Some(&false))
        .map(EventId)
        .collect();
    (before, cyclic)
}

/// The relation of `docs/hazard-check.md`, *The static check*: structural edges, then for each
/// wait the arrivals of every phase below the fewest it can pass with, to a fixpoint.
///
/// ```
/// use alias_alloc::hazard::{happens_before, Cells, Space, TraceBuilder};
/// let mut t = TraceBuilder::new();
/// let (p, c) = (t.partition("producer"), t.partition("consumer"));
/// let full = t.barrier("full", 1)?;
/// let tile = Cells::range(Space::Smem, 0, 64);
/// let store = t.access(p, "local_store", tile.clone(), true)?;
/// t.arrive(p, "arrive_barrier", full, 1)?;
/// let wait = t.wait(c, "wait_barrier", full, 0)?;
/// let load = t.access(c, "local_load", tile, false)?;
/// let hb = happens_before(&t.build()?);
/// assert!(hb.ordered(store, load));
/// assert_eq!(hb.least_phases(wait), Some(1));
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn happens_before(trace: &Trace) -> HappensBefore {
    let n = trace.events.len();
    let bars = Barriers::of(trace);
    let (tx_mismatch, over_expect) = tx_mismatches(trace);
    let (mut preds, sync_stuck) = base_predecessors(trace);
    let mut least: Vec<Option<u32>> = trace
        .events
        .iter()
        .map(|x| match x.kind {
            EventKind::Wait { parity, .. } => Some(least_passing(0, parity)),
            _ => None,
        })
        .collect();
    let mut never_complete = BTreeSet::new();
    loop {
        let mut may_overrun = BTreeSet::new();
        let (before, cyclic) = closure(&preds, n);
        // What never runs: incomplete generations, cycles, waits that never pass, and all after.
        let mut never_run = EventSet::new(n);
        for &e in sync_stuck.iter().chain(&cyclic).chain(&never_complete) {
            never_run.insert(e);
        }
        if !never_run.is_empty() {
            for e in trace.ids() {
                if before.get(e.0).is_some_and(|b| b.intersects(&never_run)) {
                    never_run.insert(e);
                }
            }
        }
        let runs = |e: EventId| !never_run.contains(e);
        let after = |a: EventId, b: EventId| before.get(b.0).is_some_and(|s| s.contains(a));
        let mut changed = false;
        for (bi, waits) in bars.waits.iter().enumerate() {
            let b = BarrierId(bi);
            let count = bars.count(b);
            let arrivals = bars.arrivals.get(bi).map(Vec::as_slice).unwrap_or(&[]);
            let completions = bars.completions.get(bi).map(Vec::as_slice).unwrap_or(&[]);
            let has_tx = bars.has_tx.get(bi).copied().unwrap_or(true);
            // Each arrival's least phase: a wait on this barrier that happens before it
            // passed with that many phases complete, so it arrives in a later one.
            let least_phase: Vec<u32> = arrivals
                .iter()
                .map(|&(a, _)| {
                    waits
                        .iter()
                        .filter(|&&(x, _)| after(x, a))
                        .filter_map(|&(x, _)| least.get(x.0).copied().flatten())
                        .max()
                        .unwrap_or(0)
                })
                .collect();
            // Per arrival: the arrivals that may come before it (those not after it), as their
            // least phases sorted with running sums of their units, so that the units of those
            // that may belong to a phase below `phases` are one binary search away.
            let precede: Vec<(Vec<u32>, Vec<u64>)> = arrivals
                .iter()
                .map(|&(a, _)| {
                    let mut v: Vec<(u32, u64)> = arrivals
                        .iter()
                        .zip(&least_phase)
                        .filter(|&(&(x, _), _)| x != a && runs(x) && !after(a, x))
                        .map(|(&(_, c), &lp)| (lp, u64::from(c)))
                        .collect();
                    v.sort_unstable();
                    let mut sum = 0u64;
                    let sums = v
                        .iter()
                        .map(|&(_, c)| {
                            sum = sum.saturating_add(c);
                            sum
                        })
                        .collect();
                    (v.into_iter().map(|(lp, _)| lp).collect(), sums)
                })
                .collect();
            // Units that may come before arrival `i`, counting only arrivals that may belong to
            // a phase below `phases` (by their least phase).
            let may_precede = |i: usize, phases: Option<u32>| -> u64 {
                precede.get(i).map_or(0, |(lps, sums)| {
                    let k = phases.map_or(lps.len(), |p| lps.partition_point(|&lp| lp < p));
                    k.checked_sub(1)
                        .and_then(|k| sums.get(k).copied())
                        .unwrap_or(0)
                })
            };
            // Arrival `i` belongs to a phase below `phases`: were it in a later one, the phases
            // below would have completed before it with arrivals that may precede it and may
            // belong to them — too few.
            let in_phase_below = |i: usize, phases: u32| {
                arrivals.get(i).is_some_and(|&(_, c)| {
                    may_precede(i, Some(phases)) + u64::from(c) <= u64::from(phases) * count
                })
            };
            let index: std::collections::HashMap<EventId, usize> = arrivals
                .iter()
                .enumerate()
                .map(|(i, &(a, _))| (a, i))
                .collect();
            for &(w, parity) in waits {
                if !runs(w) {
                    continue;
                }
                let mut lo = waits
                    .iter()
                    .filter(|&&(x, _)| x != w && after(x, w))
                    .filter_map(|&(x, _)| least.get(x.0).copied().flatten())
                    .max()
                    .unwrap_or(0);
                if !has_tx {
                    let units: u64 = arrivals
                        .iter()
                        .filter(|&&(a, _)| after(a, w))
                        .map(|&(_, c)| u64::from(c))
                        .sum();
                    lo = lo.max(u32::try_from(units / count).unwrap_or(u32::MAX));
                }
                let phases = least_passing(lo, parity);
                if let Some(slot) = least.get_mut(w.0) {
                    if *slot != Some(phases) {
                        *slot = Some(phases);
                        changed = true;
                    }
                }
                // A wait that needs more phases than the arrivals that may precede it complete.
                let reachable: u64 = arrivals
                    .iter()
                    .filter(|&&(a, _)| runs(a) && !after(w, a))
                    .map(|&(_, c)| u64::from(c))
                    .sum();
                // A barrier_expect whose copies bring fewer bytes: its phase never completes,
                // so no more phases complete than the ones that may come before it.
                let capped = arrivals
                    .iter()
                    .enumerate()
                    .filter(|(_, (a, _))| runs(*a) && over_expect.contains(a))
                    .map(|(i, _)| may_precede(i, None) / count)
                    .min();
                let never = u64::from(phases) > reachable / count
                    || capped.is_some_and(|cap| u64::from(phases) > cap);
                if never && never_complete.insert(w) {
                    changed = true;
                }
                if u64::from(phases).saturating_add(1).saturating_mul(count) <= reachable {
                    may_overrun.insert(w);
                }
                let mut new: Vec<EventId> = arrivals
                    .iter()
                    .enumerate()
                    .filter(|&(i, &(a, _))| runs(a) && in_phase_below(i, phases))
                    .map(|(_, &(a, _))| a)
                    .collect();
                new.extend(completions.iter().filter_map(|&(c, expect)| {
                    let e = expect?;
                    let i = *index.get(&e)?;
                    (runs(c) && !tx_mismatch.contains(&e) && in_phase_below(i, phases)).then_some(c)
                }));
                if let Some(p) = preds.get_mut(w.0) {
                    for a in new {
                        changed |= p.insert(a);
                    }
                }
            }
        }
        if !changed {
            return HappensBefore {
                before,
                least_phases: least,
                never_complete,
                never_run,
                tx_mismatch,
                may_overrun,
            };
        }
    }
}
