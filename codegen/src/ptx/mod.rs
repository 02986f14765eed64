//! A small typed PTX IR for address code and its test kernels.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`Reg`], [`RegType`], [`Operand`], [`SpecialReg`] | virtual typed registers, operands | `reg.rs` |
//! | [`IntType`], [`Width`], [`DataType`], [`StateSpace`], [`CmpOp`], [`MatrixCount`], [`Role`], [`Target`], [`PtxVersion`], [`TmemShape`] | the leaf types everything else names | `types/` |
//! | [`Address`], [`Guard`], [`MovSource`], [`ArithOp`], [`LogicOp`] | memory operands, guards, op kinds | `operands.rs` |
//! | [`Op`], [`OpClass`], [`Inst`], [`Stmt`] | instructions and their one classification | `inst.rs` |
//! | [`Op::validate`] | every instruction's operand rules | `validate.rs` |
//! | [`Kernel`], [`InstStats`] | one `.entry` and its module header | `kernel.rs` |
//! | [`Module`] | several kernels in one PTX file | `module.rs` |
//! | `Display` impls, [`Op::opcode`] | PTX text | `display.rs` |
//! | [`Builder`] | registers, checked instruction helpers | `builder/` (by instruction kind) |
//! | [`parse::parse`] | text → [`Kernel`] for the printed subset: the kernel, each instruction | `parse/`, `lex.rs` |
//! | [`PtxError`] | why an instruction or kernel is invalid | `error.rs` |
//!
//! Imports run one way, leaves first: `reg`, `types` ← `error` ← `operands`, `inst`, `validate`
//! ← `kernel`, `display`, `module` ← `builder`, `parse` (← `lex`).
//!
//! The subset is closed: the builder, the parser and the
//! [interpreter](crate::interp) accept the same instructions, and each checks them with
//! [`Op::validate`].
//!
//! ```
//! use codegen::ptx::{parse::parse, Address, Builder, DataType, IntType, StateSpace, SpecialReg, Target};
//! // Swizzle<3,4,3> on a 16-byte chunk offset, then a vector load: the core of swz.ptx.
//! let mut b = Builder::new("swz_load", Target::Sm90a)?;
//! b.extern_shared("smem", 1024)?;
//! let tid = b.special(SpecialReg::TidX)?;
//! let off = b.shl(codegen::ptx::Width::B32, tid, 4)?;
//! let hi = b.shr(IntType::U32, off, 3)?;
//! let swz = b.lop3(off, hi, 0x70, 0x78)?;
//! let base = b.shared_address("smem")?;
//! let addr = b.add(IntType::U32, base, swz)?;
//! b.ld(StateSpace::Shared, DataType::B32, 4, addr)?;
//! b.ld(StateSpace::Shared, DataType::B32, 1, Address::new(addr, 1024))?;
//! b.ret()?;
//! let k = b.finish()?;
//! assert_eq!(k.stats().address_alu, 6);
//! assert_eq!(parse(&k.to_string()).ok(), Some(k));
//! # Ok::<(), codegen::ptx::PtxError>(())
//! ```

mod builder;
mod display;
mod error;
mod inst;
mod kernel;
mod lex;
mod module;
mod operands;
pub mod parse;
mod reg;
mod types;
mod validate;

pub use builder::Builder;
pub use error::PtxError;
pub use inst::{Inst, Op, OpClass, Stmt};
pub use kernel::{is_identifier, InstStats, Kernel, Param, ParamType, SharedVar};
pub use module::Module;
pub use operands::{Address, ArithOp, Guard, LogicOp, MovSource};
pub use parse::{parse, ParseError};
pub use reg::{Operand, Reg, RegType, SpecialReg};
pub use types::{
    CmpOp, CpShape, DataType, IntType, MatrixCount, PtxVersion, Role, StateSpace, Target,
    TmemShape, Width,
};
