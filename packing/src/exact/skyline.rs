//! The skyline search for perfect packings: problems whose every instant is full at the
//! bound, so that a placement of that height leaves no unit unused.
//!
//! When the live units equal `C` at every instant that has any, a placement of height `C`
//! is a tiling of the time × offset strip, and tilings have a normal form. Place buffers
//! bottom-up and the placed ones cover, at every instant, exactly `[0, h(t))`: a *skyline*.
//! Take a *well*: a run of equal height `z` with higher columns (or the ends of time) on both
//! sides. In any tiling that extends the placed buffers, the buffer covering the well's first
//! cell at height `z` sits at offset `z` (everything below is taken), starts where the well
//! starts (the cell before it is taken) and ends within it (the cell after it is taken). So
//! the search branches only on *which* buffer fills a well's corner — among those starting
//! there, no longer than the well — never on where. MiniMalloc's canonical placements (and
//! ours in `search`) branch on buffers whatever their start, and a tiling whose pieces turn
//! around a centre, so that no straight cut crosses it (a pinwheel), hides among those.
//!
//! **Which well**: the one with the fewest candidates (fail first), a candidate being a
//! buffer after which unplaced buffers can still chain, each starting where the last ended,
//! to the well's end at its level — what its cells at that level need. A well with none
//! ends the branch. **Pruning**: at each column of a well, the unplaced buffers lying within
//! it must cover the column up to its lower wall (nothing else can reach those cells). States
//! (unplaced buffers and skyline) whose subtrees failed are kept in a table under two 64-bit
//! hashes. **Restarts**: dives under Luby-sequence node limits, the candidates reshuffled
//! between them, alternate with the same search run backwards in time (the mirror image of a
//! tiling is a tiling): the search's difficulty is erratic, and either direction's or
//! order's easy case is often the other's hard one.
//!
//! Only for problems of that shape: no fixed offsets, and every instant with live units has
//! the same total. Anything else is `None` from [`Perfect::new`].

use std::time::Instant;

use rustc_hash::FxHashSet;

use super::decide::Effort;
use crate::greedy::{best_fit_by_size_until, SWEEPS};
use crate::{PackError, Placement, Problem};

/// A buffer of the search; times are columns (elementary intervals between consecutive
/// lifetime ends).
#[derive(Debug, Clone, Copy)]
struct Piece {
    /// First column.
    first: usize,
    /// One past the last column.
    end: usize,
    size: u64,
    alignment: u64,
    /// Index in the problem.
    orig: usize,
}

/// One level of the depth-first search: the well being filled and its next candidate.
#[derive(Debug, Clone, Copy)]
struct Frame {
    /// The well: first column, one past the last, its height.
    start: usize,
    end: usize,
    level: u64,
    /// Next index into the pieces starting at `start`.
    next: usize,
    /// The piece placed in the well's corner now, if any.
    chosen: Option<usize>,
}

/// What a search found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tiling {
    /// A placement whose height is the capacity.
    Found(Placement),
    /// The whole space was searched: no placement of that height exists (unless the
    /// failure table met a false match, which needs two independent 64-bit hashes to agree).
    Refuted,
    /// Out of nodes or time.
    Unknown,
}

/// The search in one direction of time.
#[derive(Debug)]
struct Skyline {
    capacity: u64,
    pieces: Vec<Piece>,
    /// Pieces starting at each column, in the order they are tried (pieces of one shape
    /// next to each other).
    starts: Vec<Vec<usize>>,
    /// Height per column (`capacity` where nothing is live).
    height: Vec<u64>,
    placed: Vec<bool>,
    /// Pieces not placed yet.
    left: usize,
    /// Offsets by problem index (0 for empty buffers).
    offsets: Vec<u64>,
    /// Hash of the state: the sum of each placed piece's random key and of each column's
    /// random weight times its height (wrapping), so a placement changes it in O(1).
    key: u128,
    /// Prefix sums of the columns' weights.
    weights: Vec<u128>,
    failed: FxHashSet<u128>,
    max_failed: usize,
    /// Scratch: columns from which a chain reaches a well's end.
    reach: Vec<bool>,
    /// Scratch: cover changes per column of a well.
    delta: Vec<u64>,
    /// State of the reshuffles between dives.
    seed: u64,
    /// The most pieces ever placed at once: how many, and their offsets by problem index
    /// (`None` for the others).
    deepest: (usize, Vec<Option<u64>>),
}

