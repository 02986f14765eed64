//! [`FreeSpace`]: the free gaps among a set of pairwise-disjoint occupied ranges, for the
//! sweep greedy rules.
//!
//! A sweep in program order only ever places a buffer among the buffers live at its start,
//! and those are pairwise disjoint. So instead of gathering and sorting the live buffers for
//! every placement (`O(k log k)` for `k` live), the sweep keeps the gaps between them: by
//! start, each subtree knowing its longest gap (to merge on release, and for the lowest gap
//! that holds a size: a treap, `gap_tree`) and by length (for the smallest gap that holds a size).
//! A placement, a release and either query cost `O(log g)` for `g` gaps.

use std::collections::BTreeSet;

use super::gap_tree::GapTree;

/// The free space below the top of a set of disjoint occupied ranges: its gaps, and the top
/// (the highest occupied end; everything from it up is free).
///
/// ```
/// use packing::free_space::FreeSpace;
/// let mut space = FreeSpace::default();
/// space.occupy(0, 4);
/// space.occupy(6, 10);
/// space.occupy(12, 20);
/// assert_eq!(space.top(), 20);
/// assert_eq!(space.gaps().collect::<Vec<_>>(), vec![(4, 6), (10, 12)]);
/// space.release(6, 10); // merges with both neighbours
/// assert_eq!(space.gaps().collect::<Vec<_>>(), vec![(4, 12)]);
/// space.release(12, 20); // the top comes down past the merged gap
/// assert_eq!((space.top(), space.gaps().count()), (4, 0));
/// ```
#[derive(Debug, Clone, Default)]
pub struct FreeSpace {
    /// Gap start → gap end (exclusive), every gap non-empty and below `top`.
    by_start: GapTree,
    /// `(length, start)` of every gap.
    by_len: BTreeSet<(u64, u64)>,
    /// The highest occupied end (0 when nothing is occupied).
    top: u64,
}

impl FreeSpace {
    /// The highest occupied end: everything from it up is free.
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(8, 16);
    /// assert_eq!(space.top(), 16);
    /// ```
    pub fn top(&self) -> u64 {
        self.top
    }

    /// The gaps below the top, as `(start, end)` in start order.
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(8, 16);
    /// assert_eq!(space.gaps().collect::<Vec<_>>(), vec![(0, 8)]);
    /// ```
    pub fn gaps(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.by_start.iter()
    }

    /// The lowest gap of at least `len` units that starts at or above `from`, as
    /// `(start, end)`: `O(log g)`.
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(2, 3);
    /// space.occupy(8, 9);
    /// space.occupy(12, 13);
    /// assert_eq!(space.lowest_gap(2, 0), Some((0, 2)));
    /// assert_eq!(space.lowest_gap(3, 0), Some((3, 8)));
    /// assert_eq!(space.lowest_gap(3, 4), Some((9, 12)));
    /// assert_eq!(space.lowest_gap(6, 0), None);
    /// ```
    pub fn lowest_gap(&self, len: u64, from: u64) -> Option<(u64, u64)> {
        self.by_start.lowest_of_length(len, from)
    }

