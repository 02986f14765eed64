//! The GPU tier (`--features gpu`): run the emitted kernels on an sm_90+ device through
//! [cudarc](https://crates.io/crates/cudarc) and read back what they wrote, to compare with
//! the [`AddressMap`](linear_layout::AddressMap) — the same check the interpreter makes, on
//! the hardware.
//!
//! cudarc loads `libcuda` at run time (`dynamic-loading`), so the crate builds and its tests
//! run without CUDA installed: [`Gpu::open`] then returns [`GpuError::NoDriver`] (cudarc's
//! loader panics without a driver; that panic is caught and becomes the error), and
//! [`require_gpu`] prints `skipped: <reason>` — unless `REQUIRE_GPU=1`.
//!
//! | concept | what it is | file |
//! |---|---|---|
//! | [`Gpu`] | device 0 (or any), its context and stream, compute capability ≥ 9.0 | `gpu/device.rs` |
//! | [`GpuKernel`], [`device_ptx`] | a [`Kernel`](crate::ptx::Kernel) JIT-loaded from its PTX text | `gpu/module.rs` |
//! | [`Gpu::launch`], [`Gpu::run_test`] | one block with the interpreter's [`Config`](crate::interp::Config) and parameters; buffers back | `gpu/launch.rs` |
//! | [`require_gpu`] | the skip-or-fail helper for tests | `gpu/require.rs` |
//! | [`GpuError`], [`DriverFailure`] | why, naming the kernel or device; a driver error rendered when it happened | `gpu/error.rs` |
//! | panics → errors | `catch_unwind` around cudarc calls | `gpu/guard.rs` |
//!
//! ```
//! use codegen::access::{BufferLowering, MemoryOp};
//! use codegen::gpu::require_gpu;
//! use codegen::smem::kernels::address_dump;
//! use codegen::access::IndexSource;
//! use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
//! let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
//!     warps_per_cta: vec![1, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[8, 64])?;
//! let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
//! let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(4, 1024)])?, 16, &enc, &[8, 64])?;
//! let k = address_dump("dump", &map, &regs, MemoryOp::Load, &IndexSource::Param, BufferLowering::Explicit)?;
//! // Without a driver this prints `skipped: no CUDA driver: …` and stops here.
//! let Some(gpu) = require_gpu()? else { return Ok(()) };
//! let loaded = gpu.load(&k.kernel)?;
//! for i in 0..4 {
//!     assert_eq!(gpu.run_test(&loaded, &k, Some(i))?, k.expected_out(Some(u64::from(i)))?);
//! }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod device;
mod error;
mod guard;
mod launch;
mod module;
mod require;

pub use device::Gpu;
pub use error::{DriverFailure, GpuError};
pub use module::{device_ptx, GpuKernel};
pub use require::require_gpu;
