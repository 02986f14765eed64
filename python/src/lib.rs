//! `linalias._linalias`: the Rust half of the `linalias` Python package (the pure-Python half
//! is `python/linalias/`). Built by maturin into one abi3 wheel; see `python/README` in the
//! repository's README.

mod analysis;
mod encoding;
mod errors;
mod layout;
mod pack;
mod plan;
mod ptx;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _linalias(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<layout::LinearLayout>()?;
    m.add("LinaliasError", py.get_type::<errors::LinaliasError>())?;
    m.add("LayoutError", py.get_type::<errors::LayoutError>())?;
    m.add("ParseError", py.get_type::<errors::ParseError>())?;
    m.add("AllocError", py.get_type::<errors::AllocError>())?;
    m.add("PackError", py.get_type::<errors::PackError>())?;
    m.add("PtxError", py.get_type::<errors::PtxError>())?;
    m.add_function(wrap_pyfunction!(encoding::spec_mlir, m)?)?;
    m.add_function(wrap_pyfunction!(encoding::spec_linear_layout, m)?)?;
    m.add_function(wrap_pyfunction!(encoding::mlir_normalize, m)?)?;
    m.add_function(wrap_pyfunction!(encoding::mlir_linear_layout, m)?)?;
    m.add_function(wrap_pyfunction!(encoding::dtype_bits, m)?)?;
    m.add_function(wrap_pyfunction!(plan::plan_report, m)?)?;
    m.add_function(wrap_pyfunction!(plan::check_report, m)?)?;
    m.add_function(wrap_pyfunction!(plan::every_trip_count_report, m)?)?;
    m.add_class::<analysis::BankConflicts>()?;
    m.add_class::<pack::Placement>()?;
    m.add_function(wrap_pyfunction!(pack::pack_csv, m)?)?;
    m.add_function(wrap_pyfunction!(ptx::ptx_kernel, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::bank_conflicts, m)?)?;
    m.add_function(wrap_pyfunction!(analysis::tmem_reg_layout, m)?)?;
    Ok(())
}
