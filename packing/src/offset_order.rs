//! [`OffsetOrder`]: placed buffers kept in offset order, so that any subset of them can be
//! read back in offset order without sorting it.
//!
//! Best fit by size needs, for every placement, its `k` time-conflicting placed buffers in
//! offset order. Sorting them costs `O(k log k)` (or a radix sort's passes, which measured
//! half of the greedy's time on the 60k-buffer traces). Here the placed buffers sit in
//! leaves of at most [`LEAF`] ranges sorted by start, the leaves chained in offset order;
//! a subset is marked in one 64-bit mask per leaf and read back by walking the chain:
//! `O(k + leaves touched)` per read, `O(LEAF + log leaves)` per insertion.

/// Ranges per leaf at most (a leaf's marks fit one `u64`).
const LEAF: usize = 64;

/// Where a placed buffer sits: its leaf (an index into `leaves`) and its slot there.
#[derive(Debug, Clone, Copy)]
struct Spot {
    leaf: u32,
    slot: u32,
}

/// Placed ranges `(start, end, buffer)` in offset order, with marks for reading back a subset.
#[derive(Debug, Clone)]
pub(crate) struct OffsetOrder {
    /// Each leaf's ranges, sorted by start.
    leaves: Vec<Vec<(u64, u64, usize)>>,
    /// Leaf indices in offset order.
    chain: Vec<usize>,
    /// Each buffer's spot, `None` until inserted.
    spots: Vec<Option<Spot>>,
    /// Each leaf's marked slots.
    marks: Vec<u64>,
    /// How many leaves have a mark.
    marked_leaves: usize,
}

impl OffsetOrder {
    /// An empty order for buffers `0..buffers`.
    pub(crate) fn new(buffers: usize) -> OffsetOrder {
        OffsetOrder {
            leaves: vec![Vec::with_capacity(LEAF + 1)],
            chain: vec![0],
            spots: vec![None; buffers],
            marks: vec![0],
            marked_leaves: 0,
        }
    }

    /// Inserts buffer `i` placed at `[start, end)`. Call with no marks pending (between
    /// reads); an index out of range is ignored.
    pub(crate) fn insert(&mut self, i: usize, start: u64, end: u64) {
        if i >= self.spots.len() {
            return;
        }
        // The last leaf whose first start is ≤ `start` (the first leaf if none is).
        let at = self
            .chain
            .partition_point(|&l| {
                self.leaves
                    .get(l)
                    .and_then(|leaf| leaf.first())
                    .is_some_and(|&(s, _, _)| s <= start)
            })
            .saturating_sub(1);
        let Some(&leaf_id) = self.chain.get(at) else {
            return;
        };
        let Some(leaf) = self.leaves.get_mut(leaf_id) else {
            return;
        };
        let slot = leaf.partition_point(|&(s, _, _)| s <= start);
        leaf.insert(slot, (start, end, i));
        if leaf.len() <= LEAF {
            self.respot(leaf_id, slot);
            return;
        }
        // Split: the upper half moves to a new leaf, chained right after this one.
        let upper = leaf.split_off(LEAF / 2);
        let new_id = self.leaves.len();
        self.leaves.push(upper);
        self.marks.push(0);
        self.chain.insert(at + 1, new_id);
        self.respot(leaf_id, 0);
        self.respot(new_id, 0);
    }

    /// Rewrites the spots of leaf `leaf_id`'s ranges from slot `from` on.
    fn respot(&mut self, leaf_id: usize, from: usize) {
        let Some(leaf) = self.leaves.get(leaf_id) else {
            return;
        };
        for (slot, &(_, _, i)) in leaf.iter().enumerate().skip(from) {
            if let Some(spot) = self.spots.get_mut(i) {
                *spot = Some(Spot {
                    leaf: leaf_id as u32,
                    slot: slot as u32,
                });
            }
        }
    }

    /// Marks buffer `i` for the next [`read_marked`](Self::read_marked) (not inserted:
    /// ignored).
    pub(crate) fn mark(&mut self, i: usize) {
        let Some(&Some(spot)) = self.spots.get(i) else {
            return;
        };
        if let Some(m) = self.marks.get_mut(spot.leaf as usize) {
            if *m == 0 {
                self.marked_leaves += 1;
            }
            *m |= 1u64 << spot.slot;
        }
    }

    /// Appends the marked ranges `(start, end)` to `out` in start order, and clears the marks.
    pub(crate) fn read_marked(&mut self, out: &mut Vec<(u64, u64)>) {
        for &leaf_id in &self.chain {
            if self.marked_leaves == 0 {
                break;
            }
            let Some(m) = self.marks.get_mut(leaf_id) else {
                continue;
            };
            let mut bits = std::mem::take(m);
            if bits == 0 {
                continue;
            }
            self.marked_leaves -= 1;
            let Some(leaf) = self.leaves.get(leaf_id) else {
                continue;
            };
            while bits != 0 {
                if let Some(&(s, e, _)) = leaf.get(bits.trailing_zeros() as usize) {
                    out.push((s, e));
                }
                bits &= bits - 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;

    #[test]
    fn marked_subsets_come_back_in_start_order() {
        let mut next = crate::test_rng::below(0x1234_5678_9ABC_DEF1);
        let n = 2000;
        let mut order = OffsetOrder::new(n);
        let mut placed: Vec<(u64, u64, usize)> = Vec::new();
        for i in 0..n {
            let start = next(500) * 8; // many equal starts
            let end = start + 1 + next(64);
            order.insert(i, start, end);
            placed.push((start, end, i));
            if i % 50 == 0 {
                let subset: Vec<usize> = (0..placed.len()).filter(|_| next(3) == 0).collect();
                for &j in &subset {
                    order.mark(j);
                }
                let mut got = Vec::new();
                order.read_marked(&mut got);
                let mut want: Vec<(u64, u64)> =
                    subset.iter().map(|&j| (placed[j].0, placed[j].1)).collect();
                assert!(
                    got.windows(2).all(|w| w[0].0 <= w[1].0),
                    "not in start order"
                );
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want);
            }
        }
        assert!(order.leaves.len() > 40, "{} leaves", order.leaves.len());
        order.mark(n + 5); // ignored
        let mut none = Vec::new();
        order.read_marked(&mut none);
        assert!(none.is_empty());
    }
}
