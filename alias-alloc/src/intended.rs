//! `Intended` mode: the documented meaning of a reuse tree.
//!
//! Sizes bottom-up, in plan units, each node with the alignment its leaves need:
//! * leaf: one buffer (`ceil(bits · Πd / 8)` bytes, or TMEM columns), its layout's alignment;
//! * `shared` with `group_size = k`: slot width `W = alignUp(max child, align)`, size
//!   `(k − 1)·W + max child` — subtile `j` of a group sits at `j·W`;
//! * `distinct`: children in order, each moved up to its own alignment (not the root's); when
//!   children carry disjoint [lifetimes](crate::Lifetime), packed by lifetime instead
//!   ([`distinct_packing`](crate::distinct_packing));
//! * root: `U = alignUp(size, align)`, backing `U × (groups − 1) + size`;
//! * a phase pool (a `shared` group whose children have different buffer-group counts, see
//!   [`tree_rules`](crate::tree_rules)): each child sized with all its own groups,
//!   `U_c × (groups_c − 1) + size_c`, the pool as large as the largest; the pool counts as one
//!   buffer group above it.
//!
//! Buffer `i` of a leaf is at `o + Σ j_d·W_d + k·U` with the subtile digits `j_d` of its
//! shared ancestors (innermost fastest) and buffer group `k` (of the tree, or of the pool child
//! it sits in, with that child's `U_c`) — a [`BufferMap`].

use rustc_hash::FxHashMap;
use std::cell::RefCell;

use linear_layout::address::align_up_saturating;
use linear_layout::BufferMap;

use crate::distinct_packing::{distinct_layout, Child};
use crate::error::map_err;
use crate::plan::{Phase, Placed};
use crate::tree_rules::{check_tree, Counts};
use crate::{
    AllocError, AllocId, AllocPlan, GroupKind, Lifetime, Member, Origin, Program, Reindex,
    ReuseGroup, SpecId, SpecPlan, Storage, Warning,
};

/// Regions and placements of Intended mode (address maps are added later).
pub(crate) fn plan_intended(program: &Program) -> Result<Placed, AllocError> {
    for o in program.overlaps() {
        program.verify_tree(o)?;
    }
    let mut seen = Vec::new();
    for o in program.overlaps() {
        if seen.contains(&o.spec) {
            return Err(AllocError::DuplicateOverlap {
                spec: program.spec(o.spec)?.name.clone(),
            });
        }
        seen.push(o.spec);
    }
    let mut specs = Vec::new();
    let mut allocs = Vec::new();
    let mut warnings = Vec::new();
    for (id, s) in program.specs() {
        let users = program.users(id);
        if users.is_empty() {
            warnings.push(Warning::UnusedSpec {
                spec: s.name.clone(),
            });
            continue;
        }
        let region = specs.len();
        let tree = program.last_tree(id).cloned();
        let mut phases = Vec::new();
        let (units, group_stride, groups) = match &tree {
            Some(t) => {
                let (facts, issues) = check_tree(program, id, t)?;
                if let Some(first) = issues.into_iter().next() {
                    return Err(first);
                }
                for (first, counts) in &facts.pools {
                    warnings.push(Warning::PhasePool {
                        spec: s.name.clone(),
                        first: first.clone(),
                        counts: counts.clone(),
                    });
                }
                let sizer = Sizer::new(program, t, facts.counts)?;
                let sized = sizer.group(t)?;
                let u = align_up_saturating(sized.size, sized.align);
                let groups = sizer.counts.group(t);
                let mut place = Placer {
                    program,
                    sizer: &sizer,
                    region,
                    out: &mut allocs,
                    phases: &mut phases,
                    warnings: &mut warnings,
                    spec: &s.name,
                };
                place.group(t, 0, &[], (groups, u))?;
                // The last group needs no padding after its content.
                let backing = u
                    .saturating_mul(groups.saturating_sub(1))
                    .saturating_add(sized.size);
                (backing, Some(u), Some(groups))
            }
            None => (no_tree(program, &users, region, &mut allocs)?, None, None),
        };
        let mut rows = 0;
        if s.storage == Storage::Tmem {
            for u in &users {
                rows = rows.max(program.allocation(*u)?.tmem_rows()?);
            }
        }
        let (backing_units, buffer_size_bytes) = sized_backing(program, id, units, rows)?;
        specs.push(SpecPlan {
            name: s.name.clone(),
            origin: Origin::Spec(id),
            storage: s.storage,
            backing_units,
            rows,
            backing_shape: match s.storage {
                Storage::Tmem => vec![rows, backing_units],
                _ => vec![backing_units],
            },
            buffer_size_bytes,
            group_stride,
            groups,
            tree,
            members: users,
            phases,
        });
    }
    Ok(Placed {
        specs,
        allocs,
        warnings,
    })
}

