//! End-to-end tests of `linalias ptx` and `linalias plan FILE --emit ptx` through the real
//! binary: what they print is the library's kernel, ptxas assembles it, and the interpreter
//! running the printed text puts every element where the `AddressMap` says. Also keeps
//! `benches/data/ours_ptx/*.ptx` (the kernels counted against Triton 3.9 in
//! `docs/benchmarks.md`) equal to what `linalias` prints today; `BLESS=1` rewrites them.

#![allow(clippy::restriction)] // test code: a failed check panics

use std::path::{Path, PathBuf};
use std::process::Command;

use alias_alloc::plan_file::PlanFile;
use alias_alloc::{AllocLayout, Mode, PlanOptions};
use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::plan_ptx::{AllocationKernel, PlanPtx, PlanPtxOptions};
use codegen::ptx::parse;
use codegen::smem::kernels::{
    access_kernel, round_trip, round_trip_in_rounds, tile_load, tile_round_trip,
    tile_round_trip_in_rounds, tile_store, TestKernel,
};
use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::{AddressMap, BufferMap, LinearLayout};
use serde_json::Value;
use test_support::cli::{fails, ok};
use test_support::smem::check_run;

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const NVMMA128: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn example(name: &str) -> String {
    root().join("examples").join(name).display().to_string()
}

/// The ptxas to use, or `None` (skip) when there is none and `REQUIRE_PTXAS` is unset.
fn ptxas() -> Option<PathBuf> {
    codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
}

fn assemble(text: &str, arch: &str, what: &str) {
    if let Some(p) = ptxas() {
        if let Err(e) = codegen::ptxas::assemble_with(&p, text, arch) {
            panic!("{what}: ptxas rejected it: {e}\n{text}");
        }
    }
}

/// A layout argument as the CLI reads it: JSON, or an MLIR attribute built at `shape`.
fn layout(text: &str, shape: &[u64]) -> LinearLayout {
    if text.starts_with('#') {
        Encoding::from_mlir(text)
            .unwrap()
            .to_linear_layout(shape)
            .unwrap()
    } else {
        LinearLayout::from_json_str(text).unwrap()
    }
}

/// `--mem` as the CLI builds it: `buffers` buffers on the layout's alignment.
fn shared_map(text: &str, shape: &[u64], bits: u32, buffers: u64) -> AddressMap {
    let one = BufferMap::new(0, &[]).unwrap();
    let map = match text
        .starts_with('#')
        .then(|| Encoding::from_mlir(text).unwrap())
    {
        Some(Encoding::Shared(enc @ (SharedEncoding::Nvmma(_) | SharedEncoding::Swizzled(_)))) => {
            AddressMap::from_shared_encoding(one, bits, &enc, shape).unwrap()
        }
        _ => AddressMap::shared(one, bits, &layout(text, shape)).unwrap(),
    };
    let align = map.required_alignment();
    let stride = map.element_span().div_ceil(align) * align;
    map.with_buffer(BufferMap::new(0, &[(buffers, stride)]).unwrap())
}

/// The value after `flag` in `argv`.
fn flag<'a>(argv: &'a [String], flag: &str) -> Option<&'a str> {
    argv.iter()
        .position(|a| a == flag)
        .and_then(|i| argv.get(i + 1))
        .map(String::as_str)
}

