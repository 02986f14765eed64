//! Named trees with exact numbers, in both modes: the TLX tutorial's Flash-Attention trees
//! (`shared/reference/tlx-storage-alias.md` §9; TLX numbers as `tests/data/tlx_alias/cases.json`
//! recorded from fbtriton 3.7.4), the verified SMEM example of §11, the §8 probes, the
//! first-user quirk, the lit alignment case and the diagram of the design doc (seed 000).
//! Every plan is also run through the independent checker: clean in Intended mode; in
//! TlxCompatible mode exactly the violations the plan reports as `Unsafe`.

use alias_alloc::checker::{check, Violation};
use alias_alloc::{
    AllocError, AllocId, AllocLayout, Allocation, CtaMode, DType, Mode, Plan, PlanOptions, Program,
    Reindex, Reuse, ReuseGroup, SpecId, Storage, TlxRewrite, Warning,
};
use linear_layout::families::TensorMemory;
use linear_layout::Address;

type R = Result<(), AllocError>;

fn plan(p: &Program, mode: Mode) -> Result<Plan, AllocError> {
    let plan = p.plan(&PlanOptions::new(mode))?;
    let violations = check(p, &plan);
    match mode {
        Mode::Intended => assert!(violations.is_empty(), "Intended: {violations:?}"),
        Mode::TlxCompatible => {
            for v in violations {
                assert!(
                    plan.warnings.contains(&Warning::Unsafe(v.clone())),
                    "TLX violation without an Unsafe warning: {v}"
                );
            }
        }
    }
    Ok(plan)
}

/// Where buffers `0..num` of `name` start (plan units).
fn starts(plan: &Plan, name: &str) -> Result<Vec<u64>, AllocError> {
    let n = plan.alloc(name)?.num;
    (0..n).map(|i| plan.buffer_start(name, i)).collect()
}

/// The reindexed slots of `name` (`None` when it has no reindexing).
fn slots(plan: &Plan, name: &str) -> Result<Option<Vec<u64>>, AllocError> {
    let a = plan.alloc(name)?;
    match &a.reindex {
        Some(r) => (0..a.num)
            .map(|i| r.slot(i))
            .collect::<Result<_, _>>()
            .map(Some),
        None => Ok(None),
    }
}

fn alias_shape(plan: &Plan, name: &str) -> Result<Option<Vec<u64>>, AllocError> {
    Ok(plan.alloc(name)?.alias_shape.clone())
}

fn unsafe_violations(plan: &Plan) -> Vec<&Violation> {
    plan.warnings
        .iter()
        .filter_map(|w| match w {
            Warning::Unsafe(v) => Some(v),
            _ => None,
        })
        .collect()
}

/// Whether the plan reports `a[i]` and `b[j]` overlapping, in either order.
fn overlaps(plan: &Plan, a: &str, i: u64, b: &str, j: u64) -> bool {
    unsafe_violations(plan).iter().any(|v| match v {
        Violation::Overlap {
            a: x,
            i: xi,
            b: y,
            j: yj,
            ..
        } => {
            (x == a && *xi == i && y == b && *yj == j) || (x == b && *xi == j && y == a && *yj == i)
        }
        _ => false,
    })
}

/// Whether the plan reports `alloc[index]` ending past the backing.
fn outside(plan: &Plan, alloc: &str, index: u64) -> bool {
    unsafe_violations(plan).iter().any(
        |v| matches!(v, Violation::OutsideBacking { alloc: a, index: i, .. } if a == alloc && *i == index),
    )
}

/// `(from, to)` of the backing `tlx-rewrite-local-alias` grows, if it does.
fn grown(plan: &Plan, spec: &str) -> Option<(u64, u64)> {
    plan.warnings.iter().find_map(|w| match w {
        Warning::BackingGrown {
            spec: s, from, to, ..
        } if s == spec => Some((*from, *to)),
        _ => None,
    })
}

fn disagrees(plan: &Plan, alloc: &str) -> bool {
    plan.warnings
        .iter()
        .any(|w| matches!(w, Warning::ModesDisagree { alloc: a, .. } if a == alloc))
}

