//! [`Looped`]: a loop at every trip count at once — the explorer's semantics (`machine.rs`) on
//! the loop run forever, its laps taken modulo their period (`docs/hazard-check.md`, *Every trip
//! count*).
//!
//! **What is decided.** A loop of *P*-periodic laps and nothing after it: each thread runs lap
//! 0, 1, 2, … and what lap *i* does depends on *i* mod *P* alone. *T*ₙ, the loop at *n* laps, is
//! the first *n* laps of *T*∞. An execution of *T*ₙ is an execution of *T*∞ that runs only
//! events of laps below *n* (what may run depends only on what ran), so a race or an arrival
//! past its phase at some *n* is one at every larger *n*, and *T*ₙ is stuck at a state of *T*∞
//! whose run events lie below *n*, some event below *n* has not run and none below *n* may
//! run. [`Looped::explore`] runs every interleaving of *T*∞ with a finite state:
//!
//! - the laps where something has not run and something has, the laps below all run — shifted
//!   down by a multiple of *P*, so a state *P* laps on is the same state;
//! - per barrier: the parity of its completed phases, pending arrivals, tx-count;
//! - happens-before only for the **latest instance** of each access of the period: a set of
//!   them per run event with a successor still to run and per barrier (open and completed
//!   phases). A new instance of an access clears it from every set: what was known was the
//!   older one.
//!
//! The latest instance is enough to decide whether a race exists: an older instance *o* of the
//! same access, unordered with an access *e* while the latest *o*′ is ordered, is ordered
//! before *o*′ on its own timeline (then before *e*), or unordered with *o*′ — a race of two
//! writes (a TMA copy's timeline lives one lap; its accesses are writes, or the loop is
//! refused) that was found when *o*′ ran.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::bitset::EventSet;
use super::error::HazardError;
use super::machine::{passes, settle};
use super::trace::{EventId, EventKind, TimelineId, Trace};

/// How far a thread may run ahead of the first lap not yet done, in periods, before the
/// explorer stops following it (and calls its answer incomplete).
pub const DRIFT_PERIODS: i64 = 4;

/// What the loop does at every trip count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EveryTripCount {
    /// Races: `(a, b, d)` — the representatives of two accesses (their events in laps
    /// *P* … 2*P* − 1 of the trace given) that race with `b` `d` laps after `a`.
    pub races: BTreeSet<(EventId, EventId, u32)>,
    /// A trip count at which some execution races (with every larger one).
    pub race_at: Option<u32>,
    /// Arrivals past their phase, by representative.
    pub faults: BTreeSet<EventId>,
    /// A trip count at which some execution arrives past a phase (with every larger one).
    pub fault_at: Option<u32>,
    /// The least trip count found at which some execution is stuck.
    pub stuck_at: Option<u32>,
    /// Whether every state was followed: `false` when a thread ran more than
    /// [`DRIFT_PERIODS`] periods ahead or the budget ran out — what was found is real, what
    /// was not is not proved.
    pub complete: bool,
    /// States visited.
    pub states: usize,
}

impl EveryTripCount {
    /// Whether some trip count races, hangs or arrives past a phase.
    pub fn goes_wrong(&self) -> bool {
        self.race_at.is_some() || self.fault_at.is_some() || self.stuck_at.is_some()
    }
}

/// One op of a lap, by its representative.
#[derive(Debug, Clone)]
struct Step {
    kind: EventKind,
    timeline: TimelineId,
    /// The timeline lives one lap (a TMA copy's).
    per_lap: bool,
    /// `(laps back, representative)`.
    after: Vec<(i64, EventId)>,
    /// `(laps on, representative)`.
    successors: Vec<(i64, EventId)>,
    /// A named barrier's members (same lap) and the threads it needs.
    group: Option<(Vec<EventId>, u32)>,
}

