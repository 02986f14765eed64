//! `minimize` on freshly seeded pinwheel perfect packings (beyond the ten committed ones):
//! how many it packs at the bound within a budget, and how close it gets on the others.
//!
//! Run: `cargo run --release -p linalias-packing --features generator --example
//! pinwheel_sweep [-- --budget SECONDS --seeds FIRST..END]` (defaults: 5 s, seeds 100..130;
//! seed `s` has `250 + 50 · (s mod 6)` buffers on the 2^20 × 2^20 square). Every placement
//! is validated by `packing::check`.

use std::time::Duration;

use packing::check::check;
use packing::exact::{minimize, SolveOptions};
use packing::generator::pinwheel_packing;

type Error = Box<dyn std::error::Error>;

fn main() -> Result<(), Error> {
    let (mut budget, mut seeds) = (5.0f64, 100u64..130);
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--budget" => budget = value.parse()?,
            "--seeds" => {
                let (a, b) = value.split_once("..").ok_or("--seeds takes FIRST..END")?;
                seeds = a.parse()?..b.parse()?;
            }
            _ => return Err(format!("unknown argument {flag}").into()),
        }
    }
    let options = SolveOptions {
        budget: Some(Duration::from_secs_f64(budget)),
        ..SolveOptions::default()
    };
    println!("| seed | n | peak ÷ LB | proved | time |");
    println!("|---|---:|---:|---|---:|");
    let (mut proved, mut count, mut total, mut worst_ratio) = (0, 0, 0.0, 1.0f64);
    for seed in seeds {
        let n = 250 + 50 * (seed % 6) as usize;
        let (p, _) = pinwheel_packing(seed, n, 1024, 1024, 1024)?;
        let s = minimize(&p, &options)?;
        let unbounded = p.clone().with_capacity(None);
        if !check(&unbounded, &s.placement).is_empty() {
            return Err(format!("seed {seed}: invalid placement").into());
        }
        let ratio = s.peak as f64 / s.lower_bound as f64;
        let time = s.elapsed.as_secs_f64();
        println!(
            "| {seed} | {n} | {ratio:.4} | {} | {time:.2} s |",
            if s.proven_optimal { "yes" } else { "no" }
        );
        count += 1;
        proved += usize::from(s.proven_optimal);
        total += time;
        worst_ratio = worst_ratio.max(ratio);
    }
    println!(
        "\n{proved} of {count} at the bound; worst peak ÷ LB {worst_ratio:.4}; {total:.1} s in all"
    );
    Ok(())
}
