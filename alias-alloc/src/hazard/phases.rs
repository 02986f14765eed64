//! [`phases`]: a kernel whose partitions run loops one after another, cut at its **joins** —
//! the barriers every partition waits on between its loops — into one kernel trace per phase,
//! each proved at every trip count on its own ([`super::PhasedProof`]).
//!
//! **Why the cut is sound** (`docs/hazard-check.md`, *Loops in sequence*). A join is a barrier
//! that every partition waits on once, outside its loops; a partition's events up to its wait
//! on the *s*-th join are phase *s* (the wait included), an engine's op is in the phase of what
//! issued it. The cut is refused unless no barrier and no named-barrier group is used in two
//! phases. Then
//! - an execution of the kernel, taken on the events of one phase, is an execution of that
//!   phase alone: what may run depends on the op before it on its timeline, its barrier's state
//!   and its named-barrier partners, all of that phase (a phase's first ops are only more free
//!   alone, without the join before them), so every race, hang and arrival past a phase within
//!   a phase is one of the phase alone;
//! - an access of a later phase runs after its partition's wait on the join (program order,
//!   issue), so after the join's phase completes and after what that partition ran before;
//!   the phase's proof shows that every access of the phase that overlaps a later one happens
//!   before it: in each phase but the last, every partition touches after its wait on the join
//!   what it (and the copies and MMAs it issues) touches in the later phases — one read and
//!   one write a memory, the union of their cells, tagged with the partition so that two
//!   partitions' appended accesses do not meet (they meet in their own phase). An access of
//!   the phase not ordered before it races with it.
//!
//! The join's own protocol (its arrivals make one phase, every wait on it passes) is the
//! phase's, checked with it.

use std::collections::BTreeMap;

use super::error::HazardError;
use super::read::{KernelTrace, Origin};
use super::trace::{
    BarrierId, Cells, Event, EventId, EventKind, Space, TimelineId, TimelineKind, Trace,
};

/// A kernel cut at its joins.
#[derive(Debug, Clone)]
pub struct Phases {
    /// The joins in order, by barrier name (`mp_join_0[0]`).
    pub joins: Vec<String>,
    /// Per phase, the kernel's events in it as a kernel of their own; in every phase but the
    /// last, each partition touches after its wait on the join what it touches later.
    pub phases: Vec<KernelTrace>,
}

