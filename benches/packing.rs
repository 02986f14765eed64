//! Criterion benchmarks of the exact packing solver (`packing::exact`).
//!
//! Inputs (all embedded or regenerated, nothing read at run time):
//! * `challenging/<X>`: MiniMalloc's challenging instances A–K
//!   (`packing/tests/data/minimalloc/`, 154–454 buffers), decided at capacity 2^20 with
//!   `fits` (a validated placement each time), as MiniMalloc is run; `challenging_lb/C`: C at
//!   its lower bound 1,039,360; `minimize/<X>`: the optimisation form on the nine instances
//!   whose optimum is the lower bound (it proves it).
//! * `dsa/<name>`: the eight small public cases (`packing/tests/data/dsa/`, plus
//!   MiniMalloc's README example), `minimize` to a proved optimum.
//! * `generated/<file>`: the seeded GPU-shaped suite of `packing::generator`
//!   (SMEM pipelines, TMEM, perfect packings), `minimize` with a 1 s budget; instances the
//!   solver does not prove within 2 s in a first run are left out (and listed).
//!
//! Run: `cargo bench --bench packing` (about 4 minutes), or one group with e.g.
//! `cargo bench --bench packing -- challenging/`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};
use packing::csv::read_csv;
use packing::exact::{fits, minimize, Fit, SolveOptions};
use packing::generator::suite;
use packing::Problem;

macro_rules! minimalloc {
    ($($name:literal),*) => {
        [$(($name, include_str!(concat!("../packing/tests/data/minimalloc/", $name, ".1048576.csv")))),*]
    };
}

const CHALLENGING: [(&str, &str); 11] =
    minimalloc!("A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K");

macro_rules! dsa {
    ($($name:literal),*) => {
        [$(($name, include_str!(concat!("../packing/tests/data/dsa/", $name, ".csv")))),*]
    };
}

const DSA: [(&str, &str); 7] = dsa!("a.6", "b.6", "c.8", "d.9", "e.12", "f.14", "g.7");

/// MiniMalloc's README example (`benchmarks/examples/input.12.csv`).
const INPUT_12: &str = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

fn problem(text: &str, capacity: u64) -> Problem {
    match read_csv(text, Some(capacity)) {
        Ok(p) => p,
        Err(e) => panic!("bench data: {e}"),
    }
}

fn unlimited() -> SolveOptions {
    SolveOptions {
        budget: None,
        ..SolveOptions::default()
    }
}

fn decide(p: &Problem, capacity: u64) {
    match fits(p, capacity, &unlimited()) {
        Ok(Fit::Yes(placement)) => {
            black_box(placement);
        }
        other => panic!("expected a fit at {capacity}: {other:?}"),
    }
}

fn packing(c: &mut Criterion) {
    let mut group = c.benchmark_group("challenging");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, text) in CHALLENGING {
        let p = problem(text, 1 << 20);
        group.bench_function(name, |b| b.iter(|| decide(&p, 1 << 20)));
    }
    group.finish();

    let mut group = c.benchmark_group("challenging_lb");
    group.sample_size(20);
    let (_, text) = CHALLENGING[2];
    let p = problem(text, 1_039_360);
    group.bench_function("C", |b| b.iter(|| decide(&p, 1_039_360)));
    group.finish();

    let mut group = c.benchmark_group("minimize");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));
    for (name, text) in CHALLENGING.iter().filter(|(n, _)| !["D", "J"].contains(n)) {
        let p = problem(text, 1 << 20);
        group.bench_function(*name, |b| {
            b.iter(|| {
                let s = minimize(&p, &unlimited()).expect("minimize");
                assert!(s.proven_optimal);
                black_box(s)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("dsa");
    group
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let small = std::iter::once(("input.12", INPUT_12)).chain(DSA);
    for (name, text) in small {
        let capacity = name
            .rsplit('.')
            .next()
            .and_then(|c| c.parse().ok())
            .unwrap_or(0);
        let p = problem(text, capacity);
        group.bench_function(name, |b| {
            b.iter(|| {
                let s = minimize(&p, &unlimited()).expect("minimize");
                assert!(s.proven_optimal && s.peak == capacity);
                black_box(s)
            })
        });
    }
    group.finish();

    let mut group = c.benchmark_group("generated");
    group
        .sample_size(20)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    let mut skipped = Vec::new();
    for instance in suite() {
        let p = instance.problem().expect("generator");
        let budget = SolveOptions {
            budget: Some(Duration::from_secs(1)),
            ..SolveOptions::default()
        };
        let start = Instant::now();
        let first = minimize(
            &p,
            &SolveOptions {
                budget: Some(Duration::from_secs(2)),
                ..SolveOptions::default()
            },
        )
        .expect("minimize");
        if !first.proven_optimal {
            skipped.push(format!(
                "{} ({:.1} s, not proved)",
                instance.file_name(),
                start.elapsed().as_secs_f64()
            ));
            continue;
        }
        group.bench_function(instance.file_name(), |b| {
            b.iter(|| black_box(minimize(&p, &budget).expect("minimize")))
        });
    }
    group.finish();
    if !skipped.is_empty() {
        println!("generated: left out {}", skipped.join(", "));
    }
}

criterion_group!(benches, packing);
criterion_main!(benches);