fn tmem_layout(block_m: u32, block_n: u32) -> TensorMemory {
    TensorMemory {
        block_m,
        block_n,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    }
}

// ----- Flash attention forward (§9) --------------------------------------------------------

/// `blackwell_fa_ws_pipelined_persistent.py`: `qk [M, N] f32 ×2`, `p [M, N/slices] bf16
/// ×2·slices`, `alpha, l, m [M, scalar_n] f32 ×2`, tree
/// `shared(qk, distinct(shared(p, gs = slices), alpha, l, m))`.
fn fa_forward(
    block_m: u64,
    block_n: u64,
    slices: u64,
    scalar_n: u64,
) -> Result<Program, AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
    let qk = p.local_alloc("qk", &[block_m, block_n], DType::F32, 2, s)?;
    let pt = p.local_alloc(
        "p",
        &[block_m, block_n / slices],
        DType::BF16,
        2 * slices,
        s,
    )?;
    let alpha = p.local_alloc("alpha", &[block_m, scalar_n], DType::F32, 2, s)?;
    let l = p.local_alloc("l", &[block_m, scalar_n], DType::F32, 2, s)?;
    let m = p.local_alloc("m", &[block_m, scalar_n], DType::F32, 2, s)?;
    let sliced = ReuseGroup::shared(vec![pt.into()])?.group_size(slices)?;
    let distinct = ReuseGroup::distinct(vec![sliced.into(), alpha.into(), l.into(), m.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
    Ok(p)
}

#[test]
fn fa_forward_tlx_compatible() -> R {
    let p = fa_forward(128, 128, 2, 1)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    let spec = tlx.spec("qk_storage")?;
    assert_eq!(spec.backing_shape, [128, 256]);
    assert_eq!((spec.rows, spec.backing_units), (128, 256));
    assert_eq!(spec.group_stride, Some(128));
    assert_eq!(
        tlx.alloc("p")?.reindex,
        Some(Reindex::Tlx(TlxRewrite {
            scale: 2,
            offset: 0,
            group_size: 2,
        }))
    );
    assert_eq!(slots(&tlx, "p")?, Some(vec![0, 3, 4, 7]));
    assert_eq!(starts(&tlx, "p")?, [0, 96, 128, 224]);
    assert_eq!(starts(&tlx, "qk")?, [0, 128]);
    // alpha: 128·i + 64 (unit 1 column); l and m follow.
    assert_eq!(slots(&tlx, "alpha")?, Some(vec![64, 192]));
    assert_eq!(starts(&tlx, "alpha")?, [64, 192]);
    assert_eq!(starts(&tlx, "l")?, [65, 193]);
    assert_eq!(starts(&tlx, "m")?, [66, 194]);
    let shapes: Vec<Option<Vec<u64>>> = ["qk", "p", "alpha", "l", "m"]
        .iter()
        .map(|n| alias_shape(&tlx, n))
        .collect::<Result<_, _>>()?;
    assert_eq!(
        shapes,
        [
            Some(vec![2, 128, 128]),
            Some(vec![8, 128, 64]),
            Some(vec![193, 128, 1]),
            Some(vec![194, 128, 1]),
            Some(vec![195, 128, 1])
        ]
    );
    // TLX's p[1] is not where the documented layout puts it, but this config is still safe.
    assert!(tlx.warnings.contains(&Warning::ModesDisagree {
        alloc: "p".into(),
        index: 1,
        tlx: 96,
        intended: 32,
        unit: "columns"
    }));
    assert!(unsafe_violations(&tlx).is_empty(), "{:?}", tlx.warnings);
    assert!(check(&p, &tlx).is_empty());
    Ok(())
}

#[test]
fn fa_forward_intended() -> R {
    let p = fa_forward(128, 128, 2, 1)?;
    let plan = plan(&p, Mode::Intended)?;
    let spec = plan.spec("qk_storage")?;
    assert_eq!(spec.backing_units, 256);
    assert_eq!(spec.backing_shape, [128, 256]);
    assert_eq!((spec.group_stride, spec.groups), (Some(128), Some(2)));
    assert_eq!(starts(&plan, "qk")?, [0, 128]);
    assert_eq!(starts(&plan, "p")?, [0, 32, 128, 160]);
    assert_eq!(starts(&plan, "alpha")?, [64, 192]);
    assert_eq!(starts(&plan, "l")?, [65, 193]);
    assert_eq!(starts(&plan, "m")?, [66, 194]);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    // Every start is a whole number of buffers, so the index rewrite exists too.
    assert_eq!(slots(&plan, "p")?, Some(vec![0, 1, 4, 5]));
    assert_eq!(alias_shape(&plan, "p")?, Some(vec![6, 128, 64]));
    // The explicit map: p[3] element (17, 9) is lane 17, column 160 + 9/2.
    let map = plan
        .alloc("p")?
        .address_map
        .as_ref()
        .expect("p has an address map");
    assert_eq!(
        map.address(3, &[17, 9]).ok(),
        Some(Address::Tensor {
            lane: 17,
            column: 164
        })
    );
    Ok(())
}

#[test]
fn fa_forward_block_m_split_64() -> R {
    // BLOCK_M_SPLIT = 64: 64-row tiles (f32 [64, N] is N columns; bf16 [64, 64] is 32), and
    // alpha, l, m are [64, 2] (SCALAR_N = 2: 2 columns each).
    let p = fa_forward(64, 128, 2, 2)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("qk_storage")?.backing_shape, [64, 256]);
    assert_eq!(slots(&tlx, "p")?, Some(vec![0, 3, 4, 7]));
    assert_eq!(starts(&tlx, "p")?, [0, 96, 128, 224]);
    // alpha, l, m at slots 32/33/34 + 64·i (2-column units).
    assert_eq!(slots(&tlx, "alpha")?, Some(vec![32, 96]));
    assert_eq!(slots(&tlx, "l")?, Some(vec![33, 97]));
    assert_eq!(slots(&tlx, "m")?, Some(vec![34, 98]));
    assert_eq!(starts(&tlx, "alpha")?, [64, 192]);
    assert_eq!(alias_shape(&tlx, "alpha")?, Some(vec![97, 64, 2]));
    assert_eq!(alias_shape(&tlx, "m")?, Some(vec![99, 64, 2]));
    assert_eq!(alias_shape(&tlx, "p")?, Some(vec![8, 64, 64]));
    assert!(unsafe_violations(&tlx).is_empty(), "{:?}", tlx.warnings);

    let plan = plan(&p, Mode::Intended)?;
    let spec = plan.spec("qk_storage")?;
    assert_eq!((spec.rows, spec.backing_units), (64, 256));
    assert_eq!(starts(&plan, "p")?, [0, 32, 128, 160]);
    assert_eq!(starts(&plan, "alpha")?, [64, 192]);
    assert_eq!(starts(&plan, "l")?, [66, 194]);
    assert_eq!(starts(&plan, "m")?, [68, 196]);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    Ok(())
}

