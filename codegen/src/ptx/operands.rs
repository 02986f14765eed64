//! What instructions operate on besides registers: memory operands ([`Address`]), guard
//! predicates ([`Guard`]), `mov` sources ([`MovSource`]) and the integer and bitwise operations
//! of [`Op::Arith`](super::Op::Arith) and [`Op::Logic`](super::Op::Logic) ([`ArithOp`],
//! [`LogicOp`]).

use std::fmt;

use super::reg::{Operand, Reg, SpecialReg};

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

/// Integer arithmetic typed by an [`IntType`](super::IntType).
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

/// Bitwise ops typed by a [`Width`](super::Width).
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