/// Applies an explicit `buffer_size_bytes`: it must hold the plan, and may enlarge it.
fn sized_backing(
    program: &Program,
    spec: SpecId,
    units: u64,
    rows: u64,
) -> Result<(u64, u64), AllocError> {
    let s = program.spec(spec)?;
    let bytes_per_unit = match s.storage {
        Storage::Tmem => rows.saturating_mul(4).max(1),
        _ => 1,
    };
    let required = units.saturating_mul(bytes_per_unit);
    match s.size {
        Some(e) if e < required => Err(AllocError::ExplicitSizeTooSmall {
            spec: s.name.clone(),
            size: e,
            required,
        }),
        Some(e) => Ok((units.max(e / bytes_per_unit), e)),
        None => Ok((units, required)),
    }
}

/// Without a tree every allocation starts at 0 with its own buffer stride (TLX's fallback).
fn no_tree(
    program: &Program,
    users: &[AllocId],
    region: usize,
    out: &mut Vec<AllocPlan>,
) -> Result<u64, AllocError> {
    let mut total = 0u64;
    for u in users {
        let a = program.allocation(*u)?;
        let unit = a.units_per_buffer()?;
        a.check_buffer_stride(unit, "without a reuse tree,")?;
        total = total.max(unit.saturating_mul(a.num));
        out.push(leaf_plan(
            program,
            *u,
            region,
            map_err(BufferMap::new(0, &[(a.num, unit)]))?,
            None,
        )?);
    }
    Ok(total)
}

/// A leaf's plan from its buffer map; the reindexing exists when the map is in whole buffers.
/// `sized`: its size and alignment where the tree's sizing has them already.
fn leaf_plan(
    program: &Program,
    id: AllocId,
    region: usize,
    map: BufferMap,
    sized: Option<Sized>,
) -> Result<AllocPlan, AllocError> {
    let a = program.allocation(id)?;
    let (unit, alignment) = match sized {
        Some(s) => (s.size, s.align),
        None => (a.units_per_buffer()?, a.alignment()?),
    };
    let whole = unit > 0
        && map.base().is_multiple_of(unit)
        && map
            .modes()
            .iter()
            .all(|(_, stride)| stride.is_multiple_of(unit));
    let reindex = if whole {
        let modes: Vec<(u64, u64)> = map.modes().iter().map(|&(n, d)| (n, d / unit)).collect();
        Some(Reindex::Slots(map_err(BufferMap::new(
            map.base() / unit,
            &modes,
        ))?))
    } else {
        None
    };
    let alias_shape = match &reindex {
        Some(r) => {
            let mut s = vec![r.alias_buffers(a.num)?];
            s.extend(&a.shape);
            Some(s)
        }
        None => None,
    };
    Ok(AllocPlan {
        alloc: id,
        name: a.name.clone(),
        region,
        num: a.num,
        unit,
        alignment,
        explicit: map.clone(),
        placement: map,
        reindex,
        alias_shape,
        address_map: None,
    })
}

/// Size and alignment of a node.
#[derive(Debug, Clone, Copy)]
struct Sized {
    size: u64,
    align: u64,
    /// Hull of the leaves' lifetimes; `None` when one of them has none.
    lifetime: Option<Lifetime>,
}