#[test]
fn fa_forward_four_mma_slices() -> R {
    // NUM_MMA_SLICES = 4: p is bf16 [128, 32] (16 columns) ×8 in a group of 4.
    let p = fa_forward(128, 128, 4, 1)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("qk_storage")?.backing_shape, [128, 256]);
    assert_eq!(slots(&tlx, "p")?, Some(vec![0, 3, 6, 9, 8, 11, 14, 17]));
    assert_eq!(starts(&tlx, "p")?, [0, 48, 96, 144, 128, 176, 224, 272]);
    assert_eq!(alias_shape(&tlx, "p")?, Some(vec![18, 128, 32]));
    // p[3] (group 0) lands in qk[1]'s columns; p[7] ends at 288, past the pass's 256
    // columns, so tlx-rewrite-local-alias re-allocates the backing as p's 18-buffer alias.
    assert!(overlaps(&tlx, "qk", 1, "p", 3), "{:?}", tlx.warnings);
    assert!(!outside(&tlx, "p", 7), "{:?}", tlx.warnings);
    assert_eq!(grown(&tlx, "qk_storage"), Some((256, 288)));
    assert!(disagrees(&tlx, "p"));
    assert!(!check(&p, &tlx).is_empty());

    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(starts(&plan, "p")?, [0, 16, 32, 48, 128, 144, 160, 176]);
    assert_eq!(starts(&plan, "alpha")?, [64, 192]);
    assert_eq!(plan.spec("qk_storage")?.backing_units, 256);
    assert!(plan.warnings.is_empty(), "{:?}", plan.warnings);
    Ok(())
}

