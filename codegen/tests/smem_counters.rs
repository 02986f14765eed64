//! The hardware as golden: the shared-memory counters Nsight Compute recorded on an H100 for
//! every launch of the GPU tier (`tests/data/gpu/h100-shared-memory-counters.json`, written by
//! `tools/gpu_record.sh`) replayed against the cost model (`codegen::cost`) in the
//! interpreter, no GPU needed.
//!
//! A recorded kernel is replayed only while the tier still emits exactly its text; the others
//! are named and skipped, and at least 90 % must still match (else the file is re-recorded).
//! Every replayed launch's six counters must equal the hardware's, except the launches listed
//! in [`TIMING_DEPENDENT`], whose counts the addresses do not determine: each has a twin launch
//! with the very same address trace that the hardware counted differently.

#![allow(clippy::restriction)] // test code: a failed check panics

mod gpu_cases;
mod smem_cases;

use std::collections::HashMap;

use codegen::cost::{run_cost, CostError, SharedCounters};
use codegen::interp::{run, AccessKind, Location};
use codegen::ptx::{parse, Kernel};
use gpu_cases::{tiers, Case};
use serde_json::Value;

const FILE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/data/gpu/h100-shared-memory-counters.json"
);

/// `(launch, twin)`: 16-bit stores above 128 KiB of shared memory from two warps, where the
/// H100 counted extra store wavefronts that identical addresses elsewhere did not take.
const TIMING_DEPENDENT: [(usize, usize); 3] = [(323, 331), (567, 575), (575, 567)];

/// The text `codegen::gpu::device_ptx` hands an sm_90 device.
fn device_text(k: &Kernel) -> String {
    let mut k = k.clone();
    k.version = k.target.min_version();
    k.to_string()
}

fn counters(launch: &Value) -> SharedCounters {
    SharedCounters::from_values(SharedCounters::METRICS.map(|m| {
        launch["counters"][m]
            .as_u64()
            .unwrap_or_else(|| panic!("no {m} in {launch}"))
    }))
}

/// The shared accesses of a run, per issue: (kind, slot, address).
fn address_trace(case: &Case, index: Option<u32>) -> Vec<Vec<(bool, u32, u32)>> {
    let out = run(case.kernel(), &case.config(), &case.params(index)).unwrap();
    out.trace
        .issues()
        .map(|i| {
            i.iter()
                .filter_map(|a| match a.location {
                    Location::Shared(at) => Some((a.kind == AccessKind::Store, a.thread, at)),
                    _ => None,
                })
                .collect::<Vec<_>>()
        })
        .filter(|v| !v.is_empty())
        .collect()
}

