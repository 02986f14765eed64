//! A PTX-subset interpreter: runs a [`Kernel`] on one CTA of N threads
//! (warps of 32) and records a [`Trace`] of every memory access, so emitted address code can
//! be checked against the `AddressMap` it implements, thread by thread and register by
//! register.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`Machine`], [`Outcome`], [`run`] | a prepared run, the scheduler, the result | `machine.rs` |
//! | [`Config`], [`ParamValue`], [`SharedLayout`], [`Tmem`] | geometry and memories | `memory.rs` |
//! | [`Trace`], [`Access`], [`AccessKind`], [`Location`] | what was accessed where | `trace.rs` |
//! | [`alu`] | integer semantics as pure functions | `alu.rs` |
//! | per-thread ops | ALU, branches, `ld`/`st` | `exec.rs` |
//! | warp ops | `ldmatrix`/`stmatrix`, `tcgen05.*` | `collective.rs` |
//! | asynchronous copies | `tcgen05.cp`, `tcgen05.commit`, mbarriers, `fence.proxy.async` | `async_copy.rs` |
//! | their state | mbarriers, in-flight cells, unfenced shared bytes | `async_state.rs` |
//! | [`InterpError`] | why a run stopped | `error.rs` |
//!
//! Memories: shared memory is a byte array from [`Config::shared_base`] (1024 by default, the
//! hardware's reserved KiB), static variables placed in order at their `.align`, then the
//! dynamic region; tensor memory is 128 lanes × 512 columns of `u32`, `tcgen05.alloc`
//! returning the lowest free column (0 first) and writing it to its shared destination;
//! global memory is one byte buffer per pointer parameter. Semantics follow the PTX ISA:
//! 32-bit wraparound, shifts of at least the width give 0 (or the sign), `lop3` by LUT, exact
//! `bfe`/`bfi`, `prmt` default mode. What is undefined on hardware is an error here:
//! misaligned or out-of-range accesses, reads of unwritten registers, divergent collectives,
//! TMEM lanes outside the warp's quarter, unallocated TMEM columns, TMEM leaked at exit.
//!
//! ```
//! use codegen::interp::{run, AccessKind, Config, Location};
//! use codegen::ptx::{Builder, IntType, RegType, Target, TmemShape, Width};
//! // Each of 4 warps stores its thread ids to TMEM lanes 32w.. with 32x32b.x1, then frees.
//! let mut b = Builder::new("k", Target::Sm100a)?;
//! b.shared("slot", 16, 4)?;
//! let tid = b.special(codegen::ptx::SpecialReg::TidX)?;
//! let warp = b.shr(IntType::U32, tid, 5)?;
//! let slot = b.shared_address("slot")?;
//! let p = b.setp(codegen::ptx::CmpOp::Eq, IntType::U32, warp, 0)?;
//! b.guarded(codegen::ptx::Guard::when(p), |b| b.tcgen05_alloc(slot, 32))?;
//! b.bar_sync(0)?;
//! let base = b.ld(codegen::ptx::StateSpace::Shared, codegen::ptx::DataType::B32, 1, slot)?;
//! let lane_off = b.shl(Width::B32, warp, 21)?;
//! let taddr = b.add(IntType::U32, base[0], lane_off)?;
//! b.tcgen05_st(TmemShape::S32x32b, 1, taddr, &[tid])?;
//! b.tcgen05_wait_st()?;
//! b.bar_sync(0)?;
//! b.guarded(codegen::ptx::Guard::when(p), |b| b.tcgen05_dealloc(base[0], 32))?;
//! b.ret()?;
//! let out = run(&b.finish()?, &Config::new(128), &[])?;
//! let stores: Vec<_> = out.trace.iter().filter(|a| matches!(a.kind, AccessKind::TmemStore { .. })).collect();
//! assert_eq!(stores.len(), 128);
//! assert_eq!(stores[100].location, Location::Tmem { lane: 100, column: 0 });
//! assert_eq!(out.tmem.get(100, 0), Some(100));
//! # let _ = RegType::B32;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod alu;
mod async_copy;
mod async_state;
mod collective;
mod error;
mod exec;
mod machine;
mod memory;
mod trace;

pub use error::InterpError;
pub use machine::{Machine, Outcome};
pub use memory::{buffer_address, Config, ParamValue, SharedLayout, Tmem};
pub use trace::{Access, AccessKind, Location, Trace};

use crate::ptx::Kernel;

/// [`Machine::new`] then [`Machine::run`], with memories zeroed.
///
/// ```
/// use codegen::interp::{run, Config};
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.ret()?;
/// assert!(run(&b.finish()?, &Config::new(32), &[])?.trace.is_empty());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run(
    kernel: &Kernel,
    config: &Config,
    params: &[ParamValue],
) -> Result<Outcome, InterpError> {
    Machine::new(kernel, config.clone())?.run(params)
}