// ----- Flash attention backward, 2-CTA (§9) ------------------------------------------------

#[test]
fn fa_backward_two_cta() -> R {
    // shared(qk, distinct(p, shared(dq TwoCTA_RHS [64, 128], dq_phys [128, 64]))), 1 buffer.
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
    let tmem = |name: &str, shape: [u64; 2], dtype, layout| Allocation {
        name: name.into(),
        shape: shape.to_vec(),
        dtype,
        num: 1,
        storage: Storage::Tmem,
        reuse: Reuse::Spec(s),
        layout,
        align: None,
    };
    let qk = p.alloc(tmem(
        "qk",
        [128, 128],
        DType::F32,
        AllocLayout::Tmem(tmem_layout(128, 128), CtaMode::Default),
    ))?;
    let pt = p.alloc(tmem(
        "p",
        [128, 128],
        DType::F16,
        AllocLayout::Tmem(tmem_layout(128, 128), CtaMode::Default),
    ))?;
    let rhs = TensorMemory {
        two_ctas: true,
        ..tmem_layout(64, 128)
    };
    let dq = p.alloc(tmem(
        "dq",
        [64, 128],
        DType::F32,
        AllocLayout::Tmem(rhs, CtaMode::TwoCtaRhs),
    ))?;
    let dq_phys = p.alloc(tmem(
        "dq_phys",
        [128, 64],
        DType::F32,
        AllocLayout::Tmem(tmem_layout(128, 64), CtaMode::Default),
    ))?;
    let dqs = ReuseGroup::shared(vec![dq.into(), dq_phys.into()])?;
    let distinct = ReuseGroup::distinct(vec![pt.into(), dqs.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;

    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("s")?.backing_shape, [128, 128]);
    // "P at column 0, dQ at column 64": slot 1 of 64-column buffers.
    assert_eq!(tlx.alloc("dq")?.unit, 64);
    assert_eq!(slots(&tlx, "dq")?, Some(vec![1]));
    assert_eq!(slots(&tlx, "dq_phys")?, Some(vec![1]));
    assert_eq!(starts(&tlx, "dq")?, [64]);
    assert_eq!(starts(&tlx, "p")?, [0]);
    assert_eq!(alias_shape(&tlx, "dq")?, Some(vec![2, 64, 128]));
    assert_eq!(alias_shape(&tlx, "dq_phys")?, Some(vec![2, 128, 64]));
    assert!(unsafe_violations(&tlx).is_empty(), "{:?}", tlx.warnings);

    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(plan.spec("s")?.backing_units, 128);
    assert_eq!(starts(&plan, "p")?, [0]);
    assert_eq!(starts(&plan, "dq")?, [64]);
    assert_eq!(starts(&plan, "dq_phys")?, [64]);
    Ok(())
}

// ----- SMEM (§11, §8) ----------------------------------------------------------------------

fn two_buffers(dtype_a: DType) -> Result<Program, AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], dtype_a, 2, s)?;
    let b = p.local_alloc("b", &[64, 64], DType::BF16, 2, s)?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![a.into(), b.into()])?)?;
    Ok(p)
}

#[test]
fn verified_smem_example() -> R {
    // distinct(a, b), bf16 2×64×64 each (§11, verified against fbtriton 3.7.4).
    let p = two_buffers(DType::BF16)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("s")?.backing_units, 32768);
    assert_eq!(alias_shape(&tlx, "a")?, Some(vec![3, 64, 64]));
    assert_eq!(alias_shape(&tlx, "b")?, Some(vec![4, 64, 64]));
    assert_eq!(slots(&tlx, "a")?, Some(vec![0, 2]));
    assert_eq!(slots(&tlx, "b")?, Some(vec![1, 3])); // b[1] → slot 3
    assert!(tlx.warnings.is_empty(), "{:?}", tlx.warnings);

    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(plan.spec("s")?.backing_units, 32768);
    assert_eq!(starts(&plan, "a")?, [0, 16384]);
    assert_eq!(starts(&plan, "b")?, [8192, 24576]);
    assert_eq!(slots(&plan, "b")?, Some(vec![1, 3]));
    Ok(())
}

