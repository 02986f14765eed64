//! Prints a seeded training-step trace as MiniMalloc CSV:
//! `cargo run --release -p linalias-packing --features generator --example training_trace -- SEED BUFFERS > trace.csv`.

use packing::csv::write_csv;
use packing::generator::training_trace;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let seed: u64 = args.get(1).map_or(Ok(1), |s| s.parse())?;
    let n: usize = args.get(2).map_or(Ok(20_000), |s| s.parse())?;
    print!("{}", write_csv(&training_trace(seed, n)?, None)?);
    Ok(())
}
