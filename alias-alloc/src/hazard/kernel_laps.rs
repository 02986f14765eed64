//! [`kernel_laps`]: the lap of every event of a kernel read into a trace, for [`super::Looped`]
//! — which iteration of the kernel's loop it belongs to, its partition's prologue before it or
//! epilogue after it.

use super::error::HazardError;
use super::looped::{waits_for_epilogue, Run};
use super::read::KernelTrace;
use super::sweep::gcd;
use super::trace::{EventId, TimelineKind, Trace};

/// A kernel's trace cut into laps.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelLaps {
    /// Per event, its lap: the prologues in lap 0, iteration *i* of a partition's loop in lap
    /// *i* + (the longest loop's trip count − this one's), the last lap of the loops and the
    /// epilogues in lap `trip_count`.
    pub laps: Vec<u32>,
    /// The laps of the loop read as [`super::Looped`] reads it: the longest loop's trip count
    /// less its last lap, which goes with the epilogue.
    pub trip_count: u32,
    /// The laps up to the first every partition runs its loop in, that one included (the head
    /// of [`super::Looped::runs`]).
    pub head: u32,
    /// Whether a partition's loop holds a loop (a tile loop around a K loop): a lap is then
    /// one iteration of the outer loop, every iteration of the inner ones in it.
    pub nested: bool,
}

impl KernelLaps {
    /// The cut as a run of [`super::Looped::runs`], on `trace` (the one it was cut from).
    pub fn run<'a>(&'a self, trace: &'a Trace) -> Run<'a> {
        Run {
            trace,
            laps: &self.laps,
            trip_count: self.trip_count,
        }
    }
}

