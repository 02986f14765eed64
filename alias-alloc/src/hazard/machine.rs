//! [`Machine`]: one execution of a [`Trace`] under the semantics of `docs/hazard-check.md`
//! (*The mbarrier*), step by step. The explorer branches it, the static check's replay drives
//! it along one schedule; the rules live here and nowhere else.

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
}

impl<'t> Machine<'t> {
    /// The initial state: nothing run, every barrier in phase 0.
    pub fn new(trace: &'t Trace) -> Self {
        let empty = trace.empty_set();
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
                .is_some_and(|b| b.completed % 2 != u32::from(*parity)),
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

    /// What happens before `e` through its structural predecessors.
    fn inherited(&self, e: EventId) -> EventSet {
        let mut set = self.trace.empty_set();
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
                let mut set = self.trace.empty_set();
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
                for other in self.done.iter() {
                    if !set.contains(other) && self.trace.conflict(other, e) {
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
        b.tx = b.tx.saturating_add(tx);
        b.pending += arrivals;
        if b.pending < 0 {
            self.faults
                .push(Fault::TooManyArrivals { event: e, barrier });
        }
        if b.pending <= 0 && b.tx == 0 {
            b.completed += 1;
            b.pending = count;
            let open = std::mem::replace(&mut b.open, self.trace.empty_set());
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