/// Cuts `kt` at its joins when a partition runs two loops or more one after another; `None`
/// when none does (one loop a partition: [`super::kernel_laps`] reads it whole). Refuses
/// ([`HazardError::Unsupported`]) loops in sequence with no barrier every partition waits on
/// between them, joins waited on in another order by another partition, a barrier or a
/// named-barrier group used in two phases.
///
/// ```
/// use alias_alloc::hazard::{phases, read_kernel, ReadOptions};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/triple_gemm_multiphase/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// let kt = read_kernel(&text, &ReadOptions::default())?;
/// let none = || alias_alloc::hazard::HazardError::Module { message: "one loop a partition".into() };
/// let cut = phases(&kt)?.ok_or_else(none)?; // three GEMMs one after another
/// assert_eq!(cut.joins, ["mp_join_0[0]", "mp_join_1[0]"]);
/// assert_eq!(cut.phases.len(), 3);
/// // The first phase's last event: a partition touching, after its wait on the first join,
/// // what it touches in the later phases.
/// let last = cut.phases[0].trace.events.last().map(|e| e.label.as_str());
/// assert_eq!(last, Some("what partition2 writes after mp_join_0[0]"));
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn phases(kt: &KernelTrace) -> Result<Option<Phases>, HazardError> {
    let trace = &kt.trace;
    let partitions: Vec<usize> = (0..trace.timelines.len())
        .filter(|&t| is_partition(trace, t))
        .collect();
    let mut programs: Vec<Vec<usize>> = vec![Vec::new(); trace.timelines.len()];
    for (e, event) in trace.events.iter().enumerate() {
        if let Some(p) = programs.get_mut(event.timeline.0) {
            p.push(e);
        }
    }
    let outer = |e: usize| -> Option<i64> {
        kt.origins
            .get(e)
            .and_then(|o| o.induction.first())
            .map(|x| x.0)
    };
    let loops_of = |t: usize| -> usize {
        let mut loops = 0;
        let mut prev: Option<i64> = None;
        for &e in programs.get(t).map_or(&[][..], Vec::as_slice) {
            let v = outer(e);
            if let Some(v) = v {
                if prev.is_none_or(|p| v < p) {
                    loops += 1;
                }
            }
            prev = v;
        }
        loops
    };
    if partitions.iter().all(|&t| loops_of(t) < 2) {
        return Ok(None);
    }
    let wait_on = |e: usize| match trace.events.get(e).map(|x| &x.kind) {
        Some(EventKind::Wait { barrier, .. }) if outer(e).is_none() => Some(*barrier),
        _ => None,
    };
    // The joins: barriers every partition waits on exactly once outside its loops, in the
    // order the first partition waits on them.
    let first = partitions.first().copied().unwrap_or(0);
    let waits_in = |t: usize, b: BarrierId| -> usize {
        programs
            .get(t)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter(|&&e| wait_on(e) == Some(b))
            .count()
    };
    let joins: Vec<BarrierId> = programs
        .get(first)
        .map_or(&[][..], Vec::as_slice)
        .iter()
        .filter_map(|&e| wait_on(e))
        .filter(|&b| partitions.iter().all(|&t| waits_in(t, b) == 1))
        .collect();
    let refuse = |e: usize, reason: String| refusal(kt, e, reason);
    if joins.is_empty() {
        return Err(refuse(
            usize::MAX,
            "loops one after another in a partition, and no barrier every partition waits on between them (a join): the phases cannot be told apart".to_string(),
        ));
    }
    let name = |b: BarrierId| trace.barrier_name(b).to_string();
    // Each event's phase: a partition's, the joins waited on before it; an engine's, its
    // issuer's (the latest phase among what it comes after).
    let mut phase = vec![0usize; trace.events.len()];
    for &t in &partitions {
        let mut s = 0usize;
        for &e in programs.get(t).map_or(&[][..], Vec::as_slice) {
            if let Some(slot) = phase.get_mut(e) {
                *slot = s;
            }
            if let Some(b) = wait_on(e) {
                if let Some(k) = joins.iter().position(|&j| j == b) {
                    if k != s {
                        return Err(refuse(
                            e,
                            format!(
                                "this partition waits on the join {} as its join {}, the first partition as its join {}: the joins are taken in one order by every partition",
                                name(b),
                                s + 1,
                                k + 1
                            ),
                        ));
                    }
                    s += 1;
                }
            }
        }
    }
    for (e, event) in trace.events.iter().enumerate() {
        if !is_partition(trace, event.timeline.0) {
            let s = event
                .after
                .iter()
                .filter_map(|p| phase.get(p.0).copied())
                .max()
                .unwrap_or(0);
            if let Some(slot) = phase.get_mut(e) {
                *slot = s;
            }
        }
    }
    one_phase_each(kt, &phase, &joins)?;
    let count = joins.len() + 1;
    let mut out = Vec::with_capacity(count);
    for s in 0..count {
        let join = joins.get(s).map(|&j| name(j));
        out.push(cut(kt, &phase, s, &partitions, join, &programs)?);
    }
    Ok(Some(Phases {
        joins: joins.iter().map(|&j| name(j)).collect(),
        phases: out,
    }))
}

/// Refuses a barrier or a named-barrier group that `phase` (per event) puts in two phases.
fn one_phase_each(
    kt: &KernelTrace,
    phase: &[usize],
    joins: &[BarrierId],
) -> Result<(), HazardError> {
    let trace = &kt.trace;
    let name = |b: BarrierId| trace.barrier_name(b).to_string();
    let refuse = |e: usize, reason: String| refusal(kt, e, reason);
    let mut used: BTreeMap<usize, (usize, usize)> = BTreeMap::new();
    for (e, event) in trace.events.iter().enumerate() {
        let b = match &event.kind {
            EventKind::Arrive { barrier, .. }
            | EventKind::CompleteTx { barrier, .. }
            | EventKind::Wait { barrier, .. } => *barrier,
            _ => continue,
        };
        let s = phase.get(e).copied().unwrap_or(0);
        let (e0, s0) = *used.entry(b.0).or_insert((e, s));
        if s0 != s {
            return Err(refuse(
                e,
                format!(
                    "the barrier {} is used in phase {} (line {}) and in phase {}: phases cut at the joins {} share no barrier",
                    name(b),
                    s0 + 1,
                    kt.origins.get(e0).map_or(0, |o| o.line),
                    s + 1,
                    joins.iter().map(|&j| name(j)).collect::<Vec<_>>().join(", ")
                ),
            ));
        }
    }
    for g in &trace.syncs {
        let mut ph = g
            .members
            .iter()
            .map(|m| phase.get(m.0).copied().unwrap_or(0));
        let p0 = ph.next();
        if ph.any(|p| Some(p) != p0) {
            return Err(refuse(
                g.members.first().map_or(usize::MAX, |m| m.0),
                format!("the named barrier {} joins ops of two phases", g.id),
            ));
        }
    }
    Ok(())
}