#[test]
fn verified_smem_example_f32_fails_in_tlx_only() -> R {
    // The same with f32 a: TLX cannot reindex a (24576 is not a multiple of 16384).
    let p = two_buffers(DType::F32)?;
    let err = p
        .plan(&PlanOptions::new(Mode::TlxCompatible))
        .expect_err("TLX refuses it");
    assert_eq!(
        err.tlx_message().as_deref(),
        Some("units_between_buffer_groups (24576) must be a multiple of the original buffer size (16384)")
    );
    // Intended places it; a has no index rewrite (its stride is 1.5 buffers): explicit only.
    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(plan.spec("s")?.backing_units, 49152);
    assert_eq!(starts(&plan, "a")?, [0, 24576]);
    assert_eq!(starts(&plan, "b")?, [16384, 40960]);
    assert_eq!(plan.alloc("a")?.reindex, None);
    assert_eq!(slots(&plan, "b")?, Some(vec![2, 5]));
    Ok(())
}

#[test]
fn smem_probe_subtiles_overlap_in_tlx() -> R {
    // shared(a f32, distinct(x bf16, shared(p bf16 [64, 32] ×4, gs = 2))) (§8.5 probe).
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let a = p.local_alloc("a", &[64, 64], DType::F32, 2, s)?;
    let x = p.local_alloc("x", &[64, 64], DType::BF16, 2, s)?;
    let pt = p.local_alloc("p", &[64, 32], DType::BF16, 4, s)?;
    let sub = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
    let distinct = ReuseGroup::distinct(vec![x.into(), sub.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![a.into(), distinct.into()])?)?;

    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("s")?.backing_shape, [32768]);
    assert_eq!(tlx.spec("s")?.backing_units, 40960);
    assert_eq!(slots(&tlx, "a")?, Some(vec![0, 1]));
    assert_eq!(slots(&tlx, "x")?, Some(vec![0, 2]));
    assert_eq!(slots(&tlx, "p")?, Some(vec![2, 5, 6, 9]));
    assert_eq!(alias_shape(&tlx, "p")?, Some(vec![10, 64, 32]));
    assert_eq!(starts(&tlx, "p")?, [8192, 20480, 24576, 36864]);
    // p[1] (group 0) overlaps x[1] (group 1); p[3] ends at 40960, past the pass's 32768:
    // the rewritten backing is p's alias, 40960 bytes.
    assert!(overlaps(&tlx, "x", 1, "p", 1), "{:?}", tlx.warnings);
    assert!(!outside(&tlx, "p", 3), "{:?}", tlx.warnings);
    assert_eq!(grown(&tlx, "s"), Some((32768, 40960)));

    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(plan.spec("s")?.backing_units, 32768);
    assert_eq!(starts(&plan, "x")?, [0, 16384]);
    assert_eq!(starts(&plan, "p")?, [8192, 12288, 24576, 28672]);
    Ok(())
}

fn first_user(p_first: bool) -> Result<Program, AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let alloc = |p: &mut Program, name: &str, s: SpecId| -> Result<AllocId, AllocError> {
        match name {
            "p" => p.local_alloc("p", &[64, 64], DType::BF16, 4, s),
            _ => p.local_alloc("qk", &[64, 64], DType::F32, 2, s),
        }
    };
    let (pt, qk) = if p_first {
        let pt = alloc(&mut p, "p", s)?;
        (pt, alloc(&mut p, "qk", s)?)
    } else {
        let qk = alloc(&mut p, "qk", s)?;
        (alloc(&mut p, "p", s)?, qk)
    };
    let sub = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), sub.into()])?)?;
    Ok(p)
}

