//! Every kind of picture we draw can be read (#29): its text stays inside its view box and it is
//! no larger than `test_support::svg::MAX_SIDE_PX` — large layouts are drawn coarse, labels on
//! hover. Drawn through the CLI as a user draws them, for every command with `--svg`, and the
//! committed pictures under `docs/pictures/`.
#![allow(clippy::restriction)] // test code: a failed check panics

use std::process::Command;

use test_support::svg::problems;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const NVMMA128: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
const TMEM: &str = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>";
const DOT_A: &str = "#ttg.dot_op<{opIdx = 0, parent = #ttg.nvidia_mma<{versionMajor = 2, versionMinor = 0, warpsPerCTA = [2, 2], instrShape = [16, 8]}>, kWidth = 2}>";
const SLICE: &str = "#ttg.slice<{dim = 0, parent = #ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], order = [1, 0]}>}>";

/// Runs `linalias args… --svg FILE` from the repository root (exit `code`) and returns the SVG.
fn draw(args: &[&str], code: i32) -> String {
    let path = std::env::temp_dir().join(format!(
        "linalias-pictures-{}-{}.svg",
        std::process::id(),
        args.join(" ").len()
    ));
    let out = Command::new(env!("CARGO_BIN_EXE_linalias"))
        .args(args)
        .arg("--svg")
        .arg(&path)
        .current_dir(ROOT)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(code),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{args:?}: {e}"));
    let _ = std::fs::remove_file(&path);
    svg
}

#[test]
fn every_picture_keeps_its_text_inside_and_its_size_readable() {
    let kernel = |name: &str| format!("alias-alloc/tests/data/tlx_kernels/{name}/before.mlir");
    let runs: Vec<(Vec<String>, i32)> = [
        (vec!["layout", "show", BLOCKED, "--shape", "64x64"], 0),
        (vec!["layout", "show", BLOCKED, "--shape", "128x128"], 0),
        (vec!["layout", "show", NVMMA128, "--shape", "8x64"], 0),
        (vec!["layout", "show", NVMMA128, "--shape", "128x128"], 0),
        (vec!["layout", "show", TMEM, "--shape", "128x128"], 0),
        (vec!["layout", "show", DOT_A, "--shape", "32x16"], 0),
        (vec!["layout", "show", SLICE, "--shape", "64"], 0),
        (
            vec!["layout", "conflicts", BLOCKED, NVMMA128, "--shape", "64x64"],
            0,
        ),
        (vec!["plan", "examples/flash_attention.toml"], 0),
        (vec!["plan", "examples/flash_attention_bwd.toml"], 0),
        (vec!["plan", "examples/smem_pipeline.toml"], 0),
        (vec!["plan", "examples/fused_chain.toml"], 0),
        (vec!["pack", "packing/tests/data/dsa/a.6.csv"], 0),
        (
            vec![
                "pack",
                "packing/tests/data/generated/perfect_s1.1048576.csv",
                "--budget-ms",
                "100",
            ],
            0,
        ),
        (
            vec!["pack", "packing/tests/data/dsa/a.6.csv", "--capacity", "5"],
            1,
        ),
        (
            vec![
                "check",
                "alias-alloc/tests/data/tlx_history/fa_fwd_pr739_before/before.mlir",
            ],
            1,
        ),
    ]
    .into_iter()
    .map(|(a, c)| (a.into_iter().map(String::from).collect(), c))
    .chain(
        ["fa_fwd_persistent", "fa_bwd_2cta", "triple_gemm_multiphase"]
            .into_iter()
            .map(|k| (vec!["plan".to_string(), kernel(k)], 0)),
    )
    .collect();
    let mut bad = Vec::new();
    for (args, code) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let svg = draw(&args, *code);
        for p in problems(&svg) {
            bad.push(format!("{args:?}: {p}"));
        }
    }
    let mut committed: Vec<_> = std::fs::read_dir(format!("{ROOT}/docs/pictures"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "svg"))
        .collect();
    committed.sort();
    for path in &committed {
        for p in problems(&std::fs::read_to_string(path).unwrap()) {
            bad.push(format!("{}: {p}", path.display()));
        }
    }
    assert!(committed.len() >= 10);
    assert!(
        bad.is_empty(),
        "{} problems:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
