//! Instructions: [`Op`] (what an instruction does, with its operands), [`Inst`] (an op with
//! its guard predicate and [`Role`]) and [`Stmt`] (an instruction, a label or a comment).
//!
//! The set is exactly what address code and its test kernels need; each op's operand classes
//! are checked by [`Op::validate`], which the [`Builder`](super::Builder), the
//! [parser](super::parse) and the interpreter all run, so an invalid combination is an error
//! where it is made, not a ptxas failure later.

use std::fmt;

use super::error::PtxError;
use super::reg::{Operand, Reg, RegType, SpecialReg};
use super::tcgen05::TmemShape;
use super::types::{CmpOp, DataType, IntType, MatrixCount, Role, StateSpace, Width};

/// A memory operand `[base+offset]` (printed `[%r6]`, `[%r6+1024]`, `[%r6+-16]`, the forms
/// ptxas accepts).
///
/// ```
/// use codegen::ptx::{Address, Reg, RegType};
/// let r = Reg::new(RegType::B32, 6);
/// assert_eq!(Address::new(r, 1024).to_string(), "[%r6+1024]");
/// assert_eq!(Address::new(r, -16).to_string(), "[%r6+-16]");
/// assert_eq!(Address::from(r).to_string(), "[%r6]");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Address {
    /// The base register (`.b32` for shared and tensor memory, `.b64` for global).
    pub base: Reg,
    /// The signed byte (or, for tensor memory, address-unit) offset.
    pub offset: i32,
}

impl Address {
    /// `[base+offset]`.
    ///
    /// ```
    /// use codegen::ptx::{Address, Reg, RegType};
    /// let a = Address::new(Reg::new(RegType::B64, 1), 8);
    /// assert_eq!(a.offset, 8);
    /// ```
    pub fn new(base: Reg, offset: i32) -> Address {
        Address { base, offset }
    }
}

impl From<Reg> for Address {
    fn from(base: Reg) -> Address {
        Address { base, offset: 0 }
    }
}

impl fmt::Display for Address {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.offset == 0 {
            write!(f, "[{}]", self.base)
        } else {
            write!(f, "[{}+{}]", self.base, self.offset)
        }
    }
}

/// A guard predicate: `@%p1` runs the instruction where `%p1` holds, `@!%p1` where it does not.
///
/// ```
/// use codegen::ptx::{Guard, Reg, RegType};
/// let p = Reg::new(RegType::Pred, 1);
/// assert_eq!(Guard::when(p).to_string(), "@%p1");
/// assert_eq!(Guard::unless(p).to_string(), "@!%p1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Guard {
    /// The `.pred` register.
    pub pred: Reg,
    /// Whether the instruction runs where the predicate is false.
    pub negated: bool,
}

impl Guard {
    /// `@p`.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Reg, RegType};
    /// assert!(!Guard::when(Reg::new(RegType::Pred, 0)).negated);
    /// ```
    pub fn when(pred: Reg) -> Guard {
        Guard {
            pred,
            negated: false,
        }
    }

    /// `@!p`.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Reg, RegType};
    /// assert!(Guard::unless(Reg::new(RegType::Pred, 0)).negated);
    /// ```
    pub fn unless(pred: Reg) -> Guard {
        Guard {
            pred,
            negated: true,
        }
    }
}

impl fmt::Display for Guard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.negated {
            write!(f, "@!{}", self.pred)
        } else {
            write!(f, "@{}", self.pred)
        }
    }
}

/// The source of a `mov`.
///
/// ```
/// use codegen::ptx::{MovSource, SpecialReg};
/// assert_eq!(MovSource::Special(SpecialReg::LaneId).to_string(), "%laneid");
/// assert_eq!(MovSource::Shared("smem".into()).to_string(), "smem");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum MovSource {
    /// A register of the destination's class, or an immediate.
    Operand(Operand),
    /// A special register (into a `.b32` register).
    Special(SpecialReg),
    /// The 32-bit shared-window address of a `.shared` variable (into a `.b32` register).
    Shared(String),
}

impl fmt::Display for MovSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MovSource::Operand(o) => write!(f, "{o}"),
            MovSource::Special(s) => write!(f, "{s}"),
            MovSource::Shared(name) => f.write_str(name),
        }
    }
}

/// Integer arithmetic typed by an [`IntType`].
///
/// ```
/// use codegen::ptx::ArithOp;
/// assert_eq!(ArithOp::MulLo.name(), "mul.lo");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ArithOp {
    /// `add`, wrapping.
    Add,
    /// `sub`, wrapping.
    Sub,
    /// `mul.lo`: the low half of the product.
    MulLo,
    /// `div`, truncating; division by zero is an interpreter error (its result is unspecified).
    Div,
    /// `rem`, with the sign of the dividend for signed types.
    Rem,
    /// `shr`: logical for unsigned, arithmetic for signed types; `b` is a 32-bit amount,
    /// clamped to the width.
    Shr,
}

