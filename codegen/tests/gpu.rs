//! The GPU tier (`cargo test -p linalias-codegen --features gpu --test gpu`): the SMEM test kernels run
//! on an sm_90+ device, and what they write to global memory — each access's address
//! (`address_dump`) or the reloaded tile (`round_trip`) — must equal
//! [`TestKernel::expected_out`], computed from the `AddressMap` and the layouts alone.
//!
//! Layouts: the named pairs of the goldens (NVMMA 128/64/32 B, swizzled, `ldmatrix`/
//! `stmatrix`, a run-time index lowered explicitly and through TLX's reindexing, a mixed-radix
//! ring over 48 KiB), and deterministic random GF(2) layouts over random shared layouts,
//! with constant and run-time indices, both lowerings.
//!
//! Without a driver or an sm_90+ device each GPU test prints `skipped: <reason>` and passes;
//! `REQUIRE_GPU=1` makes that a failure. The text handed to the driver is assembled with
//! ptxas for the devices it is meant for, GPU or not.

#![allow(clippy::restriction)] // test code: a failed check panics
#![cfg(feature = "gpu")]

mod gpu_cases;
mod smem_cases;

use codegen::gpu::{device_ptx, require_gpu, Gpu};
use codegen::interp::run;
use codegen::ptx::parse;
use codegen::smem::kernels::{address_dump, TestKernel};
use gpu_cases::{indices, named_kernels, random_kernels, round_trip_of, tiers};
use smem_cases::cases;

fn gpu() -> Option<Gpu> {
    let gpu = require_gpu().unwrap_or_else(|e| panic!("GPU tier required (REQUIRE_GPU=1): {e}"));
    if let Some(g) = &gpu {
        let (major, minor) = g.capability();
        eprintln!("gpu: {} (sm_{major}{minor})", g.name());
    }
    gpu
}

/// Runs `k` for each of its indices — on the GPU, or in the interpreter (its printed text)
/// when `gpu` is `None` — and compares `out` with `expected_out`. Returns the number of runs.
fn check(gpu: Option<&Gpu>, what: &str, k: &TestKernel) -> usize {
    let loaded = gpu.map(|g| {
        g.load(&k.kernel)
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", k.kernel))
    });
    let runs = indices(k);
    for &i in &runs {
        let got = match (gpu, &loaded) {
            (Some(g), Some(loaded)) => g
                .run_test(loaded, k, i)
                .unwrap_or_else(|e| panic!("{what} (index {i:?}): {e}\n{}", k.kernel)),
            _ => {
                let parsed = parse(&k.kernel.to_string()).unwrap();
                let out = run(&parsed, &k.config(), &k.params(i)).unwrap();
                out.buffers[0]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect()
            }
        };
        let want = k.expected_out(i.map(u64::from)).unwrap();
        if got != want {
            let w = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
            panic!(
                "{what} (index {i:?}): out differs at word {w} (thread {}, word {} of it): {} {}, \
                 AddressMap {}\n{}",
                w / k.words_per_thread.max(1),
                w % k.words_per_thread.max(1),
                if gpu.is_some() { "GPU" } else { "interpreter" },
                got.get(w).copied().unwrap_or(0),
                want.get(w).copied().unwrap_or(0),
                k.kernel
            );
        }
    }
    runs.len()
}

#[test]
fn named_pairs_on_the_gpu_match_the_address_map() {
    let Some(gpu) = gpu() else { return };
    let kernels = named_kernels();
    let runs: usize = kernels.iter().map(|(w, k)| check(Some(&gpu), w, k)).sum();
    eprintln!("{} kernels, {runs} launches", kernels.len());
}

#[test]
fn random_layouts_on_the_gpu_match_the_address_map() {
    let Some(gpu) = gpu() else { return };
    let kernels = random_kernels();
    let runs: usize = kernels.iter().map(|(w, k)| check(Some(&gpu), w, k)).sum();
    eprintln!("{} kernels, {runs} launches", kernels.len());
}