#[test]
fn first_user_buffer_count_quirk() -> R {
    // TLX sizes the SMEM backing with the buffer count of the first allocation in program
    // order: p (4 buffers) before qk (2) doubles it.
    let p = first_user(true)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("s")?.backing_units, 65536);
    assert!(tlx.warnings.contains(&Warning::FirstUserBufferCount {
        spec: "s".into(),
        first: "p".into(),
        count: 4,
        tree_groups: 2
    }));
    assert_eq!(slots(&tlx, "p")?, Some(vec![0, 1, 2, 3])); // scale 1: not rewritten
    assert_eq!(alias_shape(&tlx, "p")?, Some(vec![4, 64, 64]));
    let intended = plan(&p, Mode::Intended)?;
    assert_eq!(intended.spec("s")?.backing_units, 32768);
    assert_eq!(starts(&intended, "p")?, [0, 8192, 16384, 24576]);

    let q = first_user(false)?;
    let tlx = plan(&q, Mode::TlxCompatible)?;
    assert_eq!(tlx.spec("s")?.backing_units, 32768);
    assert!(!tlx
        .warnings
        .iter()
        .any(|w| matches!(w, Warning::FirstUserBufferCount { .. })));
    assert_eq!(plan(&q, Mode::Intended)?.spec("s")?.backing_units, 32768);
    Ok(())
}

/// Lit `buffer-offset-alignment.mlir`: `distinct(shared(A, distinct(B, C)), D)` with 8-byte
/// A, B, D (f32 [2]) and a bf16 C, every allocation with alignment `align` (None: the
/// default).
fn lit_alignment(c_shape: u64, c_num: u64, align: Option<u64>) -> Result<Program, AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Smem, None)?;
    let mut alloc = |name: &str, shape: u64, dtype, num| {
        p.alloc(Allocation {
            name: name.into(),
            shape: vec![shape],
            dtype,
            num,
            storage: Storage::Smem,
            reuse: Reuse::Spec(s),
            layout: AllocLayout::Default,
            align,
        })
    };
    let a = alloc("A", 2, DType::F32, 4)?;
    let b = alloc("B", 2, DType::F32, 4)?;
    let c = alloc("C", c_shape, DType::BF16, c_num)?;
    let d = alloc("D", 2, DType::F32, 4)?;
    let inner = ReuseGroup::distinct(vec![b.into(), c.into()])?;
    let shared = ReuseGroup::shared(vec![a.into(), inner.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![shared.into(), d.into()])?)?;
    Ok(p)
}

#[test]
fn lit_buffer_offset_alignment() -> R {
    // TLX: B 8 + C 2 → 130 (C at 128), then D at 256 → 264, rounded to 384 per group.
    let p = lit_alignment(1, 1, None)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    let spec = tlx.spec("s")?;
    assert_eq!(spec.group_stride, Some(384));
    assert_eq!(spec.backing_units, 1536);
    assert_eq!(slots(&tlx, "A")?, Some(vec![0, 48, 96, 144]));
    assert_eq!(slots(&tlx, "B")?, Some(vec![0, 48, 96, 144]));
    assert_eq!(slots(&tlx, "C")?, Some(vec![64]));
    assert_eq!(slots(&tlx, "D")?, Some(vec![32, 80, 128, 176]));
    assert_eq!(alias_shape(&tlx, "A")?, Some(vec![145, 2]));
    assert_eq!(alias_shape(&tlx, "C")?, Some(vec![65, 1]));
    assert_eq!(alias_shape(&tlx, "D")?, Some(vec![177, 2]));
    assert_eq!(starts(&tlx, "C")?, [128]);
    assert_eq!(starts(&tlx, "D")?, [256, 640, 1024, 1408]);
    // C has 1 buffer where the tree has 4 groups: TLX accepts, Intended refuses.
    assert!(tlx.warnings.iter().any(|w| matches!(
        w,
        Warning::AcceptedByTlx(AllocError::BufferCountMismatch { alloc, .. }) if alloc == "C"
    )));
    assert!(matches!(
        p.plan(&PlanOptions::new(Mode::Intended)),
        Err(AllocError::BufferCountMismatch { .. })
    ));

    // Consistent counts (and a 2-element C). Intended with the default SMEM alignment (128,
    // TMA's) lands on TLX's offsets; its backing stops after the last group's content
    // (3 · 384 + 264) where TLX pads it to a whole group.
    let q = lit_alignment(2, 4, None)?;
    let intended = plan(&q, Mode::Intended)?;
    let spec = intended.spec("s")?;
    assert_eq!((spec.group_stride, spec.backing_units), (Some(384), 1416));
    assert_eq!(starts(&intended, "B")?, [0, 384, 768, 1152]);
    assert_eq!(starts(&intended, "C")?, [128, 512, 896, 1280]);
    assert_eq!(starts(&intended, "D")?, [256, 640, 1024, 1408]);
    assert_eq!(plan_tlx_backing(&q)?, (Some(384), 1536));

    // Asking for 16 bytes (the layout's own alignment) packs the group into 48.
    let r = lit_alignment(2, 4, Some(16))?;
    let packed = plan(&r, Mode::Intended)?;
    let spec = packed.spec("s")?;
    assert_eq!(
        (spec.group_stride, spec.backing_units),
        (Some(48), 3 * 48 + 40)
    );
    assert_eq!(starts(&packed, "A")?, [0, 48, 96, 144]);
    assert_eq!(starts(&packed, "B")?, [0, 48, 96, 144]);
    assert_eq!(starts(&packed, "C")?, [16, 64, 112, 160]);
    assert_eq!(starts(&packed, "D")?, [32, 80, 128, 176]);
    Ok(())
}

