//! Instruction type suffixes and small enums: integer types ([`IntType`]), bit widths
//! ([`Width`]), memory element types ([`DataType`]), state spaces ([`StateSpace`]), comparisons
//! ([`CmpOp`]), `ldmatrix` counts ([`MatrixCount`]) and instruction roles ([`Role`]).

use std::fmt;

use crate::ptx::reg::RegType;

/// The integer type of an arithmetic instruction: `add.u32`, `shr.s32`, `div.u64`…
///
/// ```
/// use codegen::ptx::{IntType, RegType};
/// assert_eq!(IntType::S32.suffix(), ".s32");
/// assert_eq!(IntType::U64.reg_type(), RegType::B64);
/// assert!(IntType::S64.is_signed());
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IntType {
    /// `.u32`
    U32,
    /// `.s32`
    S32,
    /// `.u64`
    U64,
    /// `.s64`
    S64,
}

impl IntType {
    /// Every integer type.
    ///
    /// ```
    /// use codegen::ptx::IntType;
    /// assert_eq!(IntType::ALL.len(), 4);
    /// ```
    pub const ALL: [IntType; 4] = [IntType::U32, IntType::S32, IntType::U64, IntType::S64];

    /// The suffix, with its dot.
    ///
    /// ```
    /// use codegen::ptx::IntType;
    /// assert_eq!(IntType::U32.suffix(), ".u32");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            IntType::U32 => ".u32",
            IntType::S32 => ".s32",
            IntType::U64 => ".u64",
            IntType::S64 => ".s64",
        }
    }

    /// 32 or 64.
    ///
    /// ```
    /// use codegen::ptx::IntType;
    /// assert_eq!(IntType::S64.bits(), 64);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            IntType::U32 | IntType::S32 => 32,
            IntType::U64 | IntType::S64 => 64,
        }
    }

    /// Whether comparisons, division and right shifts are signed.
    ///
    /// ```
    /// use codegen::ptx::IntType;
    /// assert!(!IntType::U32.is_signed());
    /// ```
    pub fn is_signed(self) -> bool {
        matches!(self, IntType::S32 | IntType::S64)
    }

    /// The register class of operands and results: `.b32` or `.b64`.
    ///
    /// ```
    /// use codegen::ptx::{IntType, RegType};
    /// assert_eq!(IntType::S32.reg_type(), RegType::B32);
    /// ```
    pub fn reg_type(self) -> RegType {
        if self.bits() == 32 {
            RegType::B32
        } else {
            RegType::B64
        }
    }

    /// The type whose suffix (without the dot) is `name`.
    ///
    /// ```
    /// use codegen::ptx::IntType;
    /// assert_eq!(IntType::parse("s64"), Some(IntType::S64));
    /// assert_eq!(IntType::parse("b32"), None);
    /// ```
    pub fn parse(name: &str) -> Option<IntType> {
        IntType::ALL
            .into_iter()
            .find(|t| t.suffix().get(1..) == Some(name))
    }
}

impl fmt::Display for IntType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.suffix())
    }
}

/// The width of a bitwise instruction (`and.b32`, `shl.b64`, `not.b32`).
///
/// ```
/// use codegen::ptx::{RegType, Width};
/// assert_eq!(Width::B64.suffix(), ".b64");
/// assert_eq!(Width::B32.reg_type(), RegType::B32);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Width {
    /// `.b32`
    B32,
    /// `.b64`
    B64,
}

impl Width {
    /// The suffix, with its dot.
    ///
    /// ```
    /// use codegen::ptx::Width;
    /// assert_eq!(Width::B32.suffix(), ".b32");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            Width::B32 => ".b32",
            Width::B64 => ".b64",
        }
    }

    /// 32 or 64.
    ///
    /// ```
    /// use codegen::ptx::Width;
    /// assert_eq!(Width::B64.bits(), 64);
    /// ```
    pub fn bits(self) -> u32 {
        match self {
            Width::B32 => 32,
            Width::B64 => 64,
        }
    }

    /// The register class of operands and results.
    ///
    /// ```
    /// use codegen::ptx::{RegType, Width};
    /// assert_eq!(Width::B64.reg_type(), RegType::B64);
    /// ```
    pub fn reg_type(self) -> RegType {
        match self {
            Width::B32 => RegType::B32,
            Width::B64 => RegType::B64,
        }
    }

    /// `"b32"` → `B32`.
    ///
    /// ```
    /// use codegen::ptx::Width;
    /// assert_eq!(Width::parse("b64"), Some(Width::B64));
    /// assert_eq!(Width::parse("u64"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Width> {
        match name {
            "b32" => Some(Width::B32),
            "b64" => Some(Width::B64),
            _ => None,
        }
    }
}

