//! [`Machine`]: one execution of a [`Trace`] under the semantics of `docs/hazard-check.md`
//! (*The mbarrier*), step by step. The explorer branches it, the static check's replay drives
//! it along one schedule; the rules live here and nowhere else.

use std::collections::BTreeSet;
use std::rc::Rc;

use super::bitset::EventSet;
use super::trace::{BarrierId, EventId, EventKind, Trace};

/// A barrier's state in one execution.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BarrierState {
    /// Phases completed.
    pub completed: u32,
    /// Arrivals the current phase still needs.
    pub pending: i64,
    /// The tx-count.
    pub tx: i64,
    /// Events that happen before an arrival or complete_tx of the current phase (and those).
    open: EventSet,
    /// The same for every completed phase: what a passing wait acquires.
    closed: EventSet,
}

/// Whether a wait on `parity` passes with `completed` phases done: `mbarrier.try_wait.parity`
/// asks whether the phase of that parity has completed.
pub(crate) fn passes(completed: u32, parity: u8) -> bool {
    completed % 2 != u32::from(parity)
}

/// One arrive (`arrivals` below zero, `tx` the bytes expected) or complete_tx (`tx` below zero)
/// on a barrier of `count` arrivals a phase: updates its pending arrivals and tx-count and
/// returns (an arrival past the phase, the phase completes); a completing phase leaves
/// `pending` at `count` again.
pub(crate) fn settle(
    pending: &mut i64,
    tx: &mut i64,
    count: i64,
    arrivals: i64,
    bytes: i64,
) -> (bool, bool) {
    *tx = tx.saturating_add(bytes);
    *pending += arrivals;
    let past = *pending < 0;
    let completes = *pending <= 0 && *tx == 0;
    if completes {
        *pending = count;
    }
    (past, completes)
}

/// A protocol fault one execution ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Fault {
    /// An arrival past the count of the current phase (the arrive is the event).
    TooManyArrivals {
        /// The arrive.
        event: EventId,
        /// The barrier.
        barrier: BarrierId,
    },
}

/// One execution in progress.
#[derive(Debug, Clone)]
pub struct Machine<'t> {
    trace: &'t Trace,
    done: EventSet,
    /// Per executed event: the events that happen before it in this execution.
    before: Vec<Option<EventSet>>,
    barriers: Vec<BarrierState>,
    /// The order events ran in.
    pub schedule: Vec<EventId>,
    /// Conflicting pairs `(earlier, later)` found unordered.
    pub races: Vec<(EventId, EventId)>,
    /// Protocol faults.
    pub faults: Vec<Fault>,
    /// Per event, the events it conflicts with (shared by restarts).
    conflicts: Rc<[Vec<EventId>]>,
}

impl<'t> Machine<'t> {
    /// The initial state: nothing run, every barrier in phase 0.
    pub fn new(trace: &'t Trace) -> Self {
        Self::start(trace, trace.conflicts().into())
    }

    /// The initial state again, on the same trace (without recomputing what conflicts).
    pub fn restart(&self) -> Self {
        Self::start(self.trace, Rc::clone(&self.conflicts))
    }

    fn start(trace: &'t Trace, conflicts: Rc<[Vec<EventId>]>) -> Self {
        let empty = EventSet::of(trace);
        let barriers = trace
            .barriers
            .iter()
            .map(|b| BarrierState {
                completed: 0,
                pending: i64::from(b.count),
                tx: 0,
                open: empty.clone(),
                closed: empty.clone(),
            })
            .collect();
        Self {
            trace,
            done: empty,
            before: vec![None; trace.events.len()],
            barriers,
            schedule: Vec::new(),
            races: Vec::new(),
            faults: Vec::new(),
            conflicts,
        }
    }

    /// Whether `e` has run.
    pub fn ran(&self, e: EventId) -> bool {
        self.done.contains(e)
    }

    /// Whether every event has run.
    pub fn finished(&self) -> bool {
        self.done.len() == self.trace.events.len()
    }

    /// The events that happened before `e` in this execution (`None` if it has not run).
    pub fn before(&self, e: EventId) -> Option<&EventSet> {
        self.before.get(e.0).and_then(Option::as_ref)
    }

    /// The state of barrier `b`.
    pub fn barrier(&self, b: BarrierId) -> Option<&BarrierState> {
        self.barriers.get(b.0)
    }

    fn preds_ran(&self, e: EventId) -> bool {
        self.trace
            .events
            .get(e.0)
            .is_some_and(|x| x.after.iter().all(|&p| self.done.contains(p)))
    }

