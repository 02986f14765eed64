//! [`GpuError`]: why the GPU tier could not open a device, load a kernel or run it.

use cudarc::driver::DriverError;
use thiserror::Error;

/// A CUDA driver error, rendered when it happened: formatting cudarc's `DriverError` calls
/// back into the driver (`cuGetErrorString`), which a [`GpuError`] must not need later.
///
/// ```
/// use codegen::gpu::DriverFailure;
/// let f = DriverFailure { code: 100, name: "CUDA_ERROR_NO_DEVICE".into(), description: "no CUDA-capable device is detected".into() };
/// assert_eq!(f.to_string(), "CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected");
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{name} ({code}): {description}")]
pub struct DriverFailure {
    /// The `CUresult` value.
    pub code: u32,
    /// `cuGetErrorName`, e.g. `CUDA_ERROR_INVALID_PTX`.
    pub name: String,
    /// `cuGetErrorString`.
    pub description: String,
}

impl DriverFailure {
    /// Renders `e` now, while the driver is loaded (call it inside a guarded closure: a
    /// driver without `cuGetErrorName` makes cudarc panic).
    pub(crate) fn from_driver(e: DriverError) -> DriverFailure {
        let code = e.0 as u32;
        let text = |r: Result<&std::ffi::CStr, DriverError>| {
            r.map(|c| c.to_string_lossy().into_owned()).ok()
        };
        DriverFailure {
            code,
            name: text(e.error_name()).unwrap_or_else(|| format!("CUresult {code}")),
            description: text(e.error_string()).unwrap_or_default(),
        }
    }
}

/// Why a GPU operation failed. [`is_unavailable`](Self::is_unavailable) separates "this
/// machine cannot run the GPU tier" (no driver, no device, too old a device: tests skip) from
/// real failures (a kernel the driver rejects, a launch that faults).
///
/// ```
/// use codegen::gpu::GpuError;
/// let e = GpuError::Capability { ordinal: 0, name: "Tesla V100".into(), major: 7, minor: 0 };
/// assert!(e.is_unavailable());
/// assert!(e.to_string().contains("sm_70"));
/// ```
#[derive(Debug, Error)]
pub enum GpuError {
    /// No CUDA driver library (`libcuda.so*`) could be loaded, or loading it panicked.
    #[error("no CUDA driver: {reason}")]
    NoDriver {
        /// What was tried, or the loader's panic message.
        reason: String,
    },
    /// The driver is there but device `ordinal` cannot be opened (`cuInit` or the primary
    /// context failed: no device, a stub library, a driver/kernel-module mismatch).
    #[error("no usable CUDA device {ordinal}: {source}")]
    Device {
        /// The device asked for.
        ordinal: usize,
        /// The driver's error.
        #[source]
        source: DriverFailure,
    },
    /// The device is older than sm_90 (Hopper), which the emitted kernels need.
    #[error("device {ordinal} ({name}) is sm_{major}{minor}; the GPU tier needs compute capability 9.0 or newer")]
    Capability {
        /// The device.
        ordinal: usize,
        /// Its name.
        name: String,
        /// Compute capability, major.
        major: u32,
        /// Compute capability, minor.
        minor: u32,
    },
    /// The kernel's target cannot run on this device (an sm_100a kernel on Hopper).
    #[error("kernel {kernel} targets {target}, which does not run on an sm_{major}{minor} device")]
    Target {
        /// The kernel.
        kernel: String,
        /// Its `.target`.
        target: &'static str,
        /// Device compute capability, major.
        major: u32,
        /// Device compute capability, minor.
        minor: u32,
    },
    /// The PTX text holds a NUL byte, which `cuModuleLoadData` cannot take.
    #[error("kernel {kernel}: its PTX text contains a NUL byte")]
    NulByte {
        /// The kernel.
        kernel: String,
    },
    /// The driver rejected the module (JIT of the PTX) or has no such entry.
    #[error("kernel {kernel}: loading the PTX module failed: {source}")]
    Load {
        /// The kernel.
        kernel: String,
        /// The driver's error.
        #[source]
        source: DriverFailure,
    },
    /// The launch's parameter values do not match the kernel's `.param`s.
    #[error("kernel {kernel}: {reason}")]
    Params {
        /// The kernel.
        kernel: String,
        /// Which parameter and how it differs.
        reason: String,
    },
    /// A block size the kernel or the device does not allow.
    #[error("kernel {kernel}: {threads} threads per block ({reason})")]
    Threads {
        /// The kernel.
        kernel: String,
        /// Threads asked for.
        threads: u32,
        /// The bound broken: `.reqntid` or the device limit.
        reason: String,
    },
    /// More dynamic shared memory than the device grants one block (its opt-in limit).
    #[error("kernel {kernel}: {bytes} bytes of dynamic shared memory, the device allows {limit} per block")]
    SharedMemory {
        /// The kernel.
        kernel: String,
        /// Bytes asked for.
        bytes: u32,
        /// The device's `MAX_SHARED_MEMORY_PER_BLOCK_OPTIN`.
        limit: u32,
    },
    /// A driver call around a launch failed: allocation, copy, attribute, launch or the
    /// kernel's execution (a fault shows up at the synchronisation after the launch).
    #[error("kernel {kernel}: {call} failed: {source}")]
    Driver {
        /// The kernel.
        kernel: String,
        /// What was being done.
        call: &'static str,
        /// The driver's error.
        #[source]
        source: DriverFailure,
    },
    /// A cudarc call panicked (a driver symbol missing from an old driver, a failed
    /// assertion inside cudarc); the panic was caught and is reported here.
    #[error("{call} panicked: {message}")]
    Panicked {
        /// The operation.
        call: &'static str,
        /// The panic message.
        message: String,
    },
}

impl GpuError {
    /// Whether the error means "no GPU tier on this machine" ([`NoDriver`](Self::NoDriver),
    /// [`Device`](Self::Device), [`Capability`](Self::Capability)): tests skip on these
    /// unless `REQUIRE_GPU=1`. Everything else is a failure of the kernel or the driver.
    ///
    /// ```
    /// use codegen::gpu::GpuError;
    /// assert!(GpuError::NoDriver { reason: "libcuda.so not found".into() }.is_unavailable());
    /// assert!(!GpuError::NulByte { kernel: "k".into() }.is_unavailable());
    /// ```
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            GpuError::NoDriver { .. } | GpuError::Device { .. } | GpuError::Capability { .. }
        )
    }
}