/// The kernel `linalias ptx argv` must print, built with the library (constant index 0, one
/// buffer, explicit lowering, the `--dtype` elements).
fn library_kernel(argv: &[String]) -> TestKernel {
    let shape: Vec<u64> = flag(argv, "--shape")
        .unwrap()
        .split('x')
        .map(|d| d.parse().unwrap())
        .collect();
    let bits = flag(argv, "--dtype")
        .unwrap()
        .parse::<linear_layout::DType>()
        .unwrap()
        .bits();
    let name = flag(argv, "--name").unwrap();
    let regs = layout(flag(argv, "--regs").unwrap(), &shape);
    let index = IndexSource::Const(vec![0]);
    let explicit = BufferLowering::Explicit;
    let global = argv.iter().any(|a| a == "--global");
    if let (Some(dst), Some("auto")) = (flag(argv, "--round-trip"), flag(argv, "--mem")) {
        let load = layout(dst, &shape);
        let scratch = codegen::smem::optimal_scratch(&regs, &load, bits).unwrap();
        let cap = flag(argv, "--max-scratch-bytes").map_or(u64::MAX, |c| c.parse().unwrap());
        let max = cap.min(scratch.bytes);
        if global {
            return tile_round_trip_in_rounds(name, &scratch.layout, bits, &regs, &load, max)
                .unwrap();
        }
        return round_trip_in_rounds(name, &scratch.layout, bits, &regs, &load, max).unwrap();
    }
    if global {
        assert!(
            flag(argv, "--max-scratch-bytes").is_none(),
            "not in the benchmark"
        );
        let map = shared_map(flag(argv, "--mem").unwrap(), &shape, bits, 1);
        return match flag(argv, "--round-trip") {
            Some(dst) => tile_round_trip(name, &map, &regs, &layout(dst, &shape)),
            None if argv.iter().any(|a| a == "--load") => tile_load(name, &map, &regs),
            None => tile_store(name, &map, &regs),
        }
        .unwrap();
    }
    if let (Some(dst), Some(cap)) = (
        flag(argv, "--round-trip"),
        flag(argv, "--max-scratch-bytes"),
    ) {
        let scratch = layout(flag(argv, "--mem").unwrap(), &shape);
        let (load, max) = (layout(dst, &shape), cap.parse().unwrap());
        return round_trip_in_rounds(name, &scratch, bits, &regs, &load, max).unwrap();
    }
    let map = shared_map(flag(argv, "--mem").unwrap(), &shape, bits, 1);
    match flag(argv, "--round-trip") {
        Some(dst) => round_trip(name, &map, &regs, &layout(dst, &shape), &index, explicit),
        None if argv.iter().any(|a| a == "--load") => {
            access_kernel(name, &map, &regs, MemoryOp::Load, &index, explicit)
        }
        None => access_kernel(name, &map, &regs, MemoryOp::Store, &index, explicit),
    }
    .unwrap()
}

/// `ld.shared[.vN].bK` as `ld.shared.<N·K/8>B` (the access's width); other opcodes as they are.
fn access_width(op: &str) -> String {
    let parts: Vec<&str> = op.split('.').collect();
    match parts.as_slice() {
        [kind @ ("ld" | "st"), "shared", rest @ ..] => {
            let n: u64 = rest
                .iter()
                .find_map(|p| p.strip_prefix('v').and_then(|v| v.parse().ok()))
                .unwrap_or(1);
            let bits: u64 = rest
                .iter()
                .find_map(|p| p.strip_prefix('b').and_then(|v| v.parse().ok()))
                .unwrap_or(0);
            format!("{kind}.shared.{}B", n * bits / 8)
        }
        _ => op.to_string(),
    }
}