impl ArithOp {
    /// Every arithmetic op.
    ///
    /// ```
    /// use codegen::ptx::ArithOp;
    /// assert_eq!(ArithOp::ALL.len(), 6);
    /// ```
    pub const ALL: [ArithOp; 6] = [
        ArithOp::Add,
        ArithOp::Sub,
        ArithOp::MulLo,
        ArithOp::Div,
        ArithOp::Rem,
        ArithOp::Shr,
    ];

    /// The mnemonic without type: `add`, `mul.lo`…
    ///
    /// ```
    /// use codegen::ptx::ArithOp;
    /// assert_eq!(ArithOp::Shr.name(), "shr");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            ArithOp::Add => "add",
            ArithOp::Sub => "sub",
            ArithOp::MulLo => "mul.lo",
            ArithOp::Div => "div",
            ArithOp::Rem => "rem",
            ArithOp::Shr => "shr",
        }
    }
}

/// Bitwise ops typed by a [`Width`].
///
/// ```
/// use codegen::ptx::LogicOp;
/// assert_eq!(LogicOp::Xor.name(), "xor");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogicOp {
    /// `and`
    And,
    /// `or`
    Or,
    /// `xor`
    Xor,
    /// `shl`: `b` is a 32-bit amount; amounts of at least the width give 0.
    Shl,
}

impl LogicOp {
    /// Every bitwise op.
    ///
    /// ```
    /// use codegen::ptx::LogicOp;
    /// assert_eq!(LogicOp::ALL.len(), 4);
    /// ```
    pub const ALL: [LogicOp; 4] = [LogicOp::And, LogicOp::Or, LogicOp::Xor, LogicOp::Shl];

    /// The mnemonic without type.
    ///
    /// ```
    /// use codegen::ptx::LogicOp;
    /// assert_eq!(LogicOp::Shl.name(), "shl");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            LogicOp::And => "and",
            LogicOp::Or => "or",
            LogicOp::Xor => "xor",
            LogicOp::Shl => "shl",
        }
    }
}

