//! The building blocks every family shares: standard `dim0..` names, N-d identities in a dim
//! order, Triton's `ensureLayoutNotSmallerThan` / `ensureLayoutNotLargerThan`, and the CTA × CGA
//! combination that fits a per-CTA layout to a tensor shape.

use crate::{Dim, LayoutError, LinearLayout, Result};

/// `dim0, dim1, …, dim{rank-1}`.
///
/// ```
/// use linear_layout::families::standard::standard_out_dims;
/// assert_eq!(standard_out_dims(2).iter().map(|d| d.name()).collect::<Vec<_>>(), ["dim0", "dim1"]);
/// ```
pub fn standard_out_dims(rank: usize) -> Vec<Dim> {
    (0..rank).map(Dim::standard).collect()
}

/// Check that `shape` is non-empty, of the expected rank, and made of powers of two.
///
/// ```
/// use linear_layout::families::standard::check_shape;
/// assert!(check_shape("blocked", &[64, 32], 2).is_ok());
/// assert!(check_shape("blocked", &[24, 32], 2).is_err());
/// ```
pub fn check_shape(family: &'static str, shape: &[u64], rank: usize) -> Result<()> {
    let bad = |reason: String| LayoutError::InvalidShape {
        family,
        shape: shape.to_vec(),
        reason,
    };
    if shape.len() != rank {
        return Err(bad(format!(
            "expected rank {rank}, got rank {}",
            shape.len()
        )));
    }
    if let Some((d, s)) = shape.iter().enumerate().find(|(_, s)| !s.is_power_of_two()) {
        return Err(bad(format!("dim{d} = {s} is not a positive power of two")));
    }
    if let Some((d, s)) = shape.iter().enumerate().find(|(_, &s)| s > 1 << 30) {
        return Err(bad(format!("dim{d} = {s} is larger than 2^30")));
    }
    Ok(())
}

/// Check that `order` is a permutation of `0..rank`.
///
/// ```
/// use linear_layout::families::standard::check_order;
/// assert!(check_order("blocked", &[1, 0], 2).is_ok());
/// assert!(check_order("blocked", &[1, 1], 2).is_err());
/// ```
pub fn check_order(family: &'static str, order: &[usize], rank: usize) -> Result<()> {
    let mut seen = vec![false; rank];
    let ok = order.len() == rank
        && order
            .iter()
            .all(|&d| seen.get_mut(d).is_some_and(|s| !std::mem::replace(s, true)));
    if ok {
        Ok(())
    } else {
        Err(LayoutError::InvalidParameter {
            family,
            param: "order",
            value: format!("{order:?}"),
            reason: format!("must be a permutation of 0..{rank}"),
        })
    }
}

/// Check a parameter that must be a positive power of two.
///
/// ```
/// use linear_layout::families::standard::check_pow2;
/// assert!(check_pow2("swizzled_shared", "vec", 8).is_ok());
/// assert!(check_pow2("swizzled_shared", "vec", 3).is_err());
/// ```
pub fn check_pow2(family: &'static str, param: &'static str, value: u64) -> Result<()> {
    if value.is_power_of_two() && value <= 1 << 30 {
        Ok(())
    } else {
        Err(LayoutError::InvalidParameter {
            family,
            param,
            value: value.to_string(),
            reason: "must be a power of two between 1 and 2^30".into(),
        })
    }
}

/// Triton's `identityStandardND(in_dim, shape, order)`: the product of
/// `identity_1d(shape[d], in_dim, dim_d)` for `d = order[0], order[1], …`, with the out-dims left
/// in that order (which decides where [`ensure_not_smaller_than`] adds bases first).
///
/// ```
/// use linear_layout::families::standard::identity_standard_nd;
/// let l = identity_standard_nd("lane", &[8, 4], &[1, 0])?;
/// assert_eq!(l.out_dims().iter().map(|(d, s)| (d.name(), *s)).collect::<Vec<_>>(), [("dim1", 4), ("dim0", 8)]);
/// assert_eq!(l.bases_of("lane")?, vec![vec![1, 0], vec![2, 0], vec![0, 1], vec![0, 2], vec![0, 4]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn identity_standard_nd(in_dim: &str, shape: &[u64], order: &[usize]) -> Result<LinearLayout> {
    let outs = standard_out_dims(shape.len());
    let mut l = LinearLayout::empty();
    for &d in order {
        let (&size, &out) = shape
            .get(d)
            .zip(outs.get(d))
            .ok_or_else(|| LayoutError::Invalid {
                op: "identity_standard_nd",
                what: format!("order entry {d} is out of range for rank {}", shape.len()),
            })?;
        l = l.product(&LinearLayout::identity_1d(size, in_dim, out)?)?;
    }
    Ok(l)
}

