//! The packing problem: buffers with half-open lifetimes `[lower, upper)`, sizes, alignments
//! and optional fixed offsets, and an optional capacity. Two buffers *conflict* iff their
//! lifetimes intersect; a [`Placement`] gives each buffer an offset, and conflicting buffers
//! must occupy disjoint ranges `[offset, offset + size)`. Units are whatever the caller packs
//! (bytes of SMEM, TMEM columns).

use super::PackError;

/// One buffer: MiniMalloc's `id,lower,upper,size[,alignment]` row, plus an optional fixed
/// offset (MiniMalloc's `offset` column).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Buffer {
    /// A name, unique in its problem.
    pub id: String,
    /// First program point at which the buffer is live.
    pub lower: u64,
    /// One past the last live program point (half-open).
    pub upper: u64,
    /// Size in units; 0 is allowed and occupies nothing.
    pub size: u64,
    /// The offset must be a multiple of this (≥ 1; any integer, not only powers of two).
    pub alignment: u64,
    /// A pinned offset, if the caller fixed one.
    pub offset: Option<u64>,
}

impl Buffer {
    /// A buffer with alignment 1 and no fixed offset; refuses an empty lifetime.
    ///
    /// ```
    /// use packing::Buffer;
    /// let b = Buffer::new("k_tile", 0, 4, 16384)?.aligned(1024)?;
    /// assert_eq!(b.alignment, 1024);
    /// assert!(Buffer::new("x", 3, 3, 1).is_err());
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn new(
        id: impl Into<String>,
        lower: u64,
        upper: u64,
        size: u64,
    ) -> Result<Buffer, PackError> {
        let b = Buffer {
            id: id.into(),
            lower,
            upper,
            size,
            alignment: 1,
            offset: None,
        };
        b.validate()?;
        Ok(b)
    }

    /// The same buffer with another alignment (≥ 1).
    ///
    /// ```
    /// use packing::Buffer;
    /// assert!(Buffer::new("a", 0, 1, 8)?.aligned(0).is_err());
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn aligned(mut self, alignment: u64) -> Result<Buffer, PackError> {
        self.alignment = alignment;
        self.validate()?;
        Ok(self)
    }

    /// The same buffer pinned at `offset` (a multiple of its alignment).
    ///
    /// ```
    /// use packing::Buffer;
    /// let b = Buffer::new("a", 0, 1, 8)?.aligned(4)?;
    /// assert!(b.clone().fixed_at(6).is_err());
    /// assert_eq!(b.fixed_at(8)?.offset, Some(8));
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn fixed_at(mut self, offset: u64) -> Result<Buffer, PackError> {
        self.offset = Some(offset);
        self.validate()?;
        Ok(self)
    }

    /// Whether the lifetimes of `self` and `other` intersect.
    ///
    /// ```
    /// use packing::Buffer;
    /// let a = Buffer::new("a", 0, 2, 1)?;
    /// assert!(a.overlaps_in_time(&Buffer::new("b", 1, 3, 1)?));
    /// assert!(!a.overlaps_in_time(&Buffer::new("c", 2, 3, 1)?)); // half-open
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn overlaps_in_time(&self, other: &Buffer) -> bool {
        self.lower < other.upper && other.lower < self.upper
    }

    /// The one place a buffer's invariants are checked.
    fn validate(&self) -> Result<(), PackError> {
        if self.upper <= self.lower {
            return Err(PackError::EmptyLifetime {
                id: self.id.clone(),
                lower: self.lower,
                upper: self.upper,
            });
        }
        if self.alignment == 0 {
            return Err(PackError::ZeroAlignment {
                id: self.id.clone(),
            });
        }
        if let Some(offset) = self.offset {
            if offset % self.alignment != 0 {
                return Err(PackError::MisalignedFixedOffset {
                    id: self.id.clone(),
                    offset,
                    alignment: self.alignment,
                });
            }
            if offset.checked_add(self.size).is_none() {
                return Err(PackError::Overflow {
                    id: self.id.clone(),
                });
            }
        }
        Ok(())
    }
}

/// A checked set of buffers (unique ids, valid lifetimes and alignments) and a capacity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    buffers: Vec<Buffer>,
    capacity: Option<u64>,
}

