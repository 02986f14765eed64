//! [`CuteSwizzle`]: CuTe's `Swizzle<B, M, S>` as a layout over offsets.
//!
//! CuTe (CUTLASS `include/cute/swizzle.hpp`, `python/pycute/swizzle.py`) describes shared-memory
//! swizzles as a bit function on addresses: keep the low `M` bits, and XOR the `B` bits at
//! `M + S` into the `B` bits at `M`. Over GF(2) that is a linear map, i.e. a [`LinearLayout`]
//! `offset → offset`, which is how NVMMA's swizzle relates to CuTe's (see
//! [`NvmmaShared::cute_swizzle`](super::NvmmaShared::cute_swizzle)).

use std::fmt;

use crate::{LayoutError, LinearLayout, Result};

const FAMILY: &str = "cute_swizzle";

/// CuTe `Swizzle<B, M, S>`: `y = x ^ ((x >> S) & (((1 << B) - 1) << M))` — the `B` bits at
/// position `M + S` are XOR-ed into the `B` bits at position `M`. It is an involution (applying
/// it twice gives `x` back) and acts on the low `B + M + S` bits only.
///
/// Preconditions, as CuTe asserts them ([`LayoutError::InvalidParameter`] naming the parameter
/// otherwise): `S ≥ B` (the source and destination bits must not overlap; CuTe also allows a
/// negative `S`, which this type does not model), and `B + M + S ≤ 63` so that every address
/// fits a `u64`.
///
/// ```
/// use linear_layout::families::CuteSwizzle;
/// let sw = CuteSwizzle::new(3, 4, 3)?; // the 128-byte swizzle of wgmma/TMA, on byte addresses
/// assert_eq!(sw.to_string(), "Sw<3,4,3>");
/// assert_eq!(sw.apply(144), 128); // row 1 (bit 7) flips 16-byte chunk 1 (bit 4)
/// assert_eq!(sw.apply(sw.apply(1000)), 1000);
/// assert!(CuteSwizzle::new(3, 4, 2).is_err()); // S < B
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuteSwizzle {
    /// Number of bits in the mask (`B`).
    pub bits: u32,
    /// Number of least-significant bits kept constant (`M`).
    pub base: u32,
    /// Distance to shift the mask (`S`).
    pub shift: u32,
}

impl CuteSwizzle {
    /// A checked `Swizzle<bits, base, shift>`; errors as listed on [`CuteSwizzle`].
    ///
    /// ```
    /// use linear_layout::{families::CuteSwizzle, LayoutError};
    /// assert!(CuteSwizzle::new(2, 4, 3).is_ok());
    /// let err = CuteSwizzle::new(4, 4, 3);
    /// assert!(matches!(err, Err(LayoutError::InvalidParameter { param: "shift", .. })));
    /// assert!(CuteSwizzle::new(30, 30, 30).is_err()); // 90 address bits
    /// ```
    pub fn new(bits: u32, base: u32, shift: u32) -> Result<Self> {
        let s = CuteSwizzle { bits, base, shift };
        s.validate()?;
        Ok(s)
    }

    /// Number of address bits the swizzle reads, `B + M + S` (saturating for unchecked fields).
    ///
    /// ```
    /// use linear_layout::families::CuteSwizzle;
    /// assert_eq!(CuteSwizzle::new(3, 4, 3)?.address_bits(), 10);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn address_bits(&self) -> u32 {
        self.bits
            .saturating_add(self.base)
            .saturating_add(self.shift)
    }

    /// The smallest range the swizzle permutes, `2^(B + M + S)` offsets (CuTe's `size()`).
    /// Errors: see [`CuteSwizzle`].
    ///
    /// ```
    /// use linear_layout::families::CuteSwizzle;
    /// assert_eq!(CuteSwizzle::new(3, 4, 3)?.size()?, 1024);
    /// assert_eq!(CuteSwizzle::new(1, 4, 3)?.size()?, 256);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn size(&self) -> Result<u64> {
        self.validate()?;
        Ok(1 << self.address_bits())
    }

    /// `x ^ ((x >> S) & (((1 << B) - 1) << M))`. Total: for fields that [`CuteSwizzle::new`]
    /// would refuse, mask bits past bit 63 are dropped.
    ///
    /// ```
    /// use linear_layout::families::CuteSwizzle;
    /// let sw = CuteSwizzle::new(2, 4, 3)?; // 64-byte swizzle
    /// assert_eq!(sw.apply(2 * 64 + 16), 128); // row 2 (bit 7) flips chunk bit 4
    /// assert_eq!(sw.apply(15), 15); // the low M = 4 bits never change
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn apply(&self, x: u64) -> u64 {
        match x.checked_shr(self.shift) {
            Some(moved) => x ^ (moved & self.destination_mask()),
            None => x,
        }
    }

    /// The bits the swizzle writes: `((1 << B) - 1) << M`.
    fn destination_mask(&self) -> u64 {
        let ones = 1u64
            .checked_shl(self.bits)
            .map_or(u64::MAX, |p| p.wrapping_sub(1));
        if self.base >= u64::BITS {
            0
        } else {
            ones << self.base
        }
    }

    /// The swizzle as a layout `offset → offset` on `size` offsets (a power of two, at least
    /// [`CuteSwizzle::size`]): offset bit `i` maps to `2^i`, plus `2^(i - S)` for the `B` source
    /// bits `M + S ≤ i < M + S + B`. Being linear, it composes with other layouts — e.g. a
    /// row-major byte layout `(row, col) → offset`, then this swizzle, gives NVMMA's addresses.
    ///
    /// Errors: [`LayoutError::InvalidParameter`] (see [`CuteSwizzle`]),
    /// [`LayoutError::InvalidShape`] if `size` is not a power of two at least `2^(B+M+S)`.
    ///
    /// ```
    /// use linear_layout::families::CuteSwizzle;
    /// let l = CuteSwizzle::new(1, 1, 2)?.to_linear_layout(16)?;
    /// // bit 3 also flips bit 1; the others map to themselves
    /// assert_eq!(l.bases_of("offset")?, vec![vec![1], vec![2], vec![4], vec![10]]);
    /// assert!(l.is_invertible());
    /// assert!(CuteSwizzle::new(1, 1, 2)?.to_linear_layout(8).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(&self, size: u64) -> Result<LinearLayout> {
        let min = self.size()?;
        if !size.is_power_of_two() || size < min {
            return Err(LayoutError::InvalidShape {
                family: FAMILY,
                shape: vec![size],
                reason: format!("{self} needs a power-of-two range of at least {min} offsets"),
            });
        }
        let bases = (0..size.trailing_zeros())
            .map(|i| vec![self.apply(1 << i)])
            .collect();
        LinearLayout::from_bases(&[("offset", bases)], &[("offset", size)], true)
    }

    fn validate(&self) -> Result<()> {
        if self.shift < self.bits {
            return Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "shift",
                value: self.shift.to_string(),
                reason: format!(
                    "must be at least bits = {} (CuTe: |SShift| >= BBits)",
                    self.bits
                ),
            });
        }
        if self.address_bits() > 63 {
            return Err(LayoutError::InvalidParameter {
                family: FAMILY,
                param: "bits",
                value: self.bits.to_string(),
                reason: format!(
                    "bits + base + shift = {} address bits; at most 63 fit a u64",
                    self.address_bits()
                ),
            });
        }
        Ok(())
    }
}

/// CuTe's C++ `print`: `Sw<B,M,S>`.
impl fmt::Display for CuteSwizzle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Sw<{},{},{}>", self.bits, self.base, self.shift)
    }
}
