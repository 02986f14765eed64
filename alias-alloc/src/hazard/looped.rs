//! [`Looped`]: a loop at every trip count at once — the explorer's semantics (`machine.rs`) on
//! the loop run forever, its laps taken modulo their period (`docs/hazard-check.md`, *Every trip
//! count*).
//!
//! **What is decided.** A loop of *P*-periodic laps: each thread runs lap 0, 1, 2, … and what
//! lap *i* does depends on *i* mod *P* alone; after *n* laps each runs its part of the
//! epilogue, which depends on *n* mod *P* alone. Without an epilogue, *T*ₙ (the loop at *n*
//! laps) is the first *n* laps of *T*∞: an execution of *T*ₙ is an execution of *T*∞ that runs
//! only events of laps below *n* (what may run depends only on what ran), so a race or an
//! arrival past its phase at some *n* is one at every larger *n*, and *T*ₙ is stuck at a state
//! of *T*∞ whose run events lie below *n*, some event below *n* has not run and none below *n*
//! may run. With one, the end is a choice: in any state whose last lap begun is *n* − 1 the
//! loop may end (*n* is decided, lap *n* is the epilogue of *n* mod *P*, nothing past it), and
//! every execution of *T*ₙ passes through such a state before its epilogue (each epilogue op
//! comes after a predecessor in lap *n* − 1 or in the epilogue). A head — prologues, a
//! pipelined loop's first lap — is taken as it is. [`Looped::explore`] runs every
//! interleaving with a finite state:
//!
//! - the laps where something has not run and something has, the laps below all run — shifted
//!   down by a multiple of *P*, so a state *P* laps on is the same state; the trip count once
//!   decided;
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
    /// Races: `(a, b, d)` — two ops ([`Looped::origin`]: a loop op's representative, a head's
    /// or an epilogue's op) that race with `b` `d` laps after `a` (the epilogue is the lap
    /// after the last; `u32::MAX`: `a` ran further back than the explorer keeps apart).
    pub races: BTreeSet<(EventId, EventId, u32)>,
    /// The least trip count found at which some execution races (without an epilogue, every
    /// larger one races too).
    pub race_at: Option<u32>,
    /// Arrivals past their phase, by representative.
    pub faults: BTreeSet<EventId>,
    /// The least trip count found at which some execution arrives past a phase (without an
    /// epilogue, every larger one does too).
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
    lane: Lane,
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
    /// The ops of every run, numbered compactly: the loop's representatives, the head's, the
    /// epilogues'.
    ids: usize,
    /// Per op, the run and the event it was read from.
    origin: Vec<(usize, EventId)>,
    /// Per barrier, its count.
    counts: Vec<u32>,
    period: u32,
    /// Laps `0 … head − 1` are the head: taken as they are, the same in every run.
    head: i64,
    /// Per head lap, its ops.
    heads: Vec<Vec<EventId>>,
    /// Per residue: the representatives of a lap, in trace order.
    laps: Vec<Vec<EventId>>,
    /// Per residue of the trip count: the epilogue (none at all: a loop with nothing after).
    epilogues: Vec<Vec<EventId>>,
    steps: BTreeMap<EventId, Step>,
    /// The predecessors of a loop op in a lap whose predecessors reach into the head.
    early: BTreeMap<(i64, EventId), Vec<(i64, EventId)>>,
    conflicts: BTreeMap<EventId, Vec<EventId>>,
    max_back: i64,
    _trace: std::marker::PhantomData<&'t Trace>,
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

/// One unrolling of a loop: its trace, each event's lap, and its trip count — the events of
/// lap `trip_count` are the epilogue, what runs after the loop (an example:
/// [`Looped::runs`]).
#[derive(Debug, Clone, Copy)]
pub struct Run<'t> {
    /// The trace.
    pub trace: &'t Trace,
    /// Per event, its lap.
    pub laps: &'t [u32],
    /// The laps of the loop.
    pub trip_count: u32,
}

/// Where a timeline comes from: one that has loop ops (its id in the first run), or one of a
/// head's or an epilogue's own (the run and its id there).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
enum Lane {
    Loop(TimelineId),
    Own(usize, TimelineId),
}

/// One run laid out by laps.
struct Layout<'a> {
    run: Run<'a>,
    by_lap: Vec<Vec<EventId>>,
    position: Vec<usize>,
    timeline_laps: HashMap<TimelineId, BTreeSet<u32>>,
}