    /// The gaps of at least `len` units as `(start, end)`, shortest first (ties: the lowest).
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(2, 3);
    /// space.occupy(8, 9);
    /// assert_eq!(space.gaps_by_length(2).collect::<Vec<_>>(), vec![(0, 2), (3, 8)]);
    /// assert_eq!(space.gaps_by_length(3).collect::<Vec<_>>(), vec![(3, 8)]);
    /// ```
    pub fn gaps_by_length(&self, len: u64) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.by_len
            .range((len, 0)..)
            .map(|&(l, s)| (s, s.saturating_add(l)))
    }

    fn add_gap(&mut self, start: u64, end: u64) {
        if end > start {
            self.by_start.insert(start, end);
            self.by_len.insert((end - start, start));
        }
    }

    fn remove_gap(&mut self, start: u64, end: u64) {
        self.by_start.remove(start);
        self.by_len.remove(&(end - start, start));
    }

    /// Marks `[start, end)` occupied. It must be free: inside one gap, or at or above the top
    /// (a range that is not is a caller bug, caught by a debug assertion). Empty ranges are
    /// ignored.
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(10, 20);
    /// space.occupy(2, 4); // inside the gap [0, 10)
    /// assert_eq!(space.gaps().collect::<Vec<_>>(), vec![(0, 2), (4, 10)]);
    /// ```
    pub fn occupy(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        if start >= self.top {
            let top = self.top;
            self.add_gap(top, start);
            self.top = end;
            return;
        }
        let gap = self.by_start.at_or_below(start);
        debug_assert!(
            gap.is_some_and(|(_, e)| end <= e),
            "[{start}, {end}) is not free"
        );
        if let Some((s, e)) = gap {
            self.remove_gap(s, e);
            self.add_gap(s, start);
            self.add_gap(end, e);
        }
    }

    /// Frees the occupied `[start, end)`, merging it with the gaps beside it (and lowering the
    /// top when it was the highest range). Empty ranges are ignored.
    ///
    /// ```
    /// use packing::free_space::FreeSpace;
    /// let mut space = FreeSpace::default();
    /// space.occupy(0, 4);
    /// space.occupy(4, 8);
    /// space.release(0, 4);
    /// assert_eq!(space.gaps().collect::<Vec<_>>(), vec![(0, 4)]);
    /// space.release(4, 8);
    /// assert_eq!((space.top(), space.gaps().count()), (0, 0));
    /// ```
    pub fn release(&mut self, start: u64, end: u64) {
        if end <= start {
            return;
        }
        let (mut from, mut to) = (start, end);
        if let Some((s, e)) = start
            .checked_sub(1)
            .and_then(|key| self.by_start.at_or_below(key))
        {
            if e == start {
                self.remove_gap(s, e);
                from = s;
            }
        }
        if let Some(e) = self.by_start.get(end) {
            self.remove_gap(end, e);
            to = e;
        }
        if to >= self.top {
            self.top = from;
        } else {
            self.add_gap(from, to);
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;

    /// Random occupations and releases of disjoint ranges in `[0, 64)`, checked against a
    /// bitmap: the gaps are the maximal free runs below the highest occupied unit, in both
    /// orders, and the top is one past it.
    #[test]
    fn gaps_and_top_match_a_bitmap() {
        let mut next = crate::test_rng::below(0x0123_4567_89AB_CDEF);
        for _ in 0..300 {
            let mut space = FreeSpace::default();
            let mut used = [false; 64];
            let mut held: Vec<(u64, u64)> = Vec::new();
            for _ in 0..60 {
                if !held.is_empty() && next(3) == 0 {
                    let (s, e) = held.swap_remove(next(held.len() as u64) as usize);
                    space.release(s, e);
                    (s..e).for_each(|x| used[x as usize] = false);
                } else {
                    let s = next(60);
                    let e = s + 1 + next(4);
                    if (s..e).all(|x| !used[x as usize]) {
                        space.occupy(s, e);
                        (s..e).for_each(|x| used[x as usize] = true);
                        held.push((s, e));
                    }
                }
                let top = (0..64).rev().find(|&x| used[x]).map_or(0, |x| x as u64 + 1);
                assert_eq!(space.top(), top);
                let mut gaps = Vec::new();
                let mut x = 0u64;
                while x < top {
                    if used[x as usize] {
                        x += 1;
                        continue;
                    }
                    let start = x;
                    while x < top && !used[x as usize] {
                        x += 1;
                    }
                    gaps.push((start, x));
                }
                assert_eq!(space.gaps().collect::<Vec<_>>(), gaps);
                let mut by_len = gaps.clone();
                by_len.sort_by_key(|&(s, e)| (e - s, s));
                assert_eq!(space.gaps_by_length(0).collect::<Vec<_>>(), by_len);
                for len in 1..5 {
                    let from = next(64);
                    let lowest = gaps
                        .iter()
                        .copied()
                        .find(|&(s, e)| s >= from && e - s >= len);
                    assert_eq!(space.lowest_gap(len, from), lowest);
                }
            }
        }
    }
}
