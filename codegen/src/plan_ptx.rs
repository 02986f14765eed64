//! The PTX of a storage-alias plan: for each allocation of an `alias_alloc` [`Plan`]
//! (its explicit lowering: one [`AddressMap`](linear_layout::AddressMap) per allocation), a
//! whole kernel that stores the tile to the buffer chosen by a run-time parameter and loads
//! it back — shared memory through the [`smem`](crate::smem) emitter (sm_90a), tensor memory
//! through the [`tmem`](crate::tmem) emitter (sm_100a) — in one [`Module`](crate::ptx::Module).
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`PlanPtx`], [`AllocationPtx`], [`AllocationKernel`], [`PlanPtxOptions`], [`Skipped`] | the kernels of a plan | `plan_ptx/kernels.rs` |
//! | [`store_layout`] | the register layout of a shared-memory allocation | `plan_ptx/registers.rs` |
//! | [`PlanPtxError`] | why an allocation got no kernel | `plan_ptx/error.rs` |
//!
//! ```
//! use alias_alloc::{plan_file::PlanFile, Mode, PlanOptions};
//! use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
//! let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/smem_pipeline.toml"))?;
//! let file = PlanFile::parse(&toml)?;
//! let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
//! let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
//! assert_eq!(ptx.allocations.len(), 4); // a, b, c, bias
//! let text = ptx.module().to_string();
//! assert_eq!(text.matches(".visible .entry").count(), 4);
//! assert!(text.contains(".target sm_90a"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [`Plan`]: alias_alloc::Plan

mod error;
mod kernels;
mod registers;

pub use error::PlanPtxError;
pub use kernels::{AllocationKernel, AllocationPtx, PlanPtx, PlanPtxOptions, Skipped};
pub use registers::store_layout;
