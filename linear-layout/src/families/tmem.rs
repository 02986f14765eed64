//! Tensor memory (Blackwell TMEM) layouts: [`TensorMemory`] and [`TensorMemoryScales`].

use crate::{LayoutError, LinearLayout, Result};

/// `#ttng.tensor_memory_encoding<blockM, blockN, colStride>`: in-dims `row` (128 TMEM lanes),
/// `col` (columns in elements) → `dim0, dim1`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TensorMemory {
    /// Rows per block: 64 or 128.
    pub block_m: u32,
    /// Columns per block (elements).
    pub block_n: u32,
    /// 32-bit columns per element slot: 1 (packed), 2 or 4.
    pub col_stride: u32,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
    /// Two-CTA (cta_group::2) MMA operand.
    pub two_ctas: bool,
}

/// `#ttng.tensor_memory_scales_encoding<>`: block-scale factors for `tcgen05.mma` with scales.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct TensorMemoryScales {
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl TensorMemory {
    /// The layout for an allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "TensorMemory",
            what: "not built yet".into(),
        })
    }
}

impl TensorMemoryScales {
    /// The layout for an allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "TensorMemoryScales",
            what: "not built yet".into(),
        })
    }
}
