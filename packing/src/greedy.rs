//! The production greedy rules, as reference implementations and as incumbents for the exact
//! solver:
//!
//! - [`first_fit_by_lifetime`]: PTOAS `PlanMemory`-style (and what pypto issue "offset-packing
//!   instead of bump" asks for): buffers in program order, each at the lowest aligned offset
//!   free over its whole lifetime, so a freed 64 KiB region can host two 32 KiB buffers.
//! - [`best_fit_by_lifetime`]: the same sweep, each buffer into the smallest free gap that
//!   holds it; [`best_fit_by_lifetime_backward`]: the same from the last program point back.
//! - [`best_fit_by_size`]: TFLite `ArenaPlanner`/`SimpleMemoryArena`-style: largest first,
//!   each into the smallest gap between the time-conflicting placed buffers that holds it.
//! - [`settle`]: not a rule of its own but a pass over a placement: turned upside down and
//!   every buffer dropped as low as it goes, in rounds, never raising the peak.
//!
//! All honour fixed offsets (fixed buffers are placed first, where they are pinned, and are
//! not checked against each other: [`check`](super::check::check) reports fixed buffers that
//! collide), ignore the capacity (they minimise nothing and fail nothing: compare
//! [`Placement::peak`] with [`Problem::capacity`]), and are deterministic.
//!
//! **Cost.** The sweeps place buffers in program order (or its reverse), so the buffers a placement must
//! avoid are exactly those live at its start: pairwise disjoint, kept as their free gaps
//! ([`FreeSpace`]), `O(log n)` per placement and release (plus, for either fit, the gaps long
//! enough for a buffer but not once it is aligned). Best fit by size places out of time order, so each
//! placement gathers its `k` time-conflicting placed buffers through [`TimeIndex`]:
//! `O((k + 1) log n + k + leaves)`, the `k` read back in offset order from the placed
//! buffers' offset-ordered leaves. On a 60,122-buffer training trace with thousands of
//! buffers live at once that is 6.5 s against the sweeps' 0.03–0.07 s
//! (`docs/benchmarks.md`).

use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::time::Instant;

use linear_layout::address::align_up;

use super::free_space::FreeSpace;
use super::offset_order::OffsetOrder;
use super::time_index::TimeIndex;
use super::{Buffer, PackError, Placement, Problem};

/// PTOAS-style first fit in program order: fixed buffers first, then the others by
/// `(lower, index)`, each at the lowest offset (a multiple of its alignment) where it overlaps
/// no placed buffer whose lifetime intersects its own.
///
/// Errors: [`PackError::Overflow`] naming the buffer whose offset would pass `u64`.
///
/// ```
/// use packing::{greedy::first_fit_by_lifetime, Buffer, Problem};
/// // The pypto chained matmul: a 64 KiB operand freed, then two 32 KiB double buffers.
/// let p = Problem::new(
///     vec![
///         Buffer::new("held_a", 0, 2, 65536)?,
///         Buffer::new("a_ping", 2, 4, 32768)?,
///         Buffer::new("a_pong", 2, 4, 32768)?,
///     ],
///     Some(65536),
/// )?;
/// let placement = first_fit_by_lifetime(&p)?;
/// assert_eq!(placement.offsets, vec![0, 0, 32768]);
/// assert_eq!(placement.peak(&p)?, 65536);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn first_fit_by_lifetime(problem: &Problem) -> Result<Placement, PackError> {
    sweep(problem, Rule::Lowest, false)
}

/// Best fit in program order: fixed buffers first, then the others by `(lower, index)`, each
/// into the free gap among the placed buffers live with it that leaves the least room once
/// the buffer is aligned in it (ties: the lowest offset), or on top of them when no gap holds
/// it. As fast as [`first_fit_by_lifetime`], and on long traces close to
/// [`best_fit_by_size`] (within 0.01 % on the generated training steps).
///
/// Errors: [`PackError::Overflow`] naming the buffer whose offset would pass `u64`.
///
/// ```
/// use packing::greedy::{best_fit_by_lifetime, first_fit_by_lifetime};
/// use packing::{Buffer, Problem};
/// let p = Problem::new(
///     vec![
///         Buffer::new("big", 0, 2, 4)?,
///         Buffer::new("held", 0, 9, 1)?,
///         Buffer::new("small", 1, 2, 2)?,
///         Buffer::new("held2", 1, 9, 1)?,
///         Buffer::new("pair", 2, 9, 2)?, // big's 4 units are free again, and a 2-unit hole
///     ],
///     None,
/// )?;
/// assert_eq!(first_fit_by_lifetime(&p)?.offsets, vec![0, 4, 5, 7, 0]);
/// assert_eq!(best_fit_by_lifetime(&p)?.offsets, vec![0, 4, 5, 7, 5]);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn best_fit_by_lifetime(problem: &Problem) -> Result<Placement, PackError> {
    sweep(problem, Rule::Smallest, false)
}

