//! `tcgen05.cp` of block scales against both peers (Triton 3.9's `tmem_copy` lowering and
//! TLX's `copyScales`, `tests/data/tmem_copies.json` from `tools/gen_tmem_copies.py`): the same
//! copies — count, shape, TMEM column, shared start, stride — and, for every layout we accept,
//! the interpreter's run of the whole kernel puts every scale where the TMEM scales layout
//! wants it; every kernel assembles with ptxas for sm_100a.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::interp::{run, Config, InterpError, ParamValue};
use codegen::ptx::{parse, Builder, CmpOp, IntType, SpecialReg, Target};
use codegen::tmem::{scales_copy_kernel, TmemCopyPlan, TmemError};
use linear_layout::families::TensorMemoryScales;
use linear_layout::{AddressMap, BufferMap, LinearLayout};
use test_support::tmem::assemble_all;

/// Cases where TLX copies something else, and why we are right: TLX's `copyScales` finds block
/// `j`'s start by inverting the shared layout at flat index `512·j`; for Triton's own
/// `test_tmem_copy_2d` layout that is byte 4, which the descriptor's 16-byte start field
/// truncates to byte 0 — block 0 is copied twice. Its second block starts at byte 512 (what
/// Triton 3.9 emits for the same buffer, case 00); the interpreter checks every byte.
const TLX_WRONG: [&str; 1] = ["tmem_copies/27"];

fn smem_map(bases: &[Vec<u64>], shape: &[u64]) -> AddressMap {
    let dims: Vec<(String, u64)> = shape
        .iter()
        .enumerate()
        .map(|(i, &s)| (format!("dim{i}"), s))
        .collect();
    let dims: Vec<(&str, u64)> = dims.iter().map(|(d, s)| (d.as_str(), *s)).collect();
    let layout = LinearLayout::from_bases(&[("offset", bases.to_vec())], &dims, true).unwrap();
    AddressMap::shared(BufferMap::new(0, &[]).unwrap(), 8, &layout).unwrap()
}

/// The shared coordinates of TMEM scale (m, k), independently of the plan: the same
/// coordinates for same shapes, TLX's blocked order otherwise.
fn smem_coords(m: u64, k: u64, smem: &[u64], tmem: &[u64]) -> Vec<u64> {
    if smem == tmem {
        return vec![m, k];
    }
    let kb = tmem[1] / 4;
    let mut flat = (((m / 128) * kb + k / 4) * 32 + m % 32) * 16 + 4 * ((m % 128) / 32) + k % 4;
    let mut out = vec![0; smem.len()];
    for (o, &d) in out.iter_mut().zip(smem).rev() {
        *o = flat % d;
        flat /= d;
    }
    out
}

/// Runs the copy kernel on pseudo-random bytes and checks every byte of every TMEM lane.
fn check_in_interpreter(
    id: &str,
    plan: &TmemCopyPlan,
    map: &AddressMap,
    smem: &[u64],
    tmem: &[u64],
) -> codegen::ptx::Kernel {
    let bytes: u64 = smem.iter().product();
    let kernel = scales_copy_kernel("scales_copy", plan, bytes as u32).unwrap();
    let kernel = parse(&kernel.to_string()).unwrap();
    let src: Vec<u8> = (0..bytes)
        .map(|i| (i.wrapping_mul(2654435761) >> 7) as u8)
        .collect();
    let cols = u64::from(plan.columns());
    let out = run(
        &kernel,
        &Config::new(128),
        &[
            ParamValue::Buffer(src.clone()),
            ParamValue::Buffer(vec![0; (128 * cols * 4) as usize]),
        ],
    )
    .unwrap_or_else(|e| panic!("{id}: {e}"));
    let layout = TensorMemoryScales::default()
        .to_linear_layout(tmem)
        .unwrap();
    for lane in 0..128u64 {
        for byte in 0..4 * cols {
            let el = layout.apply(&[("row", lane), ("col", byte)]).unwrap();
            let (m, k) = (el[0].1, el[1].1);
            let at = map
                .address(0, &smem_coords(m, k, smem, tmem))
                .unwrap()
                .byte()
                .unwrap();
            let got = out.buffers[1][(lane * cols * 4 + byte) as usize];
            assert_eq!(
                got, src[at as usize],
                "{id}: lane {lane}, byte {byte} (scale {m}, {k})"
            );
        }
    }
    kernel
}