/// A loop's trace unrolled over two periods or more, read as the loop run forever.
///
/// ```
/// use alias_alloc::hazard::{Cells, Looped, Space, TraceBuilder};
/// // A one-slot ring, two laps a period; the consumer frees the slot before reading it.
/// let mut t = TraceBuilder::new();
/// let (p, c) = (t.partition("producer"), t.partition("consumer"));
/// let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 1)?);
/// let slot = Cells::range(Space::Smem, 0, 128);
/// let mut laps = Vec::new();
/// for i in 0..4u8 {
///     t.wait(p, "wait empty", empty, 1 - i % 2)?;
///     t.access(p, "local_store", slot.clone(), true)?;
///     t.arrive(p, "arrive full", full, 1)?;
///     laps.extend([u32::from(i); 3]);
/// }
/// for i in 0..4u8 {
///     t.wait(c, "wait full", full, i % 2)?;
///     t.arrive(c, "arrive empty", empty, 1)?; // too early
///     t.access(c, "local_load", slot.clone(), false)?;
///     laps.extend([u32::from(i); 3]);
/// }
/// let trace = t.build()?;
/// let every = Looped::new(&trace, &laps, 2)?.explore(100_000);
/// assert!(every.complete);
/// assert_eq!(every.race_at, Some(2)); // the producer's second store meets the first load
/// assert_eq!(every.stuck_at, None);
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Looped<'t> {
    trace: &'t Trace,
    period: u32,
    /// Per residue: the representatives of a lap, in trace order.
    laps: Vec<Vec<EventId>>,
    steps: BTreeMap<EventId, Step>,
    conflicts: BTreeMap<EventId, Vec<EventId>>,
    max_back: i64,
}

/// An op's kind without the trace's own event ids (a copy's expect).
fn shape(kind: &EventKind) -> EventKind {
    match kind {
        EventKind::CompleteTx { barrier, bytes, .. } => EventKind::CompleteTx {
            barrier: *barrier,
            bytes: *bytes,
            expect: None,
        },
        EventKind::Sync { .. } => EventKind::Sync { group: 0 },
        k => k.clone(),
    }
}

