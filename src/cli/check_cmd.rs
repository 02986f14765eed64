//! `linalias check KERNEL.mlir [--mode tlx|intended] [--param NAME=V] [--sample N] [--svg FILE]
//! [--json]`: the hazard
//! check of `alias_alloc::hazard` on a kernel's TTGIR, one line per pair of allocations whose
//! accesses overlap, a witness for each hazard, the protocol findings and a summary.

use alias_alloc::hazard::{read_kernel, CheckReport, HazardError, ReadOptions};
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
    let k = match read_kernel(&text, &opts) {
        Ok(k) => k,
        Err(e @ (HazardError::Module { .. } | HazardError::NoSuchParam { .. })) => {
            let arg = if matches!(e, HazardError::NoSuchParam { .. }) {
                "--param"
            } else {
                "KERNEL.mlir"
            };
            return Err(CliError::input(arg, format!("{file}: {e}")));
        }
        Err(
            e @ (HazardError::IndexOutOfRange { .. }
            | HazardError::Uninitialized { .. }
            | HazardError::Reinitialized { .. }),
        ) => {
            return Err(CliError::Findings {
                report: String::new(),
                summary: format!("{file}: {e}"),
                code: 1,
            })
        }
        Err(e) => {
            return Err(CliError::Findings {
                report: String::new(),
                summary: format!("{file}: the check cannot decide: {e}"),
                code: 3,
            })
        }
    };
    let report = CheckReport::new(&file, k, args.sample);
    let text = if args.json {
        format!("{:#}\n", report.json())
    } else {
        report.text()
    };
    if let Some(path) = &args.svg {
        crate::cli::picture::write(path, &report.svg())?;
    }
    match report.exit_code() {
        0 => Ok(text),
        code => Err(CliError::Findings {
            report: text,
            summary: format!("{file}: {}", report.summary()),
            code,
        }),
    }
}
