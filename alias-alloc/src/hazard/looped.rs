//! [`Looped`]: a loop read as the loop run forever — its laps modulo their period, its head,
//! its epilogue per residue of the trip count — from traces unrolled at a few trip counts, each
//! checked against the model lap by lap (`docs/hazard-check.md`, *Every trip count*). What
//! every trip count of it does is [`Looped::explore`]'s (`every_trip_count.rs`).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::error::HazardError;
use super::machine::passes;
use super::trace::{EventId, EventKind, TimelineId, Trace};

/// One op of a lap, by its representative.
#[derive(Debug, Clone)]
pub(super) struct Step {
    pub(super) kind: EventKind,
    pub(super) lane: Lane,
    /// The timeline lives one lap (a TMA copy's).
    pub(super) per_lap: bool,
    /// `(laps back, representative)`.
    pub(super) after: Vec<(i64, EventId)>,
    /// `(laps on, representative)`.
    pub(super) successors: Vec<(i64, EventId)>,
    /// A named barrier's members (same lap) and the threads it needs.
    pub(super) group: Option<(Vec<EventId>, u32)>,
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
pub struct Looped {
    /// The ops of every run, numbered compactly: the loop's representatives, the head's, the
    /// epilogues'.
    pub(super) ids: usize,
    /// Per op, the run and the event it was read from.
    pub(super) origin: Vec<(usize, EventId)>,
    /// Per barrier, its count.
    pub(super) counts: Vec<u32>,
    pub(super) period: u32,
    /// Laps `0 … head − 1` are the head: taken as they are, the same in every run.
    pub(super) head: i64,
    /// Per head lap, its ops.
    pub(super) heads: Vec<Vec<EventId>>,
    /// Per residue: the representatives of a lap, in trace order.
    pub(super) laps: Vec<Vec<EventId>>,
    /// Per residue of the trip count: the epilogue (none at all: a loop with nothing after).
    pub(super) epilogues: Vec<Vec<EventId>>,
    /// Per op (its compact id), its step.
    pub(super) steps: Vec<Option<Step>>,
    /// The predecessors of a loop op in a lap whose predecessors reach into the head.
    pub(super) early: BTreeMap<(i64, EventId), Vec<(i64, EventId)>>,
    /// Per access, the classes of the accesses it conflicts with (of a class, every op
    /// conflicts with the same).
    pub(super) conflicts: BTreeMap<EventId, Vec<EventId>>,
    /// Per op, its class: the least op of the same lane touching the same cells the same way
    /// (a write or a read), on a timeline that lives longer than a lap — any other op is its
    /// own. Of a class, the instance run last is the latest in program order of its lane.
    pub(super) class: Vec<EventId>,
    /// Whether an op of the loop's laps or of an epilogue has no predecessor (it knows only
    /// what its barrier hands it): then no instance is known to every op to come.
    pub(super) rootless: bool,
    pub(super) max_back: i64,
    /// Every epilogue op comes after an op at most `reach` laps back (1: of the last lap), or
    /// waits for the epilogue: before the first epilogue op runs, a lap at most `reach` laps
    /// before it has begun.
    pub(super) reach: i64,
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
pub(super) enum Lane {
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