fn plan_tlx_backing(p: &Program) -> Result<(Option<u64>, u64), AllocError> {
    let tlx = plan(p, Mode::TlxCompatible)?;
    let spec = tlx.spec("s")?;
    Ok((spec.group_stride, spec.backing_units))
}

// ----- The design doc's diagram (seed 000) -------------------------------------------------

/// The FA comment diagram: within each QK buffer, the P slices sit side by side from its
/// start, then alpha, l and m one after the other:
///
/// ```text
///   QK : |            BLK_M/2 * BLOCK_N * fp32            |
///   P  : | BLK_M/(2*SLICES) * fp16 | BLK_M/(2*SLICES) * fp16 |
/// Alpha:                                                      |fp32|
///   l  :                                                           |fp32|
///   m  :                                                                |fp32|
/// ```
#[test]
fn design_doc_diagram() -> R {
    let p = fa_forward(128, 128, 2, 1)?;
    let row = |plan: &Plan, group: u64| -> Result<Vec<(String, u64, u64)>, AllocError> {
        let mut out = Vec::new();
        for (name, index) in [("qk", group), ("p", 2 * group), ("p", 2 * group + 1)]
            .into_iter()
            .chain(["alpha", "l", "m"].map(|n| (n, group)))
        {
            let a = plan.alloc(name)?;
            let start = plan.buffer_start(name, index)?;
            out.push((name.to_string(), start, start + a.unit));
        }
        Ok(out)
    };
    let drawn = |base: u64| -> Vec<(String, u64, u64)> {
        [
            ("qk", 0, 128),
            ("p", 0, 32),
            ("p", 32, 64),
            ("alpha", 64, 65),
            ("l", 65, 66),
            ("m", 66, 67),
        ]
        .iter()
        .map(|&(n, s, e)| (n.to_string(), base + s, base + e))
        .collect()
    };
    let intended = plan(&p, Mode::Intended)?;
    assert_eq!(row(&intended, 0)?, drawn(0));
    assert_eq!(row(&intended, 1)?, drawn(128));
    // TLX does not draw this picture: its second slice starts at 96, not 32.
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_ne!(row(&tlx, 0)?, drawn(0));
    assert_eq!(tlx.buffer_start("p", 1)?, 96);
    Ok(())
}

// ----- Where TLX's reindexing is not the documented layout although scale = 1 ---------------