/// Cuts `kt` into laps: a loop's iteration is in the lap its induction variable gives — its
/// value less the least any loop starts at, over the greatest common divisor of the loops'
/// steps — so loops of one bound line up whatever their starts and steps (a software-pipelined
/// loop that does the first lap's work in its prologue starts a lap late; two partitions that
/// take turns step twice as far, one a lap later). Every partition runs at most one loop (none
/// after it): what comes before it is its prologue (lap 0), what comes after its epilogue. A
/// loop in it (a persistent kernel's K loop in its tile loop) is part of the lap of the outer
/// iteration it runs in: a lap is then a tile ([`KernelLaps::nested`]). A partition without a
/// loop runs in lap 0 up to its first wait on a barrier that only the epilogues arrive on (one
/// that waits for the loop's result), in the epilogue from there. A TMA copy or an MMA is in the lap of the op that issues it. A pipelined loop's
/// first and last laps often differ from the others (an MMA's barrier predicated on the lap):
/// the laps up to the last partition's first loop lap go with the head, the last with the
/// epilogue. Refuses ([`HazardError::Unsupported`]) a partition with two loops, a loop off the
/// others' lap grid, a kernel without a loop.
///
/// ```
/// use alias_alloc::hazard::{kernel_laps, read_kernel, ReadOptions};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// let kt = read_kernel(&text, &ReadOptions::default())?; // N_CTX = 512: 4 laps
/// let cut = kernel_laps(&kt)?;
/// // Two partitions loop 3 times after a prologue: lap 0 is the prologues, lap 1 the first
/// // lap they all loop in; laps 2 … 3 the loop, lap 3 with the epilogues.
/// assert_eq!((cut.trip_count, cut.head), (3, 2));
/// assert_eq!(cut.run(&kt.trace).trip_count, 3); // what `Looped::runs` takes
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn kernel_laps(kt: &KernelTrace) -> Result<KernelLaps, HazardError> {
    let trace = &kt.trace;
    let refuse = |e: usize, reason: &str| kt.refuse(e, reason);
    let induction = |e: usize| kt.induction(e);
    // Per partition: its events in program order, and where its loop's first and last lie.
    let mut programs: Vec<Vec<usize>> = vec![Vec::new(); trace.timelines.len()];
    for (e, event) in trace.events.iter().enumerate() {
        if let Some(p) = programs.get_mut(event.timeline.0) {
            p.push(e);
        }
    }
    let mut loops: Vec<Option<(usize, usize)>> = vec![None; trace.timelines.len()];
    let (mut unit, mut start) = (0i64, i64::MAX);
    let mut nested = false;
    for (t, timeline) in trace.timelines.iter().enumerate() {
        if timeline.kind != TimelineKind::Partition {
            continue;
        }
        let events = programs.get(t).map_or(&[][..], Vec::as_slice);
        let mut span: Option<(usize, usize)> = None;
        let mut prev: Option<(i64, i64)> = None;
        for (k, &e) in events.iter().enumerate() {
            match induction(e) {
                [] => {}
                [(v, step), inner @ ..] => {
                    nested |= !inner.is_empty();
                    let next_in_line =
                        prev.is_none_or(|(p, s)| s == *step && (*v == p || *v == p + s));
                    if span.is_some_and(|(_, l)| l + 1 != k) || !next_in_line {
                        return Err(refuse(e, "a partition with two loops, or a loop with a gap: one loop a partition is what the laps model"));
                    }
                    prev = Some((*v, *step));
                    span = Some((span.map_or(k, |s| s.0), k));
                    unit = gcd(unit, *step);
                    start = start.min(*v);
                }
            }
        }
        if let Some(slot) = loops.get_mut(t) {
            *slot = span;
        }
    }
    if unit == 0 {
        return Err(HazardError::Unsupported {
            op: "scf.for".to_string(),
            line: 0,
            reason: "no partition loops: there are no laps to cut".to_string(),
        });
    }
    let lap_of = |e: usize, v: i64| -> Result<u32, HazardError> {
        let past = v.checked_sub(start).unwrap_or(-1);
        if past.rem_euclid(unit) != 0 {
            return Err(refuse(e, "a loop off the others' lap grid (its start is no multiple of their steps past theirs)"));
        }
        u32::try_from(past / unit).map_err(|_| refuse(e, "a lap past u32"))
    };
    let mut full = 0u32;
    let mut head = 0u32;
    for (t, span) in loops.iter().enumerate() {
        let Some((first, last)) = *span else { continue };
        let events = programs.get(t).map_or(&[][..], Vec::as_slice);
        for k in [first, last] {
            let e = events.get(k).copied().unwrap_or(0);
            let v = induction(e).first().map_or(start, |x| x.0);
            let lap = lap_of(e, v)?;
            full = full.max(lap.saturating_add(1));
            if k == first {
                head = head.max(lap.saturating_add(1));
            }
        }
    }
    let last = full.saturating_sub(1);
    // A loop-less partition's events from `split` on run in the epilogue.
    let cut = |split: &[Option<usize>]| -> Result<Vec<u32>, HazardError> {
        let mut laps = vec![0u32; trace.events.len()];
        let mut seen = vec![0usize; trace.timelines.len()];
        for (e, event) in trace.events.iter().enumerate() {
            let t = event.timeline.0;
            let k = seen.get(t).copied().unwrap_or(0);
            if let Some(slot) = seen.get_mut(t) {
                *slot += 1;
            }
            let is_partition =
                trace.timelines.get(t).map(|x| x.kind) == Some(TimelineKind::Partition);
            let lap = match (induction(e), loops.get(t).copied().flatten()) {
                ([(v, _), ..], _) => lap_of(e, *v)?,
                (_, Some((first, _))) if k < first => 0,
                (_, Some(_)) => last,
                _ if is_partition => match split.get(t).copied().flatten() {
                    Some(s) if k >= s => last,
                    _ => 0,
                },
                // A copy or an MMA outside the loop: after what issued it.
                _ => event
                    .after
                    .iter()
                    .filter_map(|p| laps.get(p.0).copied())
                    .max()
                    .unwrap_or(0),
            };
            if let Some(slot) = laps.get_mut(e) {
                *slot = lap.min(last);
            }
        }
        Ok(laps)
    };
    // Where a loop-less partition waits for the loop's result: its first wait, blocked at the
    // start, on a barrier arrived on in the epilogues alone — found again until nothing moves,
    // since a partition that waits on another loop-less one's epilogue arrivals learns of
    // them only once that one is split.
    let mut split = vec![None; trace.timelines.len()];
    let mut laps = cut(&split)?;
    for _ in 0..trace.timelines.len() {
        let mut next = split.clone();
        for (t, span) in loops.iter().enumerate() {
            let is_partition =
                trace.timelines.get(t).map(|x| x.kind) == Some(TimelineKind::Partition);
            if span.is_some() || !is_partition {
                continue;
            }
            let events = programs.get(t).map_or(&[][..], Vec::as_slice);
            if let Some(slot) = next.get_mut(t) {
                *slot = events
                    .iter()
                    .position(|&e| waits_for_epilogue(trace, &laps, last, EventId(e)));
            }
        }
        if next == split {
            break;
        }
        split = next;
        laps = cut(&split)?;
    }
    Ok(KernelLaps {
        laps,
        trip_count: last,
        head,
        nested,
    })
}