impl<'t> Looped<'t> {
    /// Reads `trace` as a loop: `lap[e]` is event `e`'s lap, every lap repeats the one `period`
    /// laps before it (the same ops on the same barriers and cells, the same predecessors
    /// shifted; a timeline is the loop's or one lap's), and the trace unrolls two periods or
    /// more. Refuses what does not repeat ([`HazardError::NotPeriodic`]) or does not fit
    /// ([`HazardError::Laps`]).
    pub fn new(trace: &'t Trace, lap: &[u32], period: u32) -> Result<Self, HazardError> {
        let unrolled = lap.iter().max().map_or(0, |&l| l + 1);
        let p = i64::from(period);
        if lap.len() != trace.events.len() || period == 0 || unrolled < 2 * period {
            return Err(HazardError::Laps {
                laps: lap.len(),
                events: trace.events.len(),
                unrolled,
                period,
            });
        }
        let mut by_lap: Vec<Vec<EventId>> = vec![Vec::new(); unrolled as usize];
        let mut position = vec![0usize; lap.len()];
        for (i, &l) in lap.iter().enumerate() {
            if let Some(v) = by_lap.get_mut(l as usize) {
                if let Some(slot) = position.get_mut(i) {
                    *slot = v.len();
                }
                v.push(EventId(i));
            }
        }
        let laps: Vec<Vec<EventId>> = by_lap
            .get(period as usize..2 * period as usize)
            .unwrap_or(&[])
            .to_vec();
        let mut timeline_laps: HashMap<TimelineId, BTreeSet<u32>> = HashMap::new();
        for (e, &l) in trace.events.iter().zip(lap) {
            timeline_laps.entry(e.timeline).or_default().insert(l);
        }
        let per_lap = |t: TimelineId| timeline_laps.get(&t).is_some_and(|s| s.len() == 1);
        let not_periodic = |e: EventId, what| HazardError::NotPeriodic {
            event: e.0,
            lap: lap.get(e.0).copied().unwrap_or(0),
            period,
            what,
        };
        let lap_of = |e: EventId| i64::from(lap.get(e.0).copied().unwrap_or(0));
        // The representative of event `e`: the event at its place in lap P + (lap mod P).
        let rep = |e: EventId| -> Result<EventId, HazardError> {
            let l = lap_of(e);
            let r = (l % p) as usize;
            let j = position.get(e.0).copied().unwrap_or(0);
            let same = by_lap.get(l as usize).map(Vec::len) == laps.get(r).map(Vec::len);
            laps.get(r)
                .and_then(|v| v.get(j))
                .copied()
                .filter(|_| same)
                .ok_or_else(|| not_periodic(e, "its lap has another number of events"))
        };
        let mut steps = BTreeMap::new();
        let mut max_back = 0;
        for &r in laps.iter().flatten() {
            let event = trace.event(r)?;
            let after = event
                .after
                .iter()
                .map(|&q| Ok((lap_of(r) - lap_of(q), rep(q)?)))
                .collect::<Result<Vec<_>, HazardError>>()?;
            if after.is_empty() {
                return Err(not_periodic(
                    r,
                    "an op with no predecessor would run ahead of every lap",
                ));
            }
            max_back = after.iter().map(|a| a.0).fold(max_back, i64::max);
            if max_back > i64::from(period) {
                return Err(not_periodic(r, "a predecessor more than a period back"));
            }
            let group = match &event.kind {
                EventKind::Sync { group } => {
                    let g = trace
                        .syncs
                        .get(*group)
                        .ok_or(HazardError::NoSuchSyncGroup { group: *group })?;
                    if g.members.iter().any(|&m| lap_of(m) != lap_of(r)) {
                        return Err(not_periodic(r, "a named barrier taken in two laps"));
                    }
                    Some((g.members.clone(), g.threads))
                }
                _ => None,
            };
            if per_lap(event.timeline)
                && matches!(&event.kind, EventKind::Access { write: false, .. })
            {
                return Err(not_periodic(
                    r,
                    "a read on a timeline of one lap (only writes are decided by their latest instance)",
                ));
            }
            steps.insert(
                r,
                Step {
                    kind: shape(&event.kind),
                    timeline: event.timeline,
                    per_lap: per_lap(event.timeline),
                    after,
                    successors: Vec::new(),
                    group,
                },
            );
        }
        // Every lap is its representative's, predecessors shifted (those before lap 0 absent).
        let mut same_copy: HashMap<(i64, TimelineId), TimelineId> = HashMap::new();
        for (i, event) in trace.events.iter().enumerate() {
            let e = EventId(i);
            let r = rep(e)?;
            let step = steps
                .get(&r)
                .ok_or_else(|| not_periodic(e, "no representative"))?;
            if shape(&event.kind) != step.kind {
                return Err(not_periodic(e, "its op differs from the one a period on"));
            }
            let timeline_fits = if step.per_lap {
                per_lap(event.timeline)
                    && *same_copy
                        .entry((lap_of(e), step.timeline))
                        .or_insert(event.timeline)
                        == event.timeline
            } else {
                event.timeline == step.timeline
            };
            if !timeline_fits {
                return Err(not_periodic(
                    e,
                    "its timeline differs from the one a period on",
                ));
            }
            let mut after = event
                .after
                .iter()
                .map(|&q| Ok((lap_of(e) - lap_of(q), rep(q)?)))
                .collect::<Result<Vec<_>, HazardError>>()?;
            let mut expected: Vec<_> = step
                .after
                .iter()
                .copied()
                .filter(|&(back, _)| lap_of(e) - back >= 0)
                .collect();
            after.sort_unstable();
            expected.sort_unstable();
            if after != expected {
                return Err(not_periodic(
                    e,
                    "its predecessors differ from the ones a period on",
                ));
            }
            if let (EventKind::Sync { group }, Some((members, threads))) =
                (&event.kind, &step.group)
            {
                let g = trace
                    .syncs
                    .get(*group)
                    .ok_or(HazardError::NoSuchSyncGroup { group: *group })?;
                let mut reps = g
                    .members
                    .iter()
                    .map(|&m| rep(m))
                    .collect::<Result<Vec<_>, _>>()?;
                let mut want = members.clone();
                reps.sort_unstable();
                want.sort_unstable();
                if reps != want
                    || g.threads != *threads
                    || g.members.iter().any(|&m| lap_of(m) != lap_of(e))
                {
                    return Err(not_periodic(
                        e,
                        "its named barrier differs from the one a period on",
                    ));
                }
            }
        }
        let links: Vec<(EventId, i64, EventId)> = steps
            .iter()
            .flat_map(|(&r, s)| s.after.iter().map(move |&(back, q)| (q, back, r)))
            .collect();
        for (q, back, r) in links {
            if let Some(s) = steps.get_mut(&q) {
                s.successors.push((back, r));
            }
        }
        let mut conflicts: BTreeMap<EventId, Vec<EventId>> = BTreeMap::new();
        for (&a, x) in &steps {
            for (&b, y) in &steps {
                if let (
                    EventKind::Access { cells: c, write: w },
                    EventKind::Access { cells: d, write: v },
                ) = (&x.kind, &y.kind)
                {
                    let may_differ = x.timeline != y.timeline || x.per_lap;
                    if may_differ && (*w || *v) && c.overlaps(d) {
                        conflicts.entry(a).or_default().push(b);
                    }
                }
            }
        }
        Ok(Self {
            trace,
            period,
            laps,
            steps,
            conflicts,
            max_back,
        })
    }

