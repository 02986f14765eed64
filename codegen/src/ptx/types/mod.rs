//! The leaf types of the PTX IR: what instructions, kernels and errors all name, defined here
//! so that nothing imports in a circle (`error` names them, and so do the things that raise
//! errors).
//!
//! | types | file |
//! |---|---|
//! | [`IntType`], [`Width`], [`DataType`], [`StateSpace`], [`CmpOp`], [`MatrixCount`], [`Role`]: type suffixes and tags | `suffix.rs` |
//! | [`Target`], [`PtxVersion`]: the GPU and the ISA version | `target.rs` |
//! | [`TmemShape`]: `tcgen05.ld/st` shapes and their thread-to-data maps | `tmem_shape.rs` |
//! | [`CpShape`]: `tcgen05.cp` shapes and the lanes each row lands in | `cp_shape.rs` |

mod cp_shape;
mod suffix;
mod target;
mod tmem_shape;

pub use cp_shape::CpShape;
pub use suffix::{CmpOp, DataType, IntType, MatrixCount, Role, StateSpace, Width};
pub use target::{PtxVersion, Target};
pub use tmem_shape::TmemShape;
