//! [`Outside`]: what the ops outside a persistent set can do to each barrier before an op of
//! the set runs — the state-dependent half of the persistent sets (`persistent.rs`;
//! `docs/hazard-check.md`, *Persistent sets*).
//!
//! From a state, an execution that runs no op of a set *S* runs only ops none of whose
//! predecessors is in *S*, each once its predecessors ran, a wait once its barrier's phase of
//! the other parity is complete. [`outside_of_machine`] (and `Looped::outside` in
//! `every_trip_count.rs`, over laps) over-approximates every such execution at
//! once, as the op instances it may run: an instance is taken once its predecessors ran or
//! were taken, a wait once it passes in the state or its barrier may complete a phase — once
//! the arrivals taken on it reach its pending count (tx-counts, which only hold a phase back,
//! are left out: more is taken, never less). Per barrier it then bounds the arrivals every
//! such execution makes, and says whether one may complete a phase, run a wait on it or a
//! complete_tx (or an arrive of no arrivals). Over laps it gives up past `DRIFT_PERIODS`
//! periods ahead of the window.
//!
//! A persistent set needs each op outside it to be independent of the set's ops in the states
//! where it runs, not in every state (conditional independence: Godefroid and Pirottin,
//! *Refining Dependencies Improves Partial-Order Verification Methods*, CAV 1993). Two
//! arrivals on one barrier commute in a state where neither completes the phase alone and
//! both together pass none of it: the pending count and tx-count add up, and what the phase
//! carries is the union, in either order; a wait reads only the phase count and what
//! completed phases carry, which an arrival that completes nothing leaves as it is. So an
//! arrive of *c* in the set is independent of every op outside when the pending count less
//! every arrival the outside can make stays above *c*, or equals it and the outside runs no
//! wait, complete_tx or arrive of none on the barrier ([`Outside::commutes`]); a wait, when
//! the outside cannot complete its barrier's phase ([`Outside::quiet`]).

use super::bitset::EventSet;
use super::looped::Looped;
use super::machine::{passes, Machine};
use super::trace::{BarrierId, EventId, EventKind, Trace};

/// Per barrier, what every execution from a state that runs no op of a set can do to it.
#[derive(Debug, Clone)]
pub(super) struct Outside {
    /// Arrivals the current phase still needs, in the state.
    pending: Vec<i64>,
    /// At most this many arrivals, summed over every op instance such an execution may run.
    arrivals: Vec<i64>,
    /// Whether such an execution may complete the current phase.
    completes: Vec<bool>,
    /// Whether such an execution may run a wait on it, a complete_tx or an arrive of no
    /// arrivals: ops whose order with a set's arrive that completes the phase matters.
    exposed: Vec<bool>,
}

impl Outside {
    /// Whether no execution outside the set completes a phase of barrier `b`: a wait of the
    /// set on `b` is then enabled or not, and acquires, the same after any of them.
    pub(super) fn quiet(&self, b: usize) -> bool {
        self.completes.get(b) == Some(&false)
    }

    /// Whether an arrive (or complete_tx: `arrivals` 0) of the set on barrier `b` commutes
    /// with every op on `b` an execution outside the set runs, in every state it passes:
    /// the pending arrivals stay above the arrive's own (neither completes a phase, one
    /// after the other arrives past none), or reach them only at an arrival of one or more,
    /// with no wait or complete_tx outside the set to tell the orders apart.
    pub(super) fn commutes(&self, b: usize, arrivals: i64) -> bool {
        let (Some(&pending), Some(&outside), Some(&exposed)) = (
            self.pending.get(b),
            self.arrivals.get(b),
            self.exposed.get(b),
        ) else {
            return false;
        };
        let left = pending - outside;
        self.quiet(b) && (left > arrivals || (left == arrivals && arrivals >= 1 && !exposed))
    }
}

/// Per residue of a [`Looped`]'s laps, its ops as a set: the loop's, the epilogue's.
#[derive(Debug, Clone)]
pub(super) struct Residues {
    pub(super) laps: Vec<EventSet>,
    pub(super) epilogues: Vec<EventSet>,
}

impl Residues {
    /// `looped`'s.
    pub(super) fn new(looped: &Looped) -> Self {
        let sets = |lists: &[Vec<EventId>]| {
            lists
                .iter()
                .map(|ops| {
                    let mut set = EventSet::new(looped.ids);
                    for &r in ops {
                        set.insert(r);
                    }
                    set
                })
                .collect()
        };
        Self {
            laps: sets(&looped.laps),
            epilogues: sets(&looped.epilogues),
        }
    }
}

/// An over-approximation in progress: per barrier, what the ops taken so far do to it, and
/// the waits set aside (as `T`) until it may complete a phase ([`outside_of_machine`] and
/// `Looped::outside`, `every_trip_count.rs`).
pub(super) struct Tally<T> {
    out: Outside,
    touched: Vec<bool>,
    parked: Vec<Vec<T>>,
}