/// `tools/ptx_address_count.py --json` on `path`: (instructions, accesses), or `None` without
/// python3.
fn python_count(path: &Path) -> Option<(u64, u64)> {
    let out = Command::new("python3")
        .arg(root().join("tools/ptx_address_count.py"))
        .arg("--json")
        .arg(path)
        .output()
        .ok()?;
    assert!(
        out.status.success(),
        "counter: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap();
    let (_, k) = v.as_object().unwrap().iter().next().unwrap();
    Some((
        k["instructions"].as_u64().unwrap(),
        k["accesses"].as_u64().unwrap(),
    ))
}

#[test]
fn the_kernels_counted_against_triton_are_what_linalias_prints() {
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("benches/data/ours_address_counts.json")).unwrap(),
    )
    .unwrap();
    let pairs = data["pairs"].as_array().unwrap();
    assert_eq!(pairs.len(), 48);
    let mut counted = 0;
    for p in pairs {
        let name = p["name"].as_str().unwrap();
        let argv: Vec<String> = p["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap().to_owned())
            .collect();
        let args: Vec<&str> = argv.iter().map(String::as_str).collect();
        let text = ok(&args);
        let path = root().join(p["ptx"].as_str().unwrap());
        // After a rewrite (`BLESS=1`), rerun tools/ours_address_counts.py for the counts.
        test_support::golden::check(&path, &text);
        // The printed kernel is the library's, and every address is the map's.
        let k = library_kernel(&argv);
        assert_eq!(text, k.kernel.to_string(), "{name}");
        let checked = check_run(&k, None).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(checked.accesses % 32, 0, "{name}: whole warps");
        assert!(checked.elements >= 64 * 16, "{name}");
        assemble(&text, "sm_90a", name);
        // Our kernels never need more address instructions than Triton's, nor more shared bytes.
        let ours = p["counts"]["instructions"].as_u64().unwrap();
        let triton = p["triton"]["instructions"].as_u64().unwrap();
        assert!(ours <= triton, "{name}: {ours} > Triton's {triton}");
        let (bytes, triton_bytes) = (
            p["shared_bytes"].as_u64(),
            p["triton_shared_bytes"].as_u64(),
        );
        assert!(
            bytes <= triton_bytes,
            "{name}: {bytes:?} shared bytes > Triton's {triton_bytes:?}"
        );
        // The same shared accesses, instruction for instruction (we print `.shared::cta`; a
        // plain ld/st counts by its width: Triton's `ld.shared.v2.b8` is our `ld.shared.b16`).
        let opcodes = |v: &Value| -> Vec<(String, u64)> {
            let mut out: Vec<(String, u64)> = v
                .as_object()
                .unwrap()
                .iter()
                .map(|(op, n)| (access_width(&op.replace("::cta", "")), n.as_u64().unwrap()))
                .collect();
            out.sort();
            out
        };
        assert_eq!(
            opcodes(&p["counts"]["accesses_by_opcode"]),
            opcodes(&p["triton"]["accesses_by_opcode"]),
            "{name}: the same shared accesses as Triton"
        );
        if let Some(counts) = python_count(&path) {
            assert_eq!(
                counts,
                (ours, p["counts"]["accesses"].as_u64().unwrap()),
                "{name}: rerun tools/ours_address_counts.py"
            );
            counted += 1;
        }
    }
    if counted == 0 {
        eprintln!("skipped the counts: no python3");
    }
}

#[test]
fn store_and_load_with_stats() {
    let store = ok(&[
        "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--stats",
    ]);
    let (kernel, stats) = store.split_at(store.find("}\n//").unwrap() + 2);
    assert!(
        kernel.starts_with(".version 8.7\n.target sm_90a\n"),
        "{kernel}"
    );
    assert!(kernel.contains(".visible .entry store_tile("), "{kernel}");
    assert_eq!(kernel.matches("st.shared::cta.v4.b32").count(), 4);
    assert_eq!(
        stats,
        "// store (buffer 0): 4 × st.shared.v4.b32 (16 B); address ALU 4 (1.00 per access); \
         thread base [16, 32, 64, 144, 288, 576, 1024]\n\
         // kernel: 128 threads, 8192 shared bytes, 4 shared accesses, 6 address instructions \
         (with the %tid.x and smem movs), 1.50 per access\n\
         // stmt   22 st.shared::cta.v4.b32: 4 warp issues, 16 wavefronts, 0 bank conflicts\n\
         // stmt   27 st.shared::cta.v4.b32: 4 warp issues, 16 wavefronts, 0 bank conflicts\n\
         // stmt   32 st.shared::cta.v4.b32: 4 warp issues, 16 wavefronts, 0 bank conflicts\n\
         // stmt   37 st.shared::cta.v4.b32: 4 warp issues, 16 wavefronts, 0 bank conflicts\n\
         // shared memory (H100, one launch): 0 ld + 16 st instructions, 0 + 64 wavefronts, \
         0 + 0 bank conflicts\n"
    );
    assemble(&store, "sm_90a", "store --stats");

    let load = ok(&[
        "ptx", "--regs", DOT_A, "--mem", NVMMA128, "--shape", "64x64", "--load", "--dtype", "bf16",
    ]);
    assert!(load.contains(".visible .entry load_tile("), "{load}");
    assert_eq!(
        load.matches("ldmatrix.sync.aligned.m8n8.x4.shared::cta.b16")
            .count(),
        8
    );
    let map = shared_map(NVMMA128, &[64, 64], 16, 1);
    let regs = layout(DOT_A, &[64, 64]);
    let k = access_kernel(
        "load_tile",
        &map,
        &regs,
        MemoryOp::Load,
        &IndexSource::Const(vec![0]),
        BufferLowering::Explicit,
    )
    .unwrap();
    assert_eq!(load, k.kernel.to_string());
    assert_eq!(check_run(&k, None).unwrap().accesses, 8 * 128);
}