/// A refusal naming event `e`'s op and line (or the loops, for no event).
fn refusal(kt: &KernelTrace, e: usize, reason: String) -> HazardError {
    let o = kt.origins.get(e);
    HazardError::Unsupported {
        op: o.map_or_else(|| "scf.for".to_string(), |o| o.op.clone()),
        line: o.map_or(0, |o| o.line),
        reason,
    }
}

/// Whether timeline `t` is a partition.
fn is_partition(trace: &Trace, t: usize) -> bool {
    trace.timelines.get(t).map(|x| x.kind) == Some(TimelineKind::Partition)
}

/// Phase `s` of `kt` as a kernel trace: its events on every partition and on the engines that
/// have some, and (before the last join) what each partition touches after it.
fn cut(
    kt: &KernelTrace,
    phase: &[usize],
    s: usize,
    partitions: &[usize],
    join: Option<String>,
    programs: &[Vec<usize>],
) -> Result<KernelTrace, HazardError> {
    let trace = &kt.trace;
    let inside = |e: usize| phase.get(e) == Some(&s);
    // Timelines: every partition, the engines with an event in the phase.
    let mut timeline_id: Vec<Option<usize>> = vec![None; trace.timelines.len()];
    let mut timelines = Vec::new();
    for (t, tl) in trace.timelines.iter().enumerate() {
        let keep = partitions.contains(&t)
            || programs
                .get(t)
                .is_some_and(|p| p.iter().any(|&e| inside(e)));
        if keep {
            if let Some(slot) = timeline_id.get_mut(t) {
                *slot = Some(timelines.len());
            }
            timelines.push(tl.clone());
        }
    }
    let remap_timeline = |t: TimelineId| -> Result<TimelineId, HazardError> {
        timeline_id
            .get(t.0)
            .copied()
            .flatten()
            .map(TimelineId)
            .ok_or(HazardError::NoSuchTimeline { timeline: t.0 })
    };
    for tl in &mut timelines {
        tl.kind = match tl.kind {
            TimelineKind::Partition => TimelineKind::Partition,
            TimelineKind::TensorCore { issuer } => TimelineKind::TensorCore {
                issuer: remap_timeline(issuer)?,
            },
            TimelineKind::Tma { issuer } => TimelineKind::Tma {
                issuer: remap_timeline(issuer)?,
            },
        };
    }
    let mut event_id: Vec<Option<usize>> = vec![None; trace.events.len()];
    let mut events: Vec<Event> = Vec::new();
    let mut origins: Vec<Origin> = Vec::new();
    for (e, event) in trace.events.iter().enumerate() {
        if !inside(e) {
            continue;
        }
        let remap = |p: &EventId| event_id.get(p.0).copied().flatten().map(EventId);
        let kind = match &event.kind {
            EventKind::CompleteTx {
                barrier,
                bytes,
                expect,
            } => EventKind::CompleteTx {
                barrier: *barrier,
                bytes: *bytes,
                expect: expect.as_ref().and_then(remap),
            },
            k => k.clone(),
        };
        let after = event.after.iter().filter_map(remap).collect();
        if let Some(slot) = event_id.get_mut(e) {
            *slot = Some(events.len());
        }
        events.push(Event {
            timeline: remap_timeline(event.timeline)?,
            kind,
            label: event.label.clone(),
            after,
        });
        origins.push(kt.origins.get(e).cloned().unwrap_or_else(|| Origin {
            op: event.label.clone(),
            line: 0,
            location: None,
            buffer: None,
            iteration: Vec::new(),
            induction: Vec::new(),
        }));
    }
    let mut syncs = Vec::new();
    for g in &trace.syncs {
        let members: Vec<EventId> = g
            .members
            .iter()
            .filter_map(|m| event_id.get(m.0).copied().flatten().map(EventId))
            .collect();
        if members.is_empty() {
            continue;
        }
        let group = syncs.len();
        for m in &members {
            if let Some(Event {
                kind: EventKind::Sync { group: slot },
                ..
            }) = events.get_mut(m.0)
            {
                *slot = group;
            }
        }
        let mut g = g.clone();
        g.members = members;
        syncs.push(g);
    }
    if let Some(name) = &join {
        after_join(kt, phase, s, name, &timeline_id, &mut events, &mut origins)?;
    }
    let trace = Trace {
        timelines,
        barriers: trace.barriers.clone(),
        events,
        syncs,
    };
    trace.validate()?;
    Ok(KernelTrace {
        trace,
        origins,
        params: kt.params.clone(),
        seq_stride: kt.seq_stride,
        tile: kt.tile,
        clc_tiles: kt.clc_tiles,
    })
}

