//! What an address emitter is asked to do: an [`Access`] (load or store, element width,
//! widest vector), the [`BufferIndex`] (a constant or a run-time register; in a kernel, from an
//! [`IndexSource`]) and how the buffer
//! part of the address is lowered ([`BufferLowering`]: the `AddressMap`'s own mixed-radix map,
//! or TLX's reindexing, [`TlxReindex`], for comparison).
//!
//! ```
//! use codegen::access::{Access, BufferLowering, MemoryOp, TlxReindex};
//! let a = Access::store(16).with_max_vector_bytes(8);
//! assert_eq!((a.op, a.element_bits, a.max_vector_bytes), (MemoryOp::Store, 16, 8));
//! // TLX: slot = 2·i + 1 + i mod 2, 4 KiB per slot.
//! let tlx = TlxReindex::new(2, 1, 2, 4096);
//! assert_eq!(tlx.byte_offset(3), Some(4096 * (6 + 1 + 1)));
//! assert!(matches!(BufferLowering::TlxReindex(tlx), BufferLowering::TlxReindex(_)));
//! ```

use alias_alloc::TlxRewrite;
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

/// Where a kernel's buffer index comes from: constants known when emitting, or the kernel's
/// `.u32` buffer-index parameter (`index` in the SMEM test kernels, [`BUFFER_PARAM`] in the
/// TMEM round trip).
///
/// [`BUFFER_PARAM`]: crate::tmem::BUFFER_PARAM
///
/// ```
/// use codegen::access::IndexSource;
/// assert_eq!(IndexSource::Const(vec![0, 2]).indices(), Some(&[0, 2][..]));
/// assert_eq!(IndexSource::Param.indices(), None);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IndexSource {
    /// These constants, one access after the other in one kernel (the TMEM round trip takes
    /// exactly one).
    Const(Vec<u64>),
    /// The kernel's `.u32` buffer-index parameter: one kernel, run once per index.
    Param,
}

impl IndexSource {
    /// The constant indices, if any.
    ///
    /// ```
    /// use codegen::access::IndexSource;
    /// assert_eq!(IndexSource::Const(vec![3]).indices(), Some(&[3][..]));
    /// ```
    pub fn indices(&self) -> Option<&[u64]> {
        match self {
            IndexSource::Const(v) => Some(v),
            IndexSource::Param => None,
        }
    }

    /// One entry per emission of the access: each constant index, or `None` once for the
    /// run-time index parameter.
    ///
    /// ```
    /// use codegen::access::IndexSource;
    /// assert_eq!(IndexSource::Const(vec![0, 2]).emissions(), [Some(0), Some(2)]);
    /// assert_eq!(IndexSource::Param.emissions(), [None]);
    /// ```
    pub fn emissions(&self) -> Vec<Option<u64>> {
        match self {
            IndexSource::Const(v) => v.iter().map(|&i| Some(i)).collect(),
            IndexSource::Param => vec![None],
        }
    }
}

/// TLX's reindexing lowered in code: its [`TlxRewrite`] (buffer `i` in slot
/// `scale·i + offset + (i mod group_size)`, the formula `alias_alloc` defines once) and the
/// bytes per slot (`unit`, the alias's per-buffer stride).
///
/// The same placement as a mixed-radix [`BufferMap`] (what the explicit lowering uses) is
/// [`TlxReindex::buffer_map`]: with `U = unit·scale`, buffer `i = j + group_size·k` sits at
/// `unit·offset + (U + unit)·j + (group_size·U)·k`.
///
/// ```
/// use codegen::access::TlxReindex;
/// let t = TlxReindex::new(2, 0, 2, 1024);
/// let explicit = t.buffer_map(4)?;
/// assert_eq!(explicit.to_string(), "(2,2):(3072,4096)");
/// for i in 0..4 {
///     assert_eq!(Some(explicit.offset(i)?), t.byte_offset(i));
/// }
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TlxReindex {
    /// The slot formula.
    pub rewrite: TlxRewrite,
    /// Bytes per slot: the alias's per-buffer stride.
    pub unit: u64,
}

impl TlxReindex {
    /// `unit · (scale·i + offset + i mod group_size)`.
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// assert_eq!(TlxReindex::new(3, 1, 3, 64).rewrite.slot(4), Some(3 * 4 + 1 + 1));
    /// ```
    pub const fn new(scale: u64, offset: u64, group_size: u64, unit: u64) -> TlxReindex {
        TlxReindex {
            rewrite: TlxRewrite {
                scale,
                offset,
                group_size,
            },
            unit,
        }
    }

    /// `unit · slot(i)`: the byte offset of buffer `i`, or `None` past `u64::MAX`.
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// assert_eq!(TlxReindex::new(1, 0, 1, 512).byte_offset(3), Some(1536));
    /// ```
    pub fn byte_offset(&self, i: u64) -> Option<u64> {
        self.unit.checked_mul(self.rewrite.slot(i)?)
    }

    /// The explicit [`BufferMap`] with the same offsets for buffers `0..num_buffers`
    /// ([`TlxRewrite::placement`]).
    ///
    /// Errors ([`LayoutError::InvalidParameter`]): `group_size` 0 or not dividing
    /// `num_buffers`; offsets past `u64::MAX`.
    ///
    /// ```
    /// use codegen::access::TlxReindex;
    /// let t = TlxReindex::new(1, 2, 1, 256);
    /// assert_eq!(t.buffer_map(3)?.to_string(), "512 + (3):(256)");
    /// assert!(TlxReindex::new(1, 2, 2, 256).buffer_map(3).is_err());
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn buffer_map(&self, num_buffers: u64) -> Result<BufferMap, LayoutError> {
        let gs = self.rewrite.group_size;
        if gs == 0 || num_buffers % gs != 0 {
            return Err(LayoutError::invalid_parameter(
                "tlx_reindex",
                "group_size",
                &gs,
                format!("must be at least 1 and divide the {num_buffers} buffers"),
            ));
        }
        self.rewrite.placement(num_buffers, self.unit)
    }
}

/// How the buffer part of an address is computed.
///
/// ```
/// use codegen::access::{BufferLowering, TlxReindex};
/// assert_eq!(BufferLowering::default(), BufferLowering::Explicit);
/// let t = BufferLowering::TlxReindex(TlxReindex::new(2, 1, 2, 8192));
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
