//! # alias-alloc
//!
//! TLX's buffer sharing — `storage_alias_spec`, `local_alloc(reuse = …)`, `reuse_group`,
//! `set_buffer_overlap` — for shared and tensor memory, planned two ways ([`Mode`]):
//! `TlxCompatible` reproduces fbtriton 3.7.4's `tlx-storage-alias-lowering` bit for bit,
//! `Intended` gives the documented meaning. Each plan is lowered both by TLX-style index
//! rewriting ([`Reindex`]) and explicitly, as one [`AddressMap`](linear_layout::AddressMap) per
//! allocation, and verified by an independent [`checker`]. A kernel's regions share one arena
//! by lifetime through the [`packing`] crate ([`Program::pack`]).
//!
//! ```
//! use alias_alloc::{DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
//! // Flash-Attention forward (TLX tutorial): S/P share TMEM with alpha, l, m.
//! let mut p = Program::new();
//! let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
//! let qk = p.local_alloc("qk", &[128, 128], DType::F32, 2, s)?;
//! let pt = p.local_alloc("p", &[128, 64], DType::BF16, 4, s)?;
//! let alpha = p.local_alloc("alpha", &[128, 1], DType::F32, 2, s)?;
//! let l = p.local_alloc("l", &[128, 1], DType::F32, 2, s)?;
//! let m = p.local_alloc("m", &[128, 1], DType::F32, 2, s)?;
//! let slices = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
//! let distinct = ReuseGroup::distinct(vec![slices.into(), alpha.into(), l.into(), m.into()])?;
//! p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
//!
//! let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
//! let starts = |n| (0..4).map(|i| plan.buffer_start(n, i)).collect::<Result<Vec<_>, _>>();
//! assert_eq!(starts("p")?, [0, 32, 128, 160]); // subtiles contiguous in their group
//! assert_eq!(plan.buffer_start("alpha", 1)?, 192);
//!
//! let tlx = p.plan(&PlanOptions::new(Mode::TlxCompatible))?;
//! assert_eq!(tlx.buffer_start("p", 1)?, 96); // TLX: subtile 1 at U + unit
//! assert!(!tlx.warnings.is_empty());
//! # Ok::<(), alias_alloc::AllocError>(())
//! ```

pub mod allocation;
pub mod arena;
mod capacity;
pub mod checker;
mod distinct_packing;
pub mod error;
pub mod hazard;
mod intended;
pub mod lifetime;
pub mod lowering;
pub mod mlir;
mod plain_regions;
pub mod plan;
pub mod plan_file;
mod planner;
pub mod program;
pub mod report;
pub mod reuse_group;
pub mod spec;
pub mod target;
pub mod tlx;
mod tree_rules;

pub use allocation::{AllocId, AllocLayout, Allocation, CtaMode, Reuse};
pub use arena::{Arena, ArenaSlot, PackOptions, PackedPlan};
pub use error::{AllocError, Warning};
pub use lifetime::Lifetime;
pub use linear_layout::DType;
pub use lowering::reindex::{Reindex, TlxRewrite};
pub use plan::{AllocPlan, Mode, Origin, Plan, PlanOptions, SpecPlan};
pub use program::{Overlap, Program};
pub use reuse_group::{GroupKind, Member, ReuseGroup};
pub use spec::{SpecId, Storage, StorageAliasSpec};
pub use target::Target;
