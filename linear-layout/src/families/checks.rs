//! The parameter checks every family shares, with Triton's and Gluon's rules and typed errors:
//! tensor shapes, dim orders, power-of-two parameters and `cga_layout` bases.

use crate::{LayoutError, Result};

/// Check that `shape` is non-empty, of the expected rank, and made of powers of two.
///
/// ```
/// use linear_layout::families::checks::check_shape;
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
/// use linear_layout::families::checks::check_order;
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
/// use linear_layout::families::checks::check_pow2;
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

/// Gluon 3.9's check on a `cga_layout` (bases `block → dim*` in units of one CTA tile): every
/// basis has one component per dim, and once the zero (broadcast) bases are removed the rest form
/// a permutation matrix — each basis a single power of two, no power repeated, and each dim's
/// powers exactly `1, 2, 4, …` (in any order).
///
/// ```
/// use linear_layout::families::checks::check_cga;
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
