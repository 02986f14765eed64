//! Criterion benchmarks of the GF(2) layout algebra, on the layouts that
//! `tools/bench_triton_ll.py` times in Triton 3.9 (see `docs/benchmarks.md`).
//!
//! The layouts come from `benches/data/bench_layouts.json`, written by
//! `tools/bench_triton_ll.py --write-layouts` (deterministic, fixed seed), together with Triton's
//! results for every timed operation; before timing anything this bench recomputes those results
//! and panics if any differs, so both sides provably do the same work.
//!
//! For each input width N (10, 20, 30; 32 and 96 where Triton cannot go):
//! `dist` (register/lane/warp/block → dim0, dim1, random invertible), `shared`
//! (offset → dim0, dim1, random invertible), `outer` ((dim0, dim1) → (dim0, dim1), random
//! invertible), and `cvt = dist.invert_and_compose(shared)` (hardware index → shared offset).
//!
//! Groups:
//! * `apply/evaluator/N`    — compiled [`Evaluator::apply`] on flattened `cvt` inputs, a batch of
//!   4096 random inputs per iteration (criterion reports time per element).
//! * `apply/evaluator_batch/N` — [`Evaluator::apply_many`] on the same batch;
//!   `apply/evaluator_range/N` — [`Evaluator::apply_range`] on 4096 consecutive inputs.
//! * `apply/per_bit_loop/N` — reference: for each set input bit, XOR its packed column.
//! * `apply/checked/N`      — [`LinearLayout::apply`] with named inputs (interned [`Dim`]s),
//!   per call (batch of 256); `apply/checked_str/30` passes `&str` names instead.
//! * `compose/N`            — `shared.compose(outer)`
//! * `invert_and_compose/N` — `dist.invert_and_compose(shared)`
//! * `pseudoinvert/N`       — `shared.pseudoinvert()`
//! * `…/wide_96`            — the same at 96 input bits (beyond Triton's 64-bit/30-bit limits).
//!
//! Run: `cargo bench --bench algebra` (filter: `cargo bench --bench algebra -- compose/`).

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use linear_layout::{Dim, Evaluator, LinearLayout};
use serde_json::Value;
use test_support::random_tree::XorShift;

const LAYOUTS: &str = include_str!("data/bench_layouts.json");
const APPLY_BATCH: usize = 4096;
const CHECKED_BATCH: usize = 256;
const SEED: u64 = 0x5EED_1234_ABCD_0001;

struct Case {
    name: String,
    dist: LinearLayout,
    shared: LinearLayout,
    outer: LinearLayout,
}

fn layout(v: &Value, what: &str) -> LinearLayout {
    LinearLayout::from_json(v).unwrap_or_else(|e| panic!("bench_layouts.json: {what}: {e}"))
}

/// Every case of the JSON file, checked against Triton's recorded results where present.
fn cases() -> Vec<Case> {
    let doc: Value = serde_json::from_str(LAYOUTS).expect("bench_layouts.json is valid JSON");
    let cases = doc["cases"]
        .as_object()
        .expect("bench_layouts.json: \"cases\" object");
    cases
        .iter()
        .map(|(n, c)| {
            let case = Case {
                name: n.clone(),
                dist: layout(&c["dist"], &format!("{n}/dist")),
                shared: layout(&c["shared"], &format!("{n}/shared")),
                outer: layout(&c["outer"], &format!("{n}/outer")),
            };
            if let Some(expect) = c.get("expect") {
                let got = [
                    ("compose", case.shared.compose(&case.outer)),
                    (
                        "invert_and_compose",
                        case.dist.invert_and_compose(&case.shared),
                    ),
                    ("pseudoinvert", case.shared.pseudoinvert()),
                ];
                for (op, result) in got {
                    let result = result.unwrap_or_else(|e| panic!("{op}/{n}: {e}"));
                    assert_eq!(
                        result,
                        layout(&expect[op], op),
                        "{op}/{n} differs from Triton 3.9's result"
                    );
                }
            }
            case
        })
        .collect()
}

fn config() -> Criterion {
    Criterion::default()
        .sample_size(30)
        .measurement_time(Duration::from_secs(2))
        .warm_up_time(Duration::from_millis(500))
}

/// Random inputs of `cvt`: flattened values and the same values split per in-dim.
fn apply_inputs(cvt: &LinearLayout, count: usize) -> (Vec<u64>, Vec<Vec<(Dim, u64)>>) {
    let bits = cvt.total_in_dim_size_log2();
    let mask = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let mut rng = XorShift(SEED ^ u64::from(bits));
    let flat: Vec<u64> = (0..count).map(|_| rng.next_u64() & mask).collect();
    let named = flat
        .iter()
        .map(|&x| {
            let mut shift = 0;
            cvt.in_dims()
                .into_iter()
                .map(|(d, size)| {
                    let v = (x >> shift) & (size - 1);
                    shift += size.trailing_zeros();
                    (d, v)
                })
                .collect()
        })
        .collect();
    (flat, named)
}

