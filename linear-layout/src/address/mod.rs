//! Addresses of allocations: [`AddressMap`] `addr(i, x) = base + B(i) + E(x)` — the object the
//! allocator hands to codegen.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`BufferMap`] | `base + B(i)`: CuTe `shape:stride` of the buffer index, any integers | `buffer_map.rs` |
//! | [`AddressMap`] | `BufferMap` + a GF(2) element layout `E`, in shared or tensor memory | `address_map.rs` |
//! | [`HardwareSwizzle`] | the swizzle TMA/MMA apply to absolute shared addresses | `swizzle.rs` |
//! | [`Address`], [`MemorySpace`] | a byte, or a TMEM lane and column | `space.rs` |
//! | [`align_up`] | an offset rounded up to an alignment | `align.rs` |
//!
//! The buffer part is integer arithmetic, so a reuse group of 3 buffers or a stride of 96 KiB
//! are fine; the element part is a [`LinearLayout`](crate::LinearLayout) (XOR swizzles). The two
//! combine into one layout ([`AddressMap::to_linear_layout`]) when the strides are disjoint powers
//! of two above the element bits. The XOR inside `E` and the `+` of the buffer part commute
//! with the hardware's swizzle only on aligned buffers ([`AddressMap::check_alignment`]).
//!
//! ```
//! use linear_layout::{Address, AddressMap, BufferMap, families::TensorMemory};
//! // bf16 P tiles in TMEM: 4 buffers, 2 subtiles of 32 columns in each of 2 groups 128 apart.
//! let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
//! let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32), (2, 128)])?, 16, &tm, &[128, 64])?;
//! assert_eq!(p.address(2, &[3, 62])?, Address::Tensor { lane: 3, column: 128 + 31 });
//! # Ok::<(), linear_layout::LayoutError>(())
//! ```

pub mod address_map;
mod align;
pub mod buffer_map;
mod element;
pub mod space;
pub mod swizzle;

pub use address_map::AddressMap;
pub use align::{align_up, align_up_saturating};
pub use buffer_map::BufferMap;
pub use space::{Address, MemorySpace};
pub use swizzle::HardwareSwizzle;
