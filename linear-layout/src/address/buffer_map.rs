//! [`BufferMap`]: the affine buffer part `base + B(i)` of an [`AddressMap`](crate::AddressMap).
//!
//! CuTe's `shape:stride` layout of the logical buffer index, plus a base: the index `i` is split
//! into mixed-radix digits, first mode fastest (colexicographic, as CuTe does),
//! `i = i0 + s0·(i1 + s1·(i2 + …))`, and `B(i) = Σ ik · dk`. Sizes and strides are plain
//! integers (a TLX reuse group of 3 buffers, or a group stride of 96 KiB, are fine); only when
//! they are powers of two with disjoint bits is `B` also a GF(2) layout
//! ([`BufferMap::to_linear_layout`]).

use std::fmt;

use crate::{Dim, LayoutError, LinearLayout, Result};

const FAMILY: &str = "buffer_map";

/// `base + (s0,s1,…):(d0,d1,…)`: buffer `i` with digits `(i0, i1, …)` (first mode fastest)
/// starts at `base + i0·d0 + i1·d1 + …` (bytes for shared memory, 32-bit columns for tensor
/// memory). A map with no modes has one buffer, at `base`.
///
/// Invariants, checked by [`BufferMap::new`]: every size is at least 1, the number of buffers
/// (the product of the sizes) and the largest offset fit a `u64`.
///
/// ```
/// use linear_layout::BufferMap;
/// // 4 buffers: 2 subtiles of 32 bytes inside each of 2 groups 128 bytes apart, after 64 bytes.
/// let b = BufferMap::new(64, &[(2, 32), (2, 128)])?;
/// assert_eq!(b.to_string(), "64 + (2,2):(32,128)");
/// assert_eq!(b.offsets().collect::<Vec<_>>(), [64, 96, 192, 224]);
/// assert_eq!(b.digits(3)?, [1, 1]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct BufferMap {
    base: u64,
    modes: Vec<(u64, u64)>,
    count: u64,
}

impl BufferMap {
    /// `base + (sizes):(strides)` from `(size, stride)` modes, first mode fastest.
    ///
    /// Errors ([`LayoutError::InvalidParameter`] naming `modes`): a size of 0, more than
    /// `u64::MAX` buffers, or a largest offset `base + Σ dk·(sk − 1)` past `u64::MAX` — so that
    /// [`offset`](Self::offset) never overflows for an index in range.
    ///
    /// ```
    /// use linear_layout::{BufferMap, LayoutError};
    /// let b = BufferMap::new(0, &[(3, 16384)])?; // a 3-stage ring of 16 KiB tiles
    /// assert_eq!(b.num_buffers(), 3);
    /// assert_eq!(BufferMap::new(128, &[])?.num_buffers(), 1);
    /// let err = BufferMap::new(0, &[(2, 32), (0, 64)]);
    /// assert!(matches!(err, Err(LayoutError::InvalidParameter { param: "modes", .. })));
    /// assert!(BufferMap::new(u64::MAX, &[(2, 1)]).is_err()); // buffer 1 would overflow
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn new(base: u64, modes: &[(u64, u64)]) -> Result<Self> {
        let bad = |reason: String| LayoutError::invalid_parameter(FAMILY, "modes", modes, reason);
        let mut count: u64 = 1;
        let mut last = base;
        for (k, &(size, stride)) in modes.iter().enumerate() {
            if size == 0 {
                return Err(bad(format!(
                    "mode {k} has size 0; every mode needs at least one buffer"
                )));
            }
            count = count
                .checked_mul(size)
                .ok_or_else(|| bad("more than 2^64 - 1 buffers".into()))?;
            last = stride
                .checked_mul(size - 1)
                .and_then(|span| last.checked_add(span))
                .ok_or_else(|| {
                    bad(format!(
                        "with base {base}, the last buffer's offset overflows u64"
                    ))
                })?;
        }
        Ok(BufferMap {
            base,
            modes: modes.to_vec(),
            count,
        })
    }

