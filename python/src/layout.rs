//! `linalias.LinearLayout`: Triton's `triton.tools.LinearLayout` method for method (the same
//! names, arguments and printed text), immutable, hashable and comparable by value, picklable,
//! and raising `LayoutError` where Triton aborts the interpreter.

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use linear_layout::{Dim, LinearLayout as Layout};

use crate::errors::{lift, parse_error, Nat, PyResultOf};

/// A linear layout over GF(2): named in-dims to named out-dims.
#[pyclass(frozen, module = "linalias._linalias", name = "LinearLayout")]
#[derive(Clone)]
pub struct LinearLayout {
    inner: Layout,
}

impl LinearLayout {
    /// The Rust layout.
    pub fn inner(&self) -> &Layout {
        &self.inner
    }
}

impl From<Layout> for LinearLayout {
    fn from(inner: Layout) -> Self {
        LinearLayout { inner }
    }
}

type Bases = Vec<(String, Vec<Vec<u64>>)>;

/// Bases as Python passes them (any `int`, checked).
type BasesArg = Vec<(String, Vec<Vec<Nat>>)>;

fn named(bases: &BasesArg) -> Vec<(&str, Vec<Vec<u64>>)> {
    bases
        .iter()
        .map(|(n, b)| {
            let b = b.iter().map(|v| v.iter().map(|x| x.0).collect()).collect();
            (n.as_str(), b)
        })
        .collect()
}

#[pymethods]
impl LinearLayout {
    /// `from_bases(bases, out_dim_names, out_dim_sizes=None, require_surjective=True)`.
    #[staticmethod]
    #[pyo3(signature = (bases, out_dim_names, out_dim_sizes=None, require_surjective=true))]
    fn from_bases(
        py: Python<'_>,
        bases: BasesArg,
        out_dim_names: Vec<String>,
        out_dim_sizes: Option<Vec<Nat>>,
        require_surjective: bool,
    ) -> PyResultOf<Self> {
        // Triton infers each size as the smallest power of two above every component in it.
        let bases = named(&bases);
        let sizes = out_dim_sizes.map(|s| s.iter().map(|x| x.0).collect::<Vec<u64>>());
        let sizes = match sizes {
            Some(sizes) => sizes,
            None => (0..out_dim_names.len())
                .map(|d| {
                    let max = bases
                        .iter()
                        .flat_map(|(_, b)| b.iter())
                        .filter_map(|v| v.get(d))
                        .max()
                        .copied()
                        .unwrap_or(0);
                    max.checked_add(1)
                        .and_then(u64::checked_next_power_of_two)
                        .ok_or_else(|| {
                            parse_error(format!(
                                "from_bases: component {max} of out-dim {d} has no power of two above it"
                            ))
                        })
                })
                .collect::<PyResultOf<Vec<u64>>>()?,
        };
        if sizes.len() != out_dim_names.len() {
            return Err(parse_error(format!(
                "from_bases: {} out-dim names but {} sizes",
                out_dim_names.len(),
                sizes.len()
            )));
        }
        let outs: Vec<(&str, u64)> = out_dim_names
            .iter()
            .map(String::as_str)
            .zip(sizes)
            .collect();
        Ok(lift(py, Layout::from_bases(&bases, &outs, require_surjective))?.into())
    }

    /// `identity_1d(size, inDim, outDim)`.
    #[staticmethod]
    #[pyo3(signature = (size, inDim, outDim))]
    #[allow(non_snake_case)] // Triton's argument names
    fn identity_1d(py: Python<'_>, size: Nat, inDim: &str, outDim: &str) -> PyResultOf<Self> {
        Ok(lift(py, Layout::identity_1d(size.0, inDim, outDim))?.into())
    }

    /// `strided_1d(size, stride, inDim, outDim)`.
    #[staticmethod]
    #[pyo3(signature = (size, stride, inDim, outDim))]
    #[allow(non_snake_case)]
    fn strided_1d(
        py: Python<'_>,
        size: Nat,
        stride: Nat,
        inDim: &str,
        outDim: &str,
    ) -> PyResultOf<Self> {
        Ok(lift(py, Layout::strided_1d(size.0, stride.0, inDim, outDim))?.into())
    }

