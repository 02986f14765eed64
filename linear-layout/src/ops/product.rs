//! `A * B`: the product of layouts (Triton's `operator*`).
//!
//! In-dims and out-dims are merged by Triton's order-preserving supremum of the two name lists
//! (ties go to the first list). On a shared in-dim, `A`'s bits are the low bits and `B`'s the
//! high bits; on a shared out-dim, `B`'s values are shifted left past `A`'s. Dims private to one
//! side are zero in the other. Associative, not commutative. Where the operands order their
//! common dims differently there is no supremum: Triton silently follows the first operand,
//! this returns [`LayoutError::OrderConflict`].

use std::ops::Mul;

use crate::dims::{names, Dim, DimSize};
use crate::error::{LayoutError, Result};
use crate::layout::{LinearLayout, MAX_DIM_LOG2};

impl LinearLayout {
    /// `self * outer`; see the module docs.
    ///
    /// ```
    /// use linear_layout::LinearLayout;
    /// let l = LinearLayout::identity_1d(4, "i", "o")?.product(&LinearLayout::zeros_1d(2, "i", "o", 1)?)?;
    /// assert_eq!(l.bases_of("i")?, vec![vec![1], vec![2], vec![0]]); // L(x) = x mod 4
    /// let two = LinearLayout::identity_1d(4, "i", "o1")?.product(&LinearLayout::identity_1d(8, "i", "o2")?)?;
    /// assert_eq!(two.bases_of("i")?, vec![vec![1, 0], vec![2, 0], vec![0, 1], vec![0, 2], vec![0, 4]]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn product(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        check_common_order("out", &self.outs, &outer.outs)?;
        self.product_any_out_order(outer)
    }

    /// [`LinearLayout::product`] where the operands may order their common out-dims
    /// differently: the result's out-dims are then what Triton's `supremum` walk gives (the
    /// families need it where Triton's own lowering multiplies such layouts, e.g. a dot
    /// operand tile in `[k, non-k]` order by a warp layout in `[dim1, dim0]` order). The maps
    /// themselves do not depend on the order.
    pub(crate) fn product_any_out_order(&self, outer: &LinearLayout) -> Result<LinearLayout> {
        let inner = self;
        check_common_order("in", &inner.ins, &outer.ins)?;
        let in_names = supremum(&inner.ins, &outer.ins);
        let out_names = supremum(&inner.outs, &outer.outs);
        let size = |role: &'static str, dims: [&[DimSize]; 2], d: Dim| -> Result<u32> {
            let log2: u32 = dims
                .iter()
                .flat_map(|l| l.iter())
                .filter(|x| x.dim == d)
                .map(|x| x.log2)
                .sum();
            if log2 > MAX_DIM_LOG2 {
                return Err(LayoutError::DimTooLarge {
                    role,
                    dim: d.to_string(),
                    log2,
                });
            }
            Ok(log2)
        };
        let ins = in_names
            .iter()
            .map(|&d| {
                Ok(DimSize {
                    dim: d,
                    log2: size("in", [&inner.ins, &outer.ins], d)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;
        let outs = out_names
            .iter()
            .map(|&d| {
                Ok(DimSize {
                    dim: d,
                    log2: size("out", [&inner.outs, &outer.outs], d)?,
                })
            })
            .collect::<Result<Vec<_>>>()?;

        // Where each operand's out-dims land in the result, and by how much they shift.
        let place = |l: &LinearLayout, shifted: bool| -> Vec<(usize, u32)> {
            l.outs
                .iter()
                .map(|o| {
                    let j = outs.iter().position(|r| r.dim == o.dim).unwrap_or(0);
                    let shift = if shifted {
                        dim_log2(&inner.outs, o.dim)
                    } else {
                        0
                    };
                    (j, shift)
                })
                .collect()
        };
        let (inner_place, outer_place) = (place(inner, false), place(outer, true));
        let n_out = outs.len();
        let mut bases =
            Vec::with_capacity(ins.iter().map(|d| d.log2 as usize).sum::<usize>() * n_out);
        for d in &ins {
            for (l, placement) in [(inner, &inner_place), (outer, &outer_place)] {
                let Some((k, dim)) = l.ins.iter().enumerate().find(|(_, x)| x.dim == d.dim) else {
                    continue;
                };
                let start = l.in_offset(k);
                for bit in start..start + dim.log2 as usize {
                    let mut row = vec![0u64; n_out];
                    for (&c, &(j, shift)) in l.basis_at(bit).iter().zip(placement) {
                        if let Some(r) = row.get_mut(j) {
                            *r = c << shift;
                        }
                    }
                    bases.extend_from_slice(&row);
                }
            }
        }
        Ok(LinearLayout::from_parts(ins, outs, bases))
    }
}

fn dim_log2(dims: &[DimSize], d: Dim) -> u32 {
    dims.iter().find(|x| x.dim == d).map_or(0, |x| x.log2)
}

impl Mul for &LinearLayout {
    type Output = Result<LinearLayout>;
    /// `&a * &b` is [`LinearLayout::product`]; it returns a `Result` because the operands may
    /// order their common dims differently.
    fn mul(self, rhs: &LinearLayout) -> Result<LinearLayout> {
        self.product(rhs)
    }
}

fn check_common_order(role: &'static str, a: &[DimSize], b: &[DimSize]) -> Result<()> {
    let common_a: Vec<Dim> = a
        .iter()
        .map(|d| d.dim)
        .filter(|d| b.iter().any(|x| x.dim == *d))
        .collect();
    let common_b: Vec<Dim> = b
        .iter()
        .map(|d| d.dim)
        .filter(|d| a.iter().any(|x| x.dim == *d))
        .collect();
    if common_a != common_b {
        return Err(LayoutError::OrderConflict {
            role,
            left: names(a),
            right: names(b),
        });
    }
    Ok(())
}

/// Triton's `supremum` of two name lists whose common elements are in the same relative order:
/// the shortest list containing both as subsequences, preferring the first list on ties.
pub(crate) fn supremum(x: &[DimSize], y: &[DimSize]) -> Vec<Dim> {
    let (x, y): (Vec<Dim>, Vec<Dim>) = (
        x.iter().map(|d| d.dim).collect(),
        y.iter().map(|d| d.dim).collect(),
    );
    let pos = |list: &[Dim], d: Dim| list.iter().position(|&e| e == d);
    let mut result: Vec<Dim> = Vec::with_capacity(x.len() + y.len());
    let (mut i, mut j) = (0, 0);
    while i < x.len() || j < y.len() {
        while x.get(i).is_some_and(|d| result.contains(d)) {
            i += 1;
        }
        while y.get(j).is_some_and(|d| result.contains(d)) {
            j += 1;
        }
        if i >= x.len() && j >= y.len() {
            break;
        }
        if let Some(&d) = x.get(i).filter(|&&d| y.get(j) == Some(&d)) {
            result.push(d);
            i += 1;
            j += 1;
            continue;
        }
        let cand_x = x.get(i).and_then(|&d| pos(&y, d)).filter(|&p| p >= j);
        let cand_y = y.get(j).and_then(|&d| pos(&x, d)).filter(|&p| p >= i);
        match (x.get(i), y.get(j)) {
            (Some(&d), _) if cand_x.is_none() => {
                result.push(d);
                i += 1;
            }
            (_, Some(&d)) if cand_y.is_none() => {
                result.push(d);
                j += 1;
            }
            (Some(&dx), Some(&dy)) => {
                if cand_x <= cand_y {
                    result.push(dx);
                    i += 1;
                } else {
                    result.push(dy);
                    j += 1;
                }
            }
            // Unreachable: the loop guard keeps one side non-empty and the arms above take it.
            _ => break,
        }
    }
    result
}
