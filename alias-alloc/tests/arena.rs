//! Packing a kernel's regions by lifetime ([`Program::pack`]) and distinct groups whose
//! children have disjoint lifetimes: exact arena sizes, the independent checker
//! ([`check_packed`]) on every packed plan, and the overflow diagnosis.

use alias_alloc::checker::check_packed;
use alias_alloc::{
    plan_file, AllocError, DType, Mode, PackOptions, PackedPlan, PlanOptions, Program, ReuseGroup,
    Storage, Target,
};

type R = Result<(), AllocError>;

fn pack(p: &Program, target: Target) -> Result<PackedPlan, AllocError> {
    let packed = p.pack(&PackOptions::new(PlanOptions {
        mode: Mode::Intended,
        target,
    }))?;
    let v = check_packed(p, &packed);
    assert!(v.is_empty(), "{v:?}");
    Ok(packed)
}

#[test]
fn seed_chained_matmul_reuses_the_freed_64k() -> R {
    let mut p = Program::new();
    let a = p.plain_alloc("a", &[256, 128], DType::F16, 1, Storage::Smem)?;
    let b = p.plain_alloc("b", &[128, 128], DType::F16, 1, Storage::Smem)?;
    let c = p.plain_alloc("c", &[128, 128], DType::F16, 1, Storage::Smem)?;
    p.set_lifetime(a, 0, 2)?;
    p.set_lifetime(b, 2, 4)?;
    p.set_lifetime(c, 2, 4)?;
    let packed = pack(&p, Target::SM90)?;
    let arena = &packed.arenas[0];
    assert_eq!(
        (arena.peak, arena.lower_bound, arena.unpacked),
        (65536, 65536, 131072)
    );
    assert!(arena.proven_optimal);
    let mut starts = [packed.buffer_start("b", 0)?, packed.buffer_start("c", 0)?];
    starts.sort_unstable();
    assert_eq!(starts, [0, 32768]);
    assert_eq!(packed.buffer_start("a", 0)?, 0);
    Ok(())
}

#[test]
fn fused_chain_fits_packed_but_not_bumped() -> R {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/fused_chain.toml"
    ))
    .map_err(|e| AllocError::Input(e.to_string()))?;
    let file = plan_file::PlanFile::parse(&text)?;
    let target = file.target.unwrap_or(Target::SM90);
    // Planned region by region the kernel needs more than an H100 block has.
    let bump = file.program.plan(&PlanOptions {
        mode: Mode::Intended,
        target,
    });
    assert!(
        matches!(bump, Err(AllocError::SmemCapacity { need: 278528, .. })),
        "{bump:?}"
    );
    let packed = pack(&file.program, target)?;
    let arena = &packed.arenas[0];
    assert_eq!(arena.unpacked, 278528);
    assert_eq!(arena.lower_bound, 163840);
    assert_eq!(arena.peak, 163840);
    // The address map is the region's, moved to the region's place in the arena.
    let p_map = packed
        .address_map("p")?
        .ok_or_else(|| AllocError::Input("no map".into()))?;
    assert_eq!(p_map.buffer().base(), packed.buffer_start("p", 0)?);
    assert_eq!(p_map.buffer().base() % 1024, 0);
    Ok(())
}

#[test]
fn distinct_children_with_disjoint_lifetimes_share() -> R {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], DType::F16, 2, s)?; // 8 KiB
    let b = p.local_alloc("b", &[64, 32], DType::F16, 2, s)?; // 4 KiB
    let c = p.local_alloc("c", &[64, 32], DType::F16, 2, s)?; // 4 KiB
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into(), c.into()])?)?;
    let before = p.plan(&PlanOptions::new(Mode::Intended))?;
    assert_eq!(before.spec("s")?.backing_units, 2 * 16384);
    // a is done before b and c start: b and c fit in a's 8 KiB.
    p.set_lifetime(a, 0, 3)?;
    p.set_lifetime(b, 3, 6)?;
    p.set_lifetime(c, 4, 6)?;
    let plan = p.plan(&PlanOptions::new(Mode::Intended))?;
    assert_eq!(plan.spec("s")?.backing_units, 2 * 8192);
    assert!(alias_alloc::checker::check(&p, &plan).is_empty());
    let (b0, c0) = (plan.buffer_start("b", 0)?, plan.buffer_start("c", 0)?);
    assert_eq!(b0.abs_diff(c0), 4096, "b and c are live together");
    Ok(())
}

