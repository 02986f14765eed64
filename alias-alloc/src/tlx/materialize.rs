//! TLX step 3 (`StorageAliasAllocation.cpp`) and the driver of the three steps: backings,
//! divisibility checks, scale and offset, alias shapes, index rewrites — plus the warnings
//! that say where TLX's result differs from the documented meaning.

use rustc_hash::FxHashMap;

use linear_layout::BufferMap;

use super::offsets::{offsets_and_sizes, TlxOffset};
use super::size::{backing, TlxBacking};
use crate::error::map_err;
use crate::plan::Placed;
use crate::tree_rules::check_tree;
use crate::{
    AllocError, AllocPlan, Origin, Program, Reindex, Reuse, SpecPlan, Storage, TlxRewrite, Warning,
};

/// Runs TLX's three steps over `program`, failing with TLX's first error.
pub(crate) fn plan_tlx(program: &Program) -> Result<Placed, AllocError> {
    for o in program.overlaps() {
        program.verify_tree(o)?;
    }
    let mut warnings = Vec::new();
    // Step 1.
    let mut backings: Vec<Option<TlxBacking>> = Vec::new();
    for (id, s) in program.specs() {
        let b = backing(program, id)?;
        if b.is_none() {
            warnings.push(Warning::UnusedSpec {
                spec: s.name.clone(),
            });
        }
        backings.push(b);
    }
    // Step 2.
    let mut map: FxHashMap<crate::AllocId, TlxOffset> = FxHashMap::default();
    let mut strides = FxHashMap::default();
    // The TMEM leaves' columns, as the offset walk computed them.
    let mut tmem_columns: FxHashMap<crate::AllocId, u64> = FxHashMap::default();
    let mut done = Vec::new();
    for o in program.overlaps() {
        let spec = program.spec(o.spec)?;
        if done.contains(&o.spec) {
            return Err(AllocError::DuplicateOverlap {
                spec: spec.name.clone(),
            });
        }
        done.push(o.spec);
        let (units, leaves, sizes) = offsets_and_sizes(program, &o.tree, spec.storage)?;
        strides.insert(o.spec, units);
        map.extend(leaves);
        if spec.storage == Storage::Tmem {
            tmem_columns.extend(sizes.into_iter().map(|(id, (cols, _))| (id, cols)));
        }
    }
    // Step 3: backings first (an unused spec fails here), then each allocation in order.
    let mut specs = Vec::new();
    for ((id, s), b) in program.specs().zip(&backings) {
        let Some(b) = b else {
            return Err(AllocError::UnusedSpec {
                spec: s.name.clone(),
            });
        };
        if let (Storage::Tmem, [_, bn]) = (s.storage, b.shape.as_slice()) {
            let message = if !bn.is_power_of_two() {
                Some(format!("blockN must be a power of 2 but got {bn}"))
            } else if *bn > 512 {
                Some(format!(
                    "blockN must be less than or equal to 512 but got {bn}"
                ))
            } else {
                None
            };
            if let Some(message) = message {
                return Err(AllocError::Verifier {
                    what: format!("spec '{}' backing tensor_memory_encoding", s.name),
                    message,
                });
            }
        }
        let tree = program.last_tree(id).cloned();
        let (mut group_stride, mut groups) = (None, None);
        if let Some(t) = &tree {
            let (facts, issues) = check_tree(program, id, t)?;
            warnings.extend(issues.into_iter().map(Warning::AcceptedByTlx));
            groups = Some(facts.groups);
            group_stride = strides.get(&id).copied();
            if let Some((first, count)) = &b.first_user_count {
                if *count != facts.groups {
                    warnings.push(Warning::FirstUserBufferCount {
                        spec: s.name.clone(),
                        first: first.clone(),
                        count: *count,
                        tree_groups: facts.groups,
                    });
                }
            }
        }
        let (backing_units, rows) = match (s.storage, b.shape.as_slice()) {
            (Storage::Tmem, [bm, bn]) => (*bn, *bm),
            (_, [bytes]) => (*bytes, 0),
            _ => (0, 0),
        };
        specs.push(SpecPlan {
            name: s.name.clone(),
            origin: Origin::Spec(id),
            storage: s.storage,
            backing_units,
            rows,
            backing_shape: b.shape.clone(),
            buffer_size_bytes: b.buffer_size_bytes,
            group_stride,
            groups,
            tree,
            members: program.users(id),
            phases: Vec::new(),
        });
    }
    let mut allocs = Vec::new();
    for (id, a) in program.allocations() {
        let Reuse::Spec(spec) = a.reuse else {
            continue;
        };
        let unit = match a.storage {
            Storage::Tmem => match tmem_columns.get(&id) {
                Some(&cols) => cols,
                None => a.tmem_columns()?,
            },
            _ => a.tlx_unit_bytes(),
        };
        if unit == 0 {
            return Err(a.shape_error("one buffer is smaller than one byte"));
        }
        let (rewrite, explicit) = match map.get(&id) {
            Some(o) => {
                if o.units % unit != 0 {
                    return Err(AllocError::UnitsNotMultiple {
                        alloc: a.name.clone(),
                        units: o.units,
                        unit,
                    });
                }
                if o.offset % unit != 0 {
                    return Err(AllocError::OffsetNotMultiple {
                        alloc: a.name.clone(),
                        offset: o.offset,
                        unit,
                    });
                }
                let (scale, offset) = (o.units / unit, o.offset / unit);
                let r = TlxRewrite {
                    scale,
                    offset,
                    group_size: o.group_size,
                };
                (r, documented(o, a.num)?)
            }
            None => (
                TlxRewrite::IDENTITY,
                map_err(BufferMap::new(0, &[(a.num, unit)]))?,
            ),
        };
        let placement = map_err(rewrite.placement(a.num, unit))?;
        let reindex = Reindex::Tlx(rewrite);
        if let Some(i) = probes(&explicit, a.num)
            .into_iter()
            .find(|&i| placement.offset(i).ok() != explicit.offset(i).ok())
        {
            warnings.push(Warning::ModesDisagree {
                alloc: a.name.clone(),
                index: i,
                tlx: map_err(placement.offset(i))?,
                intended: map_err(explicit.offset(i))?,
                unit: a.storage.unit(),
            });
        }
        let mut alias_shape = vec![reindex.alias_buffers(a.num)?];
        alias_shape.extend(&a.shape);
        allocs.push(AllocPlan {
            alloc: id,
            name: a.name.clone(),
            region: spec.index(),
            num: a.num,
            unit,
            alignment: a.alignment()?,
            placement,
            explicit,
            reindex: Some(reindex),
            alias_shape: Some(alias_shape),
            address_map: None,
        });
    }
    rewrite_local_alias(program, &mut specs, &allocs, &mut warnings)?;
    Ok(Placed {
        specs,
        allocs,
        warnings,
    })
}

