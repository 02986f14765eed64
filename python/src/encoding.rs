//! Layouts by Gluon's fields or by MLIR text, to linear layouts and to MLIR text.
//!
//! The Python side (`linalias.layouts`) turns a layout object — ours or Gluon's own, read by
//! class name and fields — into the JSON of a [`GluonLayout`]; everything after that is the
//! Rust library's.

use pyo3::prelude::*;

use linear_layout::families::{Encoding, GluonLayout};

use crate::errors::{lift, parse_error, Nat, PyResultOf};
use crate::layout::LinearLayout;

fn gluon(spec: &str) -> PyResultOf<GluonLayout> {
    serde_json::from_str(spec).map_err(|e| parse_error(format!("layout fields: {e}")))
}

fn encoding(py: Python<'_>, spec: &str) -> PyResultOf<Encoding> {
    lift(py, gluon(spec)?.to_encoding())
}

/// The MLIR attribute of a layout given by its Gluon fields (JSON).
#[pyfunction]
pub fn spec_mlir(py: Python<'_>, spec: &str) -> PyResultOf<String> {
    Ok(encoding(py, spec)?.to_mlir())
}

/// The linear layout of a layout given by its Gluon fields (JSON) over `shape`.
#[pyfunction]
pub fn spec_linear_layout(py: Python<'_>, spec: &str, shape: Vec<Nat>) -> PyResultOf<LinearLayout> {
    let shape: Vec<u64> = shape.iter().map(|s| s.0).collect();
    let enc = encoding(py, spec)?;
    Ok(LinearLayout::from(lift(py, enc.to_linear_layout(&shape))?))
}

/// The MLIR attribute text read and printed back (Triton's spelling of it).
#[pyfunction]
pub fn mlir_normalize(py: Python<'_>, text: &str) -> PyResultOf<String> {
    Ok(lift(py, Encoding::from_mlir(text))?.to_mlir())
}

/// The linear layout of an MLIR attribute over `shape`.
#[pyfunction]
pub fn mlir_linear_layout(py: Python<'_>, text: &str, shape: Vec<Nat>) -> PyResultOf<LinearLayout> {
    let shape: Vec<u64> = shape.iter().map(|s| s.0).collect();
    let enc = lift(py, Encoding::from_mlir(text))?;
    Ok(LinearLayout::from(lift(py, enc.to_linear_layout(&shape))?))
}

/// The bit width of an element type by name (`f16`, `bf16`, Triton's `fp8e4nv`, `int8`, …: every
/// name `linear_layout::DType` reads).
#[pyfunction]
pub fn dtype_bits(py: Python<'_>, name: &str) -> PyResultOf<u32> {
    Ok(lift(py, name.parse::<linear_layout::DType>())?.bits())
}