    /// Whether `e` may run now.
    pub fn enabled(&self, e: EventId) -> bool {
        if self.done.contains(e) || !self.preds_ran(e) {
            return false;
        }
        match self.trace.events.get(e.0).map(|x| &x.kind) {
            Some(EventKind::Wait { barrier, parity }) => self
                .barriers
                .get(barrier.0)
                .is_some_and(|b| passes(b.completed, *parity)),
            Some(EventKind::Sync { group }) => self.trace.syncs.get(*group).is_some_and(|g| {
                g.members.len() == g.threads as usize
                    && g.members
                        .iter()
                        .all(|&m| !self.done.contains(m) && self.preds_ran(m))
            }),
            Some(_) => true,
            None => false,
        }
    }

    /// The events not run whose structural predecessors all ran: where a stuck execution
    /// waits.
    pub fn blocked(&self) -> Vec<EventId> {
        self.trace
            .ids()
            .filter(|&e| !self.done.contains(e) && self.preds_ran(e))
            .collect()
    }

    /// Every event that may run now (a sync group appears once, by its first member).
    pub fn enabled_events(&self) -> Vec<EventId> {
        self.trace
            .ids()
            .filter(|&e| self.enabled(e))
            .filter(|&e| match self.trace.events.get(e.0).map(|x| &x.kind) {
                Some(EventKind::Sync { group }) => {
                    self.trace.syncs.get(*group).and_then(|g| g.members.first()) == Some(&e)
                }
                _ => true,
            })
            .collect()
    }

    /// Runs every enabled access that `allowed` lets through, until none is left. Accesses
    /// touch no barrier, so they commute with every other event: running them as soon as
    /// they may loses no execution.
    pub fn run_accesses(&mut self, allowed: impl Fn(EventId) -> bool) {
        loop {
            let local: Vec<EventId> = self
                .enabled_events()
                .into_iter()
                .filter(|&e| {
                    allowed(e)
                        && matches!(
                            self.trace.events.get(e.0).map(|x| &x.kind),
                            Some(EventKind::Access { .. })
                        )
                })
                .collect();
            if local.is_empty() {
                return;
            }
            for e in local {
                self.step(e);
            }
        }
    }