/// [`best_fit_by_lifetime`] with the clock run backward: free buffers by decreasing `upper`
/// (ties: index), each placed among the buffers live at its *last* point. Where buffers die
/// in the reverse of the order they were made — the activations a training step saves in the
/// forward pass and frees in the backward pass — this stacks them as a stack allocator would:
/// on the generated 20k- and 60k-buffer training steps it meets the lower bound exactly,
/// where the forward sweep is 0.01–0.02 % above it.
///
/// Errors: [`PackError::Overflow`] naming the buffer whose offset would pass `u64`.
///
/// ```
/// use packing::greedy::{best_fit_by_lifetime, best_fit_by_lifetime_backward};
/// use packing::{Buffer, Problem};
/// // Forward, `early` takes the bottom unit, `x` goes above it, and the unit left free when
/// // `early` dies is too small for `y` or `z`. Backward, `early` is placed last, into it.
/// let p = Problem::new(
///     vec![
///         Buffer::new("x", 2, 6, 3)?,
///         Buffer::new("early", 1, 3, 1)?,
///         Buffer::new("y", 4, 8, 2)?,
///         Buffer::new("z", 4, 6, 2)?,
///     ],
///     None,
/// )?;
/// assert_eq!(best_fit_by_lifetime(&p)?.peak(&p)?, 8);
/// assert_eq!(best_fit_by_lifetime_backward(&p)?.peak(&p)?, 7); // the lower bound
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn best_fit_by_lifetime_backward(problem: &Problem) -> Result<Placement, PackError> {
    sweep(problem, Rule::Smallest, true)
}

/// A greedy rule as a function value.
pub type GreedyRule = fn(&Problem) -> Result<Placement, PackError>;

/// The three sweeps (near-linear at any size), in the order the exact solver tries them:
/// [`first_fit_by_lifetime`], [`best_fit_by_lifetime`], [`best_fit_by_lifetime_backward`].
///
/// ```
/// use packing::greedy::SWEEPS;
/// use packing::{Buffer, Problem};
/// let p = Problem::new(vec![Buffer::new("a", 0, 2, 8)?, Buffer::new("b", 1, 3, 8)?], None)?;
/// for sweep in SWEEPS {
///     assert_eq!(sweep(&p)?.peak(&p)?, 16);
/// }
/// # Ok::<(), packing::PackError>(())
/// ```
pub const SWEEPS: [GreedyRule; 3] = [
    first_fit_by_lifetime,
    best_fit_by_lifetime,
    best_fit_by_lifetime_backward,
];

/// TFLite-style best fit by size: fixed buffers first, then the others by size descending
/// (ties: earlier `lower`, then index), each into the smallest gap between its time-conflicting
/// placed buffers that holds it once aligned (ties: the lowest offset), or on top of them all
/// when no gap does.
///
/// Errors: [`PackError::Overflow`] naming the buffer whose offset would pass `u64`.
///
/// ```
/// use packing::greedy::{best_fit_by_size, first_fit_by_lifetime};
/// use packing::{Buffer, Problem};
/// let p = Problem::new(
///     vec![
///         Buffer::new("wall", 0, 4, 1)?.fixed_at(3)?,  // leaves a 3-unit hole below
///         Buffer::new("roof", 0, 4, 4)?.fixed_at(6)?,  // and a 2-unit hole at 4
///         Buffer::new("tile", 0, 4, 2)?,
///     ],
///     None,
/// )?;
/// assert_eq!(best_fit_by_size(&p)?.offsets, vec![3, 6, 4]); // the snug hole
/// assert_eq!(first_fit_by_lifetime(&p)?.offsets, vec![3, 6, 0]); // the lowest hole
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn best_fit_by_size(problem: &Problem) -> Result<Placement, PackError> {
    best_fit_by_size_until(problem, None)
}

