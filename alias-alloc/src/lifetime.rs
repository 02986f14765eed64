//! [`Lifetime`]: the program points `[start, end)` during which an allocation's buffers hold
//! live data. Allocations whose lifetimes are disjoint may share bytes at any offset — inside a
//! `distinct` group of a reuse tree and between the regions of one kernel
//! ([`Program::pack`](crate::Program::pack)).

use crate::AllocError;

/// A half-open interval of program points: live from `start` up to, not including, `end`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Lifetime {
    /// First program point at which the data is live.
    pub start: u64,
    /// One past the last live program point.
    pub end: u64,
}

impl Lifetime {
    /// `[start, end)`; refuses `end <= start`, naming `what` (the allocation).
    ///
    /// ```
    /// use alias_alloc::Lifetime;
    /// let l = Lifetime::new("acc", 2, 5)?;
    /// assert!(l.overlaps(&Lifetime::new("b", 4, 9)?));
    /// assert!(!l.overlaps(&Lifetime::new("c", 5, 9)?)); // half-open
    /// assert!(Lifetime::new("d", 3, 3).is_err());
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn new(what: &str, start: u64, end: u64) -> Result<Lifetime, AllocError> {
        if end <= start {
            return Err(AllocError::EmptyLifetime {
                alloc: what.to_string(),
                start,
                end,
            });
        }
        Ok(Lifetime { start, end })
    }

    /// Whether the two intervals share a program point.
    pub fn overlaps(&self, other: &Lifetime) -> bool {
        self.start < other.end && other.start < self.end
    }

    /// The smallest lifetime containing both.
    ///
    /// ```
    /// use alias_alloc::Lifetime;
    /// let h = Lifetime::new("a", 0, 2)?.hull(&Lifetime::new("b", 5, 7)?);
    /// assert_eq!((h.start, h.end), (0, 7));
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn hull(&self, other: &Lifetime) -> Lifetime {
        Lifetime {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// Live for the whole kernel: what an allocation without a lifetime is taken to be.
    pub const ALWAYS: Lifetime = Lifetime {
        start: 0,
        end: u64::MAX,
    };
}

impl std::fmt::Display for Lifetime {
    /// `[start, end)`.
    ///
    /// ```
    /// use alias_alloc::Lifetime;
    /// assert_eq!(Lifetime::new("a", 3, 5)?.to_string(), "[3, 5)");
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}, {})", self.start, self.end)
    }
}
