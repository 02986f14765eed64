//! Times each greedy rule and the lower bound on one MiniMalloc CSV trace, with the peak
//! each rule reaches (the "greedy time" figures of `docs/benchmarks.md`):
//! `cargo run --release -p linalias-packing --example greedy_times -- TRACE.csv`.

use std::time::Instant;

use packing::bound::lower_bound;
use packing::csv::read_csv;
use packing::greedy::{
    best_fit_by_lifetime, best_fit_by_lifetime_backward, best_fit_by_size, first_fit_by_lifetime,
    GreedyRule,
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args()
        .nth(1)
        .ok_or("usage: greedy_times TRACE.csv")?;
    let problem = read_csv(&std::fs::read_to_string(&path)?, None)?;
    let start = Instant::now();
    let bound = lower_bound(&problem);
    println!("lower bound: {bound} in {:.1?}", start.elapsed());
    let rules: [(&str, GreedyRule); 4] = [
        ("first fit by lifetime", first_fit_by_lifetime),
        ("best fit by lifetime", best_fit_by_lifetime),
        (
            "best fit by lifetime, backward",
            best_fit_by_lifetime_backward,
        ),
        ("best fit by size", best_fit_by_size),
    ];
    for (name, rule) in rules {
        let start = Instant::now();
        let placement = rule(&problem)?;
        let elapsed = start.elapsed();
        let peak = placement.peak(&problem)?;
        let ratio = peak as f64 / bound.max(1) as f64;
        println!("{name}: {elapsed:.1?}, peak {peak} ({ratio:.7} x LB)");
    }
    Ok(())
}
