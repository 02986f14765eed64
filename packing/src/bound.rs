//! Lower bounds on the height of any placement.
//!
//! **LB** = the peak, over time, of the sum of the sizes of the buffers live at that time.
//! Every placement needs at least that much, since live buffers are disjoint.

use super::Problem;

/// The greatest common divisor (0 with 0 gives the other).
fn gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

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
/// use packing::{bound::live_bound, Buffer, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 3, 4)?, Buffer::new("b", 2, 5, 8)?, Buffer::new("c", 3, 6, 2)?],
///     None,
/// )?;
/// let lb = live_bound(&p);
/// assert_eq!((lb.peak, lb.at, lb.live.clone()), (12, 2, vec![0, 1]));
/// # Ok::<(), packing::PackError>(())
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

/// The grain of every tight placement: the gcd of all (nonzero) sizes, the alignments of the
/// free buffers and the offsets of the fixed ones (1 for no buffers). Offsets built by stacking buffers on each other and rounding
/// up to alignments stay multiples of it, so the optimal height is one too and a capacity
/// can be rounded down to it.
///
/// ```
/// use packing::{bound::granularity, Buffer, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("tile", 0, 2, 16384)?.aligned(1024)?, Buffer::new("bar", 0, 2, 128)?.aligned(128)?],
///     None,
/// )?;
/// assert_eq!(granularity(&p), 128);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn granularity(problem: &Problem) -> u64 {
    let g = problem.buffers().iter().fold(0u64, |g, b| {
        // A pinned buffer is not rounded anywhere: its offset counts, its alignment does not.
        let step = b.offset.unwrap_or(b.alignment);
        gcd(gcd(g, b.size), step)
    });
    g.max(1)
}

/// A lower bound at least as strong as [`live_bound`] that also counts alignment and fixed
/// offsets (saturates at `u64::MAX`):
///
/// 1. At every instant the live buffers are pairwise disjoint, so the one placed highest,
///    `j`, starts above all the others: at `≥ Σ sizes − size(j)`, rounded up to `j`'s
///    alignment (or exactly at its fixed offset, if that is high enough). The height is at
///    least the smallest such top over the live buffers, and at least every fixed buffer's
///    top.
/// 2. The result is rounded up to the [`granularity`].
/// 3. While [`tops_refute`] refutes it, it goes up by one grain (at most 64 times).
/// 4. In every set live together, starts are multiples of the gcd `A` of their alignments:
///    each buffer covers `⌈size / A⌉` whole `A`-blocks of its own, so the height is at least
///    `(Σ blocks − 1)·A` plus the least a buffer fills of its last block.
///
/// With alignment 1 and no fixed offsets this is the live peak.
///
/// ```
/// use packing::{bound::{live_bound, lower_bound}, Buffer, Problem};
/// // Two 1,152-byte TMA tiles aligned to 1,024: the upper one starts at 2,048 at the earliest.
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 2, 1152)?.aligned(1024)?, Buffer::new("b", 0, 2, 1152)?.aligned(1024)?],
///     None,
/// )?;
/// assert_eq!(live_bound(&p).peak, 2304);
/// assert_eq!(lower_bound(&p), 3200);
/// // Sixteen 8-byte mbarriers aligned to 128: each takes a 128-byte block of its own.
/// let bars: Vec<Buffer> = (0..16).map(|i| Buffer::new(format!("bar{i}"), 0, 2, 8)?.aligned(128)).collect::<Result<_, _>>()?;
/// assert_eq!(lower_bound(&Problem::new(bars, None)?), 15 * 128 + 8);
/// // A fixed buffer's top counts even when little else is live.
/// let q = Problem::new(vec![Buffer::new("pinned", 0, 1, 8)?.fixed_at(100)?], None)?;
/// assert_eq!(lower_bound(&q), 108);
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn lower_bound(problem: &Problem) -> u64 {
    if alignment_free(problem) {
        return live_bound(problem).peak;
    }
    aligned_bound(problem)
}

