//! [`align_up`]: an offset rounded up to an alignment — the one definition every placement in
//! the workspace (TLX's `alignUp`, the packers, the interpreter's shared layout) uses.

/// The smallest multiple of `align` that is at least `x` (`align` 0 counts as 1), or `None`
/// past `u64::MAX`. Powers of two take no division (packing's search calls this in its inner
/// loop).
///
/// ```
/// use linear_layout::address::align_up;
/// assert_eq!(align_up(5, 4), Some(8));
/// assert_eq!(align_up(7, 3), Some(9));
/// assert_eq!(align_up(7, 0), Some(7));
/// assert_eq!(align_up(u64::MAX - 1, 4), None);
/// ```
#[inline]
pub fn align_up(x: u64, align: u64) -> Option<u64> {
    if align.is_power_of_two() {
        let m = align - 1;
        return Some(x.checked_add(m)? & !m);
    }
    match x.checked_rem(align) {
        None | Some(0) => Some(x),
        Some(r) => x.checked_add(align - r),
    }
}

/// [`align_up`], saturating at `u64::MAX` (which a capacity check then refuses), as TLX's
/// `alignUp` and the search's bounds want it.
///
/// ```
/// use linear_layout::address::align_up_saturating;
/// assert_eq!(align_up_saturating(u64::MAX - 1, 3), u64::MAX);
/// ```
#[inline]
pub fn align_up_saturating(x: u64, align: u64) -> u64 {
    align_up(x, align).unwrap_or(u64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn align_up_saturates() {
        assert_eq!(align_up_saturating(5, 4), 8);
        assert_eq!(align_up_saturating(6, 3), 6);
        assert_eq!(align_up_saturating(7, 3), 9);
        assert_eq!(align_up_saturating(u64::MAX - 1, 4), u64::MAX);
        assert_eq!(align_up_saturating(u64::MAX - 1, 3), u64::MAX);
        assert_eq!(align_up_saturating(9, 0), 9);
    }
}
