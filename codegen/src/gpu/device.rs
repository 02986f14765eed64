//! [`Gpu`]: an opened sm_90+ device, its primary context and default stream.

use std::sync::Arc;

use cudarc::driver::sys::CUdevice_attribute;
use cudarc::driver::{CudaContext, CudaStream};

use super::guard::guarded;
use super::{DriverFailure, GpuError};

/// An opened CUDA device of compute capability 9.0 or newer (Hopper, Blackwell): its primary
/// context, default stream and the limits a launch is checked against.
///
/// ```
/// use codegen::gpu::{Gpu, GpuError};
/// match Gpu::open() {
///     Ok(gpu) => assert!(gpu.capability() >= (9, 0)),
///     Err(e) if e.is_unavailable() => eprintln!("skipped: {e}"),
///     Err(e) => return Err(e.into()),
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Gpu {
    pub(super) ctx: Arc<CudaContext>,
    pub(super) stream: Arc<CudaStream>,
    ordinal: usize,
    name: String,
    capability: (u32, u32),
    max_threads: u32,
    shared_optin: u32,
}

/// The "no driver" message: the first library name cudarc tries and how many others.
fn no_driver() -> String {
    let mut names: Vec<String> = Vec::new();
    for n in cudarc::get_lib_name_candidates("cuda") {
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let first = names.first().cloned().unwrap_or_else(|| "libcuda".into());
    format!(
        "{first} could not be loaded, nor {} other names of it (install the NVIDIA driver or \
         add its directory to LD_LIBRARY_PATH)",
        names.len().saturating_sub(1)
    )
}

impl Gpu {
    /// Opens device 0 ([`open_device`](Self::open_device)).
    ///
    /// ```
    /// match codegen::gpu::Gpu::open() {
    ///     Ok(gpu) => println!("{} sm_{}{}", gpu.name(), gpu.capability().0, gpu.capability().1),
    ///     Err(e) => println!("skipped: {e}"),
    /// }
    /// ```
    pub fn open() -> Result<Gpu, GpuError> {
        Gpu::open_device(0)
    }

    /// Loads the driver (dynamically: no CUDA is needed at build time), retains device
    /// `ordinal`'s primary context and checks it is sm_90 or newer.
    ///
    /// Errors: [`GpuError::NoDriver`] (no `libcuda`, or cudarc's loader panicked),
    /// [`GpuError::Device`] (`cuInit` or the context failed, e.g. no device),
    /// [`GpuError::Capability`] (older than 9.0), [`GpuError::Panicked`] (a later query).
    ///
    /// ```
    /// use codegen::gpu::Gpu;
    /// if let Err(e) = Gpu::open_device(0) {
    ///     assert!(e.is_unavailable() || matches!(e, codegen::gpu::GpuError::Panicked { .. }));
    /// }
    /// ```
    pub fn open_device(ordinal: usize) -> Result<Gpu, GpuError> {
        // SAFETY: `is_culib_present` only tries to dlopen the candidate libraries and drops
        // whatever it opened; no driver function is called.
        if !unsafe { cudarc::driver::sys::is_culib_present() } {
            return Err(GpuError::NoDriver {
                reason: no_driver(),
            });
        }
        let ctx = guarded("CudaContext::new", || {
            CudaContext::new(ordinal).map_err(|e| GpuError::Device {
                ordinal,
                source: DriverFailure::from_driver(e),
            })
        })
        .map_err(|e| match e {
            GpuError::Panicked { message, .. } => GpuError::NoDriver { reason: message },
            e => e,
        })?;
        guarded("device queries", || {
            let device = |e| GpuError::Device {
                ordinal,
                source: DriverFailure::from_driver(e),
            };
            let name = ctx.name().map_err(device)?;
            let (major, minor) = ctx.compute_capability().map_err(device)?;
            let attribute = |a| {
                ctx.attribute(a)
                    .map(|v| u32::try_from(v).unwrap_or(0))
                    .map_err(device)
            };
            let max_threads =
                attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
            let shared_optin = attribute(
                CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
            )?;
            let capability = (
                u32::try_from(major).unwrap_or(0),
                u32::try_from(minor).unwrap_or(0),
            );
            if capability < (9, 0) {
                return Err(GpuError::Capability {
                    ordinal,
                    name,
                    major: capability.0,
                    minor: capability.1,
                });
            }
            let stream = ctx.default_stream();
            Ok(Gpu {
                ctx: ctx.clone(),
                stream,
                ordinal,
                name,
                capability,
                max_threads,
                shared_optin,
            })
        })
    }

    /// The device ordinal.
    ///
    /// ```
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert_eq!(gpu.ordinal(), 0);
    /// }
    /// ```
    pub fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The device's name, e.g. `NVIDIA H100 80GB HBM3`.
    ///
    /// ```
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert!(!gpu.name().is_empty());
    /// }
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Compute capability `(major, minor)`: `(9, 0)` for H100/H200.
    ///
    /// ```
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert!(gpu.capability() >= (9, 0));
    /// }
    /// ```
    pub fn capability(&self) -> (u32, u32) {
        self.capability
    }

    /// Threads per block the device allows (1024).
    ///
    /// ```
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert!(gpu.max_threads() >= 1024);
    /// }
    /// ```
    pub fn max_threads(&self) -> u32 {
        self.max_threads
    }

    /// Dynamic shared memory one block may opt in to (227 KiB on sm_90).
    ///
    /// ```
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert!(gpu.shared_optin() > 48 * 1024);
    /// }
    /// ```
    pub fn shared_optin(&self) -> u32 {
        self.shared_optin
    }
}
