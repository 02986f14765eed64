//! [`check`]: a [`Verdict`] for every conflicting pair of a [`Trace`] — verified by the static
//! relation, a hazard with a replayed witness, or unknown with its reason — and the protocol
//! findings (`docs/hazard-check.md`, *The static check*).

use std::collections::{BTreeSet, HashSet};

use super::bitset::EventSet;
use super::explore::random_run;
use super::happens_before::{happens_before, HappensBefore};
use super::machine::Machine;
use super::trace::{BarrierId, EventId, EventKind, Trace};

/// Why a pair is safe.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Proof {
    /// `first` happens before `second` in every execution.
    Ordered {
        /// The earlier access.
        first: EventId,
        /// The later one.
        second: EventId,
    },
    /// Every execution that runs both was searched, and none runs them unordered (the static
    /// relation alone did not order them).
    Exhaustive,
    /// `event` runs in no execution (the kernel hangs before it: see the protocol findings).
    NeverRuns {
        /// The access that never runs.
        event: EventId,
    },
}

/// An execution in which the pair runs unordered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Witness {
    /// The access that ran first.
    pub first: EventId,
    /// The access that ran second, with nothing ordering `first` before it.
    pub second: EventId,
    /// Every event of the execution, in the order it ran, up to `second`.
    pub schedule: Vec<EventId>,
}

impl Witness {
    /// The arrival that would order the pair if `second`'s timeline waited for it before
    /// `second`: the first arrive or TMA completion at or after `first` on `first`'s timeline.
    pub fn releasing_arrival(&self, trace: &Trace) -> Option<EventId> {
        let timeline = trace.events.get(self.first.0)?.timeline;
        trace.ids().skip(self.first.0).find(|&e| {
            trace.events.get(e.0).is_some_and(|x| {
                x.timeline == timeline
                    && matches!(
                        x.kind,
                        super::trace::EventKind::Arrive { barrier, .. }
                            | super::trace::EventKind::CompleteTx { barrier, .. }
                            if !trace.is_reader_sync(barrier)
                    )
            })
        })
    }
}

/// Why the check could not decide a pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnknownReason {
    /// The static relation leaves the pair unordered, the schedules tried ordered it, and the
    /// search of every execution ran out of its budget (or the trace is too large to search).
    SearchBudget,
    /// The static relation leaves the pair unordered and no run so far raced it; more pairs
    /// than `REPLAY_BUDGET` needed a replay of their own.
    ReplayBudget,
}

/// The check's answer for one conflicting pair.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// No execution races.
    Verified(Proof),
    /// An execution races: the witness replays it.
    Hazard(Witness),
    /// Undecided.
    Unknown(UnknownReason),
}

/// An execution that hangs: what it ran, and the waits (or syncs) it is stuck at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hang {
    /// The events blocked with everything before them run.
    pub blocked: Vec<EventId>,
    /// Every event of the execution, in the order it ran.
    pub schedule: Vec<EventId>,
}

/// The verdicts of a trace.
#[derive(Debug, Clone)]
pub struct Report {
    /// Every conflicting pair `(a, b)`, `a < b`, with its verdict.
    pub pairs: Vec<((EventId, EventId), Verdict)>,
    /// An execution that hangs, where the check's greedy run (every wait passing as soon as it
    /// may) found one.
    pub hang: Option<Hang>,
    /// Waits on a parity their timeline already waited for on the same barrier, with no wait on
    /// the other parity between (`(earlier, later)`): the later one passes on the phase the
    /// earlier one saw — a constant or stale phase. A warning: redundant where the earlier wait
    /// already ordered what the later one guards (the verdicts say whether anything races).
    pub stale_waits: Vec<(EventId, EventId)>,
    /// Barriers someone waits on whose arrivals in all are not whole phases
    /// ([`open_phases`](super::open_phases)): a fault of the protocol at any trip count.
    pub open_phases: Vec<super::OpenPhase>,
    /// Arrivals past the count of their barrier's current phase in one of the check's own
    /// executions (*The mbarrier*: pending below zero is a protocol error).
    pub faults: Vec<super::Fault>,
    /// The static relation the verdicts rest on.
    pub happens_before: HappensBefore,
}