#[test]
fn lifetimes_that_overlap_change_nothing() -> R {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], DType::F16, 2, s)?;
    let b = p.local_alloc("b", &[64, 32], DType::F16, 2, s)?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
    let before = p.plan(&PlanOptions::new(Mode::Intended))?;
    p.set_lifetime(a, 0, 5)?;
    p.set_lifetime(b, 4, 6)?;
    assert_eq!(p.plan(&PlanOptions::new(Mode::Intended))?, before);
    Ok(())
}

#[test]
fn tmem_regions_pack_in_tcgen05_blocks() -> R {
    let mut p = Program::new();
    let acc1 = p.plain_alloc("acc1", &[128, 256], DType::F32, 1, Storage::Tmem)?;
    let acc2 = p.plain_alloc("acc2", &[128, 256], DType::F32, 1, Storage::Tmem)?;
    let o = p.plain_alloc("o", &[128, 128], DType::F32, 1, Storage::Tmem)?;
    let stats = p.plain_alloc("stats", &[128, 8], DType::F32, 1, Storage::Tmem)?; // 8 → 32
    p.set_lifetime(acc1, 0, 2)?;
    p.set_lifetime(acc2, 1, 3)?;
    p.set_lifetime(o, 3, 5)?;
    p.set_lifetime(stats, 2, 5)?;
    let packed = pack(&p, Target::SM100)?;
    let arena = &packed.arenas[0];
    assert_eq!(arena.storage, Storage::Tmem);
    assert_eq!(arena.capacity, 512);
    let units: Vec<u64> = arena.slots.iter().map(|s| s.units).collect();
    assert_eq!(units, [256, 256, 128, 32]);
    // 672 columns one after another (past the 512); 512 at the peak (acc1 + acc2 at point 1).
    assert_eq!(
        (arena.unpacked, arena.lower_bound, arena.peak),
        (672, 512, 512)
    );
    assert!(arena.slots.iter().all(|s| s.offset % 32 == 0));
    Ok(())
}

#[test]
fn overflow_names_the_peak_and_the_live_regions() -> R {
    let mut p = Program::new();
    for (name, start, end) in [("x", 0, 4), ("y", 2, 6), ("z", 3, 5)] {
        let id = p.plain_alloc(name, &[256, 128], DType::F16, 1, Storage::Smem)?; // 64 KiB
        p.set_lifetime(id, start, end)?;
    }
    let w = p.plain_alloc("w", &[256, 64], DType::F16, 1, Storage::Smem)?; // 32 KiB
    p.set_lifetime(w, 3, 4)?;
    let options = PackOptions::new(PlanOptions {
        mode: Mode::Intended,
        target: Target::SM90,
    });
    // x, y, z and w are all live at point 3: 224 KiB of the 227 KiB fit.
    assert_eq!(p.pack(&options)?.arenas[0].peak, 229376);
    let v = p.plain_alloc("v", &[64, 64], DType::F16, 1, Storage::Smem)?; // 8 KiB more at point 3
    p.set_lifetime(v, 3, 4)?;
    let err = match p.pack(&options) {
        Err(e) => e,
        Ok(_) => {
            return Err(AllocError::Input(
                "232 KiB live at point 3 cannot fit 227 KiB".into(),
            ))
        }
    };
    let text = err.to_string();
    assert!(matches!(err, AllocError::ArenaOverflow { .. }), "{text}");
    for needle in ["3", "x", "y", "z", "w", "v", "237568", "232448"] {
        assert!(text.contains(needle), "'{needle}' missing from: {text}");
    }
    Ok(())
}

#[test]
fn lifetimes_round_trip_through_plan_files() -> R {
    let mut p = Program::new();
    let a = p.plain_alloc("a", &[64], DType::F32, 2, Storage::Smem)?;
    p.set_lifetime(a, 3, 7)?;
    let text = plan_file::to_toml(&p);
    assert!(text.contains("lifetime = [3, 7]"), "{text}");
    assert_eq!(plan_file::parse(&text)?, p);
    let bad = text.replace("lifetime = [3, 7]", "lifetime = [7, 7]");
    let e = plan_file::parse(&bad)
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    assert!(e.contains("lifetime") && e.contains("'a'"), "{e}");
    Ok(())
}
