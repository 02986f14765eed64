//! Capacity: what the target's shared and tensor memory can hold. TLX checks neither.

use linear_layout::families::{tcgen05_alloc_columns, tmem::TMEM_COLUMNS, tmem::TMEM_LANES};

use crate::{AllocError, SpecPlan, Storage, Target};

/// Every capacity rule the regions break on `target`: more than 128 lanes, more than 512
/// columns once each TMEM region is rounded to a `tcgen05.alloc` size (a power of two ≥ 32),
/// tensor memory on a target without it, more shared memory than the target allows. With
/// `packed`, the regions share an arena by lifetime, so the totals are the arena's to check.
pub(crate) fn capacity_issues(
    specs: &[SpecPlan],
    target: &Target,
    packed: bool,
) -> Vec<AllocError> {
    let mut issues = Vec::new();
    let tmem: Vec<&SpecPlan> = specs
        .iter()
        .filter(|s| s.storage == Storage::Tmem)
        .collect();
    let names = |specs: &[&SpecPlan]| {
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        match names.as_slice() {
            [one] => format!("spec '{one}'"),
            _ => format!("the total of specs '{}'", names.join("', '")),
        }
    };
    if !tmem.is_empty() && !target.has_tmem {
        issues.push(AllocError::TmemCapacity {
            what: format!("{target} has no tensor memory; {}", names(&tmem)),
            need: tmem
                .iter()
                .fold(0u64, |t, s| t.saturating_add(s.backing_units)),
            limit: 0,
            unit: "columns",
        });
    }
    let mut columns = 0u64;
    for s in &tmem {
        if s.rows > u64::from(TMEM_LANES) {
            issues.push(AllocError::TmemCapacity {
                what: format!("spec '{}'", s.name),
                need: s.rows,
                limit: u64::from(TMEM_LANES),
                unit: "lanes",
            });
        }
        columns = columns.saturating_add(tcgen05_columns(s.backing_units));
    }
    if columns > u64::from(TMEM_COLUMNS) && !packed {
        issues.push(AllocError::TmemCapacity {
            what: format!(
                "{} (each rounded to a power of two ≥ 32 columns)",
                names(&tmem)
            ),
            need: columns,
            limit: u64::from(TMEM_COLUMNS),
            unit: "columns",
        });
    }
    let smem: Vec<&SpecPlan> = specs
        .iter()
        .filter(|s| s.storage != Storage::Tmem)
        .collect();
    let bytes = smem
        .iter()
        .fold(0u64, |t, s| t.saturating_add(s.backing_units));
    if bytes > target.smem_bytes && !packed {
        issues.push(AllocError::SmemCapacity {
            specs: smem.iter().map(|s| s.name.clone()).collect(),
            need: bytes,
            limit: target.smem_bytes,
            target: target.to_string(),
        });
    }
    issues
}

/// `columns` rounded up to what one `tcgen05.alloc` takes (a power of two ≥ 32); unchanged when
/// no allocation can hold it (the capacity rules report that).
pub(crate) fn tcgen05_columns(columns: u64) -> u64 {
    u32::try_from(columns)
        .ok()
        .and_then(|c| tcgen05_alloc_columns(c).ok())
        .map_or(columns, u64::from)
}
