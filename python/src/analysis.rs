//! What a layout costs and what the hardware makes of it: Gluon's `bank_conflicts` (with the
//! picture of the worst request) and the register layout of a tensor-memory access
//! (`gluon_ir.compute_tmem_reg_layout`).

use pyo3::prelude::*;

use linear_layout::analysis::bank_conflicts as conflicts_of;
use linear_layout::families::{tmem_reg_layout as reg_layout_of, GluonLayout, Tcgen05Atom};
use linear_layout::views::svg::bank_conflict_svg;
use linear_layout::DType;

use crate::errors::{lift, parse_error, Nat, PyResultOf};
use crate::layout::LinearLayout;

/// The bank conflicts of storing a register layout to (or loading it from) a shared layout:
/// Triton's count per wavefront, at the vector width Triton's lowering picks.
#[pyclass(frozen, module = "linalias._linalias", name = "BankConflicts")]
pub struct BankConflicts {
    /// Excess wavefronts per wavefront (Gluon's `bank_conflicts`; 0 = conflict-free).
    #[pyo3(get)]
    conflicts: u64,
    /// Wavefronts one phase of lanes needs.
    #[pyo3(get)]
    wavefronts: u64,
    /// Phases of one warp-wide request.
    #[pyo3(get)]
    phases: u64,
    /// Elements each lane moves per instruction.
    #[pyo3(get)]
    vector_elems: u64,
    reg: linear_layout::LinearLayout,
    shared: linear_layout::LinearLayout,
    element_bits: u32,
    num_banks: u32,
}

#[pymethods]
impl BankConflicts {
    fn __int__(&self) -> u64 {
        self.conflicts
    }

    fn __repr__(&self) -> String {
        format!(
            "BankConflicts(conflicts={}, wavefronts={}, phases={}, vector_elems={})",
            self.conflicts, self.wavefronts, self.phases, self.vector_elems
        )
    }

    /// The banks each lane of the first request touches, phase by phase (`None` where the
    /// picture would be too large).
    fn _repr_svg_(&self) -> Option<String> {
        bank_conflict_svg(&self.reg, &self.shared, self.element_bits, self.num_banks).ok()
    }
}

/// `bank_conflicts(reg, shared, bitwidth, num_banks=32)` of two linear layouts of one tensor.
#[pyfunction]
#[pyo3(signature = (reg, shared, bitwidth, num_banks=32))]
pub fn bank_conflicts(
    py: Python<'_>,
    reg: &LinearLayout,
    shared: &LinearLayout,
    bitwidth: u32,
    num_banks: u32,
) -> PyResultOf<BankConflicts> {
    let c = lift(
        py,
        conflicts_of(reg.inner(), shared.inner(), bitwidth, num_banks),
    )?;
    Ok(BankConflicts {
        conflicts: c.conflicts,
        wavefronts: c.wavefronts,
        phases: c.phases,
        vector_elems: c.vector_elems,
        reg: reg.inner().clone(),
        shared: shared.inner().clone(),
        element_bits: bitwidth,
        num_banks,
    })
}

/// The register layout of a `tcgen05.ld`/`st` of a tensor-memory layout (given by its Gluon
/// fields, JSON) with `num_warps` warps and the message shape `atom` (`32x32b`, `16x64b`,
/// `16x128b`, `16x256b`).
#[pyfunction]
#[pyo3(signature = (element_bits, shape, alloc_shape, layout, num_warps, atom))]
pub fn tmem_reg_layout(
    py: Python<'_>,
    element_bits: u32,
    shape: Vec<Nat>,
    alloc_shape: Vec<Nat>,
    layout: &str,
    num_warps: u32,
    atom: &str,
) -> PyResultOf<LinearLayout> {
    let spec: GluonLayout =
        serde_json::from_str(layout).map_err(|e| parse_error(format!("layout fields: {e}")))?;
    let encoding = lift(py, spec.to_encoding())?;
    let dtype = lift(py, DType::of_bits(element_bits))?;
    let atom = lift(py, atom.parse::<Tcgen05Atom>())?;
    let shape: Vec<u64> = shape.iter().map(|s| s.0).collect();
    let alloc_shape: Vec<u64> = alloc_shape.iter().map(|s| s.0).collect();
    Ok(LinearLayout::from(lift(
        py,
        reg_layout_of(dtype, &shape, &alloc_shape, &encoding, num_warps, atom),
    )?))
}
