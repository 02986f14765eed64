//! TLX kernels read from their TTGIR: [`read_module`] turns the module a compiler dump prints
//! into the [`Program`](crate::Program) it allocates — no transcription into a plan file.
//!
//! How to get the module of your own kernel: run it (or just compile it) with
//! `MLIR_ENABLE_DUMP=1` and keep the module printed before `tlx-storage-alias-lowering`
//! (`// -----// IR Dump Before TLXStorageAliasLowering`), or take the `.ttgir` that
//! `TRITON_KERNEL_DUMP=1` writes (after every pass: the aliasing ops are gone there, only the
//! plain allocations remain). `docs/plan-from-ir.md` walks through both.
//!
//! The module is read op by op as MLIR prints it (one op per line; types and attributes may
//! span lines): see [`read_module`] for what is read and what is skipped.

mod lower;
mod memdesc;
mod read;
mod scan;
mod write;

pub use lower::lower_module;
pub use memdesc::MemDesc;
pub use read::{read_module, AllocOp, KernelModule, ModuleAlloc, ModuleAttributes, ModuleSpec};
pub use write::write_module;