/// The Luby sequence 1, 1, 2, 1, 1, 2, 4, …: restart limits within a log factor of the best
/// fixed limit for any distribution of run lengths.
fn luby(mut k: u64) -> u64 {
    loop {
        let bits = 64 - k.leading_zeros();
        if bits == 0 || bits >= 64 {
            return 1;
        }
        if k == (1 << bits) - 1 {
            return 1 << (bits - 1);
        }
        k -= (1 << (bits - 1)) - 1;
    }
}

/// SplitMix64's step (the golden-ratio increment, then `memo`'s finaliser): hash keys and
/// reshuffles.
fn mix(z: u64) -> u64 {
    super::memo::mix(z.wrapping_add(0x9E37_79B9_7F4A_7C15))
}

/// Two independent 64-bit hashes of `x`, as one key.
fn key_of(x: u64) -> u128 {
    let a = mix(x);
    (u128::from(a) << 64) | u128::from(mix(a ^ 0x5151_5151_5151_5151))
}

impl Skyline {
    /// The search for `problem`, time reversed when `backwards`; `None` when it does not
    /// apply.
    fn new(problem: &Problem, max_failed: usize, backwards: bool) -> Option<Skyline> {
        let buffers = problem.buffers();
        if buffers.iter().any(|b| b.offset.is_some()) {
            return None;
        }
        let mut times: Vec<u64> = buffers
            .iter()
            .filter(|b| b.size > 0)
            .flat_map(|b| [b.lower, b.upper])
            .collect();
        times.sort_unstable();
        times.dedup();
        let column = |t: u64| times.binary_search(&t).ok();
        let columns = times.len().saturating_sub(1);
        let mut pieces = Vec::new();
        // Live units per column, by differences (linear in buffers and columns).
        let mut change = vec![0i128; columns + 1];
        for (orig, b) in buffers.iter().enumerate().filter(|(_, b)| b.size > 0) {
            let (mut first, mut end) = (column(b.lower)?, column(b.upper)?);
            *change.get_mut(first)? += i128::from(b.size);
            *change.get_mut(end)? -= i128::from(b.size);
            if backwards {
                (first, end) = (columns - end, columns - first);
            }
            pieces.push(Piece {
                first,
                end,
                size: b.size,
                alignment: b.alignment.max(1),
                orig,
            });
        }
        let mut live = Vec::with_capacity(columns);
        let mut sum = 0i128;
        for d in change.iter().take(columns) {
            sum += d;
            live.push(u64::try_from(sum).ok()?);
        }
        if backwards {
            live.reverse();
        }
        let capacity = live.iter().copied().max().unwrap_or(0);
        if live.iter().any(|&l| l != 0 && l != capacity) {
            return None;
        }
        let mut starts = vec![Vec::new(); columns];
        for (i, p) in pieces.iter().enumerate() {
            starts.get_mut(p.first)?.push(i);
        }
        // Longest first, then largest: a long piece fills most of its well.
        for s in &mut starts {
            s.sort_by_key(|&i| {
                pieces.get(i).map(|p| {
                    (
                        std::cmp::Reverse(p.end),
                        std::cmp::Reverse(p.size),
                        p.alignment,
                    )
                })
            });
        }
        let height: Vec<u64> = live
            .iter()
            .map(|&l| if l == 0 { capacity } else { 0 })
            .collect();
        let mut weights = Vec::with_capacity(columns + 1);
        let mut sum = 0u128;
        weights.push(sum);
        for c in 0..columns {
            sum = sum.wrapping_add(key_of(c as u64 ^ 0xC01u64.rotate_right(12)) | 1);
            weights.push(sum);
        }
        let key = height.iter().enumerate().fold(0u128, |k, (c, &h)| {
            let w = weights
                .get(c + 1)
                .copied()
                .unwrap_or(0)
                .wrapping_sub(weights.get(c).copied().unwrap_or(0));
            k.wrapping_add(w.wrapping_mul(u128::from(h)))
        });
        Some(Skyline {
            capacity,
            left: pieces.len(),
            placed: vec![false; pieces.len()],
            offsets: vec![0; buffers.len()],
            starts,
            height,
            pieces,
            key,
            weights,
            failed: FxHashSet::default(),
            max_failed,
            reach: vec![false; columns + 1],
            delta: Vec::new(),
            seed: u64::from(backwards),
            deepest: (0, Vec::new()),
        })
    }

