//! [`Encoding`]: any family (or a plain linear layout) behind one `to_linear_layout(shape)`.

use super::{
    Blocked, DotOperand, NvidiaMma, NvmmaShared, Slice, SwizzledShared, TensorMemory,
    TensorMemoryScales,
};
use crate::{LinearLayout, Result};

/// A register (distributed) layout: in-dims `register, lane, warp, block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DistributedEncoding {
    /// `#ttg.blocked`.
    Blocked(Blocked),
    /// `#ttg.slice`.
    Slice(Slice),
    /// `#ttg.nvidia_mma` (v2 mma.sync, v3 wgmma).
    NvidiaMma(NvidiaMma),
    /// `#ttg.dot_op`.
    DotOperand(DotOperand),
    /// `#ttg.linear`: any layout with in-dims `register, lane, warp, block`.
    Linear(LinearLayout),
}

/// A shared-memory layout: in-dims `offset, block`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedEncoding {
    /// `#ttg.swizzled_shared`.
    Swizzled(SwizzledShared),
    /// `#ttg.nvmma_shared`.
    Nvmma(NvmmaShared),
    /// `#ttg.shared_linear`: any layout with in-dims `offset, block`, plus its alignment in bytes.
    Linear {
        /// The map from `offset, block` to `dim0…`.
        layout: LinearLayout,
        /// The alignment of the allocation's start, in bytes.
        alignment: u64,
    },
}

/// Any layout attribute a TTGIR dump can hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Encoding {
    /// Registers.
    Distributed(DistributedEncoding),
    /// Shared memory.
    Shared(SharedEncoding),
    /// `#ttng.tensor_memory_encoding`.
    TensorMemory(TensorMemory),
    /// `#ttng.tensor_memory_scales_encoding`.
    TensorMemoryScales(TensorMemoryScales),
}

impl DistributedEncoding {
    /// The layout for a tensor of `shape` (Triton's `toLinearLayout(shape, attr)`).
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            DistributedEncoding::Blocked(b) => b.to_linear_layout(shape),
            DistributedEncoding::Slice(s) => s.to_linear_layout(shape),
            DistributedEncoding::NvidiaMma(m) => m.to_linear_layout(shape),
            DistributedEncoding::DotOperand(d) => d.to_linear_layout(shape),
            DistributedEncoding::Linear(l) => Ok(l.clone()),
        }
    }
}

impl SharedEncoding {
    /// The layout for an allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            SharedEncoding::Swizzled(s) => s.to_linear_layout(shape),
            SharedEncoding::Nvmma(n) => n.to_linear_layout(shape),
            SharedEncoding::Linear { layout, .. } => Ok(layout.clone()),
        }
    }
}

impl Encoding {
    /// The layout for a tensor or allocation of `shape`.
    pub fn to_linear_layout(&self, shape: &[u64]) -> Result<LinearLayout> {
        match self {
            Encoding::Distributed(d) => d.to_linear_layout(shape),
            Encoding::Shared(s) => s.to_linear_layout(shape),
            Encoding::TensorMemory(t) => t.to_linear_layout(shape),
            Encoding::TensorMemoryScales(t) => t.to_linear_layout(shape),
        }
    }
}

impl SharedEncoding {
    /// Shared-memory alignment of an allocation in this layout, in bytes: 16 for
    /// [`SwizzledShared`], 1024 / 512 / 256 / 128 for [`NvmmaShared`] by swizzle width, the
    /// stored value for a `#ttg.shared_linear` layout (Gluon's `alignment`).
    ///
    /// ```
    /// use linear_layout::families::{NvmmaShared, SharedEncoding, SwizzledShared};
    /// let nvmma = SharedEncoding::Nvmma(NvmmaShared::new(64, 16, false, false, vec![])?);
    /// assert_eq!(nvmma.alignment(), 512);
    /// let swizzled = SharedEncoding::Swizzled(SwizzledShared::new(8, 1, 8, vec![1, 0], vec![])?);
    /// assert_eq!(swizzled.alignment(), 16);
    /// let linear = SharedEncoding::Linear { layout: swizzled.to_linear_layout(&[8, 8])?, alignment: 128 };
    /// assert_eq!(linear.alignment(), 128);
    /// # Ok::<(), linear_layout::LayoutError>(())
    /// ```
    pub fn alignment(&self) -> u64 {
        match self {
            SharedEncoding::Swizzled(s) => s.alignment(),
            SharedEncoding::Nvmma(n) => n.alignment(),
            SharedEncoding::Linear { alignment, .. } => *alignment,
        }
    }
}