    /// The representative of the op at `position` (in trace order) of lap `lap`: the event
    /// at that place in lap *P* + `lap` mod *P* of the trace given — how an event of the same
    /// loop unrolled to another trip count is named here.
    pub fn representative(&self, lap: u32, position: usize) -> Option<EventId> {
        self.laps
            .get((lap % self.period) as usize)
            .and_then(|v| v.get(position))
            .copied()
    }

    /// Runs every interleaving of the loop run forever, visiting at most `budget` states (past
    /// it, what was found is returned, not [`EveryTripCount::complete`]).
    pub fn explore(&self, budget: usize) -> EveryTripCount {
        let mut out = EveryTripCount {
            complete: true,
            ..EveryTripCount::default()
        };
        let empty = EventSet::of(self.trace);
        let start = State {
            base: 0,
            shifted: false,
            done: Vec::new(),
            barriers: self
                .trace
                .barriers
                .iter()
                .map(|b| Bar {
                    parity: 0,
                    pending: i64::from(b.count),
                    tx: 0,
                    open: empty.clone(),
                    closed: empty.clone(),
                })
                .collect(),
            know: BTreeMap::new(),
            latest: BTreeMap::new(),
        };
        let drift = DRIFT_PERIODS * i64::from(self.period);
        let mut seen = HashSet::new();
        let mut stack = vec![(start, 0i64)];
        while let Some((mut s, mut offset)) = stack.pop() {
            // Accesses touch no barrier: run those of laps already begun as soon as they may.
            loop {
                let local: Vec<(i64, EventId)> = self
                    .ready(&s)
                    .into_iter()
                    .filter(|&(l, r)| {
                        l < s.hi()
                            && matches!(
                                self.step_of(r).map(|x| &x.kind),
                                Some(EventKind::Access { .. })
                            )
                    })
                    .collect();
                if local.is_empty() {
                    break;
                }
                for (l, r) in local {
                    let found = s.run(self, l, r);
                    self.record(&mut out, found, offset, s.hi());
                }
                offset += s.normalize(self.period);
            }
            if !seen.insert(s.clone()) {
                continue;
            }
            out.states += 1;
            if out.states > budget {
                out.complete = false;
                break;
            }
            let ready = self.ready(&s);
            let enabled: Vec<(i64, EventId)> = ready
                .iter()
                .copied()
                .filter(|&(l, r)| self.enabled(&s, l, r))
                .collect();
            let first_ready = ready.iter().map(|x| x.0).min();
            if let Some(unrun) = first_ready {
                let least = unrun.max(s.hi() - 1) + 1;
                let blocked = enabled.iter().map(|x| x.0).min().is_none_or(|e| least <= e);
                if blocked {
                    let n = u32::try_from(least + offset).unwrap_or(u32::MAX);
                    out.stuck_at = Some(out.stuck_at.map_or(n, |m| m.min(n)));
                }
            }
            for (l, r) in enabled {
                if l - s.base >= drift {
                    out.complete = false;
                    continue;
                }
                let mut next = s.clone();
                let found = next.run(self, l, r);
                self.record(&mut out, found, offset, next.hi());
                let shifted = offset + next.normalize(self.period);
                stack.push((next, shifted));
            }
        }
        out
    }

    fn step_of(&self, r: EventId) -> Option<&Step> {
        self.steps.get(&r)
    }

    fn record(&self, out: &mut EveryTripCount, found: Vec<Found>, offset: i64, hi: i64) {
        let n = u32::try_from(hi + offset).unwrap_or(u32::MAX);
        let least = |at: &mut Option<u32>| *at = Some(at.map_or(n, |m| m.min(n)));
        for f in found {
            match f {
                Found::Race { a, la, b, lb } => {
                    let ((x, lx), (y, ly)) = if (la, a) <= (lb, b) {
                        ((a, la), (b, lb))
                    } else {
                        ((b, lb), (a, la))
                    };
                    out.races
                        .insert((x, y, u32::try_from(ly - lx).unwrap_or(u32::MAX)));
                    least(&mut out.race_at);
                }
                Found::Fault(r) => {
                    out.faults.insert(r);
                    least(&mut out.fault_at);
                }
            }
        }
    }