/// [`best_fit_by_size`], given up with [`PackError::Deadline`] once `deadline` has passed:
/// the clock is read every 64 placements. It is O(n·k) for k buffers live
/// together — quadratic when all are — so a caller with a time budget passes its deadline.
///
/// ```
/// use std::time::Instant;
/// use packing::greedy::best_fit_by_size_until;
/// use packing::{Buffer, PackError, Problem};
/// let p = Problem::new(vec![Buffer::new("a", 0, 2, 8)?, Buffer::new("b", 1, 3, 8)?], None)?;
/// assert_eq!(best_fit_by_size_until(&p, None)?.offsets, vec![0, 8]);
/// let past = Some(Instant::now());
/// assert!(matches!(best_fit_by_size_until(&p, past), Err(PackError::Deadline { placed: 0, .. })));
/// # Ok::<(), PackError>(())
/// ```
pub fn best_fit_by_size_until(
    problem: &Problem,
    deadline: Option<Instant>,
) -> Result<Placement, PackError> {
    place(
        problem,
        |_, b| (u64::MAX - b.size, b.lower),
        smallest_fit,
        deadline,
    )
}

/// Placements between two reads of the clock in [`best_fit_by_size_until`] (each costs at
/// most a few hundred microseconds on the largest traces measured).
const DEADLINE_STRIDE: usize = 64;

/// How a sweep picks among the free gaps that hold a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    /// The lowest offset.
    Lowest,
    /// The least room left in the gap (ties: the lowest offset).
    Smallest,
}

/// The aligned offset at which `b` fits in the gap `[start, end)`, if it does.
fn fit_in(start: u64, end: u64, b: &Buffer) -> Option<u64> {
    let offset = align_up(start, b.alignment)?;
    (offset.checked_add(b.size)? <= end).then_some(offset)
}

/// The offset `rule` picks among `gaps` (in start order) for `b`, else the aligned `top`.
fn pick(
    gaps: impl Iterator<Item = (u64, u64)>,
    top: u64,
    rule: Rule,
    b: &Buffer,
) -> Result<u64, PackError> {
    let found = match rule {
        Rule::Lowest => gaps.into_iter().find_map(|(s, e)| fit_in(s, e, b)),
        Rule::Smallest => gaps
            .filter_map(|(s, e)| fit_in(s, e, b).map(|o| (e - o, o)))
            .min()
            .map(|(_, o)| o),
    };
    match found {
        Some(offset) => Ok(offset),
        None => aligned(top, b),
    }
}

/// The lowest gap of `space` that holds `b` (as [`pick`] with [`Rule::Lowest`]), visiting
/// only gaps at least as long as `b`, lowest first: `O(log g)` each ([`FreeSpace::lowest_gap`]);
/// a gap long enough but too short once aligned is passed over.
fn lowest_gap(space: &FreeSpace, b: &Buffer) -> Result<u64, PackError> {
    let mut from = 0;
    while let Some((s, e)) = space.lowest_gap(b.size, from) {
        if let Some(offset) = fit_in(s, e, b) {
            return Ok(offset);
        }
        from = s.saturating_add(1);
    }
    aligned(space.top(), b)
}

/// The smallest-room gap of `space` for `b` (as [`pick`] with [`Rule::Smallest`]), visiting
/// only gaps at least as long as `b`, shortest first, and stopping once a gap is too long to
/// leave less room than the best so far (its room is at least its length less
/// `alignment − 1`).
fn smallest_gap(space: &FreeSpace, b: &Buffer) -> Result<u64, PackError> {
    let slack = b.alignment.saturating_sub(1);
    let mut best: Option<(u64, u64)> = None;
    for (s, e) in space.gaps_by_length(b.size) {
        if best.is_some_and(|(room, _)| (e - s).saturating_sub(slack) > room) {
            break;
        }
        if let Some(o) = fit_in(s, e, b) {
            let candidate = (e - o, o);
            if best.is_none_or(|x| candidate < x) {
                best = Some(candidate);
            }
        }
    }
    match best {
        Some((_, offset)) => Ok(offset),
        None => aligned(space.top(), b),
    }
}