#[test]
fn copies_are_the_peers_and_land_where_the_layout_says() {
    let path = format!("{}/tests/data/tmem_copies.json", env!("CARGO_MANIFEST_DIR"));
    let doc: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(doc["triton_version"], "3.9.0");
    assert_eq!(doc["fbtriton_version"], "3.7.4");
    let (mut same, mut refused, mut departed, mut kernels) = (0, 0, 0, Vec::new());
    for case in doc["cases"].as_array().unwrap() {
        let id = case["id"].as_str().unwrap();
        let smem: Vec<u64> = serde_json::from_value(case["smem_shape"].clone()).unwrap();
        let tmem: Vec<u64> = serde_json::from_value(case["tmem_shape"].clone()).unwrap();
        let bases: Vec<Vec<u64>> = match &case["expect"]["ok"] {
            serde_json::Value::Null => {
                serde_json::from_value(case["smem_layout"]["offset_bases"].clone()).unwrap()
            }
            ok => serde_json::from_value(ok["smem_bases"].clone()).unwrap(),
        };
        let map = smem_map(&bases, &smem);
        let ours = TmemCopyPlan::for_scales(&map, &smem, &TensorMemoryScales::default(), &tmem);
        match (&case["expect"]["ok"], ours) {
            (serde_json::Value::Null, Err(e)) => {
                assert!(matches!(e, TmemError::CopyMismatch { .. }), "{id}: {e}");
                refused += 1;
            }
            (serde_json::Value::Null, Ok(plan)) => {
                panic!("{id}: the peer refuses, we copy {:?}", plan.copies())
            }
            (ok, Ok(plan)) => {
                let mut theirs: Vec<(u64, u64, u64)> = ok["copies"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|c| {
                        assert_eq!(
                            c["opcode"], "tcgen05.cp.cta_group::1.warpx4.32x128b",
                            "{id}"
                        );
                        // Bits 49-51 (the base offset, read by swizzled layouts only) aside.
                        let high = c["high"].as_u64().unwrap() & !(0b111 << 17);
                        (
                            c["column"].as_u64().unwrap(),
                            c["start"].as_u64().unwrap(),
                            high,
                        )
                    })
                    .collect();
                theirs.sort();
                let mine: Vec<(u64, u64, u64)> = plan
                    .copies()
                    .iter()
                    .map(|c| (u64::from(c.column), c.smem_offset, 0x4000 | c.sbo >> 4))
                    .collect();
                if TLX_WRONG.contains(&id) {
                    assert_ne!(mine, theirs, "{id}: TLX now agrees; drop it from TLX_WRONG");
                    departed += 1;
                } else {
                    assert_eq!(mine, theirs, "{id}");
                    same += 1;
                }
                kernels.push(check_in_interpreter(id, &plan, &map, &smem, &tmem));
            }
            (_, Err(e)) => panic!("{id}: the peer copies, we refuse: {e}"),
        }
    }
    let assembled = assemble_all(&kernels);
    println!("tcgen05.cp: {same} cases copy as the peer does, {refused} refused by both, {departed} departures; {assembled} kernels assembled");
    assert_eq!((same, refused, departed), (24, 3, 1));
}

