//! `L.compose(O)`: the layout `O ∘ L`, i.e. `x ↦ O(L(x))`.

use crate::dims::names;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;
use crate::ops::packed::{for_each_packed, SMALL};

impl LinearLayout {
    /// `O ∘ L` where `self = L` and `outer = O`.
    ///
    /// Preconditions: `L`'s out-dims are `O`'s in-dims in any order
    /// ([`LayoutError::DimsMismatch`]), and each is no larger in `L` than in `O`
    /// ([`LayoutError::SizeMismatch`]). The result has `L`'s in-dims and `O`'s out-dims with
    /// `O`'s sizes; it is surjective iff both are and the shared sizes are equal.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// // a swizzle applied after a permutation
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![4], vec![8], vec![1], vec![2]])], &[("o", 16)], true)?;
    /// let o = LinearLayout::from_bases(&[("o", vec![vec![3], vec![2], vec![4], vec![8]])], &[("p", 16)], true)?;
    /// assert_eq!(l.compose(&o)?.bases_of("i")?, vec![vec![4], vec![8], vec![3], vec![2]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn compose(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        if self.outs.len() != outer.ins.len() || self.outs.iter().any(|o| !outer.has_in_dim(o.dim))
        {
            return Err(LayoutError::DimsMismatch {
                op: "compose",
                what: "this layout's out-dims and the outer layout's in-dims",
                left: names(&self.outs),
                right: names(&outer.ins),
            });
        }
        // For each of our out-dims: the first flattened input bit of the matching outer in-dim.
        let mut small = [0usize; SMALL];
        let mut large = Vec::new();
        for (i, o) in self.outs.iter().enumerate() {
            let (k, inner) = outer.in_index("compose", o.dim)?;
            if o.log2 > inner.log2 {
                return Err(LayoutError::SizeMismatch {
                    op: "compose",
                    dim: o.dim.to_string(),
                    left: o.size() as u128,
                    right: inner.size() as u128,
                    rule: "an out-dim may not be larger than the outer layout's in-dim",
                });
            }
            let start = outer.in_offset(k);
            match small.get_mut(i) {
                Some(slot) if self.outs.len() <= SMALL => *slot = start,
                _ => large.push(start),
            }
        }
        let starts: &[usize] = if self.outs.len() <= SMALL {
            small.get(..self.outs.len()).unwrap_or(&[])
        } else {
            &large
        };
        let n_in = self.total_in_dim_size_log2() as usize;
        let n_out = outer.outs.len();
        let outer_bits = outer.total_in_dim_size_log2() as usize;
        // (A layout without out-dims has bases of no components: the general path.)
        if outer.total_out_dim_size_log2() <= 64
            && n_out <= SMALL
            && outer_bits <= 64
            && (1..=SMALL).contains(&self.outs.len())
        {
            // As many tables as the outer layout's width needs (a loop of fixed length per
            // basis), rounded up past 32 bits.
            let bases = match outer_bits.div_ceil(4) {
                0..=1 => self.compose_by_nibbles::<1>(outer, starts),
                2 => self.compose_by_nibbles::<2>(outer, starts),
                3 => self.compose_by_nibbles::<3>(outer, starts),
                4 => self.compose_by_nibbles::<4>(outer, starts),
                5 => self.compose_by_nibbles::<5>(outer, starts),
                6 => self.compose_by_nibbles::<6>(outer, starts),
                7 => self.compose_by_nibbles::<7>(outer, starts),
                8 => self.compose_by_nibbles::<8>(outer, starts),
                9..=12 => self.compose_by_nibbles::<12>(outer, starts),
                _ => self.compose_by_nibbles::<16>(outer, starts),
            };
            return Ok(LinearLayout::from_parts(
                self.ins.clone(),
                outer.outs.clone(),
                bases,
            ));
        }
        let mut bases = vec![0u64; n_in * n_out];
        for (bit, row) in bases.chunks_mut(n_out.max(1)).enumerate().take(n_in) {
            for (&c, &start) in self.basis_at(bit).iter().zip(starts) {
                let mut rest = c;
                while rest != 0 {
                    let b = rest.trailing_zeros() as usize;
                    rest &= rest - 1;
                    for (r, &v) in row.iter_mut().zip(outer.basis_at(start + b)) {
                        *r ^= v;
                    }
                }
            }
        }
        Ok(LinearLayout::from_parts(
            self.ins.clone(),
            outer.outs.clone(),
            bases,
        ))
    }

    /// The fast path's bases, for an outer layout of at most `4·N` input bits, at most
    /// [`SMALL`] out-dims and 64 output bits: the outer layout as one word per input bit (its
    /// out-dims packed side by side), then as `N` tables over 4 input bits at a time ("four
    /// Russians": every XOR of four columns, 16 entries per nibble, one XOR each). Each of our
    /// bases, packed at `starts` into the outer layout's flat input, is then one lookup per
    /// nibble: no branch on the data.
    ///
    /// Shifts wrap: a component is below `2^log2` of its dim (a layout invariant) and every
    /// dim ends at or below bit 64 (`start + log2 ≤ outer_bits ≤ 64`, the outer out-dims'
    /// `offset + log2 ≤ 64`), so a shift by 64 only ever meets a component or mask of 0.
    fn compose_by_nibbles<const N: usize>(
        &self,
        outer: &LinearLayout,
        starts: &[usize],
    ) -> Vec<u64> {
        let mut offsets = [0u32; SMALL];
        let mut masks = [0u64; SMALL];
        let mut at = 0u32;
        for ((off, mask), o) in offsets.iter_mut().zip(&mut masks).zip(outer.outs.iter()) {
            *off = at;
            *mask = u64::MAX.checked_shr(64 - o.log2).unwrap_or(0);
            at += o.log2;
        }
        let n_out = outer.outs.len();
        let (offsets, masks) = (
            offsets.get(..n_out).unwrap_or(&[]),
            masks.get(..n_out).unwrap_or(&[]),
        );
        let outer_bits = outer.total_in_dim_size_log2() as usize;
        // The outer columns, packed; those past its width stay zero.
        let mut columns = [0u64; 64];
        let mut slots = columns.iter_mut();
        for_each_packed(&outer.bases, n_out, offsets, |word| {
            if let Some(slot) = slots.next() {
                *slot = word;
            }
        });
        let mut tables = [[0u64; 16]; N];
        for (table, c) in tables.iter_mut().zip(columns.chunks_exact(4)) {
            // Entry 4·h + l is the XOR of columns 0–1 chosen by l and columns 2–3 by h.
            let (c0, c1, c2, c3) = match *c {
                [c0, c1, c2, c3] => (c0, c1, c2, c3),
                _ => (0, 0, 0, 0),
            };
            let low = [0, c0, c1, c0 ^ c1];
            let high = [0, c2, c3, c2 ^ c3];
            for (row, &h) in table.chunks_exact_mut(4).zip(&high) {
                for (entry, &l) in row.iter_mut().zip(&low) {
                    *entry = l ^ h;
                }
            }
        }
        debug_assert!(outer_bits <= 4 * N);
        let n_in = self.total_in_dim_size_log2() as usize;
        let mut bases = Vec::with_capacity(n_in * n_out);
        let starts: [u32; SMALL] = std::array::from_fn(|j| starts.get(j).map_or(0, |&s| s as u32));
        let starts = starts.get(..self.outs.len()).unwrap_or(&[]);
        for_each_packed(&self.bases, self.outs.len(), starts, |x| {
            // All N tables (those past the outer width are zero): a loop of fixed length.
            let mut acc = 0u64;
            for (k, table) in tables.iter().enumerate() {
                let nibble = (x >> (4 * k)) & 15;
                acc ^= table.get(nibble as usize).copied().unwrap_or(0);
            }
            bases.extend(
                offsets
                    .iter()
                    .zip(masks)
                    .map(|(&off, &mask)| acc.wrapping_shr(off) & mask),
            );
        });
        bases
    }
}
