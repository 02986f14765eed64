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

mod smem_cases;

use codegen::access::IndexSource;
use codegen::access::{BufferLowering, MemoryOp, TlxReindex};
use codegen::gpu::{device_ptx, require_gpu, Gpu};
use codegen::interp::run;
use codegen::ptx::parse;
use codegen::smem::kernels::{address_dump, round_trip, TestKernel};
use linear_layout::BufferMap;
use smem_cases::{cases, Named};
use test_support::smem::{random_gf2_layout, random_layout, Rng, SharedSpec};

fn gpu() -> Option<Gpu> {
    let gpu = require_gpu().unwrap_or_else(|e| panic!("GPU tier required (REQUIRE_GPU=1): {e}"));
    if let Some(g) = &gpu {
        let (major, minor) = g.capability();
        eprintln!("gpu: {} (sm_{major}{minor})", g.name());
    }
    gpu
}

/// The run-time indices to run (every buffer, at most 8 of them), or `None` once for
/// constant indices.
fn indices(k: &TestKernel) -> Vec<Option<u32>> {
    match k.index {
        IndexSource::Param => {
            let n = k.map.buffer().num_buffers();
            let mut v: Vec<u64> = (0..n.min(8)).collect();
            if n > 8 {
                v.push(n - 1);
            }
            v.into_iter().map(|i| Some(i as u32)).collect()
        }
        IndexSource::Const(_) => vec![None],
    }
}

/// The two round-trip layouts of a named case: (store, load).
fn round_trip_of(n: &Named) -> TestKernel {
    let (store, load) = match n.op {
        MemoryOp::Store => (&n.regs, &n.partner),
        MemoryOp::Load => (&n.partner, &n.regs),
    };
    round_trip(n.name, &n.map, store, load, &n.index, n.lowering).unwrap()
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

/// The named pairs' round trips and address dumps.
fn named_kernels() -> Vec<(String, TestKernel)> {
    let mut out = Vec::new();
    for n in cases() {
        out.push((format!("{} round trip", n.name), round_trip_of(&n)));
        let dump = address_dump(n.name, &n.map, &n.regs, n.op, &n.index, n.lowering).unwrap();
        out.push((format!("{} address dump", n.name), dump));
    }
    out
}

const SPECS: [SharedSpec; 8] = [
    SharedSpec::Nvmma {
        swizzle: 128,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 64,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 32,
        transposed: true,
    },
    SharedSpec::Nvmma {
        swizzle: 0,
        transposed: false,
    },
    SharedSpec::Nvmma {
        swizzle: 128,
        transposed: true,
    },
    SharedSpec::Swizzled {
        vec: 8,
        per_phase: 1,
        max_phase: 8,
        row_major: true,
    },
    SharedSpec::Swizzled {
        vec: 4,
        per_phase: 2,
        max_phase: 4,
        row_major: false,
    },
    SharedSpec::Swizzled {
        vec: 1,
        per_phase: 1,
        max_phase: 1,
        row_major: true,
    },
];

/// Deterministic random cases: GF(2) register layouts over random shared layouts, round
/// trips through a 3-stage ring (constant and run-time stage), and address dumps of TLX's
/// placement through its reindexing and as an explicit map (stores of the bijection, loads of
/// an arbitrary layout).
fn random_kernels() -> Vec<(String, TestKernel)> {
    let mut rng = Rng(0x5EED_0C0D_E6E0_0005);
    let mut out = Vec::new();
    for seed in 0..RANDOM_CASES {
        let spec = SPECS[rng.below(SPECS.len())];
        let bits = [8u32, 16, 16, 32][rng.below(4)];
        let shape = [[64u64, 64], [32, 64], [64, 32], [128, 64], [16, 128]][rng.below(5)];
        let warps = 1u32 << rng.below(3);
        let store = random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6));
        let load = random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6));
        let arbitrary = random_layout(shape, warps, rng.below(5) as u32, rng.next_u64());
        let Some(probe) = spec.map(bits, &shape, BufferMap::new(0, &[]).unwrap()) else {
            continue;
        };
        let span = probe.element_span();
        let name = format!("random{seed}");
        let what = format!("{name} ({spec:?}, {bits}-bit {shape:?}, {warps} warps)");
        let ring = probe.with_buffer(BufferMap::new(0, &[(3, span)]).unwrap());
        for index in [IndexSource::Const(vec![0, 2]), IndexSource::Param] {
            let k = round_trip(
                &name,
                &ring,
                &store,
                &load,
                &index,
                BufferLowering::Explicit,
            )
            .unwrap_or_else(|e| panic!("{what}: {e}"));
            out.push((format!("{what} round trip {index:?}"), k));
        }
        let tlx = TlxReindex::new(2, 1, 2, span);
        if (2 * 3 + 1 + 2) * span > 200 * 1024 {
            continue;
        }
        let placed = probe.with_buffer(tlx.buffer_map(4).unwrap());
        for lowering in [BufferLowering::Explicit, BufferLowering::TlxReindex(tlx)] {
            for (regs, op) in [(&store, MemoryOp::Store), (&arbitrary, MemoryOp::Load)] {
                let k = address_dump(&name, &placed, regs, op, &IndexSource::Param, lowering)
                    .unwrap_or_else(|e| panic!("{what}: {e}"));
                out.push((format!("{what} {op:?} dump {lowering:?}"), k));
            }
        }
    }
    out
}

const RANDOM_CASES: u64 = 48;

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
}