/// The interpreter catches the protocol mistakes a copy kernel can make.
#[test]
fn copy_protocol_mistakes_are_errors() {
    let (good, run_with) = copy_kernel();
    let go = |text: &str| run_with(text, &[1; 512]);
    assert!(go(&good).is_ok());
    // No fence between the shared stores and the copy.
    let unfenced = good.replace("fence.proxy.async.shared::cta;", "");
    assert!(matches!(
        go(&unfenced),
        Err(InterpError::UnfencedSharedWrite { .. })
    ));
    // A fence covers its own thread's writes only: with thread 0 alone fencing, the copy's first
    // chunk (bytes 0-15, threads 0-3's words) holds thread 1's unfenced word.
    let one_fence = good.replace(
        "fence.proxy.async.shared::cta;",
        "@%p1 fence.proxy.async.shared::cta;",
    );
    match go(&one_fence) {
        Err(InterpError::UnfencedSharedWrite { thread, writer, .. }) => {
            assert_eq!((thread, writer), (0, 1))
        }
        other => panic!("{other:?}"),
    }
    // While the copy is in flight, the cells it does not write are free to read: a load of
    // column 8 (the copy writes columns 0-3) between the commit and the wait is fine, one of
    // column 0 is not.
    let early_load = |column: u32| {
        good.replace(
            "L__wait_0:",
            &format!(
                "shl.b32 %r10, %r1, 21;\nadd.u32 %r11, %r3, %r10;\n\
                 tcgen05.ld.sync.aligned.32x32b.x1.b32 {{%r12}}, [%r11+{column}];\n\
                 tcgen05.wait::ld.sync.aligned;\nL__wait_0:"
            ),
        )
    };
    assert!(go(&early_load(8)).is_ok(), "{:?}", go(&early_load(8)));
    match go(&early_load(0)) {
        Err(InterpError::TmemCopyInFlight { column, .. }) => assert_eq!(column, 0),
        other => panic!("{other:?}"),
    }
    // No commit: the wait never completes.
    let uncommitted: String = good
        .lines()
        .filter(|l| !l.contains("tcgen05.commit"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(matches!(
        go(&uncommitted),
        Err(InterpError::MbarrierDeadlock { .. })
    ));
    // Descriptors outside the model are refused, not guessed (PTX ISA 9.7.16.4.1): the fixed
    // 0b001 at bits 46-48 missing or different, the absolute leading-dimension mode (bit 52),
    // a swizzle mode (bits 61-63, each one alone).
    let descriptor = |f: &dyn Fn(u64) -> u64| -> String {
        good.lines()
            .map(|l| {
                // The descriptor's constant part: `or.b64 %rdN, %rdM, <imm>;`.
                let imm = Some(l.trim())
                    .filter(|t| t.starts_with("or.b64") || t.starts_with("mov.b64"))
                    .and_then(|r| r.rsplit_once(", "))
                    .and_then(|(_, v)| v.trim_end_matches(';').parse::<u64>().ok())
                    .filter(|v| v >> 46 & 0b111 == 0b001);
                match imm {
                    Some(v) => format!("{}\n", l.replace(&v.to_string(), &f(v).to_string())),
                    None => format!("{l}\n"),
                }
            })
            .collect()
    };
    assert_ne!(
        descriptor(&|v| v ^ 1 << 52),
        good,
        "the descriptor is found"
    );
    for (what, f) in [
        (
            "bits 46-48",
            &(|v: u64| v & !(1u64 << 46)) as &dyn Fn(u64) -> u64,
        ),
        ("bits 46-48", &|v| v | 1u64 << 47),
        ("bits 46-48", &|v| v | 1u64 << 48),
        ("absolute", &|v| v | 1u64 << 52),
        ("swizzled", &|v| v | 1u64 << 61),
        ("swizzled", &|v| v | 1u64 << 62),
        ("swizzled", &|v| v | 1u64 << 63),
    ] {
        match go(&descriptor(f)) {
            Err(InterpError::CpDescriptor { reason, desc, .. }) => {
                assert!(reason.contains(what), "{what}: {reason}");
                assert_eq!(
                    f(desc),
                    desc,
                    "{what}: the descriptor reported is the one refused"
                );
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // The fields around them (base offset bits 49-51, the LBO mode's neighbours 53-60) are not
    // read: a descriptor with them set copies as before.
    assert!(go(&descriptor(&|v| v | 0b111 << 49 | 0xFF << 53)).is_ok());
    // No wait: the loads read cells the copy is still writing.
    let unwaited: String = good
        .lines()
        .filter(|l| !l.contains("mbarrier.try_wait") && !l.contains("bra L__wait"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(
        matches!(
            go(&unwaited),
            Err(InterpError::TmemCopyInFlight { .. }) | Err(InterpError::InvalidKernel(_))
        ),
        "{:?}",
        go(&unwaited)
    );
}

/// Emission costs: one `add.s64` per further copy, against Triton's four instructions
/// (`add`, `mov.b32`, `mov.b64` for the descriptor, `add` for the TMEM address).
#[test]
fn a_copy_costs_one_address_instruction() {
    let shape = [1u64, 1, 8, 2, 256];
    let bases: Vec<Vec<u64>> = (0..8)
        .map(|b| vec![0, 0, 0, 0, 1 << b])
        .chain([vec![0, 0, 0, 1, 0]])
        .chain((0..3).map(|b| vec![0, 0, 1 << b, 0, 0]))
        .collect();
    let map = smem_map(&bases, &shape);
    let plan =
        TmemCopyPlan::for_scales(&map, &shape, &TensorMemoryScales::default(), &[128, 32]).unwrap();
    let mut b = Builder::new("k", Target::Sm100a).unwrap();
    let s = b.mov(codegen::ptx::RegType::B32, 1024).unwrap();
    let t = b.mov(codegen::ptx::RegType::B32, 0).unwrap();
    let tid = b.special(SpecialReg::TidX).unwrap();
    let one = b.setp(CmpOp::Eq, IntType::U32, tid, 0).unwrap();
    let before = b.kernel().address_alu_count();
    plan.issue(&mut b, s, t, one).unwrap();
    assert_eq!(plan.copies().len(), 8);
    assert_eq!(b.kernel().address_alu_count() - before, 3 + 7);
}

/// Triton prints the multicast before the shape; both orders parse to the same instruction,
/// which prints in the ISA's order.
#[test]
fn both_qualifier_orders_parse() {
    let text = |op: &str| {
        format!(
            ".version 8.7\n.target sm_100a\n.address_size 64\n.visible .entry k()\n{{\n.reg .b32 %r<1>;\n.reg .b64 %rd<1>;\n{op}\nret;\n}}\n"
        )
    };
    for op in [
        "tcgen05.cp.cta_group::1.warpx4.32x128b [%r0], %rd0;",
        "tcgen05.cp.cta_group::1.32x128b.warpx4 [%r0], %rd0;",
    ] {
        let k = parse(&text(op)).unwrap();
        assert!(
            k.to_string()
                .contains("tcgen05.cp.cta_group::1.32x128b.warpx4 [%r0], %rd0;"),
            "{k}"
        );
    }
    assert!(parse(&text("tcgen05.cp.cta_group::1.32x128b [%r0], %rd0;")).is_err());
    assert!(parse(&text("tcgen05.cp.cta_group::1.4x256b [%r0], %rd0;")).is_err());
}

/// Where a copy puts its data: row `r`, 16-byte chunk `c` of a `128x256b` copy is read at
/// `start + 16·(r % 8) + SBO·(r / 8) + LBO·c` and lands in lane `r`, columns `4c … 4c + 3`;
/// a copy issued by a thread of warp 2 that reaches past tensor memory or its allocation is an
/// error naming warp 2 and the cell.
#[test]
fn copies_land_by_row_and_chunk_and_refuse_cells_outside() {
    let (good, go) = copy_kernel();
    let (lbo, sbo) = (128u64, 16u64);
    let wide = good
        .replace(
            "tcgen05.cp.cta_group::1.32x128b.warpx4",
            "tcgen05.cp.cta_group::1.128x256b",
        )
        .replace(
            &(1u64 << 46 | 128 >> 4 << 32).to_string(),
            &(1u64 << 46 | sbo >> 4 << 32 | lbo >> 4 << 16).to_string(),
        );
    assert_ne!(wide, good);
    let src: Vec<u8> = (0..512).map(|i| (i * 7 % 251) as u8).collect();
    let out = go(&wide, &src).unwrap();
    for r in 0..128u32 {
        for c in 0..2u32 {
            for w in 0..4u32 {
                let at = (16 * (r % 8) + sbo as u32 * (r / 8) + lbo as u32 * c + 4 * w) as usize;
                let want = u32::from_le_bytes(src[at..at + 4].try_into().unwrap());
                assert_eq!(
                    out.tmem.get(r, 4 * c + w),
                    Some(want),
                    "row {r} chunk {c} word {w}"
                );
            }
        }
    }
    // Issued by thread 70 (warp 2), to cells past the 512 columns, past the 128 lanes, past
    // the 32 columns allocated.
    let by_70 = good.replace("setp.eq.u32 %p1, %r0, 0;", "setp.eq.u32 %p1, %r0, 70;");
    let at = |offset: u32| by_70.replace("[%r3], %rd5", &format!("[%r3+{offset}], %rd5"));
    assert!(go(&at(0), &src).is_ok());
    match go(&at(512), &src) {
        Err(InterpError::TmemOutOfRange {
            warp, lane, column, ..
        }) => assert_eq!((warp, lane, column), (2, 0, 512)),
        other => panic!("{other:?}"),
    }
    match go(&at(128 << 16), &src) {
        Err(InterpError::TmemOutOfRange {
            warp, lane, column, ..
        }) => assert_eq!((warp, lane, column), (2, 128, 0)),
        other => panic!("{other:?}"),
    }
    match go(&at(32), &src) {
        Err(InterpError::TmemUnallocated { warp, column, .. }) => {
            assert_eq!((warp, column), (2, 32))
        }
        other => panic!("{other:?}"),
    }
}

/// The scales copy kernel of `copy_protocol_mistakes_are_errors` (512 shared bytes from
/// `src`, one `32x128b.warpx4` copy, read back by `tcgen05.ld`), and a runner for a variant.
#[allow(clippy::type_complexity)]
fn copy_kernel() -> (
    String,
    impl Fn(&str, &[u8]) -> Result<codegen::interp::Outcome, InterpError>,
) {
    let layout = LinearLayout::identity_1d(512, "offset", "flat")
        .unwrap()
        .reshape_outs(&[("dim3", 16), ("dim2", 32), ("dim1", 1), ("dim0", 1)])
        .unwrap()
        .transpose_outs(&["dim0", "dim1", "dim2", "dim3"])
        .unwrap();
    let map = AddressMap::shared(BufferMap::new(0, &[]).unwrap(), 8, &layout).unwrap();
    let plan = TmemCopyPlan::for_scales(
        &map,
        &[1, 1, 32, 16],
        &TensorMemoryScales::default(),
        &[128, 4],
    )
    .unwrap();
    let good = scales_copy_kernel("cp", &plan, 512).unwrap().to_string();
    let go = |text: &str, src: &[u8]| {
        run(
            &parse(text).unwrap(),
            &Config::new(128),
            &[
                ParamValue::Buffer(src.to_vec()),
                ParamValue::Buffer(vec![0; 128 * 16]),
            ],
        )
    };
    (good, go)
}