/// Whether alignment cannot raise the bound: no fixed offsets, and every size a multiple of
/// every alignment (of their least common multiple). Then in any set of live buffers the
/// sizes below the highest one sum to a multiple of its alignment, rule 1 gives exactly the
/// live sum, and the forced-tops refinement has nothing to force (every buffer can be the
/// highest): [`lower_bound`] is the live peak, found by one sweep.
fn alignment_free(problem: &Problem) -> bool {
    let buffers = problem.buffers();
    if buffers.iter().any(|b| b.offset.is_some()) {
        return false;
    }
    let lcm = buffers.iter().try_fold(1u64, |l, b| {
        (l / gcd(l, b.alignment)).checked_mul(b.alignment)
    });
    lcm.is_some_and(|l| buffers.iter().all(|b| b.size % l == 0))
}

/// [`lower_bound`] by its three rules (for problems with alignment or fixed offsets).
fn aligned_bound(problem: &Problem) -> u64 {
    let buffers = problem.buffers();
    // Every fixed buffer's top, even an empty one's (the height counts `offset + size`).
    let mut bound = buffers
        .iter()
        .filter_map(|b| b.offset.map(|o| o.saturating_add(b.size)))
        .max()
        .unwrap_or(0);
    if buffers.iter().all(|b| b.offset.is_none()) && clique_mass(problem) > CLIQUE_MASS_CAP {
        return round_up(streamed_clique_bound(problem), granularity(problem));
    }
    let cliques = cliques(problem);
    for (live, sum) in &cliques {
        bound = bound.max(clique_bound(buffers, live, *sum));
    }
    let g = granularity(problem);
    bound = round_up(bound, g);
    for _ in 0..64 {
        if !refuted(buffers, &cliques, bound) {
            break;
        }
        bound = bound.saturating_add(g);
    }
    bound
}

fn round_up(x: u64, g: u64) -> u64 {
    match x % g {
        0 => x,
        r => x.saturating_add(g - r),
    }
}

/// The maximal sets of buffers (of nonzero size) live together, with their total sizes.
fn cliques(problem: &Problem) -> Vec<(Vec<usize>, u64)> {
    let mut out = Vec::new();
    for_each_clique(problem, |live, sum| {
        out.push((live.to_vec(), sum));
        true
    });
    out
}

/// Calls `f` with every maximal set of buffers (of nonzero size) live together and its total
/// size, in time order, without storing them; `f` returns whether it wants the live set (when
/// `false` it is not read, and the sweep stays linear).
fn for_each_clique(problem: &Problem, mut f: impl FnMut(&[usize], u64) -> bool) {
    let buffers = problem.buffers();
    let mut events: Vec<(u64, bool, usize)> = Vec::with_capacity(2 * buffers.len());
    for (i, b) in buffers.iter().enumerate().filter(|(_, b)| b.size > 0) {
        events.push((b.lower, true, i));
        events.push((b.upper, false, i));
    }
    events.sort_unstable_by_key(|&(t, start, i)| (t, start, i));
    let mut live: Vec<usize> = Vec::new();
    let mut pos = vec![0usize; buffers.len()];
    let mut sum = 0u64;
    let mut last_was_start = false;
    for (_, start, i) in events {
        let Some(b) = buffers.get(i) else { continue };
        if start {
            if let Some(p) = pos.get_mut(i) {
                *p = live.len();
            }
            live.push(i);
            sum = sum.saturating_add(b.size);
            last_was_start = true;
            continue;
        }
        if last_was_start {
            f(&live, sum);
        }
        last_was_start = false;
        sum = sum.saturating_sub(b.size);
        let p = pos.get(i).copied().unwrap_or(0);
        live.swap_remove(p);
        if let Some(&moved) = live.get(p) {
            if let Some(q) = pos.get_mut(moved) {
                *q = p;
            }
        }
    }
}