/// The element type of a load or store: `.b8`, `.b16`, `.b32`, `.b64`.
///
/// A `.b8`/`.b16` element moves through a `.b16` or `.b32` register (zero-extended on loads,
/// truncated on stores), as ptxas allows.
///
/// ```
/// use codegen::ptx::{DataType, RegType};
/// assert_eq!(DataType::B16.bytes(), 2);
/// assert!(DataType::B8.fits(RegType::B32));
/// assert!(!DataType::B64.fits(RegType::B32));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DataType {
    /// `.b8`
    B8,
    /// `.b16`
    B16,
    /// `.b32`
    B32,
    /// `.b64`
    B64,
}

impl DataType {
    /// Every element type.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// assert_eq!(DataType::ALL[0], DataType::B8);
    /// ```
    pub const ALL: [DataType; 4] = [DataType::B8, DataType::B16, DataType::B32, DataType::B64];

    /// The suffix, with its dot.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// assert_eq!(DataType::B8.suffix(), ".b8");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            DataType::B8 => ".b8",
            DataType::B16 => ".b16",
            DataType::B32 => ".b32",
            DataType::B64 => ".b64",
        }
    }

    /// Size in bytes.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// assert_eq!(DataType::B64.bytes(), 8);
    /// ```
    pub fn bytes(self) -> u32 {
        match self {
            DataType::B8 => 1,
            DataType::B16 => 2,
            DataType::B32 => 4,
            DataType::B64 => 8,
        }
    }

    /// Whether a register of class `ty` may hold one element (see the type's docs).
    ///
    /// ```
    /// use codegen::ptx::{DataType, RegType};
    /// assert!(DataType::B16.fits(RegType::B16));
    /// assert!(!DataType::B32.fits(RegType::B16));
    /// ```
    pub fn fits(self, ty: RegType) -> bool {
        matches!(
            (self, ty),
            (DataType::B8 | DataType::B16, RegType::B16 | RegType::B32)
                | (DataType::B32, RegType::B32)
                | (DataType::B64, RegType::B64)
        )
    }

    /// `"b16"` → `B16`.
    ///
    /// ```
    /// use codegen::ptx::DataType;
    /// assert_eq!(DataType::parse("b8"), Some(DataType::B8));
    /// ```
    pub fn parse(name: &str) -> Option<DataType> {
        DataType::ALL
            .into_iter()
            .find(|t| t.suffix().get(1..) == Some(name))
    }
}

/// The state space of a load or store.
///
/// ```
/// use codegen::ptx::StateSpace;
/// assert_eq!(StateSpace::Shared.suffix(), ".shared::cta");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StateSpace {
    /// `.shared::cta`, addressed by a 32-bit register (the shared window address).
    Shared,
    /// `.global`, addressed by a 64-bit register.
    Global,
}

impl StateSpace {
    /// The suffix, with its dot. Shared accesses always print the explicit `::cta` form.
    ///
    /// ```
    /// use codegen::ptx::StateSpace;
    /// assert_eq!(StateSpace::Global.suffix(), ".global");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            StateSpace::Shared => ".shared::cta",
            StateSpace::Global => ".global",
        }
    }

    /// The register class of the address base.
    ///
    /// ```
    /// use codegen::ptx::{RegType, StateSpace};
    /// assert_eq!(StateSpace::Shared.address_reg(), RegType::B32);
    /// ```
    pub fn address_reg(self) -> RegType {
        match self {
            StateSpace::Shared => RegType::B32,
            StateSpace::Global => RegType::B64,
        }
    }
}

/// A `setp` comparison.
///
/// ```
/// use codegen::ptx::CmpOp;
/// assert_eq!(CmpOp::Ge.suffix(), ".ge");
/// assert_eq!(CmpOp::parse("ne"), Some(CmpOp::Ne));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `.eq`
    Eq,
    /// `.ne`
    Ne,
    /// `.lt`
    Lt,
    /// `.le`
    Le,
    /// `.gt`
    Gt,
    /// `.ge`
    Ge,
}