    /// The events not run whose predecessors all ran, as `(lap, representative)`.
    fn ready(&self, s: &State) -> Vec<(i64, EventId)> {
        let mut out = Vec::new();
        for l in s.base..s.hi() + self.max_back {
            let Some(reps) = self.laps.get((l % i64::from(self.period)) as usize) else {
                continue;
            };
            for &r in reps {
                if !s.ran(l, r) && self.preds_ran(s, l, r) {
                    out.push((l, r));
                }
            }
        }
        out
    }

    fn preds_ran(&self, s: &State, l: i64, r: EventId) -> bool {
        self.step_of(r).is_some_and(|x| {
            x.after
                .iter()
                .all(|&(back, q)| l - back < 0 || s.ran(l - back, q))
        })
    }

    /// Whether `(l, r)` may run now (a named barrier: by its first member, all members ready).
    fn enabled(&self, s: &State, l: i64, r: EventId) -> bool {
        match self.step_of(r) {
            Some(Step {
                kind: EventKind::Wait { barrier, parity },
                ..
            }) => s
                .barriers
                .get(barrier.0)
                .is_some_and(|b| passes(b.parity, *parity)),
            Some(Step {
                group: Some((members, threads)),
                ..
            }) => {
                members.first() == Some(&r)
                    && members.len() == *threads as usize
                    && members
                        .iter()
                        .all(|&m| !s.ran(l, m) && self.preds_ran(s, l, m))
            }
            Some(_) => true,
            None => false,
        }
    }
}

/// A finding of one step.
enum Found {
    Race {
        a: EventId,
        la: i64,
        b: EventId,
        lb: i64,
    },
    Fault(EventId),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Bar {
    parity: u32,
    pending: i64,
    tx: i64,
    open: EventSet,
    closed: EventSet,
}

/// A state of the loop run forever: laps below `base` all ran, `done[k]` is what ran of lap
/// `base + k` (the last one not empty).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    base: i64,
    /// Whether laps were shifted down (lap 0 is no longer the loop's first; a lap below it is
    /// one the loop ran, not one before it).
    shifted: bool,
    done: Vec<EventSet>,
    barriers: Vec<Bar>,
    /// The latest instances known to each run event with a successor still to run.
    know: BTreeMap<(i64, EventId), EventSet>,
    /// Per access: the lap of its latest instance.
    latest: BTreeMap<EventId, i64>,
}

impl State {
    /// Whether lap `l` comes before the loop's first (no event there: a predecessor absent).
    fn before_start(&self, l: i64) -> bool {
        l < 0 && !self.shifted
    }

    fn hi(&self) -> i64 {
        self.base + self.done.len() as i64
    }

    fn ran(&self, l: i64, r: EventId) -> bool {
        l < self.base
            || usize::try_from(l - self.base)
                .ok()
                .and_then(|k| self.done.get(k))
                .is_some_and(|d| d.contains(r))
    }

    /// Shifts every lap down by the largest multiple of the period below `base`; returns it.
    fn normalize(&mut self, period: u32) -> i64 {
        let p = i64::from(period);
        let shift = self.base.div_euclid(p) * p;
        if shift == 0 {
            return 0;
        }
        self.base -= shift;
        self.shifted = true;
        self.know = std::mem::take(&mut self.know)
            .into_iter()
            .map(|((l, r), k)| ((l - shift, r), k))
            .collect();
        for l in self.latest.values_mut() {
            *l -= shift;
        }
        shift
    }

    /// What happens before `(l, r)` through its predecessors.
    fn inherited(&self, looped: &Looped<'_>, l: i64, r: EventId) -> EventSet {
        let mut set = EventSet::of(looped.trace);
        for &(back, q) in looped.step_of(r).map_or(&[][..], |x| &x.after) {
            let at = l - back;
            if self.before_start(at) {
                continue;
            }
            if let Some(k) = self.know.get(&(at, q)) {
                set.union_with(k);
            }
            if self.latest.get(&q) == Some(&at) {
                set.insert(q);
            }
        }
        set
    }

