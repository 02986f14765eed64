//! [`Program::pack`]: the regions of one kernel — every spec's backing and every plain
//! allocation — share one shared-memory arena and the 512 tensor-memory columns by lifetime.
//!
//! A region is live from the first program point any of its allocations is live to the last
//! (an allocation without a [`Lifetime`] is live throughout the kernel). Regions that are
//! never live together may take the same bytes at any offset; the exact solver
//! ([`packing::exact`]) places them, each on its alignment (the largest
//! its allocations need), TMEM regions as `tcgen05.alloc`-sized blocks (a power of two ≥ 32
//! columns). Inside a region the reuse tree's placement stands. The arena must fit the
//! target's shared memory (and 512 columns); if it does not, the error says where the peak
//! is, what is live there and what the lower bound is.

use std::time::Duration;

use linear_layout::address::align_up_saturating;
use linear_layout::families::tmem::TMEM_COLUMNS;
use linear_layout::{AddressMap, BufferMap};
use packing::diagnose::explain_within;
use packing::exact::{minimize, SolveOptions};
use packing::{Buffer, PackError, Problem};

use crate::lowering::explicit::LoweringCache;
use crate::{AllocError, AllocPlan, Lifetime, Plan, PlanOptions, Program, Storage};

/// How to pack: the plan's options and the solver's time budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PackOptions {
    /// Mode and target of the regions' plans (the target also gives the arena's capacity).
    pub plan: PlanOptions,
    /// Wall-clock budget of the exact solver per arena, on top of its fixed limit of
    /// [`ARENA_NODES`] search nodes (which alone makes the result independent of the machine);
    /// `None`: the node limit only.
    pub budget: Option<Duration>,
}

/// Search nodes the exact solver spends at most per arena: the deterministic bound on
/// planning time (each node costs time linear in the arena's regions).
///
/// ```
/// assert_eq!(alias_alloc::arena::ARENA_NODES, 1_000_000);
/// ```
pub const ARENA_NODES: u64 = 1_000_000;

impl PackOptions {
    /// Intended mode on `target`'s default, no time budget.
    pub fn new(plan: PlanOptions) -> Self {
        PackOptions { plan, budget: None }
    }
}

/// One region's place in its arena.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ArenaSlot {
    /// Index of the region in [`Plan::specs`].
    pub region: usize,
    /// The region's name.
    pub name: String,
    /// Where the region starts in the arena, in plan units (bytes, TMEM columns).
    pub offset: u64,
    /// Units it occupies (TMEM: rounded up to a `tcgen05.alloc` size).
    pub units: u64,
    /// Alignment of `offset`.
    pub alignment: u64,
    /// When it is live.
    pub lifetime: Lifetime,
}

/// The regions of one storage kind, packed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Arena {
    /// SMEM or TMEM.
    pub storage: Storage,
    /// The target's limit: bytes per block, or 512 columns.
    pub capacity: u64,
    /// One slot per region of this storage, in region order.
    pub slots: Vec<ArenaSlot>,
    /// Units the arena needs: the largest `offset + units`.
    pub peak: u64,
    /// The peak of concurrently live units: no placement needs less.
    pub lower_bound: u64,
    /// Whether the solver proved `peak` optimal.
    pub proven_optimal: bool,
    /// Units the regions need one after another (a bump allocator, what TLX does).
    pub unpacked: u64,
    /// Search nodes spent: [`ARENA_NODES`] when the node limit ended a search that did not
    /// prove its peak; fewer with the peak unproved means the time budget ended it.
    pub nodes: u64,
}

/// A plan whose regions are placed in arenas.
#[derive(Debug, Clone, PartialEq)]
pub struct PackedPlan {
    /// The regions' plans (offsets inside each region).
    pub plan: Plan,
    /// One arena per storage kind that has regions (SMEM first).
    pub arenas: Vec<Arena>,
}

impl PackedPlan {
    /// Where region `region` starts in its arena.
    pub fn region_offset(&self, region: usize) -> Option<u64> {
        self.arenas
            .iter()
            .flat_map(|a| &a.slots)
            .find(|s| s.region == region)
            .map(|s| s.offset)
    }

