//! [`DotOperand`]: `#ttg.dot_op`, the A/B operand layout of a parent MMA or blocked layout.

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.dot_op<{opIdx, parent, kWidth}>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DotOperand {
    /// 0 for A, 1 for B.
    pub op_idx: u32,
    /// The parent (accumulator) layout.
    pub parent: Box<crate::families::DistributedEncoding>,
    /// Consecutive K elements per thread (0 for a blocked parent).
    pub k_width: u32,
}

impl DotOperand {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "DotOperand",
            what: "not built yet".into(),
        })
    }
}