/// One instruction of the subset, with its operands. Destinations are named `d`, sources
/// `a`, `b`, `c` as in the PTX ISA.
///
/// ```
/// use codegen::ptx::{Op, Operand, Reg, RegType};
/// let op = Op::Lop3 {
///     d: Reg::new(RegType::B32, 4),
///     a: Reg::new(RegType::B32, 2).into(),
///     b: Reg::new(RegType::B32, 3).into(),
///     c: Operand::Imm(0x70),
///     lut: 0x78,
/// };
/// op.validate()?;
/// assert_eq!(op.to_string(), "lop3.b32 %r4, %r2, %r3, 112, 0x78");
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Op {
    /// `mov.{pred,b16,u32,u64} d, src`.
    Mov {
        /// Destination.
        d: Reg,
        /// Source.
        src: MovSource,
    },
    /// `add/sub/mul.lo/div/rem/shr.<ty> d, a, b`.
    Arith {
        /// Which op.
        op: ArithOp,
        /// Its type.
        ty: IntType,
        /// Destination.
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source (a `.b32` amount for `shr`).
        b: Operand,
    },
    /// `and/or/xor/shl.<width> d, a, b`.
    Logic {
        /// Which op.
        op: LogicOp,
        /// Its width.
        width: Width,
        /// Destination.
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source (a `.b32` amount for `shl`).
        b: Operand,
    },
    /// `not.<width> d, a`.
    Not {
        /// Its width.
        width: Width,
        /// Destination.
        d: Reg,
        /// Source.
        a: Operand,
    },
    /// `mad.lo.<ty> d, a, b, c`: the low half of `a·b + c`.
    MadLo {
        /// Its type.
        ty: IntType,
        /// Destination.
        d: Reg,
        /// Multiplicand.
        a: Operand,
        /// Multiplier.
        b: Operand,
        /// Addend.
        c: Operand,
    },
    /// `mul.wide.u32 d, a, b`: the 64-bit product of two 32-bit values.
    MulWide {
        /// Destination (`.b64`).
        d: Reg,
        /// First source.
        a: Operand,
        /// Second source.
        b: Operand,
    },
    /// `lop3.b32 d, a, b, c, lut`: bit `i` of `d` is bit `4a_i + 2b_i + c_i` of `lut`.
    Lop3 {
        /// Destination.
        d: Reg,
        /// Source selecting bit 2 of the LUT index (0xF0).
        a: Operand,
        /// Source selecting bit 1 (0xCC).
        b: Operand,
        /// Source selecting bit 0 (0xAA).
        c: Operand,
        /// The truth table.
        lut: u8,
    },
    /// `bfe.u32 d, a, pos, len`: `len` bits of `a` from `pos`, zero-extended. Immediate
    /// `pos`/`len` must be in 0..=255 (ptxas' range).
    Bfe {
        /// Destination.
        d: Reg,
        /// Source.
        a: Operand,
        /// Start bit (low 8 bits used).
        pos: Operand,
        /// Length (low 8 bits used).
        len: Operand,
    },
    /// `bfi.b32 d, a, b, pos, len`: `b` with `len` low bits of `a` inserted at `pos`.
    /// Immediate `pos`/`len` must be in 0..=255.
    Bfi {
        /// Destination.
        d: Reg,
        /// The field.
        a: Operand,
        /// The base.
        b: Operand,
        /// Start bit (low 8 bits used).
        pos: Operand,
        /// Length (low 8 bits used).
        len: Operand,
    },
    /// `prmt.b32 d, a, b, sel`: byte permute, default mode.
    Prmt {
        /// Destination.
        d: Reg,
        /// Bytes 0–3.
        a: Operand,
        /// Bytes 4–7.
        b: Operand,
        /// Four selector nibbles.
        sel: Operand,
    },
    /// `cvt.u64.u32 d, a` (zero-extend) or `cvt.u32.u64 d, a` (truncate), by register classes.
    Cvt {
        /// Destination.
        d: Reg,
        /// Source, of the other width.
        a: Reg,
    },
    /// `setp.<cmp>.<ty> d, a, b`.
    Setp {
        /// The comparison.
        cmp: CmpOp,
        /// The operand type.
        ty: IntType,
        /// Destination (`.pred`).
        d: Reg,
        /// Left side.
        a: Operand,
        /// Right side.
        b: Operand,
    },
    /// `bra target` (guard it for a conditional branch).
    Bra {
        /// The label.
        target: String,
    },
    /// `ld.param.{u32,u64} d, [param]`.
    LdParam {
        /// Destination, of the parameter's width.
        d: Reg,
        /// The parameter.
        param: String,
    },
    /// `cvta.to.global.u64 d, a`.
    CvtaGlobal {
        /// Destination.
        d: Reg,
        /// Generic address.
        a: Reg,
    },
    /// `ld.<space>{.v2,.v4}.<ty> d, [addr]`; the vector length is `d.len()`.
    Ld {
        /// Shared or global.
        space: StateSpace,
        /// Element type.
        ty: DataType,
        /// One register per element.
        d: Vec<Reg>,
        /// The address.
        addr: Address,
    },
    /// `st.<space>{.v2,.v4}.<ty> [addr], src`; the vector length is `src.len()`.
    St {
        /// Shared or global.
        space: StateSpace,
        /// Element type.
        ty: DataType,
        /// The address.
        addr: Address,
        /// One register per element.
        src: Vec<Reg>,
    },
    /// `ldmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16 d, [addr]`.
    Ldmatrix {
        /// `.x1`, `.x2`, `.x4`.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
        /// One `.b32` register per matrix.
        d: Vec<Reg>,
        /// This thread's row address (used by threads `0..8·count`).
        addr: Address,
    },
    /// `stmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16 [addr], src`.
    Stmatrix {
        /// `.x1`, `.x2`, `.x4`.
        count: MatrixCount,
        /// `.trans`.
        trans: bool,
        /// This thread's row address.
        addr: Address,
        /// One `.b32` register per matrix.
        src: Vec<Reg>,
    },
    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`.
    TmemAlloc {
        /// Where the allocated TMEM address is written.
        dst: Address,
        /// Column count: a power of two in 32..=512.
        ncols: Operand,
    },
    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
    TmemDealloc {
        /// The address `alloc` returned.
        taddr: Operand,
        /// The column count allocated.
        ncols: Operand,
    },
    /// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
    TmemRelinquish,
    /// `tcgen05.ld.sync.aligned.<shape>.x<num>.b32 d, [taddr]`.
    TmemLd {
        /// The shape.
        shape: TmemShape,
        /// The `.xN`.
        num: u32,
        /// `shape.registers(num)` `.b32` registers.
        d: Vec<Reg>,
        /// The warp-uniform TMEM address.
        taddr: Address,
    },
    /// `tcgen05.st.sync.aligned.<shape>.x<num>.b32 [taddr], src`.
    TmemSt {
        /// The shape.
        shape: TmemShape,
        /// The `.xN`.
        num: u32,
        /// The warp-uniform TMEM address.
        taddr: Address,
        /// `shape.registers(num)` `.b32` registers.
        src: Vec<Reg>,
    },
    /// `tcgen05.wait::ld.sync.aligned`.
    TmemWaitLd,
    /// `tcgen05.wait::st.sync.aligned`.
    TmemWaitSt,
    /// `tcgen05.fence::before_thread_sync`.
    TmemFenceBefore,
    /// `tcgen05.fence::after_thread_sync`.
    TmemFenceAfter,
    /// `bar.sync id`.
    BarSync {
        /// The barrier, 0..16.
        id: u32,
    },
    /// `ret`.
    Ret,
}

/// Whether an immediate's value fits an operand of `bits` bits (either signedness).
fn imm_fits(value: i64, bits: u32) -> bool {
    match bits {
        1 => value == 0 || value == 1,
        64 => true,
        _ => {
            let lo = -(1i64 << (bits - 1));
            let hi = (1i64 << bits) - 1;
            (lo..=hi).contains(&value)
        }
    }
}

/// Checks operand classes for one op; prints its opcode only for a message.
struct Check<'a> {
    op: &'a Op,
}

impl Check<'_> {
    fn reg(&self, operand: &'static str, r: Reg, ty: RegType) -> Result<(), PtxError> {
        if r.ty() == ty {
            Ok(())
        } else {
            Err(PtxError::OperandType {
                inst: self.op.opcode(),
                operand,
                expected: format!("a {ty} register"),
                found: r.to_string(),
            })
        }
    }

    fn src(&self, operand: &'static str, o: Operand, ty: RegType) -> Result<(), PtxError> {
        match o {
            Operand::Reg(r) if r.ty() == ty => Ok(()),
            Operand::Reg(r) => Err(PtxError::OperandType {
                inst: self.op.opcode(),
                operand,
                expected: format!("a {ty} register or immediate"),
                found: r.to_string(),
            }),
            Operand::Imm(v) if imm_fits(v, ty.bits()) => Ok(()),
            Operand::Imm(value) => Err(PtxError::ImmediateRange {
                inst: self.op.opcode(),
                value,
                bits: ty.bits(),
            }),
        }
    }

    /// A `.b32` register or an immediate in `0..=255` (bit positions and lengths; ptxas
    /// rejects larger immediates).
    fn bit_field(&self, operand: &'static str, o: Operand) -> Result<(), PtxError> {
        self.src(operand, o, RegType::B32)?;
        match o {
            Operand::Imm(value) if !(0..=255).contains(&value) => Err(PtxError::ImmediateRange {
                inst: self.op.opcode(),
                value,
                bits: 8,
            }),
            _ => Ok(()),
        }
    }

    fn vector(&self, regs: &[Reg], allowed: &[usize], what: &str) -> Result<(), PtxError> {
        if allowed.contains(&regs.len()) {
            Ok(())
        } else {
            let list: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
            Err(PtxError::VectorLength {
                inst: self.op.opcode(),
                expected: format!("{} {what}", list.join(" or ")),
                found: regs.len(),
            })
        }
    }

    fn distinct(&self, regs: &[Reg]) -> Result<(), PtxError> {
        for (i, r) in regs.iter().enumerate() {
            if regs.iter().skip(i + 1).any(|q| q == r) {
                return Err(PtxError::DuplicateDestination {
                    inst: self.op.opcode(),
                    reg: r.to_string(),
                });
            }
        }
        Ok(())
    }

    fn elements(&self, operand: &'static str, regs: &[Reg], ty: DataType) -> Result<(), PtxError> {
        for r in regs {
            if !ty.fits(r.ty()) {
                return Err(PtxError::OperandType {
                    inst: self.op.opcode(),
                    operand,
                    expected: format!("registers that hold {}", ty.suffix()),
                    found: r.to_string(),
                });
            }
        }
        Ok(())
    }

    fn ncols(&self, operand: &'static str, o: Operand) -> Result<(), PtxError> {
        self.src(operand, o, RegType::B32)?;
        match o {
            Operand::Imm(n) if !(32..=512).contains(&n) || (n & (n - 1)) != 0 => {
                Err(PtxError::TmemColumns { ncols: n })
            }
            _ => Ok(()),
        }
    }
}

impl Op {
    /// The printed opcode with all its suffixes, e.g. `ld.shared::cta.v4.b32`.
    ///
    /// ```
    /// use codegen::ptx::{ArithOp, IntType, Op, Reg, RegType};
    /// let r = Reg::new(RegType::B32, 0);
    /// let op = Op::Arith { op: ArithOp::MulLo, ty: IntType::S32, d: r, a: r.into(), b: 3.into() };
    /// assert_eq!(op.opcode(), "mul.lo.s32");
    /// ```
    pub fn opcode(&self) -> String {
        let mut s = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_opcode(&mut s);
        s
    }

    /// Writes [`opcode`](Self::opcode) to `f` (what `Display` prints, without allocating).
    ///
    /// ```
    /// use codegen::ptx::Op;
    /// let mut s = String::new();
    /// Op::Ret.write_opcode(&mut s)?;
    /// assert_eq!(s, "ret");
    /// # Ok::<(), std::fmt::Error>(())
    /// ```
    pub fn write_opcode(&self, f: &mut impl std::fmt::Write) -> std::fmt::Result {
        match self {
            Op::Mov { d, .. } => {
                let suffix = match d.ty() {
                    RegType::Pred => ".pred",
                    RegType::B16 => ".b16",
                    RegType::B32 => ".u32",
                    RegType::B64 => ".u64",
                };
                write!(f, "mov{suffix}")
            }
            Op::Arith { op, ty, .. } => write!(f, "{}{ty}", op.name()),
            Op::Logic { op, width, .. } => write!(f, "{}{}", op.name(), width.suffix()),
            Op::Not { width, .. } => write!(f, "not{}", width.suffix()),
            Op::MadLo { ty, .. } => write!(f, "mad.lo{ty}"),
            Op::MulWide { .. } => f.write_str("mul.wide.u32"),
            Op::Lop3 { .. } => f.write_str("lop3.b32"),
            Op::Bfe { .. } => f.write_str("bfe.u32"),
            Op::Bfi { .. } => f.write_str("bfi.b32"),
            Op::Prmt { .. } => f.write_str("prmt.b32"),
            Op::Cvt { d, .. } => {
                if d.ty() == RegType::B64 {
                    f.write_str("cvt.u64.u32")
                } else {
                    f.write_str("cvt.u32.u64")
                }
            }
            Op::Setp { cmp, ty, .. } => write!(f, "setp{}{ty}", cmp.suffix()),
            Op::Bra { .. } => f.write_str("bra"),
            Op::LdParam { d, .. } => {
                if d.ty() == RegType::B64 {
                    f.write_str("ld.param.u64")
                } else {
                    f.write_str("ld.param.u32")
                }
            }
            Op::CvtaGlobal { .. } => f.write_str("cvta.to.global.u64"),
            Op::Ld { space, ty, d, .. } => {
                write!(
                    f,
                    "ld{}{}{}",
                    space.suffix(),
                    vec_suffix(d.len()),
                    ty.suffix()
                )
            }
            Op::St { space, ty, src, .. } => {
                write!(
                    f,
                    "st{}{}{}",
                    space.suffix(),
                    vec_suffix(src.len()),
                    ty.suffix()
                )
            }
            Op::Ldmatrix { count, trans, .. } => write!(
                f,
                "ldmatrix.sync.aligned.m8n8.x{}{}.shared::cta.b16",
                count.count(),
                if *trans { ".trans" } else { "" }
            ),
            Op::Stmatrix { count, trans, .. } => write!(
                f,
                "stmatrix.sync.aligned.m8n8.x{}{}.shared::cta.b16",
                count.count(),
                if *trans { ".trans" } else { "" }
            ),
            Op::TmemAlloc { .. } => {
                f.write_str("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32")
            }
            Op::TmemDealloc { .. } => f.write_str("tcgen05.dealloc.cta_group::1.sync.aligned.b32"),
            Op::TmemRelinquish => {
                f.write_str("tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned")
            }
            Op::TmemLd { shape, num, .. } => {
                write!(f, "tcgen05.ld.sync.aligned.{shape}.x{num}.b32")
            }
            Op::TmemSt { shape, num, .. } => {
                write!(f, "tcgen05.st.sync.aligned.{shape}.x{num}.b32")
            }
            Op::TmemWaitLd => f.write_str("tcgen05.wait::ld.sync.aligned"),
            Op::TmemWaitSt => f.write_str("tcgen05.wait::st.sync.aligned"),
            Op::TmemFenceBefore => f.write_str("tcgen05.fence::before_thread_sync"),
            Op::TmemFenceAfter => f.write_str("tcgen05.fence::after_thread_sync"),
            Op::BarSync { .. } => f.write_str("bar.sync"),
            Op::Ret => f.write_str("ret"),
        }
    }

    /// Checks register classes, immediate ranges, vector lengths, distinct destinations and
    /// `tcgen05` shapes.
    /// Names (labels, parameters, variables) are checked by
    /// [`Kernel::validate`](super::Kernel::validate), which knows them.
    ///
    /// ```
    /// use codegen::ptx::{Address, Op, PtxError, Reg, RegType, TmemShape};
    /// let r = |i| Reg::new(RegType::B32, i);
    /// // 16x128b.x1 needs two registers per thread.
    /// let op = Op::TmemLd { shape: TmemShape::S16x128b, num: 1, d: vec![r(1)], taddr: r(0).into() };
    /// assert!(matches!(op.validate(), Err(PtxError::VectorLength { .. })));
    /// ```
    pub fn validate(&self) -> Result<(), PtxError> {
        let c = Check { op: self };
        use RegType::{Pred, B32, B64};
        match self {
            Op::Mov { d, src } => match src {
                MovSource::Operand(o) => c.src("a", *o, d.ty()),
                MovSource::Special(_) | MovSource::Shared(_) => c.reg("d", *d, B32),
            },
            Op::Arith { op, ty, d, a, b } => {
                let t = ty.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, if *op == ArithOp::Shr { B32 } else { t })
            }
            Op::Logic { op, width, d, a, b } => {
                let t = width.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, if *op == LogicOp::Shl { B32 } else { t })
            }
            Op::Not { width, d, a } => {
                c.reg("d", *d, width.reg_type())?;
                c.src("a", *a, width.reg_type())
            }
            Op::MadLo {
                ty,
                d,
                a,
                b,
                c: addend,
            } => {
                let t = ty.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, t)?;
                c.src("c", *addend, t)
            }
            Op::MulWide { d, a, b } => {
                c.reg("d", *d, B64)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)
            }
            Op::Lop3 {
                d, a, b, c: third, ..
            } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.src("c", *third, B32)
            }
            Op::Bfe { d, a, pos, len } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.bit_field("pos", *pos)?;
                c.bit_field("len", *len)
            }
            Op::Bfi { d, a, b, pos, len } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.bit_field("pos", *pos)?;
                c.bit_field("len", *len)
            }
            Op::Prmt { d, a, b, sel } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.src("sel", *sel, B32)
            }
            Op::Cvt { d, a } => {
                if d.ty() == B64 {
                    c.reg("a", *a, B32)
                } else {
                    c.reg("d", *d, B32)?;
                    c.reg("a", *a, B64)
                }
            }
            Op::Setp { ty, d, a, b, .. } => {
                c.reg("d", *d, Pred)?;
                c.src("a", *a, ty.reg_type())?;
                c.src("b", *b, ty.reg_type())
            }
            Op::Bra { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::Ret => Ok(()),
            Op::LdParam { d, .. } => {
                if d.ty() == B64 {
                    Ok(())
                } else {
                    c.reg("d", *d, B32)
                }
            }
            Op::CvtaGlobal { d, a } => {
                c.reg("d", *d, B64)?;
                c.reg("a", *a, B64)
            }
            Op::Ld { space, ty, d, addr } => {
                c.vector(d, &[1, 2, 4], "destinations")?;
                c.distinct(d)?;
                c.elements("d", d, *ty)?;
                c.reg("addr", addr.base, space.address_reg())?;
                vector_width(self, *ty, d.len())
            }
            Op::St {
                space,
                ty,
                addr,
                src,
            } => {
                c.vector(src, &[1, 2, 4], "sources")?;
                c.elements("src", src, *ty)?;
                c.reg("addr", addr.base, space.address_reg())?;
                vector_width(self, *ty, src.len())
            }
            Op::Ldmatrix { count, d, addr, .. } => {
                c.vector(d, &[count.count() as usize], "destinations")?;
                c.distinct(d)?;
                d.iter().try_for_each(|r| c.reg("d", *r, B32))?;
                c.reg("addr", addr.base, B32)
            }
            Op::Stmatrix {
                count, addr, src, ..
            } => {
                c.vector(src, &[count.count() as usize], "sources")?;
                src.iter().try_for_each(|r| c.reg("src", *r, B32))?;
                c.reg("addr", addr.base, B32)
            }
            Op::TmemAlloc { dst, ncols } => {
                c.reg("dst", dst.base, B32)?;
                c.ncols("ncols", *ncols)
            }
            Op::TmemDealloc { taddr, ncols } => {
                c.src("taddr", *taddr, B32)?;
                c.ncols("ncols", *ncols)
            }
            Op::TmemLd {
                shape,
                num,
                d,
                taddr,
            } => {
                let n = shape.registers(*num)?;
                c.vector(d, &[n as usize], "destinations")?;
                c.distinct(d)?;
                d.iter().try_for_each(|r| c.reg("d", *r, B32))?;
                c.reg("taddr", taddr.base, B32)
            }
            Op::TmemSt {
                shape,
                num,
                taddr,
                src,
            } => {
                let n = shape.registers(*num)?;
                c.vector(src, &[n as usize], "sources")?;
                src.iter().try_for_each(|r| c.reg("src", *r, B32))?;
                c.reg("taddr", taddr.base, B32)
            }
            Op::BarSync { id } => {
                if *id < 16 {
                    Ok(())
                } else {
                    Err(PtxError::BarrierId { id: *id })
                }
            }
        }
    }

    /// Every register the op names (destinations and sources, in operand order).
    ///
    /// ```
    /// use codegen::ptx::{Op, Reg, RegType};
    /// let (d, a) = (Reg::new(RegType::B64, 0), Reg::new(RegType::B32, 5));
    /// assert_eq!(Op::Cvt { d, a }.registers(), vec![d, a]);
    /// ```
    pub fn registers(&self) -> Vec<Reg> {
        let mut out = Vec::new();
        let mut op = |o: &Operand| {
            if let Operand::Reg(r) = o {
                Some(*r)
            } else {
                None
            }
        };
        match self {
            Op::Mov { d, src } => {
                out.push(*d);
                if let MovSource::Operand(o) = src {
                    out.extend(op(o));
                }
            }
            Op::Arith { d, a, b, .. } | Op::Logic { d, a, b, .. } | Op::MulWide { d, a, b } => {
                out.push(*d);
                out.extend(op(a));
                out.extend(op(b));
            }
            Op::Setp { d, a, b, .. } => {
                out.push(*d);
                out.extend(op(a));
                out.extend(op(b));
            }
            Op::Not { d, a, .. } => {
                out.push(*d);
                out.extend(op(a));
            }
            Op::MadLo { d, a, b, c, .. } | Op::Lop3 { d, a, b, c, .. } => {
                out.push(*d);
                out.extend([a, b, c].into_iter().filter_map(&mut op));
            }
            Op::Bfe { d, a, pos, len } => {
                out.push(*d);
                out.extend([a, pos, len].into_iter().filter_map(&mut op));
            }
            Op::Bfi { d, a, b, pos, len } => {
                out.push(*d);
                out.extend([a, b, pos, len].into_iter().filter_map(&mut op));
            }
            Op::Prmt { d, a, b, sel } => {
                out.push(*d);
                out.extend([a, b, sel].into_iter().filter_map(&mut op));
            }
            Op::Cvt { d, a } | Op::CvtaGlobal { d, a } => out.extend([*d, *a]),
            Op::LdParam { d, .. } => out.push(*d),
            Op::Ld { d, addr, .. }
            | Op::Ldmatrix { d, addr, .. }
            | Op::TmemLd { d, taddr: addr, .. } => {
                out.extend(d.iter().copied());
                out.push(addr.base);
            }
            Op::St { addr, src, .. }
            | Op::Stmatrix { addr, src, .. }
            | Op::TmemSt {
                taddr: addr, src, ..
            } => {
                out.push(addr.base);
                out.extend(src.iter().copied());
            }
            Op::TmemAlloc { dst, ncols } => {
                out.push(dst.base);
                out.extend(op(ncols));
            }
            Op::TmemDealloc { taddr, ncols } => {
                out.extend([taddr, ncols].into_iter().filter_map(&mut op));
            }
            Op::Bra { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::BarSync { .. }
            | Op::Ret => {}
        }
        out
    }

    /// The role an instruction has unless its builder says otherwise: ALU → `Address`,
    /// memory → `Data`, everything else (including `setp`) → `Control`.
    ///
    /// ```
    /// use codegen::ptx::{Op, Role};
    /// assert_eq!(Op::Ret.default_role(), Role::Control);
    /// ```
    pub fn default_role(&self) -> Role {
        if self.is_memory_access() {
            Role::Data
        } else if self.is_alu() && !matches!(self, Op::Setp { .. }) {
            Role::Address
        } else {
            Role::Control
        }
    }

    /// Whether the op is an ALU instruction (what "ALU instructions per access" counts):
    /// `mov`, arithmetic, bitwise, `mad`, `lop3`, `bfe`, `bfi`, `prmt`, `cvt`, `cvta`, `setp`.
    ///
    /// ```
    /// use codegen::ptx::{Op, Reg, RegType};
    /// let r = Reg::new(RegType::B32, 0);
    /// assert!(Op::Bfe { d: r, a: r.into(), pos: 0.into(), len: 4.into() }.is_alu());
    /// assert!(!Op::BarSync { id: 0 }.is_alu());
    /// ```
    pub fn is_alu(&self) -> bool {
        matches!(
            self,
            Op::Mov { .. }
                | Op::Arith { .. }
                | Op::Logic { .. }
                | Op::Not { .. }
                | Op::MadLo { .. }
                | Op::MulWide { .. }
                | Op::Lop3 { .. }
                | Op::Bfe { .. }
                | Op::Bfi { .. }
                | Op::Prmt { .. }
                | Op::Cvt { .. }
                | Op::Setp { .. }
                | Op::CvtaGlobal { .. }
        )
    }

    /// Whether the op reads or writes shared, global or tensor memory (`ld`, `st`,
    /// `ldmatrix`, `stmatrix`, `tcgen05.ld/st`).
    ///
    /// ```
    /// use codegen::ptx::Op;
    /// assert!(!Op::TmemWaitLd.is_memory_access());
    /// ```
    pub fn is_memory_access(&self) -> bool {
        matches!(
            self,
            Op::Ld { .. }
                | Op::St { .. }
                | Op::Ldmatrix { .. }
                | Op::Stmatrix { .. }
                | Op::TmemLd { .. }
                | Op::TmemSt { .. }
        )
    }

    /// Whether the op exists only on sm_100a (every `tcgen05` instruction).
    ///
    /// ```
    /// use codegen::ptx::Op;
    /// assert!(Op::TmemRelinquish.needs_sm100a());
    /// assert!(!Op::Ret.needs_sm100a());
    /// ```
    pub fn needs_sm100a(&self) -> bool {
        matches!(
            self,
            Op::TmemAlloc { .. }
                | Op::TmemDealloc { .. }
                | Op::TmemRelinquish
                | Op::TmemLd { .. }
                | Op::TmemSt { .. }
                | Op::TmemWaitLd
                | Op::TmemWaitSt
                | Op::TmemFenceBefore
                | Op::TmemFenceAfter
        )
    }
}

