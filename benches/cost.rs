//! Criterion benchmarks of the shared-memory cost model (`codegen::cost`): how long the
//! hardware's counters of a kernel take to compute on the CPU.
//!
//! * `cost/run_cost/<kernel>`: interpret the kernel for one CTA and cost every shared access
//!   (what `linalias ptx-cost` does), for the first recorded kernel of the GPU tier
//!   (`examples/blocked_to_nvmma128_store.ptx`, 128 threads, 8 `st.shared.v4` + 16
//!   `ld.shared.v2` per thread) and the largest benchmark conversion
//!   (`convert_blocked_transpose_bf16_128x128`, through `stmatrix`/`ldmatrix` in 4 rounds);
//! * `cost/kernel_cost/<kernel>`: costing a trace already recorded (the model alone);
//! * `cost/access_cost/<pattern>`: one warp-level access of 32 lanes.
//!
//! Before timing, each kernel's counters are compared with what the H100 measured
//! (`codegen/tests/data/gpu/`, `benches/data/h100_bench_counters.json`).
//!
//! Run: `cargo bench --bench cost -- --warm-up-time 1 --measurement-time 3`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;

use codegen::cost::{access_cost, kernel_cost, run_cost, LaneAccess, SharedAccessClass};
use codegen::interp::{run, Config, ParamValue};
use codegen::ptx::parse;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

fn cases() -> Vec<(&'static str, String, u32, [u64; 6])> {
    vec![
        (
            "blocked_to_nvmma128_store",
            include_str!("../examples/blocked_to_nvmma128_store.ptx").to_string(),
            32768,
            [64, 32, 256, 128, 128, 0],
        ),
        (
            "convert_blocked_transpose_bf16_128x128",
            include_str!("data/ours_ptx/convert_blocked_transpose_bf16_128x128.ptx").to_string(),
            96 * 1024,
            [0, 64, 256, 256, 0, 0],
        ),
    ]
}

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("cost");
    for (name, text, shared, measured) in cases() {
        let kernel = parse(&text).unwrap();
        let config = Config::new(kernel.reqntid.unwrap()).dynamic_shared(shared);
        let params: Vec<ParamValue> = kernel
            .params
            .iter()
            .map(|_| ParamValue::Buffer(vec![0; 1 << 20]))
            .collect();
        let cost = run_cost(&kernel, &config, &params).unwrap();
        assert_eq!(
            cost.counters.values(),
            measured,
            "{name}: the H100's counters"
        );
        group.bench_with_input(BenchmarkId::new("run_cost", name), &(), |b, _| {
            b.iter(|| black_box(run_cost(&kernel, &config, &params).unwrap()))
        });
        let trace = run(&kernel, &config, &params).unwrap().trace;
        group.bench_with_input(BenchmarkId::new("kernel_cost", name), &(), |b, _| {
            b.iter(|| black_box(kernel_cost(&kernel, &trace).unwrap()))
        });
    }
    for (name, class, bytes, stride) in [
        ("ld_v4_contiguous", SharedAccessClass::Load, 16, 16),
        ("ld_v2_broadcast_pairs", SharedAccessClass::Load, 8, 0),
        ("st_b16_one_bank", SharedAccessClass::Store, 2, 128),
    ] {
        let lanes: Vec<LaneAccess> = (0..32)
            .map(|l| LaneAccess {
                slot: l,
                address: if stride == 0 {
                    16 * (l / 2)
                } else {
                    stride * l
                },
            })
            .collect();
        group.bench_with_input(BenchmarkId::new("access_cost", name), &(), |b, _| {
            b.iter(|| black_box(access_cost(class, bytes, black_box(&lanes)).unwrap()))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
