//! [`Program`]: the specs, allocations and `set_buffer_overlap` calls of one kernel, in program
//! order — what TLX's pass sees as one module.

use std::collections::{BTreeMap, HashSet};

use crate::reuse_group::MAX_TREE_DEPTH;

use crate::{
    AllocError, AllocId, Allocation, DType, Lifetime, Member, Reuse, ReuseGroup, SpecId, Storage,
    StorageAliasSpec, Warning,
};

/// The most specs, and the most allocations, one program holds. A kernel has tens (shared
/// memory holds 232,448 bytes, tensor memory 512 columns); the planner, its checker and its
/// report compare regions with allocations and buffers with buffers, which past this limit
/// would take seconds to minutes, so more is refused when read ([`AllocError::TooMany`]).
///
/// ```
/// use alias_alloc::{program::MAX_ALLOCATIONS, AllocError, DType, Program, Storage};
/// let mut p = Program::new();
/// for i in 0..MAX_ALLOCATIONS {
///     p.plain_alloc(&format!("bar{i}"), &[1], DType::I64, 1, Storage::Smem)?;
/// }
/// let more = p.plain_alloc("one_more", &[1], DType::I64, 1, Storage::Smem);
/// assert!(matches!(more, Err(AllocError::TooMany { limit: 4096, .. })));
/// # Ok::<(), AllocError>(())
/// ```
pub const MAX_ALLOCATIONS: usize = 4096;

/// One `spec.set_buffer_overlap(tree)` call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Overlap {
    /// The spec.
    pub spec: SpecId,
    /// Its reuse tree.
    pub tree: ReuseGroup,
}

/// Specs, allocations and overlap definitions in program order. Build it with the TLX-shaped
/// methods, then [`plan`](Program::plan) it.
///
/// ```
/// use alias_alloc::{DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// // The verified TLX example: two bf16 64×64 double buffers that must not overlap.
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.local_alloc("a", &[64, 64], DType::BF16, 2, s)?;
/// let b = p.local_alloc("b", &[64, 64], DType::BF16, 2, s)?;
/// p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
/// let tlx = p.plan(&PlanOptions::new(Mode::TlxCompatible))?;
/// assert_eq!(tlx.spec("s")?.backing_units, 32768);
/// assert_eq!(tlx.alloc("b")?.reindex.as_ref().map(|r| r.slot(1)).transpose()?, Some(3));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Program {
    specs: Vec<StorageAliasSpec>,
    allocs: Vec<Allocation>,
    overlaps: Vec<Overlap>,
    lifetimes: BTreeMap<AllocId, Lifetime>,
}

impl Program {
    /// An empty program.
    pub fn new() -> Self {
        Self::default()
    }

    /// `tlx.storage_alias_spec(storage, buffer_size_bytes)`. Errors: `smemCluster`, a size of
    /// 0, a name used before.
    pub fn storage_alias_spec(
        &mut self,
        name: &str,
        storage: Storage,
        size: Option<u64>,
    ) -> Result<SpecId, AllocError> {
        if storage == Storage::SmemCluster {
            return Err(AllocError::SmemClusterSpec { spec: name.into() });
        }
        if size == Some(0) {
            return Err(AllocError::NonPositiveSize {
                spec: name.into(),
                size: 0,
            });
        }
        if self.specs.len() >= MAX_ALLOCATIONS {
            return Err(AllocError::TooMany {
                what: "spec",
                name: name.into(),
                limit: MAX_ALLOCATIONS,
            });
        }
        if self.specs.iter().any(|s| s.name == name) {
            return Err(AllocError::DuplicateName {
                what: "spec",
                name: name.into(),
            });
        }
        self.specs.push(StorageAliasSpec {
            name: name.into(),
            storage,
            size,
        });
        Ok(SpecId(self.specs.len() - 1))
    }

    /// `local_alloc(shape, dtype, num, storage = spec's, reuse = spec)` with the default layout.
    pub fn local_alloc(
        &mut self,
        name: &str,
        shape: &[u64],
        dtype: DType,
        num: u64,
        spec: SpecId,
    ) -> Result<AllocId, AllocError> {
        let storage = self.spec(spec)?.storage;
        self.alloc(Allocation::new(
            name,
            shape,
            dtype,
            num,
            storage,
            Reuse::Spec(spec),
        ))
    }

