//! Peak ÷ lower bound and solve time of first fit, best fit and the exact solver on the
//! packing suites, as Markdown tables (the ones in `docs/benchmarks.md`).
//!
//! Suites: the eight small public cases (`packing/tests/data/dsa/` and
//! MiniMalloc's README example), MiniMalloc's challenging A–K
//! (`packing/tests/data/minimalloc/`, also decided at 2^20 as MiniMalloc is run), and the
//! seeded GPU-shaped suite of `packing::generator`.
//!
//! Run: `cargo run --release --example packing_report [-- --budget SECONDS --runs N]`
//! (defaults: 1 s per `minimize`, median of 5 runs). Every placement is validated by
//! `packing::check` before it is reported.

use std::path::Path;
use std::time::{Duration, Instant};

use packing::bound::lower_bound;
use packing::check::check;
use packing::csv::read_csv;
use packing::exact::{fits, minimize, Fit, Solution, SolveOptions};
use packing::generator::suite;
use packing::greedy::{best_fit_by_size, first_fit_by_lifetime};
use packing::{Placement, Problem};

type Error = Box<dyn std::error::Error>;

/// MiniMalloc at capacity 2^20 on a 2-core x86-64 machine (reference §2.1), seconds.
const MINIMALLOC_S: [(&str, f64); 11] = [
    ("A", 8.0),
    ("B", 6.2),
    ("C", 1.1),
    ("D", 4.2),
    ("E", 6.8),
    ("F", 9.9),
    ("G", 2.1),
    ("H", 3.1),
    ("I", 6.2),
    ("J", 1.9),
    ("K", 1.2),
];

/// MiniMalloc's README example (`benchmarks/examples/input.12.csv`).
const INPUT_12: &str = "id,lower,upper,size\nb1,0,3,4\nb2,3,9,4\nb3,0,9,4\nb4,9,21,4\nb5,0,21,4\n";

struct Args {
    budget: Duration,
    runs: usize,
}

fn args() -> Result<Args, Error> {
    let mut a = Args {
        budget: Duration::from_secs(1),
        runs: 5,
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let value = it.next().ok_or(format!("{flag} needs a value"))?;
        match flag.as_str() {
            "--budget" => a.budget = Duration::from_secs_f64(value.parse()?),
            "--runs" => a.runs = value.parse::<usize>()?.max(1),
            _ => return Err(format!("unknown argument {flag}").into()),
        }
    }
    Ok(a)
}

fn valid(p: &Problem, placement: &Placement) -> Result<(), Error> {
    let violations = check(&p.clone().with_capacity(None), placement);
    match violations.first() {
        None => Ok(()),
        Some(v) => Err(format!("invalid placement: {v}").into()),
    }
}

/// Median wall time of `runs` calls and the last result.
fn timed<T>(runs: usize, mut f: impl FnMut() -> Result<T, Error>) -> Result<(Duration, T), Error> {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs {
        let t = Instant::now();
        last = Some(f()?);
        times.push(t.elapsed());
    }
    times.sort();
    let median = times.get(times.len() / 2).copied().unwrap_or_default();
    Ok((median, last.ok_or("no run")?))
}

struct Row {
    lb: u64,
    ff: u64,
    bf: u64,
    exact: Solution,
    time: Duration,
}

fn measure(p: &Problem, a: &Args) -> Result<Row, Error> {
    let lb = lower_bound(p);
    let first = first_fit_by_lifetime(p)?;
    let best = best_fit_by_size(p)?;
    valid(p, &first)?;
    valid(p, &best)?;
    let options = SolveOptions {
        budget: Some(a.budget),
        ..SolveOptions::default()
    };
    let (time, exact) = timed(a.runs, || Ok(minimize(p, &options)?))?;
    valid(p, &exact.placement)?;
    Ok(Row {
        lb,
        ff: first.peak(p)?,
        bf: best.peak(p)?,
        exact,
        time,
    })
}

