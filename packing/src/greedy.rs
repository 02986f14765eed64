//! The production greedy rules, as reference implementations and as incumbents for the exact
//! solver:
//!
//! - [`first_fit_by_lifetime`]: PTOAS `PlanMemory`-style (and what pypto issue "offset-packing
//!   instead of bump" asks for): buffers in program order, each at the lowest aligned offset
//!   free over its whole lifetime, so a freed 64 KiB region can host two 32 KiB buffers.
//! - [`best_fit_by_size`]: TFLite `ArenaPlanner`/`SimpleMemoryArena`-style: largest first,
//!   each into the smallest gap between the time-conflicting placed buffers that holds it.
//!
//! Both honour fixed offsets (fixed buffers are placed first, where they are pinned, and are
//! not checked against each other: [`check`](super::check::check) reports fixed buffers that
//! collide), ignore the capacity (they minimise nothing and fail nothing: compare
//! [`Placement::peak`] with [`Problem::capacity`]), and are deterministic. Each placement
//! costs `O((k + 1) log n + k log k)` for `k` time-conflicting placed buffers, via
//! [`TimeIndex`].

use linear_layout::address::align_up;

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
    place(problem, |b| (b.lower, 0), lowest_fit)
}

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
    place(problem, |b| (u64::MAX - b.size, b.lower), smallest_fit)
}

/// Places fixed buffers, then the others in the order of `key` (then index), each at the
/// offset `fit` picks among the occupied ranges of its time-conflicting placed buffers.
fn place<K: Ord>(
    problem: &Problem,
    key: impl Fn(&Buffer) -> K,
    fit: impl Fn(&[(u64, u64)], &Buffer) -> Result<u64, PackError>,
) -> Result<Placement, PackError> {
    let buffers = problem.buffers();
    let mut offsets = vec![0u64; buffers.len()];
    let mut ends = vec![0u64; buffers.len()];
    let mut index = TimeIndex::new(problem);
    let mut free: Vec<usize> = Vec::with_capacity(buffers.len());
    for (i, b) in buffers.iter().enumerate() {
        match b.offset {
            Some(o) => {
                set(&mut offsets, &mut ends, i, b, o)?;
                index.insert(i);
            }
            None => free.push(i),
        }
    }
    free.sort_by_cached_key(|&i| (buffers.get(i).map(&key), i));
    let mut busy: Vec<(u64, u64)> = Vec::new();
    let mut scratch: Vec<(u64, u64)> = Vec::new();
    for i in free {
        let Some(b) = buffers.get(i) else { continue };
        busy.clear();
        if b.size > 0 {
            index.for_each_overlapping(b.lower, b.upper, |j| {
                if let (Some(&o), Some(&e)) = (offsets.get(j), ends.get(j)) {
                    if e > o {
                        busy.push((o, e));
                    }
                }
            });
            sort_by_start(&mut busy, &mut scratch);
        }
        let offset = fit(&busy, b)?;
        set(&mut offsets, &mut ends, i, b, offset)?;
        index.insert(i);
    }
    Ok(Placement { offsets })
}

/// Sorts `busy` by start (the fits read it in start order; the order of equal starts does not
/// change what they find). Long lists go through an LSD radix sort on the bytes the largest
/// start uses (11-bit digits), stable, with `scratch` as the second buffer; short ones through `sort_unstable`.
fn sort_by_start(busy: &mut Vec<(u64, u64)>, scratch: &mut Vec<(u64, u64)>) {
    const RADIX_FROM: usize = 256;
    if busy.len() < RADIX_FROM {
        busy.sort_unstable();
        return;
    }
    const DIGIT: u32 = 11;
    const MASK: u64 = (1 << DIGIT) - 1;
    let max = busy.iter().map(|&(s, _)| s).max().unwrap_or(0);
    let digits = (64 - max.leading_zeros()).div_ceil(DIGIT);
    scratch.clear();
    scratch.resize(busy.len(), (0, 0));
    for pass in 0..digits {
        let shift = DIGIT * pass;
        let mut counts = [0usize; 1 << DIGIT];
        for &(s, _) in busy.iter() {
            if let Some(c) = counts.get_mut(((s >> shift) & MASK) as usize) {
                *c += 1;
            }
        }
        let mut at = 0usize;
        for c in counts.iter_mut() {
            let n = *c;
            *c = at;
            at += n;
        }
        for &item in busy.iter() {
            if let Some(c) = counts.get_mut(((item.0 >> shift) & MASK) as usize) {
                if let Some(slot) = scratch.get_mut(*c) {
                    *slot = item;
                }
                *c += 1;
            }
        }
        std::mem::swap(busy, scratch);
    }
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

/// `offset + size` for a candidate, or the overflow error naming `b`.
fn end_of(offset: u64, b: &Buffer) -> Result<u64, PackError> {
    offset
        .checked_add(b.size)
        .ok_or_else(|| PackError::Overflow { id: b.id.clone() })
}

/// The lowest aligned offset at which `b` misses every range of `busy` (sorted by start).
fn lowest_fit(busy: &[(u64, u64)], b: &Buffer) -> Result<u64, PackError> {
    let mut candidate = 0u64;
    for &(start, end) in busy {
        if end_of(candidate, b)? <= start {
            return Ok(candidate);
        }
        if end > candidate {
            candidate = aligned(end, b)?;
        }
    }
    Ok(candidate)
}

/// The aligned start of the smallest gap of `busy` (sorted by start) that holds `b` (ties: the
/// lowest), else the aligned top of `busy`.
fn smallest_fit(busy: &[(u64, u64)], b: &Buffer) -> Result<u64, PackError> {
    let mut top = 0u64;
    let mut best: Option<(u64, u64)> = None;
    for &(start, end) in busy {
        let candidate = aligned(top, b)?;
        if end_of(candidate, b)? <= start {
            let gap = start - candidate;
            if best.is_none_or(|(g, _)| gap < g) {
                best = Some((gap, candidate));
            }
        }
        top = top.max(end);
    }
    match best {
        Some((_, offset)) => Ok(offset),
        None => aligned(top, b),
    }
}
