//! [`NvidiaMma`]: `#ttg.nvidia_mma` accumulators of mma.sync (v2) and wgmma (v3).

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.nvidia_mma<{versionMajor, versionMinor, warpsPerCTA, instrShape}>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvidiaMma {
    /// 2 (Ampere mma.sync) or 3 (Hopper wgmma).
    pub version_major: u32,
    /// Minor version (0).
    pub version_minor: u32,
    /// Warps per CTA, per dim.
    pub warps_per_cta: Vec<u32>,
    /// Instruction shape: v2 `[16, 8]` (or `[1, 16, 8]`), v3 `[16, N, K]`.
    pub instr_shape: Vec<u32>,
    /// Gluon 3.9 `cga_layout`.
    pub cga_layout: Vec<Vec<u64>>,
}

impl NvidiaMma {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "NvidiaMma",
            what: "not built yet".into(),
        })
    }
}
