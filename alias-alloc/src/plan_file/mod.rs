//! Plan files: a [`Program`] as TOML, key for key the TLX calls it mirrors — what
//! `linalias plan FILE.toml` reads.
//!
//! A file has an optional `target`, one `[[spec]]` table per `storage_alias_spec`, one
//! `[[alloc]]` table per `local_alloc` (in program order: TLX sizes an SMEM backing by its first
//! user), and the reuse tree of each spec as its `overlap` key (`spec.set_buffer_overlap`).
//!
//! ```toml
//! target = "sm_100"                 # optional: sm_80, sm_90, sm_100 (default), sm_120
//!
//! [[spec]]                          # tlx.storage_alias_spec(storage, buffer_size_bytes)
//! name = "qk_storage"
//! storage = "tmem"                  # smem | tmem
//! # size = 131072                   # optional buffer_size_bytes (alias: buffer_size_bytes)
//! overlap = { shared = [            # spec.set_buffer_overlap(reuse_group(...)), optional
//!     "qk",
//!     { distinct = [
//!         { shared = ["p"], group_size = 2 },
//!         "alpha", "l", "m",
//!     ] },
//! ] }
//!
//! [[alloc]]                         # tlx.local_alloc(shape, dtype, num, storage, reuse, layout)
//! name = "qk"
//! shape = [128, 128]                # one buffer
//! dtype = "f32"                     # f32, bf16, f8e4m3 (or fp8e4nv), i8, f4, … (see DType)
//! num = 2                           # buffers
//! spec = "qk_storage"               # reuse = spec
//! # reuse = "other"                 # legacy reuse = <an earlier allocation>
//! # storage = "tmem"                # default: the spec's, the reused allocation's, else smem
//! # layout = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>"
//! # cta_mode = "two_cta_rhs"        # TMEM only: default | two_cta_lhs | two_cta_rhs
//! # align = 16                      # buffer start alignment in plan units (default: 128 B for
//!                                   # SMEM, 1 column for TMEM); the layout's own always applies
//! # lifetime = [0, 4]               # program points [start, end) the data is live; see
//!                                   # Program::set_lifetime and Program::pack
//!
//! [[alloc]]
//! name = "p"
//! shape = [128, 64]
//! dtype = "bf16"
//! num = 4
//! spec = "qk_storage"
//!
//! # … alpha, l and m: shape = [128, 1], dtype = "f32", num = 2, spec = "qk_storage"
//! ```
//!
//! **The reuse tree.** A group is an inline table with exactly one of `shared = [...]` or
//! `distinct = [...]` (its members, in order) and an optional `group_size = k` (subtiling;
//! `reuse_group(..., group_size = k)`); a member is an allocation's name or a nested group. The
//! root must be a group. Arrays may span lines inside the inline table, as above.
//!
//! **Layouts.** `layout` is any attribute [`Encoding::from_mlir`](linear_layout::families::Encoding::from_mlir) parses that can hold an
//! allocation: a shared one (`#ttg.swizzled_shared`, `#ttg.nvmma_shared`, `#ttg.shared_linear`)
//! for shared memory, `#ttng.tensor_memory_encoding` for tensor memory, or `"dummy_tmem"`
//! (TLX's `#tlx.dummy_tmem_layout<>`). Without it TLX's default applies
//! ([`AllocLayout::Default`](crate::AllocLayout::Default)). `cta_mode` without a `layout` takes the default TMEM encoding.
//!
//! **More than one `set_buffer_overlap` per spec** (which TLX rejects; files exist to reproduce
//! it): `[[overlap]]` tables with `spec = "name"` and `tree = { … }` are applied after the
//! specs' own `overlap` keys, in file order.
//!
//! **Errors** are [`AllocError::Input`] naming the line, column, entry and key (found from the
//! document's own spans), e.g.
//! `line 12, column 9 (alloc #2 'p', key 'dtype'): unknown dtype 'f33' (expected …)` — except
//! what the [`Program`] builder itself refuses (a name used twice, storage that differs from the
//! spec's, a zero size…), which keeps its own variant (and its [`AllocError::tlx_message`]).
//!
//! ```
//! use alias_alloc::{plan_file, Mode, PlanOptions};
//! let text = r#"
//! [[spec]]
//! name = "s"
//! storage = "smem"
//! overlap = { distinct = ["a", "b"] }
//!
//! [[alloc]]
//! name = "a"
//! shape = [64, 64]
//! dtype = "bf16"
//! num = 2
//! spec = "s"
//!
//! [[alloc]]
//! name = "b"
//! shape = [64, 64]
//! dtype = "bf16"
//! num = 2
//! spec = "s"
//! "#;
//! let program = plan_file::parse(text)?;
//! let plan = program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
//! assert_eq!(plan.spec("s")?.backing_units, 32768);
//! assert_eq!(plan_file::parse(&plan_file::to_toml(&program))?, program);
//!
//! let err = plan_file::parse(&text.replace("\"bf16\"", "\"bf17\"")).unwrap_err();
//! assert!(err.to_string().starts_with("line 10, column 9 (alloc #1 'a', key 'dtype'): unknown dtype 'bf17'"));
//! # Ok::<(), alias_alloc::AllocError>(())
//! ```

mod read;
#[cfg(test)]
mod tests;
mod write;

use crate::{AllocError, Program, Target};

/// What `layout = "dummy_tmem"` stands for.
const DUMMY_TMEM: &str = "dummy_tmem";

/// A parsed plan file: the program and the target it names (if any).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanFile {
    /// Specs, allocations and overlaps, in file order.
    pub program: Program,
    /// The file's `target`, if it has one.
    pub target: Option<Target>,
}

/// Parses a plan file into its [`Program`] (the `target` key is checked and dropped; use
/// [`PlanFile::parse`] to keep it).
pub fn parse(text: &str) -> Result<Program, AllocError> {
    PlanFile::parse(text).map(|f| f.program)
}

/// The plan file of `program`: [`parse`] gives back an equal program.
pub fn to_toml(program: &Program) -> String {
    write::write_file(program, None)
}

impl PlanFile {
    /// Parses a plan file (see the [module docs](self) for the format).
    pub fn parse(text: &str) -> Result<PlanFile, AllocError> {
        read::read(text)
    }

    /// This file as TOML: [`PlanFile::parse`] gives back an equal file.
    pub fn to_toml(&self) -> String {
        write::write_file(&self.program, self.target)
    }
}
