//! Packing buffers by lifetime from Python: a MiniMalloc CSV in, the placement out — offsets,
//! peak, lower bound, whether the peak is proved optimal, the independent checker's verdict —
//! with its chart for a notebook.

use std::time::Duration;

use pyo3::prelude::*;

use packing::chart::placement_svg;
use packing::check::check;
use packing::csv::{read_csv, write_csv};
use packing::exact::{minimize, SolveOptions};
use packing::{PackError, Placement as RustPlacement, Problem};

use crate::errors::{pack_error, PackError as PackErr, PyResultOf};

/// A placement of a packing problem.
#[pyclass(frozen, module = "linalias._linalias", name = "Placement")]
pub struct Placement {
    /// The buffers' ids, in the file's order.
    #[pyo3(get)]
    ids: Vec<String>,
    /// Where each buffer starts, in the file's order.
    #[pyo3(get)]
    offsets: Vec<u64>,
    /// The height the placement needs.
    #[pyo3(get)]
    peak: u64,
    /// A lower bound on any placement's peak.
    #[pyo3(get)]
    lower_bound: u64,
    /// Whether no placement has a lower peak.
    #[pyo3(get)]
    proven_optimal: bool,
    /// The independent checker's findings (empty: a valid placement).
    #[pyo3(get)]
    violations: Vec<String>,
    problem: Problem,
    placement: RustPlacement,
}

#[pymethods]
impl Placement {
    /// Where the buffer `id` starts.
    fn offset(&self, id: &str) -> PyResultOf<u64> {
        self.ids
            .iter()
            .zip(&self.offsets)
            .find(|(i, _)| *i == id)
            .map(|(_, &o)| o)
            .ok_or_else(|| PackErr::new_err(format!("no buffer '{id}' in this placement")))
    }

    /// The problem as MiniMalloc CSV with the `offset` column filled in.
    fn to_csv(&self) -> PyResultOf<String> {
        write_csv(&self.problem, Some(&self.placement)).map_err(|e| pack_error(&e))
    }

    fn __repr__(&self) -> String {
        format!(
            "Placement({} buffers, peak={}, lower_bound={}, proven_optimal={})",
            self.ids.len(),
            self.peak,
            self.lower_bound,
            if self.proven_optimal { "True" } else { "False" }
        )
    }

    /// The chart: time × offset, one box per buffer (`None` where it would be too large).
    fn _repr_svg_(&self) -> Option<String> {
        placement_svg(&self.problem, &self.placement).ok()
    }
}

fn solve(problem: Problem, budget_ms: u64) -> Result<Placement, PackError> {
    let options = SolveOptions {
        budget: Some(Duration::from_millis(budget_ms)),
        ..SolveOptions::default()
    };
    let solution = minimize(&problem, &options)?;
    let violations = check(&problem, &solution.placement)
        .iter()
        .map(ToString::to_string)
        .collect();
    Ok(Placement {
        ids: problem.buffers().iter().map(|b| b.id.clone()).collect(),
        offsets: solution.placement.offsets.clone(),
        peak: solution.peak,
        lower_bound: solution.lower_bound,
        proven_optimal: solution.proven_optimal,
        violations,
        problem,
        placement: solution.placement,
    })
}

/// Packs the buffers of a MiniMalloc CSV (`id, lower, upper, size[, alignment, offset]`)
/// within `capacity` (none: as low as it can) in `budget_ms`.
#[pyfunction]
#[pyo3(signature = (csv, capacity=None, budget_ms=1000))]
pub fn pack_csv(
    py: Python<'_>,
    csv: &str,
    capacity: Option<u64>,
    budget_ms: u64,
) -> PyResultOf<Placement> {
    let problem = read_csv(csv, capacity).map_err(|e| pack_error(&e))?;
    let placement = py
        .allow_threads(|| solve(problem, budget_ms))
        .map_err(|e| pack_error(&e))?;
    match capacity {
        Some(c) if placement.peak > c => {
            let why = if placement.lower_bound > c {
                format!(
                    "no placement fits: the buffers live together need {} units",
                    placement.lower_bound
                )
            } else {
                format!(
                    "the best placement found in {budget_ms} ms needs {} units (lower bound {})",
                    placement.peak, placement.lower_bound
                )
            };
            Err(PackErr::new_err(format!("capacity {c}: {why}")))
        }
        _ => Ok(placement),
    }
}