    /// Places piece `i` at `level` (`raise`) or takes it away, keeping heights and key.
    fn shift(&mut self, i: usize, level: u64, raise: bool) {
        let Some(&p) = self.pieces.get(i) else {
            return;
        };
        let Some(hs) = self.height.get_mut(p.first..p.end) else {
            return;
        };
        for h in hs.iter_mut() {
            *h = if raise { *h + p.size } else { *h - p.size };
        }
        let span = self
            .weights
            .get(p.end)
            .copied()
            .unwrap_or(0)
            .wrapping_sub(self.weights.get(p.first).copied().unwrap_or(0));
        let change = span
            .wrapping_mul(u128::from(p.size))
            .wrapping_add(key_of(!(i as u64)));
        self.key = if raise {
            self.key.wrapping_add(change)
        } else {
            self.key.wrapping_sub(change)
        };
        if let Some(flag) = self.placed.get_mut(i) {
            *flag = raise;
        }
        if let Some(o) = self.offsets.get_mut(p.orig) {
            *o = if raise { level } else { 0 };
        }
        if raise {
            self.left -= 1;
        } else {
            self.left += 1;
        }
    }

    /// Piece `i` if it is unplaced and may sit at `level` in a well ending at `end`.
    fn fits(&self, i: usize, level: u64, end: usize) -> Option<Piece> {
        let p = *self.pieces.get(i)?;
        let ok = !self.placed.get(i).copied().unwrap_or(true)
            && p.end <= end
            && level + p.size <= self.capacity
            && (p.alignment == 1 || level % p.alignment == 0);
        ok.then_some(p)
    }

    /// The well to branch on (the fewest candidates; then the lowest, then the earliest), or
    /// `None` when a well cannot be filled. Wells touching the columns `[wa, we)` just
    /// raised (every well when `None`) are also checked for cover; the others passed
    /// that check with the inputs they still have.
    fn choose(&mut self, window: Option<(usize, usize)>) -> Option<(usize, usize, u64)> {
        let columns = self.height.len();
        let (wa, we) = window.unwrap_or((0, columns));
        let mut best: Option<(usize, u64, usize, usize)> = None;
        let mut a = 0;
        while a < columns {
            let level = self.height.get(a).copied().unwrap_or(0);
            let mut b = a + 1;
            while self.height.get(b) == Some(&level) {
                b += 1;
            }
            let left = a.checked_sub(1).and_then(|c| self.height.get(c)).copied();
            let right = self.height.get(b).copied();
            let well = level < self.capacity
                && left.is_none_or(|h| h > level)
                && right.is_none_or(|h| h > level);
            if well {
                let near = b + 1 >= wa && a <= we;
                let top = left
                    .unwrap_or(self.capacity)
                    .min(right.unwrap_or(self.capacity));
                if near && !self.covered(a, b, top) {
                    return None;
                }
                let n = self.candidates(a, b, level);
                if n == 0 {
                    return None;
                }
                if best.is_none_or(|(m, l, _, _)| (n, level) < (m, l)) {
                    best = Some((n, level, a, b));
                }
            }
            a = b;
        }
        best.map(|(_, level, a, b)| (a, b, level))
    }

    /// Candidates at the well `[a, b)`: pieces starting at `a` after which unplaced pieces
    /// chain on to `b` at `level` (found backwards from `b`).
    fn candidates(&mut self, a: usize, b: usize, level: u64) -> usize {
        if let Some(r) = self.reach.get_mut(a..=b) {
            r.fill(false);
        }
        if let Some(r) = self.reach.get_mut(b) {
            *r = true;
        }
        let mut count = 0;
        for c in (a..b).rev() {
            let mut any = false;
            for &i in self.starts.get(c).map_or(&[][..], Vec::as_slice) {
                let chains = self
                    .fits(i, level, b)
                    .is_some_and(|p| self.reach.get(p.end).copied().unwrap_or(false));
                if chains {
                    any = true;
                    if c > a {
                        break;
                    }
                    count += 1;
                }
            }
            if let Some(r) = self.reach.get_mut(c) {
                *r = any;
            }
        }
        count
    }