/// Triton's `ensureLayoutNotSmallerThan`: for each out-dim (in the layout's order) smaller than
/// `shape`, repeat the layout along it with more bases of the *first* in-dim (`register` or
/// `offset`).
///
/// ```
/// use linear_layout::{LinearLayout, families::standard::ensure_not_smaller_than};
/// let l = LinearLayout::identity_1d(4, "register", "dim0")?;
/// let g = ensure_not_smaller_than(&l, &[("dim0", 16)])?;
/// assert_eq!(g.bases_of("register")?, vec![vec![1], vec![2], vec![4], vec![8]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn ensure_not_smaller_than(
    layout: &LinearLayout,
    shape: &[(&str, u64)],
) -> Result<LinearLayout> {
    let Some(&(first, _)) = layout.in_dims().first() else {
        return Ok(layout.clone());
    };
    let mut ret = layout.clone();
    for (out, actual) in layout.out_dims() {
        let desired = lookup(shape, out)?;
        if desired > actual {
            ret = ret.product(&LinearLayout::identity_1d(desired / actual, first, out)?)?;
        }
    }
    Ok(ret)
}

/// Triton's `ensureLayoutNotLargerThan`: for each out-dim larger than `shape`, zero every basis
/// component that falls outside it (broadcast: several inputs now own the same element). With
/// `broadcast_registers == false`, `register` bases that became zero are dropped instead.
///
/// ```
/// use linear_layout::{LinearLayout, families::standard::ensure_not_larger_than};
/// let l = LinearLayout::identity_1d(16, "lane", "dim0")?;
/// let s = ensure_not_larger_than(&l, &[("dim0", 4)], true)?;
/// assert_eq!(s.bases_of("lane")?, vec![vec![1], vec![2], vec![0], vec![0]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn ensure_not_larger_than(
    layout: &LinearLayout,
    shape: &[(&str, u64)],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    let outs = layout.out_dims();
    let mut sizes = Vec::with_capacity(outs.len());
    for &(out, actual) in &outs {
        sizes.push(actual.min(lookup(shape, out)?));
    }
    let register = Dim::new("register");
    let mut bases = Vec::new();
    for (dim, dim_bases) in layout.bases() {
        let mut kept = Vec::with_capacity(dim_bases.len());
        for mut b in dim_bases {
            for (v, &size) in b.iter_mut().zip(&sizes) {
                *v &= size - 1;
            }
            if broadcast_registers || dim != register || b.iter().any(|&v| v != 0) {
                kept.push(b);
            }
        }
        bases.push((dim, kept));
    }
    let out_sizes: Vec<(Dim, u64)> = outs.iter().map(|&(d, _)| d).zip(sizes).collect();
    LinearLayout::from_bases(&bases, &out_sizes, false)
}

/// Triton's `combineCtaCgaWithShape` with Gluon 3.9's linear `cga_layout`: the CGA layout
/// (`block → dim*`, bases in units of one CTA's tile) is clipped to `shape`; the CTA layout is
/// grown (more `register`/`offset` bases) and clipped to `shape / cga size`; the result is
/// `cta * cga` with out-dims in standard order, exactly `shape`. Register bases the clipping
/// zeroes are kept as zero bases with `broadcast_registers` (several registers of a thread hold
/// the same element: MMA, dot operands) or dropped (Blocked).
///
/// ```
/// use linear_layout::{LinearLayout, families::standard::combine_cta_cga};
/// let cta = LinearLayout::identity_1d(8, "offset", "dim0")?;
/// // Two CTAs split dim0: block 1 holds elements 8..16.
/// let l = combine_cta_cga(&cta, &[vec![1]], &[16], true)?;
/// assert_eq!(l.bases_of("block")?, vec![vec![8]]);
/// let regs = LinearLayout::identity_1d(4, "register", "dim0")?;
/// assert_eq!(combine_cta_cga(&regs, &[], &[2], true)?.bases_of("register")?, vec![vec![1], vec![0]]);
/// assert_eq!(combine_cta_cga(&regs, &[], &[2], false)?.bases_of("register")?, vec![vec![1]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn combine_cta_cga(
    cta: &LinearLayout,
    cga_bases: &[Vec<u64>],
    shape: &[u64],
    broadcast_registers: bool,
) -> Result<LinearLayout> {
    let rank = shape.len();
    let outs = standard_out_dims(rank);
    let labeled: Vec<(&str, u64)> = outs
        .iter()
        .map(|d| d.name())
        .zip(shape.iter().copied())
        .collect();
    let cga = cga_layout(cga_bases, rank)?;
    let cga = ensure_not_larger_than(&cga, &labeled, true)?;
    let cta_outs = cta.out_dim_names();
    let cga = cga.transpose_outs(&cta_outs)?;
    let mut cta_shape = Vec::with_capacity(rank);
    for &(name, size) in &labeled {
        cta_shape.push((name, (size / cga.out_dim_size(name)?).max(1)));
    }
    let cta = ensure_not_smaller_than(cta, &cta_shape)?;
    let cta = ensure_not_larger_than(&cta, &cta_shape, broadcast_registers)?;
    cta.product(&cga)?.transpose_outs(&outs)
}

