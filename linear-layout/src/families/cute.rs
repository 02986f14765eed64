//! [`CuteSwizzle`]: CuTe's `Swizzle<B, M, S>` as a layout over element offsets.

use crate::{LayoutError, LinearLayout, Result};

/// CuTe `Swizzle<B, M, S>`: `y = x ^ ((x >> S) & (((1 << B) - 1) << M))` — `B` bits taken from
/// position `M + S` are XOR-ed into position `M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CuteSwizzle {
    /// Number of bits in the mask (`B`).
    pub bits: u32,
    /// Number of least-significant bits kept constant (`M`).
    pub base: u32,
    /// Distance to shift the mask (`S`).
    pub shift: u32,
}

impl CuteSwizzle {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "CuteSwizzle",
            what: "not built yet".into(),
        })
    }
}
