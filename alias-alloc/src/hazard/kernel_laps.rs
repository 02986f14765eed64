//! [`kernel_laps`]: the lap of every event of a kernel read into a trace, for [`super::Looped`]
//! — which iteration of the kernel's loop it belongs to, its partition's prologue before it or
//! epilogue after it.

use super::error::HazardError;
use super::looped::Run;
use super::read::KernelTrace;
use super::trace::{TimelineId, TimelineKind, Trace};

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

/// Cuts `kt` into laps: every partition runs one loop (no loop nested in it, none after it),
/// what comes before it is its prologue, what comes after its epilogue; a partition whose loop
/// runs fewer laps than the longest — a software-pipelined one that does the first lap's work
/// in its prologue — ends with it, so every loop ends in the same lap. A TMA copy or an MMA is
/// in the lap of the op that issues it. A pipelined loop's first and last laps often differ
/// from the others (an MMA's barrier predicated on the lap): the first lap every partition
/// loops in goes with the head, the last with the epilogue. Refuses
/// ([`HazardError::Unsupported`]) a partition without a loop, with two, or with a loop in a
/// loop.
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
    let refuse = |e: usize, reason: &str| {
        let o = kt.origins.get(e);
        HazardError::Unsupported {
            op: o.map_or_else(String::new, |o| o.op.clone()),
            line: o.map_or(0, |o| o.line),
            reason: reason.to_string(),
        }
    };
    // Per partition: its loop's trip count, and where its first loop op lies in its program order.
    let mut loops: Vec<Option<(u32, usize)>> = vec![None; trace.timelines.len()];
    for (t, timeline) in trace.timelines.iter().enumerate() {
        if timeline.kind != TimelineKind::Partition {
            continue;
        }
        let events: Vec<usize> = (0..trace.events.len())
            .filter(|&e| {
                trace
                    .events
                    .get(e)
                    .is_some_and(|x| x.timeline == TimelineId(t))
            })
            .collect();
        let mut first = None;
        let mut last = None;
        let mut next = 0i64;
        for (k, &e) in events.iter().enumerate() {
            let iteration = kt
                .origins
                .get(e)
                .map_or(&[][..], |o| o.iteration.as_slice());
            match iteration {
                [] => {}
                [i] => {
                    if last.is_some_and(|l: usize| l + 1 != k) || (*i != next && *i != next - 1) {
                        return Err(refuse(e, "a partition with two loops, or a loop with a gap: one loop a partition is what the laps model"));
                    }
                    next = *i + 1;
                    first.get_or_insert(k);
                    last = Some(k);
                }
                _ => {
                    return Err(refuse(
                        e,
                        "a loop in a loop: one loop a partition is what the laps model",
                    ))
                }
            }
        }
        let (Some(first), Some(_)) = (first, last) else {
            return Err(refuse(
                events.first().copied().unwrap_or(0),
                "a partition without a loop: one loop a partition is what the laps model",
            ));
        };
        let trip = u32::try_from(next).map_err(|_| refuse(first, "a negative iteration"))?;
        if let Some(slot) = loops.get_mut(t) {
            *slot = Some((trip, first));
        }
    }
    let trip_count = loops.iter().flatten().map(|l| l.0).max().unwrap_or(0);
    let shift = |t: TimelineId| -> u32 {
        let issuer = match trace.timelines.get(t.0).map(|x| x.kind) {
            Some(TimelineKind::Tma { issuer } | TimelineKind::TensorCore { issuer }) => issuer,
            _ => t,
        };
        loops
            .get(issuer.0)
            .copied()
            .flatten()
            .map_or(0, |l| trip_count - l.0)
    };
    let mut laps = vec![0u32; trace.events.len()];
    let mut seen = vec![0usize; trace.timelines.len()];
    for (e, event) in trace.events.iter().enumerate() {
        let t = event.timeline;
        let k = seen.get(t.0).copied().unwrap_or(0);
        if let Some(slot) = seen.get_mut(t.0) {
            *slot += 1;
        }
        let iteration = kt
            .origins
            .get(e)
            .map_or(&[][..], |o| o.iteration.as_slice());
        let lap = match (iteration, loops.get(t.0).copied().flatten()) {
            ([i], _) => u32::try_from(*i)
                .map_err(|_| refuse(e, "a negative iteration"))?
                .saturating_add(shift(t)),
            // A partition's prologue or epilogue.
            (_, Some((_, first))) if k < first => 0,
            (_, Some(_)) => trip_count,
            // A copy or an MMA outside the loop: after what issued it.
            _ => event
                .after
                .iter()
                .filter_map(|p| laps.get(p.0).copied())
                .max()
                .unwrap_or(0),
        };
        if let Some(slot) = laps.get_mut(e) {
            *slot = lap;
        }
    }
    let most = loops
        .iter()
        .flatten()
        .map(|l| trip_count - l.0)
        .max()
        .unwrap_or(0);
    let last = trip_count.saturating_sub(1);
    for l in &mut laps {
        *l = (*l).min(last);
    }
    Ok(KernelLaps {
        laps,
        trip_count: last,
        head: most + 1,
    })
}