/// The two program-order rules: fixed buffers where they are pinned; then the others by
/// `(lower, index)`, each placed among the free gaps of the buffers live at its start (and
/// any fixed buffer live with it) by `rule`.
fn sweep(problem: &Problem, rule: Rule, backward: bool) -> Result<Placement, PackError> {
    let buffers = problem.buffers();
    // The sweep's clock: program order, or mirrored (a buffer starts where it dies).
    let span = |b: &Buffer| match backward {
        false => (b.lower, b.upper),
        true => (u64::MAX - b.upper, u64::MAX - b.lower),
    };
    let mut offsets = vec![0u64; buffers.len()];
    let mut ends = vec![0u64; buffers.len()];
    let mut fixed = TimeIndex::new(problem);
    let mut any_fixed = false;
    let mut free: Vec<(u64, usize)> = Vec::with_capacity(buffers.len());
    for (i, b) in buffers.iter().enumerate() {
        match b.offset {
            Some(o) => {
                set(&mut offsets, &mut ends, i, b, o)?;
                fixed.insert(i);
                any_fixed = true;
            }
            None => free.push((span(b).0, i)),
        }
    }
    free.sort_unstable();
    let mut space = FreeSpace::default();
    let mut expiring: BinaryHeap<Reverse<(u64, usize)>> = BinaryHeap::new();
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for (start, i) in free {
        while let Some(&Reverse((stop, j))) = expiring.peek() {
            if stop > start {
                break;
            }
            expiring.pop();
            if let (Some(&o), Some(&e)) = (offsets.get(j), ends.get(j)) {
                space.release(o, e);
            }
        }
        let Some(b) = buffers.get(i) else { continue };
        if b.size == 0 {
            continue; // offset 0, occupying nothing
        }
        busy.clear();
        if any_fixed {
            fixed.for_each_overlapping(b.lower, b.upper, |j| {
                if let (Some(&o), Some(&e)) = (offsets.get(j), ends.get(j)) {
                    if e > o {
                        busy.push((o, e));
                    }
                }
            });
        }
        let offset = if busy.is_empty() {
            match rule {
                Rule::Lowest => lowest_gap(&space, b)?,
                Rule::Smallest => smallest_gap(&space, b)?,
            }
        } else {
            // Fixed buffers live too: the occupied runs of `space` and the fixed ranges.
            let mut at = 0u64;
            for (s, e) in space.gaps() {
                if s > at {
                    busy.push((at, s));
                }
                at = e;
            }
            if space.top() > at {
                busy.push((at, space.top()));
            }
            busy.sort_unstable();
            let (gaps, top) = gaps_between(&busy);
            pick(gaps.into_iter(), top, rule, b)?
        };
        set(&mut offsets, &mut ends, i, b, offset)?;
        if let Some(&end) = ends.get(i) {
            space.occupy(offset, end);
        }
        expiring.push(Reverse((span(b).1, i)));
    }
    Ok(Placement { offsets })
}

/// The gaps between ranges sorted by start (which may overlap), and their top.
fn gaps_between(busy: &[(u64, u64)]) -> (Vec<(u64, u64)>, u64) {
    let mut gaps = Vec::new();
    let mut top = 0u64;
    for &(s, e) in busy {
        if s > top {
            gaps.push((top, s));
        }
        top = top.max(e);
    }
    (gaps, top)
}

/// Places fixed buffers, then the others in the order of `key` (then index), each at the
/// offset `fit` picks among the occupied ranges of its time-conflicting placed buffers;
/// [`PackError::Deadline`] once `deadline` has passed.
fn place<K: Ord>(
    problem: &Problem,
    key: impl Fn(usize, &Buffer) -> K,
    fit: impl Fn(&[(u64, u64)], &Buffer) -> Result<u64, PackError>,
    deadline: Option<Instant>,
) -> Result<Placement, PackError> {
    let buffers = problem.buffers();
    let mut offsets = vec![0u64; buffers.len()];
    let mut ends = vec![0u64; buffers.len()];
    let mut index = TimeIndex::new(problem);
    let mut by_offset = OffsetOrder::new(buffers.len());
    let mut free: Vec<usize> = Vec::with_capacity(buffers.len());
    for (i, b) in buffers.iter().enumerate() {
        match b.offset {
            Some(o) => {
                set(&mut offsets, &mut ends, i, b, o)?;
                index.insert(i);
                if b.size > 0 {
                    by_offset.insert(i, o, o.saturating_add(b.size));
                }
            }
            None => free.push(i),
        }
    }
    free.sort_by_cached_key(|&i| (buffers.get(i).map(|b| key(i, b)), i));
    let mut busy: Vec<(u64, u64)> = Vec::new();
    for (n, i) in free.into_iter().enumerate() {
        if n % DEADLINE_STRIDE == 0 && deadline.is_some_and(|d| Instant::now() >= d) {
            return Err(PackError::Deadline {
                placed: n,
                buffers: buffers.len(),
            });
        }
        let Some(b) = buffers.get(i) else { continue };
        busy.clear();
        if b.size > 0 {
            index.for_each_overlapping(b.lower, b.upper, |j| by_offset.mark(j));
            by_offset.read_marked(&mut busy);
        }
        let offset = fit(&busy, b)?;
        set(&mut offsets, &mut ends, i, b, offset)?;
        index.insert(i);
        if b.size > 0 {
            by_offset.insert(i, offset, offset.saturating_add(b.size));
        }
    }
    Ok(Placement { offsets })
}