    /// Where buffer `i` of allocation `name` starts in its arena.
    ///
    /// ```
    /// use alias_alloc::{arena::PackOptions, DType, PlanOptions, Program, Storage};
    /// // The seed's chained matmul: a 64 KiB tile freed, then two 32 KiB tiles live together.
    /// let mut p = Program::new();
    /// let a = p.plain_alloc("a", &[256, 128], DType::F16, 1, Storage::Smem)?;
    /// let b = p.plain_alloc("b", &[128, 128], DType::F16, 1, Storage::Smem)?;
    /// let c = p.plain_alloc("c", &[128, 128], DType::F16, 1, Storage::Smem)?;
    /// p.set_lifetime(a, 0, 2)?;
    /// p.set_lifetime(b, 2, 4)?;
    /// p.set_lifetime(c, 2, 4)?;
    /// let packed = p.pack(&PackOptions::new(PlanOptions::default()))?;
    /// assert_eq!(packed.arenas[0].peak, 65536); // a bump allocator needs 128 KiB
    /// assert_eq!(packed.arenas[0].unpacked, 131072);
    /// assert_ne!(packed.buffer_start("b", 0)?, packed.buffer_start("c", 0)?);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn buffer_start(&self, name: &str, i: u64) -> Result<u64, AllocError> {
        let a = self.plan.alloc(name)?;
        let start = self.plan.buffer_start(name, i)?;
        Ok(self.base_of(a)?.saturating_add(start))
    }

    /// Where the region of `a` starts in its arena (every region is in one).
    fn base_of(&self, a: &AllocPlan) -> Result<u64, AllocError> {
        self.region_offset(a.region).ok_or_else(|| {
            AllocError::Input(format!(
                "allocation '{}': its region is in no arena",
                a.name
            ))
        })
    }

    /// The plan with every allocation's buffer maps and address map moved to its region's
    /// place in the arena: what the kernel addresses, for emission. (Its regions' backings
    /// stay region-sized, so check the packed plan, not this one.)
    ///
    /// ```
    /// use alias_alloc::{DType, PackOptions, PlanOptions, Program, Storage};
    /// let mut p = Program::new();
    /// let a = p.plain_alloc("a", &[64, 64], DType::F16, 2, Storage::Smem)?;
    /// let b = p.plain_alloc("b", &[64, 64], DType::F16, 1, Storage::Smem)?;
    /// p.set_lifetime(a, 0, 2)?;
    /// p.set_lifetime(b, 1, 3)?;
    /// let packed = p.pack(&PackOptions::new(PlanOptions::default()))?;
    /// let moved = packed.rebased()?;
    /// assert_eq!(moved.buffer_start("b", 0)?, packed.buffer_start("b", 0)?);
    /// assert_eq!(moved.buffer_start("a", 1)?, packed.buffer_start("a", 1)?);
    /// # Ok::<(), alias_alloc::AllocError>(())
    /// ```
    pub fn rebased(&self) -> Result<Plan, AllocError> {
        let mut plan = self.plan.clone();
        for a in &mut plan.allocs {
            let base = self.base_of(a)?;
            let placement = moved(&a.placement, base, &a.name)?;
            let explicit = moved(&a.explicit, base, &a.name)?;
            a.address_map = a
                .address_map
                .as_ref()
                .map(|m| m.with_buffer(explicit.clone()));
            a.placement = placement;
            a.explicit = explicit;
        }
        Ok(plan)
    }

    /// The allocation's address map with its region's arena offset added: what the kernel
    /// computes (`None` where the layout has no GF(2) form).
    pub fn address_map(&self, name: &str) -> Result<Option<AddressMap>, AllocError> {
        let a = self.plan.alloc(name)?;
        let Some(map) = &a.address_map else {
            return Ok(None);
        };
        let buffer = moved(map.buffer(), self.base_of(a)?, name)?;
        Ok(Some(map.with_buffer(buffer)))
    }
}

/// `map` with `base` added to its start.
fn moved(map: &BufferMap, base: u64, name: &str) -> Result<BufferMap, AllocError> {
    BufferMap::new(map.base().saturating_add(base), map.modes())
        .map_err(|e| AllocError::Input(format!("allocation '{name}': {e}")))
}

impl Program {
    /// Plans every region (in `options.plan.mode`), then packs the regions of each storage
    /// kind into one arena by lifetime. Errors: the plan's, and
    /// [`AllocError::ArenaOverflow`] when an arena does not fit, with the diagnosis (the peak's
    /// program point, the regions live there, the lower bound against the capacity).
    ///
    /// See [`PackedPlan::buffer_start`] for an example.
    pub fn pack(&self, options: &PackOptions) -> Result<PackedPlan, AllocError> {
        self.pack_with(options, &mut LoweringCache::new())
    }

