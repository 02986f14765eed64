//! [`PtxError`]: why an instruction or kernel is not valid PTX of the subset.

use thiserror::Error;

use super::types::{PtxVersion, Target, TmemShape};

/// Why the builder, [`Op::validate`](super::Op::validate) or
/// [`Kernel::validate`](super::Kernel::validate) refused an instruction or kernel. Each
/// message names the instruction (its printed opcode) and the offending operand.
///
/// ```
/// use codegen::ptx::{Builder, IntType, RegType, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// let wide = b.reg(RegType::B64);
/// let err = b.add(IntType::U32, wide, 1).unwrap_err();
/// assert_eq!(err.to_string(), "add.u32: operand a must be a .b32 register or immediate, got %rd0");
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PtxError {
    /// An operand of the wrong register class (or an immediate where a register is needed).
    #[error("{inst}: operand {operand} must be {expected}, got {found}")]
    OperandType {
        /// The printed opcode, e.g. `add.u32`.
        inst: String,
        /// Which operand: `d`, `a`, `b`, `c`, `addr`, `guard`…
        operand: &'static str,
        /// What the instruction needs.
        expected: String,
        /// What it got.
        found: String,
    },
    /// An immediate that does not fit the instruction's width.
    #[error("{inst}: immediate {value} does not fit {bits} bits")]
    ImmediateRange {
        /// The printed opcode.
        inst: String,
        /// The immediate.
        value: i64,
        /// The operand width.
        bits: u32,
    },
    /// A register vector of the wrong length.
    #[error("{inst}: expected {expected} registers, got {found}")]
    VectorLength {
        /// The printed opcode.
        inst: String,
        /// The lengths allowed.
        expected: String,
        /// The length given.
        found: usize,
    },
    /// A register named twice among one instruction's destinations.
    #[error("{inst}: destination {reg} appears twice")]
    DuplicateDestination {
        /// The printed opcode.
        inst: String,
        /// The register.
        reg: String,
    },
    /// A vector access wider than 16 bytes (shared and global `.v4.b64` are not in the subset).
    #[error("{inst}: {bytes}-byte vector access; at most 16 bytes")]
    AccessTooWide {
        /// The printed opcode.
        inst: String,
        /// The access size.
        bytes: u32,
    },
    /// A `tcgen05.ld/st` repetition count the shape does not allow.
    #[error("tcgen05 .{shape}: .x{num} is not allowed (a power of two up to .x{max})")]
    Tcgen05Repeat {
        /// The shape.
        shape: TmemShape,
        /// The `.xN`.
        num: u32,
        /// The shape's largest `.xN`.
        max: u32,
    },
    /// An immediate `tcgen05.alloc/dealloc` column count that is not a power of two in 32..=512.
    #[error("tcgen05 column count {ncols} must be a power of two in 32..=512")]
    TmemColumns {
        /// The count.
        ncols: i64,
    },
    /// A kernel, parameter, variable or label name that is not a PTX identifier.
    #[error("invalid {what} name '{name}'")]
    InvalidName {
        /// `kernel`, `param`, `shared variable` or `label`.
        what: &'static str,
        /// The name.
        name: String,
    },
    /// Two parameters, shared variables or labels with one name.
    #[error("{what} '{name}' is defined twice")]
    DuplicateName {
        /// `param`, `shared variable`, `label`…
        what: &'static str,
        /// The name.
        name: String,
    },
    /// A `mov` of a shared variable the kernel does not declare.
    #[error("unknown shared variable '{name}'")]
    UnknownSharedVar {
        /// The name.
        name: String,
    },
    /// An `ld.param` of a parameter the kernel does not declare.
    #[error("unknown parameter '{name}'")]
    UnknownParam {
        /// The name.
        name: String,
    },
    /// A branch to a label the kernel does not define.
    #[error("unknown label '{name}'")]
    UnknownLabel {
        /// The name.
        name: String,
    },
    /// `ld.param` into a register of the wrong width for the parameter.
    #[error("parameter '{name}' is {param_type}; ld.param into {found}")]
    ParamType {
        /// The parameter.
        name: String,
        /// Its declared type.
        param_type: String,
        /// The destination register.
        found: String,
    },
    /// A shared variable alignment that is not a power of two, or a zero-sized variable.
    #[error("shared variable '{name}': {reason}")]
    SharedDecl {
        /// The variable.
        name: String,
        /// What is wrong.
        reason: String,
    },
    /// A comment containing a line break (it would not print as one comment).
    #[error("comment contains a line break: {text:?}")]
    CommentLineBreak {
        /// The comment.
        text: String,
    },
    /// An instruction the kernel's target does not have.
    #[error("{inst} needs sm_100a; the kernel targets {target}")]
    TargetFeature {
        /// The printed opcode.
        inst: String,
        /// The kernel's target.
        target: Target,
    },
    /// A PTX ISA version older than the target (or the instructions) need.
    #[error("PTX ISA {version} is too old for {target}; it needs {needed} or newer")]
    Version {
        /// The kernel's version.
        version: PtxVersion,
        /// The kernel's target.
        target: Target,
        /// The oldest version that works.
        needed: PtxVersion,
    },
    /// A barrier id outside 0..16.
    #[error("bar.sync {id}: barrier ids are 0..16")]
    BarrierId {
        /// The id.
        id: u32,
    },
    /// Both `.reqntid` and `.maxntid` (ptxas rejects the pair as conflicting).
    #[error(".reqntid and .maxntid cannot both be given")]
    BothThreadBounds,
    /// A `.reqntid`/`.maxntid` outside 1..=1024.
    #[error("{directive} {value}: a CTA has 1..=1024 threads")]
    ThreadCount {
        /// `.reqntid` or `.maxntid`.
        directive: &'static str,
        /// The value.
        value: u32,
    },
}