/// `Σ |clique|` over the maximal cliques: what [`cliques`] would store.
fn clique_mass(problem: &Problem) -> u64 {
    let mut mass = 0u64;
    for_each_clique(problem, |live, _| {
        mass = mass.saturating_add(live.len() as u64);
        false
    });
    mass
}

/// The largest clique bound over the maximal cliques of a problem without fixed buffers,
/// streamed: a clique's bound is at most its sum plus the largest alignment less one for each
/// of its buffers (rule 1 adds it once; rule 4's blocks round each size up to at most that),
/// so only cliques that could raise the bound so far read their live set.
fn streamed_clique_bound(problem: &Problem) -> u64 {
    let buffers = problem.buffers();
    let slack = buffers
        .iter()
        .map(|b| b.alignment)
        .max()
        .unwrap_or(1)
        .saturating_sub(1);
    let mut bound = 0u64;
    for_each_clique(problem, |live, sum| {
        let most = sum.saturating_add((live.len() as u64).saturating_mul(slack));
        if most <= bound {
            return false;
        }
        bound = bound.max(clique_bound(buffers, live, sum));
        true
    });
    bound
}

/// Cliques stored for the forced-tops refinement at most (`Σ |clique|`, 8 bytes each: 32
/// MiB). Past it — long traces with thousands of buffers live — the clique bound is streamed
/// and the refinement (built for small kernels: barriers among tiles) is skipped.
const CLIQUE_MASS_CAP: u64 = 1 << 22;

/// The lowest offset at which `b` can be the highest of pairwise-disjoint buffers whose
/// sizes sum to `sum`, or `None` if it cannot (a fixed offset too low).
fn top_start(b: &super::Buffer, sum: u64) -> Option<u64> {
    let below = sum.saturating_sub(b.size);
    match b.offset {
        Some(o) if o >= below => Some(o),
        Some(_) => None,
        None => Some(round_up(below, b.alignment)),
    }
}

/// The least height of the pairwise-disjoint buffers `live` (sizes summing to `sum`): the
/// smallest top over the buffers that can be the highest one.
fn clique_bound(buffers: &[super::Buffer], live: &[usize], sum: u64) -> u64 {
    let best = live
        .iter()
        .filter_map(|&i| buffers.get(i))
        .filter_map(|b| top_start(b, sum).map(|s| s.saturating_add(b.size)))
        .min();
    // No buffer can be the highest (fixed ones all too low): the set cannot be disjoint at
    // all, which the caller reports elsewhere; the sum still bounds the height.
    best.map_or(sum, |t| t.max(sum))
        .max(block_bound(buffers, live))
}

/// Rule 4 of [`lower_bound`], for a set of buffers live together: every start (a fixed one
/// too) is a multiple of `A`, the gcd of their alignments, so each buffer covers whole
/// `A`-blocks of its own — `⌈size / A⌉` of them, none shared with another, as the next start
/// at or above its end is in the next block — and the one covering the highest block ends at
/// least `(Σ blocks − 1)·A` plus what it fills of its last block, its remainder
/// `size − A·(⌈size / A⌉ − 1)`. Sixteen 8-byte buffers aligned to 128 need 1928, not the 136
/// of rule 1 or the 128 of their sum.
fn block_bound(buffers: &[super::Buffer], live: &[usize]) -> u64 {
    let set: Vec<&super::Buffer> = live
        .iter()
        .filter_map(|&i| buffers.get(i))
        .filter(|b| b.size > 0)
        .collect();
    let a = set.iter().fold(0u64, |g, b| gcd(g, b.alignment)).max(1);
    let (mut blocks, mut least_rem) = (0u64, u64::MAX);
    for b in &set {
        let n = b.size.div_ceil(a);
        blocks = blocks.saturating_add(n);
        least_rem = least_rem.min(b.size - a * (n - 1));
    }
    if blocks == 0 {
        return 0;
    }
    (blocks - 1).saturating_mul(a).saturating_add(least_rem)
}