impl<'a> Layout<'a> {
    fn new(run: Run<'a>, period: u32) -> Result<Self, HazardError> {
        let fits = run.laps.len() == run.trace.events.len()
            && run.laps.iter().all(|&l| l <= run.trip_count)
            && run.trip_count > 0;
        if !fits {
            return Err(HazardError::Laps {
                laps: run.laps.len(),
                events: run.trace.events.len(),
                unrolled: run.trip_count,
                period,
            });
        }
        let mut by_lap = vec![Vec::new(); run.trip_count as usize + 1];
        let mut position = vec![0; run.laps.len()];
        let mut timeline_laps: HashMap<TimelineId, BTreeSet<u32>> = HashMap::new();
        for ((i, &l), e) in run.laps.iter().enumerate().zip(&run.trace.events) {
            if let (Some(v), Some(slot)) = (by_lap.get_mut(l as usize), position.get_mut(i)) {
                *slot = v.len();
                v.push(EventId(i));
            }
            timeline_laps.entry(e.timeline).or_default().insert(l);
        }
        Ok(Self {
            run,
            by_lap,
            position,
            timeline_laps,
        })
    }

    fn lap(&self, e: EventId) -> i64 {
        i64::from(self.run.laps.get(e.0).copied().unwrap_or(0))
    }

    fn per_lap(&self, t: TimelineId) -> bool {
        self.timeline_laps.get(&t).is_some_and(|s| s.len() == 1)
    }

    fn not_periodic(&self, e: EventId, period: u32, what: &'static str) -> HazardError {
        HazardError::NotPeriodic {
            event: e.0,
            lap: self.run.laps.get(e.0).copied().unwrap_or(0),
            period,
            what,
        }
    }
}

/// The ops as they are read: compact ids, where they came from.
#[derive(Default)]
struct Numbering {
    origin: Vec<(usize, EventId)>,
}

impl Numbering {
    fn add(&mut self, run: usize, e: EventId) -> EventId {
        self.origin.push((run, e));
        EventId(self.origin.len() - 1)
    }
}

impl<'t> Looped<'t> {
    /// Reads `trace` as a loop with nothing before or after it: `lap[e]` is event `e`'s lap
    /// ([`Looped::runs`] with one run of the trip count the laps give, no head).
    pub fn new(trace: &'t Trace, lap: &'t [u32], period: u32) -> Result<Self, HazardError> {
        let trip_count = lap.iter().max().map_or(0, |&l| l + 1);
        Self::runs(
            &[Run {
                trace,
                laps: lap,
                trip_count,
            }],
            period,
            0,
        )
    }