impl Report {
    /// The pairs with a hazard verdict.
    pub fn hazards(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        self.pairs
            .iter()
            .filter(|(_, v)| matches!(v, Verdict::Hazard(_)))
            .map(|(p, _)| *p)
    }

    /// The pairs with an unknown verdict.
    pub fn unknowns(&self) -> impl Iterator<Item = (EventId, EventId)> + '_ {
        self.pairs
            .iter()
            .filter(|(_, v)| matches!(v, Verdict::Unknown(_)))
            .map(|(p, _)| *p)
    }

    /// Whether every pair is verified, no wait is stuck, no arrival overshoots its phase, and
    /// every barrier waited on gets whole phases of arrivals.
    pub fn all_verified(&self) -> bool {
        self.hang.is_none()
            && self.happens_before.never_complete.is_empty()
            && self.happens_before.tx_mismatch.is_empty()
            && self.open_phases.is_empty()
            && self.faults.is_empty()
            && self
                .pairs
                .iter()
                .all(|(_, v)| matches!(v, Verdict::Verified(_)))
    }
}

/// Events the static relation puts after `first` or `second` (neither itself): no execution
/// needs them to run both accesses, so a search for a race between the two holds them back.
fn held_back(trace: &Trace, hb: &HappensBefore, first: EventId, second: EventId) -> EventSet {
    let mut held = EventSet::of(trace);
    for e in trace.ids() {
        if e != first && e != second && (hb.ordered(first, e) || hb.ordered(second, e)) {
            held.insert(e);
        }
    }
    held
}

/// The witness if `m` ran the pair unordered.
fn witnessed(m: &Machine<'_>, a: EventId, b: EventId) -> Option<Witness> {
    let &(first, second) = m
        .races
        .iter()
        .find(|&&(x, y)| (x, y) == (a, b) || (x, y) == (b, a))?;
    let end = m.schedule.iter().position(|&e| e == second)?;
    Some(Witness {
        first,
        second,
        schedule: m.schedule.iter().take(end + 1).copied().collect(),
    })
}

/// One cheap schedule: waits pass as soon as they may, `first` runs before `second`, the
/// held-back events never run.
fn greedy(
    fresh: &Machine<'_>,
    successors: &[Vec<EventId>],
    held: &EventSet,
    first: EventId,
    second: EventId,
) -> Option<Witness> {
    let mut m = fresh.restart();
    m.run_greedy(
        successors,
        |e| !held.contains(e) && e != second,
        Some(first),
        |m| m.ran(first),
    );
    m.run_greedy(
        successors,
        |e| !held.contains(e),
        Some(second),
        |m| m.ran(second),
    );
    witnessed(&m, first, second)
}

/// Every execution that runs the pair, up to `budget` states: `Ok(Some)` a race, `Ok(None)`
/// none races (exhaustive), `Err(())` the budget ran out.
fn search(
    fresh: &Machine<'_>,
    held: &EventSet,
    a: EventId,
    b: EventId,
    budget: usize,
) -> Result<Option<Witness>, ()> {
    let mut seen = HashSet::new();
    let mut stack = vec![fresh.restart()];
    while let Some(mut m) = stack.pop() {
        m.run_accesses(|e| !held.contains(e));
        if let Some(w) = witnessed(&m, a, b) {
            return Ok(Some(w));
        }
        if (m.ran(a) && m.ran(b)) || !seen.insert(m.key()) {
            continue;
        }
        if seen.len() > budget {
            return Err(());
        }
        for e in m.enabled_events() {
            if held.contains(e) {
                continue;
            }
            let mut next = m.clone();
            next.step(e);
            stack.push(next);
        }
    }
    Ok(None)
}

