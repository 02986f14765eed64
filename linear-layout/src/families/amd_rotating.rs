//! [`AmdRotatingShared`]: `#ttg.amd_rotating_shared`, the swizzled shared layout Triton picks
//! for AMD dot operands on gfx942 and RDNA, whose swizzle phase also rotates from one block of
//! rows to the next.

use super::attribute::Attribute;
use super::swizzled::SwizzledShared;
use crate::text::attr::AttrParser;
use crate::{LayoutError, LinearLayout, Result};

const FAMILY: &str = "amd_rotating_shared";

/// `#ttg.amd_rotating_shared<{vec, perPhase, maxPhase, order}>`: Triton 3.9's
/// `sharedToLinearLayoutAMDRotating`. As [`SwizzledShared`] with the same parameters, but row
/// `r`'s phase `(r / per_phase) mod max_phase` is XORed with its block number
/// `(r / (per_phase · max_phase)) mod max_phase`, so consecutive blocks of rows use the phases
/// in a different order (fewer bank conflicts for the transposed reads of MFMA/WMMA operands).
///
/// Preconditions: those of [`SwizzledShared`], and no `cga_layout` (no AMD target splits a
/// shared layout across CTAs, and Triton's map reads the whole shape where the swizzle reads
/// the per-CTA one: [`LayoutError::InvalidParameter`]).
///
/// Verification: Gluon 3.9 cannot hold this attribute (`get_gluon_layout_from_memdesc`:
/// "Unhandled encoding"), so the goldens come from Triton's own lowering instead
/// (`tests/lowering_oracle.rs`: where a compiled `ttg.local_alloc` stores each element, 62
/// cases, the two real kernels' layouts among them), with properties in
/// `tests/families_shared.rs` (a bijection, the plain swizzle within the first block of rows).
///
/// ```
/// use linear_layout::families::{AmdRotatingShared, SwizzledShared};
/// let s = SwizzledShared::new(4, 1, 16, vec![1, 0], vec![])?;
/// let l = AmdRotatingShared { swizzle: s }.to_linear_layout(&[64, 64])?;
/// // Rows 1..8 swizzle as usual; row 16 starts block 1: phase 0 ⊕ 1.
/// assert_eq!(l.bases_of("offset")?[6..], [vec![1, 4], vec![2, 8], vec![4, 16], vec![8, 32], vec![16, 4], vec![32, 8]]);
/// # Ok::<(), linear_layout::LayoutError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AmdRotatingShared {
    /// The swizzle parameters (`vec`, `per_phase`, `max_phase`, `order`).
    pub swizzle: SwizzledShared,
}

impl AmdRotatingShared {
    /// The layout `offset, block → dim0..` for an allocation of `shape`; errors: see
    /// [`AmdRotatingShared`].
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        if !self.swizzle.cga_layout.is_empty() {
            return Err(LayoutError::invalid_parameter(
                FAMILY,
                "cga_layout",
                &self.swizzle.cga_layout,
                "a rotating layout split across CTAs is not supported: Triton's map reads the \
                 whole shape, not one CTA's",
            ));
        }
        self.swizzle.layout(FAMILY, shape, true)
    }
}

impl Attribute for AmdRotatingShared {
    const NAME: &'static str = "#ttg.amd_rotating_shared";

    fn parse(p: &mut AttrParser<'_>, start: usize) -> Result<Self> {
        Ok(AmdRotatingShared {
            swizzle: SwizzledShared::parse_named(p, start, Self::NAME)?,
        })
    }

    fn print(&self, _rank: usize) -> String {
        self.swizzle.print_named(Self::NAME)
    }
}