    /// `local_alloc(shape, dtype, num, storage)` without `reuse`: a plain allocation with its
    /// own memory and the default layout.
    ///
    /// ```
    /// use alias_alloc::{DType, Mode, PlanOptions, Program, Storage};
    /// let mut p = Program::new();
    /// p.plain_alloc("acc", &[128, 128], DType::F32, 1, Storage::Tmem)?;
    /// assert_eq!(p.plan(&PlanOptions::new(Mode::Intended))?.spec("acc")?.backing_units, 128);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn plain_alloc(
        &mut self,
        name: &str,
        shape: &[u64],
        dtype: DType,
        num: u64,
        storage: Storage,
    ) -> Result<AllocId, AllocError> {
        self.alloc(Allocation::new(
            name,
            shape,
            dtype,
            num,
            storage,
            Reuse::None,
        ))
    }

    /// `local_alloc` in full. Errors: a name used before, an empty or zero shape, zero buffers,
    /// TMEM buffers that are not 2-D, storage that differs from the spec's (or, for legacy
    /// reuse, from the reused allocation's), unknown ids.
    pub fn alloc(&mut self, a: Allocation) -> Result<AllocId, AllocError> {
        if self.allocs.len() >= MAX_ALLOCATIONS {
            return Err(AllocError::TooMany {
                what: "allocation",
                name: a.name,
                limit: MAX_ALLOCATIONS,
            });
        }
        if self.allocs.iter().any(|b| b.name == a.name) {
            return Err(AllocError::DuplicateName {
                what: "allocation",
                name: a.name,
            });
        }
        if a.shape.is_empty() || a.shape.contains(&0) {
            return Err(a.shape_error("every buffer needs at least one dim, each at least 1"));
        }
        if a.num == 0 {
            return Err(a.shape_error("an allocation needs at least one buffer"));
        }
        if a.storage == Storage::Tmem {
            a.tmem_tile()?;
        }
        a.verify_memdesc()?;
        let bits = a
            .shape
            .iter()
            .try_fold(a.num, |n, &d| n.checked_mul(d))
            .and_then(|n| n.checked_mul(u64::from(a.dtype.bits())));
        if bits.is_none() {
            return Err(a.shape_error("the allocation's size in bits does not fit 64 bits"));
        }
        if let Some(align) = a.align {
            if !align.is_power_of_two() {
                return Err(a.shape_error(&format!(
                    "alignment {align} is not a power of two (hardware alignments are)"
                )));
            }
        }
        match a.reuse {
            Reuse::None => {}
            Reuse::Spec(s) => {
                let spec = self.spec(s)?;
                if spec.storage != a.storage {
                    return Err(AllocError::StorageMismatch {
                        alloc: a.name,
                        spec: spec.name.clone(),
                        spec_storage: spec.storage.to_string(),
                        alloc_storage: a.storage.to_string(),
                    });
                }
            }
            Reuse::Alloc(r) => {
                let reused = self.allocation(r)?;
                if reused.storage != a.storage {
                    return Err(AllocError::LegacyStorageMismatch {
                        alloc: a.name,
                        reused: reused.name.clone(),
                    });
                }
            }
        }
        self.allocs.push(a);
        Ok(AllocId(self.allocs.len() - 1))
    }

    /// `spec.set_buffer_overlap(tree)`. Only the ids are checked here; the tree rules (no
    /// duplicates, all from this spec, one overlap per spec) are checked by
    /// [`plan`](Program::plan) in TLX's order, as TLX's verifier and pass do.
    pub fn set_buffer_overlap(&mut self, spec: SpecId, tree: ReuseGroup) -> Result<(), AllocError> {
        let name = &self.spec(spec)?.name;
        let depth = tree.depth();
        if depth > MAX_TREE_DEPTH {
            return Err(AllocError::TreeTooDeep {
                what: format!("spec '{name}'"),
                depth,
                limit: MAX_TREE_DEPTH,
            });
        }
        for a in tree.allocations() {
            self.allocation(a)?;
        }
        self.overlaps.push(Overlap { spec, tree });
        Ok(())
    }

    /// Declares that allocation `id` holds live data only in program points `[start, end)`.
    /// Allocations with disjoint lifetimes may then share bytes: inside a `distinct` group of
    /// a reuse tree, and between the regions [`pack`](Program::pack) places in one arena.
    /// Errors: an unknown id, `end <= start`.
    ///
    /// ```
    /// use alias_alloc::{DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
    /// let mut p = Program::new();
    /// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    /// let a = p.local_alloc("a", &[64, 64], DType::F16, 1, s)?; // 8 KiB
    /// let b = p.local_alloc("b", &[64, 64], DType::F16, 1, s)?;
    /// p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
    /// assert_eq!(p.plan(&PlanOptions::new(Mode::Intended))?.spec("s")?.backing_units, 16384);
    /// p.set_lifetime(a, 0, 4)?;
    /// p.set_lifetime(b, 4, 8)?; // never live together: they may share
    /// assert_eq!(p.plan(&PlanOptions::new(Mode::Intended))?.spec("s")?.backing_units, 8192);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn set_lifetime(&mut self, id: AllocId, start: u64, end: u64) -> Result<(), AllocError> {
        let lifetime = Lifetime::new(&self.allocation(id)?.name, start, end)?;
        self.lifetimes.insert(id, lifetime);
        Ok(())
    }

    /// The lifetime declared for `id`, if any.
    pub fn lifetime(&self, id: AllocId) -> Option<Lifetime> {
        self.lifetimes.get(&id).copied()
    }

    /// Whether any allocation has a lifetime (then [`pack`](Program::pack) has work to do).
    pub fn has_lifetimes(&self) -> bool {
        !self.lifetimes.is_empty()
    }

    /// Whether both allocations have lifetimes and those never meet: then no buffer of one is
    /// live while a buffer of the other is.
    pub fn never_live_together(&self, a: AllocId, b: AllocId) -> bool {
        match (self.lifetime(a), self.lifetime(b)) {
            (Some(x), Some(y)) => !x.overlaps(&y),
            _ => false,
        }
    }

    /// The warnings planning gives before it can fail, for a caller to show beside the error
    /// when it does: a spec no allocation references (TLX warns "storage_alias_spec has no
    /// referencing storage_alias_local_alloc operations" in its first step, then fails on that
    /// spec in its third).
    ///
    /// ```
    /// use alias_alloc::{Mode, PlanOptions, Program, Storage, Warning};
    /// let mut p = Program::new();
    /// p.storage_alias_spec("unused", Storage::Smem, None)?;
    /// assert!(p.plan(&PlanOptions::new(Mode::TlxCompatible)).is_err());
    /// assert_eq!(p.early_warnings(), vec![Warning::UnusedSpec { spec: "unused".into() }]);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn early_warnings(&self) -> Vec<Warning> {
        self.specs()
            .filter(|(id, _)| self.users(*id).is_empty())
            .map(|(_, s)| Warning::UnusedSpec {
                spec: s.name.clone(),
            })
            .collect()
    }

    /// The spec behind an id.
    pub fn spec(&self, id: SpecId) -> Result<&StorageAliasSpec, AllocError> {
        self.specs.get(id.0).ok_or(AllocError::UnknownId {
            what: "spec",
            index: id.0,
            count: self.specs.len(),
        })
    }

    /// The allocation behind an id.
    pub fn allocation(&self, id: AllocId) -> Result<&Allocation, AllocError> {
        self.allocs.get(id.0).ok_or(AllocError::UnknownId {
            what: "allocation",
            index: id.0,
            count: self.allocs.len(),
        })
    }

    /// The id of the spec called `name`.
    pub fn spec_id(&self, name: &str) -> Option<SpecId> {
        self.specs.iter().position(|s| s.name == name).map(SpecId)
    }

    /// The id of the allocation called `name`.
    pub fn alloc_id(&self, name: &str) -> Option<AllocId> {
        self.allocs.iter().position(|a| a.name == name).map(AllocId)
    }

    /// All specs with their ids, in program order.
    pub fn specs(&self) -> impl Iterator<Item = (SpecId, &StorageAliasSpec)> {
        self.specs.iter().enumerate().map(|(i, s)| (SpecId(i), s))
    }

    /// All allocations with their ids, in program order.
    pub fn allocations(&self) -> impl Iterator<Item = (AllocId, &Allocation)> {
        self.allocs.iter().enumerate().map(|(i, a)| (AllocId(i), a))
    }

    /// All `set_buffer_overlap` calls, in program order.
    pub fn overlaps(&self) -> &[Overlap] {
        &self.overlaps
    }

    /// The allocations made with `reuse = spec`, in program order.
    pub fn users(&self, spec: SpecId) -> Vec<AllocId> {
        self.allocations()
            .filter(|(_, a)| a.reuse == Reuse::Spec(spec))
            .map(|(id, _)| id)
            .collect()
    }

    /// TLX's `set_buffer_overlap` verifier, in its order: duplicates, then elements not from a
    /// spec, then elements of another spec.
    pub(crate) fn verify_tree(&self, o: &Overlap) -> Result<(), AllocError> {
        let spec = self.spec(o.spec)?;
        let leaves = o.tree.allocations();
        let mut seen = HashSet::new();
        for a in &leaves {
            if !seen.insert(*a) {
                return Err(AllocError::DuplicateElement {
                    spec: spec.name.clone(),
                    alloc: self.allocation(*a)?.name.clone(),
                });
            }
        }
        for a in &leaves {
            let alloc = self.allocation(*a)?;
            if !matches!(alloc.reuse, Reuse::Spec(_)) {
                return Err(AllocError::NotAliasAllocation {
                    spec: spec.name.clone(),
                    alloc: alloc.name.clone(),
                });
            }
        }
        for a in &leaves {
            let alloc = self.allocation(*a)?;
            if let Reuse::Spec(other) = alloc.reuse {
                if other != o.spec {
                    return Err(AllocError::ForeignElement {
                        spec: spec.name.clone(),
                        alloc: alloc.name.clone(),
                        other: self.spec(other)?.name.clone(),
                    });
                }
            }
        }
        Ok(())
    }

    /// The tree of `spec`: TLX's step 1 uses the most recent `set_buffer_overlap`.
    pub(crate) fn last_tree(&self, spec: SpecId) -> Option<&ReuseGroup> {
        self.overlaps
            .iter()
            .rev()
            .find(|o| o.spec == spec)
            .map(|o| &o.tree)
    }

    /// Names of a member for messages.
    pub(crate) fn member_name(&self, m: &Member) -> String {
        match m {
            Member::Alloc(a) => self
                .allocation(*a)
                .map_or_else(|_| format!("#{}", a.0), |x| x.name.clone()),
            Member::Group(g) => g
                .first_allocation()
                .map_or_else(String::new, |a| self.member_name(&Member::Alloc(a))),
        }
    }
}