/// `--shape` fits a `#ttg.linear` layout to the tensor as Triton's
/// `LinearEncodingAttr::toLinearLayout` does (the 64 × 64 layout at 128 × 64 is the blocked
/// layout it came from, at 128 × 64: twice the stores), and refuses a JSON layout of another
/// shape — it was printed at 64 × 64, silently ignoring `--shape` (#29).
#[test]
fn shape_fits_linear_layouts_and_refuses_json_of_another_shape() {
    let linear = format!("@{}", example("layouts/blocked_1x8_64x64.mlir"));
    let at =
        |regs: &str, shape: &str| ok(&["ptx", "--regs", regs, "--mem", NVMMA128, "--shape", shape]);
    let big = at(&linear, "128x64");
    assert_eq!(big, at(BLOCKED, "128x64"));
    assert_eq!(big.matches("st.shared::cta.v4.b32").count(), 8);
    assert_eq!(at(&linear, "64x64"), at(BLOCKED, "64x64"));
    let json = format!("@{}", example("layouts/nvmma128_f16_64x64.json"));
    let err = fails(
        &[
            "ptx", "--regs", BLOCKED, "--mem", &json, "--shape", "128x64",
        ],
        2,
    );
    assert!(
        err.contains("--mem: the JSON layout covers 64x64 but --shape is 128x64"),
        "{err}"
    );
    assert!(ok(&["ptx", "--regs", BLOCKED, "--mem", &json, "--shape", "64x64"]).contains(".entry"));
}

#[test]
fn run_time_buffer_index_explicit_and_tlx() {
    for (lowering, tlx) in [("explicit", None), ("tlx", Some([2u64, 1, 2]))] {
        let mut args = vec![
            "ptx",
            "--regs",
            BLOCKED,
            "--mem",
            NVMMA128,
            "--shape",
            "64x64",
            "--round-trip",
            DOT_A,
            "--buffers",
            "4",
            "--index",
            "runtime",
            "--lowering",
            lowering,
            "--name",
            "rt",
        ];
        if tlx.is_some() {
            args.extend(["--tlx", "2,1,2"]);
        }
        let text = ok(&args);
        assert!(text.contains(".param .u32 index"), "{text}");
        let map = shared_map(NVMMA128, &[64, 64], 16, 4);
        let lowering = match tlx {
            Some([scale, offset, group_size]) => {
                BufferLowering::TlxReindex(TlxReindex::new(scale, offset, group_size, 8192))
            }
            None => BufferLowering::Explicit,
        };
        let k = round_trip(
            "rt",
            &map,
            &layout(BLOCKED, &[64, 64]),
            &layout(DOT_A, &[64, 64]),
            &IndexSource::Param,
            lowering,
        )
        .unwrap();
        assert_eq!(text, k.kernel.to_string());
        for i in 0..4 {
            check_run(&k, Some(i)).unwrap_or_else(|e| panic!("buffer {i}: {e}"));
        }
        assemble(&text, "sm_90a", "run-time index");
    }
}

