//! # linear-layout
//!
//! GF(2) linear layouts with Triton 3.9's semantics, bit for bit, without Triton's width limits
//! and with a typed [`LayoutError`] for every precondition instead of a process abort.
//!
//! A [`LinearLayout`] maps named input dims (`register`, `lane`, `warp`, `block`, or `offset`,
//! or `row`, `col`) to named output dims (`dim0`, `dim1`, …) linearly over GF(2): each input
//! bit has a *basis* (the output it produces alone), and any input maps to the XOR of the bases
//! of its set bits. Dims are ordered minor to major and flattened least-significant bit first.
//!
//! Layout families ([`families`]) build these maps from the parameters kernels use, and an
//! [`AddressMap`] ([`address`]) turns a shared- or tensor-memory layout plus the affine buffer
//! part of a multi-buffered allocation into the addresses codegen emits.
//!
//! ```
//! use linear_layout::LinearLayout;
//! // 8 registers × 32 lanes hold a 16 × 16 f16 tile: registers along dim1, lanes along dim0…
//! let regs = LinearLayout::from_bases(
//!     &[("register", vec![vec![0, 1], vec![0, 2], vec![0, 4]]),
//!       ("lane", vec![vec![0, 8], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0]])],
//!     &[("dim0", 16), ("dim1", 16)], true)?;
//! // …stored row-major with a 16-byte XOR swizzle (vec 8, per_phase 1, max_phase 2):
//! let smem = LinearLayout::from_bases(
//!     &[("offset", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![0, 8],
//!                       vec![1, 8], vec![2, 0], vec![4, 0], vec![8, 0]])],
//!     &[("dim0", 16), ("dim1", 16)], true)?;
//! // Which shared-memory offset does each (register, lane) store to?
//! let cvt = regs.invert_and_compose(&smem)?;
//! assert_eq!(cvt.bases_of("register")?, vec![vec![1], vec![2], vec![4]]);
//! assert_eq!(cvt.bases_of("lane")?, vec![vec![8], vec![24], vec![32], vec![64], vec![128]]);
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

pub mod address;
pub mod analysis;
mod dim_list;
pub mod dims;
pub mod dtype;
pub mod error;
pub mod families;
pub mod gf2;
pub mod layout;
pub mod mlir;
pub mod ops;
pub mod text;
pub mod views;
pub mod word_echelon;

#[cfg(test)]
mod test_rng;

pub use address::{Address, AddressMap, BufferMap};
pub use dims::{Dim, DimSize};
pub use dtype::DType;
pub use error::{LayoutError, Result};
pub use layout::{DimBases, LinearLayout};
pub use ops::apply::Evaluator;
pub use ops::divide::{divide_left, divide_right};
pub use ops::invert::lstsq;