    /// The offset of buffer 0.
    ///
    /// ```
    /// assert_eq!(linear_layout::BufferMap::new(64, &[(2, 32)])?.base(), 64);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn base(&self) -> u64 {
        self.base
    }

    /// The `(size, stride)` modes, first (fastest) first.
    ///
    /// ```
    /// let b = linear_layout::BufferMap::new(0, &[(2, 32), (3, 128)])?;
    /// assert_eq!(b.modes(), &[(2, 32), (3, 128)]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn modes(&self) -> &[(u64, u64)] {
        &self.modes
    }

    /// The number of buffers, the product of the sizes (1 without modes).
    ///
    /// ```
    /// assert_eq!(linear_layout::BufferMap::new(0, &[(2, 32), (3, 128)])?.num_buffers(), 6);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn num_buffers(&self) -> u64 {
        self.count
    }

    /// The mixed-radix digits of buffer index `i`, one per mode, first mode fastest:
    /// `i = i0 + s0·(i1 + s1·(…))`. Errors: [`LayoutError::BufferIndexOutOfRange`].
    ///
    /// ```
    /// use linear_layout::{BufferMap, LayoutError};
    /// let b = BufferMap::new(0, &[(2, 32), (3, 128)])?;
    /// assert_eq!(b.digits(5)?, [1, 2]);
    /// assert_eq!(b.digits(6), Err(LayoutError::BufferIndexOutOfRange { index: 6, count: 6 }));
    /// # Ok::<(), LayoutError>(())
    /// ```
    pub fn digits(&self, i: u64) -> Result<Vec<u64>> {
        self.check_index(i)?;
        Ok(self.digit_iter(i).collect())
    }

    /// `i`'s digit in each mode, first mode first (`i` already checked).
    fn digit_iter(&self, i: u64) -> impl Iterator<Item = u64> + '_ {
        let mut rest = i;
        self.modes.iter().map(move |&(size, _)| {
            // `size >= 1` by construction; `checked_*` keeps this total anyway.
            let digit = rest.checked_rem(size).unwrap_or(0);
            rest = rest.checked_div(size).unwrap_or(0);
            digit
        })
    }

    /// `base + B(i) = base + Σ ik·dk`, the start of buffer `i`.
    /// Errors: [`LayoutError::BufferIndexOutOfRange`]; [`LayoutError::AddressOverflow`] cannot
    /// happen for a map built by [`new`](Self::new) but is returned rather than wrapping.
    ///
    /// ```
    /// use linear_layout::BufferMap;
    /// // TLX-style group of 3 subtiles (stride 96) inside groups 1024 apart: not powers of two.
    /// let b = BufferMap::new(0, &[(3, 96), (2, 1024)])?;
    /// assert_eq!(b.offset(4)?, 96 + 1024);
    /// assert!(b.offset(6).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn offset(&self, i: u64) -> Result<u64> {
        let overflow = || LayoutError::AddressOverflow {
            op: "buffer_map",
            what: format!("the offset of buffer {i} of {self} does not fit a u64"),
        };
        self.check_index(i)?;
        let mut acc = self.base;
        for (digit, &(_, stride)) in self.digit_iter(i).zip(&self.modes) {
            acc = digit
                .checked_mul(stride)
                .and_then(|d| acc.checked_add(d))
                .ok_or_else(overflow)?;
        }
        Ok(acc)
    }

    /// `offset(i)` for every buffer, in index order (lazily: a map may have 2^63 buffers).
    ///
    /// ```
    /// let b = linear_layout::BufferMap::new(0, &[(2, 16384), (2, 65536)])?;
    /// assert_eq!(b.offsets().collect::<Vec<_>>(), [0, 16384, 65536, 81920]);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn offsets(&self) -> impl Iterator<Item = u64> + '_ {
        // Every index below `count` has an offset (see `new`), so nothing is skipped.
        (0..self.count).filter_map(move |i| self.offset(i).ok())
    }

    /// The largest `B(i)` (without the base): `Σ dk·(sk − 1)`, the offset of the last buffer.
    pub(crate) fn max_relative(&self) -> u64 {
        self.modes.iter().fold(0u64, |acc, &(s, d)| {
            acc.saturating_add(d.saturating_mul(s.saturating_sub(1)))
        })
    }

    /// Whether `base` and every stride of a mode with more than one buffer are multiples of
    /// `alignment`, i.e. whether every `base + B(i)` is; otherwise the first misaligned buffer
    /// as `(index, offset)`. `alignment` 0 is treated as 1.
    pub(crate) fn first_misaligned(&self, alignment: u64) -> Option<(u64, u64)> {
        let a = alignment.max(1);
        if self.base.checked_rem(a) != Some(0) {
            return Some((0, self.base));
        }
        // The first index moving a mode with a misaligned stride is the first misaligned one:
        // every smaller index only moves the (aligned) modes before it.
        let mut index = 1u64;
        for &(size, stride) in &self.modes {
            if size > 1 && stride.checked_rem(a) != Some(0) {
                return Some((index, self.base.saturating_add(stride)));
            }
            index = index.saturating_mul(size);
        }
        None
    }

    /// The bases of `B` as a GF(2) map, `stride · 2^k` for every bit `k` of every mode, when it
    /// is one; see [`to_linear_layout`](Self::to_linear_layout).
    pub(crate) fn gf2_bases(&self) -> Option<Vec<u64>> {
        let mut used = self.base;
        let mut bases = Vec::new();
        for &(size, stride) in &self.modes {
            if size == 1 {
                continue;
            }
            if !size.is_power_of_two() || (stride != 0 && !stride.is_power_of_two()) {
                return None;
            }
            // stride · (size − 1): the bits this mode sets (fits: checked by `new`).
            let range = stride.checked_mul(size - 1)?;
            if used & range != 0 {
                return None;
            }
            used |= range;
            bases.extend((0..size.trailing_zeros()).map(|k| stride << k));
        }
        Some(bases)
    }

    /// `B` (without the base) as a GF(2) layout `in_dim → out_dim` of size `out_size`, when it
    /// is one: every mode of size > 1 has a power-of-two size and a power-of-two (or zero)
    /// stride, and the bits of `base` and of every `stride·(size − 1)` are pairwise disjoint.
    /// Then `base + B(i) = base ⊕ L(i)`, and `in_dim` has the bases `stride · 2^k`. `Ok(None)`
    /// otherwise (e.g. 3 buffers, a stride of 96, or overlapping ranges).
    ///
    /// Errors: `out_size` not a power of two ([`LayoutError::NotPowerOfTwo`]) or too small for
    /// the largest offset ([`LayoutError::BasisOutOfRange`]).
    ///
    /// ```
    /// use linear_layout::BufferMap;
    /// let b = BufferMap::new(64, &[(2, 32), (2, 128)])?;
    /// let l = b.to_linear_layout("buffer", "offset", 256)?;
    /// let l = l.ok_or(linear_layout::LayoutError::Invalid { op: "doc", what: "not GF(2)".into() })?;
    /// assert_eq!(l.bases_of("buffer")?, vec![vec![32], vec![128]]);
    /// assert_eq!(BufferMap::new(0, &[(3, 128)])?.to_linear_layout("buffer", "offset", 512)?, None);
    /// // 64 + 64·i: the base shares bit 6 with the range, so `+` is not `⊕`.
    /// assert_eq!(BufferMap::new(64, &[(2, 64)])?.to_linear_layout("buffer", "offset", 256)?, None);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn to_linear_layout(
        &self,
        in_dim: impl Into<Dim>,
        out_dim: impl Into<Dim>,
        out_size: u64,
    ) -> Result<Option<LinearLayout>> {
        let Some(bases) = self.gf2_bases() else {
            return Ok(None);
        };
        let (in_dim, out_dim) = (in_dim.into(), out_dim.into());
        let bases = bases.into_iter().map(|b| vec![b]).collect();
        LinearLayout::from_bases(&[(in_dim, bases)], &[(out_dim, out_size)], false).map(Some)
    }

    fn check_index(&self, i: u64) -> Result<()> {
        if i >= self.count {
            return Err(LayoutError::BufferIndexOutOfRange {
                index: i,
                count: self.count,
            });
        }
        Ok(())
    }
}

/// CuTe's `shape:stride` with the base in front: `64 + (2,2):(32,128)`, `(4):(8192)` when the
/// base is 0, `(1):(0)` for a map without modes.
///
/// ```
/// use linear_layout::BufferMap;
/// assert_eq!(BufferMap::new(0, &[(4, 8192)])?.to_string(), "(4):(8192)");
/// assert_eq!(BufferMap::new(256, &[])?.to_string(), "256 + (1):(0)");
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
impl fmt::Display for BufferMap {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.base != 0 {
            write!(f, "{} + ", self.base)?;
        }
        if self.modes.is_empty() {
            return f.write_str("(1):(0)");
        }
        let join = |pick: fn(&(u64, u64)) -> u64| {
            self.modes
                .iter()
                .map(|m| pick(m).to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        write!(f, "({}):({})", join(|m| m.0), join(|m| m.1))
    }
}
