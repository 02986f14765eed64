//! The independent plan checker (`alias_alloc::checker`), rule by rule on plans broken by hand:
//! buffers of one allocation outside any reuse tree, the cap on what one check lists, and the
//! cap on what one check examines (#31: each was untested and its mutants survived).

#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::checker::{
    check, check_arenas, check_packed, Violation, MAX_BUFFERS, MAX_VIOLATIONS,
};
use alias_alloc::{
    AllocError, DType, Mode, PackOptions, PlanOptions, Program, ReuseGroup, Storage, Target,
};
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

/// Rules 5–6 of a packed plan, each broken by hand on the chained-matmul seed (a live over
/// [0, 2), b and c over [2, 4)): a region moved off its alignment, onto a region live at the
/// same time, and past the arena's capacity — each named; moved onto a region never live with
/// it, nothing.
#[test]
fn packed_plans_keep_regions_apart_aligned_and_inside() -> Result<(), AllocError> {
    let mut p = Program::new();
    let a = p.plain_alloc("a", &[256, 128], DType::F16, 1, Storage::Smem)?;
    let b = p.plain_alloc("b", &[128, 128], DType::F16, 1, Storage::Smem)?;
    let c = p.plain_alloc("c", &[128, 128], DType::F16, 1, Storage::Smem)?;
    p.set_lifetime(a, 0, 2)?;
    p.set_lifetime(b, 2, 4)?;
    p.set_lifetime(c, 2, 4)?;
    let packed = p.pack(&PackOptions::new(PlanOptions::new(Mode::Intended)))?;
    assert!(check_packed(&p, &packed).is_empty());
    let moved = |name: &str, to: u64| {
        let mut q = packed.clone();
        let arena = &mut q.arenas[0];
        let slot = arena.slots.iter_mut().find(|s| s.name == name).unwrap();
        slot.offset = to;
        let texts: Vec<String> = check_packed(&p, &q)
            .iter()
            .map(ToString::to_string)
            .collect();
        texts
    };
    let at = |name: &str| {
        packed.arenas[0]
            .slots
            .iter()
            .find(|s| s.name == name)
            .unwrap()
            .offset
    };
    let (a_at, b_at, c_at) = (at("a"), at("b"), at("c"));
    let capacity = packed.arenas[0].capacity;
    // Off its alignment, still clear of the others (b and c are 32 KiB each, in a's 64 KiB).
    let lower = b_at.min(c_at);
    let texts = moved(if b_at < c_at { "b" } else { "c" }, lower + 8);
    assert!(
        texts.iter().any(|t| t.ends_with(&format!(
            "starts at {}, not a multiple of its alignment 1024",
            lower + 8
        ))),
        "{texts:?}"
    );
    // b onto c: live together.
    assert_eq!(
        moved("b", c_at),
        [format!(
            "{0}[0] and {1}[0] overlap at [{c_at}, {2}) (regions live at the same time)",
            "b",
            "c",
            c_at + 32768
        )]
    );
    // b onto a: never live together.
    assert_eq!(moved("b", a_at), Vec::<String>::new());
    // Past the capacity.
    assert_eq!(
        moved("a", capacity),
        [format!(
            "a[0] ends at {}, past the backing's {capacity}",
            capacity + 65536
        )]
    );
    Ok(())
}

/// The cap holds across the arena too: twelve regions live together, all moved to offset 0,
/// make 66 overlapping pairs; `check_arenas` and `check_packed` list 64 and say the rest are
/// not listed. Eleven make 55, all listed.
#[test]
fn packed_plans_list_at_most_64_violations() -> Result<(), AllocError> {
    for (regions, listed) in [(12, MAX_VIOLATIONS + 1), (11, 55)] {
        let mut p = Program::new();
        for r in 0..regions {
            let a = p.plain_alloc(&format!("r{r}"), &[64], DType::F16, 1, Storage::Smem)?;
            p.set_lifetime(a, 0, 1)?;
        }
        let mut packed = p.pack(&PackOptions::new(PlanOptions::new(Mode::Intended)))?;
        assert!(check_packed(&p, &packed).is_empty());
        for slot in &mut packed.arenas[0].slots {
            slot.offset = 0;
        }
        for violations in [check_arenas(&p, &packed), check_packed(&p, &packed)] {
            assert_eq!(violations.len(), listed, "{regions} regions");
            assert!(violations[..listed.min(MAX_VIOLATIONS)]
                .iter()
                .all(|v| v.to_string().ends_with("(regions live at the same time)")));
        }
        if regions == 12 {
            assert_eq!(
                check_arenas(&p, &packed)[MAX_VIOLATIONS].to_string(),
                "incomplete plan: more than 64 violations; the rest are not listed"
            );
        }
    }
    Ok(())
}

