//! Virtual registers ([`Reg`]), their classes ([`RegType`]), instruction operands
//! ([`Operand`]) and the special registers the subset reads ([`SpecialReg`]).
//!
//! Registers are virtual and typed: ptxas allocates the hardware ones. Each class prints with
//! the prefix nvcc uses, so `%r3` is the `.b32` register with index 3.

use std::fmt;

/// A PTX register class. `f32` payloads live in `.b32` registers: the subset never computes
/// on floats, it only moves their bits.
///
/// ```
/// use codegen::ptx::RegType;
/// assert_eq!(RegType::B64.prefix(), "%rd");
/// assert_eq!(RegType::B16.ptx_type(), ".b16");
/// assert_eq!(RegType::Pred.bits(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegType {
    /// `.pred`, printed `%p<n>`.
    Pred,
    /// `.b16`, printed `%h<n>`.
    B16,
    /// `.b32`, printed `%r<n>`.
    B32,
    /// `.b64`, printed `%rd<n>`.
    B64,
}

impl RegType {
    /// Every class, in declaration order (the order `.reg` lines are printed in).
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::ALL.len(), 4);
    /// ```
    pub const ALL: [RegType; 4] = [RegType::Pred, RegType::B16, RegType::B32, RegType::B64];

    /// The name prefix: `%p`, `%h`, `%r` or `%rd`.
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::Pred.prefix(), "%p");
    /// ```
    pub fn prefix(self) -> &'static str {
        match self {
            RegType::Pred => "%p",
            RegType::B16 => "%h",
            RegType::B32 => "%r",
            RegType::B64 => "%rd",
        }
    }

    /// The type in a `.reg` declaration: `.pred`, `.b16`, `.b32` or `.b64`.
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::B32.ptx_type(), ".b32");
    /// ```
    pub fn ptx_type(self) -> &'static str {
        match self {
            RegType::Pred => ".pred",
            RegType::B16 => ".b16",
            RegType::B32 => ".b32",
            RegType::B64 => ".b64",
        }
    }

    /// Width in bits (1 for predicates).
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::B16.bits(), 16);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            RegType::Pred => 1,
            RegType::B16 => 16,
            RegType::B32 => 32,
            RegType::B64 => 64,
        }
    }

    /// The mask of the bits a value of this class keeps.
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::B32.mask(), 0xFFFF_FFFF);
    /// assert_eq!(RegType::B64.mask(), u64::MAX);
    /// ```
    pub fn mask(self) -> u64 {
        match self {
            RegType::B64 => u64::MAX,
            other => (1u64 << other.bits()) - 1,
        }
    }

    /// The class whose prefix is `prefix` (`"%rd"` → `B64`); `%rs`, the prefix LLVM's NVPTX
    /// backend (and so Triton) gives 16-bit registers, is read as `%h`.
    ///
    /// ```
    /// use codegen::ptx::RegType;
    /// assert_eq!(RegType::from_prefix("%h"), Some(RegType::B16));
    /// assert_eq!(RegType::from_prefix("%rs"), Some(RegType::B16));
    /// assert_eq!(RegType::from_prefix("%x"), None);
    /// ```
    pub fn from_prefix(prefix: &str) -> Option<RegType> {
        if prefix == "%rs" {
            return Some(RegType::B16);
        }
        RegType::ALL.into_iter().find(|t| t.prefix() == prefix)
    }
}

impl fmt::Display for RegType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.ptx_type())
    }
}

/// A virtual register: a class and an index, printed `%r7`, `%rd2`, `%p0`, `%h1`.
///
/// ```
/// use codegen::ptx::{Reg, RegType};
/// let r = Reg::new(RegType::B64, 2);
/// assert_eq!(r.to_string(), "%rd2");
/// assert_eq!(Reg::parse("%rd2"), Some(r));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Reg {
    ty: RegType,
    index: u32,
}

impl Reg {
    /// The register `index` of class `ty`.
    ///
    /// ```
    /// use codegen::ptx::{Reg, RegType};
    /// assert_eq!(Reg::new(RegType::Pred, 1).to_string(), "%p1");
    /// ```
    pub fn new(ty: RegType, index: u32) -> Reg {
        Reg { ty, index }
    }

    /// The register class.
    ///
    /// ```
    /// use codegen::ptx::{Reg, RegType};
    /// assert_eq!(Reg::new(RegType::B32, 0).ty(), RegType::B32);
    /// ```
    pub fn ty(self) -> RegType {
        self.ty
    }

    /// The index within its class.
    ///
    /// ```
    /// use codegen::ptx::{Reg, RegType};
    /// assert_eq!(Reg::new(RegType::B32, 9).index(), 9);
    /// ```
    pub fn index(self) -> u32 {
        self.index
    }

