//! TLX storage aliasing planned from Python: a plan file's text (what `linalias.tlx.Kernel`
//! writes from the TLX-shaped calls) or a TTGIR module, through the same pipeline as
//! `linalias plan --json` ([`PlanOutcome`]).

use std::time::Duration;

use pyo3::prelude::*;

use alias_alloc::hazard::{
    read_kernel, CheckReport, HazardError, PhasedProof, ReadOptions, SweepReport, TripCountProof,
    TripCounts, PROOF_BUDGET,
};
use alias_alloc::mlir::read_module;
use alias_alloc::plan_file::PlanFile;
use alias_alloc::report::PlanOutcome;
use alias_alloc::{AllocError as RustAllocError, Mode, PlanOptions, Target};

use crate::errors::{alloc_error, parse_error, PyResultOf};

fn mode_of(mode: &str) -> PyResultOf<Mode> {
    match mode {
        "tlx" => Ok(Mode::TlxCompatible),
        "intended" => Ok(Mode::Intended),
        other => Err(parse_error(format!(
            "mode must be 'tlx' or 'intended', got '{other}'"
        ))),
    }
}

/// Plans `text` (a TTGIR module when `module`, else a plan file) in `mode` for `target` (the
/// file's or module's own when `None`, else sm_100) and returns the JSON report of
/// `linalias plan --json` and the memory-map SVG. `frontend`-worded errors for a plan file, which
/// stands for the Python calls.
#[pyfunction]
#[pyo3(signature = (text, module, mode, target=None, budget_ms=1000, file="<python>"))]
pub fn plan_report(
    text: &str,
    module: bool,
    mode: &str,
    target: Option<&str>,
    budget_ms: u64,
    file: &str,
) -> PyResultOf<(String, String)> {
    let mode = mode_of(mode)?;
    let frontend = !module;
    let fail = |e: RustAllocError| alloc_error(&e, e.explain(mode, frontend));
    let (plan_file, read_warnings) = if module {
        read_module(text).and_then(|m| m.into_plan_file())
    } else {
        PlanFile::parse(text).map(|f| (f, Vec::new()))
    }
    .map_err(fail)?;
    let target = match target {
        Some(t) => t.parse::<Target>().map_err(fail)?,
        None => plan_file.target.unwrap_or_default(),
    };
    let program = plan_file.program;
    let options = PlanOptions { mode, target };
    let mut outcome = PlanOutcome::new(&program, options, Duration::from_millis(budget_ms), true)
        .map_err(fail)?;
    outcome.plan.warnings.splice(0..0, read_warnings);
    let violations = outcome.violations(&program);
    let svg = outcome.svg(&program, module).map_err(fail)?;
    let json = outcome.json(file, &program, &violations, None, frontend);
    Ok((json.to_string(), svg))
}

/// The hazard check of a TTGIR module (`linalias check`): the JSON report, the text report,
/// the swimlanes SVG and the exit code (0 verified, 1 a hazard or protocol finding, 3 unknowns
/// only). `params` fixes the kernel's integer parameters; `samples` random executions are run
/// as a cross-check; `sweep` checks every residue of the loops' trip counts modulo the period
/// of the kernel's barrier rings (`linalias check --sweep`: the worst exit code, the swimlanes
/// of the first run with a finding); `seq_stride` sets the offsets an integer array read by a
/// scalar load holds (`cu_seqlens`: element i is i · seq_stride); `program_id` and
/// `num_programs` the tile position (`tt.get_program_id`, `tt.get_num_programs`: the first
/// tile, and where a persistent loop steps and CLC tiles start); `clc_tiles` how many tiles a
/// CLC `try_cancel` hands out (default 2). A module the check cannot
/// read, or a kernel outside its model, is a `ParseError` / `AllocError` naming why.
#[pyfunction]
#[pyo3(signature = (text, mode, params=std::collections::BTreeMap::new(), samples=0, file="<python>", sweep=false, seq_stride=None, program_id=0, num_programs=1, clc_tiles=2))]
#[allow(clippy::too_many_arguments)] // Python keywords, each with its default
pub fn check_report(
    text: &str,
    mode: &str,
    params: std::collections::BTreeMap<String, i64>,
    samples: usize,
    file: &str,
    sweep: bool,
    seq_stride: Option<i64>,
    program_id: i64,
    num_programs: i64,
    clc_tiles: i64,
) -> PyResultOf<(String, String, String, u8)> {
    let opts = hazard_options(
        mode,
        params,
        seq_stride,
        program_id,
        num_programs,
        clc_tiles,
    )?;
    if sweep {
        let trips = TripCounts::new(text, &opts).map_err(hazard_error)?;
        let report = SweepReport::new(file, text, &opts, trips, samples).map_err(hazard_error)?;
        return Ok((
            report.json().to_string(),
            report.text(),
            report.svg(),
            report.exit_code(),
        ));
    }
    let kernel = read_kernel(text, &opts).map_err(hazard_error)?;
    let report = CheckReport::new(file, kernel, samples);
    Ok((
        report.json().to_string(),
        report.text(),
        report.svg(),
        report.exit_code(),
    ))
}