    /// [`pack`](Program::pack), taking element layouts from `cache` and keeping the ones it
    /// builds there (see [`LoweringCache`]).
    pub fn pack_with(
        &self,
        options: &PackOptions,
        cache: &mut LoweringCache,
    ) -> Result<PackedPlan, AllocError> {
        let plan = self.plan_regions(&options.plan, true, cache)?;
        let span = self.kernel_span();
        let mut arenas = Vec::new();
        for storage in [Storage::Smem, Storage::Tmem] {
            let regions: Vec<usize> = (0..plan.specs.len())
                .filter(|&r| {
                    plan.specs
                        .get(r)
                        .is_some_and(|s| (s.storage == Storage::Tmem) == (storage == Storage::Tmem))
                })
                .collect();
            if regions.is_empty() {
                continue;
            }
            arenas.push(self.arena(&plan, storage, &regions, span, options)?);
        }
        let packed = PackedPlan { plan, arenas };
        // The regions' plans were checked by `plan_regions`; here the arenas are.
        if let Some(v) = crate::checker::check_arenas(self, &packed)
            .into_iter()
            .next()
        {
            return Err(AllocError::CheckerRejected(Box::new(v)));
        }
        Ok(packed)
    }

    /// The program points any lifetime covers (`[0, 1)` when none is declared).
    fn kernel_span(&self) -> Lifetime {
        let mut all = self.allocations().filter_map(|(id, _)| self.lifetime(id));
        match all.next() {
            Some(first) => all.fold(first, |h, l| h.hull(&l)),
            None => Lifetime { start: 0, end: 1 },
        }
    }

    fn arena(
        &self,
        plan: &Plan,
        storage: Storage,
        regions: &[usize],
        span: Lifetime,
        options: &PackOptions,
    ) -> Result<Arena, AllocError> {
        let mut slots = Vec::with_capacity(regions.len());
        for &r in regions {
            let Some(spec) = plan.specs.get(r) else {
                continue;
            };
            let members: Vec<_> = plan.allocs.iter().filter(|a| a.region == r).collect();
            let mut lifetime: Option<Lifetime> = None;
            let mut always = members.is_empty();
            let mut alignment = 1u64;
            for a in &members {
                alignment = alignment.max(a.alignment);
                if let Some(m) = &a.address_map {
                    alignment = alignment.max(m.required_alignment());
                }
                match self.lifetime(a.alloc) {
                    Some(l) => lifetime = Some(lifetime.map_or(l, |h| h.hull(&l))),
                    None => always = true,
                }
            }
            let mut units = spec.backing_units;
            if storage == Storage::Tmem {
                units = crate::capacity::tcgen05_columns(units);
                alignment = alignment.max(32);
            }
            slots.push(ArenaSlot {
                region: r,
                name: spec.name.clone(),
                offset: 0,
                units,
                alignment,
                lifetime: match lifetime {
                    Some(l) if !always => l,
                    _ => span,
                },
            });
        }
        let capacity = match storage {
            Storage::Tmem => u64::from(TMEM_COLUMNS),
            _ => plan.target.smem_bytes,
        };
        let pack_err =
            |e: PackError| AllocError::Input(format!("packing the {storage} arena: {e}"));
        let buffers = slots
            .iter()
            .map(|s| {
                Buffer::new(s.name.clone(), s.lifetime.start, s.lifetime.end, s.units)?
                    .aligned(s.alignment)
            })
            .collect::<Result<Vec<_>, _>>()
            .map_err(pack_err)?;
        let problem = Problem::new(buffers, Some(capacity)).map_err(pack_err)?;
        let solve = SolveOptions {
            budget: options.budget,
            node_limit: Some(ARENA_NODES),
            ..SolveOptions::default()
        };
        let started = std::time::Instant::now();
        let solution = minimize(&problem, &solve).map_err(pack_err)?;
        // The diagnosis's searches share the budget (its node limits alone could take minutes
        // over thousands of allocations).
        let deadline = options.budget.map(|b| started + b);
        if let Some(why) = explain_within(&problem, &solution, deadline) {
            return Err(AllocError::ArenaOverflow {
                storage: storage.to_string(),
                diagnosis: why.to_string(),
            });
        }
        for (s, &o) in slots.iter_mut().zip(&solution.placement.offsets) {
            s.offset = o;
        }
        let unpacked = slots.iter().fold(0u64, |t, s| {
            align_up_saturating(t, s.alignment).saturating_add(s.units)
        });
        Ok(Arena {
            storage,
            capacity,
            slots,
            peak: solution.peak,
            lower_bound: solution.lower_bound,
            proven_optimal: solution.proven_optimal,
            unpacked,
            nodes: solution.nodes,
        })
    }
}
