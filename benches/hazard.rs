//! Criterion benchmarks of the hazard check (`alias_alloc::hazard`, `linalias check`) on five of
//! the real TLX kernels it reads (`alias-alloc/tests/data/tlx_kernels/`):
//!
//! * `hazard/read/<kernel>`: the TTGIR run on its integer arithmetic into a trace (module
//!   parse and allocation plan included);
//! * `hazard/check/<kernel>`: the static relation, the check's own runs and every pair's
//!   verdict on that trace;
//! * `hazard/sweep/<kernel>`: `linalias check --sweep` — read and check at every residue of the
//!   trip counts modulo the period of the kernel's barrier rings (`TripCounts`), the reports
//!   included.
//!
//! Before timing, each kernel's verdict is checked: no hazard (`fa_ws_pipelined_fp8` aside, whose
//! tx bytes are a real fault).
//!
//! Run: `cargo bench --bench hazard -- --warm-up-time 1 --measurement-time 3`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;

use alias_alloc::hazard::{check, read_kernel, ReadOptions, SweepReport, TripCounts};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

const KERNELS: [&str; 6] = [
    "fa_ws_pipelined",
    "fa_ws_persistent",
    "fa_bwd_1cta",
    "fa_bwd_2cta",
    "fa_bwd_mxfp8",
    "fa_clc",
];

fn text(kernel: &str) -> String {
    let path = format!(
        "{}/alias-alloc/tests/data/tlx_kernels/{kernel}/before.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn bench(c: &mut Criterion) {
    let opts = ReadOptions::default();
    let mut g = c.benchmark_group("hazard");
    for kernel in KERNELS {
        let text = text(kernel);
        let trace = read_kernel(&text, &opts).unwrap().trace;
        assert_eq!(check(&trace).hazards().count(), 0, "{kernel}");
        g.bench_with_input(BenchmarkId::new("read", kernel), &text, |b, t| {
            b.iter(|| read_kernel(black_box(t), &opts).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("check", kernel), &trace, |b, t| {
            b.iter(|| check(black_box(t)))
        });
        g.bench_with_input(BenchmarkId::new("sweep", kernel), &text, |b, t| {
            b.iter(|| {
                let trips = TripCounts::new(black_box(t), &opts).unwrap();
                SweepReport::new(kernel, t, &opts, trips, 0).unwrap()
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