    /// Parses `%r12`-style names; `None` for anything else (special registers included).
    ///
    /// ```
    /// use codegen::ptx::{Reg, RegType};
    /// assert_eq!(Reg::parse("%h3"), Some(Reg::new(RegType::B16, 3)));
    /// assert_eq!(Reg::parse("%tid.x"), None);
    /// assert_eq!(Reg::parse("%r"), None);
    /// ```
    pub fn parse(text: &str) -> Option<Reg> {
        let digits_at = text.find(|c: char| c.is_ascii_digit())?;
        let (prefix, digits) = text.split_at(digits_at);
        let ty = RegType::from_prefix(prefix)?;
        if !digits.bytes().all(|b| b.is_ascii_digit())
            || (digits.len() > 1 && digits.starts_with('0'))
        {
            return None;
        }
        let index = digits.parse().ok()?;
        Some(Reg { ty, index })
    }
}

impl fmt::Display for Reg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", self.ty.prefix(), self.index)
    }
}

/// A source operand: a register or an integer immediate.
///
/// Immediates are stored as `i64` and mean their two's-complement bits truncated to the
/// instruction's width, as in PTX (`add.u32 %r1, %r2, -4` subtracts 4). Conversions from the
/// common integer types exist, so builder calls read `b.add(IntType::U32, r, 16)`.
///
/// ```
/// use codegen::ptx::{Operand, Reg, RegType};
/// assert_eq!(Operand::from(16u32).to_string(), "16");
/// assert_eq!(Operand::from(-4i32).to_string(), "-4");
/// assert_eq!(Operand::from(Reg::new(RegType::B32, 1)).to_string(), "%r1");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A register.
    Reg(Reg),
    /// An integer immediate.
    Imm(i64),
}

impl Operand {
    /// The register, if this is one.
    ///
    /// ```
    /// use codegen::ptx::{Operand, Reg, RegType};
    /// let r = Reg::new(RegType::B32, 4);
    /// assert_eq!(Operand::Reg(r).reg(), Some(r));
    /// assert_eq!(Operand::Imm(3).reg(), None);
    /// ```
    pub fn reg(self) -> Option<Reg> {
        match self {
            Operand::Reg(r) => Some(r),
            Operand::Imm(_) => None,
        }
    }
}

impl From<Reg> for Operand {
    fn from(r: Reg) -> Operand {
        Operand::Reg(r)
    }
}

impl From<i64> for Operand {
    fn from(v: i64) -> Operand {
        Operand::Imm(v)
    }
}

impl From<i32> for Operand {
    fn from(v: i32) -> Operand {
        Operand::Imm(i64::from(v))
    }
}

impl From<u32> for Operand {
    fn from(v: u32) -> Operand {
        Operand::Imm(i64::from(v))
    }
}

/// The bits of `v`, reinterpreted (so `u64::MAX` becomes `-1`, which means the same bits).
impl From<u64> for Operand {
    fn from(v: u64) -> Operand {
        Operand::Imm(v as i64)
    }
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Operand::Reg(r) => write!(f, "{r}"),
            Operand::Imm(v) => write!(f, "{v}"),
        }
    }
}

/// The special registers the subset reads (all 32-bit, one CTA of a 1-D grid).
///
/// ```
/// use codegen::ptx::SpecialReg;
/// assert_eq!(SpecialReg::TidX.to_string(), "%tid.x");
/// assert_eq!(SpecialReg::parse("%laneid"), Some(SpecialReg::LaneId));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SpecialReg {
    /// `%tid.x`: the thread index in the CTA.
    TidX,
    /// `%ntid.x`: the number of threads in the CTA.
    NtidX,
    /// `%laneid`: the lane in the warp, `%tid.x % 32` for a 1-D CTA.
    LaneId,
    /// `%ctaid.x`: the CTA index (always 0 in the interpreter's one-CTA grid).
    CtaIdX,
}

impl SpecialReg {
    /// Every special register of the subset.
    ///
    /// ```
    /// use codegen::ptx::SpecialReg;
    /// assert!(SpecialReg::ALL.contains(&SpecialReg::CtaIdX));
    /// ```
    pub const ALL: [SpecialReg; 4] = [
        SpecialReg::TidX,
        SpecialReg::NtidX,
        SpecialReg::LaneId,
        SpecialReg::CtaIdX,
    ];

    /// The PTX name, `%tid.x` and so on.
    ///
    /// ```
    /// use codegen::ptx::SpecialReg;
    /// assert_eq!(SpecialReg::CtaIdX.name(), "%ctaid.x");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            SpecialReg::TidX => "%tid.x",
            SpecialReg::NtidX => "%ntid.x",
            SpecialReg::LaneId => "%laneid",
            SpecialReg::CtaIdX => "%ctaid.x",
        }
    }

    /// The special register called `name`.
    ///
    /// ```
    /// use codegen::ptx::SpecialReg;
    /// assert_eq!(SpecialReg::parse("%ntid.x"), Some(SpecialReg::NtidX));
    /// assert_eq!(SpecialReg::parse("%warpid"), None);
    /// ```
    pub fn parse(name: &str) -> Option<SpecialReg> {
        SpecialReg::ALL.into_iter().find(|s| s.name() == name)
    }
}

impl fmt::Display for SpecialReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
