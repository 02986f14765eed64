//! `linalias check KERNEL.mlir [--mode tlx|intended] [--param NAME=V] [--seq-stride N]
//! [--program-id N] [--num-programs N] [--clc-tiles N] [--max-events N] [--sample N] [--svg FILE] [--sweep |
//! --every-trip-count | --every-tile-count] [--json]`: the hazard check of `alias_alloc::hazard` on a kernel's TTGIR, one line per pair
//! of allocations whose accesses overlap, a witness for each hazard, the protocol findings and
//! a summary.

use alias_alloc::hazard::{
    read_kernel, CheckReport, HazardError, KernelTrace, PhasedProof, ReadOptions, SweepReport,
    TripCountProof, TripCounts, PROOF_BUDGET,
};
use alias_alloc::Mode;

use crate::cli::args::{CheckArgs, PlanMode};
use crate::cli::error::CliError;

pub fn run(args: CheckArgs) -> Result<String, CliError> {
    let (file, text) = crate::cli::input::read_file_arg("KERNEL.mlir", &args.kernel)?;
    let opts = ReadOptions {
        mode: match args.mode {
            PlanMode::Tlx => Mode::TlxCompatible,
            PlanMode::Intended => Mode::Intended,
        },
        params: args.param.iter().cloned().collect(),
        seq_stride: args.seq_stride,
        program_id: args.program_id,
        num_programs: args.num_programs,
        clc_tiles: args.clc_tiles,
        max_events: usize::try_from(args.max_events).unwrap_or(usize::MAX),
        ..ReadOptions::default()
    };
    if let Some((name, _)) = args
        .param
        .iter()
        .enumerate()
        .find(|(i, (n, _))| args.param.iter().take(*i).any(|(m, _)| m == n))
        .map(|(_, p)| p)
    {
        return Err(CliError::input("--param", format!("{name} is given twice")));
    }
    if args.sweep {
        return sweep(&args, &file, &text, &opts);
    }
    if args.every_trip_count || args.every_tile_count {
        // Loops one after another: phase by phase; else the kernel's one loop (or tiles).
        let phased = if args.every_tile_count {
            None
        } else {
            PhasedProof::new(&text, &opts, PROOF_BUDGET).map_err(|e| refused(&file, &e))?
        };
        let (json, text, verdict) = match phased {
            Some(p) => (p.json(&file), p.text(&file), (p.exit_code(), p.summary())),
            None => {
                let p = if args.every_tile_count {
                    TripCountProof::tiles(&text, &opts, PROOF_BUDGET)
                } else {
                    TripCountProof::new(&text, &opts, PROOF_BUDGET)
                }
                .map_err(|e| refused(&file, &e))?;
                (p.json(&file), p.text(&file), (p.exit_code(), p.summary()))
            }
        };
        let out = if args.json {
            format!("{json:#}\n")
        } else {
            text
        };
        return print(&args, &file, out, String::new, verdict);
    }
    let k = read(&file, &text, &opts)?;
    let report = CheckReport::new(&file, k, args.sample);
    let out = if args.json {
        format!("{:#}\n", report.json())
    } else {
        report.text()
    };
    print(
        &args,
        &file,
        out,
        || report.svg(),
        (report.exit_code(), report.summary()),
    )
}

/// What `check` prints: `out` (the JSON or the text), the swimlanes to `--svg`; a report with
/// findings is printed whole and `summary` is its error line, with `code`.
fn print(
    args: &CheckArgs,
    file: &str,
    out: String,
    svg: impl FnOnce() -> String,
    (code, summary): (u8, String),
) -> Result<String, CliError> {
    if let Some(path) = &args.svg {
        crate::cli::picture::write(path, &svg())?;
    }
    match code {
        0 => Ok(out),
        code => Err(CliError::Findings {
            report: out,
            summary: format!("{file}: {summary}"),
            code,
        }),
    }
}

/// Reads the kernel, its refusals mapped to exit codes ([`HazardError::exit_code`]): 2 for an
/// unreadable file or parameter, 1 for a fault the reader meets, 3 for what the check cannot
/// decide.
fn read(file: &str, text: &str, opts: &ReadOptions) -> Result<KernelTrace, CliError> {
    read_kernel(text, opts).map_err(|e| refused(file, &e))
}

/// A refusal as the CLI's error: exit 2 names the argument, 1 and 3 are findings.
fn refused(file: &str, e: &HazardError) -> CliError {
    match e.exit_code() {
        2 => CliError::input(
            if matches!(
                e,
                HazardError::NoSuchParam { .. } | HazardError::PinnedBound { .. }
            ) {
                "--param"
            } else {
                "KERNEL.mlir"
            },
            format!("{file}: {e}"),
        ),
        1 => CliError::Findings {
            report: String::new(),
            summary: format!("{file}: {e}"),
            code: 1,
        },
        code => CliError::Findings {
            report: String::new(),
            summary: format!("{file}: the check cannot decide: {e}"),
            code,
        },
    }
}

/// `--sweep`: every run of [`TripCounts`], one line each, the first finding in full.
fn sweep(args: &CheckArgs, file: &str, text: &str, opts: &ReadOptions) -> Result<String, CliError> {
    let trips = TripCounts::new(text, opts).map_err(|e| refused(file, &e))?;
    let report =
        SweepReport::new(file, text, opts, trips, args.sample).map_err(|e| refused(file, &e))?;
    let out = if args.json {
        format!("{:#}\n", report.json())
    } else {
        report.text()
    };
    print(
        args,
        file,
        out,
        || report.svg(),
        (report.exit_code(), report.summary()),
    )
}