fn set(
    offsets: &mut [u64],
    ends: &mut [u64],
    i: usize,
    b: &Buffer,
    offset: u64,
) -> Result<(), PackError> {
    let end = offset
        .checked_add(b.size)
        .ok_or_else(|| PackError::Overflow { id: b.id.clone() })?;
    if let (Some(o), Some(e)) = (offsets.get_mut(i), ends.get_mut(i)) {
        *o = offset;
        *e = end;
    }
    Ok(())
}

/// The smallest multiple of `b.alignment` that is ≥ `x`, or the overflow error naming `b`.
fn aligned(x: u64, b: &Buffer) -> Result<u64, PackError> {
    align_up(x, b.alignment).ok_or_else(|| PackError::Overflow { id: b.id.clone() })
}

/// The aligned offset `rule` picks among the gaps of `busy` (sorted by start) that hold `b` —
/// the smallest gap (ties: the lowest) or the lowest — else the aligned top of `busy`. The
/// gaps are read as they come ([`pick`] over [`gaps_between`] without the vector).
fn fit_among(busy: &[(u64, u64)], b: &Buffer, rule: Rule) -> Result<u64, PackError> {
    let mut top = 0u64;
    let mut best: Option<(u64, u64)> = None;
    for &(start, end) in busy {
        // Only a start above the running top opens a gap (and only then is the aligned
        // candidate worth its division).
        if start > top {
            if let Some(candidate) = fit_in(top, start, b) {
                if rule == Rule::Lowest {
                    return Ok(candidate);
                }
                let gap = start - candidate;
                if best.is_none_or(|(g, _)| gap < g) {
                    best = Some((gap, candidate));
                }
            }
        }
        top = top.max(end);
    }
    match best {
        Some((_, offset)) => Ok(offset),
        None => aligned(top, b),
    }
}

/// [`fit_among`] the smallest gap: best fit by size's choice.
fn smallest_fit(busy: &[(u64, u64)], b: &Buffer) -> Result<u64, PackError> {
    fit_among(busy, b, Rule::Smallest)
}

/// [`fit_among`] the lowest gap: where [`settle`] drops a buffer.
fn lowest_fit(busy: &[(u64, u64)], b: &Buffer) -> Result<u64, PackError> {
    fit_among(busy, b, Rule::Lowest)
}

/// `placement`'s free buffers dropped as low as they go, in the order of their offsets (fixed
/// buffers stay). Without fixed buffers or alignments above 1 no offset rises — each buffer's
/// old offset is still free when its turn comes, every buffer below it having only moved
/// down — so neither does the peak; otherwise the caller compares peaks.
fn drop_down(
    problem: &Problem,
    placement: &Placement,
    deadline: Option<Instant>,
) -> Result<Placement, PackError> {
    let offsets = &placement.offsets;
    place(
        problem,
        |i, _| offsets.get(i).copied().unwrap_or(0),
        lowest_fit,
        deadline,
    )
}

/// Rounds of [`settle`] at most, and the rounds in a row without a lower peak that end it.
const SETTLE_ROUNDS: usize = 16;
const SETTLE_STALLS: usize = 2;