    /// Runs greedily until `until` holds or nothing `allowed` may run: waits first, as soon as
    /// they may pass (a wait passing early acquires the least), then `prefer`, then the lowest
    /// id. `successors` is [`Trace::successors`]. Apart from race checks, linear in the trace.
    pub fn run_greedy(
        &mut self,
        successors: &[Vec<EventId>],
        allowed: impl Fn(EventId) -> bool,
        prefer: Option<EventId>,
        until: impl Fn(&Machine<'_>) -> bool,
    ) {
        self.run_with(successors, allowed, until, |m, waits, others| {
            waits
                .iter()
                .copied()
                .find(|&w| m.enabled(w))
                .or_else(|| prefer.filter(|p| others.contains(p) && m.enabled(*p)))
                .or_else(|| others.iter().copied().find(|&e| m.enabled(e)))
        });
    }

    /// Runs until `until` holds or nothing `allowed` may run, `choose` picking each next event
    /// among the ready waits and the other ready events (it may pick one that is not
    /// enabled: a wait that cannot pass yet, a sync whose group is not complete — it is set
    /// aside until something changes).
    pub fn run_with(
        &mut self,
        successors: &[Vec<EventId>],
        allowed: impl Fn(EventId) -> bool,
        until: impl Fn(&Machine<'_>) -> bool,
        mut choose: impl FnMut(&Machine<'_>, &BTreeSet<EventId>, &BTreeSet<EventId>) -> Option<EventId>,
    ) {
        let trace = self.trace;
        let is_wait = |e: EventId| {
            matches!(
                trace.events.get(e.0).map(|x| &x.kind),
                Some(EventKind::Wait { .. })
            )
        };
        let mut missing: Vec<usize> = trace
            .events
            .iter()
            .map(|x| x.after.iter().filter(|&&p| !self.done.contains(p)).count())
            .collect();
        let mut waits = BTreeSet::new();
        let mut others = BTreeSet::new();
        let push = |e: EventId, waits: &mut BTreeSet<EventId>, others: &mut BTreeSet<EventId>| {
            if allowed(e) {
                if is_wait(e) {
                    waits.insert(e);
                } else {
                    others.insert(e);
                }
            }
        };
        for e in trace.ids() {
            if !self.done.contains(e) && missing.get(e.0) == Some(&0) {
                push(e, &mut waits, &mut others);
            }
        }
        while !until(self) {
            let Some(e) = choose(self, &waits, &others) else {
                break;
            };
            let before = self.schedule.len();
            if !self.step(e) {
                // Not enabled: the chooser's business; a greedy one never picks it.
                if !self
                    .enabled_events()
                    .into_iter()
                    .any(|x| waits.contains(&x) || others.contains(&x))
                {
                    break;
                }
                continue;
            }
            let ran: Vec<EventId> = self.schedule.get(before..).unwrap_or(&[]).to_vec();
            for d in ran {
                waits.remove(&d);
                others.remove(&d);
                for &s in successors.get(d.0).into_iter().flatten() {
                    if let Some(m) = missing.get_mut(s.0) {
                        *m = m.saturating_sub(1);
                        if *m == 0 {
                            push(s, &mut waits, &mut others);
                        }
                    }
                }
            }
        }
    }

    /// What happens before `e` through its structural predecessors.
    fn inherited(&self, e: EventId) -> EventSet {
        let mut set = EventSet::of(self.trace);
        if let Some(x) = self.trace.events.get(e.0) {
            for &p in &x.after {
                set.insert(p);
                if let Some(b) = self.before(p) {
                    set.union_with(b);
                }
            }
        }
        set
    }

    /// Runs `e`, which must be enabled (returns false, changing nothing, if it is not). A sync
    /// runs its whole group.
    pub fn step(&mut self, e: EventId) -> bool {
        if !self.enabled(e) {
            return false;
        }
        let Some(event) = self.trace.events.get(e.0) else {
            return false;
        };
        match &event.kind {
            EventKind::Sync { group } => {
                let members = self
                    .trace
                    .syncs
                    .get(*group)
                    .map(|g| g.members.clone())
                    .unwrap_or_default();
                let mut set = EventSet::of(self.trace);
                for &m in &members {
                    set.union_with(&self.inherited(m));
                }
                for &m in &members {
                    self.finish(m, set.clone());
                }
            }
            EventKind::Wait { barrier, .. } => {
                let mut set = self.inherited(e);
                if let Some(b) = self.barriers.get(barrier.0) {
                    set.union_with(&b.closed);
                }
                self.finish(e, set);
            }
            EventKind::Arrive { barrier, count, tx } => {
                let set = self.inherited(e);
                self.update(
                    e,
                    *barrier,
                    &set,
                    -i64::from(*count),
                    (*tx).try_into().unwrap_or(i64::MAX),
                );
                self.finish(e, set);
            }
            EventKind::CompleteTx { barrier, bytes, .. } => {
                let set = self.inherited(e);
                let bytes: i64 = (*bytes).try_into().unwrap_or(i64::MAX);
                self.update(e, *barrier, &set, 0, -bytes);
                self.finish(e, set);
            }
            EventKind::Access { .. } => {
                let set = self.inherited(e);
                for &other in self.conflicts.get(e.0).into_iter().flatten() {
                    if self.done.contains(other) && !set.contains(other) {
                        self.races.push((other, e));
                    }
                }
                self.finish(e, set);
            }
        }
        true
    }

    fn update(&mut self, e: EventId, barrier: BarrierId, set: &EventSet, arrivals: i64, tx: i64) {
        let Some(b) = self.barriers.get_mut(barrier.0) else {
            return;
        };
        let count = self
            .trace
            .barriers
            .get(barrier.0)
            .map_or(1, |x| i64::from(x.count));
        b.open.union_with(set);
        b.open.insert(e);
        let (past, completes) = settle(&mut b.pending, &mut b.tx, count, arrivals, tx);
        if past {
            self.faults
                .push(Fault::TooManyArrivals { event: e, barrier });
        }
        if completes {
            b.completed += 1;
            let open = std::mem::replace(&mut b.open, EventSet::of(self.trace));
            b.closed.union_with(&open);
        }
    }

    fn finish(&mut self, e: EventId, set: EventSet) {
        self.done.insert(e);
        if let Some(slot) = self.before.get_mut(e.0) {
            *slot = Some(set);
        }
        self.schedule.push(e);
    }

    /// What decides this execution's future: what ran, the barriers, and what happens before
    /// each event that has run and still has a successor to run (the explorer's memo key).
    pub fn key(&self) -> (EventSet, Vec<BarrierState>, Vec<Option<EventSet>>) {
        let mut live = vec![None; self.trace.events.len()];
        for e in self.trace.ids() {
            if self.done.contains(e) {
                continue;
            }
            if let Some(x) = self.trace.events.get(e.0) {
                for &p in &x.after {
                    if let (Some(slot), Some(b)) = (live.get_mut(p.0), self.before(p)) {
                        *slot = Some(b.clone());
                    }
                }
            }
        }
        (self.done.clone(), self.barriers.clone(), live)
    }
}