impl Problem {
    /// Checks every buffer and the uniqueness of ids.
    ///
    /// ```
    /// use packing::{Buffer, Problem, PackError};
    /// let dup = Problem::new(vec![Buffer::new("a", 0, 1, 1)?, Buffer::new("a", 1, 2, 1)?], None);
    /// assert!(matches!(dup, Err(PackError::DuplicateId { .. })));
    /// # Ok::<(), PackError>(())
    /// ```
    pub fn new(buffers: Vec<Buffer>, capacity: Option<u64>) -> Result<Problem, PackError> {
        let mut seen = std::collections::HashMap::with_capacity(buffers.len());
        for (i, b) in buffers.iter().enumerate() {
            b.validate()?;
            if let Some(first) = seen.insert(b.id.as_str(), i) {
                return Err(PackError::DuplicateId {
                    id: b.id.clone(),
                    first,
                    second: i,
                });
            }
        }
        Ok(Problem { buffers, capacity })
    }

    /// The buffers, in input order (placements index them the same way).
    pub fn buffers(&self) -> &[Buffer] {
        &self.buffers
    }

    /// The capacity, when the problem has one (the decision form).
    pub fn capacity(&self) -> Option<u64> {
        self.capacity
    }

    /// The same buffers with another capacity.
    ///
    /// ```
    /// use packing::{Buffer, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 1, 8)?], None)?.with_capacity(Some(8));
    /// assert_eq!(p.capacity(), Some(8));
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn with_capacity(mut self, capacity: Option<u64>) -> Problem {
        self.capacity = capacity;
        self
    }

    /// Number of buffers.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// Whether there are no buffers.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }

    /// Whether buffers `i` and `j` (indices) are live at the same time; false for an index out
    /// of range and for `i == j`.
    pub fn conflicts(&self, i: usize, j: usize) -> bool {
        match (self.buffers.get(i), self.buffers.get(j)) {
            (Some(a), Some(b)) if i != j => a.overlaps_in_time(b),
            _ => false,
        }
    }
}

/// Splits `indices` (buffers of `buffers`, sorted by `lower`) into time partitions: maximal
/// runs whose lifetimes chain through overlaps. A new partition starts where no earlier buffer
/// is still live, so buffers of different partitions never conflict and can be placed apart.
pub(crate) fn time_partitions(buffers: &[Buffer], indices: &[usize]) -> Vec<Vec<usize>> {
    let mut parts = Vec::new();
    let mut group: Vec<usize> = Vec::new();
    let mut reach = 0u64;
    for &i in indices {
        let Some(b) = buffers.get(i) else { continue };
        if !group.is_empty() && b.lower >= reach {
            parts.push(std::mem::take(&mut group));
        }
        reach = if group.is_empty() {
            b.upper
        } else {
            reach.max(b.upper)
        };
        group.push(i);
    }
    if !group.is_empty() {
        parts.push(group);
    }
    parts
}

/// An offset per buffer, in the problem's order.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Placement {
    /// `offsets[i]` is where buffer `i` starts.
    pub offsets: Vec<u64>,
}

impl Placement {
    /// The height the placement needs: the largest `offset + size` (0 for no buffers).
    ///
    /// ```
    /// use packing::{Buffer, Placement, Problem};
    /// let p = Problem::new(vec![Buffer::new("a", 0, 1, 8)?, Buffer::new("b", 0, 1, 4)?], None)?;
    /// assert_eq!(Placement { offsets: vec![4, 0] }.peak(&p)?, 12);
    /// # Ok::<(), packing::PackError>(())
    /// ```
    pub fn peak(&self, problem: &Problem) -> Result<u64, PackError> {
        if self.offsets.len() != problem.len() {
            return Err(PackError::PlacementLength {
                expected: problem.len(),
                got: self.offsets.len(),
            });
        }
        let mut peak = 0u64;
        for (b, &o) in problem.buffers().iter().zip(&self.offsets) {
            let end = o
                .checked_add(b.size)
                .ok_or_else(|| PackError::Overflow { id: b.id.clone() })?;
            peak = peak.max(end);
        }
        Ok(peak)
    }
}
