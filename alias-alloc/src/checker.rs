//! The independent checker: verifies a finished [`Plan`] from the program and the plan's
//! buffer starts alone, sharing no code with the planner (as regalloc2's checker does).
//!
//! **What a correct plan is.** Let buffer `i` of allocation `a` occupy the interval
//! `[start(a, i), start(a, i) + extent(a))` of its region, where `start` is the plan's
//! placement and `extent` what one buffer's element layout spans (bytes, or TMEM columns).
//! Give each `(a, i)` its coordinates in the reuse tree: the buffer group `k` and, for each
//! shared ancestor `g` with `group_size > 1`, the subtile digit `j_g` (mixed radix, innermost
//! fastest: `i = j_inner + k_inner · (… + k_outer · k)`). Then:
//! 1. two different `(a, i)`, `(b, j)` of one region may overlap only when `a` and `b` have
//!    disjoint [lifetimes](crate::Lifetime), or when `a ≠ b`, their
//!    lowest common ancestor is a `shared` group, and they agree on `k` and on every subtile
//!    digit of the common ancestors (a `distinct` ancestor keeps its children apart at the
//!    same index; different indices never share memory) — or their lowest common ancestor is
//!    a phase pool, a `shared` group without `group_size` whose children have different
//!    buffer-group counts (`num` over the subtile group sizes above it; a group's count is
//!    its children's common one, or 1 for a pool), whose children are never live together
//!    at all — a pool being one buffer group (`k = 0`) to the groups above it; without a
//!    tree, only buffers of one allocation are kept apart;
//! 2. every interval lies inside the region's backing;
//! 3. every `start(a, i)` is a multiple of the alignment `a`'s layout needs;
//! 4. where the layout has a hardware swizzle, the address with the swizzle outside
//!    (`Sw(start + linear(x))`, what TMA and wgmma compute) equals the one with the swizzle
//!    inside (`start + Sw(linear(x))`, what the planner's map says) for every element;
//! 5. every TMEM buffer starts at lane 0 and stays within the 128 lanes: the data-path lane
//!    alignment every `tcgen05.mma` layout accepts, the same for its `A` and `D` (PTX ISA 9.0
//!    §9.7.16.10.5). Column starts need none (`docs/tmem-placement.md` cites why).

use rustc_hash::{FxHashMap, FxHashSet};
use std::fmt;

use linear_layout::address::MemorySpace;
use linear_layout::families::tmem::TMEM_LANES;

use crate::{AllocId, GroupKind, Member, Plan, Program, ReuseGroup, Storage};

/// Most buffers (all allocations together) one check examines; no GPU has memory for more.
pub const MAX_BUFFERS: u64 = 1 << 20;

/// Most violations one check lists; the rest are counted in a final [`Violation::Incomplete`].
pub const MAX_VIOLATIONS: usize = 64;

