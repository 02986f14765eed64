//! [`TmemError`]: why a TMEM access cannot be planned or emitted.

use linear_layout::families::Tcgen05Atom;
use linear_layout::LayoutError;
use thiserror::Error;

use crate::ptx::PtxError;

/// A TMEM cell offset `(lane, column)` as the errors print it; `None` is "nothing".
fn cell(c: &Option<(u64, u64)>) -> String {
    match c {
        Some((lane, column)) => format!("(lane {lane}, column {column})"),
        None => "nothing (the register layout has too few registers)".into(),
    }
}

/// Why [`TmemPlan`](super::TmemPlan) refused a register layout, or why emitting failed.
/// Messages name the register-layout bit and the TMEM cells involved.
///
/// ```
/// use codegen::tmem::{TmemError, TmemPlan};
/// use linear_layout::{AddressMap, BufferMap, DType, families::{tmem_reg_layout, Tcgen05Atom, TensorMemory}};
/// let tm = TensorMemory { block_m: 128, block_n: 32, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
/// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &tm, &[128, 32])?;
/// // A 16x64b register layout moved with 32x32b: lane bit 0 is TMEM row 8 there, not row 1.
/// let regs = tmem_reg_layout(DType::F32, &[128, 32], &[128, 32], &tm.clone().into(), 4, Tcgen05Atom::M16x64b)?;
/// let err = TmemPlan::new(&map, &regs, Tcgen05Atom::M32x32b).unwrap_err();
/// assert!(matches!(err, TmemError::AtomMismatch { dim: "lane", bit: 0, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum TmemError {
    /// The layout algebra refused (composition, buffer index out of range, too many columns…).
    #[error(transparent)]
    Layout(#[from] LayoutError),
    /// The PTX builder refused an instruction.
    #[error(transparent)]
    Ptx(#[from] PtxError),
    /// The address map is a shared-memory map.
    #[error("the address map addresses shared memory; the TMEM emitter needs a tensor-memory map")]
    NotTensorMemory,
    /// The register layout misses elements of the tile.
    #[error("the register layout reaches 2^{rank} of the tile's 2^{bits} elements; an access moves every element")]
    NotSurjective {
        /// Its rank.
        rank: u32,
        /// log2 of the tile's elements.
        bits: u32,
    },
    /// The register layout lacks an in-dim, or has one of the wrong size.
    #[error("the register layout needs in-dim '{dim}' {expected}; it has {found}")]
    RegisterDims {
        /// `register`, `lane`, `warp` or `block`.
        dim: &'static str,
        /// What it must be.
        expected: &'static str,
        /// What it is.
        found: String,
    },
    /// Sub-32-bit elements that are neither packed `32 / element_bits` to a 32-bit register
    /// and column, nor (16-bit) one per column in adjacent column pairs (`.pack::16b`).
    #[error(
        "{element_bits}-bit elements: the first {expected} register bits must stay in one 32-bit \
         TMEM cell (packed elements), or for 16-bit elements move one column (unpacked, moved \
         with .pack::16b/.unpack::16b); register bit {bit} moves to (lane {lane}, column \
         {column})"
    )]
    Packing {
        /// The element width.
        element_bits: u32,
        /// How many low register bits must pack.
        expected: u32,
        /// The first register bit that does not.
        bit: u32,
        /// Its TMEM lane offset.
        lane: u64,
        /// Its TMEM column offset.
        column: u64,
    },
    /// A packing register bit that names no new element (two halves of a register would hold
    /// the same element, or the bits are dependent).
    #[error("packed register bit {bit} names no new element: the elements of a register must be distinct")]
    PackedElements {
        /// The register bit.
        bit: u32,
    },
    /// A register-layout bit the atom fixes points elsewhere.
    #[error(
        "a .{atom} message maps {dim} bit {bit} to {}; the register layout puts it at {}{hint}",
        cell(&Some(*.expected)),
        cell(.found)
    )]
    AtomMismatch {
        /// The atom.
        atom: Tcgen05Atom,
        /// `lane` or `register`.
        dim: &'static str,
        /// The bit of that in-dim (for `register`, counted after the packed bits).
        bit: u32,
        /// The cell offset the atom's thread-to-data map gives.
        expected: (u64, u64),
        /// The cell offset the layout gives.
        found: Option<(u64, u64)>,
        /// Why, where known (e.g. the `.16x32bx2` case).
        hint: String,
    },
    /// Two registers of one thread on one TMEM cell.
    #[error("register bit {bit} addresses no new TMEM cell (two registers would share a cell)")]
    RepeatedCell {
        /// The register bit (counted after the packed bits).
        bit: u32,
    },
    /// Warps 1 and 2 of each warpgroup must reach lanes 32 and 64 (the lane-quarter rule).
    #[error(
        "warp bit {bit} must move to TMEM lane {expected} (warp w reaches lanes 32·(w%4)..); the \
         register layout puts it at (lane {lane}, column {column})"
    )]
    WarpQuarter {
        /// 0 or 1.
        bit: u32,
        /// 32 or 64.
        expected: u64,
        /// The layout's lane offset.
        lane: u64,
        /// The layout's column offset.
        column: u64,
    },
    /// A warp's cells leave its 32-lane quarter.
    #[error(
        "the register layout reaches lane offset {max_lane} inside a warp's quarter; a warp may \
         touch only 32 lanes"
    )]
    LaneRange {
        /// The largest lane offset (OR of the per-warp lane bits).
        max_lane: u64,
    },
    /// Bases sharing address bits: `+` (what the hardware does) differs from `⊕`.
    #[error(
        "register-layout bits share TMEM {what} bits ({overlap:#x}); immediates add, so every \
         basis must own its bits"
    )]
    Overlap {
        /// `lane` or `column`.
        what: &'static str,
        /// The shared bits.
        overlap: u64,
    },
    /// More 32-bit registers per thread than a warp's TMEM quarter holds (512).
    #[error("the access moves 2^{log2} registers per thread; a warp's 32 TMEM lanes hold 512 per thread")]
    Registers {
        /// log2 of the registers per thread.
        log2: usize,
    },
    /// A store was given the wrong number of value registers.
    #[error("the store moves {expected} 32-bit registers per thread; {found} given")]
    ValueCount {
        /// [`TmemPlan::registers`](super::TmemPlan::registers).
        expected: u32,
        /// The registers given.
        found: usize,
    },
    /// A run-time buffer index in a register that is not `.b32`.
    #[error("the run-time buffer index must be a .b32 register, got {found}")]
    IndexRegister {
        /// The register.
        found: String,
    },
    /// An address immediate outside the signed 32-bit range.
    #[error("TMEM address immediate {value} does not fit 32 bits")]
    Immediate {
        /// The immediate.
        value: u64,
    },
    /// Two plans in one kernel with different warp counts.
    #[error("the store plan has {store} warps, the load plan {load}")]
    WarpMismatch {
        /// The store plan's warps.
        store: u32,
        /// The load plan's warps.
        load: u32,
    },
    /// A round trip given other than one constant buffer index.
    #[error("the TMEM round trip takes one constant buffer index, {count} given")]
    ConstIndices {
        /// The constants given.
        count: usize,
    },
    /// Test-kernel values (linear element indices) that do not fit the element width.
    #[error("{elements} elements: linear indices do not fit {element_bits}-bit elements")]
    IndexWidth {
        /// Elements in the tile.
        elements: u64,
        /// The element width.
        element_bits: u32,
    },
    /// A `tcgen05.cp` source that is not an 8-bit shared-memory map.
    #[error("the copy's source must be an 8-bit shared-memory map (scales); got {space} with {element_bits}-bit elements")]
    CopySource {
        /// `shared` or `tensor memory`.
        space: &'static str,
        /// Its element width.
        element_bits: u32,
    },
    /// Source and destination shapes that no known correspondence relates.
    #[error("cannot copy a shared tensor of shape {smem:?} into TMEM scales of shape {tmem:?}: {reason}")]
    CopyShapes {
        /// The shared tensor's shape.
        smem: Vec<u64>,
        /// The TMEM tensor's shape.
        tmem: Vec<u64>,
        /// Why.
        reason: String,
    },
    /// A TMEM layout whose four lane quarters do not hold the same rows (`.warpx4` copies
    /// every row to all four).
    #[error("TMEM lane {lane}, byte {byte} holds element {found:?}, lane {}'s holds {expected:?}: the copy multicasts 32 rows to all four lane quarters", lane % 32)]
    CopyMulticast {
        /// The lane.
        lane: u64,
        /// The byte in the lane's row.
        byte: u64,
        /// The element lane % 32 holds there.
        expected: Vec<u64>,
        /// The element this lane holds there.
        found: Vec<u64>,
    },
    /// An element the copy would not fetch from where the shared layout keeps it.
    #[error("element {element:?} belongs at TMEM lane {lane}, byte {byte}; `tcgen05.cp` {copy} would read shared byte {reads} there, but the element is at byte {at}")]
    CopyMismatch {
        /// The element's coordinates.
        element: Vec<u64>,
        /// Its lane.
        lane: u64,
        /// Its byte in the lane's row.
        byte: u64,
        /// Which copy.
        copy: usize,
        /// What the copy reads.
        reads: u64,
        /// Where the element is.
        at: u64,
    },
    /// A descriptor field (start address or stride byte offset) the descriptor cannot encode.
    #[error("the copy's {what} is {value} bytes; a descriptor encodes multiples of 16 below 2^18")]
    CopyDescriptor {
        /// `start address` or `stride byte offset`.
        what: &'static str,
        /// The value.
        value: u64,
    },
}