/// Sizes of a tree's nodes; each leaf's size and alignment are computed once.
struct Sizer {
    leaves: FxHashMap<AllocId, Sized>,
    counts: Counts,
    /// Offsets and size of each distinct group, solved once (keyed by the node's address,
    /// stable while the tree is borrowed).
    distinct: RefCell<FxHashMap<*const ReuseGroup, (Vec<u64>, u64)>>,
}

impl Sizer {
    fn new(program: &Program, tree: &ReuseGroup, counts: Counts) -> Result<Self, AllocError> {
        let mut leaves = FxHashMap::default();
        for id in tree.allocations() {
            let a = program.allocation(id)?;
            leaves.insert(
                id,
                Sized {
                    size: a.units_per_buffer()?,
                    align: a.alignment()?,
                    lifetime: program.lifetime(id),
                },
            );
        }
        Ok(Sizer {
            leaves,
            counts,
            distinct: RefCell::new(FxHashMap::default()),
        })
    }

    fn member(&self, m: &Member) -> Result<Sized, AllocError> {
        match m {
            Member::Alloc(a) => self.leaves.get(a).copied().ok_or(AllocError::UnknownId {
                what: "allocation",
                index: a.index(),
                count: self.leaves.len(),
            }),
            Member::Group(g) => self.group(g),
        }
    }

    /// A member as its group lays it out: with all its own buffer groups in a phase pool, one
    /// buffer group otherwise.
    fn child(&self, g: &ReuseGroup, c: &Member) -> Result<Sized, AllocError> {
        let s = self.member(c)?;
        if !self.counts.pooled(g) {
            return Ok(s);
        }
        let groups = self.counts.of(c);
        let u = align_up_saturating(s.size, s.align);
        Ok(Sized {
            size: u
                .saturating_mul(groups.saturating_sub(1))
                .saturating_add(s.size),
            ..s
        })
    }

    fn group(&self, g: &ReuseGroup) -> Result<Sized, AllocError> {
        let mut align = 1;
        let mut size = 0;
        let mut lifetime: Option<Option<Lifetime>> = None;
        for c in &g.members {
            let s = self.child(g, c)?;
            align = align.max(s.align);
            lifetime = Some(match (lifetime, s.lifetime) {
                (None, l) => l,
                (Some(Some(a)), Some(b)) => Some(a.hull(&b)),
                _ => None,
            });
            if g.kind == GroupKind::Shared {
                size = size.max(s.size);
            }
        }
        match g.kind {
            GroupKind::Shared if g.group_size > 1 => {
                let w = align_up_saturating(size, align);
                size = w.saturating_mul(g.group_size - 1).saturating_add(size);
            }
            GroupKind::Shared => {}
            GroupKind::Distinct => size = self.distinct_offsets(g)?.1,
        }
        Ok(Sized {
            size,
            align,
            lifetime: lifetime.flatten(),
        })
    }

    /// Where a distinct group puts its children, and its size.
    fn distinct_offsets(&self, g: &ReuseGroup) -> Result<(Vec<u64>, u64), AllocError> {
        let key: *const ReuseGroup = g;
        if let Some(done) = self.distinct.borrow().get(&key) {
            return Ok(done.clone());
        }
        let children = g
            .members
            .iter()
            .map(|c| {
                let s = self.member(c)?;
                Ok(Child {
                    size: s.size,
                    align: s.align,
                    lifetime: s.lifetime,
                })
            })
            .collect::<Result<Vec<_>, AllocError>>()?;
        let layout = distinct_layout(&children)?;
        self.distinct.borrow_mut().insert(key, layout.clone());
        Ok(layout)
    }

    /// The slot width of a shared group: its largest child, aligned.
    fn slot_width(&self, g: &ReuseGroup) -> Result<u64, AllocError> {
        let (mut size, mut align) = (0, 1);
        for c in &g.members {
            let s = self.member(c)?;
            size = size.max(s.size);
            align = align.max(s.align);
        }
        Ok(align_up_saturating(size, align))
    }
}

