//! Criterion benchmarks of emitting a plan's PTX through the library glue
//! (`codegen::plan_ptx::PlanPtx`): one kernel per allocation, stored and reloaded through the
//! buffer a run-time parameter picks.
//!
//! Inputs (the plan files in `examples/`, read and planned once, outside the timing loop, in
//! the Intended mode):
//! * `fa_forward`: `flash_attention.toml` — five tensor-memory allocations (`qk`, `p`, `alpha`,
//!   `l`, `m`), five `tcgen05` round-trip kernels (sm_100a);
//! * `smem_pipeline`: `smem_pipeline.toml` — four shared-memory allocations, four
//!   `ld/st.shared` round-trip kernels (sm_90a).
//!
//! Groups: `emit/<input>` builds every kernel (`PlanPtx::new`: register layouts, emitter
//! plans, PTX IR, the module) and prints the module's text; `emit_ir/<input>` stops before
//! printing.
//!
//! Run: `cargo bench --bench emit -- --warm-up-time 1 --measurement-time 3`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;

use alias_alloc::plan_file::PlanFile;
use alias_alloc::{Mode, Plan, PlanOptions, Program};
use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
use criterion::{criterion_group, criterion_main, Criterion};

/// The example's program and its Intended plan.
fn planned(example: &str) -> (Program, Plan) {
    let path = format!("{}/examples/{example}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).expect("the example plan file exists");
    let file = PlanFile::parse(&text).expect("the example parses");
    let plan = file
        .program
        .plan(&PlanOptions::new(Mode::Intended))
        .expect("the example plans");
    (file.program, plan)
}

fn emit(c: &mut Criterion) {
    let options = PlanPtxOptions::default();
    for (name, example) in [
        ("fa_forward", "flash_attention.toml"),
        ("smem_pipeline", "smem_pipeline.toml"),
    ] {
        let (program, plan) = planned(example);
        let once = PlanPtx::new(&program, &plan, &options).expect("the plan's PTX is emitted");
        assert!(once.skipped.is_empty(), "{name}: {:?}", once.skipped);
        let text = once.module().to_string();
        println!(
            "{name}: {} kernels, {} lines of PTX",
            once.allocations.len(),
            text.lines().count()
        );
        c.bench_function(&format!("emit/{name}"), |b| {
            b.iter(|| {
                let ptx = PlanPtx::new(black_box(&program), black_box(&plan), &options);
                ptx.expect("emitted once already").module().to_string()
            })
        });
        c.bench_function(&format!("emit_ir/{name}"), |b| {
            b.iter(|| {
                PlanPtx::new(black_box(&program), black_box(&plan), &options)
                    .expect("emitted once already")
            })
        });
    }
}

criterion_group!(benches, emit);
criterion_main!(benches);