/// One way a plan is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Violation {
    /// Two buffers that must be disjoint overlap.
    Overlap {
        /// The first allocation.
        a: String,
        /// Its buffer index.
        i: u64,
        /// The second allocation.
        b: String,
        /// Its buffer index.
        j: u64,
        /// Start of the overlap, in plan units.
        from: u64,
        /// End of the overlap (exclusive).
        to: u64,
        /// Why they must be disjoint.
        rule: &'static str,
    },
    /// A buffer that ends past its region's backing.
    OutsideBacking {
        /// The allocation.
        alloc: String,
        /// Its buffer index.
        index: u64,
        /// Where the buffer ends, in plan units.
        end: u64,
        /// Where the backing ends.
        backing: u64,
    },
    /// A buffer start that is not a multiple of its layout's alignment.
    Misaligned {
        /// The allocation.
        alloc: String,
        /// Its buffer index.
        index: u64,
        /// Where the buffer starts, in plan units.
        start: u64,
        /// The alignment its layout needs.
        alignment: u64,
    },
    /// The swizzle-outside and swizzle-inside addresses of an element differ.
    SwizzleDisagrees {
        /// The allocation.
        alloc: String,
        /// Its buffer index.
        index: u64,
        /// The element's coordinates in the tile.
        coords: Vec<u64>,
        /// Its address with the swizzle applied inside the buffer (what the layout says).
        inside: u64,
        /// Its address with the swizzle applied to the whole address (what the hardware does).
        outside: u64,
    },
    /// A TMEM allocation whose element layout spans more than the 128 lanes.
    TmemLanes {
        /// The allocation.
        alloc: String,
        /// How many lanes its element layout spans.
        lanes: u64,
    },
    /// The plan lacks something the program has (or cannot evaluate it).
    Incomplete {
        /// What is missing.
        what: String,
    },
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Violation::Overlap { a, i, b, j, from, to, rule } => {
                write!(f, "{a}[{i}] and {b}[{j}] overlap at [{from}, {to}) ({rule})")
            }
            Violation::OutsideBacking { alloc, index, end, backing } => write!(
                f,
                "{alloc}[{index}] ends at {end}, past the backing's {backing}"
            ),
            Violation::Misaligned { alloc, index, start, alignment } => write!(
                f,
                "{alloc}[{index}] starts at {start}, not a multiple of its alignment {alignment}"
            ),
            Violation::SwizzleDisagrees { alloc, index, coords, inside, outside } => write!(
                f,
                "{alloc}[{index}] element {coords:?}: swizzle inside gives {inside}, outside {outside}"
            ),
            Violation::TmemLanes { alloc, lanes } => write!(
                f,
                "{alloc} spans {lanes} lanes; tensor memory has 128 (PTX ISA §9.7.16.1)"
            ),
            Violation::Incomplete { what } => write!(f, "incomplete plan: {what}"),
        }
    }
}

/// Every violation of the rules above in `plan` (empty: the plan is correct).
///
/// ```
/// use alias_alloc::{checker::check, DType, Mode, PlanOptions, Program, ReuseGroup, Storage};
/// let mut p = Program::new();
/// let s = p.storage_alias_spec("s", Storage::Smem, None)?;
/// let a = p.local_alloc("a", &[64, 64], DType::F32, 2, s)?;
/// let b = p.local_alloc("b", &[64, 64], DType::BF16, 2, s)?;
/// p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
/// let mut plan = p.plan(&PlanOptions::new(Mode::Intended))?;
/// assert!(check(&p, &plan).is_empty());
/// // Move b onto a: the checker notices, and names the buffers, the bytes and the rule.
/// plan.allocs[1].placement = plan.allocs[0].placement.clone();
/// let first = check(&p, &plan).first().map(ToString::to_string);
/// assert_eq!(first.as_deref(), Some("b[0] and a[0] overlap at [0, 8192) (members of a distinct group)"));
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn check(program: &Program, plan: &Plan) -> Vec<Violation> {
    let mut out = Vec::new();
    check_into(program, plan, &mut out);
    capped(out)
}

