//! TLX kernels read from their TTGIR: [`read_module`] turns the module a compiler dump prints
//! into the [`Program`](crate::Program) it allocates — no transcription into a plan file.
//!
//! How to get the module of your own kernel: run it (or just compile it) with
//! `MLIR_ENABLE_DUMP=1` and keep the module printed before `tlx-storage-alias-lowering`
//! (`// -----// IR Dump Before TLXStorageAliasLowering`), or take the `.ttgir` that
//! `TRITON_KERNEL_DUMP=1` writes (after every pass: the aliasing ops are gone there, only the
//! plain allocations remain). `docs/plan-from-ir.md` walks through both.
//!
//! The module is read once into the module model ([`linear_layout::mlir::Module`]): every op
//! with its defs, uses, regions and text; [`read_module`] takes the ops that allocate and alias
//! into a [`Program`](crate::Program), and [`lower_module`] edits the model and prints it.
//!
//! | file | what it holds |
//! |---|---|
//! | `read.rs` | [`read_module`]: the model's ops → `Program`, and where each spec and allocation came from |
//! | `memdesc.rs` | [`MemDesc`]: a memdesc type, and what allocation it is |
//! | `lower.rs` | [`lower_module`]: the storage-alias lowering as edits of the model, in either mode |
//! | `write.rs` | [`write_module`]: a `Program` as the module TLX's frontend would give the pass |

mod lower;
mod memdesc;
mod read;
mod write;

pub use lower::lower_module;
pub use memdesc::MemDesc;
pub use read::{read_module, AllocOp, KernelModule, ModuleAlloc, ModuleAttributes, ModuleSpec};
pub use write::write_module;