    /// `zeros_1d(size, inDim, outDim, outDimSize=1)`.
    #[staticmethod]
    #[pyo3(
        signature = (size, inDim, outDim, outDimSize=Nat(1)),
        text_signature = "(size, inDim, outDim, outDimSize=1)"
    )]
    #[allow(non_snake_case)]
    fn zeros_1d(
        py: Python<'_>,
        size: Nat,
        inDim: &str,
        outDim: &str,
        outDimSize: Nat,
    ) -> PyResultOf<Self> {
        Ok(lift(py, Layout::zeros_1d(size.0, inDim, outDim, outDimSize.0))?.into())
    }

    /// `self.compose(outer)`: `outer ∘ self`.
    fn compose(&self, py: Python<'_>, outer: &LinearLayout) -> PyResultOf<Self> {
        Ok(lift(py, self.inner.compose(&outer.inner))?.into())
    }

    /// `self.invert_and_compose(outer)`: `outer⁻¹ ∘ self`.
    fn invert_and_compose(&self, py: Python<'_>, outer: &LinearLayout) -> PyResultOf<Self> {
        Ok(lift(py, self.inner.invert_and_compose(&outer.inner))?.into())
    }

    /// The inverse of an invertible layout.
    fn invert(&self, py: Python<'_>) -> PyResultOf<Self> {
        Ok(lift(py, self.inner.invert())?.into())
    }

    /// A right inverse of a surjective layout.
    fn pseudoinvert(&self, py: Python<'_>) -> PyResultOf<Self> {
        Ok(lift(py, self.inner.pseudoinvert())?.into())
    }

    /// `apply({in_dim: value, …})` → `{out_dim: value, …}`: every in-dim given, each in range.
    fn apply<'py>(
        &self,
        py: Python<'py>,
        inputs: HashMap<String, Nat>,
    ) -> PyResultOf<Bound<'py, PyDict>> {
        let ins: Vec<(Dim, u64)> = inputs.iter().map(|(n, v)| (Dim::new(n), v.0)).collect();
        let outs = PyDict::new(py);
        for (d, v) in lift(py, self.inner.apply(&ins))? {
            outs.set_item(d.name(), v)?;
        }
        Ok(outs)
    }

    /// `apply` of many flat inputs (the in-dims' values packed, the first in-dim in the low
    /// bits) at once: their flat outputs, as a numpy `uint64` array where numpy is installed,
    /// else a list.
    fn apply_many<'py>(&self, py: Python<'py>, inputs: Vec<Nat>) -> PyResultOf<Bound<'py, PyAny>> {
        let eval = lift(py, self.inner.evaluator())?;
        let bits = self.inner.total_in_dim_size_log2();
        let limit = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        let xs: Vec<u64> = inputs.iter().map(|x| x.0).collect();
        if let Some(x) = xs.iter().find(|&&x| x > limit) {
            return Err(parse_error(format!(
                "apply_many: input {x} is past the layout's {bits} input bits"
            )));
        }
        let mut out = vec![0u64; xs.len()];
        eval.apply_many(&xs, &mut out);
        match py.import("numpy") {
            Ok(np) => {
                let bytes: Vec<u8> = out.iter().flat_map(|v| v.to_le_bytes()).collect();
                let buffer = pyo3::types::PyBytes::new(py, &bytes);
                Ok(np.call_method1("frombuffer", (buffer, "<u8"))?)
            }
            Err(_) => Ok(out.into_pyobject(py)?.into_any()),
        }
    }

    /// Triton's `get_distributed_view(use_hw_view)`: each tensor element's owners
    /// (`T<thread>:<register>`), or, with `use_hw_view`, each thread's elements.
    fn get_distributed_view(&self, py: Python<'_>, use_hw_view: bool) -> PyResultOf<String> {
        lift(
            py,
            linear_layout::views::tensor_view::distributed_view(&self.inner, use_hw_view),
        )
    }

    /// Triton's `get_shared_view(use_hw_view)`: each tensor element's offset, or, with
    /// `use_hw_view`, each offset's element.
    fn get_shared_view(&self, py: Python<'_>, use_hw_view: bool) -> PyResultOf<String> {
        lift(
            py,
            linear_layout::views::tensor_view::shared_view(&self.inner, use_hw_view),
        )
    }

    /// The layout's picture (`None` where it would be too large): owners of each element for
    /// a register layout, offsets and banks for a shared one (16-bit elements), lanes and
    /// columns for a tensor-memory one (32-bit).
    fn _repr_svg_(&self) -> Option<String> {
        use linear_layout::views::svg::{shared_svg, tensor_svg, tmem_svg};
        let l = &self.inner;
        if l.has_in_dim("row") {
            tmem_svg(l, 32).ok()
        } else if l.has_in_dim("offset") {
            shared_svg(l, 2, 32).ok()
        } else {
            tensor_svg(l).ok()
        }
    }

    /// The matrix over GF(2): one row per out bit, one column per in bit.
    fn get_matrix_view(&self) -> Vec<Vec<u32>> {
        self.inner
            .matrix_view()
            .into_iter()
            .map(|row| row.into_iter().map(u32::from).collect())
            .collect()
    }

    /// `[(in_dim, [[int]])]`.
    #[getter]
    fn bases(&self) -> Bases {
        self.inner
            .bases()
            .into_iter()
            .map(|(d, b)| (d.name().to_owned(), b))
            .collect()
    }

    /// `[(out_dim, size)]`.
    #[getter]
    fn out_dims(&self) -> Vec<(String, u64)> {
        self.inner
            .out_dims()
            .into_iter()
            .map(|(d, s)| (d.name().to_owned(), s))
            .collect()
    }

    /// `[(in_dim, size)]`.
    #[getter]
    fn in_dims(&self) -> Vec<(String, u64)> {
        self.inner
            .in_dims()
            .into_iter()
            .map(|(d, s)| (d.name().to_owned(), s))
            .collect()
    }

    /// The in-dims' names, in order.
    fn get_in_dim_names(&self) -> Vec<String> {
        self.inner
            .in_dim_names()
            .into_iter()
            .map(|d| d.name().to_owned())
            .collect()
    }

    /// The out-dims' names, in order.
    fn get_out_dim_names(&self) -> Vec<String> {
        self.inner
            .out_dim_names()
            .into_iter()
            .map(|d| d.name().to_owned())
            .collect()
    }

    /// How many in-dims.
    #[getter]
    fn num_in_dims(&self) -> usize {
        self.inner.num_in_dims()
    }

    /// How many out-dims.
    #[getter]
    fn num_out_dims(&self) -> usize {
        self.inner.num_out_dims()
    }

    /// Every out value is reached.
    fn is_surjective(&self) -> bool {
        self.inner.is_surjective()
    }

    /// No two inputs map to one output.
    fn is_injective(&self) -> bool {
        self.inner.is_injective()
    }

    /// Surjective and injective.
    fn is_invertible(&self) -> bool {
        self.inner.is_invertible()
    }

    /// `a * b`: Triton's `operator*`, the product (`b`'s dims above `a`'s).
    fn __mul__(&self, py: Python<'_>, outer: &LinearLayout) -> PyResultOf<Self> {
        Ok(lift(py, self.inner.product(&outer.inner))?.into())
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<LinearLayout>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __hash__(&self) -> u64 {
        let mut h = DefaultHasher::new();
        self.inner.hash(&mut h);
        h.finish()
    }

    /// Triton's `toString`.
    fn __str__(&self) -> String {
        self.inner.to_string()
    }

    fn __repr__(&self) -> String {
        self.inner.to_string()
    }

    /// Pickles as `from_bases(bases, names, sizes, False)`.
    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResultOf<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let me = slf.get();
        let (names, sizes): (Vec<String>, Vec<u64>) = me.out_dims().into_iter().unzip();
        let ctor = slf.get_type().getattr("from_bases")?;
        let args = PyTuple::new(
            py,
            [
                me.bases().into_pyobject(py)?.into_any(),
                names.into_pyobject(py)?.into_any(),
                sizes.into_pyobject(py)?.into_any(),
                false.into_pyobject(py)?.to_owned().into_any(),
            ],
        )?;
        Ok((ctor, args))
    }
}
