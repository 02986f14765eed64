//! # codegen
//!
//! PTX for swizzled shared-memory and tensor-memory addresses, and the tools that check it
//! without a GPU.
//!
//! | module | what it is |
//! |---|---|
//! | [`ptx`] | a typed PTX IR: registers, instructions, kernels, a checked [`ptx::Builder`], `Display` and a parser for the printed subset |
//! | [`interp`] | a PTX-subset interpreter: one CTA, every thread, shared/global/tensor memory, and a trace of every access |
//! | [`ptxas`] | finds and runs `ptxas` on emitted text |
//! | [`access`] | what one memory access is: load/store, element bits, buffer index, TLX reindexing |
//! | [`smem`] | shared-memory addresses from an `AddressMap` and a register layout: thread base, immediates, vectors, `ldmatrix`/`stmatrix`, the buffer part (explicit or TLX) |
//! | [`tmem`] | tensor-memory addresses: `tcgen05.alloc`, `taddr`, `tcgen05.ld/st` messages per atom |
//! | [`cost`] | the shared-memory cost model: wavefronts, bank conflicts and instruction counts of every access, as the H100 counts them |
//! | [`plan_ptx`] | the kernels of an `alias_alloc` plan: one store-and-reload kernel per allocation, in one module |
//! | `gpu` | with `--features gpu`: the kernels run on an sm_90+ device through cudarc, their output compared with the `AddressMap` |
//!
//! The address emitters build on these: they emit a [`ptx::Kernel`], the interpreter runs
//! its *printed text* re-parsed and must reproduce the `AddressMap` address of every thread and
//! register, and ptxas must accept it for sm_90a / sm_100a.
//!
//! ```
//! use codegen::interp::{run, Config, Location};
//! use codegen::ptx::{parse, Builder, DataType, IntType, StateSpace, SpecialReg, Target, Width};
//! let mut b = Builder::new("k", Target::Sm90a)?;
//! b.extern_shared("smem", 1024)?;
//! let tid = b.special(SpecialReg::TidX)?;
//! let off = b.shl(Width::B32, tid, 2)?;
//! let base = b.shared_address("smem")?;
//! let addr = b.add(IntType::U32, base, off)?;
//! b.st(StateSpace::Shared, DataType::B32, addr, &[tid])?;
//! b.ret()?;
//! let kernel = parse(&b.finish()?.to_string())?;
//! let out = run(&kernel, &Config::new(64).dynamic_shared(256), &[])?;
//! let addrs: Vec<_> = out.trace.iter().map(|a| a.location).collect();
//! assert_eq!(addrs[5], Location::Shared(1024 + 20));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod access;
pub mod cost;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod interp;
pub mod plan_ptx;
pub mod ptx;
pub mod ptxas;
pub mod smem;
pub mod tmem;
