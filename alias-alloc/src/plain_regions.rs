//! Allocations outside any spec: plain `local_alloc`s and the legacy `reuse = <allocation>`
//! views of them. Each root gets its own region; every view starts at offset 0 and indexes
//! with its own buffer size; the region is the largest view (TLX's `tlx-rewrite-local-alias`).

use linear_layout::BufferMap;

use crate::error::map_err;
use crate::{
    AllocError, AllocId, AllocPlan, Origin, Program, Reindex, Reuse, SpecPlan, Storage, TlxRewrite,
};

/// Regions for plain allocations and their legacy views, numbered from `first_region`.
pub(crate) fn plain_regions(
    program: &Program,
    tlx_units: bool,
    first_region: usize,
) -> Result<(Vec<SpecPlan>, Vec<AllocPlan>), AllocError> {
    let mut specs: Vec<SpecPlan> = Vec::new();
    let mut allocs = Vec::new();
    for (id, a) in program.allocations() {
        let root = match root_of(program, id)? {
            Some(r) => r,
            None => continue,
        };
        let unit = match a.storage {
            Storage::Tmem => a.tmem_columns()?,
            _ if tlx_units => a.tlx_unit_bytes(),
            _ => a.bytes_per_buffer(),
        };
        // TLX-compatible mode places them as TLX does and reports what breaks; Intended refuses.
        if !tlx_units {
            a.check_buffer_stride(unit, "outside any spec,")?;
        }
        let rows = match a.storage {
            Storage::Tmem => a.tmem_rows()?,
            _ => 0,
        };
        let total = unit.saturating_mul(a.num);
        let region = match specs
            .iter()
            .position(|s| s.origin == Origin::Allocation(root))
        {
            Some(r) => r,
            None => {
                specs.push(SpecPlan {
                    name: program.allocation(root)?.name.clone(),
                    origin: Origin::Allocation(root),
                    storage: a.storage,
                    backing_units: 0,
                    rows: 0,
                    backing_shape: vec![],
                    buffer_size_bytes: 0,
                    group_stride: None,
                    groups: None,
                    tree: None,
                    members: vec![],
                    phases: vec![],
                });
                specs.len() - 1
            }
        };
        if let Some(s) = specs.get_mut(region) {
            s.backing_units = s.backing_units.max(total);
            s.rows = s.rows.max(rows);
            s.members.push(id);
            s.backing_shape = match s.storage {
                Storage::Tmem => vec![s.rows, s.backing_units],
                _ => vec![s.backing_units],
            };
            s.buffer_size_bytes = match s.storage {
                Storage::Tmem => s.rows.saturating_mul(s.backing_units).saturating_mul(4),
                _ => s.backing_units,
            };
        }
        let placement = map_err(BufferMap::new(0, &[(a.num, unit)]))?;
        let mut alias_shape = vec![a.num];
        alias_shape.extend(&a.shape);
        allocs.push(AllocPlan {
            alloc: id,
            name: a.name.clone(),
            region: first_region + region,
            num: a.num,
            unit,
            alignment: a.alignment()?,
            explicit: placement.clone(),
            placement,
            reindex: Some(Reindex::Tlx(TlxRewrite::IDENTITY)),
            alias_shape: Some(alias_shape),
            address_map: None,
        });
    }
    Ok((specs, allocs))
}

/// The plain allocation a legacy chain ends at (`None` for spec allocations).
fn root_of(program: &Program, id: AllocId) -> Result<Option<AllocId>, AllocError> {
    let mut cur = id;
    loop {
        let a = program.allocation(cur)?;
        match a.reuse {
            Reuse::None => return Ok(Some(cur)),
            Reuse::Spec(_) if cur == id => return Ok(None),
            Reuse::Spec(_) => {
                return Err(AllocError::Input(format!(
                    "allocation '{}' reuses '{}', which is allocated from a storage_alias_spec; add it to the spec instead",
                    program.allocation(id)?.name,
                    a.name
                )))
            }
            Reuse::Alloc(r) => cur = r,
        }
    }
}