#[test]
fn eight_and_thirty_two_bit_elements_and_json_layouts() {
    let swizzled = "#ttg.swizzled_shared<{vec = 16, perPhase = 1, maxPhase = 8, order = [1, 0]}>";
    let f8 = "#ttg.blocked<{sizePerThread = [1, 16], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let text = ok(&[
        "ptx", "--regs", f8, "--mem", swizzled, "--shape", "64x128", "--dtype", "f8e4m3",
    ]);
    assert_eq!(text.matches("st.shared::cta.v4.b32").count(), 4, "{text}");
    assemble(&text, "sm_90a", "f8 store");
    // f32 through JSON layouts: 4 lanes × 4 registers, identity offsets.
    let regs = r#"{"bases":[["register",[[1],[2]]],["lane",[[4],[8],[16],[32],[64]]],["warp",[]]],"out_dims":[["dim0",128]]}"#;
    let mem =
        r#"{"bases":[["offset",[[1],[2],[4],[8],[16],[32],[64]]]],"out_dims":[["dim0",128]]}"#;
    let text = ok(&[
        "ptx", "--regs", regs, "--mem", mem, "--dtype", "f32", "--load",
    ]);
    assert_eq!(text.matches("ld.shared::cta.v4.b32").count(), 1, "{text}");
    let k = access_kernel(
        "load_tile",
        &shared_map(mem, &[128], 32, 1),
        &layout(regs, &[128]),
        MemoryOp::Load,
        &IndexSource::Const(vec![0]),
        BufferLowering::Explicit,
    )
    .unwrap();
    assert_eq!(text, k.kernel.to_string());
    check_run(&k, None).unwrap();
}

#[test]
fn bad_arguments_exit_2_and_refusals_exit_1() {
    let usage = [
        (
            vec![
                "ptx",
                "--regs",
                BLOCKED,
                "--mem",
                NVMMA128,
                "--shape",
                "64x64",
                "--global",
                "--buffers",
                "2",
            ],
            "--global: a tile kernel moves one buffer, index 0",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--global",
                "--index", "runtime",
            ],
            "--global: a tile kernel moves one buffer, index 0",
        ),
        (
            vec!["ptx", "--regs", BLOCKED, "--mem", NVMMA128],
            "--regs: a layout-family attribute needs the tensor shape",
        ),
        (
            vec![
                "ptx", "--regs", NVMMA128, "--mem", NVMMA128, "--shape", "64x64",
            ],
            "--regs: not a register layout",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", BLOCKED, "--shape", "64x64",
            ],
            "--mem: not a shared-memory layout",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--dtype", "f32",
            ],
            "--dtype: f32 has 32-bit elements; the --mem attribute has 16-bit ones",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--dtype", "f99",
            ],
            "--dtype:",
        ),
        (
            vec![
                "ptx",
                "--regs",
                BLOCKED,
                "--mem",
                NVMMA128,
                "--shape",
                "64x64",
                "--buffers",
                "2",
                "--index",
                "2",
            ],
            "--index: buffer 2 of 2",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--index", "later",
            ],
            "'later' is neither a buffer index nor 'runtime'",
        ),
        (
            vec![
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--load",
                "--store",
            ],
            "cannot be used with",
        ),
        (
            vec![
                "ptx",
                "--regs",
                BLOCKED,
                "--mem",
                NVMMA128,
                "--shape",
                "64x64",
                "--lowering",
                "tlx",
                "--tlx",
                "1,0,0",
            ],
            "GROUP must be at least 1",
        ),
    ];
    for (args, message) in usage {
        let err = fails(&args, 2);
        assert!(err.contains(message), "{args:?}: {err}");
    }
    // The emitter refuses 4-bit elements, and a register layout over another shape.
    let err = fails(
        &[
            "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64", "--dtype", "i4",
        ],
        2,
    );
    assert!(err.contains("--dtype: i4 has 4-bit elements"), "{err}");
    let swizzled = "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";
    let err = fails(
        &[
            "ptx", "--regs", BLOCKED, "--mem", swizzled, "--shape", "64x64", "--dtype", "i4",
        ],
        1,
    );
    assert_eq!(err, "error: 4-bit elements are not supported (8, 16 or 32)");
    let small = r#"{"bases":[["offset",[[1],[2],[4],[8],[16],[32]]]],"out_dims":[["dim0",64]]}"#;
    let err = fails(
        &["ptx", "--regs", BLOCKED, "--mem", small, "--shape", "64x64"],
        2,
    );
    assert!(
        err.starts_with("error: --mem: the JSON layout covers 64 but --shape is 64x64"),
        "{err}"
    );
}

