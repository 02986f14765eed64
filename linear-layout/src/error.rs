//! [`LayoutError`]: every precondition of every layout operation, as a value.

use thiserror::Error;

/// Why a layout operation refused its input. Each message names the dims and sizes involved.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    /// A size that must be a power of two is not.
    #[error("{what} must be a power of two, got {value}")]
    NotPowerOfTwo {
        /// What had to be a power of two (a dim's size, a parameter).
        what: String,
        /// The value given.
        value: u128,
    },
    /// A dimension wider than 63 bits (its size or values would not fit a `u64`).
    #[error("{role}-dim '{dim}' would have 2^{log2} elements; at most 2^63 are supported")]
    DimTooLarge {
        /// `in` or `out`.
        role: &'static str,
        /// The dimension's name.
        dim: String,
        /// Its size would be `2^log2`.
        log2: u32,
    },
    /// The same dimension name twice in one list.
    #[error("{role}-dim '{dim}' appears more than once")]
    DuplicateDim {
        /// `in` or `out`.
        role: &'static str,
        /// The repeated name.
        dim: String,
    },
    /// A basis whose tuple length differs from the number of out-dims.
    #[error("basis {index} of in-dim '{in_dim}' has {len} components, expected one per out-dim ({expected})")]
    BasisLength {
        /// The in-dim the basis belongs to.
        in_dim: String,
        /// Which of its bases (input bit).
        index: usize,
        /// Components the basis has.
        len: usize,
        /// Components it needs: the number of out-dims.
        expected: usize,
    },
    /// A basis component that does not fit its out-dim.
    #[error("basis {index} of in-dim '{in_dim}' has component {value} for out-dim '{out_dim}', which has size {size}")]
    BasisOutOfRange {
        /// The in-dim the basis belongs to.
        in_dim: String,
        /// Which of its bases (input bit).
        index: usize,
        /// The out-dim the component is for.
        out_dim: String,
        /// The component.
        value: u128,
        /// The out-dim's size, which the component must stay below.
        size: u128,
    },
    /// The layout had to be surjective and is not.
    #[error("layout is not surjective: its bases span {rank} of the {out_bits} output bits (out-dims {out_dims:?})")]
    NotSurjective {
        /// Output bits the bases span.
        rank: u32,
        /// Output bits the out-dims have.
        out_bits: u32,
        /// The out-dims' names.
        out_dims: Vec<String>,
    },
    /// The layout had to be injective and is not.
    #[error("layout is not injective: its bases span {rank} of the {in_bits} input bits (in-dims {in_dims:?})")]
    NotInjective {
        /// Input bits the bases span independently.
        rank: u32,
        /// Input bits the in-dims have.
        in_bits: u32,
        /// The in-dims' names.
        in_dims: Vec<String>,
    },
    /// A named dimension that the layout does not have.
    #[error("{op}: no {role}-dim '{dim}' (the layout has {available:?})")]
    UnknownDim {
        /// The operation that looked the dim up.
        op: &'static str,
        /// `in` or `out`.
        role: &'static str,
        /// The name asked for.
        dim: String,
        /// The names the layout has.
        available: Vec<String>,
    },
    /// Two dimension lists that must hold the same names do not.
    #[error("{op}: {what} must be the same set of dims, got {left:?} and {right:?}")]
    DimsMismatch {
        /// The operation.
        op: &'static str,
        /// Which lists had to agree.
        what: &'static str,
        /// The first list.
        left: Vec<String>,
        /// The second list.
        right: Vec<String>,
    },
    /// Common dims ordered differently by the two operands of a product.
    #[error("product: {role}-dims common to both layouts must appear in the same relative order, got {left:?} and {right:?}")]
    OrderConflict {
        /// `in` or `out`.
        role: &'static str,
        /// The first layout's dims.
        left: Vec<String>,
        /// The second layout's dims.
        right: Vec<String>,
    },
    /// A dimension whose size is incompatible between two layouts.
    #[error(
        "{op}: dim '{dim}' has size {left} in the first layout but {right} in the second ({rule})"
    )]
    SizeMismatch {
        /// The operation.
        op: &'static str,
        /// The dim whose sizes differ.
        dim: String,
        /// Its size in the first layout.
        left: u128,
        /// Its size in the second layout.
        right: u128,
        /// The rule the sizes break.
        rule: &'static str,
    },
    /// `invert_and_compose` / `lstsq`: a basis of the inner layout is outside the image of the outer one.
    #[error("{op}: {in_dim}={value} maps to {image:?}, which the outer layout never produces (the outer layout does not cover this layout's image)")]
    NotInImage {
        /// The operation.
        op: &'static str,
        /// The inner layout's in-dim.
        in_dim: String,
        /// The input value whose image is missed.
        value: u128,
        /// Where the inner layout sends it.
        image: Vec<(String, u64)>,
    },
    /// Two totals that must agree (reshapes, concatenations).
    #[error("{op}: total size 2^{got} does not match the layout's 2^{expected}")]
    TotalSizeMismatch {
        /// The operation.
        op: &'static str,
        /// `log2` of the layout's total size.
        expected: u32,
        /// `log2` of the total size asked for.
        got: u32,
    },
    /// `squeeze` of a dimension whose size is not 1.
    #[error("{op}: dim '{dim}' has size {size}, not 1")]
    NotSizeOne {
        /// The operation.
        op: &'static str,
        /// The dim.
        dim: String,
        /// Its size.
        size: u128,
    },
    /// `resize_out_dim` to a larger size, or an index past a dimension.
    #[error("{op}: {what}")]
    Invalid {
        /// The operation.
        op: &'static str,
        /// What is wrong, with the values involved.
        what: String,
    },
    /// `apply` given a value outside its in-dim (Triton silently drops the high bits).
    #[error("apply: value {value} is out of range for in-dim '{dim}' of size {size}")]
    InputOutOfRange {
        /// The in-dim.
        dim: String,
        /// The value given.
        value: u64,
        /// The in-dim's size.
        size: u128,
    },
    /// Text that is not a layout.
    #[error("parse error: {0}")]
    Parse(String),
    /// An element type name this crate does not know.
    #[error("unknown dtype '{name}' (expected f64, f32, f16, bf16, f8e4m3, f8e5m2, f4, i128, i64, i32, i16, i8, i4, i1, u128, u64, u32, u16, u8 or ptr)")]
    UnknownDType {
        /// The name given.
        name: String,
    },
    /// A layout-family parameter outside what the hardware or the family allows (Triton would
    /// abort or silently build a different map).
    #[error("{family}: {param} = {value} is invalid: {reason}")]
    InvalidParameter {
        /// The family (`blocked`, `nvmma_shared`, …).
        family: &'static str,
        /// The parameter's name as Triton spells it.
        param: &'static str,
        /// The value given, printed with `Debug`.
        value: String,
        /// Why it is refused.
        reason: String,
    },
    /// A tensor shape a layout family cannot lay out.
    #[error("{family}: shape {shape:?} is invalid: {reason}")]
    InvalidShape {
        /// The family.
        family: &'static str,
        /// The shape given.
        shape: Vec<u64>,
        /// Why the family cannot lay it out.
        reason: String,
    },
    /// A buffer index past the end of a [`BufferMap`](crate::BufferMap).
    #[error("buffer index {index} is out of range: the buffer map has {count} buffers")]
    BufferIndexOutOfRange {
        /// The index given.
        index: u64,
        /// Buffers the map has.
        count: u64,
    },
    /// A buffer of an [`AddressMap`](crate::AddressMap) that starts off its required alignment
    /// (where the hardware's swizzle and the layout's XOR would disagree).
    #[error("buffer {buffer} starts at {unit} {offset}, which is not a multiple of the required alignment of {alignment} {unit}s")]
    Misaligned {
        /// The buffer's index.
        buffer: u64,
        /// Where it starts.
        offset: u64,
        /// The alignment it needs.
        alignment: u64,
        /// `byte` or `column`.
        unit: &'static str,
    },
    /// An address that does not fit its field (`u64` bytes, the 16-bit TMEM column field).
    #[error("{op}: address overflow: {what}")]
    AddressOverflow {
        /// The operation.
        op: &'static str,
        /// The address and the field it overflows.
        what: String,
    },
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
