//! Restrictions and structural queries: [`LinearLayout::sublayout`], `sublayout_is_zero`,
//! `quotient`, `free_variable_masks`, `num_consecutive_in_out`.

use crate::dims::{Dim, DimSize};
use crate::error::{LayoutError, Result};
use crate::gf2::Echelon;
use crate::layout::{with_width, LinearLayout};

fn subset(l: &LinearLayout, op: &'static str, role: &'static str, list: &[Dim]) -> Result<()> {
    for &d in list {
        if role == "in" {
            l.in_index(op, d)?;
        } else {
            l.out_index(op, d)?;
        }
    }
    Ok(())
}

impl LinearLayout {
    /// The layout restricted to some in-dims (the others read as 0) and some out-dims (the
    /// others dropped). Sizes and the original order are kept; the result may be
    /// non-surjective. Errors: [`LayoutError::UnknownDim`].
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("lane", vec![vec![1, 1]]), ("warp", vec![vec![0, 2]])], &[("x", 2), ("y", 4)], false)?;
    /// let s = l.sublayout(&["warp"], &["y"])?;
    /// assert_eq!(s.bases_of("warp")?, vec![vec![2]]);
    /// assert!(l.sublayout_is_zero(&["warp"], &["x"])?);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn sublayout<D: Into<Dim> + Copy, E: Into<Dim> + Copy>(
        &self,
        ins: &[D],
        outs: &[E],
    ) -> Result<LinearLayout> {
        let ins: Vec<Dim> = ins.iter().map(|&d| d.into()).collect();
        let outs: Vec<Dim> = outs.iter().map(|&d| d.into()).collect();
        subset(self, "sublayout", "in", &ins)?;
        subset(self, "sublayout", "out", &outs)?;
        let keep: Vec<usize> = (self.outs.iter().enumerate())
            .filter(|(_, o)| outs.contains(&o.dim))
            .map(|(j, _)| j)
            .collect();
        let mut new_ins = Vec::new();
        let mut bases = Vec::new();
        for (k, d) in self.ins.iter().enumerate() {
            if !ins.contains(&d.dim) {
                continue;
            }
            let s = self.in_offset(k);
            for bit in s..s + d.log2 as usize {
                let b = self.basis_at(bit);
                bases.extend(keep.iter().map(|&j| b.get(j).copied().unwrap_or(0)));
            }
            new_ins.push(*d);
        }
        let new_outs: Vec<DimSize> = keep
            .iter()
            .filter_map(|&j| self.outs.get(j).copied())
            .collect();
        Ok(LinearLayout::from_parts(new_ins, new_outs, bases))
    }

    /// Whether every basis of the given in-dims is zero on the given out-dims.
    pub fn sublayout_is_zero<D: Into<Dim> + Copy, E: Into<Dim> + Copy>(
        &self,
        ins: &[D],
        outs: &[E],
    ) -> Result<bool> {
        Ok(self.sublayout(ins, outs)?.bases.iter().all(|&c| c == 0))
    }

    /// If the layout is the identity on `dims` (as in- and out-dims, same sizes) and no other
    /// dim maps into or out of them, the layout on the remaining dims; otherwise
    /// [`LayoutError::Invalid`] naming what fails.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "reg", "reg")?.product(&LinearLayout::identity_1d(2, "block", "block")?)?;
    /// assert_eq!(l.quotient(&["block"])?, LinearLayout::identity_1d(4, "reg", "reg")?);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn quotient<D: Into<Dim> + Copy>(&self, dims: &[D]) -> Result<LinearLayout> {
        let dims: Vec<Dim> = dims.iter().map(|&d| d.into()).collect();
        for &d in &dims {
            let (k, in_dim) = self.in_index("quotient", d)?;
            let (_, out_dim) = self.out_index("quotient", d)?;
            let s = self.in_offset(k);
            let identity = in_dim.log2 == out_dim.log2
                && (0..in_dim.log2 as usize).all(|i| {
                    self.basis_at(s + i)
                        .iter()
                        .zip(self.outs.iter())
                        .all(|(&c, o)| {
                            let other = o.dim;
                            if other == d {
                                c == 1 << i
                            } else {
                                !dims.contains(&other) || c == 0
                            }
                        })
                });
            if !identity {
                return Err(LayoutError::Invalid {
                    op: "quotient",
                    what: format!("the layout is not the identity on '{d}'"),
                });
            }
        }
        let rest_in: Vec<Dim> = self
            .ins
            .iter()
            .map(|d| d.dim)
            .filter(|d| !dims.contains(d))
            .collect();
        let rest_out: Vec<Dim> = self
            .outs
            .iter()
            .map(|d| d.dim)
            .filter(|d| !dims.contains(d))
            .collect();
        if !self.sublayout_is_zero(&rest_in, &dims)? || !self.sublayout_is_zero(&dims, &rest_out)? {
            return Err(LayoutError::Invalid {
                op: "quotient",
                what: format!(
                    "other dims map into or out of {:?}",
                    dims.iter().map(|d| d.name()).collect::<Vec<_>>()
                ),
            });
        }
        self.sublayout(&rest_in, &rest_out)
    }

    /// For each in-dim, the mask of input bits that are free variables: bits whose basis is a
    /// combination of earlier bases (flattened order), i.e. changing them alone changes no
    /// output beyond what earlier bits can. All zero iff the layout is injective.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("reg", vec![vec![1], vec![0], vec![2]]), ("lane", vec![vec![3]])], &[("o", 4)], true)?;
    /// assert_eq!(l.free_variable_masks(), vec![("reg".into(), 0b010), ("lane".into(), 0b1)]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn free_variable_masks(&self) -> Vec<(Dim, u64)> {
        let out_bits = self.total_out_dim_size_log2() as usize;
        let offsets = self.out_offsets();
        with_width!(out_bits, V => {
            let mut e: Echelon<V, u64> = Echelon::new(out_bits, 0);
            let mut bit = 0;
            self.ins
                .iter()
                .map(|d| {
                    let mut mask = 0u64;
                    for i in 0..d.log2 {
                        if !e.insert(self.packed_column::<V>(bit, &offsets), 0) {
                            mask |= 1 << i;
                        }
                        bit += 1;
                    }
                    (d.dim, mask)
                })
                .collect()
        })
    }

    /// The largest `V` such that the first `V` values of the first in-dim map to `V`
    /// consecutive values of the first out-dim, additively (Triton's
    /// `getNumConsecutiveInOut`, used for vectorisation).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("reg", vec![vec![1], vec![2], vec![8]]), ("lane", vec![vec![4]])], &[("o", 16)], true)?;
    /// assert_eq!(l.num_consecutive_in_out(), 4);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn num_consecutive_in_out(&self) -> u64 {
        let (Some(first), false) = (self.ins.first(), self.outs.is_empty()) else {
            return 1;
        };
        let consec = (0..first.log2 as usize)
            .take_while(|&i| {
                let b = self.basis_at(i);
                b.first() == Some(&(1u64 << i)) && b.iter().skip(1).all(|&c| c == 0)
            })
            .count();
        let n_in = self.total_in_dim_size_log2() as usize;
        let other = (consec..n_in).fold(0u64, |acc, bit| {
            acc | self.basis_at(bit).first().copied().unwrap_or(0)
        });
        let trailing = if other == 0 {
            63
        } else {
            other.trailing_zeros() as usize
        };
        1u64 << consec.min(trailing)
    }
}