fn vec_suffix(n: usize) -> &'static str {
    match n {
        2 => ".v2",
        4 => ".v4",
        _ => "",
    }
}

fn vector_width(op: &Op, ty: DataType, n: usize) -> Result<(), PtxError> {
    let bytes = ty.bytes() * n as u32;
    if bytes > 16 {
        Err(PtxError::AccessTooWide {
            inst: op.opcode(),
            bytes,
        })
    } else {
        Ok(())
    }
}

/// An op with its guard and role: one line of the body.
///
/// ```
/// use codegen::ptx::{Guard, Inst, Op, Reg, RegType, Role};
/// let p = Reg::new(RegType::Pred, 1);
/// let i = Inst { guard: Some(Guard::unless(p)), op: Op::Bra { target: "DONE".into() }, role: Role::Control };
/// assert_eq!(i.to_string(), "@!%p1 bra DONE;");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Inst {
    /// Runs the op only where the predicate allows.
    pub guard: Option<Guard>,
    /// What it does.
    pub op: Op,
    /// What it is for.
    pub role: Role,
}

impl Inst {
    /// An unguarded instruction with the op's default role.
    ///
    /// ```
    /// use codegen::ptx::{Inst, Op, Role};
    /// assert_eq!(Inst::new(Op::Ret).role, Role::Control);
    /// ```
    pub fn new(op: Op) -> Inst {
        let role = op.default_role();
        Inst {
            guard: None,
            op,
            role,
        }
    }