/// `linalias plan FILE --emit ptx` prints the library's [`PlanPtx`] for the file's plan.
fn plan_ptx(file: &str) -> PlanPtx {
    let text = ok(&["plan", file, "--emit", "ptx"]);
    let parsed = PlanFile::parse(&std::fs::read_to_string(file).unwrap()).unwrap();
    let plan = parsed
        .program
        .plan(&PlanOptions::new(Mode::Intended))
        .unwrap();
    let ptx = PlanPtx::new(&parsed.program, &plan, &PlanPtxOptions::default()).unwrap();
    assert_eq!(text, format!("// linalias plan {file} --emit ptx\n{ptx}"));
    ptx
}

#[test]
fn flash_attention_plan_emits_tcgen05_kernels_that_put_every_cell_where_the_map_says() {
    let file = example("flash_attention.toml");
    let ptx = plan_ptx(&file);
    let text = ptx.module().to_string();
    assert!(
        text.starts_with(".version 8.7\n.target sm_100a\n"),
        "{text}"
    );
    assert_eq!(text.matches(".visible .entry").count(), 5);
    assemble(&text, "sm_100a", "FA plan");
    let parsed = PlanFile::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let mut cells = 0;
    for a in &ptx.allocations {
        let AllocationKernel::Tmem { kernel, plan } = &a.kernel else {
            panic!("{}: not a TMEM kernel", a.allocation);
        };
        let id = parsed.program.alloc_id(&a.allocation).unwrap();
        let alloc = parsed.program.allocation(id).unwrap();
        let AllocLayout::Tmem(tm, _) = alloc.resolved_layout().unwrap().into_owned() else {
            panic!("{}: no TMEM layout", a.allocation);
        };
        let case = test_support::tmem::Alloc {
            tm,
            shape: [alloc.shape[0], alloc.shape[1]],
            bits: alloc.dtype.bits(),
            map: a.map.clone(),
        };
        // Rebuilds the kernel, runs it for every buffer and checks every cell and value.
        let (rebuilt, n) = test_support::tmem::check_roundtrip(
            &kernel.name,
            &case,
            plan,
            plan,
            codegen::access::IndexSource::Param,
        );
        assert_eq!(&rebuilt, &**kernel, "{}", a.allocation);
        assert_eq!(parse(&kernel.to_string()).as_ref(), Ok(&**kernel));
        cells += n;
    }
    // qk 128×128 f32, p 128×64 bf16 (two per column), alpha/l/m 128×1; stored and loaded,
    // in every buffer (2, 4, 2, 2, 2).
    assert_eq!(cells, 2 * (2 * 128 * 128 + 4 * 128 * 32 + 3 * 2 * 128));
}

#[test]
fn packed_plan_emits_kernels_at_the_arena_offsets() {
    let file = example("fused_chain.toml");
    let text = ok(&["plan", &file, "--emit", "ptx"]);
    let parsed = PlanFile::parse(&std::fs::read_to_string(&file).unwrap()).unwrap();
    let options = PlanOptions {
        mode: Mode::Intended,
        target: parsed.target.unwrap(),
    };
    let packed = parsed
        .program
        .pack(&alias_alloc::PackOptions::new(options))
        .unwrap();
    let ptx = PlanPtx::new(
        &parsed.program,
        &packed.rebased().unwrap(),
        &PlanPtxOptions::default(),
    )
    .unwrap();
    assert_eq!(text, format!("// linalias plan {file} --emit ptx\n{ptx}"));
    assemble(&ptx.module().to_string(), "sm_90a", "fused chain plan");
    assert_eq!(ptx.allocations.len(), 6);
    let mut moved = 0;
    for a in &ptx.allocations {
        let AllocationKernel::Smem(k) = &a.kernel else {
            panic!("{}: not an SMEM kernel", a.allocation);
        };
        // Each kernel addresses its buffers where the arena put them.
        for i in 0..a.map.buffer().num_buffers() {
            assert_eq!(
                a.map.buffer().offset(i).unwrap(),
                packed.buffer_start(&a.allocation, i).unwrap()
            );
            check_run(k, Some(i)).unwrap_or_else(|e| panic!("{} buffer {i}: {e}", a.allocation));
        }
        moved += usize::from(a.map.buffer().base() > 0);
    }
    assert!(moved >= 2, "the arena moves some regions off 0");
}

