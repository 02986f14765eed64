//! [`Slice`]: `#ttg.slice`, a parent layout with one dim removed.

use crate::{LayoutError, LinearLayout, Result};

/// `#ttg.slice<{dim, parent}>`: the parent layout on the shape with a 1 inserted at `dim`,
/// projected onto the other dims.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Slice {
    /// The removed dim of the parent.
    pub dim: usize,
    /// The parent layout.
    pub parent: Box<crate::families::DistributedEncoding>,
}

impl Slice {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        let _ = shape;
        Err(LayoutError::Invalid {
            op: "Slice",
            what: "not built yet".into(),
        })
    }
}