/// The lowest placement found by settling `placement` both ways: each round turns the
/// placement upside down (offset `o` becomes `peak − o − size`, a valid placement of the
/// same peak) and drops every buffer as low as it goes, in the order of its offset. A round
/// never raises the peak (without fixed buffers or alignments; the lowest peak is kept in
/// any case), and the buffers that were on top come down first. It stops after
/// `SETTLE_STALLS` rounds in a row without a lower peak, `SETTLE_ROUNDS` in all, or at the
/// deadline (a round cut short is dropped): the same answer on any machine when the deadline
/// does not cut it. Each round costs as much as [`best_fit_by_size`]: `O(n·k)` for `k`
/// buffers live together. On idealloc's public traces it takes `minimize` below idealloc's
/// own answers (`docs/benchmarks.md`).
///
/// Errors: [`PackError::Overflow`] naming a buffer whose offset would pass `u64`.
///
/// ```
/// use packing::greedy::settle;
/// use packing::{Buffer, Placement, Problem};
/// // `b` sits on top of `a`'s slot although `a` is dead by then: settling brings it down.
/// let p = Problem::new(vec![Buffer::new("a", 0, 2, 4)?, Buffer::new("b", 2, 4, 4)?], None)?;
/// let tall = Placement { offsets: vec![0, 4] };
/// assert_eq!(settle(&p, &tall, None)?.peak(&p)?, 4);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn settle(
    problem: &Problem,
    placement: &Placement,
    deadline: Option<Instant>,
) -> Result<Placement, PackError> {
    let mut best = placement.clone();
    let mut best_peak = best.peak(problem)?;
    let mut current = placement.clone();
    let mut stalls = 0;
    for _ in 0..SETTLE_ROUNDS {
        let peak = current.peak(problem)?;
        let flipped = Placement {
            offsets: problem
                .buffers()
                .iter()
                .zip(&current.offsets)
                .map(|(b, &o)| peak.saturating_sub(o).saturating_sub(b.size))
                .collect(),
        };
        current = match drop_down(problem, &flipped, deadline) {
            Ok(p) => p,
            Err(PackError::Deadline { .. }) => break,
            Err(e) => return Err(e),
        };
        let peak = current.peak(problem)?;
        if peak < best_peak {
            (best, best_peak, stalls) = (current.clone(), peak, 0);
        } else {
            stalls += 1;
            if stalls >= SETTLE_STALLS {
                break;
            }
        }
    }
    Ok(best)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;
    use crate::Buffer;

    /// The first fit of [`first_fit_by_lifetime`] before the sweep: each placement gathers
    /// its time-conflicting placed buffers. The sweep must place exactly as it did.
    /// The lowest aligned offset at which `b` misses every range of `busy` (sorted by start).
    fn lowest_fit(busy: &[(u64, u64)], b: &Buffer) -> Result<u64, PackError> {
        let mut candidate = 0u64;
        for &(start, end) in busy {
            if candidate
                .checked_add(b.size)
                .ok_or_else(|| PackError::Overflow { id: b.id.clone() })?
                <= start
            {
                return Ok(candidate);
            }
            if end > candidate {
                candidate = aligned(end, b)?;
            }
        }
        Ok(candidate)
    }

    /// Seeded problems with fixed buffers, empty buffers, mixed alignments and long and short
    /// lifetimes.
    fn random_problem(seed: u64) -> Problem {
        let mut next = crate::test_rng::below(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let n = 1 + next(60) as usize;
        let mut buffers = Vec::new();
        let mut fixed_top = 0u64;
        for i in 0..n {
            let lower = next(40);
            let upper = lower + 1 + if next(4) == 0 { next(40) } else { next(5) };
            let alignment = [1u64, 2, 4, 8, 16][next(5) as usize];
            let size = if next(10) == 0 { 0 } else { 1 + next(24) };
            let mut b = Buffer::new(format!("b{i}"), lower, upper, size)
                .unwrap()
                .aligned(alignment)
                .unwrap();
            if next(8) == 0 {
                // Fixed buffers stacked so that they never collide.
                let at = align_up(fixed_top + next(16), alignment).unwrap();
                fixed_top = at + size;
                b = b.fixed_at(at).unwrap();
            }
            buffers.push(b);
        }
        Problem::new(buffers, None).unwrap()
    }

    /// Settling keeps placements valid and never raises the peak (the lowest is kept, fixed
    /// buffers and alignments included); without them each drop alone raises no offset, and
    /// a placement stacked needlessly high comes down.
    #[test]
    fn settling_never_raises_the_peak() {
        let mut lowered = 0;
        for seed in 0..300 {
            let p = random_problem(seed);
            let start = first_fit_by_lifetime(&p).unwrap();
            let settled = settle(&p, &start, None).unwrap();
            assert!(crate::check::check(&p, &settled).is_empty(), "seed {seed}");
            assert!(
                settled.peak(&p).unwrap() <= start.peak(&p).unwrap(),
                "seed {seed}"
            );
            let plain = Problem::new(
                p.buffers()
                    .iter()
                    .map(|b| Buffer::new(b.id.clone(), b.lower, b.upper, b.size).unwrap())
                    .collect(),
                None,
            )
            .unwrap();
            // A needlessly high start: every buffer on its own floor.
            let mut top = 0;
            let tall = Placement {
                offsets: plain
                    .buffers()
                    .iter()
                    .map(|b| {
                        top += b.size;
                        top - b.size
                    })
                    .collect(),
            };
            let dropped = drop_down(&plain, &tall, None).unwrap();
            assert!(
                crate::check::check(&plain, &dropped).is_empty(),
                "seed {seed}"
            );
            for (i, (&after, &before)) in dropped.offsets.iter().zip(&tall.offsets).enumerate() {
                assert!(
                    after <= before,
                    "seed {seed}, buffer {i}: {before} → {after}"
                );
            }
            let settled = settle(&plain, &tall, None).unwrap();
            assert!(
                crate::check::check(&plain, &settled).is_empty(),
                "seed {seed}"
            );
            assert!(settled.peak(&plain).unwrap() <= tall.peak(&plain).unwrap());
            lowered += usize::from(settled.peak(&plain).unwrap() < tall.peak(&plain).unwrap());
        }
        assert!(lowered > 250, "{lowered} of 300 lowered");
    }

    /// The rules as first written: fixed buffers, then the others in `key` order, each
    /// gathering every placed buffer it conflicts with (`O(n²)`), sorted by start.
    fn brute<K: Ord>(
        p: &Problem,
        key: impl Fn(&Buffer) -> K,
        fit: impl Fn(&[(u64, u64)], &Buffer) -> Result<u64, PackError>,
    ) -> Placement {
        let bs = p.buffers();
        let mut offsets = vec![0u64; bs.len()];
        let mut placed: Vec<usize> = Vec::new();
        for (i, b) in bs.iter().enumerate() {
            if let Some(o) = b.offset {
                offsets[i] = o;
                placed.push(i);
            }
        }
        let mut free: Vec<usize> = (0..bs.len()).filter(|&i| bs[i].offset.is_none()).collect();
        free.sort_by_key(|&i| (key(&bs[i]), i));
        for i in free {
            let mut busy: Vec<(u64, u64)> = placed
                .iter()
                .filter(|&&j| bs[i].size > 0 && bs[j].size > 0 && p.conflicts(i, j))
                .map(|&j| (offsets[j], offsets[j] + bs[j].size))
                .collect();
            busy.sort_unstable();
            offsets[i] = fit(&busy, &bs[i]).unwrap();
            placed.push(i);
        }
        Placement { offsets }
    }

    #[test]
    fn the_rules_place_as_the_brute_force_gathering_does() {
        for seed in 0..3000 {
            let p = random_problem(seed);
            let first = brute(&p, |b| (b.lower, 0), lowest_fit);
            assert_eq!(first_fit_by_lifetime(&p).unwrap(), first, "seed {seed}");
            let best = brute(&p, |b| (u64::MAX - b.size, b.lower), smallest_fit);
            assert_eq!(best_fit_by_size(&p).unwrap(), best, "seed {seed}");
        }
    }

    #[test]
    fn the_best_fit_sweeps_are_valid_both_ways() {
        for seed in 0..3000 {
            let p = random_problem(seed);
            for rule in [best_fit_by_lifetime, best_fit_by_lifetime_backward] {
                let placement = rule(&p).unwrap();
                assert!(
                    crate::check::check(&p, &placement).is_empty(),
                    "seed {seed}: {:?}",
                    crate::check::check(&p, &placement)
                );
            }
        }
    }

    #[test]
    fn a_passed_deadline_stops_best_fit_by_size() {
        let p = random_problem(7);
        let past = Instant::now();
        assert_eq!(
            best_fit_by_size_until(&p, Some(past)),
            Err(PackError::Deadline {
                placed: 0,
                buffers: p.len()
            })
        );
    }
}