/// Where the cells a partition's later ops touch are tagged: past every cell a kernel has.
const TAG: u64 = 1 << 44;

/// What the phases after `s` touch, appended to each partition after its wait on the join
/// `name`: per partition, one read and one write a memory of the cells its later ops (and
/// the copies and MMAs it issues) touch. Those cells are tagged with the partition — shifted
/// by a multiple of [`TAG`], and every access of the phase touches its cells under every tag
/// too — so an appended access conflicts with the phase's accesses as the later ones would
/// and with no other partition's appended one (those meet in their own phase).
fn after_join(
    kt: &KernelTrace,
    phase: &[usize],
    s: usize,
    name: &str,
    timeline_id: &[Option<usize>],
    events: &mut Vec<Event>,
    origins: &mut Vec<Origin>,
) -> Result<(), HazardError> {
    let trace = &kt.trace;
    let issuer = |t: TimelineId| match trace.timelines.get(t.0).map(|x| x.kind) {
        Some(TimelineKind::TensorCore { issuer } | TimelineKind::Tma { issuer }) => issuer,
        _ => t,
    };
    // Per issuing partition (its new id) and (memory, write): the later cells.
    let mut later: BTreeMap<usize, BTreeMap<(Space, bool), Cells>> = BTreeMap::new();
    for (e, event) in trace.events.iter().enumerate() {
        if phase.get(e).is_none_or(|&p| p <= s) {
            continue;
        }
        let EventKind::Access { cells, write } = &event.kind else {
            continue;
        };
        let Some(t) = timeline_id.get(issuer(event.timeline).0).copied().flatten() else {
            continue;
        };
        later
            .entry(t)
            .or_default()
            .entry((cells.space(), *write))
            .and_modify(|c| *c = c.union(cells))
            .or_insert_with(|| cells.clone());
    }
    let too_far = events.iter().any(|e| match &e.kind {
        EventKind::Access { cells, .. } => cells.ranges().iter().any(|r| r.1 > TAG),
        _ => false,
    });
    if too_far {
        return Err(HazardError::Unsupported {
            op: "ttg.local_alloc".to_string(),
            line: 0,
            reason: format!("a cell past {TAG}: no room to tag what each partition touches after the join {name}"),
        });
    }
    let tags: Vec<u64> = (1..=later.len() as u64).map(|k| k * TAG).collect();
    for e in events.iter_mut() {
        if let EventKind::Access { cells, .. } = &mut e.kind {
            let tagged = tags
                .iter()
                .fold(cells.clone(), |c, &tag| c.union(&cells.offset(tag)));
            *cells = tagged;
        }
    }
    // Each partition's wait on the join (its last event of the phase) and its line.
    for ((t, touched), tag) in later.into_iter().zip(tags) {
        let Some(last) = events
            .iter()
            .rposition(|e| e.timeline == TimelineId(t))
            .map(EventId)
        else {
            continue;
        };
        let line = origins.get(last.0).map_or(0, |o| o.line);
        let who = timeline_id
            .iter()
            .position(|&n| n == Some(t))
            .map_or("?", |old| trace.timeline_name(TimelineId(old)));
        let mut prev = last;
        for ((_, write), cells) in touched {
            let what = if write { "writes" } else { "reads" };
            let label = format!("what {who} {what} after {name}");
            let id = EventId(events.len());
            events.push(Event {
                timeline: TimelineId(t),
                kind: EventKind::Access {
                    cells: cells.offset(tag),
                    write,
                },
                label: label.clone(),
                after: vec![prev],
            });
            origins.push(Origin {
                op: label,
                line,
                location: None,
                buffer: None,
                iteration: Vec::new(),
                induction: Vec::new(),
            });
            prev = id;
        }
    }
    Ok(())
}
