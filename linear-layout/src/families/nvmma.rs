//! [`NvmmaShared`]: the wgmma/tcgen05/TMA shared layout `#ttg.nvmma_shared`.

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.nvmma_shared<{swizzlingByteWidth, transposed, elementBitWidth, fp4Padded}>`. The rank
/// comes from the shape, as in the MLIR attribute (Gluon's `rank` argument only sizes the CGA).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvmmaShared {
    /// Swizzle width in bytes: 0, 32, 64 or 128.
    pub swizzle_bytes: u32,
    /// Element width in bits: 8, 16, 32 or 64.
    pub element_bits: u32,
    /// Whether dim0 (not the last dim) is contiguous.
    pub transposed: bool,
    /// fp4 padded: each 16-byte group holds 8 real bytes (8-bit elements, 128B swizzle only).
    pub fp4_padded: bool,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl NvmmaShared {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "NvmmaShared",
            what: "not built yet".into(),
        })
    }
}
