//! [`GapTree`]: free gaps ordered by start, each subtree knowing its longest gap, so that the
//! lowest gap of at least a given length is found in `O(log g)` for `g` gaps.
//!
//! First fit asks, for every placement, for the lowest gap that holds a buffer. Scanning the
//! gaps from the bottom costs `O(g)` a placement: on a 1,000,000-buffer training trace with
//! 292,782 buffers live together that was 15.6 s (#30). A treap (a binary search tree by
//! start, heap-ordered by a random priority, so `O(log g)` deep in expectation whatever the
//! order of the operations) keeps each subtree's longest gap and skips every subtree whose
//! longest gap is too short. The nodes live in one vector, linked by index; freed slots are
//! reused.

/// No node.
const NIL: u32 = u32::MAX;

#[derive(Debug, Clone)]
struct Node {
    start: u64,
    end: u64,
    priority: u64,
    left: u32,
    right: u32,
    /// The longest gap in this subtree (this node's included).
    longest: u64,
}

/// Disjoint gaps `[start, end)` keyed by start (see the module docs).
#[derive(Debug, Clone)]
pub(crate) struct GapTree {
    nodes: Vec<Node>,
    /// Slots of removed nodes, reused by the next insertions.
    free: Vec<u32>,
    root: u32,
    /// The state of the priorities' generator (xorshift64*: deterministic, never zero).
    state: u64,
}

impl Default for GapTree {
    fn default() -> GapTree {
        GapTree {
            nodes: Vec::new(),
            free: Vec::new(),
            root: NIL,
            state: 0x9E37_79B9_7F4A_7C15,
        }
    }
}

impl GapTree {
    fn node(&self, i: u32) -> Option<&Node> {
        self.nodes.get(i as usize)
    }

    fn node_mut(&mut self, i: u32) -> Option<&mut Node> {
        self.nodes.get_mut(i as usize)
    }

    fn longest(&self, i: u32) -> u64 {
        self.node(i).map_or(0, |n| n.longest)
    }

    /// Recomputes `i`'s longest gap from its own and its children's.
    fn update(&mut self, i: u32) {
        let Some(n) = self.node(i) else { return };
        let longest = (n.end - n.start)
            .max(self.longest(n.left))
            .max(self.longest(n.right));
        if let Some(n) = self.node_mut(i) {
            n.longest = longest;
        }
    }

    fn set_children(&mut self, i: u32, left: u32, right: u32) {
        if let Some(n) = self.node_mut(i) {
            n.left = left;
            n.right = right;
        }
        self.update(i);
    }

    /// Splits subtree `t` into the gaps starting before `key` and the rest.
    fn split(&mut self, t: u32, key: u64) -> (u32, u32) {
        let Some(&Node {
            start, left, right, ..
        }) = self.node(t)
        else {
            return (NIL, NIL);
        };
        if start < key {
            let (l, r) = self.split(right, key);
            self.set_children(t, left, l);
            (t, r)
        } else {
            let (l, r) = self.split(left, key);
            self.set_children(t, r, right);
            (l, t)
        }
    }

    /// Joins two subtrees, every start in `a` below every start in `b`.
    fn merge(&mut self, a: u32, b: u32) -> u32 {
        let (Some(x), Some(y)) = (self.node(a), self.node(b)) else {
            return if a == NIL { b } else { a };
        };
        let (xl, xr, yl, yr) = (x.left, x.right, y.left, y.right);
        if x.priority > y.priority {
            let r = self.merge(xr, b);
            self.set_children(a, xl, r);
            a
        } else {
            let l = self.merge(a, yl);
            self.set_children(b, l, yr);
            b
        }
    }

    /// Adds the gap `[start, end)` (non-empty, disjoint from the others).
    pub(crate) fn insert(&mut self, start: u64, end: u64) {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        let node = Node {
            start,
            end,
            priority: self.state.wrapping_mul(0x2545_F491_4F6C_DD1D),
            left: NIL,
            right: NIL,
            longest: end - start,
        };
        let i = match self.free.pop() {
            Some(i) => {
                if let Some(slot) = self.node_mut(i) {
                    *slot = node;
                }
                i
            }
            None => {
                self.nodes.push(node);
                u32::try_from(self.nodes.len() - 1).unwrap_or(NIL)
            }
        };
        let (l, r) = self.split(self.root, start);
        let left = self.merge(l, i);
        self.root = self.merge(left, r);
    }

    /// Removes the gap starting at `start`, if there is one.
    pub(crate) fn remove(&mut self, start: u64) {
        let (l, r) = self.split(self.root, start);
        let (m, r) = match start.checked_add(1) {
            Some(next) => self.split(r, next),
            None => (r, NIL),
        };
        if m != NIL {
            self.free.push(m);
        }
        self.root = self.merge(l, r);
    }