    /// [`waits_for_epilogue`] in this run.
    fn waits_for_epilogue(&self, e: EventId) -> bool {
        waits_for_epilogue(self.run.trace, self.run.laps, self.run.trip_count, e)
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

/// Per op of `ids`, its class ([`Looped::class`]).
fn classes(ids: usize, steps: &BTreeMap<EventId, Step>) -> Vec<EventId> {
    let mut first: HashMap<(Lane, &super::trace::Cells, bool), EventId> = HashMap::new();
    (0..ids)
        .map(|i| match steps.get(&EventId(i)) {
            Some(Step {
                kind: EventKind::Access { cells, write },
                lane,
                per_lap: false,
                ..
            }) => *first.entry((*lane, cells, *write)).or_insert(EventId(i)),
            _ => EventId(i),
        })
        .collect()
}

/// Whether event `e` of `trace` cut into `laps` is a wait that nothing before the epilogue
/// (lap `trip_count`) lets pass: blocked at the start, on a barrier that no op outside the
/// epilogue arrives on or completes tx on.
pub(super) fn waits_for_epilogue(trace: &Trace, laps: &[u32], trip_count: u32, e: EventId) -> bool {
    match trace.events.get(e.0).map(|x| &x.kind) {
        Some(EventKind::Wait { barrier, parity }) => {
            !passes(0, *parity)
                && trace.events.iter().zip(laps).all(|(x, &l)| {
                    let on = match &x.kind {
                        EventKind::Arrive { barrier: b, .. }
                        | EventKind::CompleteTx { barrier: b, .. } => b == barrier,
                        _ => false,
                    };
                    !on || l == trip_count
                })
        }
        _ => false,
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

impl Looped {
    /// Reads `trace` as a loop with nothing before or after it: `lap[e]` is event `e`'s lap
    /// ([`Looped::runs`] with one run of the trip count the laps give, no head).
    pub fn new(trace: &Trace, lap: &[u32], period: u32) -> Result<Self, HazardError> {
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
    /// predecessors reach into it. Every epilogue op comes after an op of the last period's
    /// laps or of the epilogue, or is a wait blocked at the start on a barrier only the
    /// epilogue arrives on. Refuses what does not repeat ([`HazardError::NotPeriodic`]) or
    /// does not fit ([`HazardError::Laps`]).
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
    pub fn runs(runs: &[Run<'_>], period: u32, head: u32) -> Result<Self, HazardError> {
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
        for r in 0..p {
            let l = t0 + r;
            for &e in first.by_lap.get(l as usize).into_iter().flatten() {
                let id = numbering.add(0, e);
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
        let mut reach = 1;
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
            let mut timeline_of: HashMap<Lane, TimelineId> = HashMap::new();
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
                    // One timeline of this run to one of the model's, both ways.
                    lane == step.lane
                        && *timeline_of.entry(step.lane).or_insert(event.timeline) == event.timeline
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
                if after.iter().any(|&(back, _)| trip - back < k) {
                    return Err(layout.not_periodic(
                        e,
                        period,
                        "an epilogue op after an op of the head (a partition without a loop that waits before the loop's end and after it): how far back changes with the trip count",
                    ));
                }
                if !layout.waits_for_epilogue(e) {
                    match after.iter().map(|a| a.0).min() {
                        Some(b) if b <= p => reach = reach.max(b),
                        _ => {
                            return Err(layout.not_periodic(
                                e,
                                period,
                                "an epilogue op after nothing of the last period's laps could run before the loop ends",
                            ))
                        }
                    }
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
        let ids = numbering.origin.len();
        let class = classes(ids, &steps);
        for v in conflicts.values_mut() {
            for c in v.iter_mut() {
                *c = class.get(c.0).copied().unwrap_or(*c);
            }
            v.sort_unstable();
            v.dedup();
        }
        let mut looped = Self {
            ids,
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
            steps: (0..ids).map(|i| steps.remove(&EventId(i))).collect(),
            early,
            conflicts,
            class,
            rootless: false,
            max_back,
            reach,
        };
        looped.rootless = looped
            .laps
            .iter()
            .chain(&looped.epilogues)
            .flatten()
            .any(|&r| looped.step(r).is_some_and(|x| x.after.is_empty()));
        Ok(looped)
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

    /// Op `r`'s class ([`Looped::class`]).
    pub(super) fn class_of(&self, r: EventId) -> EventId {
        self.class.get(r.0).copied().unwrap_or(r)
    }

    /// Where op `id` (as [`super::EveryTripCount`] names it) was read from: the index of its run and
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
}
