//! Prints one generated instance as MiniMalloc CSV, by kind name (`perfect`, `pinwheel`,
//! `smem_mixed`, …), seed and size:
//! `cargo run --release -p linalias-packing --features generator --example generated_instance -- perfect 1 20000 > p.csv`.

use packing::csv::write_csv;
use packing::generator::{generate, Kind};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).ok_or("usage: generated_instance KIND SEED N")?;
    let kind = Kind::ALL
        .into_iter()
        .find(|k| k.name() == name)
        .ok_or_else(|| format!("unknown kind '{name}'"))?;
    let seed: u64 = args.get(2).map_or(Ok(1), |s| s.parse())?;
    let n: usize = args.get(3).map_or(Ok(100), |s| s.parse())?;
    print!("{}", write_csv(&generate(kind, seed, n)?, None)?);
    Ok(())
}