    /// Whether the unplaced pieces lying within the well `[a, b)` cover each of its columns
    /// up to `top`, the lower of its walls: a piece covering a cell below `top` sits below
    /// both walls, so it lies within the well.
    fn covered(&mut self, a: usize, b: usize, top: u64) -> bool {
        let mut delta = std::mem::take(&mut self.delta);
        delta.clear();
        delta.resize(b - a + 1, 0);
        for c in a..b {
            for &i in self.starts.get(c).map_or(&[][..], Vec::as_slice) {
                let inside = self
                    .pieces
                    .get(i)
                    .filter(|p| p.end <= b && !self.placed.get(i).copied().unwrap_or(true));
                if let Some(p) = inside {
                    if let Some(d) = delta.get_mut(c - a) {
                        *d = d.wrapping_add(p.size);
                    }
                    if let Some(d) = delta.get_mut(p.end - a) {
                        *d = d.wrapping_sub(p.size);
                    }
                }
            }
        }
        let mut cover = 0u64;
        let mut ok = true;
        for (d, &h) in delta.iter().zip(self.height.get(a..b).unwrap_or(&[])) {
            cover = cover.wrapping_add(*d);
            if cover < top.saturating_sub(h) {
                ok = false;
                break;
            }
        }
        self.delta = delta;
        ok
    }

    /// Keeps the placed pieces when they are more than ever before.
    fn record(&mut self) {
        let placed = self.pieces.len() - self.left;
        if placed <= self.deepest.0 {
            return;
        }
        let mut offsets = vec![None; self.offsets.len()];
        for (p, _) in self.pieces.iter().zip(&self.placed).filter(|(_, &x)| x) {
            if let Some(o) = offsets.get_mut(p.orig) {
                *o = self.offsets.get(p.orig).copied();
            }
        }
        self.deepest = (placed, offsets);
    }

    /// One dive, depth first, until a tiling is found, the space is exhausted or `effort`
    /// runs out; then (when it ran out) the candidates are reshuffled, shape by shape, for
    /// the next dive. Failed states stay in the table.
    fn dive(&mut self, effort: &mut Effort) -> Tiling {
        let t = self.depth_first(effort);
        if t == Tiling::Unknown {
            let seed = mix(self.seed);
            self.seed = seed;
            let pieces = &self.pieces;
            for s in &mut self.starts {
                s.sort_by_key(|&i| {
                    pieces.get(i).map_or(0, |p| {
                        mix(seed ^ mix(p.end as u64 ^ mix(p.size ^ mix(p.alignment))))
                    })
                });
            }
        }
        t
    }

    fn depth_first(&mut self, effort: &mut Effort) -> Tiling {
        let mut stack: Vec<Frame> = Vec::new();
        let mut descend = true;
        loop {
            if descend {
                if self.left == 0 {
                    return Tiling::Found(Placement {
                        offsets: self.offsets.clone(),
                    });
                }
                if effort.exhausted() {
                    for f in stack.iter().rev() {
                        if let Some(c) = f.chosen {
                            self.shift(c, f.level, false);
                        }
                    }
                    return Tiling::Unknown;
                }
                effort.nodes += 1;
                if let Some(n) = effort.nodes_left.as_mut() {
                    *n = n.saturating_sub(1);
                }
                let raised = stack
                    .last()
                    .and_then(|f| f.chosen)
                    .and_then(|c| self.pieces.get(c))
                    .map(|p| (p.first, p.end));
                if !self.failed.contains(&self.key) {
                    if let Some((start, end, level)) = self.choose(raised) {
                        stack.push(Frame {
                            start,
                            end,
                            level,
                            next: 0,
                            chosen: None,
                        });
                    }
                }
                descend = false;
            }
            let Some(&frame) = stack.last() else {
                return Tiling::Refuted;
            };
            let mut tried = frame.chosen.and_then(|c| self.pieces.get(c)).copied();
            if let Some(c) = frame.chosen {
                self.shift(c, frame.level, false);
            }
            let shape = |p: &Piece| (p.end, p.size, p.alignment);
            let list = self.starts.get(frame.start).map_or(&[][..], Vec::as_slice);
            let mut next = frame.next;
            let mut pick = None;
            while let Some(&i) = list.get(next) {
                next += 1;
                if let Some(p) = self.fits(i, frame.level, frame.end) {
                    // A piece of the shape just tried gives the same subtree.
                    if tried.is_some_and(|t| shape(&t) == shape(&p)) {
                        continue;
                    }
                    tried = Some(p);
                    pick = Some(i);
                    break;
                }
            }
            match (pick, stack.last_mut()) {
                (Some(i), Some(f)) => {
                    f.next = next;
                    f.chosen = Some(i);
                    self.shift(i, frame.level, true);
                    self.record();
                    descend = true;
                }
                _ => {
                    stack.pop();
                    if self.failed.len() < self.max_failed {
                        self.failed.insert(self.key);
                    }
                }
            }
        }
    }
}

