//! [`InterpError`]: why a run stopped. Most variants are undefined behaviour on hardware
//! (misaligned or out-of-range accesses, divergent collectives, TMEM lane violations), which
//! the interpreter reports instead of guessing.

use thiserror::Error;

use crate::ptx::PtxError;

/// Why [`Machine::new`](super::Machine::new) or [`Machine::run`](super::Machine::run)
/// refused. `stmt` is the body statement index of the instruction.
///
/// ```
/// use codegen::interp::{Config, InterpError, Machine};
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.ret()?;
/// let k = b.finish()?;
/// let err = Machine::new(&k, Config::new(48)).unwrap_err();
/// assert_eq!(err, InterpError::ThreadCount { threads: 48 });
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum InterpError {
    /// The kernel failed [`Kernel::validate`](crate::ptx::Kernel::validate).
    #[error("invalid kernel: {0}")]
    InvalidKernel(#[from] PtxError),
    /// A thread count that is not a positive multiple of 32 up to 1024, or that differs
    /// from the kernel's `.reqntid` / exceeds its `.maxntid`.
    #[error("cannot run {threads} threads (multiples of 32 up to 1024, within .reqntid/.maxntid)")]
    ThreadCount {
        /// The requested count.
        threads: u32,
    },
    /// A register class with more registers than the interpreter models (65536 per class).
    #[error("{count} registers of class {class}; the interpreter models at most 65536 per class")]
    RegisterFile {
        /// The class, e.g. `.b32`.
        class: String,
        /// The count the kernel uses.
        count: u32,
    },
    /// Parameter values that do not match the kernel's parameters.
    #[error("parameter {index}: {reason}")]
    Param {
        /// The parameter index.
        index: usize,
        /// What is wrong.
        reason: String,
    },
    /// Shared variables that do not fit the configured shared memory.
    #[error("shared memory needs {needed} bytes above the base; the limit is {limit}")]
    SharedCapacity {
        /// Bytes needed.
        needed: u64,
        /// The configured limit.
        limit: u32,
    },
    /// A register read before any write (its value is undefined).
    #[error("thread {thread}, stmt {stmt}: {reg} read before it was written")]
    Uninitialized {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The register.
        reg: String,
    },
    /// A register read between `tcgen05.ld` and `tcgen05.wait::ld`.
    #[error("thread {thread}, stmt {stmt}: {reg} read before tcgen05.wait::ld")]
    PendingLoad {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The register.
        reg: String,
    },
    /// An address not aligned to the access size.
    #[error(
        "thread {thread}, stmt {stmt}: {space} address {address:#x} is not {align}-byte aligned"
    )]
    Misaligned {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// `shared` or `global`.
        space: &'static str,
        /// The address.
        address: u64,
        /// The alignment needed.
        align: u32,
    },
    /// A shared access outside `[base, end)` of the shared memory the kernel declared.
    #[error("thread {thread}, stmt {stmt}: shared access of {bytes} bytes at {address:#x} is outside [{start:#x}, {end:#x})")]
    SharedOutOfRange {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The address.
        address: u32,
        /// The access size.
        bytes: u32,
        /// The first valid byte.
        start: u32,
        /// One past the last valid byte.
        end: u32,
    },
    /// A global access outside every parameter buffer.
    #[error("thread {thread}, stmt {stmt}: global access of {bytes} bytes at {address:#x} is outside every buffer")]
    GlobalOutOfRange {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The address.
        address: u64,
        /// The access size.
        bytes: u32,
    },
    /// A TMEM cell outside 128 lanes × 512 columns.
    #[error(
        "warp {warp}, stmt {stmt}: TMEM lane {lane}, column {column} is out of range (128 × 512)"
    )]
    TmemOutOfRange {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The lane.
        lane: u64,
        /// The column.
        column: u64,
    },
    /// A warp touching TMEM lanes outside its quarter `32·(w%4) .. 32·(w%4)+32`.
    #[error("warp {warp}, stmt {stmt}: TMEM lane {lane} is outside the warp's lanes {allowed_start}..{}", allowed_start + 32)]
    TmemLaneRestriction {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The lane touched.
        lane: u32,
        /// The first lane the warp may touch.
        allowed_start: u32,
    },
    /// A TMEM access to a column no live allocation covers.
    #[error("warp {warp}, stmt {stmt}: TMEM column {column} is not allocated")]
    TmemUnallocated {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The column.
        column: u32,
    },
    /// A `tcgen05.alloc/dealloc` column count that is not a power of two in 32..=512.
    #[error(
        "warp {warp}, stmt {stmt}: TMEM column count {ncols} must be a power of two in 32..=512"
    )]
    TmemColumns {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The count.
        ncols: u32,
    },
    /// No free, aligned run of columns for a `tcgen05.alloc` (on hardware it would block).
    #[error("warp {warp}, stmt {stmt}: no {ncols} free TMEM columns")]
    TmemExhausted {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The count asked for.
        ncols: u32,
    },
    /// `tcgen05.alloc` after `relinquish_alloc_permit`.
    #[error("warp {warp}, stmt {stmt}: tcgen05.alloc after relinquish_alloc_permit")]
    AllocAfterRelinquish {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
    },
    /// `tcgen05.dealloc` of something not allocated with that address and size.
    #[error("warp {warp}, stmt {stmt}: tcgen05.dealloc of {ncols} columns at {taddr:#x} matches no allocation")]
    TmemDealloc {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The address given.
        taddr: u32,
        /// The count given.
        ncols: u32,
    },
    /// TMEM still allocated when every thread has exited.
    #[error("kernel exited with TMEM columns {columns:?} still allocated")]
    TmemLeak {
        /// `(first column, count)` of each live allocation.
        columns: Vec<(u32, u32)>,
    },
    /// A `.sync.aligned` instruction or barrier reached by part of a warp, or with a guard
    /// that differs between its threads.
    #[error("warp {warp}, stmt {stmt}: {inst} needs all 32 threads of the warp, converged, with one guard value")]
    Divergent {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The opcode.
        inst: String,
    },
    /// A warp-uniform operand (TMEM address, alloc destination, column count) that differs
    /// between threads.
    #[error("warp {warp}, stmt {stmt}: {what} differs between threads of the warp")]
    NonUniform {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// Which operand.
        what: &'static str,
    },
    /// Integer division or remainder by zero.
    #[error("thread {thread}, stmt {stmt}: division by zero")]
    DivisionByZero {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
    },
    /// A branch to a label at or before the branch whose loop holds no
    /// `mbarrier.try_wait` (the only loops in the subset are wait loops).
    #[error(
        "stmt {stmt}: backward branch to '{label}' (only mbarrier wait loops may branch back)"
    )]
    BackwardBranch {
        /// The statement.
        stmt: usize,
        /// The label.
        label: String,
    },
    /// An address outside the shared memory given to [`Machine::write_shared`](super::Machine::write_shared)
    /// or [`Machine::read_shared`](super::Machine::read_shared).
    #[error("host shared access of {len} bytes at {address:#x} is out of range")]
    HostShared {
        /// The address.
        address: u32,
        /// The length.
        len: usize,
    },
    /// A `tcgen05.ld/st` of a TMEM cell a `tcgen05.cp` writes that no mbarrier wait has
    /// observed complete (missing `tcgen05.commit` or wait).
    #[error("warp {warp}, stmt {stmt}: TMEM lane {lane}, column {column} is still being written by a tcgen05.cp no mbarrier wait has observed")]
    TmemCopyInFlight {
        /// The warp.
        warp: u32,
        /// The statement.
        stmt: usize,
        /// The lane.
        lane: u32,
        /// The column.
        column: u32,
    },
    /// A `tcgen05.cp` reads shared bytes a thread wrote through the generic proxy without a
    /// `fence.proxy.async` since.
    #[error("thread {thread}, stmt {stmt}: tcgen05.cp reads shared address {address:#x}, written by thread {writer} with no fence.proxy.async since")]
    UnfencedSharedWrite {
        /// The copying thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The writing thread.
        writer: u32,
        /// The 16-byte chunk's address.
        address: u32,
    },
    /// A shared-memory descriptor the interpreter does not model or that breaks the ISA's
    /// fixed fields.
    #[error("thread {thread}, stmt {stmt}: descriptor {desc:#018x}: {reason}")]
    CpDescriptor {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The descriptor.
        desc: u64,
        /// What is wrong.
        reason: String,
    },
    /// An mbarrier operation on an address no `mbarrier.init` initialised.
    #[error("thread {thread}, stmt {stmt}: no mbarrier was initialised at {address:#x}")]
    MbarrierUninitialized {
        /// The thread.
        thread: u32,
        /// The statement.
        stmt: usize,
        /// The address.
        address: u32,
    },
    /// Warps wait on mbarriers that nothing left can complete.
    #[error("warp {warp}, stmt {stmt}: waits on an mbarrier no remaining thread can complete")]
    MbarrierDeadlock {
        /// A waiting warp.
        warp: u32,
        /// Its wait.
        stmt: usize,
    },
    /// The run executed more statements than the interpreter allows (a wait loop that never
    /// leaves).
    #[error("stopped after {steps} warp steps")]
    StepLimit {
        /// Steps executed.
        steps: u64,
    },
}
