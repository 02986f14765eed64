//! Re-shaping the dims of a layout without changing the map: transposes, reshapes, flattening,
//! squeezing, resizing, renaming and concatenation.

use crate::dims::{names, Dim, DimSize};
use crate::error::{LayoutError, Result};
use crate::gf2::Gf2Vector;
use crate::layout::{sized_dims, with_width, LinearLayout, MAX_DIM_LOG2};

fn to_dims<D: Into<Dim> + Copy>(list: &[D]) -> Vec<Dim> {
    list.iter().map(|&d| d.into()).collect()
}

fn same_set(op: &'static str, what: &'static str, new: &[Dim], old: &[DimSize]) -> Result<()> {
    let ok = new.len() == old.len()
        && new.iter().all(|d| old.iter().any(|o| o.dim == *d))
        && new
            .iter()
            .enumerate()
            .all(|(i, d)| !new.iter().take(i).any(|e| e == d));
    if ok {
        Ok(())
    } else {
        Err(LayoutError::DimsMismatch {
            op,
            what,
            left: new.iter().map(|d| d.to_string()).collect(),
            right: names(old),
        })
    }
}

impl LinearLayout {
    /// Reorders the in-dims (which changes only the flattening order).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(2, "a", "x")?.product(&LinearLayout::identity_1d(2, "b", "y")?)?;
    /// assert_eq!(l.transpose_ins(&["b", "a"])?.in_dim_names(), vec!["b".into(), "a".into()]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn transpose_ins<D: Into<Dim> + Copy>(&self, order: &[D]) -> Result<LinearLayout> {
        let order = to_dims(order);
        same_set(
            "transpose_ins",
            "the new order and the in-dims",
            &order,
            &self.ins,
        )?;
        let mut ins = Vec::with_capacity(order.len());
        let mut bases = Vec::with_capacity(self.bases.len());
        for d in order {
            let (k, dim) = self.in_index("transpose_ins", d)?;
            let s = self.in_offset(k);
            for bit in s..s + dim.log2 as usize {
                bases.extend_from_slice(self.basis_at(bit));
            }
            ins.push(dim);
        }
        Ok(LinearLayout::from_parts(ins, self.outs, bases))
    }

    /// Reorders the out-dims, permuting every basis accordingly.
    pub fn transpose_outs<D: Into<Dim> + Copy>(&self, order: &[D]) -> Result<LinearLayout> {
        let order = to_dims(order);
        same_set(
            "transpose_outs",
            "the new order and the out-dims",
            &order,
            &self.outs,
        )?;
        let perm = order
            .iter()
            .map(|&d| self.out_index("transpose_outs", d))
            .collect::<Result<Vec<_>>>()?;
        let n = self.total_in_dim_size_log2() as usize;
        let bases = (0..n)
            .flat_map(|bit| {
                let b = self.basis_at(bit);
                perm.iter()
                    .map(move |&(j, _)| b.get(j).copied().unwrap_or(0))
            })
            .collect();
        let outs: Vec<DimSize> = perm.iter().map(|&(_, d)| d).collect();
        Ok(LinearLayout::from_parts(self.ins, outs, bases))
    }

    /// Flattens every input bit in order and re-splits them into the given dims (power-of-two
    /// sizes whose product is the total input size).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(16, "i", "o")?;
    /// let r = l.reshape_ins(&[("a", 4), ("b", 4)])?;
    /// assert_eq!(r.bases_of("b")?, vec![vec![4], vec![8]]);
    /// assert_eq!(r.reshape_ins(&[("i", 16)])?, l);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn reshape_ins<D: Into<Dim> + Copy>(&self, dims: &[(D, u64)]) -> Result<LinearLayout> {
        let ins = sized_dims("in", dims)?;
        let got: u32 = ins.iter().map(|d| d.log2).sum();
        if got != self.total_in_dim_size_log2() {
            return Err(LayoutError::TotalSizeMismatch {
                op: "reshape_ins",
                expected: self.total_in_dim_size_log2(),
                got,
            });
        }
        Ok(LinearLayout::from_parts(ins, self.outs, self.bases.clone()))
    }

    /// Flattens every output bit in order and re-splits the values into the given dims.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(16, "i", "o")?;
    /// let r = l.reshape_outs(&[("lo", 4), ("hi", 4)])?;
    /// assert_eq!(r.bases_of("i")?, vec![vec![1, 0], vec![2, 0], vec![0, 1], vec![0, 2]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn reshape_outs<D: Into<Dim> + Copy>(&self, dims: &[(D, u64)]) -> Result<LinearLayout> {
        let outs = sized_dims("out", dims)?;
        let got: u32 = outs.iter().map(|d| d.log2).sum();
        let total = self.total_out_dim_size_log2();
        if got != total {
            return Err(LayoutError::TotalSizeMismatch {
                op: "reshape_outs",
                expected: total,
                got,
            });
        }
        let offsets = self.out_offsets();
        let n = self.total_in_dim_size_log2() as usize;
        let mut bases = Vec::with_capacity(n * outs.len());
        with_width!(total as usize, V => {
            for bit in 0..n {
                let v: V = self.packed_column(bit, &offsets);
                let mut off = 0;
                for d in &outs {
                    bases.push(v.get_bits(off, d.log2));
                    off += d.log2 as usize;
                }
            }
        });
        Ok(LinearLayout::from_parts(self.ins, outs, bases))
    }

    /// One in-dim named after the first, holding every input bit.
    pub fn flatten_ins(&self) -> Result<LinearLayout> {
        match self.ins.first() {
            None => Ok(self.clone()),
            Some(first) => {
                let log2 = self.total_in_dim_size_log2();
                if log2 > MAX_DIM_LOG2 {
                    return Err(LayoutError::DimTooLarge {
                        role: "in",
                        dim: first.dim.to_string(),
                        log2,
                    });
                }
                Ok(LinearLayout::from_parts(
                    vec![DimSize {
                        dim: first.dim,
                        log2,
                    }],
                    self.outs,
                    self.bases.clone(),
                ))
            }
        }
    }

    /// One out-dim named after the first, holding every output bit.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![1, 0], vec![0, 1]])], &[("x", 2), ("y", 2)], true)?;
    /// assert_eq!(l.flatten_outs()?.bases_of("i")?, vec![vec![1], vec![2]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn flatten_outs(&self) -> Result<LinearLayout> {
        match self.outs.first() {
            None => Ok(self.clone()),
            Some(first) => {
                let log2 = self.total_out_dim_size_log2();
                if log2 > MAX_DIM_LOG2 {
                    return Err(LayoutError::DimTooLarge {
                        role: "out",
                        dim: first.dim.to_string(),
                        log2,
                    });
                }
                self.reshape_outs(&[(first.dim, 1u64 << log2)])
            }
        }
    }

    /// Removes a size-1 in-dim. Errors: [`LayoutError::NotSizeOne`], [`LayoutError::UnknownDim`].
    pub fn squeeze_ins(&self, dim: impl Into<Dim>) -> Result<LinearLayout> {
        let dim = dim.into();
        let (k, d) = self.in_index("squeeze_ins", dim)?;
        if d.log2 != 0 {
            return Err(LayoutError::NotSizeOne {
                op: "squeeze_ins",
                dim: dim.to_string(),
                size: d.size() as u128,
            });
        }
        let mut ins = self.ins.to_vec();
        ins.remove(k);
        Ok(LinearLayout::from_parts(ins, self.outs, self.bases.clone()))
    }

    /// Removes a size-1 out-dim. Errors: [`LayoutError::NotSizeOne`], [`LayoutError::UnknownDim`].
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::from_bases(&[("i", vec![vec![1, 0]])], &[("x", 2), ("y", 1)], true)?;
    /// assert_eq!(l.squeeze_outs("y")?, LinearLayout::identity_1d(2, "i", "x")?);
    /// assert!(l.squeeze_outs("x").is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn squeeze_outs(&self, dim: impl Into<Dim>) -> Result<LinearLayout> {
        let dim = dim.into();
        let (_, d) = self.out_index("squeeze_outs", dim)?;
        if d.log2 != 0 {
            return Err(LayoutError::NotSizeOne {
                op: "squeeze_outs",
                dim: dim.to_string(),
                size: d.size() as u128,
            });
        }
        let keep: Vec<&str> = self
            .outs
            .iter()
            .filter(|o| o.dim != dim)
            .map(|o| o.dim.name())
            .collect();
        let ins: Vec<&str> = self.ins.iter().map(|d| d.dim.name()).collect();
        self.sublayout(&ins, &keep)
    }

    /// Resizes an in-dim: shrinking drops its most significant bases, growing appends zero
    /// bases (the new inputs broadcast).
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "reg", "o")?;
    /// assert_eq!(l.resize_in_dim("reg", 8)?.bases_of("reg")?, vec![vec![1], vec![2], vec![0]]);
    /// assert_eq!(l.resize_in_dim("reg", 2)?.bases_of("reg")?, vec![vec![1]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn resize_in_dim(&self, dim: impl Into<Dim>, size: u64) -> Result<LinearLayout> {
        let dim = dim.into();
        let (k, d) = self.in_index("resize_in_dim", dim)?;
        if !size.is_power_of_two() {
            return Err(LayoutError::NotPowerOfTwo {
                what: format!("new size of in-dim '{dim}'"),
                value: size as u128,
            });
        }
        let (old, new) = (d.log2 as usize, size.trailing_zeros() as usize);
        let n = self.outs.len();
        let s = self.in_offset(k);
        // Bits before the dim and its kept bits, zero bases for the new ones, the bits after.
        let mut bases: Vec<u64> = self
            .bases
            .iter()
            .take((s + old.min(new)) * n)
            .copied()
            .collect();
        bases.resize((s + new) * n, 0);
        bases.extend(self.bases.iter().skip((s + old) * n));
        let ins: Vec<DimSize> = self
            .ins
            .iter()
            .map(|&e| {
                if e.dim == dim {
                    DimSize {
                        dim,
                        log2: new as u32,
                    }
                } else {
                    e
                }
            })
            .collect();
        Ok(LinearLayout::from_parts(ins, self.outs, bases))
    }

    /// Shrinks an out-dim; basis components that no longer fit become 0 (Triton's rule).
    /// Errors: [`LayoutError::Invalid`] when `size` is larger than the dim.
    pub fn resize_out_dim(&self, dim: impl Into<Dim>, size: u64) -> Result<LinearLayout> {
        let dim = dim.into();
        let (j, d) = self.out_index("resize_out_dim", dim)?;
        if !size.is_power_of_two() {
            return Err(LayoutError::NotPowerOfTwo {
                what: format!("new size of out-dim '{dim}'"),
                value: size as u128,
            });
        }
        if size > d.size() {
            return Err(LayoutError::Invalid {
                op: "resize_out_dim",
                what: format!(
                    "out-dim '{dim}' has size {}; it may only shrink, not grow to {size}",
                    d.size()
                ),
            });
        }
        let n = self.outs.len();
        let mut bases = self.bases.clone();
        for c in bases.iter_mut().skip(j).step_by(n.max(1)) {
            if *c >= size {
                *c = 0;
            }
        }
        let outs: Vec<DimSize> = self
            .outs
            .iter()
            .map(|&e| {
                if e.dim == dim {
                    DimSize {
                        dim,
                        log2: size.trailing_zeros(),
                    }
                } else {
                    e
                }
            })
            .collect();
        Ok(LinearLayout::from_parts(self.ins, outs, bases))
    }

    /// Renames an in-dim. Errors: [`LayoutError::DuplicateDim`] if `new` is already an in-dim.
    pub fn rename_in_dim(&self, old: impl Into<Dim>, new: impl Into<Dim>) -> Result<LinearLayout> {
        let (old, new) = (old.into(), new.into());
        self.in_index("rename_in_dim", old)?;
        if old != new && self.has_in_dim(new) {
            return Err(LayoutError::DuplicateDim {
                role: "in",
                dim: new.to_string(),
            });
        }
        let ins: Vec<DimSize> = self
            .ins
            .iter()
            .map(|&e| {
                if e.dim == old {
                    DimSize { dim: new, ..e }
                } else {
                    e
                }
            })
            .collect();
        Ok(LinearLayout::from_parts(ins, self.outs, self.bases.clone()))
    }

    /// The layout on the in-dims of both (ours first) over identical out-dims:
    /// `(x, y) ↦ self(x) ⊕ other(y)`.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let a = LinearLayout::from_bases(&[("lane", vec![vec![1]])], &[("o", 4)], false)?;
    /// let b = LinearLayout::from_bases(&[("warp", vec![vec![2]])], &[("o", 4)], false)?;
    /// let c = a.concat_ins(&b)?;
    /// assert_eq!(c.apply(&[("lane", 1), ("warp", 1)])?, vec![("o".into(), 3)]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn concat_ins(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.outs != other.outs {
            return Err(LayoutError::DimsMismatch {
                op: "concat_ins",
                what: "the out-dims (names, order and sizes)",
                left: names(&self.outs),
                right: names(&other.outs),
            });
        }
        let mut ins = self.ins.to_vec();
        ins.extend_from_slice(&other.ins);
        let mut bases = self.bases.clone();
        bases.extend_from_slice(&other.bases);
        LinearLayout::try_from_parts(ins, self.outs, bases, false)
    }

    /// The layout `x ↦ (self(x), other(x))` over identical in-dims.
    pub fn concat_outs(&self, other: &LinearLayout) -> Result<LinearLayout> {
        if self.ins != other.ins {
            return Err(LayoutError::DimsMismatch {
                op: "concat_outs",
                what: "the in-dims (names, order and sizes)",
                left: names(&self.ins),
                right: names(&other.ins),
            });
        }
        let mut outs = self.outs.to_vec();
        outs.extend_from_slice(&other.outs);
        let n = self.total_in_dim_size_log2() as usize;
        let bases = (0..n)
            .flat_map(|bit| {
                self.basis_at(bit)
                    .iter()
                    .chain(other.basis_at(bit))
                    .copied()
            })
            .collect();
        LinearLayout::try_from_parts(self.ins, outs, bases, false)
    }
}