/// The single-access probes (for the hardware's counters) launch and complete on the GPU
/// (their loads read shared memory no one wrote, so their values are not compared).
#[test]
fn probes_on_the_gpu_run() {
    let Some(gpu) = gpu() else { return };
    let tiers = tiers();
    let (_, probes) = tiers.iter().find(|(t, _)| *t == "probes").unwrap();
    for (what, case) in probes {
        let k = case.kernel();
        let loaded = gpu.load(k).unwrap_or_else(|e| panic!("{what}: {e}\n{k}"));
        gpu.launch(&loaded, &case.config(), &case.params(None))
            .unwrap_or_else(|e| panic!("{what}: {e}\n{k}"));
    }
    eprintln!("{} probes", probes.len());
}

/// With `GPU_MANIFEST=path`: writes every kernel of the tier (its text as loaded on an sm_90
/// device) and every launch in order, for `tools/gpu_record.py` to pair with the profiler's
/// records. Needs no GPU.
#[test]
fn manifest() {
    let Ok(path) = std::env::var("GPU_MANIFEST") else {
        return;
    };
    let mut kernels = Vec::new();
    let mut launches = Vec::new();
    for (test, cases) in tiers() {
        for (what, case) in cases {
            let id = kernels.len();
            let config = case.config();
            kernels.push(serde_json::json!({
                "id": id,
                "test": test,
                "what": what,
                "name": case.kernel().name,
                "threads": config.threads,
                "dynamic_shared_bytes": config.dynamic_shared_bytes,
                "ptx": device_ptx(case.kernel(), (9, 0)).unwrap(),
            }));
            for index in case.indices() {
                launches.push(serde_json::json!({"kernel": id, "index": index}));
            }
        }
    }
    let doc = serde_json::json!({"kernels": kernels, "launches": launches});
    std::fs::write(&path, serde_json::to_string(&doc).unwrap()).unwrap();
    eprintln!(
        "{path}: {} kernels, {} launches",
        kernels.len(),
        launches.len()
    );
}

/// The same kernels and expectations in the interpreter, with or without a GPU: a GPU
/// failure then points at the hardware or the driver, not at the cases.
#[test]
fn the_gpu_cases_hold_in_the_interpreter() {
    let kernels: Vec<_> = named_kernels()
        .into_iter()
        .chain(random_kernels())
        .collect();
    let runs: usize = kernels.iter().map(|(w, k)| check(None, w, k)).sum();
    assert!(kernels.len() > 60, "only {} kernels", kernels.len());
    let tiers = tiers();
    let (_, probes) = tiers.iter().find(|(t, _)| *t == "probes").unwrap();
    for (what, case) in probes {
        let out = run(case.kernel(), &case.config(), &case.params(None))
            .unwrap_or_else(|e| panic!("{what}: {e}\n{}", case.kernel()));
        assert!(out.trace.executions().count() >= 1, "{what}");
    }
    eprintln!("{} kernels, {runs} interpreter runs", kernels.len());
}

/// What [`Gpu::load`] hands the driver, for a Hopper (the `sm_90a` text at PTX 8.0) and for a
/// later device (`.target sm_90`), is PTX that ptxas accepts for those devices: checked
/// without a GPU.
#[test]
fn the_text_loaded_on_each_device_assembles() {
    let Some(ptxas) = codegen::ptxas::require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    for n in cases() {
        for k in [round_trip_of(&n).kernel, {
            address_dump(n.name, &n.map, &n.regs, n.op, &n.index, n.lowering)
                .unwrap()
                .kernel
        }] {
            for (capability, arch) in [((9, 0), "sm_90a"), ((10, 0), "sm_100"), ((12, 0), "sm_120")]
            {
                let text = device_ptx(&k, capability).unwrap();
                if let Err(e) = codegen::ptxas::assemble_with(&ptxas, &text, arch) {
                    panic!("{} for {arch}: {e}\n{text}", n.name);
                }
            }
        }
    }
    for (what, case) in tiers().into_iter().flat_map(|(_, c)| c) {
        if let gpu_cases::Case::Probe(..) = case {
            let text = device_ptx(case.kernel(), (9, 0)).unwrap();
            if let Err(e) = codegen::ptxas::assemble_with(&ptxas, &text, "sm_90a") {
                panic!("{what}: {e}\n{text}");
            }
        }
    }
}
