//! [`Plan`]: where every buffer of every allocation lives, in one of the two [`Mode`]s.

use linear_layout::{AddressMap, BufferMap};

use crate::{AllocError, AllocId, Reindex, ReuseGroup, Storage, Target, Warning};

/// Which meaning of the reuse tree to plan with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// fbtriton 3.7.4 bit for bit, quirks included; unsafe results become warnings.
    TlxCompatible,
    /// The documented meaning: subtiles contiguous in their group, layout alignment only.
    #[default]
    Intended,
}

/// How to plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PlanOptions {
    /// TLX-compatible or intended.
    pub mode: Mode,
    /// Capacity limits.
    pub target: Target,
}

impl PlanOptions {
    /// Options for `mode` on the default target (sm_100).
    pub fn new(mode: Mode) -> Self {
        PlanOptions {
            mode,
            target: Target::default(),
        }
    }
}

/// Where a planned region comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    /// A `storage_alias_spec`.
    Spec(crate::SpecId),
    /// An allocation with `reuse = None` and the legacy views of it (`reuse = <allocation>`).
    Allocation(AllocId),
}

/// The backing of one spec (or one plain allocation and its legacy views).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SpecPlan {
    /// Spec name (or the allocation's).
    pub name: String,
    /// Where it comes from.
    pub origin: Origin,
    /// SMEM or TMEM.
    pub storage: Storage,
    /// Size in plan units: bytes (SMEM) or 32-bit columns (TMEM).
    pub backing_units: u64,
    /// TMEM lanes used (64 or 128); 0 for SMEM.
    pub rows: u64,
    /// The backing's MLIR shape: `[bytes]` or `[rows, columns]`.
    pub backing_shape: Vec<u64>,
    /// `buffer_size_bytes` after planning (explicit, or computed).
    pub buffer_size_bytes: u64,
    /// Units between buffer groups of the tree (`U`), with a tree.
    pub group_stride: Option<u64>,
    /// Number of buffer groups of the tree, with a tree.
    pub groups: Option<u64>,
    /// The reuse tree, if any.
    pub tree: Option<ReuseGroup>,
    /// Allocations placed in this backing, in program order.
    pub members: Vec<AllocId>,
    /// The phases of the tree's phase pools (Intended mode), outer pools first; empty
    /// without one.
    pub phases: Vec<Phase>,
}

/// One phase of a phase pool (Intended mode): a child of a `shared` group whose children have
/// different buffer-group counts (sched2tlx's multiphase GEMM). It lays out all its own buffer
/// groups from `offset`, sharing the pool's bytes with the other phases.
///
/// ```
/// use alias_alloc::plan::Phase;
/// let p = Phase { allocs: vec![], offset: 0, groups: 3, stride: 32768 };
/// assert_eq!(p.group_range(2), Some((65536, 98304)));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Phase {
    /// The phase's allocations.
    pub allocs: Vec<AllocId>,
    /// Where its buffer group 0 starts, in plan units.
    pub offset: u64,
    /// Its buffer groups.
    pub groups: u64,
    /// Units between its buffer groups.
    pub stride: u64,
}

impl Phase {
    /// `[start, end)` of its buffer group `k`; `None` on overflow.
    pub fn group_range(&self, k: u64) -> Option<(u64, u64)> {
        let start = self.offset.checked_add(k.checked_mul(self.stride)?)?;
        Some((start, start.checked_add(self.stride)?))
    }
}

/// Where the buffers of one allocation live.
#[derive(Debug, Clone, PartialEq)]
pub struct AllocPlan {
    /// The allocation.
    pub alloc: AllocId,
    /// Its name.
    pub name: String,
    /// Index of its region in [`Plan::specs`].
    pub region: usize,
    /// Buffers.
    pub num: u64,
    /// Size of one buffer in plan units (TLX: its unit; Intended: bytes rounded up / columns).
    pub unit: u64,
    /// Alignment every buffer start needs, in plan units.
    pub alignment: u64,
    /// Where buffer `i` really starts: what the kernel does in this mode.
    pub placement: BufferMap,
    /// The explicit lowering: `o`, `U`, the subtile widths and group sizes as strides. Equal to
    /// `placement` in Intended mode; in TlxCompatible mode it is TLX's offsets with the
    /// documented subtile rule.
    pub explicit: BufferMap,
    /// The index rewrite, where one exists (TLX always; Intended when every offset and stride
    /// is a whole number of buffers).
    pub reindex: Option<Reindex>,
    /// Shape of the alias of the backing under `reindex`.
    pub alias_shape: Option<Vec<u64>>,
    /// `explicit` composed with the element layout (None where the layout has no GF(2) form,
    /// e.g. a non-power-of-two tile TLX accepts).
    pub address_map: Option<AddressMap>,
}

/// A finished plan: regions, placements and warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// The mode it was made in.
    pub mode: Mode,
    /// The target whose limits were checked.
    pub target: Target,
    /// One per spec, then one per plain allocation.
    pub specs: Vec<SpecPlan>,
    /// One per allocation, in program order.
    pub allocs: Vec<AllocPlan>,
    /// What the user should know.
    pub warnings: Vec<Warning>,
}

impl Plan {
    /// The region called `name`.
    pub fn spec(&self, name: &str) -> Result<&SpecPlan, AllocError> {
        self.specs
            .iter()
            .find(|s| s.name == name)
            .ok_or_else(|| AllocError::Input(format!("no spec '{name}' in the plan")))
    }

    /// The allocation called `name`.
    pub fn alloc(&self, name: &str) -> Result<&AllocPlan, AllocError> {
        self.allocs
            .iter()
            .find(|a| a.name == name)
            .ok_or_else(|| AllocError::Input(format!("no allocation '{name}' in the plan")))
    }

    /// Where buffer `i` of allocation `name` starts, in plan units.
    pub fn buffer_start(&self, name: &str, i: u64) -> Result<u64, AllocError> {
        let a = self.alloc(name)?;
        a.placement
            .offset(i)
            .map_err(|e| AllocError::Input(format!("allocation '{name}': {e}")))
    }
}

/// Regions, placements and warnings of one mode, before explicit lowering and checking.
pub(crate) struct Placed {
    pub specs: Vec<SpecPlan>,
    pub allocs: Vec<AllocPlan>,
    pub warnings: Vec<Warning>,
}
