//! End-to-end tests of the `linalias` binary: real command lines, real stdout/stderr/exit codes.

#![allow(clippy::restriction)] // test code: a failed check panics

use test_support::cli::{fails, linalias as linalias_stdin, ok};

use serde_json::{json, Value};

/// Triton's reference example: 4 lanes × 2 warps holding x = 0..8.
const REGS: &str = r#"{"bases":[["lane",[[1],[2]]],["warp",[[4]]]],"out_dims":[["x",8]]}"#;
/// Shared memory offsets → x, with two offset bits that hold nothing new.
const SHARED: &str = r#"{"bases":[["offset",[[0],[1],[2],[0],[4]]]],"out_dims":[["x",8]]}"#;
/// A `#ttg.linear` attribute as Triton prints it.
const MLIR: &str = "#ttg.linear<{register = [[0, 1], [8, 0]], lane = [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]], warp = [[0, 8], [16, 0]], block = []}>";

/// Runs a command that must succeed with `--format json` and returns the parsed layout JSON.
fn ok_json(args: &[&str]) -> Value {
    let text = ok(&[args, &["--format", "json"]].concat());
    serde_json::from_str(&text).expect("stdout is JSON")
}

#[test]
fn invert_and_compose_reference_example() {
    let c = ok_json(&["layout", "invert-and-compose", REGS, SHARED]);
    assert_eq!(
        c,
        json!({"bases": [["lane", [[2], [4]]], ["warp", [[16]]]], "out_dims": [["offset", 32]]})
    );
}

#[test]
fn invert_and_compose_text() {
    let text = ok(&["layout", "invert-and-compose", REGS, SHARED]);
    assert_eq!(
        text,
        " - lane=1 -> (2)\n   lane=2 -> (4)\n - warp=1 -> (16)\nwhere out dims are: [offset (size 32)]\n\
         surjective: false, injective: true, rank: 3 (3 input bits, 5 output bits)\n"
    );
}

#[test]
fn invert_and_compose_preferring_keeps_warps() {
    // warp 1 of INNER holds x = 1; OUTER's warp holds nothing new (broadcast).
    let inner = r#"{"bases":[["lane",[[1],[2]]],["warp",[[1]]]],"out_dims":[["x",4]]}"#;
    let outer = r#"{"bases":[["lane",[[2],[1]]],["warp",[[0]]]],"out_dims":[["x",4]]}"#;
    let lanes = json!(["lane", [[2, 0], [1, 0]]]);
    // Smallest preimage: x = 1 is read from lane 2 of warp 0.
    let plain = ok_json(&["layout", "invert-and-compose", inner, outer]);
    assert_eq!(plain["bases"], json!([lanes, ["warp", [[2, 0]]]]));
    assert_eq!(plain["out_dims"], json!([["lane", 4], ["warp", 2]]));
    // Preferring register/lane: warp 1 stays in warp 1, corrected along lanes.
    let preferring = ok_json(&[
        "layout",
        "invert-and-compose",
        inner,
        outer,
        "--prefer",
        "register,lane",
    ]);
    assert_eq!(preferring["bases"], json!([lanes, ["warp", [[2, 1]]]]));
    // The flag may come first and be repeated instead of comma-separated.
    let args = [
        "layout",
        "invert-and-compose",
        "--prefer",
        "register",
        "--prefer",
        "lane",
        inner,
        outer,
    ];
    assert_eq!(ok_json(&args), preferring);
    // A name that is neither a hardware dim nor an in-dim of either layout is a typo (#29).
    let err = fails(
        &[
            "layout",
            "invert-and-compose",
            inner,
            outer,
            "--prefer",
            "lanes",
        ],
        2,
    );
    assert_eq!(
        err,
        "error: --prefer: neither layout has an in-dim 'lanes' (OUTER's: lane, warp)"
    );
}

#[test]
fn show_text_is_tritons_to_string() {
    let l = r#"{"bases":[["i",[[1],[2],[0]]]],"out_dims":[["o",4]]}"#;
    let expected =
        " - i=1 -> (1)\n   i=2 -> (2)\n   i=4 -> (0)\nwhere out dims are: [o (size 4)]\n\
                    surjective: true, injective: false, rank: 2 (3 input bits, 2 output bits)\n";
    assert_eq!(ok(&["layout", "show", l]), expected);
    assert_eq!(ok(&["layout", "show", l, "--format", "text"]), expected);
    // The same layout as identity(4) * zeros(2), built by `product`.
    let id4 = r#"{"bases":[["i",[[1],[2]]]],"out_dims":[["o",4]]}"#;
    let zeros2 = r#"{"bases":[["i",[[0]]]],"out_dims":[["o",1]]}"#;
    assert_eq!(ok(&["layout", "product", id4, zeros2]), expected);
}