/// The reference the evaluator must beat: one XOR per set input bit.
#[inline]
fn per_bit(columns: &[u64], x: u64) -> u64 {
    let mut acc = 0;
    let mut rest = x;
    while rest != 0 {
        acc ^= columns[rest.trailing_zeros() as usize];
        rest &= rest - 1;
    }
    acc
}

fn bench_apply(c: &mut Criterion) {
    let mut group = c.benchmark_group("apply");
    for case in cases().iter().filter(|c| c.name != "96") {
        let cvt = case.dist.invert_and_compose(&case.shared).expect("cvt");
        let eval: Evaluator = cvt.evaluator().expect("≤ 64 bits");
        let n_in = cvt.total_in_dim_size_log2();
        let columns: Vec<u64> = (0..n_in).map(|i| eval.apply(1 << i)).collect();
        let (flat, named) = apply_inputs(&cvt, APPLY_BATCH);
        // All three paths agree before anything is timed.
        for (&x, inputs) in flat.iter().zip(&named) {
            let checked: Vec<u64> = cvt
                .apply(inputs)
                .expect("in range")
                .into_iter()
                .map(|(_, v)| v)
                .collect();
            assert_eq!(eval.split(eval.apply(x)), checked);
            assert_eq!(per_bit(&columns, x), eval.apply(x));
        }

        group.throughput(Throughput::Elements(APPLY_BATCH as u64));
        group.bench_function(format!("evaluator/{}", case.name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for &x in black_box(flat.as_slice()) {
                    acc ^= eval.apply(x);
                }
                black_box(acc)
            })
        });
        let mut batch_out = vec![0u64; flat.len()];
        group.bench_function(format!("evaluator_batch/{}", case.name), |b| {
            b.iter(|| {
                eval.apply_many(black_box(flat.as_slice()), &mut batch_out);
                black_box(batch_out.first().copied())
            })
        });
        // A whole range of consecutive inputs (a tile's addresses), from a random start.
        let start = flat.first().copied().unwrap_or(0);
        eval.apply_range(start, &mut batch_out);
        for (k, &o) in (0u64..).zip(&batch_out) {
            assert_eq!(o, eval.apply(start.wrapping_add(k)));
        }
        group.bench_function(format!("evaluator_range/{}", case.name), |b| {
            b.iter(|| {
                eval.apply_range(black_box(start), &mut batch_out);
                black_box(batch_out.first().copied())
            })
        });
        group.bench_function(format!("per_bit_loop/{}", case.name), |b| {
            b.iter(|| {
                let mut acc = 0u64;
                for &x in black_box(flat.as_slice()) {
                    acc ^= per_bit(black_box(columns.as_slice()), x);
                }
                black_box(acc)
            })
        });

        group.throughput(Throughput::Elements(CHECKED_BATCH as u64));
        let named = &named[..CHECKED_BATCH];
        group.bench_function(format!("checked/{}", case.name), |b| {
            b.iter(|| {
                for inputs in black_box(named) {
                    black_box(cvt.apply(inputs).expect("in range"));
                }
            })
        });
        if case.name == "30" {
            let with_names: Vec<Vec<(&'static str, u64)>> = named
                .iter()
                .map(|v| v.iter().map(|&(d, x)| (d.name(), x)).collect())
                .collect();
            group.bench_function(format!("checked_str/{}", case.name), |b| {
                b.iter(|| {
                    for inputs in black_box(&with_names) {
                        black_box(cvt.apply(inputs).expect("in range"));
                    }
                })
            });
        }
    }
    group.finish();
}

fn bench_ops(c: &mut Criterion) {
    let cases = cases();
    let id = |case: &Case| {
        if case.name == "96" {
            "wide_96".to_owned()
        } else {
            case.name.clone()
        }
    };
    let timed = cases.iter().filter(|c| c.name != "32");

    let mut group = c.benchmark_group("compose");
    for case in timed.clone() {
        group.bench_function(id(case), |b| {
            b.iter(|| {
                black_box(&case.shared)
                    .compose(black_box(&case.outer))
                    .expect("compose")
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("invert_and_compose");
    for case in timed.clone() {
        group.bench_function(id(case), |b| {
            b.iter(|| {
                black_box(&case.dist)
                    .invert_and_compose(black_box(&case.shared))
                    .expect("invert_and_compose")
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("pseudoinvert");
    for case in timed {
        group.bench_function(id(case), |b| {
            b.iter(|| {
                black_box(&case.shared)
                    .pseudoinvert()
                    .expect("pseudoinvert")
            })
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = config();
    targets = bench_apply, bench_ops
}
criterion_main!(benches);