fn ratio(x: u64, lb: u64) -> String {
    format!("{:.4}", x as f64 / lb.max(1) as f64)
}

fn seconds(d: Duration) -> String {
    let s = d.as_secs_f64();
    if s < 0.001 {
        format!("{:.0} µs", s * 1e6)
    } else if s < 1.0 {
        format!("{:.1} ms", s * 1e3)
    } else {
        format!("{s:.2} s")
    }
}

fn load(path: &Path, capacity: u64) -> Result<Problem, Error> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(read_csv(&text, Some(capacity))?)
}

fn main() -> Result<(), Error> {
    let a = args()?;
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("packing/tests/data");
    println!(
        "minimize budget {:.1} s, times: median of {} runs\n",
        a.budget.as_secs_f64(),
        a.runs
    );

    println!("### Small public cases (optimum = LB = capacity)\n");
    println!("| case | n | LB | first fit | best fit | exact | proved | exact time |");
    println!("|---|---|---|---|---|---|---|---|");
    let mut small = vec![("input.12".to_string(), read_csv(INPUT_12, Some(12))?)];
    for f in ["a.6", "b.6", "c.8", "d.9", "e.12", "f.14", "g.7"] {
        let cap = f.rsplit('.').next().unwrap_or("0").parse()?;
        small.push((
            f.to_string(),
            load(&data.join(format!("dsa/{f}.csv")), cap)?,
        ));
    }
    for (name, p) in &small {
        let r = measure(p, &a)?;
        println!(
            "| {name} | {} | {} | {} | {} | {} | {} | {} |",
            p.len(),
            r.lb,
            ratio(r.ff, r.lb),
            ratio(r.bf, r.lb),
            ratio(r.exact.peak, r.lb),
            r.exact.proven_optimal,
            seconds(r.time)
        );
    }

    println!("\n### MiniMalloc challenging A–K (ratios are peak ÷ LB)\n");
    println!(
        "| inst | n | LB / 2^20 | first fit | best fit | exact | proved | minimize | fits(2^20) | MiniMalloc fits(2^20) |"
    );
    println!("|---|---|---|---|---|---|---|---|---|---|");
    let (mut ours, mut theirs) = (Duration::ZERO, 0.0);
    for (name, mm) in MINIMALLOC_S {
        let p = load(
            &data.join(format!("minimalloc/{name}.1048576.csv")),
            1 << 20,
        )?;
        let r = measure(&p, &a)?;
        let unlimited = SolveOptions {
            budget: None,
            ..SolveOptions::default()
        };
        let (t, fit) = timed(a.runs, || Ok(fits(&p, 1 << 20, &unlimited)?))?;
        match fit {
            Fit::Yes(pl) => valid(&p, &pl)?,
            other => return Err(format!("{name}: fits(2^20) = {other:?}").into()),
        }
        ours += t;
        theirs += mm;
        println!(
            "| {name} | {} | {:.4} | {} | {} | {} ({}) | {} | {} | {} | {mm:.1} s |",
            p.len(),
            r.lb as f64 / (1u64 << 20) as f64,
            ratio(r.ff, r.lb),
            ratio(r.bf, r.lb),
            ratio(r.exact.peak, r.lb),
            r.exact.peak,
            r.exact.proven_optimal,
            seconds(r.time),
            seconds(t)
        );
    }
    println!(
        "| total | | | | | | | | {} | {theirs:.1} s |",
        seconds(ours)
    );

    println!("\n### Generated suite (`packing::generator::suite()`)\n");
    println!("| instance | n | LB | first fit | best fit | exact | proved | exact time |");
    println!("|---|---|---|---|---|---|---|---|");
    for instance in suite() {
        let p = instance.problem()?;
        let r = measure(&p, &a)?;
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {} |",
            instance.file_name(),
            p.len(),
            r.lb,
            ratio(r.ff, r.lb),
            ratio(r.bf, r.lb),
            ratio(r.exact.peak, r.lb),
            r.exact.proven_optimal,
            seconds(r.time)
        );
    }
    Ok(())
}