#[test]
fn tlx_scale_one_with_offset_collides() -> R {
    // distinct(x, shared(p, gs = 2)) of 1-column f32 tiles: p's scale is 1 but its offset 1
    // makes TLX rewrite `i + 1 + i mod 2`: slots 1, 3, 3, 5 — p[1] and p[2] collide.
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
    let x = p.local_alloc("x", &[128, 1], DType::F32, 2, s)?;
    let pt = p.local_alloc("p", &[128, 1], DType::F32, 4, s)?;
    let sub = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
    p.set_buffer_overlap(s, ReuseGroup::distinct(vec![x.into(), sub.into()])?)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(
        tlx.alloc("p")?.reindex,
        Some(Reindex::Tlx(TlxRewrite {
            scale: 1,
            offset: 1,
            group_size: 2,
        }))
    );
    assert_eq!(slots(&tlx, "p")?, Some(vec![1, 3, 3, 5]));
    assert!(overlaps(&tlx, "p", 1, "p", 2), "{:?}", tlx.warnings);
    assert!(disagrees(&tlx, "p"));
    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(starts(&plan, "x")?, [0, 3]);
    assert_eq!(starts(&plan, "p")?, [1, 2, 4, 5]);
    Ok(())
}

#[test]
fn tlx_identity_under_nested_group_sizes() -> R {
    // shared[gs 2](distinct(shared[gs 2](a ×4), b ×2)) of 1-column tiles: a's scale is 1 and
    // its offset 0, so TLX does not rewrite it (a[i] at i), but the documented layout puts
    // outer subtile 1 after b: a[2] at 3, not on top of b[0] at 2.
    let mut p = Program::new();
    let s = p.storage_alias_spec("s", Storage::Tmem, None)?;
    let a = p.local_alloc("a", &[128, 1], DType::F32, 4, s)?;
    let b = p.local_alloc("b", &[128, 1], DType::BF16, 2, s)?;
    let inner = ReuseGroup::shared(vec![a.into()])?.group_size(2)?;
    let distinct = ReuseGroup::distinct(vec![inner.into(), b.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![distinct.into()])?.group_size(2)?)?;
    let tlx = plan(&p, Mode::TlxCompatible)?;
    assert_eq!(
        tlx.alloc("a")?.reindex,
        Some(Reindex::Tlx(TlxRewrite {
            scale: 1,
            offset: 0,
            group_size: 4,
        }))
    );
    assert!(matches!(tlx.alloc("a")?.reindex, Some(Reindex::Tlx(r)) if !r.rewrites()));
    assert_eq!(starts(&tlx, "a")?, [0, 1, 2, 3]);
    assert_eq!(tlx.alloc("a")?.explicit.offset(2).ok(), Some(3));
    assert!(disagrees(&tlx, "a"));
    assert!(overlaps(&tlx, "a", 2, "b", 0), "{:?}", tlx.warnings);
    let plan = plan(&p, Mode::Intended)?;
    assert_eq!(starts(&plan, "a")?, [0, 1, 3, 4]);
    assert_eq!(starts(&plan, "b")?, [2, 5]);
    Ok(())
}

#[test]
fn two_cta_rhs_is_sized_as_tlx_stores_it() -> R {
    // dQ of the 2-CTA FA backward: f32 [64, 128] as a TwoCTA_RHS accumulator is stored as 128
    // lanes × 64 columns, in both modes; an explicit size for 64 lanes is too small in both.
    let program = |size: Option<u64>| -> Result<Program, AllocError> {
        let mut p = Program::new();
        let s = p.storage_alias_spec("s", Storage::Tmem, size)?;
        p.alloc(Allocation {
            layout: AllocLayout::Tmem(tmem_layout(64, 128), CtaMode::TwoCtaRhs),
            ..Allocation::new(
                "dq",
                &[64, 128],
                DType::F32,
                1,
                Storage::Tmem,
                Reuse::Spec(s),
            )
        })?;
        Ok(p)
    };
    for mode in [Mode::Intended, Mode::TlxCompatible] {
        let plan = plan(&program(None)?, mode)?;
        let spec = plan.spec("s")?;
        assert_eq!(
            (spec.rows, spec.backing_units, spec.buffer_size_bytes),
            (128, 64, 32768),
            "{mode:?}"
        );
        assert!(matches!(
            program(Some(16384))?.plan(&PlanOptions::new(mode)),
            Err(AllocError::ExplicitSizeTooSmall {
                required: 32768,
                ..
            })
        ));
    }
    Ok(())
}