struct Placer<'a, 'p> {
    program: &'p Program,
    sizer: &'a Sizer,
    region: usize,
    out: &'a mut Vec<AllocPlan>,
    phases: &'a mut Vec<Phase>,
    warnings: &'a mut Vec<Warning>,
    spec: &'a str,
}

impl Placer<'_, '_> {
    /// Places `m` at `offset`; `groups` is the buffer-group mode (count, stride) its leaves
    /// take: the tree's, or that of the phase-pool child they sit in.
    fn member(
        &mut self,
        m: &Member,
        offset: u64,
        subtiles: &[(u64, u64)],
        groups: (u64, u64),
    ) -> Result<(), AllocError> {
        match m {
            Member::Alloc(a) => {
                let mut modes: Vec<(u64, u64)> = subtiles.iter().rev().copied().collect();
                modes.push(groups);
                let map = map_err(BufferMap::new(offset, &modes))?;
                let sized = self.sizer.member(m)?;
                let plan = leaf_plan(self.program, *a, self.region, map, Some(sized))?;
                self.out.push(plan);
                Ok(())
            }
            Member::Group(g) => self.group(g, offset, subtiles, groups),
        }
    }

    /// Says which members of the distinct group `g` at `offset`, its members at `offsets` in
    /// it, share bytes (only disjoint lifetimes let them: [`Warning::SharedByLifetime`]).
    fn shared_by_lifetime(
        &mut self,
        g: &ReuseGroup,
        offset: u64,
        offsets: &[u64],
    ) -> Result<(), AllocError> {
        let mut placed = Vec::with_capacity(g.members.len());
        for (c, &at) in g.members.iter().zip(offsets) {
            let s = self.sizer.member(c)?;
            let first = match c {
                Member::Alloc(a) => Some(*a),
                Member::Group(inner) => inner.allocations().first().copied(),
            };
            let name = match first {
                Some(a) => self.program.allocation(a)?.name.clone(),
                None => continue,
            };
            let start = offset.saturating_add(at);
            placed.push((name, start, start.saturating_add(s.size), s.lifetime));
        }
        let live = |l: &Option<Lifetime>| l.map_or("always".to_string(), |l| l.to_string());
        for (i, (a, a0, a1, la)) in placed.iter().enumerate() {
            for (b, b0, b1, lb) in placed.iter().skip(i + 1) {
                let (start, end) = (*a0.max(b0), *a1.min(b1));
                if start < end {
                    self.warnings.push(Warning::SharedByLifetime {
                        spec: self.spec.to_owned(),
                        first: a.clone(),
                        first_live: live(la),
                        second: b.clone(),
                        second_live: live(lb),
                        start,
                        end,
                    });
                }
            }
        }
        Ok(())
    }

    fn group(
        &mut self,
        g: &ReuseGroup,
        offset: u64,
        subtiles: &[(u64, u64)],
        groups: (u64, u64),
    ) -> Result<(), AllocError> {
        let sizer = self.sizer;
        match g.kind {
            GroupKind::Shared if sizer.counts.pooled(g) => {
                for c in &g.members {
                    let s = sizer.member(c)?;
                    let own = (sizer.counts.of(c), align_up_saturating(s.size, s.align));
                    self.phases.push(Phase {
                        allocs: match c {
                            Member::Alloc(a) => vec![*a],
                            Member::Group(g) => g.allocations(),
                        },
                        offset,
                        groups: own.0,
                        stride: own.1,
                    });
                    self.member(c, offset, subtiles, own)?;
                }
            }
            GroupKind::Shared => {
                let mut inner = subtiles.to_vec();
                if g.group_size > 1 {
                    inner.push((g.group_size, sizer.slot_width(g)?));
                }
                for c in &g.members {
                    self.member(c, offset, &inner, groups)?;
                }
            }
            GroupKind::Distinct => {
                let (offsets, _) = sizer.distinct_offsets(g)?;
                self.shared_by_lifetime(g, offset, &offsets)?;
                for (c, at) in g.members.iter().zip(offsets) {
                    self.member(c, offset.saturating_add(at), subtiles, groups)?;
                }
            }
        }
        Ok(())
    }
}