#[test]
fn smem_plan_emits_one_round_trip_per_allocation() {
    let ptx = plan_ptx(&example("smem_pipeline.toml"));
    let text = ptx.module().to_string();
    assert!(text.starts_with(".version 8.7\n.target sm_90a\n"), "{text}");
    assemble(&text, "sm_90a", "smem pipeline plan");
    let names: Vec<&str> = ptx
        .allocations
        .iter()
        .map(|a| a.kernel().name.as_str())
        .collect();
    assert_eq!(
        names,
        [
            "a_roundtrip",
            "b_roundtrip",
            "c_roundtrip",
            "bias_roundtrip"
        ]
    );
    for a in &ptx.allocations {
        let AllocationKernel::Smem(k) = &a.kernel else {
            panic!("{}: not an SMEM kernel", a.allocation);
        };
        for i in 0..a.map.buffer().num_buffers() {
            check_run(k, Some(i)).unwrap_or_else(|e| panic!("{} buffer {i}: {e}", a.allocation));
        }
    }
}

#[test]
fn plan_emit_errors() {
    let err = fails(
        &[
            "plan",
            &example("flash_attention.toml"),
            "--emit",
            "ptx",
            "--json",
        ],
        2,
    );
    assert!(err.contains("cannot be used with"), "{err}");
    let dir = std::env::temp_dir().join(format!("linalias-ptx-{}.toml", std::process::id()));
    std::fs::write(
        &dir,
        "[[spec]]\nname = \"t\"\nstorage = \"tmem\"\n\
         [[alloc]]\nname = \"q\"\nshape = [128, 64]\ndtype = \"i8\"\nnum = 1\nspec = \"t\"\n",
    )
    .unwrap();
    let err = fails(&["plan", &dir.display().to_string(), "--emit", "ptx"], 1);
    let _ = std::fs::remove_file(&dir);
    assert!(
        err.contains("no allocation can be emitted as PTX: 'q': no tensor-memory layout"),
        "{err}"
    );
}

/// A 128 × 128 bf16 transposing conversion through at most 8 KiB of scratch: the row bits
/// both blocked layouts hold in registers (and the row-major scratch in its top offsets)
/// become rounds, 4 of them through the same 8 KiB; without the cap the whole 32 KiB tile goes
/// through at once. Every round's addresses and values are checked in the interpreter.
#[test]
fn conversions_in_rounds_bound_the_scratch() {
    let argv: Vec<String> = [
        "ptx",
        "--shape",
        "128x128",
        "--dtype",
        "bf16",
        "--regs",
        "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>",
        "--mem",
        "#ttg.swizzled_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [1, 0]}>",
        "--round-trip",
        "#ttg.blocked<{sizePerThread = [8, 1], threadsPerWarp = [8, 4], warpsPerCTA = [1, 4], order = [0, 1]}>",
        "--name",
        "rounds",
    ]
    .map(String::from)
    .to_vec();
    let args: Vec<&str> = argv.iter().map(String::as_str).collect();
    let whole = ok(&[args.as_slice(), &["--stats"]].concat());
    assert!(whole.contains("128 threads, 32768 shared bytes"), "{whole}");
    let capped: Vec<String> = [
        argv.clone(),
        vec!["--max-scratch-bytes".into(), "8192".into()],
    ]
    .concat();
    let capped_args: Vec<&str> = capped.iter().map(String::as_str).collect();
    let text = ok(&capped_args);
    let stats = ok(&[capped_args.as_slice(), &["--stats"]].concat());
    assert!(stats.contains("128 threads, 8192 shared bytes"), "{stats}");
    assert_eq!(
        text.matches("bar.sync").count(),
        8,
        "4 rounds, a barrier after each half"
    );
    let k = library_kernel(&capped);
    assert_eq!(text, k.kernel.to_string());
    check_run(&k, None).unwrap_or_else(|e| panic!("{e}"));
    assemble(&text, "sm_90a", "rounds");
    // A cap below what the round bits allow is refused, naming what the rounds reach.
    let tiny: Vec<String> = [argv, vec!["--max-scratch-bytes".into(), "16".into()]].concat();
    let tiny_args: Vec<&str> = tiny.iter().map(String::as_str).collect();
    let err = fails(&tiny_args, 1);
    assert!(
        err.contains("8192 bytes in 4 rounds") && err.contains("the cap is 16"),
        "{err}"
    );
}

