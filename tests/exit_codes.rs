//! The exit codes of `linalias --help` (and `docs/cli.md`, the README), for every command:
//! each command is driven through each code it documents — 0 done, 1 read and refused, 2 an
//! unreadable or invalid file or argument, and for `check` 3, nothing found but something it
//! cannot decide.
#![allow(clippy::restriction)] // test code: a failed check panics

use std::path::PathBuf;
use std::process::Command;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

const BLOCKED: &str = "#ttg.blocked<{sizePerThread = [1, 8], threadsPerWarp = [4, 8], warpsPerCTA = [4, 1], order = [1, 0]}>";
const NVMMA128: &str =
    "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>";
const SWIZZLED: &str =
    "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>";

/// Runs `linalias args…` from the repository root: the exit code and stderr.
fn code(args: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_linalias"))
        .args(args)
        .current_dir(ROOT)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code().unwrap_or(-1);
    if code != 0 {
        // Every failure ends with one error line naming what failed.
        let last = stderr.lines().last().unwrap_or_default();
        assert!(last.starts_with("error: "), "{args:?}: {stderr}");
    }
    (code, stderr)
}

/// A file under a temporary folder of this test.
fn temp(name: &str, text: &str) -> String {
    let dir = std::env::temp_dir().join(format!("linalias-exit-codes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path.display().to_string()
}

fn kernel(name: &str) -> String {
    format!("alias-alloc/tests/data/tlx_kernels/{name}/before.mlir")
}

#[test]
fn every_command_exits_with_the_documented_codes() {
    let owned = |code: i32, args: &[&str]| (code, args.iter().map(|a| a.to_string()).collect());
    let (mxfp8, pipelined) = (kernel("fa_fwd_mxfp8"), kernel("fa_ws_pipelined"));
    let pr739 = "alias-alloc/tests/data/tlx_history/fa_fwd_pr739_before/before.mlir";
    let (fa, a6) = (
        "examples/flash_attention.toml",
        "packing/tests/data/dsa/a.6.csv",
    );
    let inverse = r#"{"bases":[["i",[[1],[0]]]],"out_dims":[["o",2]]}"#;
    let cases: Vec<(i32, Vec<String>)> = vec![
        owned(0, &["layout", "show", BLOCKED, "--shape", "64x64"]),
        owned(1, &["layout", "invert", inverse]),
        owned(2, &["layout", "show", BLOCKED]),
        owned(
            2,
            &[
                "layout",
                "apply",
                BLOCKED,
                "--shape",
                "64x64",
                "--input",
                "register=99",
            ],
        ),
        owned(0, &["plan", fa]),
        owned(1, &["plan", fa, "--target", "sm_90"]),
        owned(1, &["plan", &mxfp8, "--emit", "mlir"]),
        owned(2, &["plan", "no/such.toml"]),
        owned(2, &["plan", fa, "--emit", "ptx", "--num-warps", "3"]),
        owned(0, &["pack", a6]),
        owned(1, &["pack", a6, "--capacity", "5"]),
        owned(2, &["pack", a6, "--algo", "worst-fit"]),
        owned(
            0,
            &[
                "ptx", "--regs", BLOCKED, "--mem", NVMMA128, "--shape", "64x64",
            ],
        ),
        owned(
            1,
            &[
                "ptx", "--regs", BLOCKED, "--mem", SWIZZLED, "--shape", "64x64", "--dtype", "i4",
            ],
        ),
        owned(2, &["ptx", "--regs", BLOCKED, "--mem", NVMMA128]),
        owned(0, &["ptx-cost", "examples/blocked_to_nvmma128_store.ptx"]),
        owned(2, &["ptx-cost", "no/such.ptx"]),
        owned(0, &["check", &pipelined]),
        owned(1, &["check", pr739]),
        owned(2, &["check", &pipelined, "--param", "NCTX=4"]),
    ];
    // ptx-cost 1: a kernel it reads but whose target the cost model does not cover.
    let store =
        std::fs::read_to_string(format!("{ROOT}/examples/blocked_to_nvmma128_store.ptx")).unwrap();
    let blackwell = store
        .replace("sm_90a", "sm_100a")
        .replace(".version 8.0", ".version 8.7");
    assert_ne!(blackwell, store);
    let blackwell = temp("sm100.ptx", &blackwell);
    // check 3: the 2-CTA kernel told it runs in a cluster of one, whose remote copy then names
    // a CTA that does not exist.
    let two_cta = std::fs::read_to_string(format!("{ROOT}/{}", kernel("fa_bwd_2cta"))).unwrap();
    let one = two_cta.replace("\"ttg.cluster-dim-x\" = 2", "\"ttg.cluster-dim-x\" = 1");
    assert_ne!(one, two_cta);
    let one = temp("cluster_of_one.mlir", &one);
    // check --every-trip-count: 1 a kernel stuck at every trip count, 3 one outside the model
    // (a loop in a loop), 2 a --param fixing the bound every trip count sweeps; its 0 (about
    // 20 s in release) is the library's test, alias-alloc/tests/hazard_looped.rs.
    let fp8 = format!("{ROOT}/{}", kernel("fa_ws_pipelined_fp8"));
    let clc = format!("{ROOT}/{}", kernel("fa_clc"));
    let persistent = format!("{ROOT}/{}", kernel("fa_ws_persistent"));
    let next_tile = std::fs::read_to_string(&persistent).unwrap().replace(
        "ttng.wait_barrier %3, %4, %true_32",
        "ttng.wait_barrier %3, %c1_i32_34, %true_32",
    );
    let next_tile = temp("next_tile.mlir", &next_tile);
    let cases = cases.into_iter().chain([
        (1, vec!["ptx-cost".into(), blackwell]),
        (3, vec!["check".into(), one]),
        (
            1,
            vec!["check".into(), fp8.clone(), "--every-trip-count".into()],
        ),
        (
            2,
            vec![
                "check".into(),
                fp8.clone(),
                "--every-trip-count".into(),
                "--param".into(),
                "N_CTX=512".into(),
            ],
        ),
        (
            3,
            vec!["check".into(), clc.clone(), "--every-trip-count".into()],
        ),
        // check --every-tile-count: 0 a persistent kernel verified at every tile count (about
        // 3 s), 1 one of its waits passing into the next tile, 3 a kernel without a tile loop.
        (
            0,
            vec![
                "check".into(),
                persistent.clone(),
                "--every-tile-count".into(),
                "--param".into(),
                "N_CTX=128".into(),
            ],
        ),
        (
            1,
            vec![
                "check".into(),
                next_tile,
                "--every-tile-count".into(),
                "--param".into(),
                "N_CTX=128".into(),
            ],
        ),
        (3, vec!["check".into(), fp8, "--every-tile-count".into()]),
    ]);
    let mut seen: Vec<(String, i32)> = Vec::new();
    for (want, args) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (got, stderr) = code(&args);
        assert_eq!(got, want, "{args:?}: {stderr}");
        seen.push((args[0].to_owned(), got));
    }
    // Every command met every code it documents.
    for (command, codes) in [
        ("layout", &[0, 1, 2][..]),
        ("plan", &[0, 1, 2]),
        ("pack", &[0, 1, 2]),
        ("ptx", &[0, 1, 2]),
        ("ptx-cost", &[0, 1, 2]),
        ("check", &[0, 1, 2, 3]),
    ] {
        for c in codes {
            assert!(
                seen.contains(&(command.to_owned(), *c)),
                "{command} never exits {c}"
            );
        }
    }
    // The table is in the top-level help.
    let help = Command::new(env!("CARGO_BIN_EXE_linalias"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("Exit codes, for every command:\n  0  done"),
        "{help}"
    );
    assert!(help.contains("  3  check only: no hazard found"), "{help}");
}
