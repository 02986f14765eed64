//! [`Reindex`]: lowering by rewriting buffer indices into an expanded alias of the backing, and
//! [`TlxRewrite`], TLX's rewrite formula — written here once for the planner, its placement and
//! codegen's TLX lowering.

use std::fmt;

use linear_layout::{BufferMap, LayoutError};

use crate::AllocError;

/// TLX's index rewrite (fbtriton 3.7.4, `tlx-storage-alias-lowering`): buffer `i` of an
/// allocation lives in slot `scale·i + offset + (i mod group_size)` of its alias of the backing
/// (slot `k` starts at `k · unit`), where `scale = U / unit`, `offset = o / unit` and
/// `group_size` is the product of the ancestor shared groups' sizes. TLX rewrites only when
/// `scale > 1` or `offset > 0`; otherwise buffer `i` is slot `i`.
///
/// ```
/// use alias_alloc::TlxRewrite;
/// let p = TlxRewrite { scale: 2, offset: 0, group_size: 2 }; // FA forward's P
/// assert_eq!((0..4).map(|i| p.slot(i)).collect::<Option<Vec<_>>>(), Some(vec![0, 3, 4, 7]));
/// assert_eq!(p.placement(4, 32)?.to_string(), "(2,2):(96,128)");
/// assert!(!TlxRewrite { scale: 1, offset: 0, group_size: 4 }.rewrites());
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TlxRewrite {
    /// `U / unit`: slots per buffer index.
    pub scale: u64,
    /// `o / unit`: the first slot.
    pub offset: u64,
    /// Product of the ancestor shared group sizes (the `i mod group_size` subtile term).
    pub group_size: u64,
}

impl TlxRewrite {
    /// No rewrite: buffer `i` in slot `i`.
    pub const IDENTITY: TlxRewrite = TlxRewrite {
        scale: 1,
        offset: 0,
        group_size: 1,
    };

    /// Whether TLX rewrites the index at all (`scale > 1 || offset > 0`).
    pub fn rewrites(&self) -> bool {
        self.scale > 1 || self.offset > 0
    }

    /// The slot of buffer `i`, or `None` past `u64::MAX` (`group_size` 0 counts as 1).
    pub fn slot(&self, i: u64) -> Option<u64> {
        if !self.rewrites() {
            return Some(i);
        }
        self.scale
            .checked_mul(i)?
            .checked_add(self.offset)?
            .checked_add(i % self.group_size.max(1))
    }

    /// A slot no buffer of `0..num` exceeds: `scale·(num − 1) + offset + group_size − 1` (`None`
    /// past `u64::MAX`).
    pub fn slot_bound(&self, num: u64) -> Option<u64> {
        if !self.rewrites() {
            return Some(num.saturating_sub(1));
        }
        self.scale
            .checked_mul(num.saturating_sub(1))?
            .checked_add(self.offset)?
            .checked_add(self.group_size.saturating_sub(1))
    }

    /// Where buffers `0..num` start, as a mixed-radix map in the units of `unit`: with
    /// `U = unit·scale`, buffer `j + group_size·k` at `unit·offset + (U + unit)·j + group_size·U·k`,
    /// so `unit·offset + (group_size, ⌈num / group_size⌉):(U + unit, group_size·U)`, or
    /// `unit·offset + (num):(U)` for `group_size ≤ 1`, or `(num):(unit)` when TLX does not
    /// rewrite. Errors: [`LayoutError::InvalidParameter`] when an offset passes `u64::MAX`.
    pub fn placement(&self, num: u64, unit: u64) -> Result<BufferMap, LayoutError> {
        if !self.rewrites() {
            return BufferMap::new(0, &[(num, unit)]);
        }
        let overflow = || {
            LayoutError::invalid_parameter(
                "tlx_rewrite",
                "unit",
                &unit,
                "slot offsets overflow u64",
            )
        };
        let u = unit.checked_mul(self.scale).ok_or_else(overflow)?;
        let base = unit.checked_mul(self.offset).ok_or_else(overflow)?;
        let gs = self.group_size;
        if gs <= 1 {
            return BufferMap::new(base, &[(num, u)]);
        }
        let sub = u.checked_add(unit).ok_or_else(overflow)?;
        let group = gs.checked_mul(u).ok_or_else(overflow)?;
        BufferMap::new(base, &[(gs, sub), (num.div_ceil(gs), group)])
    }
}

