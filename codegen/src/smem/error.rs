//! [`SmemError`]: why a shared-memory access cannot be planned or emitted.

use linear_layout::LayoutError;
use thiserror::Error;

use crate::ptx::PtxError;

/// Why [`SmemPlan::new`](super::SmemPlan::new) or [`SmemPlan::emit`](super::SmemPlan::emit)
/// failed. Every variant names the numbers involved.
///
/// ```
/// use codegen::smem::SmemError;
/// let e = SmemError::ElementBits { access: 16, map: 32 };
/// assert_eq!(e.to_string(), "the access moves 16-bit elements but the address map holds 32-bit ones");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SmemError {
    /// The address map is not in shared memory.
    #[error("the address map is in {space}, not shared memory")]
    NotShared {
        /// The map's memory space.
        space: &'static str,
    },
    /// The access and the map disagree on the element width.
    #[error("the access moves {access}-bit elements but the address map holds {map}-bit ones")]
    ElementBits {
        /// The access's width.
        access: u32,
        /// The map's width.
        map: u32,
    },
    /// An element width the emitter does not move (8, 16 and 32 bits are supported).
    #[error("{bits}-bit elements are not supported (8, 16 or 32)")]
    UnsupportedElementBits {
        /// The width.
        bits: u32,
    },
    /// `max_vector_bytes` is not a power of two between one element and 16 bytes.
    #[error("max_vector_bytes {bytes} is not a power of two from {element_bytes} to 16")]
    VectorBytes {
        /// The requested limit.
        bytes: u32,
        /// One element's bytes.
        element_bytes: u32,
    },
    /// The register layout's in-dims are not `register`, `lane`, `warp` (and a size-1 `block`),
    /// or a dim is too large (`lane` ≤ 32, `warp` ≤ 32).
    #[error("register layout: {reason}")]
    RegisterLayout {
        /// What is wrong.
        reason: String,
    },
    /// A buffer offset is not a multiple of the element size: its elements would be misaligned.
    #[error(
        "buffer offsets must be multiples of the {element_bytes}-byte element; {what} is {value}"
    )]
    MisalignedBuffer {
        /// One element's bytes.
        element_bytes: u32,
        /// Which offset or stride.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// A shared-memory address or address immediate does not fit 32 bits.
    #[error("{what} {value} does not fit a 32-bit shared-memory address")]
    AddressTooLarge {
        /// Which quantity.
        what: &'static str,
        /// Its value.
        value: u64,
    },
    /// Invalid TLX reindexing parameters.
    #[error("TLX reindex: {param} = {value}: {reason}")]
    Tlx {
        /// The parameter.
        param: &'static str,
        /// Its value.
        value: u64,
        /// Why it is refused.
        reason: &'static str,
    },
    /// A store got the wrong number of value registers (one per register of the layout), or
    /// a load got any.
    #[error("expected {expected} value registers, got {found}")]
    ValueCount {
        /// One per register of the register layout (0 for a load).
        expected: usize,
        /// What was passed.
        found: usize,
    },
    /// A value or index register that is not `.b32`.
    #[error("{what} must be a .b32 register, got {reg}")]
    RegisterClass {
        /// Which operand.
        what: &'static str,
        /// The register.
        reg: String,
    },
    /// The shared variable the context addresses is not declared in the kernel.
    #[error("shared variable '{name}' is not declared in the kernel")]
    UnknownShared {
        /// Its name.
        name: String,
    },
    /// A conversion the scratch chooser does not handle.
    #[error("cannot choose a scratch layout: {reason}")]
    Scratch {
        /// Why.
        reason: String,
    },
    /// A shared-memory probe that is not a single valid access.
    #[error("probe: {reason}")]
    Probe {
        /// What is wrong.
        reason: String,
    },
    /// An error of the layout algebra (composition, a buffer index out of range…).
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The builder refused an instruction.
    #[error(transparent)]
    Ptx(#[from] PtxError),
}
