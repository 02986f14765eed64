//! [`SwizzledShared`]: Triton's `#ttg.swizzled_shared` layout.

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.swizzled_shared<{vec, perPhase, maxPhase, order}>`: the column is XOR-ed with
/// `vec · ((row / per_phase) mod max_phase)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwizzledShared {
    /// Elements per swizzled vector.
    pub vec: u32,
    /// Rows sharing one phase.
    pub per_phase: u32,
    /// Number of distinct phases.
    pub max_phase: u32,
    /// Dims from most minor (contiguous) to most major.
    pub order: Vec<usize>,
    /// Gluon 3.9 `cga_layout`: block bases in units of one CTA tile (empty: one CTA).
    pub cga_layout: Vec<Vec<u64>>,
}

impl SwizzledShared {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "SwizzledShared",
            what: "not built yet".into(),
        })
    }
}
