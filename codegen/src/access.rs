//! What an address emitter is asked to do: an [`Access`] (load or store, element width,
//! widest vector), the [`BufferIndex`] (a constant or a run-time register) and how the buffer
//! part of the address is lowered ([`BufferLowering`]: the `AddressMap`'s own mixed-radix map,
//! or TLX's reindexing, [`TlxReindex`], for comparison).
//!
//! ```
//! use codegen::access::{Access, BufferLowering, MemoryOp, TlxReindex};
//! let a = Access::store(16).with_max_vector_bytes(8);
//! assert_eq!((a.op, a.element_bits, a.max_vector_bytes), (MemoryOp::Store, 16, 8));
//! // TLX: slot = 2·i + 1 + i mod 2, 4 KiB per slot.
//! let tlx = TlxReindex { scale: 2, offset: 1, group_size: 2, unit: 4096 };
//! assert_eq!(tlx.byte_offset(3), 4096 * (6 + 1 + 1));
//! assert!(matches!(BufferLowering::TlxReindex(tlx), BufferLowering::TlxReindex(_)));
//! ```

use linear_layout::{BufferMap, LayoutError};

use crate::ptx::Reg;

/// Whether an access reads or writes memory.
///
/// ```
/// use codegen::access::MemoryOp;
/// assert_ne!(MemoryOp::Load, MemoryOp::Store);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MemoryOp {
    /// `ld`: registers ← memory.
    Load,
    /// `st`: memory ← registers.
    Store,
}

/// One distributed tensor moved between registers and memory: the direction, the element
/// width in bits, and the widest vector (in bytes) the emitter may use.
///
/// Values travel in `.b32` registers, one per element (per register of the register layout):
/// an element of fewer than 32 bits sits in the low bits of its register. Stores use only those
/// low bits; loads return them zero-extended.
///
/// ```
/// use codegen::access::{Access, MemoryOp};
/// let a = Access::load(32);
/// assert_eq!((a.op, a.max_vector_bytes), (MemoryOp::Load, 16));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Access {
    /// Load or store.
    pub op: MemoryOp,
    /// Element width in bits; must equal the address map's.
    pub element_bits: u32,
    /// The widest vector access allowed, in bytes (16 by default: `ld/st.shared.v4.b32`).
    pub max_vector_bytes: u32,
    /// Whether `ldmatrix`/`stmatrix` may be used where the layouts allow and they need fewer
    /// instructions (default `true`).
    pub matrix: bool,
}

impl Access {
    /// The widest vector the hardware moves in one `ld/st.shared`: 16 bytes.
    ///
    /// ```
    /// assert_eq!(codegen::access::Access::MAX_VECTOR_BYTES, 16);
    /// ```
    pub const MAX_VECTOR_BYTES: u32 = 16;

    /// A load of `element_bits`-bit elements, vectors up to 16 bytes.
    ///
    /// ```
    /// assert_eq!(codegen::access::Access::load(16).element_bits, 16);
    /// ```
    pub fn load(element_bits: u32) -> Access {
        Access {
            op: MemoryOp::Load,
            element_bits,
            max_vector_bytes: Access::MAX_VECTOR_BYTES,
            matrix: true,
        }
    }

    /// A load or store (by `op`) of `element_bits`-bit elements, vectors up to 16 bytes.
    ///
    /// ```
    /// use codegen::access::{Access, MemoryOp};
    /// assert_eq!(Access::new(MemoryOp::Store, 16), Access::store(16));
    /// ```
    pub fn new(op: MemoryOp, element_bits: u32) -> Access {
        Access {
            op,
            ..Access::load(element_bits)
        }
    }

    /// A store of `element_bits`-bit elements, vectors up to 16 bytes.
    ///
    /// ```
    /// assert_eq!(codegen::access::Access::store(32).op, codegen::access::MemoryOp::Store);
    /// ```
    pub fn store(element_bits: u32) -> Access {
        Access::new(MemoryOp::Store, element_bits)
    }

    /// The same access with vectors of at most `bytes` bytes (checked when a plan is made:
    /// a power of two from one element to 16 bytes).
    ///
    /// ```
    /// assert_eq!(codegen::access::Access::load(16).with_max_vector_bytes(4).max_vector_bytes, 4);
    /// ```
    pub fn with_max_vector_bytes(self, bytes: u32) -> Access {
        Access {
            max_vector_bytes: bytes,
            ..self
        }
    }
}

impl Access {
    /// The same access with `ldmatrix`/`stmatrix` allowed or not.
    ///
    /// ```
    /// assert!(!codegen::access::Access::load(16).with_matrix(false).matrix);
    /// ```
    pub fn with_matrix(self, matrix: bool) -> Access {
        Access { matrix, ..self }
    }
}

/// Which buffer of a multi-buffered allocation an access touches.
///
/// ```
/// use codegen::access::BufferIndex;
/// use codegen::ptx::{Reg, RegType};
/// let i = BufferIndex::Runtime(Reg::new(RegType::B32, 3));
/// assert!(i.is_runtime());
/// assert!(!BufferIndex::Const(2).is_runtime());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BufferIndex {
    /// Known when the code is emitted: folded into the address immediates.
    Const(u64),
    /// A `.b32` register holding the index (a loop counter, a kernel parameter).
    Runtime(Reg),
}

impl BufferIndex {
    /// Whether the index is a run-time value.
    ///
    /// ```
    /// assert!(!codegen::access::BufferIndex::Const(0).is_runtime());
    /// ```
    pub fn is_runtime(&self) -> bool {
        matches!(self, BufferIndex::Runtime(_))
    }
}