/// Whether `capacity` is too small by the *forced tops* argument: in a set of buffers live
/// together, when only one of them, `j`, can be the highest within `capacity` (the others
/// would end above it once rounded up to their alignments), `j` starts at or above its
/// lowest possible start as the highest (rule 1 of [`lower_bound`]). Two such forced
/// buffers that are live together must then stack, one above the other; if neither order
/// fits, nothing does. (A 128-byte mbarrier among
/// 1024-aligned tiles in a full section is forced to the top; two live together cannot both
/// be.)
///
/// ```
/// use packing::{bound::tops_refute, Buffer, Problem};
/// let tile = |id: &str, l, u| Buffer::new(id, l, u, 1024)?.aligned(1024);
/// let p = Problem::new(
///     vec![
///         tile("t0", 0, 2)?, tile("t1", 0, 2)?, Buffer::new("bar0", 0, 3, 128)?.aligned(128)?,
///         tile("u0", 2, 4)?, tile("u1", 2, 4)?, Buffer::new("bar1", 1, 4, 128)?.aligned(128)?,
///     ],
///     None,
/// )?;
/// // At 2,176 each barrier must sit on top of its two tiles, at 2,048: together at time 2.
/// assert!(tops_refute(&p, 2176));
/// assert!(!tops_refute(&p, 2304));
/// # Ok::<(), packing::PackError>(())
/// ```
pub fn tops_refute(problem: &Problem, capacity: u64) -> bool {
    refuted(problem.buffers(), &cliques(problem), capacity)
}

fn refuted(buffers: &[super::Buffer], cliques: &[(Vec<usize>, u64)], capacity: u64) -> bool {
    // forced[i]: the lowest start buffer i is forced to, over the sets where it must be on top.
    let mut forced: Vec<(usize, u64)> = Vec::new();
    for (live, sum) in cliques {
        let mut only: Option<(usize, u64)> = None;
        let mut count = 0;
        for &i in live {
            let Some(b) = buffers.get(i) else { continue };
            if let Some(start) = top_start(b, *sum) {
                if start.saturating_add(b.size) <= capacity {
                    count += 1;
                    only = Some((i, start));
                }
            }
        }
        match (count, only) {
            (0, _) => return true,
            (1, Some((i, start))) => match forced.iter_mut().find(|(j, _)| *j == i) {
                Some(f) => f.1 = f.1.max(start),
                None => forced.push((i, start)),
            },
            _ => {}
        }
    }
    for (k, &(i, si)) in forced.iter().enumerate() {
        let Some(a) = buffers.get(i) else { continue };
        if si.saturating_add(a.size) > capacity {
            return true;
        }
        for &(j, sj) in forced.iter().skip(k + 1) {
            let Some(b) = buffers.get(j) else { continue };
            if !a.overlaps_in_time(b) {
                continue;
            }
            let above = |(lo, x): (u64, &super::Buffer), (start, y): (u64, &super::Buffer)| {
                // `y` above `x` (which starts at `lo` or higher).
                let from = start.max(lo.saturating_add(x.size));
                let from = match y.offset {
                    Some(o) if o >= from => o,
                    Some(_) => return false,
                    None => round_up(from, y.alignment),
                };
                from.saturating_add(y.size) <= capacity
            };
            if !above((si, a), (sj, b)) && !above((sj, b), (si, a)) {
                return true;
            }
        }
    }
    false
}