/// The skyline search of one problem, forwards and backwards in time, resumable.
#[derive(Debug)]
pub(crate) struct Perfect {
    directions: [Skyline; 2],
    /// Dives so far (the next one's Luby index, and direction).
    dives: u64,
}

/// Nodes of the shortest dive (times the Luby sequence).
const DIVE: u64 = 4096;

impl Perfect {
    /// The search for `problem` (failure tables of up to `max_failed` states each way), or
    /// `None` when the problem has a fixed offset or an instant with live units other than
    /// zero or the largest total.
    pub(crate) fn new(problem: &Problem, max_failed: usize) -> Option<Perfect> {
        Some(Perfect {
            directions: [
                Skyline::new(problem, max_failed, false)?,
                Skyline::new(problem, max_failed, true)?,
            ],
            dives: 0,
        })
    }

    /// The height of a perfect placement: the live units at every instant that has any.
    pub(crate) fn capacity(&self) -> u64 {
        self.directions[0].capacity
    }

    /// The largest partial tiling of each direction, completed by the greedy rules (its
    /// buffers pinned, the rest placed around them by the sweeps, and by best fit by size
    /// while `deadline` allows), the lowest kept: an anytime answer close to the bound when a
    /// tiling is nearly done. `None` before any dive placed a buffer.
    ///
    /// Errors: as the greedy rules' ([`PackError::Overflow`]).
    pub(crate) fn complete(
        &self,
        problem: &Problem,
        deadline: Option<Instant>,
    ) -> Result<Option<(Placement, u64)>, PackError> {
        let mut best: Option<(Placement, u64)> = None;
        let mut keep = |placement: Placement| -> Result<(), PackError> {
            let peak = placement.peak(problem)?;
            if best.as_ref().is_none_or(|&(_, p)| peak < p) {
                best = Some((placement, peak));
            }
            Ok(())
        };
        for side in &self.directions {
            let partial = &side.deepest.1;
            if partial.iter().all(Option::is_none) {
                continue;
            }
            let mut buffers = problem.buffers().to_vec();
            for (b, o) in buffers.iter_mut().zip(partial) {
                if let Some(o) = *o {
                    *b = b.clone().fixed_at(o)?;
                }
            }
            let pinned = Problem::new(buffers, problem.capacity())?;
            for sweep in SWEEPS {
                keep(sweep(&pinned)?)?;
            }
            match best_fit_by_size_until(&pinned, deadline) {
                Ok(placement) => keep(placement)?,
                Err(PackError::Deadline { .. }) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(best)
    }

    /// Dives, alternating directions, until a tiling is found, one direction's space is
    /// exhausted (a proof for both), `nodes` are spent or `effort` runs out; a later call
    /// goes on with the next dive. Each dive runs to its own limit (of `effort`), so the last
    /// one may pass `nodes`.
    pub(crate) fn search(&mut self, effort: &mut Effort, nodes: u64) -> Tiling {
        let mut spent = 0;
        while spent < nodes && !effort.exhausted() {
            let [forwards, backwards] = &mut self.directions;
            let side = if self.dives % 2 == 0 {
                forwards
            } else {
                backwards
            };
            let mut part = effort.share(DIVE.saturating_mul(luby(self.dives / 2 + 1)));
            let t = side.dive(&mut part);
            effort.absorb(&part);
            spent += part.nodes;
            self.dives += 1;
            if t != Tiling::Unknown {
                return t;
            }
        }
        Tiling::Unknown
    }
}

#[cfg(test)]
mod tests {
    use super::super::decide::{Decider, Decision};
    use super::super::instance::Prepared;
    use super::*;
    use crate::check::check;
    use crate::test_rng::below;
    use crate::Buffer;

    fn unlimited() -> Effort {
        Effort {
            nodes_left: None,
            deadline: None,
            nodes: 0,
        }
    }

    /// The canonical search's answer at `capacity` (every group placed).
    fn canonical_fits(problem: &Problem, capacity: u64) -> bool {
        let prepared = Prepared::new(problem).unwrap_or_else(|e| panic!("{e}"));
        prepared.instances.iter().all(|inst| {
            let d = Decider::new(inst, capacity, 1 << 12).run(&mut unlimited());
            assert_ne!(d, Decision::Unknown);
            d != Decision::No
        })
    }

    /// A `width × span` grid cut guillotine-style into up to `n` rectangles, as buffers with
    /// alignments drawn from 1, 1, 2 and 3.
    fn cut(seed: u64, width: u64, span: u64, n: usize) -> Problem {
        let mut next = below(seed);
        let mut rects = vec![(0, width, 0, span)];
        for _ in 1..n {
            let k = next(rects.len() as u64) as usize;
            let (x, w, t, d) = rects[k];
            if w > 1 && (d == 1 || next(2) == 0) {
                let c = 1 + next(w - 1);
                rects[k] = (x, c, t, d);
                rects.push((x + c, w - c, t, d));
            } else if d > 1 {
                let c = 1 + next(d - 1);
                rects[k] = (x, w, t, c);
                rects.push((x, w, t + c, d - c));
            }
        }
        let buffers = rects
            .iter()
            .enumerate()
            .map(|(i, &(_, w, t, d))| {
                let b = Buffer::new(format!("b{i}"), t, t + d, w).unwrap_or_else(|e| panic!("{e}"));
                b.aligned([1, 1, 2, 3][next(4) as usize])
                    .unwrap_or_else(|e| panic!("{e}"))
            })
            .collect();
        Problem::new(buffers, Some(width)).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn luby_runs_as_published() {
        let first: Vec<u64> = (1..=15).map(luby).collect();
        assert_eq!(first, [1, 1, 2, 1, 1, 2, 4, 1, 1, 2, 1, 1, 2, 4, 8]);
    }

    #[test]
    fn refutes_a_flat_problem_that_does_not_tile() {
        // Every instant holds 2 units, but `a` and `b` must both sit at 0 (alignment 2 in a
        // strip of 2) and they meet at time 1.
        let p = Problem::new(
            vec![
                Buffer::new("a", 0, 2, 1)
                    .and_then(|b| b.aligned(2))
                    .unwrap_or_else(|e| panic!("{e}")),
                Buffer::new("b", 1, 3, 1)
                    .and_then(|b| b.aligned(2))
                    .unwrap_or_else(|e| panic!("{e}")),
                Buffer::new("c", 0, 1, 1).unwrap_or_else(|e| panic!("{e}")),
                Buffer::new("d", 2, 3, 1).unwrap_or_else(|e| panic!("{e}")),
            ],
            None,
        )
        .unwrap_or_else(|e| panic!("{e}"));
        let mut search = Perfect::new(&p, 64).unwrap_or_else(|| panic!("flat"));
        assert_eq!(search.capacity(), 2);
        assert_eq!(search.search(&mut unlimited(), u64::MAX), Tiling::Refuted);
        assert!(!canonical_fits(&p, 2));
    }

    /// `minimize` and `fits`, which take the search's refutations as proofs, agree with the
    /// canonical search on small flat problems, among them some whose cheap bound is the
    /// strip's width and yet no tiling exists.
    #[test]
    fn minimize_and_fits_agree_with_the_canonical_search() {
        use super::super::{fits, minimize, Fit, SolveOptions};
        let options = SolveOptions {
            budget: None,
            node_limit: None,
            ..SolveOptions::default()
        };
        let mut bound_fooled = 0;
        for seed in 1..200u64 {
            let p = cut(seed, 6, 7, 3 + (seed % 9) as usize);
            let optimum = (6..).find(|&c| canonical_fits(&p, c)).unwrap_or(0);
            let s = minimize(&p, &options).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!((s.peak, s.proven_optimal), (optimum, true), "seed {seed}");
            let fit = fits(&p, 6, &options).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(matches!(fit, Fit::Yes(_)), optimum == 6, "seed {seed}");
            if optimum > 6 && crate::bound::lower_bound(&p) == 6 {
                bound_fooled += 1;
            }
        }
        assert!(bound_fooled > 5, "{bound_fooled}");
    }

    #[test]
    fn refuses_problems_that_are_not_flat() {
        let b = |id: &str, l, u, s| Buffer::new(id, l, u, s).unwrap_or_else(|e| panic!("{e}"));
        let uneven = Problem::new(vec![b("a", 0, 2, 2), b("b", 1, 3, 1)], None);
        assert!(Perfect::new(&uneven.unwrap_or_else(|e| panic!("{e}")), 64).is_none());
        let pinned = Problem::new(
            vec![b("a", 0, 2, 2)
                .fixed_at(0)
                .unwrap_or_else(|e| panic!("{e}"))],
            None,
        );
        assert!(Perfect::new(&pinned.unwrap_or_else(|e| panic!("{e}")), 64).is_none());
        // A gap in time is fine: nothing is live there.
        let gap = Problem::new(vec![b("a", 0, 2, 2), b("b", 5, 6, 2)], None);
        assert!(Perfect::new(&gap.unwrap_or_else(|e| panic!("{e}")), 64).is_some());
    }

    /// Both directions, searched to the end, agree with the canonical search on small
    /// tilings with alignments (some of which no longer tile), and every tiling found is a
    /// valid placement at the bound.
    #[test]
    fn agrees_with_the_canonical_search() {
        let (mut found, mut refuted) = (0, 0);
        for seed in 1..400u64 {
            let p = cut(seed, 6, 7, 3 + (seed % 9) as usize);
            let tiles = canonical_fits(&p, 6);
            for backwards in [false, true] {
                let mut sky =
                    Skyline::new(&p, 1 << 12, backwards).unwrap_or_else(|| panic!("flat"));
                match sky.dive(&mut unlimited()) {
                    Tiling::Found(placement) => {
                        assert!(tiles, "seed {seed}: a tiling the canonical search refutes");
                        assert!(check(&p, &placement).is_empty(), "seed {seed}");
                        assert_eq!(placement.peak(&p).ok(), Some(6));
                        found += 1;
                    }
                    Tiling::Refuted => {
                        assert!(!tiles, "seed {seed}: refuted a problem that tiles");
                        refuted += 1;
                    }
                    Tiling::Unknown => panic!("seed {seed}: no limit was set"),
                }
            }
        }
        assert!(
            found > 100 && refuted > 20,
            "{found} found, {refuted} refuted"
        );
    }

    /// Cut short, the search still offers a valid placement: its partial tiling completed.
    #[test]
    fn a_partial_tiling_completes_to_a_valid_placement() {
        for seed in 1..40u64 {
            let p = cut(seed, 12, 12, 30);
            let Some(mut search) = Perfect::new(&p, 1 << 12) else {
                panic!("flat");
            };
            let mut effort = Effort {
                nodes_left: Some(5),
                deadline: None,
                nodes: 0,
            };
            let _ = search.search(&mut effort, 5);
            let Ok(Some((placement, peak))) = search.complete(&p, None) else {
                panic!("seed {seed}: nothing placed");
            };
            let v = check(&p.clone().with_capacity(None), &placement);
            assert!(v.is_empty(), "seed {seed}: {v:?}");
            assert_eq!(placement.peak(&p).ok(), Some(peak));
            assert!(peak >= 12);
        }
    }
}
