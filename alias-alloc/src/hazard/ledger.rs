//! The arrival ledger of a trace ([`open_phases`]): a barrier someone waits on must receive
//! whole phases of arrivals. A surplus or deficit of a fraction of a phase per loop lap builds
//! up lap after lap until a wait passes a phase early or never passes — in an execution, only
//! after as many laps as it takes to add up to a phase; the ledger sees it at any trip count
//! where the arrivals in all are not a multiple of the count (`docs/hazard-check.md`, *Loops*).

use super::trace::{BarrierId, EventKind, Trace};

/// A barrier that ends a complete execution of its trace in the middle of a phase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpenPhase {
    /// The barrier.
    pub barrier: BarrierId,
    /// The arrivals it receives in all (`barrier_expect` counts one).
    pub arrivals: u64,
    /// Its count: the arrivals that complete a phase.
    pub count: u32,
}

impl OpenPhase {
    /// The arrivals past its last whole phase.
    pub fn left_over(&self) -> u64 {
        self.arrivals % u64::from(self.count.max(1))
    }
}

/// The barriers some wait uses whose arrivals in all are not a whole number of phases. Every
/// execution that runs every event makes the same arrivals, so the phase it leaves open is the
/// same in all of them; a barrier no one waits on is left alone (its arrivals order nothing).
///
/// ```
/// use alias_alloc::hazard::{open_phases, HazardError, Trace, TraceBuilder};
/// // Half a phase too many each lap: three arrivals on a barrier of count 2.
/// let laps = |n: u8| -> Result<Trace, HazardError> {
///     let mut t = TraceBuilder::new();
///     let (p, c) = (t.partition("producer"), t.partition("consumer"));
///     let full = t.barrier("full", 2)?;
///     for i in 0..n {
///         t.arrive(p, "arrive full", full, 2)?;
///         t.arrive(p, "one too many", full, 1)?;
///         t.wait(c, "wait full", full, i % 2)?;
///     }
///     t.build()
/// };
/// let open = open_phases(&laps(3)?);
/// assert_eq!((open.len(), open[0].arrivals, open[0].left_over()), (1, 9, 1));
/// assert!(open_phases(&laps(2)?).is_empty()); // 6 arrivals: three whole phases
/// # Ok::<(), HazardError>(())
/// ```
pub fn open_phases(trace: &Trace) -> Vec<OpenPhase> {
    let mut arrivals = vec![0u64; trace.barriers.len()];
    let mut waited = vec![false; trace.barriers.len()];
    for e in &trace.events {
        match e.kind {
            EventKind::Arrive { barrier, count, .. } => {
                if let Some(a) = arrivals.get_mut(barrier.0) {
                    *a = a.saturating_add(u64::from(count));
                }
            }
            EventKind::Wait { barrier, .. } => {
                if let Some(w) = waited.get_mut(barrier.0) {
                    *w = true;
                }
            }
            _ => {}
        }
    }
    trace
        .barriers
        .iter()
        .zip(arrivals.into_iter().zip(waited))
        .enumerate()
        .filter(|(_, (_, (_, waited)))| *waited)
        .map(|(i, (b, (arrivals, _)))| OpenPhase {
            barrier: BarrierId(i),
            arrivals,
            count: b.count,
        })
        .filter(|o| o.left_over() != 0)
        .collect()
}