/// [`check`]'s violations appended to `out`, the scan for overlaps stopping once `out` is over
/// the cap.
fn check_into(program: &Program, plan: &Plan, out: &mut Vec<Violation>) {
    let total: u64 = program
        .allocations()
        .map(|(_, a)| a.num)
        .fold(0, u64::saturating_add);
    if total > MAX_BUFFERS {
        out.push(Violation::Incomplete {
            what: format!("{total} buffers are more than the {MAX_BUFFERS} the checker examines"),
        });
        return;
    }
    let mut by_region: FxHashMap<usize, Vec<Buffer>> = FxHashMap::default();
    for (id, alloc) in program.allocations() {
        let Some(p) = plan.allocs.iter().find(|p| p.alloc == id) else {
            out.push(Violation::Incomplete {
                what: format!("no placement for '{}'", alloc.name),
            });
            continue;
        };
        let extent = extent(alloc, p);
        let alignment = p
            .address_map
            .as_ref()
            .map_or(1, |m| m.required_alignment())
            .max(alloc.alignment().unwrap_or(1));
        let Some(region) = plan.specs.get(p.region) else {
            out.push(Violation::Incomplete {
                what: format!(
                    "'{}' is in region {} of {}",
                    alloc.name,
                    p.region,
                    plan.specs.len()
                ),
            });
            continue;
        };
        for i in 0..alloc.num {
            let start = match p.placement.offset(i) {
                Ok(s) => s,
                Err(e) => {
                    out.push(Violation::Incomplete {
                        what: format!("{}[{i}]: {e}", alloc.name),
                    });
                    continue;
                }
            };
            let end = start.saturating_add(extent);
            if end > region.backing_units {
                out.push(Violation::OutsideBacking {
                    alloc: alloc.name.clone(),
                    index: i,
                    end,
                    backing: region.backing_units,
                });
            }
            if start % alignment != 0 {
                out.push(Violation::Misaligned {
                    alloc: alloc.name.clone(),
                    index: i,
                    start,
                    alignment,
                });
            }
            by_region.entry(p.region).or_default().push(Buffer {
                alloc: id,
                index: i,
                start,
                end,
            });
        }
        check_swizzle(&alloc.name, alloc.num, p, out);
        check_tmem_lanes(&alloc.name, p, out);
    }
    let mut regions: Vec<(usize, Vec<Buffer>)> = by_region.into_iter().collect();
    regions.sort_by_key(|(r, _)| *r);
    'regions: for (region, mut buffers) in regions {
        let tree = plan.specs.get(region).and_then(|s| s.tree.as_ref());
        let coords = tree.map(|t| Coordinates::new(program, t));
        buffers.sort_by_key(|b| (b.start, b.end));
        let mut rest = buffers.as_slice();
        while let Some((x, later)) = rest.split_first() {
            rest = later;
            for y in later {
                if y.start >= x.end {
                    break;
                }
                // An empty buffer overlaps nothing. (An empty `x` never gets here: sorted by
                // start, every later `y` starts at or past `x.start = x.end`.)
                if y.start == y.end {
                    continue;
                }
                if program.never_live_together(x.alloc, y.alloc) {
                    continue;
                }
                let rule = match &coords {
                    Some(c) => c.must_be_disjoint(program, x, y),
                    None if x.alloc == y.alloc => Some("different buffers of one allocation"),
                    None => None,
                };
                if let Some(rule) = rule {
                    out.push(overlap(program, x, y, rule));
                    if over_cap(out) {
                        break 'regions;
                    }
                }
            }
        }
    }
}

/// Whether `out` holds more violations than one check lists. The scans for overlapping pairs
/// stop there: enough to reject the plan, and scanning on could take quadratic time.
fn over_cap(out: &[Violation]) -> bool {
    out.len() > MAX_VIOLATIONS
}

/// `out` cut to [`MAX_VIOLATIONS`], with an [`Violation::Incomplete`] saying so when it was over.
fn capped(mut out: Vec<Violation>) -> Vec<Violation> {
    if over_cap(&out) {
        out.truncate(MAX_VIOLATIONS);
        out.push(Violation::Incomplete {
            what: format!("more than {MAX_VIOLATIONS} violations; the rest are not listed"),
        });
    }
    out
}

/// Every violation of a packed plan: the rules above inside each region, and across the
/// regions of an arena (**5.** two buffers of different regions whose allocations may be live
/// at the same time — both lifetimes known and overlapping, or one unknown — are disjoint in
/// the arena; **6.** every region lies inside the arena's capacity, on its alignment). Uses
/// the arena's region offsets and the plan's placements only, not the solver.
///
/// ```
/// use alias_alloc::{checker::check_packed, DType, PackOptions, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// let a = p.plain_alloc("a", &[64, 64], DType::F16, 1, Storage::Smem)?;
/// let b = p.plain_alloc("b", &[64, 64], DType::F16, 1, Storage::Smem)?;
/// p.set_lifetime(a, 0, 2)?;
/// p.set_lifetime(b, 1, 3)?;
/// let mut packed = p.pack(&PackOptions::new(PlanOptions::default()))?;
/// assert!(check_packed(&p, &packed).is_empty());
/// for s in &mut packed.arenas[0].slots { s.offset = 0; } // both live at point 1
/// assert!(!check_packed(&p, &packed).is_empty());
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn check_packed(program: &Program, packed: &crate::PackedPlan) -> Vec<Violation> {
    let mut out = Vec::new();
    check_into(program, &packed.plan, &mut out);
    arenas_into(program, packed, &mut out);
    capped(out)
}

