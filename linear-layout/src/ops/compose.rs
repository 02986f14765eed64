//! `L.compose(O)`: the layout `O ∘ L`, i.e. `x ↦ O(L(x))`.

use crate::dims::names;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

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
        let mut starts = Vec::with_capacity(self.outs.len());
        for o in &self.outs {
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
            starts.push(outer.in_offset(k));
        }
        let n_in = self.total_in_dim_size_log2() as usize;
        let n_out = outer.outs.len();
        let mut bases = vec![0u64; n_in * n_out];
        for (bit, row) in bases.chunks_mut(n_out.max(1)).enumerate().take(n_in) {
            for (&c, &start) in self.basis_at(bit).iter().zip(&starts) {
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
