//! Criterion benchmarks of storage-alias planning (`alias_alloc::Program::plan`), in both
//! modes, and of the independent checker on the finished plans.
//!
//! Inputs:
//! * `fa_forward`: the TLX tutorial's Flash-Attention forward tree (TMEM: `qk [128, 128] f32
//!   ×2`, `p [128, 64] bf16 ×4` in a group of 2, `alpha, l, m [128, 1] f32 ×2`).
//! * `random40`: 8 random valid SMEM trees of 40 allocations each (depth ≤ 3, mixed dtypes and
//!   layouts; `test_support::random_tree`), generated once from a fixed seed outside the
//!   timing loop, keeping only trees that both modes accept. One iteration plans all 8.
//!
//! Groups: `plan/<input>/<mode>`, `check/<input>/<mode>` (the checker alone, on the plan of
//! that mode) and `lower/<input>/<mode>` (the explicit lowering alone: one `AddressMap` per
//! allocation from its buffer map and element layout, as `plan` builds them). Before timing, the bench prints each input's backing against a lower bound:
//! per buffer group, a shared group needs `group_size × its largest child`, a distinct group
//! the sum of its children, a leaf its own bytes (or TMEM columns) — no alignment — times the
//! number of buffer groups.
//!
//! `read_ir/<kernel>` reads a real kernel's TTGIR dump (170–230 KB) into its `Program`;
//! `lower_ir/<kernel>` prints the module after the storage-alias lowering (TLX mode).
//!
//! Run: `cargo bench --bench planning -- --warm-up-time 1 --measurement-time 3`.

#![allow(missing_docs, clippy::restriction)] // criterion_main! has no docs; checks panic

use std::hint::black_box;

use alias_alloc::checker::check;
use alias_alloc::lowering::explicit::{address_map, LoweringCache};
use alias_alloc::mlir::{lower_module, read_module};
use alias_alloc::{
    AllocError, GroupKind, Member, Mode, PlanOptions, Program, ReuseGroup, Storage, Target,
};
use criterion::{criterion_group, criterion_main, Criterion};
use linear_layout::mlir::Module;
use test_support::random_tree::{big_target, gen_tree, GenOptions, XorShift};
use test_support::tlx_kernels::dump;

const SEED: u64 = 0x5EED_A11A_5000_0040;
const RANDOM_TREES: usize = 8;

/// The FA forward program of the TLX tutorial (BLOCK_M_SPLIT = 128, BLOCK_N = 128, 2 slices).
fn fa_forward() -> Result<Program, AllocError> {
    let mut p = Program::new();
    let s = p.storage_alias_spec("qk_storage", Storage::Tmem, None)?;
    let qk = p.local_alloc("qk", &[128, 128], alias_alloc::DType::F32, 2, s)?;
    let pt = p.local_alloc("p", &[128, 64], alias_alloc::DType::BF16, 4, s)?;
    let alpha = p.local_alloc("alpha", &[128, 1], alias_alloc::DType::F32, 2, s)?;
    let l = p.local_alloc("l", &[128, 1], alias_alloc::DType::F32, 2, s)?;
    let m = p.local_alloc("m", &[128, 1], alias_alloc::DType::F32, 2, s)?;
    let sliced = ReuseGroup::shared(vec![pt.into()])?.group_size(2)?;
    let distinct = ReuseGroup::distinct(vec![sliced.into(), alpha.into(), l.into(), m.into()])?;
    p.set_buffer_overlap(s, ReuseGroup::shared(vec![qk.into(), distinct.into()])?)?;
    Ok(p)
}

/// 8 random 40-allocation SMEM programs that both modes plan.
fn random_programs() -> Vec<Program> {
    let mut rng = XorShift(SEED);
    let mut out = Vec::new();
    let mut tried = 0;
    while out.len() < RANDOM_TREES {
        tried += 1;
        assert!(tried < 10_000, "no 40-allocation trees both modes accept");
        let spec = gen_tree(
            &mut rng,
            GenOptions {
                leaves: Some(40),
                ..GenOptions::default()
            },
        );
        let Ok(built) = spec.build() else { continue };
        let ok = [Mode::Intended, Mode::TlxCompatible]
            .iter()
            .all(|&m| built.program.plan(&options(m)).is_ok());
        if ok {
            out.push(built.program);
        }
    }
    println!("random40: {RANDOM_TREES} trees kept of {tried} generated (seed {SEED:#x})");
    out
}

fn options(mode: Mode) -> PlanOptions {
    PlanOptions {
        mode,
        target: target(),
    }
}

fn target() -> Target {
    big_target()
}

/// Per buffer group, without alignment: shared `k × max(children)`, distinct `Σ children`.
fn lower_bound_per_group(p: &Program, g: &ReuseGroup) -> Result<u64, AllocError> {
    let mut sizes = Vec::new();
    for m in &g.members {
        sizes.push(match m {
            Member::Alloc(a) => p.allocation(*a)?.units_per_buffer()?,
            Member::Group(c) => lower_bound_per_group(p, c)?,
        });
    }
    Ok(match g.kind {
        GroupKind::Shared => g.group_size * sizes.into_iter().max().unwrap_or(0),
        GroupKind::Distinct => sizes.into_iter().sum(),
    })
}