/// Rules 5–6 alone: what packing the regions into arenas may get wrong (the regions' own
/// plans are [`check`]'s).
pub fn check_arenas(program: &Program, packed: &crate::PackedPlan) -> Vec<Violation> {
    let mut out = Vec::new();
    arenas_into(program, packed, &mut out);
    capped(out)
}

/// [`check_arenas`]'s violations appended to `out`, the scan for overlaps stopping once `out`
/// is over the cap.
fn arenas_into(program: &Program, packed: &crate::PackedPlan, out: &mut Vec<Violation>) {
    for arena in &packed.arenas {
        let mut buffers = Vec::new();
        for slot in &arena.slots {
            if slot.offset.saturating_add(slot.units) > arena.capacity {
                out.push(Violation::OutsideBacking {
                    alloc: slot.name.clone(),
                    index: 0,
                    end: slot.offset.saturating_add(slot.units),
                    backing: arena.capacity,
                });
            }
            if slot.alignment == 0 || slot.offset % slot.alignment != 0 {
                out.push(Violation::Misaligned {
                    alloc: slot.name.clone(),
                    index: 0,
                    start: slot.offset,
                    alignment: slot.alignment,
                });
            }
            for p in packed
                .plan
                .allocs
                .iter()
                .filter(|a| a.region == slot.region)
            {
                let Ok(alloc) = program.allocation(p.alloc) else {
                    continue;
                };
                let extent = extent(alloc, p);
                for i in 0..alloc.num {
                    if let Ok(start) = p.placement.offset(i) {
                        let start = slot.offset.saturating_add(start);
                        buffers.push((
                            slot.region,
                            Buffer {
                                alloc: p.alloc,
                                index: i,
                                start,
                                end: start.saturating_add(extent),
                            },
                        ));
                    }
                }
            }
        }
        buffers.sort_by_key(|(_, b)| (b.start, b.end));
        let mut rest = buffers.as_slice();
        while let Some(((rx, x), later)) = rest.split_first() {
            rest = later;
            for (ry, y) in later {
                if y.start >= x.end {
                    break;
                }
                if rx == ry || y.start == y.end {
                    continue;
                }
                if program.never_live_together(x.alloc, y.alloc) {
                    continue;
                }
                out.push(overlap(program, x, y, "regions live at the same time"));
                if over_cap(out) {
                    return;
                }
            }
        }
    }
}

/// The violation of two overlapping buffers, `y` starting inside `x`.
fn overlap(program: &Program, x: &Buffer, y: &Buffer, rule: &'static str) -> Violation {
    let name = |a: AllocId| {
        program
            .allocation(a)
            .map_or_else(|_| String::new(), |a| a.name.clone())
    };
    Violation::Overlap {
        a: name(x.alloc),
        i: x.index,
        b: name(y.alloc),
        j: y.index,
        from: y.start,
        to: x.end.min(y.end),
        rule,
    }
}

#[derive(Debug, Clone, Copy)]
struct Buffer {
    alloc: AllocId,
    index: u64,
    start: u64,
    end: u64,
}

/// What one buffer spans: from its address map, else its bytes (or the plan's TMEM unit for a
/// layout without a GF(2) form).
fn extent(alloc: &crate::Allocation, p: &crate::AllocPlan) -> u64 {
    if let Some(m) = &p.address_map {
        return m.element_span();
    }
    match alloc.storage {
        Storage::Tmem => p.unit,
        _ => alloc
            .shape
            .iter()
            .product::<u64>()
            .saturating_mul(u64::from(alloc.dtype.bits()))
            .div_ceil(8),
    }
}