    /// The end of the gap starting at `start`.
    pub(crate) fn get(&self, start: u64) -> Option<u64> {
        let mut t = self.root;
        while let Some(n) = self.node(t) {
            if start == n.start {
                return Some(n.end);
            }
            t = if start < n.start { n.left } else { n.right };
        }
        None
    }

    /// The gap with the highest start at or below `key`.
    pub(crate) fn at_or_below(&self, key: u64) -> Option<(u64, u64)> {
        let mut best = None;
        let mut t = self.root;
        while let Some(n) = self.node(t) {
            if n.start <= key {
                best = Some((n.start, n.end));
                t = n.right;
            } else {
                t = n.left;
            }
        }
        best
    }

    /// The lowest gap starting at or above `from` that is at least `len` long.
    pub(crate) fn lowest_of_length(&self, len: u64, from: u64) -> Option<(u64, u64)> {
        self.lowest_in(self.root, len, from)
    }

    fn lowest_in(&self, t: u32, len: u64, from: u64) -> Option<(u64, u64)> {
        let n = self.node(t)?;
        if n.longest < len {
            return None;
        }
        if n.start >= from {
            if let Some(found) = self.lowest_in(n.left, len, from) {
                return Some(found);
            }
            if n.end - n.start >= len {
                return Some((n.start, n.end));
            }
        }
        self.lowest_in(n.right, len, from)
    }

    /// The gaps in start order.
    pub(crate) fn iter(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        let mut stack = Vec::new();
        let mut t = self.root;
        std::iter::from_fn(move || {
            while let Some(n) = self.node(t) {
                stack.push(t);
                t = n.left;
            }
            let n = self.node(stack.pop()?)?;
            t = n.right;
            Some((n.start, n.end))
        })
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::restriction)] // test code: a failed check panics

    use super::*;
    use std::collections::BTreeMap;

    /// Random insertions and removals of disjoint gaps, checked against a `BTreeMap` after each
    /// step: the order, lookups, predecessors and every lowest-of-length query.
    #[test]
    fn agrees_with_a_sorted_map() {
        let mut next = crate::test_rng::below(0x005E_ED0F_6A95);
        for _ in 0..200 {
            let mut tree = GapTree::default();
            let mut map: BTreeMap<u64, u64> = BTreeMap::new();
            for _ in 0..80 {
                let start = next(200) * 4;
                let coin = next(2) == 0;
                match map.entry(start) {
                    std::collections::btree_map::Entry::Occupied(e) => {
                        if coin {
                            tree.remove(start);
                            e.remove();
                        }
                    }
                    std::collections::btree_map::Entry::Vacant(e) => {
                        let end = start + 1 + next(4);
                        tree.insert(start, end);
                        e.insert(end);
                    }
                }
                let all: Vec<_> = map.iter().map(|(&s, &e)| (s, e)).collect();
                assert_eq!(tree.iter().collect::<Vec<_>>(), all);
                let key = next(820);
                assert_eq!(tree.get(key), map.get(&key).copied());
                assert_eq!(
                    tree.at_or_below(key),
                    map.range(..=key).next_back().map(|(&s, &e)| (s, e))
                );
                for len in 0..6 {
                    let want = all.iter().copied().find(|&(s, e)| s >= key && e - s >= len);
                    assert_eq!(
                        tree.lowest_of_length(len, key),
                        want,
                        "len {len} from {key}"
                    );
                }
            }
            // Removed slots are reused: the vector holds no more nodes than were ever live.
            assert!(tree.nodes.len() <= 200);
        }
    }

    fn depth(tree: &GapTree, t: u32) -> usize {
        tree.node(t)
            .map_or(0, |n| 1 + depth(tree, n.left).max(depth(tree, n.right)))
    }

    /// The work bound behind `O(log g)`: gaps added in increasing order (what a sweep does
    /// when buffers pile up, and the worst order for a plain search tree, which would be
    /// 100,000 deep) leave a tree about `2·log2 g` deep; so do removals from the bottom.
    #[test]
    fn stays_logarithmically_deep_in_the_worst_order() {
        let mut tree = GapTree::default();
        let n = 100_000u64;
        for k in 0..n {
            tree.insert(3 * k, 3 * k + 1 + k % 2);
        }
        let d = depth(&tree, tree.root);
        assert!(d <= 4 * 17, "depth {d} for {n} gaps");
        for k in 0..n / 2 {
            tree.remove(3 * k);
        }
        let d = depth(&tree, tree.root);
        assert!(d <= 4 * 16, "depth {d} for {} gaps", n / 2);
        assert_eq!(
            tree.lowest_of_length(2, 0),
            Some((3 * (n / 2 + 1), 3 * (n / 2 + 1) + 2))
        );
    }
}
