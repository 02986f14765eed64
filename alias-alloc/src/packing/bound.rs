//! Lower bounds on the height of any placement.
//!
//! **LB** = the peak, over time, of the sum of the sizes of the buffers live at that time.
//! Every placement needs at least that much, since live buffers are disjoint.

use super::Problem;

/// The peak of concurrently live units, and where it is reached.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveBound {
    /// The peak sum of live sizes (0 for no buffers).
    pub peak: u64,
    /// The first program point at which the peak is reached.
    pub at: u64,
    /// Indices of the buffers live at `at`, in problem order.
    pub live: Vec<usize>,
}

/// The peak of concurrently live units (a sweep over lifetime ends; saturates at `u64::MAX`).
///
/// ```
/// use alias_alloc::packing::{bound::live_bound, Buffer, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 3, 4)?, Buffer::new("b", 2, 5, 8)?, Buffer::new("c", 3, 6, 2)?],
///     None,
/// )?;
/// let lb = live_bound(&p);
/// assert_eq!((lb.peak, lb.at, lb.live.clone()), (12, 2, vec![0, 1]));
/// # Ok::<(), alias_alloc::packing::PackError>(())
/// ```
pub fn live_bound(problem: &Problem) -> LiveBound {
    // Events sorted by time; at equal times ends (-) come before starts (+): half-open.
    let mut events: Vec<(u64, bool, u64)> = Vec::with_capacity(2 * problem.len());
    for b in problem.buffers() {
        events.push((b.lower, true, b.size));
        events.push((b.upper, false, b.size));
    }
    events.sort_unstable_by_key(|&(t, start, _)| (t, start));
    let (mut live, mut peak, mut at) = (0u64, 0u64, 0u64);
    for (t, start, size) in events {
        if start {
            live = live.saturating_add(size);
            if live > peak {
                peak = live;
                at = t;
            }
        } else {
            live = live.saturating_sub(size);
        }
    }
    let live = problem
        .buffers()
        .iter()
        .enumerate()
        .filter(|(_, b)| b.lower <= at && at < b.upper && peak > 0)
        .map(|(i, _)| i)
        .collect();
    LiveBound { peak, at, live }
}