/// Rule 5. Only the span can be wrong: a buffer map moves TMEM buffers along columns, and a
/// linear layout maps element `(0, …, 0)` to lane 0, so every buffer starts at lane 0.
fn check_tmem_lanes(name: &str, p: &crate::AllocPlan, out: &mut Vec<Violation>) {
    let Some(map) = &p.address_map else { return };
    if map.space() != MemorySpace::TensorMemory {
        return;
    }
    let lanes = map.element().out_dim_size("lane").unwrap_or(1);
    if lanes > u64::from(TMEM_LANES) {
        out.push(Violation::TmemLanes {
            alloc: name.to_string(),
            lanes,
        });
    }
}

/// Rule 4 on every element of every buffer (up to 2^16 evaluations per allocation; beyond
/// that, the first and last buffer), each buffer at its placement (where the kernel puts it,
/// which in TLX mode need not be where the map's explicit lowering would).
fn check_swizzle(name: &str, num: u64, p: &crate::AllocPlan, out: &mut Vec<Violation>) {
    let Some(map) = &p.address_map else { return };
    if map.hardware_swizzle().is_none() {
        return;
    }
    let map = map.with_buffer(p.placement.clone());
    let dims: Vec<u64> = map.element().in_dims().iter().map(|(_, s)| *s).collect();
    let elements: u64 = dims.iter().product();
    let indices: Vec<u64> = if elements.saturating_mul(num) <= 1 << 16 {
        (0..num).collect()
    } else {
        vec![0, num.saturating_sub(1)]
    };
    for i in indices {
        for flat in 0..elements.min(1 << 16) {
            let mut coords = Vec::with_capacity(dims.len());
            let mut rest = flat;
            for d in &dims {
                coords.push(rest % d);
                rest /= d;
            }
            let inside = map.address(i, &coords).ok().and_then(|a| a.byte());
            let outside = map.address_outside(i, &coords).ok().and_then(|a| a.byte());
            if inside != outside {
                out.push(Violation::SwizzleDisagrees {
                    alloc: name.to_string(),
                    index: i,
                    coords,
                    inside: inside.unwrap_or(u64::MAX),
                    outside: outside.unwrap_or(u64::MAX),
                });
                return;
            }
        }
    }
}

/// Tree coordinates of every leaf: its path of (group kind, group size) from the root, and
/// the phase pools (by pre-order number).
struct Coordinates {
    /// By allocation index; `None` for an allocation outside the tree.
    paths: Vec<Option<Vec<Step>>>,
    /// By group (pre-order number): whether it is a phase pool.
    pools: Vec<bool>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Step {
    /// Identity of the group (pre-order number).
    group: usize,
    kind: GroupKind,
    group_size: u64,
}

impl Coordinates {
    fn new(program: &Program, tree: &ReuseGroup) -> Self {
        let mut by_id = FxHashMap::default();
        let mut counter = 0;
        Self::walk(tree, &mut Vec::new(), &mut counter, &mut by_id);
        let mut pools = FxHashSet::default();
        let mut counter = 0;
        Self::count(program, tree, &by_id, &mut counter, &mut pools);
        let mut paths = vec![None; program.allocations().count()];
        for (id, path) in by_id {
            if let Some(slot) = paths.get_mut(id.index()) {
                *slot = Some(path);
            }
        }
        Coordinates {
            paths,
            pools: (0..counter).map(|g| pools.contains(&g)).collect(),
        }
    }

    fn path(&self, a: AllocId) -> Option<&[Step]> {
        self.paths.get(a.index()).and_then(|p| p.as_deref())
    }

    fn is_pool(&self, group: usize) -> bool {
        self.pools.get(group).copied().unwrap_or(false)
    }

