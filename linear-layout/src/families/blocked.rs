//! [`Blocked`]: Triton's `#ttg.blocked` register layout.

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.blocked<{sizePerThread, threadsPerWarp, warpsPerCTA, order}>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Blocked {
    /// Contiguous elements per thread, per dim.
    pub size_per_thread: Vec<u32>,
    /// Threads per warp, per dim (product 32).
    pub threads_per_warp: Vec<u32>,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u32>,
    /// Dims from fastest- to slowest-varying.
    pub order: Vec<usize>,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl Blocked {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "Blocked",
            what: "not built yet".into(),
        })
    }
}