/// Consecutive waits of one timeline on one barrier with the same parity.
fn stale_waits(trace: &Trace) -> Vec<(EventId, EventId)> {
    let mut last: std::collections::HashMap<(usize, usize), (EventId, u8)> = Default::default();
    let mut out = Vec::new();
    for e in trace.ids() {
        let Some(x) = trace.events.get(e.0) else {
            continue;
        };
        if let super::trace::EventKind::Wait { barrier, parity } = x.kind {
            let key = (x.timeline.0, barrier.0);
            if let Some(&(prev, p)) = last.get(&key) {
                if p == parity {
                    out.push((prev, e));
                }
            }
            last.insert(key, (e, parity));
        }
    }
    out
}

/// States the search of one pair may visit before it answers unknown.
pub const SEARCH_BUDGET: usize = 20_000;

/// Seeded random executions the check runs besides its two greedy ones.
pub const RANDOM_RUNS: usize = 8;

/// Pairs replayed one by one at most (the first run witnesses most races at once).
pub const REPLAY_BUDGET: usize = 64;

/// Traces the search of every execution is tried on, at most this many events.
pub const SEARCH_EVENTS: usize = 400;

/// The verdicts of the conflicting pairs under `hb`: ordered ones verified; the others
/// replayed — one free greedy run for all of them first, then one by one.
fn verdicts(
    trace: &Trace,
    fresh: &Machine<'_>,
    hb: &HappensBefore,
    successors: &[Vec<EventId>],
    runs: &[&Machine<'_>],
) -> Vec<((EventId, EventId), Verdict)> {
    let mut replayed = 0;
    let mut out = Vec::new();
    for (a, b) in trace.conflicting_pairs() {
        if let Some(e) = [a, b].into_iter().find(|&e| hb.never_run.contains(e)) {
            out.push(((a, b), Verdict::Verified(Proof::NeverRuns { event: e })));
            continue;
        }
        if hb.ordered(a, b) || hb.ordered(b, a) {
            let (first, second) = if hb.ordered(a, b) { (a, b) } else { (b, a) };
            out.push(((a, b), Verdict::Verified(Proof::Ordered { first, second })));
            continue;
        }
        if let Some(w) = runs.iter().find_map(|m| witnessed(m, a, b)) {
            out.push(((a, b), Verdict::Hazard(w)));
            continue;
        }
        if replayed >= REPLAY_BUDGET {
            out.push(((a, b), Verdict::Unknown(UnknownReason::ReplayBudget)));
            continue;
        }
        replayed += 1;
        let held = held_back(trace, hb, a, b);
        let found = greedy(fresh, successors, &held, a, b)
            .or_else(|| greedy(fresh, successors, &held, b, a));
        let v = match found {
            Some(w) => Verdict::Hazard(w),
            None if trace.events.len() > SEARCH_EVENTS => {
                Verdict::Unknown(UnknownReason::SearchBudget)
            }
            None => match search(fresh, &held, a, b, SEARCH_BUDGET) {
                Ok(Some(w)) => Verdict::Hazard(w),
                Ok(None) => Verdict::Verified(Proof::Exhaustive),
                Err(()) => Verdict::Unknown(UnknownReason::SearchBudget),
            },
        };
        out.push(((a, b), v));
    }
    out
}

/// An execution from `fresh` where the waits `late` picks pass as late as they may (only when
/// nothing else can run) and every other event runs as soon as it may.
fn polling_late<'t>(
    fresh: &Machine<'t>,
    successors: &[Vec<EventId>],
    late: impl Fn(EventId) -> bool,
) -> Machine<'t> {
    let mut m = fresh.restart();
    m.run_with(
        successors,
        |_| true,
        |m| m.finished(),
        |m, waits, others| {
            waits
                .iter()
                .copied()
                .filter(|&w| !late(w))
                .chain(others.iter().copied())
                .find(|&e| m.enabled(e))
                .or_else(|| waits.iter().copied().find(|&w| m.enabled(w)))
        },
    );
    m
}