    /// Buffer groups of `g` (its children's common count, 1 for a pool), recording pools.
    fn count(
        program: &Program,
        g: &ReuseGroup,
        paths: &FxHashMap<AllocId, Vec<Step>>,
        counter: &mut usize,
        pools: &mut FxHashSet<usize>,
    ) -> u64 {
        let id = *counter;
        *counter += 1;
        let counts: Vec<u64> = g
            .members
            .iter()
            .map(|m| match m {
                Member::Alloc(a) => {
                    let subtiles: u64 = paths
                        .get(a)
                        .map_or(1, |p| p.iter().map(|s| s.group_size).product());
                    program
                        .allocation(*a)
                        .map_or(1, |x| x.num / subtiles.max(1))
                }
                Member::Group(c) => Self::count(program, c, paths, counter, pools),
            })
            .collect();
        let mixed = counts.iter().any(|c| Some(c) != counts.first());
        if mixed && g.kind == GroupKind::Shared && g.group_size <= 1 {
            pools.insert(id);
            return 1;
        }
        counts.first().copied().unwrap_or(1)
    }

    fn walk(
        g: &ReuseGroup,
        path: &mut Vec<Step>,
        counter: &mut usize,
        out: &mut FxHashMap<AllocId, Vec<Step>>,
    ) {
        path.push(Step {
            group: *counter,
            kind: g.kind,
            group_size: if g.kind == GroupKind::Shared {
                g.group_size.max(1)
            } else {
                1
            },
        });
        *counter += 1;
        for m in &g.members {
            match m {
                Member::Alloc(a) => {
                    out.insert(*a, path.clone());
                }
                Member::Group(c) => Self::walk(c, path, counter, out),
            }
        }
        path.pop();
    }

    /// The product of the group sizes along `steps` (saturating: a product past `u64::MAX`
    /// exceeds every buffer index, which is all its uses need).
    fn size(steps: &[Step]) -> u64 {
        steps
            .iter()
            .fold(1u64, |p, s| p.saturating_mul(s.group_size))
    }

    /// Why `x` and `y` must not overlap, or `None` when the tree lets them.
    fn must_be_disjoint(&self, _program: &Program, x: &Buffer, y: &Buffer) -> Option<&'static str> {
        if x.alloc == y.alloc {
            return Some("different buffers of one allocation");
        }
        let (Some(px), Some(py)) = (self.path(x.alloc), self.path(y.alloc)) else {
            return Some("an allocation outside the reuse tree");
        };
        let common = px
            .iter()
            .zip(py)
            .take_while(|(a, b)| a.group == b.group)
            .count();
        let lca = common.checked_sub(1).and_then(|c| px.get(c))?;
        if self.is_pool(lca.group) {
            return None;
        }
        // Buffer i's subtile digits along its path (outermost first) are i written in the
        // mixed radix of the path's group sizes, and what is left above them is its buffer
        // group. The first `common` steps are the same groups for both leaves, so the digits
        // there and the buffer group agree exactly when the quotients by the sizes below the
        // common part agree: modulo the common part's size (digits) and divided by it (group).
        let common_size = px.get(..common).map_or(1, Self::size);
        let above = |p: &[Step], i: u64| i / p.get(common..).map_or(1, Self::size);
        let (qx, qy) = (above(px, x.index), above(py, y.index));
        // A pool between the common ancestor and a leaf is one buffer group to that ancestor:
        // all its children's buffers are its group 0.
        let pooled = |p: &[Step]| p.iter().skip(common).any(|s| self.is_pool(s.group));
        let kx = if pooled(px) { 0 } else { qx / common_size };
        let ky = if pooled(py) { 0 } else { qy / common_size };
        if kx != ky {
            return Some("different buffer groups");
        }
        if qx % common_size != qy % common_size {
            return Some("different subtiles of a shared group");
        }
        match lca.kind {
            GroupKind::Distinct => Some("members of a distinct group"),
            GroupKind::Shared => None,
        }
    }
}