/// The kernel at every trip count of its loops at once (`linalias check --every-trip-count`):
/// the JSON report, the text report and the exit code (0 verified at every trip count, 1 some
/// trip count races, hangs, arrives past a phase or leaves one open, 3 not decided). `params` may fix the
/// kernel's other integer parameters, not a loop bound (a `ParseError`); the other keywords
/// are `check_report`'s. A kernel outside the model is an `AllocError` naming why. `tiles`:
/// every tile count of a persistent kernel instead, at the K-loop bound `params` gives
/// (`linalias check --every-tile-count`).
#[pyfunction]
#[pyo3(signature = (text, mode, params=std::collections::BTreeMap::new(), file="<python>", seq_stride=None, program_id=0, num_programs=1, clc_tiles=2, tiles=false, max_events=20_000))]
#[allow(clippy::too_many_arguments)] // Python keywords, each with its default
pub fn every_trip_count_report(
    text: &str,
    mode: &str,
    params: std::collections::BTreeMap<String, i64>,
    file: &str,
    seq_stride: Option<i64>,
    program_id: i64,
    num_programs: i64,
    clc_tiles: i64,
    tiles: bool,
    max_events: usize,
) -> PyResultOf<(String, String, u8)> {
    if max_events < 1 {
        return Err(parse_error(
            "max_events must be at least 1, not 0".to_string(),
        ));
    }
    let mut opts = hazard_options(
        mode,
        params,
        seq_stride,
        program_id,
        num_programs,
        clc_tiles,
    )?;
    opts.max_events = max_events;
    if !tiles {
        if let Some(proof) = PhasedProof::new(text, &opts, PROOF_BUDGET).map_err(hazard_error)? {
            return Ok((
                proof.json(file).to_string(),
                proof.text(file),
                proof.exit_code(),
            ));
        }
    }
    let proof = if tiles {
        TripCountProof::tiles(text, &opts, PROOF_BUDGET)
    } else {
        TripCountProof::new(text, &opts, PROOF_BUDGET)
    }
    .map_err(hazard_error)?;
    Ok((
        proof.json(file).to_string(),
        proof.text(file),
        proof.exit_code(),
    ))
}

/// The reader's options from the Python keywords; a stride, tile or mode out of range is a
/// `ParseError`.
fn hazard_options(
    mode: &str,
    params: std::collections::BTreeMap<String, i64>,
    seq_stride: Option<i64>,
    program_id: i64,
    num_programs: i64,
    clc_tiles: i64,
) -> PyResultOf<ReadOptions> {
    if let Some(s) = seq_stride.filter(|&s| s < 1) {
        return Err(parse_error(format!("seq_stride must be positive, not {s}")));
    }
    if program_id < 0 || num_programs < 1 || clc_tiles < 0 {
        return Err(parse_error(format!(
            "program_id and clc_tiles must be at least 0 and num_programs at least 1, not {program_id}, {clc_tiles} and {num_programs}"
        )));
    }
    Ok(ReadOptions {
        mode: mode_of(mode)?,
        params,
        seq_stride,
        program_id,
        num_programs,
        clc_tiles,
        ..ReadOptions::default()
    })
}

/// What the reader refuses: an unreadable module or parameter is a `ParseError`, the rest an
/// `AllocError` saying the check cannot decide.
fn hazard_error(e: HazardError) -> pyo3::PyErr {
    match e {
        HazardError::Module { .. }
        | HazardError::NoSuchParam { .. }
        | HazardError::PinnedBound { .. } => parse_error(e.to_string()),
        _ => crate::errors::AllocError::new_err(format!("the check cannot decide: {e}")),
    }
}
