//! [`LayoutError`]: every precondition of every layout operation, as a value.

use thiserror::Error;

/// Why a layout operation refused its input. Each message names the dims and sizes involved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A size that must be a power of two is not.
    #[error("{what} must be a power of two, got {value}")]
    NotPowerOfTwo { what: String, value: u128 },
    /// A dimension wider than 63 bits (its size or values would not fit a `u64`).
    #[error("{role}-dim '{dim}' would have 2^{log2} elements; at most 2^63 are supported")]
    DimTooLarge {
        role: &'static str,
        dim: String,
        log2: u32,
    },
    /// The same dimension name twice in one list.
    #[error("{role}-dim '{dim}' appears more than once")]
    DuplicateDim { role: &'static str, dim: String },
    /// A basis whose tuple length differs from the number of out-dims.
    #[error("basis {index} of in-dim '{in_dim}' has {len} components, expected one per out-dim ({expected})")]
    BasisLength {
        in_dim: String,
        index: usize,
        len: usize,
        expected: usize,
    },
    /// A basis component that does not fit its out-dim.
    #[error("basis {index} of in-dim '{in_dim}' has component {value} for out-dim '{out_dim}', which has size {size}")]
    BasisOutOfRange {
        in_dim: String,
        index: usize,
        out_dim: String,
        value: u128,
        size: u128,
    },
    /// The layout had to be surjective and is not.
    #[error("layout is not surjective: its bases span {rank} of the {out_bits} output bits (out-dims {out_dims:?})")]
    NotSurjective {
        rank: u32,
        out_bits: u32,
        out_dims: Vec<String>,
    },
    /// The layout had to be injective and is not.
    #[error("layout is not injective: its bases span {rank} of the {in_bits} input bits (in-dims {in_dims:?})")]
    NotInjective {
        rank: u32,
        in_bits: u32,
        in_dims: Vec<String>,
    },
    /// A named dimension that the layout does not have.
    #[error("{op}: no {role}-dim '{dim}' (the layout has {available:?})")]
    UnknownDim {
        op: &'static str,
        role: &'static str,
        dim: String,
        available: Vec<String>,
    },
    /// Two dimension lists that must hold the same names do not.
    #[error("{op}: {what} must be the same set of dims, got {left:?} and {right:?}")]
    DimsMismatch {
        op: &'static str,
        what: &'static str,
        left: Vec<String>,
        right: Vec<String>,
    },
    /// Common dims ordered differently by the two operands of a product.
    #[error("product: {role}-dims common to both layouts must appear in the same relative order, got {left:?} and {right:?}")]
    OrderConflict {
        role: &'static str,
        left: Vec<String>,
        right: Vec<String>,
    },
    /// A dimension whose size is incompatible between two layouts.
    #[error(
        "{op}: dim '{dim}' has size {left} in the first layout but {right} in the second ({rule})"
    )]
    SizeMismatch {
        op: &'static str,
        dim: String,
        left: u128,
        right: u128,
        rule: &'static str,
    },
    /// `invert_and_compose` / `lstsq`: a basis of the inner layout is outside the image of the outer one.
    #[error("{op}: {in_dim}={value} maps to {image:?}, which the outer layout never produces (the outer layout does not cover this layout's image)")]
    NotInImage {
        op: &'static str,
        in_dim: String,
        value: u128,
        image: Vec<(String, u64)>,
    },
    /// Two totals that must agree (reshapes, concatenations).
    #[error("{op}: total size 2^{got} does not match the layout's 2^{expected}")]
    TotalSizeMismatch {
        op: &'static str,
        expected: u32,
        got: u32,
    },
    /// `squeeze` of a dimension whose size is not 1.
    #[error("{op}: dim '{dim}' has size {size}, not 1")]
    NotSizeOne {
        op: &'static str,
        dim: String,
        size: u128,
    },
    /// `resize_out_dim` to a larger size, or an index past a dimension.
    #[error("{op}: {what}")]
    Invalid { op: &'static str, what: String },
    /// `apply` given a value outside its in-dim (Triton silently drops the high bits).
    #[error("apply: value {value} is out of range for in-dim '{dim}' of size {size}")]
    InputOutOfRange { dim: String, value: u64, size: u128 },
    /// Text that is not a layout.
    #[error("parse error: {0}")]
    Parse(String),
    /// A layout-family parameter outside what the hardware or the family allows (Triton would
    /// abort or silently build a different map).
    #[error("{family}: {param} = {value} is invalid: {reason}")]
    InvalidParameter {
        family: &'static str,
        param: &'static str,
        value: String,
        reason: String,
    },
    /// A tensor shape a layout family cannot lay out.
    #[error("{family}: shape {shape:?} is invalid: {reason}")]
    InvalidShape {
        family: &'static str,
        shape: Vec<u64>,
        reason: String,
    },
    /// A buffer index past the end of a [`BufferMap`](crate::BufferMap).
    #[error("buffer index {index} is out of range: the buffer map has {count} buffers")]
    BufferIndexOutOfRange { index: u64, count: u64 },
    /// A buffer of an [`AddressMap`](crate::AddressMap) that starts off its required alignment
    /// (where the hardware's swizzle and the layout's XOR would disagree).
    #[error("buffer {buffer} starts at {unit} {offset}, which is not a multiple of the required alignment of {alignment} {unit}s")]
    Misaligned {
        buffer: u64,
        offset: u64,
        alignment: u64,
        unit: &'static str,
    },
    /// An address that does not fit its field (`u64` bytes, the 16-bit TMEM column field).
    #[error("{op}: address overflow: {what}")]
    AddressOverflow { op: &'static str, what: String },
}

impl LayoutError {
    /// A [`LayoutError::InvalidParameter`]: `family`'s `param` is `value` (printed with `Debug`),
    /// refused because `reason`.
    ///
    /// ```
    /// use linear_layout::LayoutError;
    /// let e = LayoutError::invalid_parameter("blocked", "order", &[1, 1], "must be a permutation of 0..2");
    /// assert_eq!(e.to_string(), "blocked: order = [1, 1] is invalid: must be a permutation of 0..2");
    /// ```
    pub fn invalid_parameter<T: std::fmt::Debug + ?Sized>(
        family: &'static str,
        param: &'static str,
        value: &T,
        reason: impl Into<String>,
    ) -> LayoutError {
        LayoutError::InvalidParameter {
            family,
            param,
            value: format!("{value:?}"),
            reason: reason.into(),
        }
    }
}

/// `Result` with [`LayoutError`].
pub type Result<T, E = LayoutError> = std::result::Result<T, E>;
