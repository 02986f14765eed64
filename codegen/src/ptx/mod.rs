//! A small typed PTX IR for address code and its test kernels.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`Reg`], [`RegType`], [`Operand`], [`SpecialReg`] | virtual typed registers, operands | `reg.rs` |
//! | [`IntType`], [`Width`], [`DataType`], [`StateSpace`], [`CmpOp`], [`MatrixCount`], [`Role`] | type suffixes and tags | `types.rs` |
//! | [`TmemShape`] | `tcgen05.ld/st` shapes, `.xN` limits, thread-to-data maps | `tcgen05.rs` |
//! | [`Op`], [`Inst`], [`Stmt`], [`Address`], [`Guard`] | instructions and their checks | `inst.rs` |
//! | [`Kernel`], [`InstStats`], [`Target`], [`PtxVersion`] | one `.entry` and its module header | `kernel.rs` |
//! | [`Module`] | several kernels in one PTX file | `module.rs` |
//! | `Display` impls | PTX text | `display.rs` |
//! | [`Builder`] | registers, checked instruction helpers | `builder.rs` |
//! | [`parse::parse`] | text → [`Kernel`] for the printed subset | `parse.rs`, `lex.rs` |
//! | [`PtxError`] | why an instruction or kernel is invalid | `error.rs` |
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
pub mod parse;
mod reg;
mod tcgen05;
mod types;

pub use builder::Builder;
pub use error::PtxError;
pub use inst::{Address, ArithOp, Guard, Inst, LogicOp, MovSource, Op, Stmt};
pub use kernel::{InstStats, Kernel, Param, ParamType, PtxVersion, SharedVar, Target};
pub use module::Module;
pub use parse::{parse, ParseError};
pub use reg::{Operand, Reg, RegType, SpecialReg};
pub use tcgen05::TmemShape;
pub use types::{CmpOp, DataType, IntType, MatrixCount, Role, StateSpace, Width};