#[test]
fn show_text_matches_display() {
    let l = linear_layout::LinearLayout::from_mlir(MLIR).expect("valid attribute");
    let text = ok(&["layout", "show", MLIR]);
    let (display, summary) = text.rsplit_once("]\n").expect("out dims line");
    // Triton's toString, without the newline it opens with (a report starts with text, #29).
    assert_eq!(format!("\n{display}]"), l.to_string());
    assert_eq!(
        summary,
        "surjective: true, injective: true, rank: 9 (9 input bits, 9 output bits)\n"
    );
}

#[test]
fn mlir_round_trip() {
    assert_eq!(
        ok(&["layout", "show", MLIR, "--format", "mlir"]),
        format!("{MLIR}\n")
    );
    let json = ok(&["layout", "show", MLIR, "-f", "json"]);
    assert_eq!(
        serde_json::from_str::<Value>(&json).expect("JSON"),
        json!({
            "bases": [["register", [[0, 1], [8, 0]]],
                      ["lane", [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]]],
                      ["warp", [[0, 8], [16, 0]]],
                      ["block", []]],
            "out_dims": [["dim0", 32], ["dim1", 16]]
        })
    );
    assert_eq!(
        ok(&["layout", "show", json.trim(), "--format", "mlir"]),
        format!("{MLIR}\n")
    );
}

/// `--format mlir` prints the attribute Triton reads: a shared layout is a
/// `#ttg.shared_linear` at its attribute's alignment (Gluon's 16 for JSON), not a `#ttg.linear`
/// with an `offset` in-dim, which Triton's parser and ours refuse (#29; the printed NVMMA one
/// was also parsed by the TLX fork's `ir.parse_mlir_module` when this was written). A layout
/// no attribute can hold (TMEM's `row, col`) is refused.
#[test]
fn mlir_of_a_shared_layout_is_a_shared_linear_attribute() {
    let nvmma =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let printed = ok(&[
        "layout", "show", nvmma, "--shape", "8x64", "--format", "mlir",
    ]);
    assert_eq!(
        printed,
        "#ttg.shared_linear<{offset = [[0, 1], [0, 2], [0, 4], [0, 8], [0, 16], [0, 32], \
         [1, 8], [2, 16], [4, 32]]}, alignment = 1024>\n"
    );
    // It reads back as the same layout.
    let json = |layout: &str| ok(&["layout", "show", layout, "--shape", "8x64", "-f", "json"]);
    assert_eq!(json(printed.trim()), json(nvmma));
    let from_json = ok(&["layout", "show", json(nvmma).trim(), "--format", "mlir"]);
    assert!(from_json.ends_with("}, alignment = 16>\n"), "{from_json}");
    let tmem = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
    let err = fails(
        &[
            "layout", "show", tmem, "--shape", "128x64", "--format", "mlir",
        ],
        1,
    );
    assert!(
        err.contains("no Triton attribute has in-dims row, col"),
        "{err}"
    );
}

