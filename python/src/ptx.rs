//! PTX from Python: the kernel that stores a register layout to a shared layout, loads it, or
//! converts through shared memory — the address arithmetic of the codegen emitter, the same
//! text `linalias ptx` prints (buffer 0, explicit lowering).

use pyo3::prelude::*;

use codegen::access::{BufferLowering, IndexSource, MemoryOp};
use codegen::smem::kernels::{access_kernel, round_trip};
use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::{AddressMap, DType};

use crate::errors::{lift, parse_error, PyResultOf};
use crate::layout::LinearLayout;

/// The element width: `dtype`'s, else an NVMMA attribute's `elementBitWidth`, else 16.
fn element_bits(
    py: Python<'_>,
    dtype: Option<&str>,
    encoding: Option<&Encoding>,
) -> PyResultOf<u32> {
    let implied = match encoding {
        Some(Encoding::Shared(SharedEncoding::Nvmma(n))) => Some(n.element_bitwidth),
        _ => None,
    };
    let Some(name) = dtype else {
        return Ok(implied.unwrap_or(16));
    };
    let bits = lift(py, name.parse::<DType>())?.bits();
    match implied {
        Some(attr) if attr != bits => Err(parse_error(format!(
            "dtype {name} has {bits}-bit elements; the shared attribute has {attr}-bit ones"
        ))),
        _ => Ok(bits),
    }
}

/// The PTX kernel `name`: `op` is `store` or `load` of `regs` to/from `mem` (whose MLIR
/// attribute `mem_mlir`, when given, brings the hardware's swizzle), or `round_trip` (store
/// `regs`, `bar.sync`, load through `reload`).
#[pyfunction]
#[pyo3(signature = (op, regs, mem, mem_mlir=None, reload=None, dtype=None, name=None))]
#[allow(clippy::too_many_arguments)] // the Python call's keywords
pub fn ptx_kernel(
    py: Python<'_>,
    op: &str,
    regs: &LinearLayout,
    mem: &LinearLayout,
    mem_mlir: Option<&str>,
    reload: Option<&LinearLayout>,
    dtype: Option<&str>,
    name: Option<&str>,
) -> PyResultOf<String> {
    for (what, l) in [("regs", regs), ("reload", reload.unwrap_or(regs))] {
        if !l.inner().has_in_dim("register") || !l.inner().has_in_dim("lane") {
            return Err(parse_error(format!(
                "{what}: not a register layout (in-dims register, lane, warp)"
            )));
        }
    }
    if !mem.inner().has_in_dim("offset") {
        return Err(parse_error(
            "mem: not a shared-memory layout (in-dim offset)".to_owned(),
        ));
    }
    let encoding = match mem_mlir {
        Some(text) => Some(lift(py, Encoding::from_mlir(text))?),
        None => None,
    };
    let bits = element_bits(py, dtype, encoding.as_ref())?;
    let map = lift(
        py,
        AddressMap::of_shared_buffers(mem.inner(), encoding.as_ref(), bits, 1),
    )?;
    let index = IndexSource::Const(vec![0]);
    let lowering = BufferLowering::Explicit;
    let kernel = match (op, reload) {
        ("store", None) => access_kernel(
            name.unwrap_or("store_tile"),
            &map,
            regs.inner(),
            MemoryOp::Store,
            &index,
            lowering,
        ),
        ("load", None) => access_kernel(
            name.unwrap_or("load_tile"),
            &map,
            regs.inner(),
            MemoryOp::Load,
            &index,
            lowering,
        ),
        ("round_trip", Some(load)) => round_trip(
            name.unwrap_or("round_trip"),
            &map,
            regs.inner(),
            load.inner(),
            &index,
            lowering,
        ),
        _ => {
            return Err(parse_error(format!(
                "op must be 'store' or 'load' (without reload) or 'round_trip' (with reload), got '{op}'"
            )))
        }
    }
    .map_err(|e| crate::errors::PtxError::new_err(e.to_string()))?;
    Ok(kernel.kernel.to_string())
}
