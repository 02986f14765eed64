//! `L.compose(O)`: the layout `O ∘ L`, i.e. `x ↦ O(L(x))`.

use crate::dims::names;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

/// Dims handled with stack arrays (more take the general path).
const SMALL: usize = 8;

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
        if outer.total_out_dim_size_log2() <= 64 && n_out <= SMALL && outer_bits <= 64 {
            // The outer columns packed into one word each (on the stack): one XOR per set
            // bit, one unpack per result basis.
            let mut offsets = [0u32; SMALL];
            let mut at = 0u32;
            for (slot, o) in offsets.iter_mut().zip(outer.outs.iter()) {
                *slot = at;
                at += o.log2;
            }
            let mut packed = [0u64; 64];
            for (b, slot) in packed.iter_mut().enumerate().take(outer_bits) {
                *slot = outer
                    .basis_at(b)
                    .iter()
                    .zip(&offsets)
                    .fold(0u64, |w, (&c, &off)| w | c.checked_shl(off).unwrap_or(0));
            }
            let mut bases = Vec::with_capacity(n_in * n_out);
            for bit in 0..n_in {
                let mut acc = 0u64;
                for (&c, &start) in self.basis_at(bit).iter().zip(starts) {
                    let mut rest = c;
                    while rest != 0 {
                        let b = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        // `start + b < outer_bits ≤ 64` (the size check above): the mask
                        // only spares the bounds check.
                        acc ^= packed.get((start + b) & 63).copied().unwrap_or(0);
                    }
                }
                bases.extend(outer.outs.iter().zip(&offsets).map(|(o, &off)| {
                    let mask = u64::MAX.checked_shr(64 - o.log2).unwrap_or(0);
                    acc.checked_shr(off).unwrap_or(0) & mask
                }));
            }
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
}
