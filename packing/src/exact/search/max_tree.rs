//! The maximum of the per-section sums of unplaced sizes over a range of sections: the
//! search's level check (`level + max ≤ capacity` over the current component) and its
//! candidate filter ask for it at every node, and every placement changes a run of leaves.
//! An implicit binary max-tree: point updates refreshed bottom-up per run, range maxima and
//! the positions of a range's maxima in `O(log S)` (plus output).

/// Max-tree over section sums (leaves at `leaves + s`).
#[derive(Debug, Clone, Default)]
pub(super) struct MaxTree {
    leaves: usize,
    node: Vec<u64>,
}

impl MaxTree {
    pub(super) fn build(values: &[u64]) -> MaxTree {
        let leaves = values.len().next_power_of_two().max(1);
        let mut node = vec![0u64; 2 * leaves];
        for (s, &v) in values.iter().enumerate() {
            if let Some(x) = node.get_mut(leaves + s) {
                *x = v;
            }
        }
        for i in (1..leaves).rev() {
            let v = get(&node, 2 * i).max(get(&node, 2 * i + 1));
            if let Some(x) = node.get_mut(i) {
                *x = v;
            }
        }
        MaxTree { leaves, node }
    }

    pub(super) fn set(&mut self, s: usize, v: u64) {
        if let Some(x) = self.node.get_mut(self.leaves + s) {
            *x = v;
        }
    }

    /// Recomputes the ancestors of leaves `[a, b)` after [`MaxTree::set`].
    pub(super) fn refresh(&mut self, a: usize, b: usize) {
        if a >= b {
            return;
        }
        let (mut lo, mut hi) = ((self.leaves + a) / 2, (self.leaves + b - 1) / 2);
        while lo >= 1 {
            for i in lo..=hi {
                let v = get(&self.node, 2 * i).max(get(&self.node, 2 * i + 1));
                if let Some(x) = self.node.get_mut(i) {
                    *x = v;
                }
            }
            lo /= 2;
            hi /= 2;
        }
    }

    /// Pushes the leaves in `[a, b)` whose value is `v`, the maximum of that range, in order.
    pub(super) fn maxima(&self, a: usize, b: usize, v: u64, out: &mut Vec<u32>) {
        self.maxima_under(1, 0, self.leaves, a, b, v, out);
    }

    /// [`MaxTree::maxima`] within node `node`, which covers leaves `[lo, hi)` (recursion depth
    /// `log2` of the leaf count).
    #[allow(clippy::too_many_arguments)]
    fn maxima_under(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        a: usize,
        b: usize,
        v: u64,
        out: &mut Vec<u32>,
    ) {
        if hi <= a || b <= lo || get(&self.node, node) < v {
            return;
        }
        if hi - lo == 1 {
            out.push(lo as u32);
            return;
        }
        let mid = lo + (hi - lo) / 2;
        self.maxima_under(2 * node, lo, mid, a, b, v, out);
        self.maxima_under(2 * node + 1, mid, hi, a, b, v, out);
    }

    /// The largest value on leaves `[a, b)` (0 for an empty range).
    pub(super) fn range_max(&self, a: usize, b: usize) -> u64 {
        let (mut lo, mut hi) = (self.leaves + a, self.leaves + b);
        let mut m = 0u64;
        while lo < hi {
            if lo & 1 == 1 {
                m = m.max(get(&self.node, lo));
                lo += 1;
            }
            if hi & 1 == 1 {
                hi -= 1;
                m = m.max(get(&self.node, hi));
            }
            lo /= 2;
            hi /= 2;
        }
        m
    }
}

fn get(v: &[u64], i: usize) -> u64 {
    v.get(i).copied().unwrap_or(0)
}