/// What `--format mlir` prints is judged by its consumer: `tools/gen_mlir_acceptance.py` had
/// the TLX fork's own parser (fbtriton 3.7.4, `ir.parse_mlir_module`) read each printed text in
/// a module, and recorded it. Every text must still be what we print, every one accepted, and
/// the control — what we printed for a shared layout before #29 — refused.
#[test]
fn mlir_the_fork_accepts_is_what_we_print() {
    let path = format!(
        "{}/linear-layout/tests/data/fork_accepts/layout_mlir.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let records: Vec<Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    assert_eq!(records.len(), 8);
    for r in &records {
        let (attr, shape, printed) = (
            r["attribute"].as_str().unwrap(),
            r["shape"].as_str().unwrap(),
            r["printed"].as_str().unwrap(),
        );
        if attr == "control" {
            assert_eq!(
                r["accepted"], false,
                "the fork refuses the old text: {printed}"
            );
            continue;
        }
        assert_eq!(r["accepted"], true, "{attr}: the fork refused {printed}");
        let now = ok(&["layout", "show", attr, "--shape", shape, "--format", "mlir"]);
        assert_eq!(
            now.trim_end(),
            printed,
            "{attr} at {shape}: the printing changed; rerun tools/gen_mlir_acceptance.py"
        );
    }
}

#[test]
fn layout_from_file_and_stdin() {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("cli_shared_layout.json");
    std::fs::write(&path, format!("{SHARED}\n")).expect("temp file is writable");
    let at_path = format!("@{}", path.display());
    let from_file = ok_json(&["layout", "invert-and-compose", REGS, &at_path]);
    assert_eq!(from_file["out_dims"], json!([["offset", 32]]));

    let out = linalias_stdin(
        &["layout", "invert-and-compose", "-", SHARED, "-f", "json"],
        Some(REGS),
    );
    assert!(out.status.success());
    assert_eq!(
        serde_json::from_slice::<Value>(&out.stdout).expect("JSON"),
        from_file
    );

    let mlir_path = dir.join("cli_layout.mlir");
    std::fs::write(&mlir_path, format!("  {MLIR}\n")).expect("temp file is writable");
    let at_mlir = format!("@{}", mlir_path.display());
    assert_eq!(
        ok(&["layout", "show", &at_mlir, "-f", "mlir"]),
        format!("{MLIR}\n")
    );
}

#[test]
fn apply_text_and_json() {
    let args = [
        "layout",
        "apply",
        MLIR,
        "--input",
        "register=3",
        "-i",
        "lane=5,warp=1",
        "--input",
        "block=0",
    ];
    // register 3 → (8,1); lane 5 → (0,2)^(1,0) = (1,2); warp 1 → (0,8): dim0 = 9, dim1 = 11
    assert_eq!(ok(&args), "dim0=9 dim1=11\n");
    // `block` has size 1 in a one-CTA layout: left out, it is 0 (the README's command, #29).
    assert_eq!(ok(&args[..7]), "dim0=9 dim1=11\n");
    assert_eq!(
        ok(&[&args[..], &["--format", "json"]].concat()),
        "{\"dim0\":9,\"dim1\":11}\n"
    );
    assert_eq!(
        ok(&["layout", "apply", REGS, "-i", "lane=0x3,warp=0b1"]),
        "x=7\n"
    );
}

#[test]
fn compose_pseudoinvert_invert_product() {
    let l = r#"{"bases":[["i",[[4],[8],[1],[2]]]],"out_dims":[["o",16]]}"#;
    let o = r#"{"bases":[["o",[[3],[2],[4],[8]]]],"out_dims":[["p",16]]}"#;
    assert_eq!(
        ok_json(&["layout", "compose", l, o]),
        json!({"bases": [["i", [[4], [8], [3], [2]]]], "out_dims": [["p", 16]]})
    );

    let a = r#"{"bases":[["i",[[0],[1],[1],[2]]]],"out_dims":[["o",4]]}"#;
    assert_eq!(
        ok_json(&["layout", "pseudoinvert", a]),
        json!({"bases": [["o", [[2], [8]]]], "out_dims": [["i", 16]]})
    );

    let inv = r#"{"bases":[["i",[[1],[3]]]],"out_dims":[["o",4]]}"#;
    assert_eq!(
        ok_json(&["layout", "invert", inv]),
        json!({"bases": [["o", [[1], [3]]]], "out_dims": [["i", 4]]})
    );

    let id4 = r#"{"bases":[["i",[[1],[2]]]],"out_dims":[["o1",4]]}"#;
    let id8 = r#"{"bases":[["i",[[1],[2],[4]]]],"out_dims":[["o2",8]]}"#;
    assert_eq!(
        ok_json(&["layout", "product", id4, id8]),
        json!({"bases": [["i", [[1, 0], [2, 0], [0, 1], [0, 2], [0, 4]]]], "out_dims": [["o1", 4], ["o2", 8]]})
    );
}

#[test]
fn bad_json_is_a_usage_error_naming_the_argument() {
    let err = fails(&["layout", "show", r#"{"bases": [}"#], 2);
    assert!(
        err.starts_with("error: LAYOUT: parse error: invalid JSON"),
        "{err}"
    );
    let err = fails(&["layout", "compose", REGS, "not a layout"], 2);
    assert!(err.starts_with("error: OUTER: parse error:"), "{err}");
    let err = fails(
        &["layout", "show", "#ttg.linear<{register = [[0, -1]]}>"],
        2,
    );
    assert!(
        err.starts_with("error: LAYOUT: parse error: #ttg.linear, column 30:"),
        "{err}"
    );
    // Valid JSON, invalid layout: still the argument's fault.
    let err = fails(
        &[
            "layout",
            "product",
            REGS,
            r#"{"bases":[],"out_dims":[["x",3]]}"#,
        ],
        2,
    );
    assert_eq!(
        err,
        "error: B: size of out-dim 'x' must be a power of two, got 3"
    );
}

#[test]
fn non_covering_invert_and_compose_is_a_layout_error() {
    let lanes_only = r#"{"bases":[["lane",[[1],[2]]]],"out_dims":[["x",8]]}"#;
    let err = fails(&["layout", "invert-and-compose", REGS, lanes_only], 1);
    assert!(
        err.starts_with("error: invert_and_compose: warp=1 maps to"),
        "{err}"
    );
    assert!(err.contains("does not cover"), "{err}");
}

#[test]
fn other_layout_errors_exit_1() {
    let err = fails(&["layout", "show", REGS, "-f", "mlir"], 1);
    assert!(err.starts_with("error: to_mlir:"), "{err}");
    let err = fails(&["layout", "invert", SHARED], 1);
    assert!(err.contains("not injective"), "{err}");
    let err = fails(&["layout", "compose", REGS, SHARED], 1);
    assert!(err.starts_with("error: compose:"), "{err}");
}

/// Inputs meant for another command, or a path without its `@`, say so (#29).
#[test]
fn inputs_for_another_command_say_so() {
    let root = env!("CARGO_MANIFEST_DIR");
    let csv = format!("{root}/packing/tests/data/dsa/a.6.csv");
    let err = fails(&["plan", &csv], 2);
    assert!(
        err.ends_with("a.6.csv: not a plan file: a CSV of buffers is packed by `linalias pack`"),
        "{err}"
    );
    let json = "examples/layouts/nvmma128_f16_64x64.json";
    let out = std::process::Command::new(test_support::cli::binary())
        .args(["layout", "show", json])
        .current_dir(root)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("error: LAYOUT: '{json}' is a file name, not a layout: write @{json} to read it\n")
    );
    let fa = format!("{root}/examples/flash_attention.toml");
    let err = fails(&["plan", &fa, "--emit", "ptx", "--num-warps", "3"], 2);
    assert!(
        err.contains("3 warps: Triton's num_warps is a power of two from 1 to 32"),
        "{err}"
    );
    // Too few warps for tcgen05: one reason, once, naming every allocation it stops.
    let err = fails(&["plan", &fa, "--emit", "ptx", "--num-warps", "2"], 1);
    assert!(
        err.ends_with("no allocation can be emitted as PTX: 'qk', 'p', 'alpha', 'l', 'm': tmem_reg_layout: num_warps = 2 is invalid: must be a power of two from 4 to 32"),
        "{err}"
    );
}

/// The help names what the commands read (#29: the plan file's `storage` and `lifetime` keys,
/// TTGIR input, the AMD and padded families, MiniMalloc's `start`/`end` with `end` inclusive).
#[test]
fn help_names_what_the_commands_read() {
    let plan = ok(&["plan", "--help"]);
    for key in [
        "storage, layout",
        "lifetime = [start, end)",
        "TTGIR",
        "docs/plan-file.md",
    ] {
        assert!(plan.contains(key), "plan --help lacks {key:?}:\n{plan}");
    }
    assert!(ok(&["--help"]).contains("plan file or of a kernel's TTGIR"));
    let layout = ok(&["layout", "--help"]);
    for family in [
        "#ttg.amd_mfma",
        "#ttg.amd_wmma",
        "#ttg.amd_rotating_shared",
        "#ttg.padded_shared",
        "#ttg.partitioned_shared",
    ] {
        assert!(
            layout.contains(family),
            "layout --help lacks {family}:\n{layout}"
        );
    }
    let pack = ok(&["pack", "--help"]);
    assert!(
        pack.contains("`buffer,start,end` are read") && pack.contains("`end` inclusive"),
        "{pack}"
    );
}

/// Small input holes (#30, item 8): a JSON key given twice is refused (the first `bases` was
/// dropped), a byte-order mark is read past, a kernel name that is no PTX identifier and a bank
/// count that is no power of two ≥ 4 are bad arguments (exit 2, they were refusals).
#[test]
fn json_duplicates_bom_and_argument_values() {
    let twice = r#"{"bases":[["lane",[[1]]]],"bases":[["lane",[[1],[2]]]],"out_dims":[["x",4]]}"#;
    let err = fails(&["layout", "show", twice], 2);
    assert!(err.contains("key \"bases\" appears twice"), "{err}");
    let path = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("bom_layout.json");
    std::fs::write(
        &path,
        "\u{feff}{\"bases\":[[\"lane\",[[1],[2]]]],\"out_dims\":[[\"x\",4]]}",
    )
    .unwrap();
    let shown = ok(&["layout", "show", &format!("@{}", path.display())]);
    assert!(shown.starts_with(" - lane=1 -> (1)\n"), "{shown}");
    let blocked = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
    let nvmma =
        "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
    let err = fails(
        &[
            "ptx", "--regs", blocked, "--mem", nvmma, "--shape", "64x64", "--name", "a b",
        ],
        2,
    );
    assert!(err.contains("'a b' is not a PTX identifier"), "{err}");
    let err = fails(
        &[
            "layout",
            "conflicts",
            blocked,
            nvmma,
            "--shape",
            "64x64",
            "--banks",
            "3",
        ],
        2,
    );
    assert!(
        err.contains("3 banks: a power of two of at least 4"),
        "{err}"
    );
}

#[test]
fn usage_errors_exit_2_on_one_line() {
    let err = fails(&["layout", "compose", REGS], 2);
    assert_eq!(
        err,
        "error: the following required arguments were not provided: <OUTER>"
    );
    let err = fails(&["layout", "apply", REGS, "-i", "lane"], 2);
    assert!(err.contains("expected DIM=VALUE"), "{err}");
    // A bad --input is a bad argument, as --help says: out of range, missing, unknown (#29).
    let err = fails(&["layout", "apply", REGS, "-i", "lane=4,warp=0"], 2);
    assert_eq!(
        err,
        "error: --input: lane=4 is out of range: in-dim 'lane' has size 4"
    );
    let err = fails(&["layout", "apply", REGS, "-i", "lane=1"], 2);
    assert_eq!(
        err,
        "error: --input: no value for in-dim 'warp' (size 2): add --input warp=N"
    );
    let err = fails(&["layout", "apply", REGS, "-i", "lane=1,warp=0,lanes=2"], 2);
    assert_eq!(
        err,
        "error: --input: the layout has no in-dim 'lanes' (its in-dims: lane, warp)"
    );
    let err = fails(&["layout", "show", REGS, "--format", "yaml"], 2);
    assert!(err.contains("'yaml'"), "{err}");
    let err = fails(&["layout", "frobnicate"], 2);
    assert!(err.contains("'frobnicate'"), "{err}");
    let err = fails(&["layout", "show", "@/nonexistent/layout.json"], 2);
    assert!(
        err.starts_with("error: LAYOUT: cannot read \"/nonexistent/layout.json\""),
        "{err}"
    );
    let out = linalias_stdin(&["layout", "product", "-", "-"], Some(REGS));
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: B: stdin ('-') can be read by only one argument\n"
    );
}

#[test]
fn help_succeeds() {
    let help = ok(&["layout", "--help"]);
    assert!(help.contains("invert-and-compose"), "{help}");
    assert!(ok(&["layout", "apply", "--help"]).contains("DIM=VALUE"));
}

/// Blocked `[1,4]x[8,4]x[2,2]`, pasted from a TTGIR dump with its alias.
const BLOCKED: &str = "#blocked = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>";
/// NVMMA 128-byte swizzle for f16.
const NVMMA: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";

#[test]
fn show_builds_a_family_attribute_at_the_shape() {
    // Triton 3.9.0 (reference §3.2): reg [[0,1],[0,2],[0,32],[16,0],[32,0]], warp [[0,16],[8,0]].
    let l = ok_json(&["layout", "show", BLOCKED, "--shape", "64x64"]);
    assert_eq!(
        l["bases"][0],
        json!(["register", [[0, 1], [0, 2], [0, 32], [16, 0], [32, 0]]])
    );
    assert_eq!(l["bases"][2], json!(["warp", [[0, 16], [8, 0]]]));
    let text = ok(&["layout", "show", NVMMA, "--shape", "64x64"]);
    assert!(text.contains("alignment: 1024 bytes"), "{text}");
    assert!(text.contains("cute swizzle (bytes): Sw<3,4,3>"), "{text}");
    let tmem = ok(&[
        "layout",
        "show",
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>",
        "--shape",
        "128x64",
    ]);
    assert!(
        tmem.contains("tensor memory: 128 lanes x 64 columns"),
        "{tmem}"
    );
}

#[test]
fn show_prints_tritons_views_and_writes_svg() {
    let view = ok(&[
        "layout", "show", BLOCKED, "--shape", "16x16", "--view", "tensor",
    ]);
    assert!(view.contains("[[  T0:0| T32:0,   T0:1| T32:1,"), "{view}");
    let hw = ok(&[
        "layout", "show", BLOCKED, "--shape", "16x16", "--view", "hardware",
    ]);
    assert!(hw.contains("Warp0:"), "{hw}");
    let dir = std::env::temp_dir().join(format!("linalias-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("nvmma.svg");
    let path_s = path.to_str().expect("utf-8 path");
    ok(&["layout", "show", NVMMA, "--shape", "8x64", "--svg", path_s]);
    let svg = std::fs::read_to_string(&path).expect("svg written");
    assert!(svg.starts_with("<svg"), "{svg}");
    assert!(svg.matches("<rect").count() >= 512, "one cell per element");
    // Row 1 of the 128B swizzle: element (1, 0) is stored at offset 64 ^ 8 = 72 (reference §7.10).
    let inv = ok_json(&["layout", "pseudoinvert", NVMMA, "--shape", "8x64"]);
    assert_eq!(
        inv["bases"][0],
        json!(["dim0", [[72, 0], [144, 0], [288, 0]]])
    );
}

#[test]
fn show_draws_a_tensor_memory_layout() {
    let dir = std::env::temp_dir().join(format!("linalias-cli-tmem-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let path = dir.join("tmem.svg");
    let path_s = path.to_str().expect("utf-8 path");
    ok(&[
        "layout",
        "show",
        "#ttng.tensor_memory_encoding<blockM = 128, blockN = 32, colStride = 1>",
        "--shape",
        "128x32",
        "--svg",
        path_s,
    ]);
    let svg = std::fs::read_to_string(&path).expect("svg written");
    assert!(svg.starts_with("<svg") && svg.contains("<rect"), "{svg}");
    assert_eq!(
        svg.matches("<rect").count(),
        128 * 32,
        "one cell per element"
    );
    // blockM = 128: row i is lane i, column j is 32-bit column j
    assert!(svg.contains("<title>(5,3): L5:c3</title>"), "{svg}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn conflicts_reports_tritons_count_and_the_widest_free_vector() {
    // Gluon's ttgl.bank_conflicts gives 1 for this pair (linear-layout/tests/data/families/bank_conflicts.json).
    let text = ok(&["layout", "conflicts", BLOCKED, NVMMA, "--shape", "64x64"]);
    assert!(
        text.contains("conflicts: 1 (wavefronts per phase: 2, per request: 4; 32 banks)"),
        "{text}"
    );
    assert!(text.contains("vector: 4 elements (64 bits)"), "{text}");
    // No lane shares an address: the hardware's figure is Triton's (docs/gpu-counters.md).
    assert!(
        text.contains(
            "a request takes 4 wavefronts as a load (2 bank conflicts), 4 as a store (2)"
        ),
        "{text}"
    );
}

#[test]
fn family_attributes_without_shape_or_with_bad_parameters_are_usage_errors() {
    let e = fails(&["layout", "show", BLOCKED], 2);
    assert!(e.contains("needs the tensor shape"), "{e}");
    let e = fails(
        &[
            "layout",
            "show",
            "#ttg.swizzled_shared<{vec = 3, perPhase = 1, maxPhase = 4, order = [1, 0]}>",
            "--shape",
            "16x16",
        ],
        2,
    );
    assert!(e.contains("vec = 3 is invalid"), "{e}");
    let e = fails(
        &[
            "layout",
            "show",
            "#ttg.blocked<{sizePerThread = [1, 4]}>",
            "--shape",
            "4x4",
        ],
        2,
    );
    assert!(e.contains("missing key 'threadsPerWarp'"), "{e}");
    let e = fails(&["layout", "show", BLOCKED, "--shape", "64xq"], 2);
    assert!(e.contains("not a size"), "{e}");
}

/// `layout show --module`: every layout of a real TLX kernel dump (the mxfp8 FA forward), on
/// every shape the dump uses it with; refusals stay on their own line.
#[test]
fn show_module_lists_every_layout_of_a_real_dump() {
    let dump = format!(
        "{}/alias-alloc/tests/data/tlx_kernels/fa_fwd_mxfp8/before.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = ok(&["layout", "show", "--module", &dump]);
    assert!(
        text.ends_with("23 layouts, 40 uses: 39 built, 1 without a layout\n"),
        "{text}"
    );
    // The first alias on its first use: 128 rows over 32 lanes and 4 warps, one column.
    let block = text
        .split("\n#")
        .next()
        .expect("the listing starts with #blocked");
    assert!(block.starts_with("#blocked = #ttg.blocked<{sizePerThread = [1, 1], threadsPerWarp = [32, 1], warpsPerCTA = [4, 1], order = [1, 0]}> (line 1)\n  tensor<128x1xf32> (line 99):\n"), "{block}");
    assert!(
        block.contains("     - warp=1 -> (32, 0)\n       warp=2 -> (64, 0)\n"),
        "{block}"
    );
    // A rank-2 NVMMA attribute on a 2-buffer memdesc is a normal ring: its layout is per
    // buffer, the view TLX indexes, and nothing calls it refused (#29).
    assert!(text.contains("  !ttg.memdesc<2x128x128xf8E4M3FN> (line 125):\n    one buffer (128x128, the ttg.memdesc_index view):\n"), "{text}");
    assert!(!text.contains("refused"), "{text}");
    // A one-element barrier allocation has no layout, in Triton either; the listing goes on.
    assert!(
        text.contains(
            "  !ttg.memdesc<1xi64> (line 130):\n    no linear layout (as in Triton): swizzled_shared: shape [1] is invalid"
        ),
        "{text}"
    );
    let json: Value = serde_json::from_str(&ok(&[
        "layout", "show", "--module", &dump, "--format", "json",
    ]))
    .expect("JSON");
    let all = json.as_array().expect("an array of layouts");
    assert_eq!(all.len(), 23);
    assert_eq!(all[0]["name"], "#blocked");
    assert_eq!(all[0]["uses"][0]["shape"], json!([128, 1]));
    assert_eq!(
        all[0]["uses"][0]["layout"]["bases"][2],
        json!(["warp", [[32, 0], [64, 0]]])
    );
    let err = fails(&["layout", "show", "--module", "/nonexistent.mlir"], 2);
    assert!(err.contains("--module: /nonexistent.mlir:"), "{err}");
}

/// Real AMD TTGIR (`tools/gen_amd_kernel_dumps.py`: Triton 3.9 compiling a matmul for gfx942
/// and gfx1250): every layout builds — MFMA accumulators in 64-lane waves, their dot operands,
/// the rotating shared layout, and the padded one (as its linear component).
#[test]
fn show_module_reads_real_amd_dumps() {
    let dump = |arch: &str| {
        format!(
            "{}/linear-layout/tests/data/amd_kernels/matmul_{arch}.ttgir",
            env!("CARGO_MANIFEST_DIR")
        )
    };
    let text = ok(&["layout", "show", "--module", &dump("gfx942")]);
    assert!(
        text.ends_with("15 layouts, 20 uses: 20 built, 0 without a layout\n"),
        "{text}"
    );
    assert!(text.contains("#mma = #ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}> (line 6)\n  tensor<128x128xf32> (line 27):\n"), "{text}");
    // 64 lanes: the sixth lane bit moves N (transposed 32×32: 32 lanes down M, then 2 along N).
    assert!(text.contains("       lane=32 -> (0, 4)\n"), "{text}");
    // The rotating layout (rows along dim1): row 16 starts the second block of 16 rows, where
    // the phase is rotated by one (a plain swizzle would give (0, 16)).
    assert!(
        text.contains("       offset=512 -> (32, 8)\n       offset=1024 -> (4, 16)\n       offset=2048 -> (8, 32)\n"),
        "{text}"
    );
    let text = ok(&["layout", "show", "--module", &dump("gfx1250")]);
    assert!(
        text.ends_with("13 layouts, 21 uses: 21 built, 0 without a layout\n"),
        "{text}"
    );
    assert!(text.contains("#shared = #ttg.padded_shared<[128:+8] {order = [1, 0], shape = [128, 64]}> (line 5)\n  !ttg.memdesc<2x128x64xf16> (line 80):\n    padded [128:+8]: no linear layout (as in Triton); its linear component (paddedLinearLayout), padding on top:\n"), "{text}");
}
