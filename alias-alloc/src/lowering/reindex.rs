//! [`Reindex`]: lowering by rewriting buffer indices into an expanded alias of the backing.

use linear_layout::BufferMap;

use crate::AllocError;

/// How a logical buffer index `i` becomes a slot of the allocation's alias of the backing
/// (slot `k` starts at `k · unit`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reindex {
    /// TLX's rewrite, applied only when `scale > 1 or offset > 0`:
    /// `scale · i + offset + (i mod group_size)` (the last term only when `group_size > 1`).
    Tlx {
        /// `U / unit`.
        scale: u64,
        /// `o / unit`.
        offset: u64,
        /// Product of the ancestor shared group sizes.
        group_size: u64,
        /// Whether TLX rewrites at all (`scale > 1 or offset > 0`).
        rewritten: bool,
    },
    /// Intended mode: the explicit map divided by the unit (only when every offset and stride
    /// is a multiple of it).
    Slots(BufferMap),
}

impl Reindex {
    /// The physical slot of logical buffer `i`.
    ///
    /// ```
    /// use alias_alloc::Reindex;
    /// let p = Reindex::Tlx { scale: 2, offset: 0, group_size: 2, rewritten: true };
    /// let slots: Vec<u64> = (0..4).map(|i| p.slot(i)).collect::<Result<_, _>>()?;
    /// assert_eq!(slots, [0, 3, 4, 7]); // FA forward's P: TLX's subtile placement
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn slot(&self, i: u64) -> Result<u64, AllocError> {
        match self {
            Reindex::Tlx {
                scale,
                offset,
                group_size,
                rewritten,
            } => {
                if !rewritten {
                    return Ok(i);
                }
                let sub = if *group_size > 1 { i % group_size } else { 0 };
                scale
                    .checked_mul(i)
                    .and_then(|v| v.checked_add(*offset))
                    .and_then(|v| v.checked_add(sub))
                    .ok_or_else(|| AllocError::Input(format!("slot of buffer {i} overflows")))
            }
            Reindex::Slots(map) => map.offset(i).map_err(|e| AllocError::Input(e.to_string())),
        }
    }

    /// Leading dim of the alias type: TLX's `scale·(n−1) + offset + ((n−1) mod gs) + 1`
    /// when rewritten, else `n`; for [`Reindex::Slots`] the largest slot + 1.
    pub fn alias_buffers(&self, num: u64) -> Result<u64, AllocError> {
        match self {
            Reindex::Tlx {
                rewritten: false, ..
            } => Ok(num),
            Reindex::Tlx { .. } => self.slot(num.saturating_sub(1)).map(|s| s + 1),
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