/// Checks every conflicting pair of `trace`.
///
/// ```
/// use alias_alloc::hazard::{check, Cells, Space, TraceBuilder, Verdict};
/// // A TMEM slot two MMAs of one partition share (the TLX fork's reuse-slot hazard spec):
/// // the computation partition stores dsT and arrives; the gemm partition's dq MMA writes the
/// // slot before the wait, and its dk MMA reads dsT after it.
/// let mut t = TraceBuilder::new();
/// let (compute, gemm) = (t.partition("computation"), t.partition("gemm"));
/// let ds_full = t.barrier("dsT_full", 1)?;
/// let slot = Cells::tmem_columns(0, 128);
/// let (a, b) = (Cells::range(Space::Smem, 0, 32768), Cells::range(Space::Smem, 32768, 32768));
/// let store = t.access(compute, "tmem_store dsT", slot.clone(), true)?;
/// t.arrive(compute, "arrive_barrier dsT_full", ds_full, 1)?;
/// let dq = t.mma(gemm, "tc_gen5_mma dq", &[a, b.clone()], &[slot.clone()], &[])?;
/// t.wait(gemm, "wait_barrier dsT_full", ds_full, 0)?;
/// t.mma(gemm, "tc_gen5_mma dk", &[slot, b], &[Cells::tmem_columns(128, 128)], &[])?;
/// let report = check(&t.build()?);
/// let hazards: Vec<_> = report.hazards().collect();
/// assert_eq!(hazards, [(store, dq[2])]); // dq's write of the slot races with dsT's store
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn check(trace: &Trace) -> Report {
    let hb = happens_before(trace);
    let successors = trace.successors();
    // One free run, every wait passing as soon as it may: it witnesses most races at once, and
    // a hang if it gets stuck.
    let fresh = Machine::new(trace);
    let mut free = fresh.restart();
    free.run_greedy(&successors, |_| true, None, |m| m.finished());
    // And one where every wait passes as late as it may (arrivals run ahead: a phase that
    // completes twice before its wait polls).
    let late = polling_late(&fresh, &successors, |_| true);
    // And a few seeded random executions (a phase missed by a wait that polls late).
    let mut state = 0x9e37_79b9_7f4a_7c15_u64;
    let random: Vec<Machine<'_>> = (0..RANDOM_RUNS)
        .map(|_| random_run(fresh.restart(), &successors, &mut state))
        .collect();
    // And, per barrier whose phase may complete twice before one of its waits polls
    // (`HappensBefore::may_overrun`), one where its waits poll as late as they may and every
    // other event runs as soon as it may.
    let overrun: BTreeSet<BarrierId> = hb
        .may_overrun
        .iter()
        .filter_map(|w| match trace.events.get(w.0).map(|x| &x.kind) {
            Some(EventKind::Wait { barrier, .. }) => Some(*barrier),
            _ => None,
        })
        .collect();
    let targeted: Vec<Machine<'_>> = overrun
        .iter()
        .map(|&b| {
            polling_late(&fresh, &successors, |w| {
                matches!(trace.events.get(w.0).map(|x| &x.kind),
                    Some(EventKind::Wait { barrier, .. }) if *barrier == b)
            })
        })
        .collect();
    let runs: Vec<&Machine<'_>> = [&free, &late]
        .into_iter()
        .chain(random.iter())
        .chain(targeted.iter())
        .collect();
    let hang = runs.iter().find(|m| !m.finished()).map(|m| Hang {
        blocked: m.blocked(),
        schedule: m.schedule.clone(),
    });
    let faults: BTreeSet<super::Fault> =
        runs.iter().flat_map(|m| m.faults.iter().copied()).collect();
    let pairs = verdicts(trace, &fresh, &hb, &successors, &runs);
    Report {
        pairs,
        hang,
        stale_waits: stale_waits(trace),
        open_phases: super::open_phases(trace),
        faults: faults.into_iter().collect(),
        happens_before: hb,
    }
}
