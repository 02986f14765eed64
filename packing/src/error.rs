//! Errors of the packing module: each names the buffer (by its id) or the CSV line at fault.

use thiserror::Error;

/// Why a packing problem, a placement or a CSV file was refused.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PackError {
    /// A lifetime `[lower, upper)` with `upper <= lower`.
    #[error("buffer '{id}': empty lifetime [{lower}, {upper}) (upper must be greater than lower)")]
    EmptyLifetime {
        /// The buffer.
        id: String,
        /// Its first live point.
        lower: u64,
        /// One past its last live point.
        upper: u64,
    },
    /// An alignment of 0.
    #[error("buffer '{id}': alignment must be at least 1")]
    ZeroAlignment {
        /// The buffer.
        id: String,
    },
    /// Two buffers with one id.
    #[error("buffer id '{id}' is used twice (buffers {} and {}, counting from 1)", first + 1, second + 1)]
    DuplicateId {
        /// The id.
        id: String,
        /// Index of its first buffer.
        first: usize,
        /// Index of its second buffer.
        second: usize,
    },
    /// A fixed offset that is not a multiple of the buffer's alignment.
    #[error("buffer '{id}': fixed offset {offset} is not a multiple of its alignment {alignment}")]
    MisalignedFixedOffset {
        /// The buffer.
        id: String,
        /// The fixed offset.
        offset: u64,
        /// The alignment.
        alignment: u64,
    },
    /// `offset + size` (or another sum) past `u64`.
    #[error("buffer '{id}': offset + size overflows 64 bits")]
    Overflow {
        /// The buffer.
        id: String,
    },
    /// Two fixed buffers that are live at the same time and whose ranges intersect: no
    /// placement exists at any capacity.
    #[error("fixed buffers '{a}' and '{b}' are live at the same time and their ranges intersect")]
    FixedOverlap {
        /// The earlier buffer, in problem order.
        a: String,
        /// The later buffer.
        b: String,
    },
    /// A placement with a different number of offsets than the problem has buffers.
    #[error("placement has {got} offsets for {expected} buffers")]
    PlacementLength {
        /// Buffers in the problem.
        expected: usize,
        /// Offsets in the placement.
        got: usize,
    },
    /// A malformed CSV file.
    #[error("line {line}: {message}")]
    Csv {
        /// 1-based line number.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A deadline passed before a greedy rule had placed every buffer (only from the calls
    /// that take one; the solver then keeps the placements it already has).
    #[error("the deadline passed after {placed} of {buffers} buffers were placed")]
    Deadline {
        /// Buffers placed when the deadline was read as passed.
        placed: usize,
        /// Buffers in the problem.
        buffers: usize,
    },
}