    /// Runs `(l, r)` (a named barrier: its whole group); returns what it found.
    fn run(&mut self, looped: &Looped<'_>, l: i64, r: EventId) -> Vec<Found> {
        let mut found = Vec::new();
        let Some(step) = looped.step_of(r) else {
            return found;
        };
        match &step.kind {
            EventKind::Access { .. } => {
                let mut set = self.inherited(looped, l, r);
                for &c in looped.conflicts.get(&r).into_iter().flatten() {
                    let Some(&lc) = self.latest.get(&c) else {
                        continue;
                    };
                    let same_timeline = step.per_lap
                        && lc == l
                        && looped
                            .step_of(c)
                            .is_some_and(|x| x.timeline == step.timeline);
                    if !set.contains(c) && !same_timeline {
                        found.push(Found::Race {
                            a: c,
                            la: lc,
                            b: r,
                            lb: l,
                        });
                    }
                }
                // The older instance is no longer the one anything knows.
                for k in self.know.values_mut() {
                    k.remove(r);
                }
                for b in &mut self.barriers {
                    b.open.remove(r);
                    b.closed.remove(r);
                }
                set.remove(r);
                self.latest.insert(r, l);
                self.finish(looped, l, r, set);
            }
            EventKind::Wait { barrier, .. } => {
                let mut set = self.inherited(looped, l, r);
                if let Some(b) = self.barriers.get(barrier.0) {
                    set.union_with(&b.closed);
                }
                self.finish(looped, l, r, set);
            }
            EventKind::Arrive { barrier, count, tx } => {
                let set = self.inherited(looped, l, r);
                let bytes = i64::try_from(*tx).unwrap_or(i64::MAX);
                if self.arrive(looped, *barrier, &set, -i64::from(*count), bytes) {
                    found.push(Found::Fault(r));
                }
                self.finish(looped, l, r, set);
            }
            EventKind::CompleteTx { barrier, bytes, .. } => {
                let set = self.inherited(looped, l, r);
                let bytes = i64::try_from(*bytes).unwrap_or(i64::MAX);
                self.arrive(looped, *barrier, &set, 0, -bytes);
                self.finish(looped, l, r, set);
            }
            EventKind::Sync { .. } => {
                let members = step.group.as_ref().map(|g| g.0.clone()).unwrap_or_default();
                let mut set = EventSet::of(looped.trace);
                for &m in &members {
                    set.union_with(&self.inherited(looped, l, m));
                }
                for &m in &members {
                    self.finish(looped, l, m, set.clone());
                }
            }
        }
        found
    }

    /// An arrive or complete_tx; returns whether it arrived past the phase.
    fn arrive(
        &mut self,
        looped: &Looped<'_>,
        barrier: super::trace::BarrierId,
        set: &EventSet,
        arrivals: i64,
        bytes: i64,
    ) -> bool {
        let count = looped
            .trace
            .barriers
            .get(barrier.0)
            .map_or(1, |x| i64::from(x.count));
        let Some(b) = self.barriers.get_mut(barrier.0) else {
            return false;
        };
        b.open.union_with(set);
        let (past, completes) = settle(&mut b.pending, &mut b.tx, count, arrivals, bytes);
        if completes {
            b.parity ^= 1;
            let open = std::mem::replace(&mut b.open, EventSet::of(looped.trace));
            b.closed.union_with(&open);
        }
        past
    }

    /// Marks `(l, r)` run, keeps what it knows while a successor has not run, and forgets
    /// what its predecessors knew once all their successors ran.
    fn finish(&mut self, looped: &Looped<'_>, l: i64, r: EventId, set: EventSet) {
        let Some(step) = looped.step_of(r) else {
            return;
        };
        if let Ok(k) = usize::try_from(l - self.base) {
            if self.done.len() <= k {
                self.done.resize(k + 1, EventSet::of(looped.trace));
            }
            if let Some(d) = self.done.get_mut(k) {
                d.insert(r);
            }
        }
        if !step.successors.is_empty() {
            self.know.insert((l, r), set);
        }
        for &(back, q) in &step.after {
            let at = l - back;
            let all_ran = looped
                .step_of(q)
                .is_some_and(|x| x.successors.iter().all(|&(on, s)| self.ran(at + on, s)));
            if all_ran {
                self.know.remove(&(at, q));
            }
        }
        // Laps all run leave the window.
        let p = i64::from(looped.period);
        while let Some(first) = self.done.first() {
            let full = looped
                .laps
                .get(self.base.rem_euclid(p) as usize)
                .is_some_and(|reps| reps.iter().all(|&x| first.contains(x)));
            if !full {
                break;
            }
            self.done.remove(0);
            self.base += 1;
        }
    }
}
