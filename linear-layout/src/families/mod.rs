//! Layout families: the layouts Hopper/Blackwell kernels use, built from the parameters Gluon,
//! Triton and CuTe already use, with Triton 3.9's maps bit for bit and typed errors for the
//! parameters Triton silently mis-builds.
//!
//! | family | in-dims → out-dims | module |
//! |---|---|---|
//! | [`SwizzledShared`], [`NvmmaShared`] | `offset, block` → `dim0..` | [`swizzled`], [`nvmma`] |
//! | [`AmdRotatingShared`] | `offset, block` → `dim0..` | [`amd_rotating`] |
//! | [`PaddedShared`] (linear component; padding on top) | `offset, block` → `dim0..` | [`padded`] |
//! | [`PartitionedShared`] | `offset, block, partition` → `dim0..` | [`partitioned`] |
//! | [`CuteSwizzle`] | `offset` → `offset` | [`cute`] |
//! | [`TensorMemory`], [`TensorMemoryScales`] | `row, col` → `dim0, dim1` | [`tmem`], [`tmem_scales`] |
//! | `#ttg.linear`, [`SharedLinear`] | given by their bases | [`linear`] |
//! | [`Tcgen05Atom`] register layouts | `register, lane, warp, block` → `dim0, dim1` | [`tmem_access`] |
//! | [`Blocked`], [`Slice`], [`NvmmaDistributed`], [`DotOperand`] | `register, lane, warp, block` → `dim0..` | [`blocked`], [`slice`](mod@slice), [`mma`], [`dot_operand`] |
//! | [`AmdMfma`], [`AmdWmma`] | `register, lane, warp, block` → `dim0..` | [`amd_mfma`], [`amd_wmma`] |
//!
//! [`Encoding`] gathers them behind one `to_linear_layout(shape)` and reads and prints their MLIR
//! attributes; each family's attribute keys and printer sit in its own file.

pub mod amd_mfma;
pub mod amd_rotating;
pub mod amd_wmma;
mod attribute;
pub mod blocked;
pub mod checks;
pub mod cute;
pub mod dot_operand;
pub mod encoding;
pub mod gluon;
pub mod linear;
pub mod mma;
pub mod nvmma;
pub mod padded;
pub mod partitioned;
pub mod slice;
pub mod swizzled;
pub mod tiling;
pub mod tmem;
pub mod tmem_access;
pub mod tmem_scales;

pub use amd_mfma::AmdMfma;
pub use amd_rotating::AmdRotatingShared;
pub use amd_wmma::AmdWmma;
pub use blocked::Blocked;
pub use cute::CuteSwizzle;
pub use dot_operand::DotOperand;
pub use encoding::{DistributedEncoding, Encoding, SharedEncoding};
pub use gluon::GluonLayout;
pub use linear::{fit_linear, SharedLinear};
pub use mma::NvmmaDistributed;
pub use nvmma::NvmmaShared;
pub use padded::PaddedShared;
pub use partitioned::PartitionedShared;
pub use slice::Slice;
pub use swizzled::SwizzledShared;
pub use tmem::{tcgen05_alloc_columns, TensorMemory};
pub use tmem_access::{tmem_reg_layout, Tcgen05Atom};
pub use tmem_scales::TensorMemoryScales;
