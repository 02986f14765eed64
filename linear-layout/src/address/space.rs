//! [`MemorySpace`] and [`Address`]: where an element of an [`AddressMap`](crate::AddressMap)
//! lives, in the units the hardware uses.

use std::fmt;

/// The memory an [`AddressMap`](crate::AddressMap) addresses, and so its units.
///
/// ```
/// use linear_layout::address::MemorySpace;
/// assert_eq!(MemorySpace::Shared.unit(), "byte");
/// assert_eq!(MemorySpace::TensorMemory.unit(), "column");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemorySpace {
    /// Shared memory: byte addresses.
    Shared,
    /// Blackwell tensor memory: 128 lanes × 32-bit columns; the buffer part moves columns only.
    TensorMemory,
}

impl MemorySpace {
    /// The unit of offsets and alignments: `"byte"` or `"column"` (32-bit TMEM column).
    pub fn unit(self) -> &'static str {
        match self {
            MemorySpace::Shared => "byte",
            MemorySpace::TensorMemory => "column",
        }
    }
}

/// One element's address. Sub-word elements share a byte (shared memory) or a 32-bit column
/// (tensor memory) with their neighbours; the address names the byte or column.
///
/// ```
/// use linear_layout::Address;
/// let t = Address::Tensor { lane: 5, column: 135 };
/// assert_eq!(t.taddr(), Some(5 << 16 | 135));
/// assert_eq!(t.to_string(), "lane 5, column 135");
/// assert_eq!(Address::Shared { byte: 16512 }.byte(), Some(16512));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Address {
    /// A shared-memory byte address (relative to the start of dynamic shared memory, or of
    /// whatever the buffer map's base counts from).
    Shared {
        /// The byte.
        byte: u64,
    },
    /// A tensor-memory cell.
    Tensor {
        /// The TMEM lane (row), `< 128`; never moved by the buffer map.
        lane: u32,
        /// The 32-bit column, `< 2^16` (the column field of a TMEM address).
        column: u32,
    },
}

impl Address {
    /// The `tcgen05` address `lane << 16 | column` of a TMEM cell; `None` for shared memory.
    ///
    /// ```
    /// use linear_layout::Address;
    /// assert_eq!(Address::Tensor { lane: 32, column: 64 }.taddr(), Some(0x0020_0040));
    /// assert_eq!(Address::Shared { byte: 4 }.taddr(), None);
    /// ```
    pub fn taddr(&self) -> Option<u32> {
        match *self {
            // `lane < 128` and `column < 2^16` for every address an `AddressMap` returns;
            // other values wrap rather than panic.
            Address::Tensor { lane, column } => Some(lane.wrapping_shl(16) | column),
            Address::Shared { .. } => None,
        }
    }

    /// The shared-memory byte; `None` for tensor memory.
    ///
    /// ```
    /// use linear_layout::Address;
    /// assert_eq!(Address::Shared { byte: 96 }.byte(), Some(96));
    /// assert_eq!(Address::Tensor { lane: 0, column: 0 }.byte(), None);
    /// ```
    pub fn byte(&self) -> Option<u64> {
        match *self {
            Address::Shared { byte } => Some(byte),
            Address::Tensor { .. } => None,
        }
    }
}

/// `byte 16512` or `lane 5, column 135`.
impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Address::Shared { byte } => write!(f, "byte {byte}"),
            Address::Tensor { lane, column } => write!(f, "lane {lane}, column {column}"),
        }
    }
}