impl fmt::Display for TlxRewrite {
    /// `slot(i) = 2·i + 0 + i mod 2`, or `identity` when TLX does not rewrite.
    ///
    /// ```
    /// use alias_alloc::TlxRewrite;
    /// assert_eq!(TlxRewrite { scale: 2, offset: 1, group_size: 1 }.to_string(), "slot(i) = 2·i + 1");
    /// assert_eq!(TlxRewrite::IDENTITY.to_string(), "identity");
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.rewrites() {
            return f.write_str("identity");
        }
        write!(f, "slot(i) = {}·i + {}", self.scale, self.offset)?;
        if self.group_size > 1 {
            write!(f, " + i mod {}", self.group_size)?;
        }
        Ok(())
    }
}

/// How a logical buffer index `i` becomes a slot of the allocation's alias of the backing
/// (slot `k` starts at `k · unit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reindex {
    /// TLX's rewrite.
    Tlx(TlxRewrite),
    /// Intended mode: the explicit map divided by the unit (only when every offset and stride
    /// is a multiple of it).
    Slots(BufferMap),
}

/// Most slots [`Reindex`]'s `Display` compares with the identity.
const MAX_IDENTITY_CHECK: u64 = 1 << 16;

impl fmt::Display for Reindex {
    /// TLX's rewrite as [`TlxRewrite`] prints it; intended slots as `slot(i) = <map>`, or
    /// `identity` when slot `i` is `i`.
    ///
    /// ```
    /// use alias_alloc::Reindex;
    /// use linear_layout::BufferMap;
    /// let slots = Reindex::Slots(BufferMap::new(0, &[(2, 1), (2, 4)])?);
    /// assert_eq!(slots.to_string(), "slot(i) = (2,2):(1,4)");
    /// assert_eq!(Reindex::Slots(BufferMap::new(0, &[(4, 1)])?).to_string(), "identity");
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reindex::Tlx(r) => r.fmt(f),
            Reindex::Slots(map) => {
                let n = map.num_buffers().min(MAX_IDENTITY_CHECK);
                let identity = (0..n).all(|i| map.offset(i).is_ok_and(|o| o == i));
                if identity && map.num_buffers() <= MAX_IDENTITY_CHECK {
                    f.write_str("identity")
                } else {
                    write!(f, "slot(i) = {map}")
                }
            }
        }
    }
}

impl Reindex {
    /// The physical slot of logical buffer `i`.
    ///
    /// ```
    /// use alias_alloc::{Reindex, TlxRewrite};
    /// let p = Reindex::Tlx(TlxRewrite { scale: 2, offset: 0, group_size: 2 });
    /// let slots: Vec<u64> = (0..4).map(|i| p.slot(i)).collect::<Result<_, _>>()?;
    /// assert_eq!(slots, [0, 3, 4, 7]); // FA forward's P: TLX's subtile placement
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn slot(&self, i: u64) -> Result<u64, AllocError> {
        match self {
            Reindex::Tlx(r) => r
                .slot(i)
                .ok_or_else(|| AllocError::Input(format!("slot of buffer {i} overflows"))),
            Reindex::Slots(map) => map.offset(i).map_err(|e| AllocError::Input(e.to_string())),
        }
    }

    /// Leading dim of the alias type: TLX's `scale·(n−1) + offset + ((n−1) mod gs) + 1`
    /// when rewritten, else `n`; for [`Reindex::Slots`] the largest slot + 1.
    pub fn alias_buffers(&self, num: u64) -> Result<u64, AllocError> {
        match self {
            Reindex::Tlx(r) if !r.rewrites() => Ok(num),
            Reindex::Tlx(_) => self.slot(num.saturating_sub(1)).map(|s| s + 1),
            Reindex::Slots(map) if map.num_buffers() == num => {
                // Strides are non-negative: the last digit of every mode gives the largest slot.
                let last = map
                    .modes()
                    .iter()
                    .try_fold(map.base(), |acc, &(n, d)| {
                        n.checked_sub(1)
                            .and_then(|k| k.checked_mul(d))
                            .and_then(|x| acc.checked_add(x))
                    })
                    .ok_or_else(|| {
                        AllocError::Input(format!("the alias of {num} buffers overflows"))
                    })?;
                Ok(last + 1)
            }
            Reindex::Slots(_) => {
                let mut m = 0;
                for i in 0..num {
                    m = m.max(self.slot(i)?);
                }
                Ok(m + 1)
            }
        }
    }
}