impl CmpOp {
    /// Every comparison.
    ///
    /// ```
    /// use codegen::ptx::CmpOp;
    /// assert_eq!(CmpOp::ALL.len(), 6);
    /// ```
    pub const ALL: [CmpOp; 6] = [
        CmpOp::Eq,
        CmpOp::Ne,
        CmpOp::Lt,
        CmpOp::Le,
        CmpOp::Gt,
        CmpOp::Ge,
    ];

    /// The suffix, with its dot.
    ///
    /// ```
    /// use codegen::ptx::CmpOp;
    /// assert_eq!(CmpOp::Lt.suffix(), ".lt");
    /// ```
    pub fn suffix(self) -> &'static str {
        match self {
            CmpOp::Eq => ".eq",
            CmpOp::Ne => ".ne",
            CmpOp::Lt => ".lt",
            CmpOp::Le => ".le",
            CmpOp::Gt => ".gt",
            CmpOp::Ge => ".ge",
        }
    }

    /// `"le"` → `Le`.
    ///
    /// ```
    /// use codegen::ptx::CmpOp;
    /// assert_eq!(CmpOp::parse("gt"), Some(CmpOp::Gt));
    /// ```
    pub fn parse(name: &str) -> Option<CmpOp> {
        CmpOp::ALL
            .into_iter()
            .find(|c| c.suffix().get(1..) == Some(name))
    }
}

/// How many 8×8 matrices one `ldmatrix`/`stmatrix` moves: `.x1`, `.x2` or `.x4`.
///
/// ```
/// use codegen::ptx::MatrixCount;
/// assert_eq!(MatrixCount::X4.count(), 4);
/// assert_eq!(MatrixCount::from_count(2), Some(MatrixCount::X2));
/// assert_eq!(MatrixCount::from_count(3), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MatrixCount {
    /// One matrix: threads 0–7 supply row addresses.
    X1,
    /// Two matrices: threads 0–15.
    X2,
    /// Four matrices: threads 0–31.
    X4,
}

impl MatrixCount {
    /// 1, 2 or 4: the number of matrices, and of `.b32` registers per thread.
    ///
    /// ```
    /// use codegen::ptx::MatrixCount;
    /// assert_eq!(MatrixCount::X1.count(), 1);
    /// ```
    pub fn count(self) -> u32 {
        match self {
            MatrixCount::X1 => 1,
            MatrixCount::X2 => 2,
            MatrixCount::X4 => 4,
        }
    }

    /// The count for 1, 2 or 4.
    ///
    /// ```
    /// use codegen::ptx::MatrixCount;
    /// assert_eq!(MatrixCount::from_count(4), Some(MatrixCount::X4));
    /// ```
    pub fn from_count(n: u32) -> Option<MatrixCount> {
        match n {
            1 => Some(MatrixCount::X1),
            2 => Some(MatrixCount::X2),
            4 => Some(MatrixCount::X4),
            _ => None,
        }
    }
}

/// What an instruction is for, so benchmarks can count "ALU instructions per access".
///
/// Every [`Op`](crate::ptx::Op) has a default role ([`Op::default_role`](crate::ptx::Op::default_role)):
/// ALU instructions compute addresses, memory instructions move data, branches, barriers and
/// `tcgen05` bookkeeping are control. Builders override it where an ALU instruction computes
/// data (a checksum in a test kernel). The printer writes the role as a trailing `// @data`
/// comment only where it differs from the default, and the parser reads it back.
///
/// ```
/// use codegen::ptx::Role;
/// assert_eq!(Role::Data.tag(), "@data");
/// assert_eq!(Role::from_tag("@addr"), Some(Role::Address));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Computes an address (the instructions an address emitter is measured by).
    Address,
    /// Moves or computes data.
    Data,
    /// Control flow, synchronisation, allocation.
    Control,
}

impl Role {
    /// The comment tag: `@addr`, `@data` or `@ctrl`.
    ///
    /// ```
    /// use codegen::ptx::Role;
    /// assert_eq!(Role::Control.tag(), "@ctrl");
    /// ```
    pub fn tag(self) -> &'static str {
        match self {
            Role::Address => "@addr",
            Role::Data => "@data",
            Role::Control => "@ctrl",
        }
    }

    /// The role whose tag is `tag`.
    ///
    /// ```
    /// use codegen::ptx::Role;
    /// assert_eq!(Role::from_tag("@ctrl"), Some(Role::Control));
    /// assert_eq!(Role::from_tag("ctrl"), None);
    /// ```
    pub fn from_tag(tag: &str) -> Option<Role> {
        [Role::Address, Role::Data, Role::Control]
            .into_iter()
            .find(|r| r.tag() == tag)
    }
}
