//! `linalias ptx-cost KERNEL.ptx [--json]`: runs a PTX kernel of the subset the interpreter
//! reads for one CTA and prints the six shared-memory counters Nsight Compute would report on
//! an H100 ([`codegen::cost`]), in total and per shared-memory instruction.

use std::fmt::Write as _;

use codegen::cost::{run_cost, KernelCost, SharedCounters};
use codegen::interp::{Config, ParamValue, SharedLayout};
use codegen::ptx::{parse, Kernel, ParamType, Target};
use serde_json::{json, Map, Value};

use crate::cli::args::PtxCostArgs;
use crate::cli::error::CliError;
use crate::cli::output::count;

/// Shared memory a CTA may use on an H100 (227 KiB): the dynamic default, less the kernel's
/// static variables.
const H100_SHARED: u32 = 227 * 1024;

/// The largest zeroed global buffer `--buffer-bytes` may ask for.
const MAX_BUFFER_BYTES: usize = 1 << 30;

/// Runs `linalias ptx-cost` and returns its stdout.
pub fn run(args: PtxCostArgs) -> Result<String, CliError> {
    let (file, text) = crate::cli::input::read_file_arg("KERNEL", &args.kernel)?;
    let kernel = parse(&text).map_err(|e| CliError::input("KERNEL", format!("{file}: {e}")))?;
    if kernel.target != Target::Sm90a {
        return Err(CliError::Refused(format!(
            "{file}: targets {}; the cost model's rules are the H100's (sm_90), measured on no \
             other device",
            kernel.target.arch()
        )));
    }
    let threads = match (args.threads, kernel.reqntid) {
        (Some(t), Some(r)) if t != r => {
            return Err(CliError::input(
                "--threads",
                format!("{t}, but the kernel's .reqntid is {r}"),
            ))
        }
        (Some(t), _) | (None, Some(t)) => t,
        (None, None) => {
            return Err(CliError::input(
                "--threads",
                format!("{file} has no .reqntid: give the CTA size"),
            ))
        }
    };
    let dynamic = match args.dynamic_shared {
        Some(bytes) => bytes,
        // What an H100 CTA may still have past the kernel's static variables.
        None => {
            let fixed = SharedLayout::new(&kernel, &Config::new(threads))
                .map_err(|e| CliError::Refused(format!("{file}: {e}")))?;
            H100_SHARED.saturating_sub(fixed.dynamic_start - fixed.start)
        }
    };
    if args.buffer_bytes > MAX_BUFFER_BYTES {
        return Err(CliError::input(
            "--buffer-bytes",
            format!(
                "{} bytes: at most {MAX_BUFFER_BYTES} (1 GiB)",
                args.buffer_bytes
            ),
        ));
    }
    let params = params(&kernel, &args)?;
    let config = Config::new(threads).dynamic_shared(dynamic);
    let cost = run_cost(&kernel, &config, &params)
        .map_err(|e| CliError::Refused(format!("{file}: {e}")))?;
    Ok(if args.json {
        let mut text = serde_json::to_string_pretty(&to_json(&kernel, threads, dynamic, &cost))
            .map_err(|e| CliError::Refused(e.to_string()))?;
        text.push('\n');
        text
    } else {
        render(&kernel, threads, dynamic, &cost)
    })
}

/// Every `.u64` parameter a zeroed buffer of `--buffer-bytes`; every `.u32` the value
/// `--param NAME=V` gives, else 0.
fn params(kernel: &Kernel, args: &PtxCostArgs) -> Result<Vec<ParamValue>, CliError> {
    for (i, (name, _)) in args.param.iter().enumerate() {
        if !kernel.params.iter().any(|p| &p.name == name) {
            return Err(CliError::input(
                "--param",
                format!("{} has no parameter {name}", kernel.name),
            ));
        }
        if args.param.iter().skip(i + 1).any(|(n, _)| n == name) {
            return Err(CliError::input("--param", format!("{name} given twice")));
        }
    }
    kernel
        .params
        .iter()
        .map(|p| {
            let given = args
                .param
                .iter()
                .find(|(n, _)| n == &p.name)
                .map(|&(_, v)| v);
            match (p.ty, given) {
                (ParamType::U64, None) => Ok(ParamValue::Buffer(vec![0; args.buffer_bytes])),
                (ParamType::U64, Some(_)) => Err(CliError::input(
                    "--param",
                    format!("{} is a pointer: it gets a zeroed buffer", p.name),
                )),
                (ParamType::U32, v) => Ok(ParamValue::U32(v.unwrap_or(0))),
            }
        })
        .collect()
}

fn render(kernel: &Kernel, threads: u32, dynamic: u32, cost: &KernelCost) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: one CTA of {threads} threads, {dynamic} bytes of dynamic shared memory, pointer \
         parameters zeroed",
        kernel.name
    );
    for (metric, value) in SharedCounters::METRICS.iter().zip(cost.counters.values()) {
        let _ = writeln!(out, "{metric:<58} {value}");
    }
    if !cost.statements.is_empty() {
        let _ = writeln!(out, "per shared-memory instruction (H100 rules):");
    }
    out.push_str(&statement_lines(cost, "  "));
    out
}

/// One line per shared-memory statement of `cost`, each after `prefix`: its warp issues,
/// wavefronts and bank conflicts (or that ptxas deletes it).
pub fn statement_lines(cost: &KernelCost, prefix: &str) -> String {
    let mut out = String::new();
    for s in &cost.statements {
        let c = &s.counters;
        let note = if s.dead {
            " — its result is never used: ptxas deletes it".to_string()
        } else {
            format!(
                ", {}, {}",
                count(c.wavefronts(), "wavefront", "wavefronts"),
                count(
                    c.load_bank_conflicts + c.store_bank_conflicts,
                    "bank conflict",
                    "bank conflicts"
                )
            )
        };
        let _ = writeln!(
            out,
            "{prefix}stmt {:>4} {}: {}{note}",
            s.stmt,
            s.opcode,
            count(s.issues, "warp issue", "warp issues")
        );
    }
    out
}

fn to_json(kernel: &Kernel, threads: u32, dynamic: u32, cost: &KernelCost) -> Value {
    let counters: Map<String, Value> = SharedCounters::METRICS
        .iter()
        .zip(cost.counters.values())
        .map(|(m, v)| (m.to_string(), json!(v)))
        .collect();
    json!({
        "kernel": kernel.name,
        "threads": threads,
        "dynamic_shared_bytes": dynamic,
        "counters": counters,
        "statements": cost.statements.iter().map(|s| json!({
            "stmt": s.stmt,
            "opcode": s.opcode,
            "issues": s.issues,
            "dead": s.dead,
            "wavefronts": s.counters.wavefronts(),
            "bank_conflicts": s.counters.load_bank_conflicts + s.counters.store_bank_conflicts,
        })).collect::<Vec<_>>(),
    })
}
