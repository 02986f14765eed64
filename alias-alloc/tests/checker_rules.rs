//! The independent plan checker (`alias_alloc::checker`), rule by rule on plans broken by hand:
//! buffers of one allocation outside any reuse tree, the cap on what one check lists, and the
//! cap on what one check examines (#31: each was untested and its mutants survived).

#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::checker::{check, Violation, MAX_BUFFERS, MAX_VIOLATIONS};
use alias_alloc::{AllocError, DType, Mode, PlanOptions, Program, ReuseGroup, Storage, Target};
use linear_layout::BufferMap;

/// A plain allocation of `num` 8 KiB buffers, planned, its buffers then moved to `stride`
/// bytes apart.
fn squeezed(num: u64, stride: u64) -> Result<Vec<Violation>, AllocError> {
    squeezed_shape(&[64, 64], num, stride)
}

/// [`squeezed`] with buffers of `shape` f16 elements.
fn squeezed_shape(shape: &[u64], num: u64, stride: u64) -> Result<Vec<Violation>, AllocError> {
    let mut p = Program::new();
    p.plain_alloc("a", shape, DType::F16, num, Storage::Smem)?;
    let mut plan = p.plan(&PlanOptions::new(Mode::Intended))?;
    assert!(check(&p, &plan).is_empty());
    plan.allocs[0].placement = BufferMap::new(0, &[(num, stride)]).unwrap();
    Ok(check(&p, &plan))
}

/// Outside any reuse tree the buffers of one allocation are disjoint: two 8 KiB buffers 4 KiB
/// apart overlap by 4 KiB, named with the rule.
#[test]
fn buffers_of_one_allocation_outside_a_tree_are_disjoint() -> Result<(), AllocError> {
    let violations = squeezed(2, 4096)?;
    let texts: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        ["a[0] and a[1] overlap at [4096, 8192) (different buffers of one allocation)"]
    );
    Ok(())
}

/// One check lists at most 64 violations and says the rest are not listed: 12 buffers at one
/// offset make 66 overlapping pairs.
#[test]
fn a_check_lists_at_most_64_violations() -> Result<(), AllocError> {
    let violations = squeezed(12, 0)?;
    assert_eq!(violations.len(), MAX_VIOLATIONS + 1);
    assert!(violations[..MAX_VIOLATIONS]
        .iter()
        .all(|v| matches!(v, Violation::Overlap { .. })));
    assert_eq!(
        violations[MAX_VIOLATIONS].to_string(),
        "incomplete plan: more than 64 violations; the rest are not listed"
    );
    // 11 buffers make 55 pairs: all listed.
    assert_eq!(squeezed(11, 0)?.len(), 55);
    Ok(())
}

/// One check examines at most 2^20 buffers: exactly that many are checked, one more is
/// refused as incomplete (with the count), not checked partially.
#[test]
fn a_check_examines_at_most_2_to_the_20_buffers() -> Result<(), AllocError> {
    // A target with room for 2^20 128-byte buffers (no GPU has it; the checker's cap is about
    // its own work).
    let options = PlanOptions {
        target: Target {
            smem_bytes: 1 << 28,
            ..Target::default()
        },
        ..PlanOptions::new(Mode::Intended)
    };
    let mut p = Program::new();
    p.plain_alloc("rows", &[64], DType::F16, MAX_BUFFERS, Storage::Smem)?;
    let plan = p.plan(&options)?;
    assert!(check(&p, &plan).is_empty());
    let mut p = Program::new();
    p.plain_alloc("rows", &[64], DType::F16, MAX_BUFFERS + 1, Storage::Smem)?;
    let plan = p.plan(&options)?;
    let texts: Vec<String> = check(&p, &plan).iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        ["incomplete plan: 1048577 buffers are more than the 1048576 the checker examines"]
    );
    Ok(())
}

/// The cap holds for every kind of violation, not only overlaps: 70 buffers of 128 bytes spread
/// 129 bytes apart overlap nothing, but 69 are misaligned (and some end past the backing).
#[test]
fn the_cap_counts_every_kind_of_violation() -> Result<(), AllocError> {
    let violations = squeezed_shape(&[64], 70, 129)?;
    assert_eq!(violations.len(), MAX_VIOLATIONS + 1);
    assert!(!violations
        .iter()
        .any(|v| matches!(v, Violation::Overlap { .. })));
    assert_eq!(
        violations[0].to_string(),
        "a[1] starts at 129, not a multiple of its alignment 128"
    );
    assert_eq!(
        violations[MAX_VIOLATIONS].to_string(),
        "incomplete plan: more than 64 violations; the rest are not listed"
    );
    // 64 buffers: 63 misaligned and the last past the backing, exactly 64, all listed.
    let violations = squeezed_shape(&[64], 64, 129)?;
    assert_eq!(violations.len(), MAX_VIOLATIONS);
    let texts: Vec<String> = violations.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts[MAX_VIOLATIONS - 2..],
        [
            "a[63] ends at 8255, past the backing's 8192",
            "a[63] starts at 8127, not a multiple of its alignment 128"
        ]
    );
    Ok(())
}

/// An empty buffer overlaps nothing: in a distinct group of TMEM allocations, one whose plan
/// spans no columns (no address map, a unit of 0) may start inside the other's buffer; with one
/// column it overlaps, named with the rule.
#[test]
fn an_empty_buffer_overlaps_nothing() -> Result<(), AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
    let a = p.local_alloc("a", &[128, 64], DType::F32, 1, s)?;
    let b = p.local_alloc("b", &[128, 32], DType::F32, 1, s)?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
    let mut plan = p.plan(&PlanOptions::new(Mode::Intended))?;
    assert!(check(&p, &plan).is_empty());
    let a_start = plan.buffer_start("a", 0)?;
    let b = plan.allocs.iter_mut().find(|x| x.name == "b").unwrap();
    b.address_map = None;
    b.placement = BufferMap::new(a_start + 8, &[(1, 0)]).unwrap();
    b.unit = 0;
    assert_eq!(check(&p, &plan), []);
    plan.allocs.iter_mut().find(|x| x.name == "b").unwrap().unit = 1;
    let texts: Vec<String> = check(&p, &plan).iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [format!(
            "a[0] and b[0] overlap at [{0}, {1}) (members of a distinct group)",
            a_start + 8,
            a_start + 9
        )]
    );
    Ok(())
}
