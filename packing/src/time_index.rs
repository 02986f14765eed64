//! [`TimeIndex`]: which already-placed buffers are live during a given lifetime.
//!
//! Buffers are sorted by `lower`; a max-tree over that order holds, for every inserted
//! buffer, its `upper` (0 for the others; every real `upper` is ≥ 1). The buffers live during
//! `[l, u)` are those in the prefix with `lower < u` whose `upper > l`, found by descending
//! only into subtrees whose maximum `upper` exceeds `l`: `O((k + 1) log n)` for `k` hits.

use super::Problem;

/// Queries whose candidate prefix is at most this many buffers scan it instead of descending
/// (longer ones scan too when a sample shows the prefix dense with hits).
const SCAN_LEAVES: usize = 1 << 10;

/// An index of buffer lifetimes answering "which inserted buffers are live at some point of
/// `[l, u)`", output-sensitively.
///
/// ```
/// use packing::{time_index::TimeIndex, Buffer, Problem};
/// let p = Problem::new(
///     vec![Buffer::new("a", 0, 4, 1)?, Buffer::new("b", 4, 8, 1)?, Buffer::new("c", 2, 6, 1)?],
///     None,
/// )?;
/// let mut index = TimeIndex::new(&p);
/// index.insert(0);
/// index.insert(1);
/// assert_eq!(index.overlapping(3, 5), vec![0, 1]);
/// assert_eq!(index.overlapping(4, 5), vec![1]); // half-open: a ends at 4
/// assert!(index.overlapping(8, 9).is_empty());
/// # Ok::<(), packing::PackError>(())
/// ```
#[derive(Debug, Clone)]
pub struct TimeIndex {
    /// Buffer indices sorted by `(lower, index)`.
    order: Vec<usize>,
    /// `lower` of `order[k]`.
    lowers: Vec<u64>,
    /// Position of buffer `i` in `order`.
    position: Vec<usize>,
    /// `upper` of each buffer (by buffer index).
    uppers: Vec<u64>,
    /// Number of leaves (a power of two ≥ 1).
    leaves: usize,
    /// Implicit binary max-tree, root at 1, leaves at `leaves..2·leaves`.
    tree: Vec<u64>,
}

impl TimeIndex {
    /// An empty index over the buffers of `problem` (none inserted).
    ///
    /// ```
    /// use packing::{time_index::TimeIndex, Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 4, 1)?], None)?;
    /// assert!(TimeIndex::new(&p).overlapping(0, 4).is_empty());
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn new(problem: &Problem) -> TimeIndex {
        let buffers = problem.buffers();
        let mut order: Vec<usize> = (0..buffers.len()).collect();
        order.sort_by_key(|&i| (buffers.get(i).map_or(0, |b| b.lower), i));
        let lowers = order
            .iter()
            .map(|&i| buffers.get(i).map_or(0, |b| b.lower))
            .collect();
        let mut position = vec![0; buffers.len()];
        for (k, &i) in order.iter().enumerate() {
            if let Some(p) = position.get_mut(i) {
                *p = k;
            }
        }
        let leaves = buffers.len().next_power_of_two().max(1);
        TimeIndex {
            order,
            lowers,
            position,
            uppers: buffers.iter().map(|b| b.upper).collect(),
            leaves,
            tree: vec![0; 2 * leaves],
        }
    }

    /// Marks buffer `i` as placed (an index out of range is ignored).
    ///
    /// ```
    /// use packing::{time_index::TimeIndex, Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 4, 1)?], None)?;
    /// let mut index = TimeIndex::new(&p);
    /// index.insert(0);
    /// assert_eq!(index.overlapping(3, 9), vec![0]);
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn insert(&mut self, i: usize) {
        let (Some(&pos), Some(&upper)) = (self.position.get(i), self.uppers.get(i)) else {
            return;
        };
        let mut node = self.leaves + pos;
        while node >= 1 {
            match self.tree.get_mut(node) {
                Some(v) if *v < upper => *v = upper,
                _ => break,
            }
            node /= 2;
        }
    }

    /// Calls `f` with every inserted buffer live at some point of `[l, u)`, in `(lower, index)`
    /// order.
    ///
    /// ```
    /// use packing::{time_index::TimeIndex, Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 4, 1)?, Buffer::new("b", 1, 2, 1)?], None)?;
    /// let mut index = TimeIndex::new(&p);
    /// index.insert(0);
    /// index.insert(1);
    /// let mut seen = Vec::new();
    /// index.for_each_overlapping(1, 2, |i| seen.push(i));
    /// assert_eq!(seen, vec![0, 1]);
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn for_each_overlapping(&self, l: u64, u: u64, mut f: impl FnMut(usize)) {
        let end = self.lowers.partition_point(|&lower| lower < u);
        if end == 0 || l >= u {
            return;
        }
        // Dense queries (most of the prefix live) scan the leaves: one comparison each, no
        // descent. The descent costs a few node visits per hit, so it wins when hits are few.
        if let Some(leaves) = self.tree.get(self.leaves..self.leaves + end) {
            // Density from 64 evenly spaced leaves: scan when at least 1 in 16 is a hit.
            let step = (end / 64).max(1);
            let sampled = leaves.iter().step_by(step).filter(|&&u| u > l).count();
            if end <= SCAN_LEAVES || sampled * 16 >= end.div_ceil(step) {
                for (k, &upper) in leaves.iter().enumerate() {
                    if upper > l {
                        if let Some(&i) = self.order.get(k) {
                            f(i);
                        }
                    }
                }
                return;
            }
        }
        // Iterative descent on a fixed stack (depth ≤ 64): (node, first leaf, one past the
        // last leaf).
        let mut stack = [(0usize, 0usize, 0usize); 128];
        let mut top = 1usize;
        if let Some(first) = stack.first_mut() {
            *first = (1, 0, self.leaves);
        }
        while top > 0 {
            top -= 1;
            let Some(&(node, from, to)) = stack.get(top) else {
                break;
            };
            if from >= end || self.tree.get(node).is_none_or(|&m| m <= l) {
                continue;
            }
            if to - from == 1 {
                if let Some(&i) = self.order.get(from) {
                    f(i);
                }
                continue;
            }
            let mid = from + (to - from) / 2;
            // Right child first so that the left one is popped (and reported) first.
            // Depth ≤ 64 and one pending right child per level: the stack never overflows.
            if let Some(slot) = stack.get_mut(top) {
                *slot = (2 * node + 1, mid, to);
            }
            if let Some(slot) = stack.get_mut(top + 1) {
                *slot = (2 * node, from, mid);
            }
            top += 2;
        }
    }

    /// The inserted buffers live at some point of `[l, u)`, in `(lower, index)` order.
    ///
    /// ```
    /// use packing::{time_index::TimeIndex, Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 5, 6, 1)?], None)?;
    /// let mut index = TimeIndex::new(&p);
    /// index.insert(0);
    /// assert_eq!(index.overlapping(0, 6), vec![0]);
    /// assert!(index.overlapping(0, 5).is_empty());
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn overlapping(&self, l: u64, u: u64) -> Vec<usize> {
        let mut out = Vec::new();
        self.for_each_overlapping(l, u, |i| out.push(i));
        out
    }
}