#[cfg(test)]
mod streamed_tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    /// The largest clique bound (rules 1, 2 and 4) over the stored cliques.
    fn stored_clique_bound(p: &super::Problem) -> u64 {
        super::cliques(p)
            .iter()
            .map(|(live, sum)| super::clique_bound(p.buffers(), live, *sum))
            .max()
            .unwrap_or(0)
    }

    /// The streamed clique bound is the stored cliques' largest bound.
    #[cfg(feature = "generator")]
    #[test]
    fn streaming_gives_the_same_clique_bound() {
        use super::*;
        use crate::generator::{generate, Kind};
        for (kind, seed) in [
            (Kind::SmemPipeline, 1),
            (Kind::SmemMixed, 2),
            (Kind::Tmem, 3),
        ] {
            let p = generate(kind, seed, 300).unwrap();
            let stored = stored_clique_bound(&p);
            assert_eq!(streamed_clique_bound(&p), stored, "{kind:?}");
        }
    }

    /// The streamed bound is the stored one where rule 4 decides: small buffers aligned to
    /// large blocks (the first cliques with a large sum and few buffers, later ones with many
    /// small buffers whose blocks outweigh it — a prune on the sum alone skipped those).
    #[test]
    fn streaming_keeps_the_block_rule() {
        use super::*;
        use crate::Buffer;
        let mut next = crate::test_rng::below(0x000B_10C4_B00D);
        for _ in 0..300 {
            let n = 2 + next(30) as usize;
            let buffers: Vec<Buffer> = (0..n)
                .map(|i| {
                    let lower = next(20);
                    let size = if next(4) == 0 {
                        200 + next(200)
                    } else {
                        1 + next(16)
                    };
                    Buffer::new(format!("b{i}"), lower, lower + 1 + next(6), size)
                        .unwrap()
                        .aligned([8u64, 64, 128][next(3) as usize])
                        .unwrap()
                })
                .collect();
            let p = Problem::new(buffers, None).unwrap();
            let stored = stored_clique_bound(&p);
            assert_eq!(streamed_clique_bound(&p), stored, "{p:?}");
        }
    }

    /// The live bound's point is the first where the peak is reached, and its live set holds
    /// exactly the buffers live there: half-open lifetimes (one that ends at the point is not
    /// live), and none at all when nothing has a size.
    #[test]
    fn the_live_bound_names_the_first_peak_and_only_what_is_live_there() {
        use super::*;
        use crate::Buffer;
        let b = |id: &str, lower, upper, size| Buffer::new(id, lower, upper, size).unwrap();
        // 8 units live over [0, 2) and again over [5, 7); `a` ends where `c` starts.
        let p = Problem::new(
            vec![b("a", 0, 2, 8), b("c", 2, 4, 6), b("d", 5, 7, 8)],
            None,
        )
        .unwrap();
        let lb = live_bound(&p);
        assert_eq!((lb.peak, lb.at, lb.live), (8, 0, vec![0]));
        let p = Problem::new(vec![b("a", 0, 2, 4), b("c", 2, 4, 8)], None).unwrap();
        assert_eq!(live_bound(&p).live, vec![1]);
        let p = Problem::new(vec![b("empty", 0, 2, 0), b("none", 0, 1, 0)], None).unwrap();
        let lb = live_bound(&p);
        assert_eq!((lb.peak, lb.live.len()), (0, 0));
    }

    /// Rule 3 raises the bound of a small problem: two 1 KiB tiles under a 128-byte barrier,
    /// twice, the two barriers live together between them. Every live set alone fits 2,176,
    /// but there each barrier is forced to the top, [2048, 2176), and the two collide: 2,304
    /// (the stored path; a problem of this size never takes the streamed one, which skips
    /// rule 3).
    #[test]
    fn forced_tops_raise_the_bound_of_a_small_problem() {
        use super::*;
        use crate::Buffer;
        let tile = |id: &str, l, u| Buffer::new(id, l, u, 1024).unwrap().aligned(1024).unwrap();
        let bar = |id: &str, l, u| Buffer::new(id, l, u, 128).unwrap().aligned(128).unwrap();
        let p = Problem::new(
            vec![
                tile("t0", 0, 2),
                tile("t1", 0, 2),
                bar("bar0", 0, 3),
                bar("bar1", 2, 5),
                tile("u0", 3, 5),
                tile("u1", 3, 5),
            ],
            None,
        )
        .unwrap();
        assert_eq!(stored_clique_bound(&p), 2176); // rules 1, 2 and 4
        assert!(tops_refute(&p, 2176) && !tops_refute(&p, 2304));
        assert_eq!(lower_bound(&p), 2304);
    }

    /// A buffer of no size occupies nothing and bounds nothing: 10 bytes aligned to 64 and
    /// 70 aligned to 48 need 118 (the 70 at 48), and an empty buffer live with them cannot be
    /// the top that would lower that to their sum, 80. And a buffer pinned low cannot be the
    /// top either: a 100-byte buffer aligned to 64 live with 8 bytes pinned at 0 needs 164,
    /// not 108.
    #[test]
    fn empty_and_pinned_low_buffers_are_never_the_top() {
        use super::*;
        use crate::Buffer;
        let b = |id: &str, size, alignment| {
            Buffer::new(id, 0, 2, size)
                .unwrap()
                .aligned(alignment)
                .unwrap()
        };
        let p = Problem::new(vec![b("a", 10, 64), b("empty", 0, 1), b("b", 70, 48)], None).unwrap();
        assert_eq!(lower_bound(&p), 118);
        let p = Problem::new(
            vec![
                Buffer::new("pinned", 0, 2, 8).unwrap().fixed_at(0).unwrap(),
                Buffer::new("free", 0, 2, 100).unwrap().aligned(64).unwrap(),
            ],
            None,
        )
        .unwrap();
        assert_eq!(lower_bound(&p), 164);
    }

    /// Rule 3 with a pinned barrier: two tile pairs, each under a 128-byte barrier that is
    /// forced to the top, the barriers live together; the second barrier is pinned (at an
    /// alignment of 1, as a CSV without an alignment column reads it: the grain is still 128).
    /// Pinned at 2,048 it cannot go above the free one, which must go above it: 2,304. Pinned
    /// at 2,176 it sits above the free one, and 2,304 (its own top) is reached.
    #[test]
    fn forced_tops_respect_pinned_barriers() {
        use super::*;
        use crate::Buffer;
        let tile = |id: &str, l, u| Buffer::new(id, l, u, 1024).unwrap().aligned(1024).unwrap();
        let problem = |pinned_at| {
            Problem::new(
                vec![
                    tile("t0", 0, 2),
                    tile("t1", 0, 2),
                    Buffer::new("bar0", 0, 3, 128)
                        .unwrap()
                        .aligned(128)
                        .unwrap(),
                    Buffer::new("bar1", 2, 5, 128)
                        .unwrap()
                        .fixed_at(pinned_at)
                        .unwrap(),
                    tile("u0", 3, 5),
                    tile("u1", 3, 5),
                ],
                None,
            )
            .unwrap()
        };
        let low = problem(2048);
        assert!(tops_refute(&low, 2176) && !tops_refute(&low, 2304));
        assert_eq!(lower_bound(&low), 2304);
        let high = problem(2176);
        assert!(!tops_refute(&high, 2304));
        assert_eq!(lower_bound(&high), 2304);
    }

    /// Where alignment cannot matter, the live peak is what the three rules give.
    #[test]
    fn alignment_free_problems_get_the_rules_bound_from_one_sweep() {
        use super::*;
        use crate::Buffer;
        let mut next = crate::test_rng::below(0x9E37_79B9_7F4A_7C15);
        let mut fast = 0;
        for _ in 0..2000 {
            let n = 1 + next(20) as usize;
            let unit = [1u64, 2, 4, 8, 16][next(5) as usize];
            let buffers: Vec<Buffer> = (0..n)
                .map(|i| {
                    let lower = next(12);
                    let alignment = [1u64, 2, 4, 8, 16][next(5) as usize];
                    let size = unit * next(6) + u64::from(next(8) == 0); // now and then not
                    Buffer::new(format!("b{i}"), lower, lower + 1 + next(5), size)
                        .unwrap()
                        .aligned(alignment)
                        .unwrap()
                })
                .collect();
            let p = Problem::new(buffers, None).unwrap();
            if alignment_free(&p) {
                fast += 1;
                assert_eq!(live_bound(&p).peak, aligned_bound(&p), "{p:?}");
            }
        }
        assert!(fast > 200, "{fast}");
    }
}