#[test]
fn recorded_counters_equal_the_cost_model() {
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(FILE).unwrap()).unwrap();
    let current: HashMap<(String, String), Case> = tiers()
        .into_iter()
        .flat_map(|(t, cases)| cases.into_iter().map(move |(w, c)| ((t.to_string(), w), c)))
        .collect();
    let kernels = doc["kernels"].as_array().unwrap();
    let mut matched = vec![None; kernels.len()];
    let mut skipped = Vec::new();
    for (i, k) in kernels.iter().enumerate() {
        let key = (
            k["test"].as_str().unwrap().to_string(),
            k["what"].as_str().unwrap().to_string(),
        );
        match current.get(&key) {
            Some(c) if device_text(c.kernel()) == k["ptx"].as_str().unwrap() => {
                matched[i] = Some(c)
            }
            _ => skipped.push(format!("{} / {}", key.0, key.1)),
        }
    }
    let kept = matched.iter().filter(|m| m.is_some()).count();
    eprintln!(
        "{kept} of {} recorded kernels still emitted as recorded ({})",
        kernels.len(),
        doc["built_from"]
    );
    for s in &skipped {
        eprintln!("  skipped (text changed or gone): {s}");
    }
    let recorded: std::collections::HashSet<(String, String)> = kernels
        .iter()
        .map(|k| {
            (
                k["test"].as_str().unwrap().to_string(),
                k["what"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for key in current.keys().filter(|k| !recorded.contains(*k)) {
        eprintln!("  not recorded yet: {} / {}", key.0, key.1);
    }
    assert!(
        kept * 10 >= kernels.len() * 9,
        "only {kept} of {} recorded kernels match the emitted text: re-record with tools/gpu_record.sh",
        kernels.len()
    );
    let timing: HashMap<usize, usize> = TIMING_DEPENDENT.into_iter().collect();
    let launches = doc["launches"].as_array().unwrap();
    let (mut equal, mut compared, mut refused) = (0, 0, 0);
    let mut wrong = Vec::new();
    let mut table = String::from(
        "\n| probe | `ld` instructions | `st` instructions | load wavefronts | store wavefronts | \
         load conflicts | store conflicts |\n|---|---|---|---|---|---|---|\n",
    );
    for (n, launch) in launches.iter().enumerate() {
        let Some(case) = matched[launch["kernel"].as_u64().unwrap() as usize] else {
            continue;
        };
        let index = launch["index"].as_u64().map(|i| i as u32);
        let recorded_text = kernels[launch["kernel"].as_u64().unwrap() as usize]["ptx"]
            .as_str()
            .unwrap();
        let kernel = parse(recorded_text).unwrap();
        let want = counters(launch);
        let recorded = &kernels[launch["kernel"].as_u64().unwrap() as usize];
        if recorded["test"] == "probes" {
            let v = want.values();
            table.push_str(&format!(
                "| {} | {} | {} | {} | {} | {} | {} |\n",
                recorded["what"].as_str().unwrap(),
                v[0],
                v[1],
                v[2],
                v[3],
                v[4],
                v[5]
            ));
        }
        let got = match run_cost(&kernel, &case.config(), &case.params(index)) {
            Ok(got) => got,
            Err(CostError::AllLanesOff { .. }) => {
                // What the hardware counts is ptxas's layout of the guard: the model refuses.
                let what = kernels[launch["kernel"].as_u64().unwrap() as usize]["what"]
                    .as_str()
                    .unwrap();
                assert!(
                    what.contains("no lane active"),
                    "launch {n} ({what}) refused"
                );
                refused += 1;
                continue;
            }
            Err(e) => panic!("launch {n}: {e}"),
        };
        if let Some(&twin) = timing.get(&n) {
            let twin_launch = &launches[twin];
            let twin_case = matched[twin_launch["kernel"].as_u64().unwrap() as usize].unwrap();
            let twin_index = twin_launch["index"].as_u64().map(|i| i as u32);
            assert_eq!(
                address_trace(case, index),
                address_trace(twin_case, twin_index),
                "launch {n} and its twin {twin} must access the same addresses"
            );
            assert_ne!(
                want,
                counters(twin_launch),
                "launch {n}: no longer timing-dependent"
            );
            assert_eq!(
                (
                    got.counters.load_instructions,
                    got.counters.store_instructions
                ),
                (want.load_instructions, want.store_instructions),
                "launch {n}: instruction counts"
            );
            continue;
        }
        compared += 1;
        if got.counters == want {
            equal += 1;
        } else {
            wrong.push(format!(
                "launch {n} ({}): model {:?}, hardware {:?}",
                kernels[launch["kernel"].as_u64().unwrap() as usize]["what"],
                got.counters.values(),
                want.values()
            ));
        }
    }
    eprintln!(
        "{equal} of {compared} replayed launches equal on all six counters ({} timing-dependent, \
         {refused} refused: every lane predicated off)",
        TIMING_DEPENDENT.len()
    );
    assert_eq!(
        refused, 4,
        "the four `no lane active` probes are refused, nothing else"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert!(compared > 1000, "only {compared} launches replayed");
    // docs/gpu-counters.md shows every probe's recorded counters (all equal to the model).
    test_support::golden::check_section(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/gpu-counters.md"),
        "<!-- probes:begin -->\n",
        "<!-- probes:end -->",
        &format!("{table}\n"),
    );
}

/// The one benchmark kernel whose measured counters the model does not give: Triton's 4-round
/// `convert_blocked_transpose_bf16_128x128` took 3 more load wavefronts (3 more bank conflicts)
/// than its addresses do, where ours, the same conversion through the same scratch, took
/// exactly what its addresses give. Unexplained; like the timing-dependent store launches, a
/// count the addresses do not determine.
const UNEXPLAINED: (&str, u64) = ("triton_ptx/convert_blocked_transpose_bf16_128x128.ptx", 3);

/// The benchmark pairs' kernels, ours and Triton 3.9's, were launched on the same H100
/// (`benches/data/h100_bench_counters.json`, `tools/gpu_record.sh bench`): every one of ours
/// whose text is still the committed file's has the counters the cost model gives.
#[test]
fn benchmark_kernels_measured_equal_the_cost_model() {
    use codegen::interp::{Config, ParamValue};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let file = format!("{root}/benches/data/h100_bench_counters.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let (mut replayed, mut changed) = (0, Vec::new());
    let (mut triton, mut unread) = (0, Vec::new());
    for k in doc["kernels"].as_array().unwrap() {
        let path = k["file"].as_str().unwrap();
        let text = k["ptx"].as_str().unwrap();
        if path.starts_with("benches/data/triton_ptx/") {
            // Triton 3.9's own PTX, as far as the interpreter reads it: the model must give
            // what the H100 counted for it too.
            match parse(text) {
                Ok(kernel) => {
                    let config = Config::new(kernel.reqntid.unwrap()).dynamic_shared(96 * 1024);
                    let params: Vec<ParamValue> = kernel
                        .params
                        .iter()
                        .map(|_| ParamValue::Buffer(vec![0; 1 << 20]))
                        .collect();
                    let got = run_cost(&kernel, &config, &params)
                        .unwrap_or_else(|e| panic!("{path}: {e}"));
                    let want = counters(k);
                    if path.ends_with(UNEXPLAINED.0) {
                        // Pinned: exactly the recorded excess, so that any change shows.
                        let mut expected = got.counters;
                        expected.load_wavefronts += UNEXPLAINED.1;
                        expected.load_bank_conflicts += UNEXPLAINED.1;
                        assert_eq!(want, expected, "{path}: no longer {} over", UNEXPLAINED.1);
                    } else {
                        assert_eq!(got.counters, want, "{path}");
                    }
                    triton += 1;
                }
                Err(e) => unread.push(format!("{path}: {e}")),
            }
            continue;
        }
        let config = Config::new(k["threads"].as_u64().unwrap() as u32).dynamic_shared(96 * 1024);
        let cost = |text: &str| {
            let kernel = parse(text).unwrap_or_else(|e| panic!("{path}: {e}"));
            let params: Vec<ParamValue> = kernel
                .params
                .iter()
                .map(|_| ParamValue::Buffer(vec![0; 1 << 20]))
                .collect();
            run_cost(&kernel, &config, &params)
                .unwrap_or_else(|e| panic!("{path}: {e}"))
                .counters
        };
        // The recorded text gives what the H100 counted for it ...
        assert_eq!(cost(text), counters(k), "{path} as recorded");
        replayed += 1;
        // ... and the committed kernel, if it changed since (the like-for-like kernels read
        // their tile from global memory where the recorded ones synthesised it), makes the
        // same shared traffic.
        let current = std::fs::read_to_string(format!("{root}/{path}"))
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        if current != text {
            assert_eq!(cost(&current), counters(k), "{path} as committed");
            changed.push(path.to_string());
        }
    }
    bench_table(root, &doc);
    eprintln!(
        "{replayed} of our recorded benchmark kernels replayed; {} committed since with other \
         text and the same shared counters (re-record with tools/gpu_record.sh bench for their \
         executed instructions)",
        changed.len()
    );
    for u in &unread {
        eprintln!("  Triton kernel not read: {u}");
    }
    eprintln!(
        "{triton} of Triton 3.9's kernels read, each with the H100's counters (1 pinned at +{}), \
         {} not read",
        UNEXPLAINED.1,
        unread.len()
    );
    assert!(triton >= 48, "only {triton} of Triton's kernels replayed");
    assert_eq!(replayed, 48, "every pair's kernel of ours recorded");
}

/// The table of `docs/benchmarks.md` (between its `gpu-bench` markers): per pair, ours and
/// Triton's shared wavefronts and bank conflicts as the H100 counted them (ours: the same as
/// the committed like-for-like kernels give, checked above), and SASS instructions
/// (`benches/data/sass_counts.json`): shared, global and total. Like for like: both sides have
/// the same shared and the same global SASS instructions, pair by pair.
fn bench_table(root: &str, measured: &Value) {
    let sass: Value = serde_json::from_str(
        &std::fs::read_to_string(format!("{root}/benches/data/sass_counts.json")).unwrap(),
    )
    .unwrap();
    let mut by: std::collections::BTreeMap<String, [Option<&Value>; 2]> = Default::default();
    for k in measured["kernels"].as_array().unwrap() {
        let path = k["file"].as_str().unwrap();
        let name = path
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".ptx")
            .to_string();
        let side = usize::from(path.contains("triton_ptx"));
        by.entry(name).or_default()[side] = Some(k);
    }
    let c = |k: &Value, m: &str| k["counters"][m].as_u64().unwrap();
    let wf = |k: &Value| c(k, SharedCounters::METRICS[2]) + c(k, SharedCounters::METRICS[3]);
    let bc = |k: &Value| c(k, SharedCounters::METRICS[4]) + c(k, SharedCounters::METRICS[5]);
    let mut t = String::from(
        "\n| pair | shared wavefronts ours | Triton | bank conflicts ours | Triton | SASS shared ours | Triton | SASS global ours | Triton | SASS total ours | Triton |\n\
         |---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
    );
    let mut sums = [0u64; 10];
    for (name, [ours, triton]) in &by {
        let (ours, triton) = (ours.unwrap(), triton.unwrap());
        let s = &sass["pairs"][name];
        let n = |side: &str, what: &str| s[side][what].as_u64().unwrap();
        for what in ["shared", "global"] {
            assert_eq!(n("ours", what), n("triton", what), "{name}: {what} SASS");
        }
        let row = [
            wf(ours),
            wf(triton),
            bc(ours),
            bc(triton),
            n("ours", "shared"),
            n("triton", "shared"),
            n("ours", "global"),
            n("triton", "global"),
            n("ours", "total"),
            n("triton", "total"),
        ];
        for (a, b) in sums.iter_mut().zip(row) {
            *a += b;
        }
        let cells: Vec<String> = row.iter().map(u64::to_string).collect();
        t.push_str(&format!("| `{name}` | {} |\n", cells.join(" | ")));
    }
    let cells: Vec<String> = sums.iter().map(|v| format!("**{v}**")).collect();
    t.push_str(&format!("| **total** | {} |\n", cells.join(" | ")));
    test_support::golden::check_section(
        format!("{root}/docs/benchmarks.md"),
        "<!-- gpu-bench:begin -->\n",
        "<!-- gpu-bench:end -->",
        &format!("{t}\n"),
    );
}
