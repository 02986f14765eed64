//! How the families fit a per-CTA layout to a tensor: standard `dim0..` names, N-d identities
//! in a dim order, Triton's `ensureLayoutNotSmallerThan` / `ensureLayoutNotLargerThan`, the CGA
//! layout and the CTA × CGA combination that fits a per-CTA layout to a tensor shape.

use super::checks::check_cga;
use crate::{Dim, LayoutError, LinearLayout, Result};

/// `dim0, dim1, …, dim{rank-1}`.
///
/// ```
/// use linear_layout::families::tiling::standard_out_dims;
/// assert_eq!(standard_out_dims(2).iter().map(|d| d.name()).collect::<Vec<_>>(), ["dim0", "dim1"]);
/// ```
pub fn standard_out_dims(rank: usize) -> Vec<Dim> {
    (0..rank).map(Dim::standard).collect()
}

/// Triton's `identityStandardND(in_dim, shape, order)`: the product of
/// `identity_1d(shape[d], in_dim, dim_d)` for `d = order[0], order[1], …`, with the out-dims left
/// in that order (which decides where [`ensure_not_smaller_than`] adds bases first).
///
/// ```
/// use linear_layout::families::tiling::identity_standard_nd;
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
/// use linear_layout::{LinearLayout, families::tiling::ensure_not_smaller_than};
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

/// Triton's `ensureLayoutNotLargerThan`: for each out-dim larger than `shape`, the bases that
/// move it furthest, largest first, one per halving until it fits, stop moving it: their
/// component is zeroed (broadcast: several inputs now own the same element), or, for
/// `register` bases with `broadcast_registers == false`, the basis is dropped. Bases that were
/// zero already stay.
///
/// Errors: [`LayoutError::Invalid`] for a component that is not a power of two (Triton
/// asserts); [`LayoutError::UnknownDim`] for an out-dim `shape` lacks.
///
/// ```
/// use linear_layout::{LinearLayout, families::tiling::ensure_not_larger_than};
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
    let register = Dim::new("register");
    let mut bases = layout.bases();
    let mut dropped: Vec<usize> = Vec::new();
    let mut sizes = Vec::with_capacity(outs.len());
    for (k, &(out, actual)) in outs.iter().enumerate() {
        let desired = lookup(shape, out)?;
        sizes.push(actual.min(desired));
        if actual <= desired {
            continue;
        }
        // (in-dim, basis, component) of every basis that moves `out`, largest first.
        let mut moving = Vec::new();
        for (d, (_, dim_bases)) in bases.iter().enumerate() {
            for (b, basis) in dim_bases.iter().enumerate() {
                let v = basis.get(k).copied().unwrap_or(0);
                if v == 0 {
                    continue;
                }
                if !v.is_power_of_two() {
                    return Err(LayoutError::Invalid {
                        op: "ensure_layout_not_larger_than",
                        what: format!("basis {b} moves {out} by {v}, not a power of two"),
                    });
                }
                moving.push((d, b, v));
            }
        }
        moving.sort_by_key(|m| std::cmp::Reverse(m.2));
        // One halving per distinct value: duplicate bases encode the same output bit and are
        // all cleared together (Triton 3.9).
        let mut size = actual;
        let mut i = 0;
        while size > desired {
            let Some(&(_, _, v)) = moving.get(i) else {
                break;
            };
            while let Some(&(d, b, _)) = moving.get(i).filter(|m| m.2 == v) {
                i += 1;
                let Some((dim, dim_bases)) = bases.get_mut(d) else {
                    continue;
                };
                if !broadcast_registers && *dim == register {
                    dropped.push(b);
                } else if let Some(c) = dim_bases.get_mut(b).and_then(|basis| basis.get_mut(k)) {
                    *c = 0;
                }
            }
            size >>= 1;
        }
    }
    for (dim, dim_bases) in &mut bases {
        if *dim == register {
            let mut b = 0;
            dim_bases.retain(|_| {
                b += 1;
                !dropped.contains(&(b - 1))
            });
        }
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
/// use linear_layout::{LinearLayout, families::tiling::combine_cta_cga};
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
/// use linear_layout::families::tiling::cga_layout;
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