/// TLX's reindexing of a buffer index into its storage alias (fbtriton 3.7.4): the alias is an
/// array of slots of `unit` bytes, and buffer `i` of the allocation lives in slot
/// `scale·i + offset + (i mod group_size)`. TLX rewrites the index only when `scale > 1` or
/// `offset > 0`; otherwise slot `i`.
///
/// The same placement as a mixed-radix [`BufferMap`] (what the explicit lowering uses) is
/// [`TlxReindex::buffer_map`]: with `U = unit·scale`, buffer `i = j + group_size·k` sits at
/// `unit·offset + (U + unit)·j + (group_size·U)·k`.
///
/// ```
/// use codegen::access::TlxReindex;
/// let t = TlxReindex { scale: 2, offset: 0, group_size: 2, unit: 1024 };
/// let explicit = t.buffer_map(4)?;
/// assert_eq!(explicit.to_string(), "(2,2):(3072,4096)");
/// for i in 0..4 {
///     assert_eq!(explicit.offset(i)?, t.byte_offset(i));
/// }
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TlxReindex {
    /// `s`: slots per buffer index.
    pub scale: u64,
    /// `off`: the first slot.
    pub offset: u64,
    /// `gs`: buffers sharing one group (the `i mod gs` subtile term); at least 1.
    pub group_size: u64,
    /// Bytes per slot: the alias's per-buffer stride.
    pub unit: u64,
}

impl TlxReindex {
    /// Whether TLX rewrites the index at all (`scale > 1 || offset > 0`).
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// assert!(!TlxReindex { scale: 1, offset: 0, group_size: 2, unit: 64 }.reindexes());
    /// ```
    pub fn reindexes(&self) -> bool {
        self.scale > 1 || self.offset > 0
    }

    /// The slot of buffer `i` (wrapping; `group_size` 0 is treated as 1).
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// let t = TlxReindex { scale: 3, offset: 1, group_size: 3, unit: 64 };
    /// assert_eq!(t.slot(4), 3 * 4 + 1 + 1);
    /// ```
    pub fn slot(&self, i: u64) -> u64 {
        if self.reindexes() {
            self.scale
                .wrapping_mul(i)
                .wrapping_add(self.offset)
                .wrapping_add(i % self.group_size.max(1))
        } else {
            i
        }
    }

    /// `unit · slot(i)`: the byte offset of buffer `i` (wrapping).
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// assert_eq!(TlxReindex { scale: 1, offset: 0, group_size: 1, unit: 512 }.byte_offset(3), 1536);
    /// ```
    pub fn byte_offset(&self, i: u64) -> u64 {
        self.unit.wrapping_mul(self.slot(i))
    }

    /// The explicit [`BufferMap`] with the same offsets for buffers `0..num_buffers`:
    /// `unit·offset + (group_size, num_buffers/group_size):(U + unit, group_size·U)`,
    /// `U = unit·scale` (just `(num_buffers):(unit)` when TLX does not reindex).
    ///
    /// Errors ([`LayoutError::InvalidParameter`]): `group_size` 0 or not dividing
    /// `num_buffers`; offsets past `u64::MAX`.
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// let t = TlxReindex { scale: 1, offset: 2, group_size: 1, unit: 256 };
    /// assert_eq!(t.buffer_map(3)?.to_string(), "512 + (1,3):(512,256)");
    /// assert!(TlxReindex { group_size: 2, ..t }.buffer_map(3).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn buffer_map(&self, num_buffers: u64) -> Result<BufferMap, LayoutError> {
        let gs = self.group_size;
        if gs == 0 || num_buffers % gs != 0 {
            return Err(LayoutError::invalid_parameter(
                "tlx_reindex",
                "group_size",
                &gs,
                format!("must be at least 1 and divide the {num_buffers} buffers"),
            ));
        }
        if !self.reindexes() {
            return BufferMap::new(0, &[(num_buffers, self.unit)]);
        }
        let overflow = || {
            LayoutError::invalid_parameter(
                "tlx_reindex",
                "unit",
                &self.unit,
                "slot offsets overflow u64",
            )
        };
        let u = self.unit.checked_mul(self.scale).ok_or_else(overflow)?;
        let base = self.unit.checked_mul(self.offset).ok_or_else(overflow)?;
        let sub = u.checked_add(self.unit).ok_or_else(overflow)?;
        let group = gs.checked_mul(u).ok_or_else(overflow)?;
        BufferMap::new(base, &[(gs, sub), (num_buffers / gs, group)])
    }
}

/// How the buffer part of an address is computed.
///
/// ```
/// use codegen::access::{BufferLowering, TlxReindex};
/// assert_eq!(BufferLowering::default(), BufferLowering::Explicit);
/// let t = BufferLowering::TlxReindex(TlxReindex { scale: 2, offset: 1, group_size: 2, unit: 8192 });
/// assert_ne!(t, BufferLowering::Explicit);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum BufferLowering {
    /// The `AddressMap`'s own [`BufferMap`] `base + Σ digit_k·stride_k`: the base in the
    /// address immediate, a run-time index through `shr`/`div` and one `mad.lo` per mode.
    #[default]
    Explicit,
    /// TLX's `unit·(scale·i + offset + i mod group_size)` in place of the map's buffer part
    /// (its base included): `mul`, `add`, `rem`, `add` on the index, then `mad.lo` by `unit`.
    TlxReindex(TlxReindex),
}