    /// Reads `runs` as one loop and its epilogue: every lap of every run repeats the one
    /// `period` laps before it (the same ops on the same barriers and cells, the same
    /// predecessors shifted; a timeline is the loop's or one lap's), the first run unrolls two
    /// periods or more, and the epilogue after *n* laps depends on *n* mod `period` alone —
    /// each run gives the one of its residue (every residue where there is an epilogue), the
    /// first run of a residue a period past the head; a later run of a residue given, from
    /// [`Looped::least_trip_count`] on, is checked against the model lap by lap. The head is
    /// laps `0 … head − 1`, taken as they are (the same in every run), with the laps whose
    /// predecessors reach into it. Refuses what does not repeat ([`HazardError::NotPeriodic`])
    /// or does not fit ([`HazardError::Laps`]).
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, HazardError, Looped, Run, Space, Trace, TraceBuilder};
    /// // A one-slot ring; after the loop the producer reuses the slot once the consumer freed
    /// // it — waiting on phase 0 always, where lap n's wait would take (n + 1) mod 2.
    /// let unroll = |n: u32| -> Result<(Trace, Vec<u32>), HazardError> {
    ///     let mut t = TraceBuilder::new();
    ///     let (p, c) = (t.partition("producer"), t.partition("consumer"));
    ///     let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 1)?);
    ///     let slot = Cells::range(Space::Smem, 0, 128);
    ///     let mut laps = Vec::new();
    ///     for i in 0..n {
    ///         t.wait(p, "wait empty", empty, ((i + 1) % 2) as u8)?;
    ///         t.access(p, "local_store", slot.clone(), true)?;
    ///         t.arrive(p, "arrive full", full, 1)?;
    ///         laps.extend([i; 3]);
    ///     }
    ///     t.wait(p, "epilogue: wait empty", empty, 0)?;
    ///     t.access(p, "epilogue: local_store", slot.clone(), true)?;
    ///     laps.extend([n; 2]);
    ///     for i in 0..n {
    ///         t.wait(c, "wait full", full, (i % 2) as u8)?;
    ///         t.access(c, "local_load", slot.clone(), false)?;
    ///         t.arrive(c, "arrive empty", empty, 1)?;
    ///         laps.extend([i; 3]);
    ///     }
    ///     Ok((t.build()?, laps))
    /// };
    /// let (four, five) = (unroll(4)?, unroll(5)?);
    /// let runs = [
    ///     Run { trace: &four.0, laps: &four.1, trip_count: 4 },
    ///     Run { trace: &five.0, laps: &five.1, trip_count: 5 },
    /// ];
    /// let every = Looped::runs(&runs, 2, 0)?.explore(100_000);
    /// assert!(every.complete);
    /// assert_eq!(every.race_at, Some(2)); // and at every even count, at no odd one
    /// # Ok::<(), HazardError>(())
    /// ```
    pub fn runs(runs: &[Run<'t>], period: u32, head: u32) -> Result<Self, HazardError> {
        let p = i64::from(period);
        let k = i64::from(head);
        let refuse = |run: &Run<'_>| HazardError::Laps {
            laps: run.laps.len(),
            events: run.trace.events.len(),
            unrolled: run.trip_count,
            period,
        };
        let layouts = runs
            .iter()
            .map(|&run| Layout::new(run, period))
            .collect::<Result<Vec<_>, _>>()?;
        let first = layouts.first().ok_or(HazardError::Laps {
            laps: 0,
            events: 0,
            unrolled: 0,
            period,
        })?;
        let trace = first.run.trace;
        // The template: P laps of the first run a period past the head.
        let t0 = k + p;
        let fits = period > 0
            && i64::from(first.run.trip_count) >= t0 + p
            && layouts
                .iter()
                .all(|l| l.run.trace.barriers == trace.barriers);
        if !fits {
            return Err(refuse(&first.run));
        }
        let mut numbering = Numbering::default();
        // Per residue, the representatives: the first run's events of lap t0 + r.
        let mut laps: Vec<Vec<EventId>> = vec![Vec::new(); period as usize];
        let mut rep_of: HashMap<EventId, EventId> = HashMap::new();
        for r in 0..p {
            let l = t0 + r;
            for &e in first.by_lap.get(l as usize).into_iter().flatten() {
                let id = numbering.add(0, e);
                rep_of.insert(e, id);
                if let Some(v) = laps.get_mut(l.rem_euclid(p) as usize) {
                    v.push(id);
                }
            }
        }
        let mut heads: Vec<Vec<EventId>> = vec![Vec::new(); head as usize];
        let mut head_of: HashMap<(i64, usize), EventId> = HashMap::new();
        for (l, v) in heads.iter_mut().enumerate() {
            for (j, &e) in first.by_lap.get(l).into_iter().flatten().enumerate() {
                let id = numbering.add(0, e);
                head_of.insert((l as i64, j), id);
                v.push(id);
            }
        }
        // The op an event of `layout` is: a head op, a loop representative, or (`own`) an
        // epilogue op of its run.
        let name = |layout: &Layout<'_>,
                    e: EventId,
                    own: &HashMap<EventId, EventId>|
         -> Result<EventId, HazardError> {
            let l = layout.lap(e);
            let j = layout.position.get(e.0).copied().unwrap_or(0);
            if l == i64::from(layout.run.trip_count) {
                return own
                    .get(&e)
                    .copied()
                    .ok_or_else(|| layout.not_periodic(e, period, "an epilogue op out of order"));
            }
            if l < k {
                let same = layout.by_lap.get(l as usize).map(Vec::len)
                    == first.by_lap.get(l as usize).map(Vec::len);
                return head_of
                    .get(&(l, j))
                    .copied()
                    .filter(|_| same)
                    .ok_or_else(|| layout.not_periodic(e, period, "its head lap differs"));
            }
            let reps = laps.get(l.rem_euclid(p) as usize);
            let same = layout.by_lap.get(l as usize).map(Vec::len) == reps.map(Vec::len);
            reps.and_then(|v| v.get(j))
                .copied()
                .filter(|_| same)
                .ok_or_else(|| {
                    layout.not_periodic(e, period, "its lap has another number of events")
                })
        };
        let no_own = HashMap::new();
        let mut steps: BTreeMap<EventId, Step> = BTreeMap::new();
        let mut early: BTreeMap<(i64, EventId), Vec<(i64, EventId)>> = BTreeMap::new();
        let mut max_back = 0;
        // The first run's loop timelines: those with an op in a template lap.
        let mut lanes0: HashMap<TimelineId, Lane> = HashMap::new();
        for &e in laps.iter().flatten() {
            let (_, x) = numbering
                .origin
                .get(e.0)
                .copied()
                .unwrap_or((0, EventId(0)));
            if let Ok(event) = trace.event(x) {
                if !first.per_lap(event.timeline) {
                    lanes0.insert(event.timeline, Lane::Loop(event.timeline));
                }
            }
        }
        let lane_in = |run: usize, t: TimelineId, map: &HashMap<TimelineId, Lane>| {
            map.get(&t).copied().unwrap_or(Lane::Own(run, t))
        };
        let pred_list = |layout: &Layout<'_>,
                         e: EventId,
                         own: &HashMap<EventId, EventId>|
         -> Result<Vec<(i64, EventId)>, HazardError> {
            let event = layout.run.trace.event(e)?;
            let mut v = event
                .after
                .iter()
                .map(|&q| Ok((layout.lap(e) - layout.lap(q), name(layout, q, own)?)))
                .collect::<Result<Vec<_>, HazardError>>()?;
            v.sort_unstable();
            Ok(v)
        };
        // The first run's steps: its template laps' (which repeat) and its head's (as they are).
        let template = laps.iter().flatten().map(|&id| (id, true));
        for (id, repeats) in template.chain(heads.iter().flatten().map(|&id| (id, false))) {
            let (_, e) = numbering
                .origin
                .get(id.0)
                .copied()
                .unwrap_or((0, EventId(0)));
            let event = trace.event(e)?;
            let after = pred_list(first, e, &no_own)?;
            if repeats {
                if after.is_empty() {
                    return Err(first.not_periodic(
                        e,
                        period,
                        "an op with no predecessor would run ahead of every lap",
                    ));
                }
                max_back = after.iter().map(|a| a.0).fold(max_back, i64::max);
                if max_back > p {
                    return Err(first.not_periodic(
                        e,
                        period,
                        "a predecessor more than a period back",
                    ));
                }
                if first.per_lap(event.timeline)
                    && matches!(&event.kind, EventKind::Access { write: false, .. })
                {
                    return Err(first.not_periodic(
                        e,
                        period,
                        "a read on a timeline of one lap (only writes are decided by their latest instance)",
                    ));
                }
            }
            let group = Self::group(first, e, event, period, |m| name(first, m, &no_own))?;
            steps.insert(
                id,
                Step {
                    kind: shape(&event.kind),
                    lane: lane_in(0, event.timeline, &lanes0),
                    per_lap: first.per_lap(event.timeline),
                    after,
                    successors: Vec::new(),
                    group,
                },
            );
        }
        let template_back = max_back;
        let mut epilogues: Vec<Option<Vec<EventId>>> = vec![None; period as usize];
        for (run, layout) in layouts.iter().enumerate() {
            let trip = i64::from(layout.run.trip_count);
            // A residue's epilogue is read from a run a period past the head; a later run of
            // the same residue, from the least trip count on, is checked against it.
            let stored: Option<Vec<EventId>> = epilogues
                .get(trip.rem_euclid(p) as usize)
                .cloned()
                .flatten();
            let least = if stored.is_some() {
                k + template_back
            } else {
                k + p
            };
            if trip < least {
                return Err(refuse(&layout.run));
            }
            // This run's timelines, as the first run's where they have loop or head ops.
            let mut lanes: HashMap<TimelineId, Lane> = HashMap::new();
            let mut same_copy: HashMap<(i64, Lane), TimelineId> = HashMap::new();
            let mut own: HashMap<EventId, EventId> = HashMap::new();
            let mut epilogue = Vec::new();
            for (i, event) in layout.run.trace.events.iter().enumerate() {
                let e = EventId(i);
                let l = layout.lap(e);
                if l == trip {
                    let id = match &stored {
                        Some(v) => v.get(epilogue.len()).copied().ok_or_else(|| {
                            layout.not_periodic(
                                e,
                                period,
                                "its epilogue differs from another run's of its residue",
                            )
                        })?,
                        None => numbering.add(run, e),
                    };
                    own.insert(e, id);
                    epilogue.push((e, id));
                    continue;
                }
                let id = name(layout, e, &own)?;
                let step = steps
                    .get(&id)
                    .ok_or_else(|| layout.not_periodic(e, period, "no representative"))?;
                if shape(&event.kind) != step.kind {
                    return Err(layout.not_periodic(
                        e,
                        period,
                        "its op differs from the one a period on",
                    ));
                }
                let lane = *lanes.entry(event.timeline).or_insert(step.lane);
                let timeline_fits = if step.per_lap {
                    layout.per_lap(event.timeline)
                        && *same_copy.entry((l, step.lane)).or_insert(event.timeline)
                            == event.timeline
                } else {
                    lane == step.lane
                };
                if !timeline_fits {
                    return Err(layout.not_periodic(
                        e,
                        period,
                        "its timeline differs from the one a period on",
                    ));
                }
                let after = pred_list(layout, e, &own)?;
                if l < k {
                    if after != step.after {
                        return Err(layout.not_periodic(
                            e,
                            period,
                            "its head differs from the first run's",
                        ));
                    }
                } else if l < k + template_back {
                    // A lap whose predecessors may reach into the head or before the first lap:
                    // its own, the same in every run.
                    match early.get(&(l, id)) {
                        Some(known) if *known != after => {
                            return Err(layout.not_periodic(
                                e,
                                period,
                                "its predecessors in the head differ from the first run's",
                            ));
                        }
                        Some(_) => {}
                        None => {
                            early.insert((l, id), after);
                        }
                    }
                } else if after != step.after {
                    return Err(layout.not_periodic(
                        e,
                        period,
                        "its predecessors differ from the ones a period on",
                    ));
                }
                if let Some((members, threads)) = &step.group {
                    let g = Self::group(layout, e, event, period, |m| name(layout, m, &own))?;
                    if g.as_ref() != Some(&(members.clone(), *threads)) {
                        return Err(layout.not_periodic(
                            e,
                            period,
                            "its named barrier differs from the one a period on",
                        ));
                    }
                }
            }
            // The epilogue of this run's residue: its ops as they are, after the loop's.
            let slot = epilogues
                .get_mut(trip.rem_euclid(p) as usize)
                .ok_or_else(|| refuse(&layout.run))?;
            if let Some(v) = &stored {
                let differs = |e: EventId| {
                    layout.not_periodic(
                        e,
                        period,
                        "its epilogue differs from another run's of its residue",
                    )
                };
                if v.len() != epilogue.len() {
                    return Err(differs(epilogue.first().map_or(EventId(0), |x| x.0)));
                }
                for &(e, id) in &epilogue {
                    let event = layout.run.trace.event(e)?;
                    let after = pred_list(layout, e, &own)?;
                    let group = Self::group(layout, e, event, period, |m| name(layout, m, &own))?;
                    let lane = lanes.get(&event.timeline).copied();
                    let same = steps.get(&id).is_some_and(|x| {
                        x.kind == shape(&event.kind)
                            && x.after == after
                            && x.group == group
                            && x.per_lap == layout.per_lap(event.timeline)
                            && match (x.lane, lane) {
                                (Lane::Loop(a), Some(Lane::Loop(b))) => a == b,
                                (Lane::Own(..), None | Some(Lane::Own(..))) => true,
                                _ => false,
                            }
                    });
                    if !same {
                        return Err(differs(e));
                    }
                }
                continue;
            }
            let mut ids = Vec::new();
            for &(e, id) in &epilogue {
                let event = layout.run.trace.event(e)?;
                let after = pred_list(layout, e, &own)?;
                if !after.iter().any(|a| a.0 <= 1) {
                    return Err(layout.not_periodic(
                        e,
                        period,
                        "an epilogue op after nothing of the last lap could run before the loop ends",
                    ));
                }
                max_back = after.iter().map(|a| a.0).fold(max_back, i64::max);
                let lane = lanes
                    .get(&event.timeline)
                    .copied()
                    .unwrap_or(Lane::Own(run, event.timeline));
                let group = Self::group(layout, e, event, period, |m| name(layout, m, &own))?;
                steps.insert(
                    id,
                    Step {
                        kind: shape(&event.kind),
                        lane,
                        per_lap: layout.per_lap(event.timeline),
                        after,
                        successors: Vec::new(),
                        group,
                    },
                );
                ids.push(id);
            }
            *slot = Some(ids);
        }
        let ends = epilogues.iter().flatten().any(|v| !v.is_empty());
        if ends && epilogues.iter().any(Option::is_none) {
            return Err(refuse(&first.run));
        }
        let links: Vec<(EventId, i64, EventId)> = steps
            .iter()
            .flat_map(|(&r, s)| s.after.iter().map(move |&(back, q)| (q, back, r)))
            .chain(
                early
                    .iter()
                    .flat_map(|(&(_, r), after)| after.iter().map(move |&(back, q)| (q, back, r))),
            )
            .collect();
        for (q, back, r) in links {
            if let Some(s) = steps.get_mut(&q) {
                if !s.successors.contains(&(back, r)) {
                    s.successors.push((back, r));
                }
            }
        }
        let is_loop = |x: EventId| laps.iter().flatten().any(|&r| r == x);
        // What an epilogue op knows through a loop op is kept while the loop runs: the loop op
        // has a successor in a lap as late as the epilogue's.
        for v in epilogues.iter().flatten() {
            for &e in v {
                for &(back, q) in steps.get(&e).map_or(&[][..], |s| &s.after) {
                    if back == 0 || !is_loop(q) {
                        continue;
                    }
                    let kept = steps.get(&q).is_some_and(|x| {
                        x.successors.iter().any(|&(on, s)| on >= back && is_loop(s))
                    });
                    if !kept {
                        let (run, x) = numbering.origin.get(e.0).copied().unwrap_or((0, e));
                        let layout = layouts.get(run).unwrap_or(first);
                        return Err(layout.not_periodic(
                            x,
                            period,
                            "an epilogue op after a loop op that nothing of the next lap follows",
                        ));
                    }
                }
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
                    let may_differ = x.lane != y.lane || x.per_lap;
                    if may_differ && (*w || *v) && c.overlaps(d) {
                        conflicts.entry(a).or_default().push(b);
                    }
                }
            }
        }
        Ok(Self {
            ids: numbering.origin.len(),
            origin: numbering.origin,
            counts: trace.barriers.iter().map(|b| b.count).collect(),
            period,
            head: k,
            heads,
            laps,
            epilogues: if ends {
                epilogues
                    .into_iter()
                    .map(Option::unwrap_or_default)
                    .collect()
            } else {
                Vec::new()
            },
            steps,
            early,
            conflicts,
            max_back,
            _trace: std::marker::PhantomData,
        })
    }

    /// A named barrier's members (named by `name`, all in the lap of `e`) and its threads.
    fn group(
        layout: &Layout<'_>,
        e: EventId,
        event: &super::trace::Event,
        period: u32,
        name: impl Fn(EventId) -> Result<EventId, HazardError>,
    ) -> Result<Option<(Vec<EventId>, u32)>, HazardError> {
        let EventKind::Sync { group } = &event.kind else {
            return Ok(None);
        };
        let g = layout
            .run
            .trace
            .syncs
            .get(*group)
            .ok_or(HazardError::NoSuchSyncGroup { group: *group })?;
        if g.members.iter().any(|&m| layout.lap(m) != layout.lap(e)) {
            return Err(layout.not_periodic(e, period, "a named barrier taken in two laps"));
        }
        let mut members = g
            .members
            .iter()
            .map(|&m| name(m))
            .collect::<Result<Vec<_>, _>>()?;
        members.sort_unstable();
        Ok(Some((members, g.threads)))
    }

    /// The least trip count this decides: from there on every epilogue's predecessors lie in
    /// the loop's laps, not in the head.
    pub fn least_trip_count(&self) -> u32 {
        u32::try_from((self.head + self.max_back).max(1)).unwrap_or(u32::MAX)
    }

    /// Where op `id` (as [`EveryTripCount`] names it) was read from: the index of its run and
    /// its event there.
    pub fn origin(&self, id: EventId) -> Option<(usize, EventId)> {
        self.origin.get(id.0).copied()
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

    /// The representative of the epilogue's op at `position` (in trace order) after
    /// `trip_count` laps: its id, numbered after every earlier run's events.
    pub fn epilogue_representative(&self, trip_count: u32, position: usize) -> Option<EventId> {
        self.epilogues
            .get((trip_count % self.period) as usize)
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
        let empty = EventSet::new(self.ids);
        let start = State {
            base: 0,
            shifted: false,
            exit: None,
            done: Vec::new(),
            barriers: self
                .counts
                .iter()
                .map(|&count| Bar {
                    parity: 0,
                    pending: i64::from(count),
                    tx: 0,
                    open: empty.clone(),
                    closed: empty.clone(),
                })
                .collect(),
            know: BTreeMap::new(),
            latest: BTreeMap::new(),
        };
        let drift = DRIFT_PERIODS * i64::from(self.period);
        let floor = self.head + self.max_back;
        let ends = !self.epilogues.is_empty();
        let mut seen = HashSet::new();
        // Depth first, a frame per state on the path: the state and the moves not yet tried.
        let mut stack: Vec<(State, i64, Vec<Move>)> = Vec::new();
        let mut pending = Some((start, 0i64));
        loop {
            if let Some((mut s, mut offset)) = pending.take() {
                // Accesses touch no barrier: run those of laps already begun as soon as they
                // may.
                loop {
                    let local: Vec<(i64, EventId)> = self
                        .ready(&s)
                        .into_iter()
                        .filter(|&(l, r)| {
                            (l < s.hi() || s.exit.is_some())
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
                        self.record(&mut out, found, offset, s.exit.unwrap_or(s.hi()));
                    }
                    offset += s.normalize(self.period, floor);
                }
                if seen.insert(s.fingerprint()) {
                    out.states += 1;
                    if out.states > budget {
                        out.complete = false;
                        break;
                    }
                    let moves = self.moves(&s, offset, drift, ends, &mut out);
                    stack.push((s, offset, moves));
                }
            }
            let Some((s, offset, moves)) = stack.last_mut() else {
                break;
            };
            let Some(m) = moves.pop() else {
                stack.pop();
                continue;
            };
            let mut next = s.clone();
            let offset = *offset;
            match m {
                Move::End => {
                    // The loop ends here: n = hi, every lap begun so far is one of its.
                    next.exit = Some(next.hi());
                    pending = Some((next, offset));
                }
                Move::Run(l, r) => {
                    let found = next.run(self, l, r);
                    self.record(&mut out, found, offset, next.exit.unwrap_or(next.hi()));
                    let shifted = offset + next.normalize(self.period, floor);
                    pending = Some((next, shifted));
                }
            }
        }
        out
    }

    /// What may happen next in state `s` (recording where it is stuck): the enabled events,
    /// and the loop's end where it may end.
    fn moves(
        &self,
        s: &State,
        offset: i64,
        drift: i64,
        ends: bool,
        out: &mut EveryTripCount,
    ) -> Vec<Move> {
        let ready = self.ready(s);
        let enabled: Vec<(i64, EventId)> = ready
            .iter()
            .copied()
            .filter(|&(l, r)| self.enabled(s, l, r))
            .collect();
        let first_ready = ready.iter().map(|x| x.0).min();
        match (s.exit, first_ready) {
            (Some(n), Some(_)) if enabled.is_empty() => {
                let n = u32::try_from(n + offset).unwrap_or(u32::MAX);
                out.stuck_at = Some(out.stuck_at.map_or(n, |m| m.min(n)));
            }
            (None, Some(unrun)) => {
                // Stuck at every n from `least` to the first enabled lap; with an epilogue,
                // n = hi is the end's move below.
                let mut least = unrun.max(s.hi() - 1) + 1;
                if ends {
                    least = least.max(s.hi() + 1);
                }
                if !s.shifted {
                    least = least.max(i64::from(self.least_trip_count()));
                }
                let blocked = enabled.iter().map(|x| x.0).min().is_none_or(|e| least <= e);
                if blocked {
                    let n = u32::try_from(least + offset).unwrap_or(u32::MAX);
                    out.stuck_at = Some(out.stuck_at.map_or(n, |m| m.min(n)));
                }
            }
            _ => {}
        }
        let mut moves = Vec::new();
        let may_end = s.shifted || s.hi() >= i64::from(self.least_trip_count());
        if ends && s.exit.is_none() && may_end {
            moves.push(Move::End);
        }
        for (l, r) in enabled {
            if s.exit.is_none() && l - s.base >= drift {
                out.complete = false;
            } else {
                moves.push(Move::Run(l, r));
            }
        }
        moves
    }

    fn step_of(&self, r: EventId) -> Option<&Step> {
        self.steps.get(&r)
    }

    /// Records what a step found at trip count `at` (shifted by `offset`).
    fn record(&self, out: &mut EveryTripCount, found: Vec<Found>, offset: i64, at: i64) {
        let n = u32::try_from(at + offset).unwrap_or(u32::MAX);
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

    /// The ops of lap `l` in state `s`: the loop's, the epilogue's at the trip count, none past.
    fn reps_at(&self, s: &State, l: i64) -> &[EventId] {
        let p = i64::from(self.period);
        let (list, r) = match s.exit {
            Some(n) if l == n => (&self.epilogues, n),
            Some(n) if l > n => return &[],
            _ if !s.shifted && l < self.head => {
                return self.heads.get(l as usize).map_or(&[], Vec::as_slice)
            }
            _ => (&self.laps, l),
        };
        list.get(r.rem_euclid(p) as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The events not run whose predecessors all ran, as `(lap, representative)`.
    fn ready(&self, s: &State) -> Vec<(i64, EventId)> {
        let mut out = Vec::new();
        let end = (s.hi() + self.max_back).max(s.exit.map_or(0, |n| n + 1));
        for l in s.base..end {
            for &r in self.reps_at(s, l) {
                if !s.ran(l, r) && self.preds_ran(s, l, r) {
                    out.push((l, r));
                }
            }
        }
        out
    }

    fn preds_ran(&self, s: &State, l: i64, r: EventId) -> bool {
        self.step_of(r).is_some()
            && self
                .after_of(s, l, r)
                .iter()
                .all(|&(back, q)| s.before_start(l - back) || s.ran(l - back, q))
    }

    /// The predecessors of `(l, r)`: its lap's own where they reach into the head, else its
    /// op's.
    fn after_of(&self, s: &State, l: i64, r: EventId) -> &[(i64, EventId)] {
        match self.early.get(&(l, r)) {
            Some(v) if !s.shifted => v,
            _ => self.step_of(r).map_or(&[], |x| x.after.as_slice()),
        }
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

/// The lap of an access last run more than a period below the window (a prologue's): only
/// ever compared with what runs in the window, where no predecessor reaches it.
const LONG_AGO: i64 = i64::MIN / 4;

/// A move of the explorer: the loop ends, or an event runs.
enum Move {
    End,
    Run(i64, EventId),
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
    /// The trip count, once decided (a loop with an epilogue): lap `exit` is the epilogue.
    exit: Option<i64>,
    done: Vec<EventSet>,
    barriers: Vec<Bar>,
    /// The latest instances known to each run event with a successor still to run.
    know: BTreeMap<(i64, EventId), EventSet>,
    /// Per access: the lap of its latest instance.
    latest: BTreeMap<EventId, i64>,
}

impl State {
    /// The state's 128-bit fingerprint, which the explorer remembers instead of the state (two
    /// 64-bit SipHashes of it, under two prefixes): two states that differ share one with a
    /// probability near 2⁻¹²⁸ a pair — below 10⁻²⁵ for a billion states.
    fn fingerprint(&self) -> u128 {
        use std::hash::{Hash, Hasher};
        let half = |prefix: u8| {
            let mut h = std::collections::hash_map::DefaultHasher::new();
            prefix.hash(&mut h);
            self.hash(&mut h);
            h.finish()
        };
        (u128::from(half(0)) << 64) | u128::from(half(1))
    }

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

    /// Shifts every lap down by the largest multiple of the period that keeps `base` at
    /// `floor` or above (past the head and the laps whose predecessors reach into it); returns
    /// it. An access last run more than a period below that is [`LONG_AGO`].
    fn normalize(&mut self, period: u32, floor: i64) -> i64 {
        let p = i64::from(period);
        let shift = (self.base - floor).div_euclid(p) * p;
        if shift <= 0 {
            return 0;
        }
        self.base -= shift;
        self.shifted = true;
        self.exit = self.exit.map(|n| n - shift);
        self.know = std::mem::take(&mut self.know)
            .into_iter()
            .map(|((l, r), k)| ((l - shift, r), k))
            .collect();
        // An access last run below the window (a prologue's) is only ever compared with what
        // runs in it: how far below no longer matters.
        for l in self.latest.values_mut() {
            if *l != LONG_AGO {
                *l -= shift;
                if *l < self.base - floor - p {
                    *l = LONG_AGO;
                }
            }
        }
        shift
    }

    /// What happens before `(l, r)` through its predecessors.
    fn inherited(&self, looped: &Looped<'_>, l: i64, r: EventId) -> EventSet {
        let mut set = EventSet::new(looped.ids);
        for &(back, q) in looped.after_of(self, l, r) {
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
                        && looped.step_of(c).is_some_and(|x| x.lane == step.lane);
                    if !set.contains(c) && !same_timeline {
                        found.push(Found::Race {
                            a: c,
                            la: lc,
                            b: r,
                            lb: l,
                        });
                    }
                }
                if !looped.conflicts.contains_key(&r) {
                    // An access nothing conflicts with: no one needs to know it.
                    self.finish(looped, l, r, set);
                    return found;
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
                let mut set = EventSet::new(looped.ids);
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
        let count = looped.counts.get(barrier.0).map_or(1, |&c| i64::from(c));
        let Some(b) = self.barriers.get_mut(barrier.0) else {
            return false;
        };
        b.open.union_with(set);
        let (past, completes) = settle(&mut b.pending, &mut b.tx, count, arrivals, bytes);
        if completes {
            b.parity ^= 1;
            let open = std::mem::replace(&mut b.open, EventSet::new(looped.ids));
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
                self.done.resize(k + 1, EventSet::new(looped.ids));
            }
            if let Some(d) = self.done.get_mut(k) {
                d.insert(r);
            }
        }
        if !step.successors.is_empty() {
            self.know.insert((l, r), set);
        }
        for &(back, q) in looped.after_of(self, l, r) {
            let at = l - back;
            // (a successor that is no op of its lap here — the epilogue's while the loop runs,
            // the loop's past the trip count — is none)
            let all_ran = looped.step_of(q).is_some_and(|x| {
                x.successors.iter().all(|&(on, s)| {
                    self.ran(at + on, s) || !looped.reps_at(self, at + on).contains(&s)
                })
            });
            if all_ran {
                self.know.remove(&(at, q));
            }
        }
        // Laps all run leave the window.
        while let Some(first) = self.done.first() {
            let full = looped
                .reps_at(self, self.base)
                .iter()
                .all(|&x| first.contains(x));
            if !full {
                break;
            }
            self.done.remove(0);
            self.base += 1;
        }
    }
}
