//! `linalias check`: the README's exit codes, witnesses and their pictures; bad arguments and
//! unreadable kernels are usage errors. (The commands `docs/hazard-check.md` shows are run by
//! `tests/docs_run.rs`.)
#![allow(clippy::restriction)] // test code: a failed check panics

use test_support::cli::linalias;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Checks `lines` written to a temporary file, with `--svg`: exit code, stdout, stderr and the
/// picture.
fn check_text(name: &str, lines: &[&str]) -> (i32, String, String, String) {
    let dir = std::env::temp_dir().join(format!("check-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.mlir"));
    std::fs::write(&path, lines.join("\n")).unwrap();
    let svg = dir.join(format!("{name}.svg"));
    let (code, out, err) = run(&[
        "check",
        path.to_str().unwrap(),
        "--svg",
        svg.to_str().unwrap(),
    ]);
    (
        code,
        out,
        err,
        std::fs::read_to_string(&svg).unwrap_or_default(),
    )
}

fn run(args: &[&str]) -> (i32, String, String) {
    let out = linalias(args, None);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn exit_codes_follow_the_readme() {
    let k = |name: &str| format!("alias-alloc/tests/data/tlx_kernels/{name}/before.mlir");
    // 3: what the check cannot read, named with its line: the 2-CTA kernel told it runs
    // in a cluster of one, whose remote copy then names a CTA that does not exist.
    let text = std::fs::read_to_string(format!("{ROOT}/{}", k("fa_bwd_2cta"))).unwrap();
    let one = text.replace("\"ttg.cluster-dim-x\" = 2", "\"ttg.cluster-dim-x\" = 1");
    assert_ne!(one, text);
    let lines: Vec<&str> = one.lines().collect();
    let (code, out, err, _) = check_text("cluster-of-one", &lines);
    assert_eq!(code, 3, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("line 363: ttg.async_remote_shmem_copy: CTA rank 1 in a cluster of 1"),
        "{err}"
    );
    // 2: no such file, a parameter the kernel does not have, a repeated one.
    assert_eq!(run(&["check", "no/such.mlir"]).0, 2);
    let (code, _, err) = run(&["check", &k("fa_ws_pipelined"), "--param", "NCTX=4"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("no integer parameter 'NCTX'") && err.contains("N_CTX"),
        "{err}"
    );
    let two = [
        "check",
        &k("fa_ws_pipelined"),
        "--param",
        "N_CTX=4",
        "--param",
        "N_CTX=8",
    ];
    assert_eq!(run(&two).0, 2);
    let (code, _, err) = run(&["check", &k("cross_attention"), "--seq-stride", "0"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("invalid value '0' for '--seq-stride <N>': 0: at least 1"),
        "{err}"
    );
    // The tile position: a causal kernel's first tile 3 and CLC tiles from 6 on, inside the
    // launch of N_CTX = 2048; the header says where.
    let rescale = k("fa_clc_rescale");
    let tile = [
        "check",
        &rescale,
        "--param",
        "N_CTX=2048",
        "--program-id",
        "3",
        "--num-programs",
        "6",
    ];
    let (code, out, _) = run(&tile);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with("6 threads, 3092 events; H=1 N_CTX=2048 Z=1 program_id=3 num_programs=6"),
        "{out}"
    );
    let (code, _, err) = run(&["check", &rescale, "--program-id", "-1"]);
    assert_eq!(code, 2);
    assert!(err.contains("-1: at least 0"), "{err}");
    assert_eq!(run(&["check", &rescale, "--num-programs", "0"]).0, 2);
    assert_eq!(run(&["check", &rescale, "--clc-tiles", "-1"]).0, 2);
    // 3: a trace past --max-events (256 events at the default N_CTX), which must be positive.
    let pipelined = k("fa_ws_pipelined");
    let (code, _, err) = run(&["check", &pipelined, "--max-events", "255"]);
    assert_eq!(code, 3);
    assert!(
        err.contains("the trace passed 255 events with H=1 N_CTX=512")
            && err.ends_with(
                "give smaller loop bounds with --param NAME=VALUE, or a larger --max-events\n"
            ),
        "{err}"
    );
    assert_eq!(run(&["check", &pipelined, "--max-events", "256"]).0, 0);
    assert_eq!(run(&["check", &pipelined, "--max-events", "0"]).0, 2);
    // JSON: the same verdicts.
    let (code, out, _) = run(&["check", &k("fa_ws_persistent"), "--json", "--sample", "4"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["summary"]["hazards"], 0);
    assert_eq!(v["params"]["N_CTX"], 512);
    assert_eq!(v["sampled"]["verified_but_raced"], 0);
}

#[test]
fn a_deleted_wait_is_a_hazard_with_its_witness() {
    // The MMA partition's wait for the K tile (kv_fulls) removed: the QK MMA reads kv_tiles
    // while the TMA copy may still write it.
    let text = std::fs::read_to_string(format!(
        "{ROOT}/alias-alloc/tests/data/tlx_kernels/fa_ws_pipelined/before.mlir"
    ))
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[409].contains("ttng.wait_barrier %0, %c0_i32_26"),
        "{}",
        lines[409]
    );
    let mutant: Vec<&str> = lines
        .iter()
        .enumerate()
        .filter(|(i, _)| *i != 409)
        .map(|(_, l)| *l)
        .collect();
    let (code, out, err, svg) = check_text("deleted-wait", &mutant);
    assert_eq!(code, 1, "{out}{err}");
    // The swimlanes of docs/hazard-check.md are this witness.
    test_support::golden::check(format!("{ROOT}/docs/pictures/hazard_witness.svg"), &svg);
    // (The mutant lost a line: the ops below line 410 moved up by one.)
    assert!(out.contains("hazard    kv_tiles × kv_tiles"), "{out}");
    assert!(
        out.contains(
            "partition3.tma: ttng.async_tma_copy_global_to_local line 511 kv_tiles[0] (writes)"
        ),
        "{out}"
    );
    assert!(
        out.contains("partition2.tensor-core: ttng.tc_gen5_mma line 417 kv_tiles[0] (reads)"),
        "{out}"
    );
    // The missing edge is the deleted wait.
    assert!(
        out.contains("missing: partition2 waits on kv_fulls[0]"),
        "{out}"
    );
}

#[test]
fn the_early_arrive_of_pr_739_is_flagged_and_its_fix_verified() {
    // facebookexperimental/triton#739 (forward persistent): `barrier_arrive(qk_empties)` came
    // between `local_load(l)` and `local_load(m)`, which share qk's TMEM group, so the next
    // tile's QK MMA could overwrite m before it was read. The committed kernel has the fix
    // (the arrive after both loads); moving it back between them rebuilds the bug.
    let fixed = format!("{ROOT}/alias-alloc/tests/data/tlx_kernels/fa_fwd_persistent/before.mlir");
    assert_eq!(run(&["check", &fixed]).0, 0);
    let text = std::fs::read_to_string(&fixed).unwrap();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[244].contains("%l_loaded_45 = ttng.tmem_load"),
        "{}",
        lines[244]
    );
    assert!(
        lines[247].contains("%m_loaded_47 = ttng.tmem_load"),
        "{}",
        lines[247]
    );
    assert!(
        lines[249].contains("ttng.arrive_barrier %qk_empties_18"),
        "{}",
        lines[249]
    );
    let arrive = lines.remove(249);
    lines.insert(245, arrive);
    let (code, out, err, svg) = check_text("pr739", &lines);
    assert_eq!(code, 1, "{out}{err}");
    assert!(out.contains("hazard    m_tiles × qk_tiles"), "{out}");
    assert!(
        out.contains("default: ttng.tmem_load line 249 m_tiles[0] iteration 0 (reads)"),
        "{out}"
    );
    assert!(
        out.contains("early arrive: ttng.arrive_barrier line 246 qk_empties[0] iteration 0"),
        "{out}"
    );
    test_support::golden::check(format!("{ROOT}/docs/pictures/pr739_witness.svg"), &svg);
}

/// `--sweep`: `fa_clc` with its wait at line 631 on a constant phase is verified at the default
/// trip count (4 laps) and races at the odd ones; the sweep runs every residue modulo 6, exits 1
/// and names the first trip count that flags it, in text and JSON. A parameter given is not
/// swept.
#[test]
fn the_sweep_flags_a_bug_of_odd_trip_counts() {
    let text = std::fs::read_to_string(format!(
        "{ROOT}/alias-alloc/tests/data/tlx_kernels/fa_clc/before.mlir"
    ))
    .unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    assert!(
        lines[630].contains("ttng.wait_barrier %20, %phase_52"),
        "{}",
        lines[630]
    );
    lines[630] = lines[630].replace("%phase_52,", "%const_phase,");
    lines.insert(630, "        %const_phase = arith.constant 0 : i32".into());
    let dir = std::env::temp_dir().join(format!("check-cli-sweep-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("fa_clc_const_phase.mlir");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let path = path.to_str().unwrap();

    let (code, _, _) = run(&["check", path]);
    assert_eq!(code, 0);
    let (code, out, err) = run(&["check", path, "--sweep"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        out.lines().next().unwrap().ends_with(
            "6 runs, N_CTX from 512 to 1152 by 128: every loop through 6 consecutive trip counts, every residue modulo 6 (rings of 3 barriers)"
        ),
        "{out}"
    );
    let runs: Vec<&str> = out.lines().skip(1).take(6).collect();
    for (laps, line) in (4..10).zip(&runs) {
        assert!(line.starts_with(&format!("N_CTX={}", laps * 128)), "{line}");
        assert_eq!(line.contains(" 0 hazards"), laps % 2 == 0, "{line}");
    }
    assert!(out.contains("--- N_CTX=640\n"), "{out}");
    assert!(err.ends_with(
        "6 runs: 3 verified, 3 with a hazard or protocol finding, 0 with unknowns; first at N_CTX=640\n"
    ), "{err}");
    let (code, out, _) = run(&["check", path, "--sweep", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["period"], 6);
    assert_eq!(v["first"], 4);
    assert_eq!(
        v["swept"]["N_CTX"],
        serde_json::json!({"shortest": 128, "longest": 128})
    );
    assert_eq!(v["runs"].as_array().unwrap().len(), 6);
    assert_eq!(v["runs"][1]["params"]["N_CTX"], 640);
    assert_eq!(v["summary"]["first_finding"], "N_CTX=640");

    let (code, out, _) = run(&["check", path, "--sweep", "--param", "N_CTX=768"]);
    assert_eq!(code, 0);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with("one run: N_CTX given, not swept (rings of 3 barriers)"),
        "{out}"
    );
}

/// `--every-trip-count` names what goes wrong: `cross_attention` with its first softmax
/// partition's `qk_fulls` wait made phase 0 races from a few laps on — the proof names both
/// ops by their lines and how many laps apart, the text and the JSON alike; `fa_ws_pipelined_fp8`
/// hangs at every trip count, 4 laps the least the model decides, its `kv_fulls` wait named.
#[test]
fn every_trip_count_names_what_goes_wrong() {
    let k = |name: &str| format!("{ROOT}/alias-alloc/tests/data/tlx_kernels/{name}/before.mlir");
    let text = std::fs::read_to_string(k("cross_attention")).unwrap();
    let wait = "ttng.wait_barrier %1, %phase_24, %true_14";
    assert_eq!(text.matches(wait).count(), 1);
    let mutated = text.replace(
        wait,
        "%mut_zero = arith.constant 0 : i32\n          ttng.wait_barrier %1, %mut_zero, %true_14",
    );
    let lines: Vec<&str> = mutated.lines().collect();
    let dir = std::env::temp_dir().join(format!("check-cli-every-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("const_phase.mlir");
    std::fs::write(&path, lines.join("\n")).unwrap();
    let path = path.to_str().unwrap();
    let (code, out, err) = run(&["check", path, "--every-trip-count"]);
    assert_eq!(code, 1, "{err}");
    let race = "race: ttng.tmem_load line 172 qk_tiles[0] and ttng.tc_gen5_mma line 336 qk_tiles[0], in one lap";
    assert!(out.contains("from 5 laps: a race at 5 laps"), "{out}");
    assert!(out.contains(race), "{out}");
    assert!(out.contains("3 laps: 3 races"), "{out}");
    let (code, out, _) = run(&["check", path, "--every-trip-count", "--json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["every"]["race_at"], 5);
    assert_eq!(v["every"]["findings"][0], race);
    assert_eq!(v["period"], 24);
    assert_eq!(v["below"][2]["races"], 3);
    assert_eq!(v["summary"]["exit_code"], 1);
    let (code, out, _) = run(&[
        "check",
        &k("fa_ws_pipelined_fp8"),
        "--every-trip-count",
        "--json",
    ]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        (v["least"].clone(), v["every"]["stuck_at"].clone()),
        (4.into(), 4.into())
    );
    assert_eq!(v["below"].as_array().unwrap().len(), 3);
    // Its copies bring half the bytes kv_fulls expects: the consumers' kv_fulls waits hang.
    let findings = v["every"]["findings"].as_array().unwrap();
    assert!(
        findings.contains(&"hang: ttng.wait_barrier line 410 kv_fulls[0] waits forever".into()),
        "{findings:?}"
    );
}

/// `--every-tile-count --json`: a persistent kernel at every tile count, what is counted and
/// what is held — `fa_ws_persistent` at three K laps a tile, `H` tiles a CTA on two programs
/// (`H` · 2 tiles shared out), verified; `--every-trip-count` refuses it (its laps are tiles)
/// and `--every-tile-count` a kernel without a tile loop, or whose tiles differ in length.
#[test]
fn every_tile_count_says_what_it_counts() {
    let k = |name: &str| format!("{ROOT}/alias-alloc/tests/data/tlx_kernels/{name}/before.mlir");
    let persistent = k("fa_ws_persistent");
    let args = [
        "check",
        &persistent,
        "--every-tile-count",
        "--param",
        "N_CTX=384",
    ];
    let (code, out, err) = run(&[&args[..], &["--json"]].concat());
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["counts"], "tiles");
    assert_eq!(v["bounds"], serde_json::json!([{"name": "H", "step": 1}]));
    assert_eq!(
        v["fixed"],
        serde_json::json!([{"name": "N_CTX", "value": 384}, {"name": "num_programs", "value": 2}])
    );
    assert_eq!(
        (v["period"].clone(), v["least"].clone()),
        (6.into(), 3.into())
    );
    assert_eq!(v["every"]["states"], 3_839);
    assert_eq!(v["summary"]["verdict"], "verified at every tile count");
    let (code, _, err) = run(&["check", &persistent, "--every-trip-count"]);
    assert_eq!(code, 3);
    assert!(err.contains("a lap is a tile; --every-tile-count"), "{err}");
    let (code, _, err) = run(&["check", &k("fa_ws_pipelined"), "--every-tile-count"]);
    assert_eq!(code, 3);
    assert!(err.contains("no tile loop"), "{err}");
    // A causal kernel's tiles run to their diagonal: rows 0, 1, 2 run 2, 4, 6 K laps.
    let (code, _, err) = run(&["check", &k("fa_clc_rescale"), "--every-tile-count"]);
    assert_eq!(code, 3);
    assert!(err.contains("its tiles run 2, 4, 6 K laps"), "{err}");
}