/// `--mem auto-hw`: among the scratches Triton weighs, the one with the fewest H100
/// wavefronts. On a random 32×64 f16 conversion of one warp (one of `scratch_choice`'s) it
/// takes a third of the wavefronts of Triton's pick; on the benchmark's it is Triton's pick.
#[test]
fn scratch_with_the_fewest_wavefronts() {
    let src = r#"{"bases":[["register",[[0,16],[2,0],[8,4],[16,0],[4,0],[0,2]]],["lane",[[1,0],[8,0],[0,1],[0,8],[0,32]]],["warp",[]]],"out_dims":[["dim0",32],["dim1",64]]}"#;
    let dst = r#"{"bases":[["register",[[4,0],[0,32],[16,0],[0,1],[8,0],[0,4]]],["lane",[[0,9],[2,0],[0,16],[1,0],[0,2]]],["warp",[]]],"out_dims":[["dim0",32],["dim1",64]]}"#;
    let run = |mem: &str, stats: bool| {
        let mut argv = vec![
            "ptx",
            "--regs",
            src,
            "--mem",
            mem,
            "--dtype",
            "f16",
            "--round-trip",
            dst,
        ];
        if stats {
            argv.push("--stats");
        }
        ok(&argv)
    };
    let out = run("auto-hw", true);
    assert!(out.contains(": 96; Triton's pick: 288)"), "{out}");
    assert_ne!(run("auto-hw", false), run("auto", false));
    let mma = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
    let bench = |mem: &str| {
        ok(&[
            "ptx",
            "--shape",
            "64x64",
            "--regs",
            mma,
            "--mem",
            mem,
            "--dtype",
            "f16",
            "--round-trip",
            BLOCKED,
        ])
    };
    assert_eq!(bench("auto-hw"), bench("auto"));
}

/// `--mem auto`: the scratch Triton would choose, reported by `--stats`; without a conversion
/// or an element type it is a usage error naming the flag.
#[test]
fn automatic_scratch() {
    let src = "#ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>";
    let dst = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let base = ["ptx", "--shape", "64x64", "--regs", src, "--mem", "auto"];
    let out = ok(&[
        &base[..],
        &["--dtype", "f16", "--round-trip", dst, "--stats"],
    ]
    .concat());
    assert!(
        out.contains("// scratch: auto (Triton's optimalSwizzling): 4096 bytes, 2 rounds"),
        "{out}"
    );
    assert!(out.contains("4096 shared bytes"), "{out}");
    assert!(fails(&[&base[..], &["--dtype", "f16"]].concat(), 2).contains("--mem"));
    assert!(fails(&[&base[..], &["--round-trip", dst]].concat(), 2).contains("--dtype"));
    // A cap below the choice needs more rounds; here none are left, so it is refused.
    let capped = fails(
        &[
            &base[..],
            &[
                "--dtype",
                "f16",
                "--round-trip",
                dst,
                "--max-scratch-bytes",
                "2048",
            ],
        ]
        .concat(),
        1,
    );
    assert!(
        capped.contains("4096 bytes in 2 rounds") && capped.contains("the cap is 2048"),
        "{capped}"
    );
}
