//! [`GpuKernel`]: a [`Kernel`]'s PTX text loaded into the device (`cuModuleLoadData`, the
//! driver's JIT), and [`device_ptx`], the text that is loaded.

use cudarc::driver::CudaFunction;
use cudarc::nvrtc::Ptx;

use super::device::Gpu;
use super::guard::guarded;
use super::{DriverFailure, GpuError};
use crate::ptx::{Kernel, ParamType, Target};

/// A kernel loaded on a [`Gpu`], ready for [`Gpu::launch`].
///
/// ```
/// use codegen::gpu::Gpu;
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("noop", Target::Sm90a)?;
/// b.ret()?;
/// if let Ok(gpu) = Gpu::open() {
///     let k = gpu.load(&b.finish()?)?;
///     assert_eq!(k.name(), "noop");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct GpuKernel {
    pub(super) function: CudaFunction,
    pub(super) name: String,
    pub(super) params: Vec<(String, ParamType)>,
    pub(super) reqntid: Option<u32>,
}

impl GpuKernel {
    /// The entry's name.
    ///
    /// ```
    /// # use codegen::ptx::{Builder, Target};
    /// # let mut b = Builder::new("noop", Target::Sm90a)?;
    /// # b.ret()?;
    /// if let Ok(gpu) = codegen::gpu::Gpu::open() {
    ///     assert_eq!(gpu.load(&b.finish()?)?.name(), "noop");
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn name(&self) -> &str {
        &self.name
    }
}

/// The PTX text [`Gpu::load`] hands the driver for a device of compute capability
/// `capability`: the kernel printed at the oldest PTX ISA version its target allows
/// ([`Target::min_version`]: 8.0 for sm_90a, so any CUDA 12 driver can JIT it), and, on a
/// device other than 9.0, with `.target sm_90` instead of `sm_90a` (the `a` suffix binds the
/// module to compute capability 9.0 exactly; the SMEM kernels use nothing arch-specific:
/// `ldmatrix`/`stmatrix` are sm_90 family instructions).
///
/// Errors: [`GpuError::Target`] for a target the device cannot run (sm_90a below 9.0,
/// sm_100a anywhere but 10.0).
///
/// ```
/// use codegen::gpu::device_ptx;
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.ret()?;
/// let k = b.finish()?;
/// assert!(device_ptx(&k, (9, 0))?.starts_with(".version 8.0\n.target sm_90a\n"));
/// assert!(device_ptx(&k, (10, 0))?.starts_with(".version 8.0\n.target sm_90\n"));
/// assert!(device_ptx(&k, (8, 0)).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn device_ptx(kernel: &Kernel, capability: (u32, u32)) -> Result<String, GpuError> {
    let (major, minor) = capability;
    let mut k = kernel.clone();
    k.version = k.target.min_version();
    let text = k.to_string();
    match k.target {
        Target::Sm90a if capability == (9, 0) => Ok(text),
        Target::Sm90a if major >= 9 => Ok(text.replacen(".target sm_90a\n", ".target sm_90\n", 1)),
        Target::Sm100a if capability == (10, 0) => Ok(text),
        target => Err(GpuError::Target {
            kernel: k.name,
            target: target.arch(),
            major,
            minor,
        }),
    }
}

impl Gpu {
    /// Loads `kernel` ([`device_ptx`] of it) with `cuModuleLoadData`, which JIT-compiles the
    /// PTX for this device, and looks up its entry.
    ///
    /// Errors: those of [`device_ptx`]; [`GpuError::NulByte`]; [`GpuError::Load`] (the driver
    /// rejected the PTX); [`GpuError::Panicked`].
    ///
    /// ```
    /// use codegen::gpu::Gpu;
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("noop", Target::Sm90a)?;
    /// b.ret()?;
    /// let kernel = b.finish()?;
    /// match Gpu::open() {
    ///     Ok(gpu) => { gpu.load(&kernel)?; }
    ///     Err(e) => eprintln!("skipped: {e}"),
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(&self, kernel: &Kernel) -> Result<GpuKernel, GpuError> {
        let text = device_ptx(kernel, self.capability())?;
        if text.contains('\0') || kernel.name.contains('\0') {
            return Err(GpuError::NulByte {
                kernel: kernel.name.clone(),
            });
        }
        let load = |e| GpuError::Load {
            kernel: kernel.name.clone(),
            source: DriverFailure::from_driver(e),
        };
        guarded("loading a module", || {
            let module = self.ctx.load_module(Ptx::from_src(text)).map_err(load)?;
            let function = module.load_function(&kernel.name).map_err(load)?;
            Ok(GpuKernel {
                function,
                name: kernel.name.clone(),
                params: kernel
                    .params
                    .iter()
                    .map(|p| (p.name.clone(), p.ty))
                    .collect(),
                reqntid: kernel.reqntid,
            })
        })
    }
}