    /// [`Op::validate`] plus a `.pred` check of the guard.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Inst, Op, Reg, RegType};
    /// let mut i = Inst::new(Op::Ret);
    /// i.guard = Some(Guard::when(Reg::new(RegType::B32, 0)));
    /// assert!(i.validate().is_err());
    /// ```
    pub fn validate(&self) -> Result<(), PtxError> {
        if let Some(g) = self.guard {
            if g.pred.ty() != RegType::Pred {
                return Err(PtxError::OperandType {
                    inst: self.op.opcode(),
                    operand: "guard",
                    expected: "a .pred register".into(),
                    found: g.pred.to_string(),
                });
            }
        }
        self.op.validate()
    }

    /// Registers of the op plus the guard's predicate.
    ///
    /// ```
    /// use codegen::ptx::{Guard, Inst, Op, Reg, RegType};
    /// let p = Reg::new(RegType::Pred, 0);
    /// let mut i = Inst::new(Op::Ret);
    /// i.guard = Some(Guard::when(p));
    /// assert_eq!(i.registers(), vec![p]);
    /// ```
    pub fn registers(&self) -> Vec<Reg> {
        let mut regs = self.op.registers();
        if let Some(g) = self.guard {
            regs.insert(0, g.pred);
        }
        regs
    }
}

/// One statement of a kernel body.
///
/// ```
/// use codegen::ptx::{Inst, Op, Stmt};
/// assert_eq!(Stmt::Label("DONE".into()).to_string(), "DONE:");
/// assert_eq!(Stmt::Comment("lane = tid & 31".into()).to_string(), "// lane = tid & 31");
/// assert_eq!(Stmt::Inst(Inst::new(Op::Ret)).to_string(), "ret;");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Stmt {
    /// An instruction.
    Inst(Inst),
    /// A branch target.
    Label(String),
    /// A comment line (no line breaks).
    Comment(String),
}