/// fbtriton's `tlx-rewrite-local-alias`, the pass after the storage-alias lowering: every
/// `tlx.local_alias` becomes a `ttg.memdesc_reinterpret` of the backing, and a backing that an
/// alias view outgrows is re-allocated as the largest alias's type. So what runs has
/// `max(backing, alias_buffers · unit)` units — the verdict on buffers past the pass's backing
/// is taken against that.
fn rewrite_local_alias(
    program: &Program,
    specs: &mut [SpecPlan],
    allocs: &[AllocPlan],
    warnings: &mut Vec<Warning>,
) -> Result<(), AllocError> {
    for spec in specs.iter_mut() {
        let mut largest: Option<(u64, &AllocPlan)> = None;
        for a in allocs.iter().filter(|a| spec.members.contains(&a.alloc)) {
            let buffers = a.alias_shape.as_ref().and_then(|s| s.first()).copied();
            let units = buffers.unwrap_or(a.num).saturating_mul(a.unit);
            if largest.is_none_or(|(u, _)| units > u) {
                largest = Some((units, a));
            }
        }
        if let Some((units, a)) = largest {
            if units > spec.backing_units {
                warnings.push(Warning::BackingGrown {
                    spec: spec.name.clone(),
                    alloc: program.allocation(a.alloc)?.name.clone(),
                    from: spec.backing_units,
                    to: units,
                    unit: spec.storage.unit(),
                });
                // `buffer_size_bytes` stays the pass's: an explicit size is checked against it.
                spec.backing_units = units;
            }
        }
    }
    Ok(())
}

/// The buffer indices where two placements of one allocation can first differ, ascending.
/// Both are affine in each mixed-radix digit of the documented map (TLX's in `j` and `k`), so
/// they agree everywhere iff they agree at 0, at every digit's unit index (the prefix
/// products of the radices) and one past it — a handful of indices whatever `num` is.
fn probes(documented: &BufferMap, num: u64) -> Vec<u64> {
    let mut out = vec![0, 1, 2, 3];
    let mut unit = 1u64;
    for &(size, _) in documented.modes() {
        unit = unit.saturating_mul(size.max(1));
        out.extend([unit.saturating_sub(1), unit, unit.saturating_add(1)]);
    }
    out.push(num.saturating_sub(1));
    out.retain(|&i| i < num);
    out.sort_unstable();
    out.dedup();
    out
}

/// TLX's offsets with the documented subtile rule: subtile digits (innermost fastest) at the
/// widths of their shared groups, buffer groups at `gs · U`.
fn documented(o: &TlxOffset, num: u64) -> Result<BufferMap, AllocError> {
    let mut modes: Vec<(u64, u64)> = o.subtiles.iter().rev().copied().collect();
    let gs = o.group_size.max(1);
    modes.push((num.div_ceil(gs), o.units.saturating_mul(gs)));
    map_err(BufferMap::new(o.offset, &modes))
}