/// Rule 4: a swizzled buffer must start where the swizzle inside the buffer (the planner's map)
/// and the swizzle of the whole address (what TMA and wgmma compute) agree. Three 64 × 64 f16
/// tiles (NVMMA, 128-byte swizzle, 1 KiB alignment) moved 8,704 bytes apart: the middle one
/// starts half a period off, so its element (0, 0) sits at 8,704 by the map and at 8,704 ^ 64
/// by the hardware (address bits 7–9, here 4, XOR-ed into bits 4–6); the first and the last
/// (17,408 = 17 KiB) agree.
#[test]
fn a_swizzled_buffer_off_its_period_disagrees() -> Result<(), AllocError> {
    let texts: Vec<String> = squeezed(3, 8704)?.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts,
        [
            "a[1] starts at 8704, not a multiple of its alignment 1024",
            "a[2] ends at 25600, past the backing's 24576",
            "a[1] element [0, 0]: swizzle inside gives 8704, outside 8768",
        ]
    );
    // 8,200 bytes apart: a[1] starts 8 bytes into a row. Row starts agree (bit 3 never
    // carries into the swizzled bits), and so does every element of the first 4 columns (8 + 2c
    // < 16); the first that does not (columns vary slowest) is row 1, column 4: the map puts it
    // at 8,200 + (136 ^ 16) = 8,352, the hardware at (8,200 + 136) ^ 16 = 8,320. a[2] (16,400)
    // is off too, but one disagreement per allocation is listed.
    let texts: Vec<String> = squeezed(3, 8200)?.iter().map(ToString::to_string).collect();
    assert_eq!(
        texts.last().map(String::as_str),
        Some("a[1] element [1, 4]: swizzle inside gives 8352, outside 8320")
    );
    Ok(())
}

/// TMEM buffers within the 128 lanes pass rule 5, whether they use all of them or half: a
/// 64-row accumulator (`block_m = 64`) and a 128-row one.
#[test]
fn tmem_buffers_within_the_lanes_pass() -> Result<(), AllocError> {
    for rows in [64, 128] {
        let mut p = Program::new();
        p.plain_alloc("acc", &[rows, 64], DType::F32, 2, Storage::Tmem)?;
        let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
        let map = plan.alloc("acc")?.address_map.as_ref().unwrap();
        assert_eq!(map.element().out_dim_size("lane").unwrap(), 128);
        assert_eq!(check(&p, &plan), []);
    }
    Ok(())
}

/// Rule 1 on subtiles: in `shared(a, b)` with `group_size = 2`, buffer `i` is subtile `i % 2`
/// of buffer group `i / 2`, and only equal subtiles of one group may share bytes. All four of
/// b's buffers moved onto a[0]: b[0] may sit there; b[1] is the other subtile, b[2] and b[3]
/// another group (and b's buffers overlap each other).
#[test]
fn subtiles_of_a_shared_group_share_only_with_their_own() -> Result<(), AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], DType::F16, 4, s)?;
    let b = p.local_alloc("b", &[64, 64], DType::F16, 4, s)?;
    p.set_buffer_overlap(
        s,
        ReuseGroup::shared(vec![a.into(), b.into()])?.group_size(2)?,
    )?;
    let mut plan = p.plan(&PlanOptions::new(Mode::Intended))?;
    assert!(check(&p, &plan).is_empty());
    let a0 = plan.buffer_start("a", 0)?;
    plan.allocs
        .iter_mut()
        .find(|x| x.name == "b")
        .unwrap()
        .placement = BufferMap::new(a0, &[(4, 0)]).unwrap();
    let texts: Vec<String> = check(&p, &plan).iter().map(ToString::to_string).collect();
    let with_a0: Vec<&String> = texts.iter().filter(|t| t.contains("a[0]")).collect();
    let end = a0 + 8192;
    assert_eq!(
        with_a0,
        [
            &format!(
                "a[0] and b[1] overlap at [{a0}, {end}) (different subtiles of a shared group)"
            ),
            &format!("a[0] and b[2] overlap at [{a0}, {end}) (different buffer groups)"),
            &format!("a[0] and b[3] overlap at [{a0}, {end}) (different buffer groups)"),
        ],
        "{texts:#?}"
    );
    Ok(())
}

/// Rule 1 with a phase pool under subtiles: in `shared(a, shared(b, c)).group_size(2)` the
/// inner group is a pool (b has one buffer group, c two), and a pool is one buffer group to
/// the groups above it: any buffer of c may share bytes with the buffer of a whose subtile
/// matches. The planner keeps c's second group apart (c = [0, 16384, 8192, 24576]); a moved
/// onto it (a[0] on c[2], a[1] on c[3]) is still a correct plan.
#[test]
fn a_pool_under_subtiles_is_one_buffer_group() -> Result<(), AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], DType::F16, 2, s)?;
    let b = p.local_alloc("b", &[64, 64], DType::F16, 2, s)?;
    let c = p.local_alloc("c", &[64, 64], DType::F16, 4, s)?;
    let pool = ReuseGroup::shared(vec![b.into(), c.into()])?;
    p.set_buffer_overlap(
        s,
        ReuseGroup::shared(vec![a.into(), pool.into()])?.group_size(2)?,
    )?;
    let mut plan = p.plan(&PlanOptions::new(Mode::Intended))?;
    let c_starts: Vec<u64> = (0..4)
        .map(|i| plan.buffer_start("c", i))
        .collect::<Result<_, _>>()?;
    assert_eq!(c_starts, [0, 16384, 8192, 24576]);
    assert_eq!(check(&p, &plan), []);
    plan.allocs
        .iter_mut()
        .find(|x| x.name == "a")
        .unwrap()
        .placement = BufferMap::new(8192, &[(2, 16384)]).unwrap();
    assert_eq!(check(&p, &plan), []);
    Ok(())
}
