//! Errors as exceptions: `linalias.LinaliasError(ValueError)` and one subclass per family, each
//! carrying the Rust variant's name (`variant`) and its message; never a `PanicException`.

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;

use linear_layout::LayoutError as RustLayoutError;

create_exception!(
    _linalias,
    LinaliasError,
    PyValueError,
    "Every error linalias raises (a `ValueError`)."
);
create_exception!(
    _linalias,
    LayoutError,
    LinaliasError,
    "A layout that cannot be built or an operation it does not allow."
);
create_exception!(
    _linalias,
    AllocError,
    LinaliasError,
    "A storage-alias program that cannot be planned (TLX's rules, the target's capacity)."
);
create_exception!(
    _linalias,
    PackError,
    LinaliasError,
    "Buffers that cannot be packed (within the capacity, or as given)."
);
create_exception!(
    _linalias,
    PtxError,
    LinaliasError,
    "A kernel the PTX emitter refuses (layouts it cannot address, registers it cannot hold)."
);
create_exception!(
    _linalias,
    ParseError,
    LinaliasError,
    "Text or arguments that are not what they should be (MLIR, JSON, a layout's fields)."
);

/// The exception for a layout error: `ParseError` for unreadable text, `LayoutError` for the
/// rest, with `variant` set to the Rust variant's name.
pub fn layout_error(py: Python<'_>, e: &RustLayoutError) -> PyErr {
    let err = match e {
        RustLayoutError::Parse(_) => ParseError::new_err(e.to_string()),
        _ => LayoutError::new_err(e.to_string()),
    };
    // Setting an attribute on a fresh exception object cannot fail but for lack of memory;
    // the exception is raised either way.
    let _ = err.value(py).setattr("variant", variant_name(e));
    err
}

/// The exception for a planning error: `ParseError` for an unreadable plan file or module,
/// `AllocError` for the rest, worded by the caller (`message`), with `variant` set.
pub fn alloc_error(e: &alias_alloc::AllocError, message: String) -> PyErr {
    let mut inner = e;
    while let alias_alloc::AllocError::Located { error, .. } = inner {
        inner = error;
    }
    let unreadable = matches!(inner, alias_alloc::AllocError::Input(_));
    let err = if unreadable {
        ParseError::new_err(message)
    } else {
        AllocError::new_err(message)
    };
    Python::with_gil(|py| {
        let _ = err.value(py).setattr("variant", variant_name(inner));
    });
    err
}

fn variant_name(e: &impl std::fmt::Debug) -> String {
    format!("{e:?}")
        .split(|c: char| !c.is_alphanumeric())
        .next()
        .unwrap_or_default()
        .to_owned()
}

/// The exception for a packing error: `ParseError` for an unreadable CSV, `PackError` for the
/// rest.
pub fn pack_error(e: &packing::PackError) -> PyErr {
    let err = match e {
        packing::PackError::Csv { .. } => ParseError::new_err(e.to_string()),
        _ => PackError::new_err(e.to_string()),
    };
    Python::with_gil(|py| {
        let _ = err.value(py).setattr("variant", variant_name(e));
    });
    err
}

/// A `ParseError` for arguments that are not what a call takes.
pub fn parse_error(message: impl Into<String>) -> PyErr {
    ParseError::new_err(message.into())
}

/// `Result` of a binding call.
pub type PyResultOf<T> = Result<T, PyErr>;

/// Converts a layout result into a Python one.
pub fn lift<T>(py: Python<'_>, r: linear_layout::Result<T>) -> PyResultOf<T> {
    r.map_err(|e| layout_error(py, &e))
}

/// An unsigned integer argument: a negative or too large Python `int` is a `ParseError` naming
/// the value (where PyO3 would raise `OverflowError`), another type a `TypeError`.
#[derive(Clone, Copy)]
pub struct Nat(pub u64);

impl<'py> FromPyObject<'py> for Nat {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let v: i128 = ob.extract()?;
        u64::try_from(v)
            .map(Nat)
            .map_err(|_| parse_error(format!("{v} is not an unsigned 64-bit number")))
    }
}