/// The CGA layout `block → dim0..` from Gluon's `cga_layout` bases (out sizes inferred, as Triton
/// does; an empty list is one CTA).
///
/// ```
/// use linear_layout::families::standard::cga_layout;
/// let l = cga_layout(&[vec![0, 1], vec![1, 0]], 2)?;
/// assert_eq!(l.out_dims().iter().map(|d| d.1).collect::<Vec<_>>(), [2, 2]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
pub fn cga_layout(bases: &[Vec<u64>], rank: usize) -> Result<LinearLayout> {
    check_cga("cga_layout", bases, rank)?;
    let outs = standard_out_dims(rank);
    let mut sizes = vec![1u64; rank];
    for b in bases {
        for (s, &v) in sizes.iter_mut().zip(b) {
            let need = v
                .checked_next_power_of_two()
                .filter(|&p| p <= 1 << 30)
                .ok_or_else(|| LayoutError::InvalidParameter {
                    family: "cga_layout",
                    param: "cga_layout",
                    value: format!("{b:?}"),
                    reason: "component too large".into(),
                })?;
            *s = (*s).max(if v == need { need * 2 } else { need });
        }
    }
    let out_sizes: Vec<(Dim, u64)> = outs.into_iter().zip(sizes).collect();
    LinearLayout::from_bases(&[(Dim::new("block"), bases.to_vec())], &out_sizes, true).map_err(
        |e| LayoutError::InvalidParameter {
            family: "cga_layout",
            param: "cga_layout",
            value: format!("{bases:?}"),
            reason: format!("not a CGA layout: {e}"),
        },
    )
}

/// Gluon 3.9's check on a `cga_layout` (bases `block → dim*` in units of one CTA tile): every
/// basis has one component per dim, and once the zero (broadcast) bases are removed the rest form
/// a permutation matrix — each basis a single power of two, no power repeated, and each dim's
/// powers exactly `1, 2, 4, …` (in any order).
///
/// ```
/// use linear_layout::families::standard::check_cga;
/// assert!(check_cga("blocked", &[vec![0, 1], vec![0, 0], vec![1, 0]], 2).is_ok());
/// assert!(check_cga("blocked", &[vec![2, 0], vec![1, 0]], 2).is_ok());
/// assert!(check_cga("blocked", &[vec![1, 1]], 2).is_err()); // two dims at once
/// assert!(check_cga("blocked", &[vec![2, 0]], 2).is_err()); // CTA tile 1 never reached
/// assert!(check_cga("blocked", &[vec![1, 0], vec![1, 0]], 2).is_err()); // repeated
/// ```
pub fn check_cga(family: &'static str, bases: &[Vec<u64>], rank: usize) -> Result<()> {
    let bad = |reason: String| LayoutError::InvalidParameter {
        family,
        param: "cga_layout",
        value: format!("{bases:?}"),
        reason,
    };
    const PERMUTATION: &str =
        "after removing broadcast (zero) bases the CGA layout must be a permutation matrix";
    // Per dim, the powers of two seen so far, as a bit mask.
    let mut seen = vec![0u64; rank];
    for b in bases {
        if b.len() != rank {
            return Err(bad(format!(
                "basis {b:?} needs {rank} components, one per tensor dim"
            )));
        }
        let mut nonzero = b.iter().enumerate().filter(|&(_, &v)| v != 0);
        let (Some((d, &v)), None) = (nonzero.next(), nonzero.next()) else {
            if b.iter().any(|&v| v != 0) {
                return Err(bad(format!(
                    "basis {b:?} moves along several dims; {PERMUTATION}"
                )));
            }
            continue;
        };
        let mask = seen.get_mut(d);
        match mask {
            Some(m) if v.is_power_of_two() && v <= 1 << 30 && *m & v == 0 => *m |= v,
            _ => {
                return Err(bad(format!(
                    "basis {b:?} is repeated or not a power of two; {PERMUTATION}"
                )))
            }
        }
    }
    if let Some((d, m)) = seen
        .iter()
        .enumerate()
        .find(|(_, &m)| !(m + 1).is_power_of_two())
    {
        return Err(bad(format!(
            "dim{d} is split by CTA tiles {m:#b} (as a bit mask), not 1, 2, 4, …; {PERMUTATION}"
        )));
    }
    Ok(())
}

fn lookup(shape: &[(&str, u64)], dim: Dim) -> Result<u64> {
    shape
        .iter()
        .find(|(n, _)| *n == dim.name())
        .map(|&(_, s)| s)
        .ok_or_else(|| LayoutError::UnknownDim {
            op: "ensure_layout_shape",
            role: "out",
            dim: dim.name().to_string(),
            available: shape.iter().map(|(n, _)| n.to_string()).collect(),
        })
}