/// `(backing, lower bound)` of the first spec of `p` in `mode`.
fn backing_vs_bound(p: &Program, mode: Mode) -> Result<(u64, u64), AllocError> {
    let plan = p.plan(&options(mode))?;
    let spec = plan
        .specs
        .first()
        .ok_or_else(|| AllocError::Input("no spec".into()))?;
    let tree = spec
        .tree
        .as_ref()
        .ok_or_else(|| AllocError::Input("no tree".into()))?;
    let groups = spec.groups.unwrap_or(1);
    Ok((spec.backing_units, groups * lower_bound_per_group(p, tree)?))
}

fn report_backings(name: &str, programs: &[Program]) {
    for mode in [Mode::Intended, Mode::TlxCompatible] {
        let mut ratios = Vec::new();
        let mut rows = Vec::new();
        let mut unsafe_plans = 0;
        for p in programs {
            if let Ok(plan) = p.plan(&options(mode)) {
                if !check(p, &plan).is_empty() {
                    unsafe_plans += 1;
                }
            }
            match backing_vs_bound(p, mode) {
                Ok((backing, bound)) => {
                    ratios.push(backing as f64 / bound as f64);
                    rows.push(format!("{backing}/{bound}"));
                }
                Err(e) => rows.push(format!("error: {e}")),
            }
        }
        let geomean =
            (ratios.iter().map(|r| r.ln()).sum::<f64>() / ratios.len().max(1) as f64).exp();
        let max = ratios.iter().cloned().fold(0.0, f64::max);
        let min = ratios.iter().cloned().fold(f64::INFINITY, f64::min);
        println!(
            "backing/lower bound, {name}, {mode:?}: geomean {geomean:.3}, min {min:.3}, max {max:.3} ({}); {unsafe_plans} of {} plans fail the checker",
            rows.join(", "),
            programs.len()
        );
    }
}

fn planning(c: &mut Criterion) {
    let fa = vec![fa_forward().expect("FA forward builds")];
    let random = random_programs();
    report_backings("fa_forward", &fa);
    report_backings("random40", &random);
    for (name, programs) in [("fa_forward", &fa), ("random40", &random)] {
        for (mode, label) in [(Mode::Intended, "intended"), (Mode::TlxCompatible, "tlx")] {
            let opts = options(mode);
            // Warm: the element layouts are in the caller's lowering cache (re-planning,
            // autotuning).
            let mut cache = LoweringCache::new();
            c.bench_function(&format!("plan/{name}/{label}"), |b| {
                b.iter(|| {
                    for p in programs {
                        black_box(black_box(p).plan_with(&opts, &mut cache).expect("plans"));
                    }
                })
            });
            // Cold: every element layout is inverted and compiled again (a fresh cache).
            c.bench_function(&format!("plan_cold/{name}/{label}"), |b| {
                b.iter(|| {
                    for p in programs {
                        black_box(black_box(p).plan(&opts).expect("plans"));
                    }
                })
            });
            let plans: Vec<_> = programs
                .iter()
                .map(|p| p.plan(&opts).expect("plans"))
                .collect();
            c.bench_function(&format!("check/{name}/{label}"), |b| {
                b.iter(|| {
                    for (p, plan) in programs.iter().zip(&plans) {
                        black_box(check(black_box(p), black_box(plan)));
                    }
                })
            });
            c.bench_function(&format!("lower_cold/{name}/{label}"), |b| {
                b.iter(|| {
                    for (p, plan) in programs.iter().zip(&plans) {
                        let mut cache = LoweringCache::new();
                        for a in &plan.allocs {
                            let alloc = p.allocation(a.alloc).expect("allocation");
                            black_box(address_map(alloc, a.explicit.clone(), &mut cache).ok());
                        }
                    }
                })
            });
        }
    }
}

/// Reading a real kernel's TTGIR (`alias_alloc::mlir::read_module` on the committed dumps), and
/// the storage-alias lowering of it printed (`lower_module`, TLX mode).
fn from_ir(c: &mut Criterion) {
    // The two largest committed dumps (230 KB each): parsing into the module model alone,
    // and reading and planning the kernel (the module-model issue's target: ≤ 5 ms).
    for kernel in ["fa_fwd_mxfp8", "fa_bwd_mxfp8"] {
        let text = dump(kernel, "before");
        c.bench_function(&format!("parse_ir/{kernel}"), |b| {
            b.iter(|| black_box(Module::parse(black_box(&text)).expect("parses")))
        });
        c.bench_function(&format!("read_and_plan_ir/{kernel}"), |b| {
            b.iter(|| {
                let m = read_module(black_box(&text)).expect("reads");
                black_box(
                    m.program
                        .plan(&PlanOptions::new(Mode::Intended))
                        .expect("plans"),
                )
            })
        });
    }
    for kernel in ["fa_fwd_persistent", "fa_bwd_mxfp8"] {
        let text = dump(kernel, "before");
        c.bench_function(&format!("read_ir/{kernel}"), |b| {
            b.iter(|| black_box(read_module(black_box(&text)).expect("reads")))
        });
        let module = read_module(&text).expect("reads");
        let plan = module
            .program
            .plan(&PlanOptions::new(Mode::TlxCompatible))
            .expect("plans");
        c.bench_function(&format!("lower_ir/{kernel}"), |b| {
            b.iter(|| black_box(lower_module(black_box(&module), &plan).expect("lowers")))
        });
    }
}

criterion_group!(benches, planning, from_ir);
criterion_main!(benches);