impl<T> Tally<T> {
    /// Nothing taken yet, the barriers' pending arrivals in the state `pending`.
    pub(super) fn new(pending: Vec<i64>) -> Self {
        let barriers = pending.len();
        Self {
            out: Outside {
                pending,
                arrivals: vec![0; barriers],
                completes: vec![false; barriers],
                exposed: vec![false; barriers],
            },
            touched: vec![false; barriers],
            parked: (0..barriers).map(|_| Vec::new()).collect(),
        }
    }

    /// Whether an op of `kind`, its predecessors taken, may be taken: a wait that does not
    /// pass now (`passes(barrier, parity)`) and on a barrier no phase of which may complete
    /// yet is set aside as `item`.
    pub(super) fn admit(
        &mut self,
        kind: &EventKind,
        passes: impl FnOnce(usize, u8) -> bool,
        item: T,
    ) -> bool {
        if let EventKind::Wait { barrier, parity } = kind {
            let b = barrier.0;
            if !self.out.completes.get(b).copied().unwrap_or(true) && !passes(b, *parity) {
                if let Some(p) = self.parked.get_mut(b) {
                    p.push(item);
                }
                return false;
            }
        }
        true
    }

    /// The bound, once nothing more may be taken.
    pub(super) fn finish(self) -> Outside {
        self.out
    }

    /// Records that ops past what is followed (of laps not yet decided, of whatever kind) may
    /// arrive on barrier `b` without bound, and wait on it: any phase may complete; returns
    /// the waits that lets through.
    pub(super) fn unbounded(&mut self, b: usize) -> Vec<T> {
        if let Some(a) = self.out.arrivals.get_mut(b) {
            *a = i64::MAX / 4;
        }
        set(&mut self.out.exposed, b);
        set(&mut self.touched, b);
        self.may_complete(b)
    }

    /// Records that a phase of barrier `b` may complete; returns the waits set aside on it,
    /// the first time.
    fn may_complete(&mut self, b: usize) -> Vec<T> {
        if self.out.completes.get(b) == Some(&false) {
            set(&mut self.out.completes, b);
            return self
                .parked
                .get_mut(b)
                .map(std::mem::take)
                .unwrap_or_default();
        }
        Vec::new()
    }

    /// Records an op of `kind` taken; returns the waits a phase its barrier may now complete
    /// lets through.
    pub(super) fn took(&mut self, kind: &EventKind) -> Vec<T> {
        let b = match kind {
            EventKind::Wait { barrier, .. } => {
                set(&mut self.out.exposed, barrier.0);
                return Vec::new();
            }
            EventKind::Arrive { barrier, count, .. } => {
                if let Some(a) = self.out.arrivals.get_mut(barrier.0) {
                    *a += i64::from(*count);
                }
                if *count == 0 {
                    set(&mut self.out.exposed, barrier.0);
                }
                barrier.0
            }
            EventKind::CompleteTx { barrier, .. } => {
                set(&mut self.out.exposed, barrier.0);
                barrier.0
            }
            EventKind::Access { .. } | EventKind::Sync { .. } => return Vec::new(),
        };
        set(&mut self.touched, b);
        if self.out.arrivals.get(b) >= self.out.pending.get(b) {
            return self.may_complete(b);
        }
        Vec::new()
    }
}

/// What the executions of `m`'s trace from `m` that run none of `frozen` (a named barrier's
/// whole group) can do to each barrier. `successors` is [`Trace::successors`].
pub(super) fn outside_of_machine(
    m: &Machine<'_>,
    trace: &Trace,
    successors: &[Vec<EventId>],
    frozen: &[EventId],
) -> Outside {
    let pending = (0..trace.barriers.len())
        .map(|b| m.barrier(BarrierId(b)).map_or(0, |x| x.pending))
        .collect();
    let mut tally = Tally::new(pending);
    let mut taken = EventSet::of(trace);
    let mut work = m.blocked();
    while let Some(e) = work.pop() {
        if frozen.contains(&e) || m.ran(e) || taken.contains(e) {
            continue;
        }
        let Some(event) = trace.events.get(e.0) else {
            continue;
        };
        if !event.after.iter().all(|&p| m.ran(p) || taken.contains(p)) {
            continue;
        }
        let passes_now = |b: usize, parity: u8| {
            m.barrier(BarrierId(b))
                .is_some_and(|x| passes(x.completed, parity))
        };
        if !tally.admit(&event.kind, passes_now, e) {
            continue;
        }
        taken.insert(e);
        work.extend(tally.took(&event.kind));
        work.extend(successors.get(e.0).into_iter().flatten().copied());
    }
    tally.finish()
}

fn set(flags: &mut [bool], b: usize) {
    if let Some(f) = flags.get_mut(b) {
        *f = true;
    }
}
