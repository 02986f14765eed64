//! [`PlanPtxError`]: why an allocation of a plan got no kernel.

use alias_alloc::AllocError;
use linear_layout::LayoutError;
use thiserror::Error;

use crate::ptx::PtxError;
use crate::smem::SmemError;
use crate::tmem::TmemError;

/// Why [`PlanPtx::new`](super::PlanPtx::new) could not emit an allocation's kernel (kept in
/// [`Skipped`](super::Skipped)), or could not build the module. Each variant names the
/// allocation.
///
/// ```
/// use codegen::plan_ptx::PlanPtxError;
/// let e = PlanPtxError::Unsupported { allocation: "p".into(), reason: "no explicit address map".into() };
/// assert_eq!(e.to_string(), "allocation 'p': no explicit address map");
/// ```
#[derive(Debug, Error)]
pub enum PlanPtxError {
    /// The shared-memory emitter refused the allocation's map or register layout.
    #[error("allocation '{allocation}': {source}")]
    Smem {
        /// The allocation.
        allocation: String,
        /// The emitter's error.
        #[source]
        source: SmemError,
    },
    /// The tensor-memory emitter refused the allocation's map or register layout.
    #[error("allocation '{allocation}': {source}")]
    Tmem {
        /// The allocation.
        allocation: String,
        /// The emitter's error.
        #[source]
        source: TmemError,
    },
    /// The register layout could not be built for the allocation's shape.
    #[error("allocation '{allocation}': {source}")]
    Layout {
        /// The allocation.
        allocation: String,
        /// The layout error.
        #[source]
        source: LayoutError,
    },
    /// The allocation has nothing the emitters take: no explicit address map (a tile that is
    /// not a power of two), a placeholder TMEM layout, a two-CTA TMEM layout.
    #[error("allocation '{allocation}': {reason}")]
    Unsupported {
        /// The allocation.
        allocation: String,
        /// What it lacks.
        reason: String,
    },
    /// The plan does not match the program (an allocation id it does not know).
    #[error(transparent)]
    Alloc(#[from] AllocError),
    /// Two kernels could not share a module.
    #[error(transparent)]
    Ptx(#[from] PtxError),
}
