//! Division: [`divide_left`] finds `C` with `A = B * C`, [`divide_right`] finds `C` with
//! `A = C * B`.
//!
//! The product fixes where `B`'s bits sit inside `A` (low input bits and low output bits for a
//! left factor, high ones for a right factor), so `C` is determined: it is read off `A` by
//! removing `B`'s input bits and shifting out `B`'s output bits, and the answer is proven by
//! multiplying back (`B * C == A`). Dims of `A` that `B` lacks count as size 1 in `B`; size-1
//! dims of `B` that `A` lacks are ignored. `C` keeps every dim of `A`, in `A`'s order.

use crate::dims::DimSize;
use crate::error::{LayoutError, Result};
use crate::layout::LinearLayout;

fn log2_in(dims: &[DimSize], d: &DimSize) -> u32 {
    dims.iter().find(|x| x.dim == d.dim).map_or(0, |x| x.log2)
}

fn not_divisible(op: &'static str, what: String) -> LayoutError {
    LayoutError::Invalid { op, what }
}

fn quotient_shape(
    op: &'static str,
    a: &LinearLayout,
    b: &LinearLayout,
) -> Result<(Vec<DimSize>, Vec<DimSize>)> {
    for (role, bd, ad) in [("in", &b.ins, &a.ins), ("out", &b.outs, &a.outs)] {
        if let Some(d) = bd
            .iter()
            .find(|d| d.log2 > 0 && !ad.iter().any(|x| x.dim == d.dim))
        {
            return Err(not_divisible(
                op,
                format!("{role}-dim '{}' of the divisor is not in the layout", d.dim),
            ));
        }
    }
    let shrink = |role: &str, ad: &[DimSize], bd: &[DimSize]| -> Result<Vec<DimSize>> {
        ad.iter()
            .map(|d| {
                let b = log2_in(bd, d);
                d.log2
                    .checked_sub(b)
                    .map(|log2| DimSize { dim: d.dim, log2 })
                    .ok_or_else(|| {
                        not_divisible(
                            op,
                            format!(
                                "{role}-dim '{}' has size {} but the divisor's is {}",
                                d.dim,
                                d.size(),
                                1u64 << b
                            ),
                        )
                    })
            })
            .collect()
    };
    Ok((
        shrink("in", &a.ins, &b.ins)?,
        shrink("out", &a.outs, &b.outs)?,
    ))
}

/// Keeps only the divisor dims that matter (drops size-1 dims the layout lacks).
fn trimmed(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let ins: Vec<&str> = b
        .ins
        .iter()
        .filter(|d| d.log2 > 0 || a.has_in_dim(d.dim))
        .map(|d| d.dim.name())
        .collect();
    let outs: Vec<&str> = b
        .outs
        .iter()
        .filter(|d| d.log2 > 0 || a.has_out_dim(d.dim))
        .map(|d| d.dim.name())
        .collect();
    b.sublayout(&ins, &outs)
}

/// `C` with `a == b * c`; see the module docs. Errors: [`LayoutError::Invalid`] naming the dim
/// or basis where `a` is not divisible.
///
/// ```
/// use linear_layout::{divide_left, LinearLayout};
/// let a = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2], vec![16], vec![4]])], &[("offset", 32)], false)?;
/// let vec4 = LinearLayout::identity_1d(4, "register", "offset")?;
/// let c = divide_left(&a, &vec4)?;
/// assert_eq!(c.bases_of("register")?, vec![vec![4], vec![1]]);
/// assert_eq!(vec4.product(&c)?, a);
/// assert!(divide_left(&a, &LinearLayout::identity_1d(8, "register", "offset")?).is_err());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn divide_left(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let op = "divide_left";
    let (ins, outs) = quotient_shape(op, a, b)?;
    let mut bases = Vec::new();
    for (k, d) in a.ins.iter().enumerate() {
        let skip = log2_in(&b.ins, d) as usize;
        let s = a.in_offset(k);
        for bit in s + skip..s + d.log2 as usize {
            for (&c, o) in a.basis_at(bit).iter().zip(a.outs.iter()) {
                bases.push(c >> log2_in(&b.outs, o));
            }
        }
    }
    let c = LinearLayout::from_parts(ins, outs, bases);
    let b = trimmed(a, b)?;
    match b.product(&c) {
        Ok(p) if p == *a => Ok(c),
        _ => Err(not_divisible(op, "the layout's low bases are not the divisor's, or its other bases touch the divisor's output bits".into())),
    }
}

/// `C` with `a == c * b`; see the module docs.
///
/// ```
/// use linear_layout::{divide_right, LinearLayout};
/// let a = LinearLayout::identity_1d(32, "lane", "dim0")?;
/// let c = divide_right(&a, &LinearLayout::identity_1d(4, "lane", "dim0")?)?;
/// assert_eq!(c, LinearLayout::identity_1d(8, "lane", "dim0")?);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn divide_right(a: &LinearLayout, b: &LinearLayout) -> Result<LinearLayout> {
    let op = "divide_right";
    let (ins, outs) = quotient_shape(op, a, b)?;
    let mut bases = Vec::new();
    for (k, d) in ins.iter().enumerate() {
        let s = a.in_offset(k);
        for bit in s..s + d.log2 as usize {
            for (&c, o) in a.basis_at(bit).iter().zip(&outs) {
                bases.push(if o.log2 >= 64 {
                    c
                } else {
                    c & ((1u64 << o.log2) - 1)
                });
            }
        }
    }
    let c = LinearLayout::from_parts(ins, outs, bases);
    let b = trimmed(a, b)?;
    match c.product(&b) {
        Ok(p) if p == *a => Ok(c),
        _ => Err(not_divisible(
            op,
            "the layout's high bases are not the divisor's, shifted past the quotient".into(),
        )),
    }
}
