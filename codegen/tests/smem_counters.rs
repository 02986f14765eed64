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

use codegen::cost::{run_cost, SharedCounters};
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
    assert!(
        kept * 10 >= kernels.len() * 9,
        "only {kept} of {} recorded kernels match the emitted text: re-record with tools/gpu_record.sh",
        kernels.len()
    );
    let timing: HashMap<usize, usize> = TIMING_DEPENDENT.into_iter().collect();
    let launches = doc["launches"].as_array().unwrap();
    let (mut equal, mut compared) = (0, 0);
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
        let got = run_cost(&kernel, &case.config(), &case.params(index)).unwrap();
        let want = counters(launch);
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
        "{equal} of {compared} replayed launches equal on all six counters ({} timing-dependent)",
        TIMING_DEPENDENT.len()
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
