//! Launching a [`GpuKernel`] with the interpreter's inputs ([`Config`], [`ParamValue`]s) and
//! reading its global buffers back: the GPU counterpart of [`interp::run`](crate::interp::run).

use cudarc::driver::sys::CUfunction_attribute;
use cudarc::driver::{CudaSlice, LaunchConfig, PushKernelArg};

use super::device::Gpu;
use super::guard::guarded;
use super::module::GpuKernel;
use super::{DriverFailure, GpuError};
use crate::interp::{Config, ParamValue};
use crate::ptx::ParamType;
use crate::smem::kernels::TestKernel;

/// Dynamic shared memory a block gets without opting in.
const DEFAULT_SHARED: u32 = 48 * 1024;

/// One kernel argument on the device.
enum Arg {
    Buffer { slice: CudaSlice<u8>, len: usize },
    U32(u32),
    U64(u64),
}

/// `what` of a parameter value, for messages.
fn value_kind(v: &ParamValue) -> &'static str {
    match v {
        ParamValue::U32(_) => "a .u32 scalar",
        ParamValue::U64(_) => "a .u64 scalar",
        ParamValue::Buffer(_) => "a buffer",
    }
}

/// Checks `params` against the kernel's `.param`s and `config` against `.reqntid` and the
/// device.
fn check(
    gpu: &Gpu,
    kernel: &GpuKernel,
    config: &Config,
    params: &[ParamValue],
) -> Result<(), GpuError> {
    let fail = |reason: String| GpuError::Params {
        kernel: kernel.name.clone(),
        reason,
    };
    if params.len() != kernel.params.len() {
        return Err(fail(format!(
            "{} parameter values for {} parameters",
            params.len(),
            kernel.params.len()
        )));
    }
    for (k, ((name, ty), value)) in kernel.params.iter().zip(params).enumerate() {
        let fits = matches!(
            (ty, value),
            (ParamType::U32, ParamValue::U32(_))
                | (ParamType::U64, ParamValue::U64(_) | ParamValue::Buffer(_))
        );
        if !fits {
            return Err(fail(format!(
                "parameter {k} ({name}) is {}, given {}",
                ty.suffix(),
                value_kind(value)
            )));
        }
    }
    let threads = |reason: String| GpuError::Threads {
        kernel: kernel.name.clone(),
        threads: config.threads,
        reason,
    };
    if config.threads == 0 || config.threads > gpu.max_threads() {
        return Err(threads(format!(
            "the device allows 1..={}",
            gpu.max_threads()
        )));
    }
    if let Some(n) = kernel.reqntid.filter(|&n| n != config.threads) {
        return Err(threads(format!("the kernel's .reqntid is {n}")));
    }
    if config.dynamic_shared_bytes > gpu.shared_optin() {
        return Err(GpuError::SharedMemory {
            kernel: kernel.name.clone(),
            bytes: config.dynamic_shared_bytes,
            limit: gpu.shared_optin(),
        });
    }
    Ok(())
}

impl Gpu {
    /// Runs `kernel` as one block of `config.threads` threads with
    /// `config.dynamic_shared_bytes` of dynamic shared memory (opting in above 48 KiB), with
    /// `params` in order (each [`ParamValue::Buffer`] copied to a fresh device buffer whose
    /// address is the `.u64` argument), waits for it, and returns every buffer's bytes
    /// afterwards, in parameter order — what [`Outcome::buffers`](crate::interp::Outcome)
    /// holds after [`interp::run`](crate::interp::run). `config.shared_base` and
    /// `shared_limit` are the interpreter's model of the hardware and are not used.
    ///
    /// Errors: [`GpuError::Params`], [`GpuError::Threads`], [`GpuError::SharedMemory`]
    /// (checked before anything runs); [`GpuError::Driver`] (allocation, copies, the launch,
    /// or a fault while the kernel ran); [`GpuError::Panicked`].
    ///
    /// ```
    /// use codegen::gpu::Gpu;
    /// use codegen::interp::{Config, ParamValue};
    /// use codegen::ptx::{Builder, DataType, ParamType, SpecialReg, StateSpace, Target, Width, Address};
    /// // out[tid] = tid
    /// let mut b = Builder::new("iota", Target::Sm90a)?;
    /// b.param("out", ParamType::U64)?;
    /// let base = b.global_pointer("out")?;
    /// let tid = b.special(SpecialReg::TidX)?;
    /// let off = b.mul_wide_u32(tid, 4)?;
    /// let at = b.add(codegen::ptx::IntType::U64, base, off)?;
    /// b.st(StateSpace::Global, DataType::B32, Address::new(at, 0), &[tid])?;
    /// b.ret()?;
    /// let kernel = b.finish()?;
    /// if let Ok(gpu) = Gpu::open() {
    ///     let out = gpu.launch(&gpu.load(&kernel)?, &Config::new(64), &[ParamValue::Buffer(vec![0; 256])])?;
    ///     assert_eq!(&out[0][20..24], &5u32.to_le_bytes());
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn launch(
        &self,
        kernel: &GpuKernel,
        config: &Config,
        params: &[ParamValue],
    ) -> Result<Vec<Vec<u8>>, GpuError> {
        check(self, kernel, config, params)?;
        let driver = |call: &'static str| {
            let name = kernel.name.clone();
            move |e| GpuError::Driver {
                kernel: name,
                call,
                source: DriverFailure::from_driver(e),
            }
        };
        guarded("launching a kernel", || {
            let bytes = config.dynamic_shared_bytes;
            if bytes > DEFAULT_SHARED {
                kernel
                    .function
                    .set_attribute(
                        CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                        i32::try_from(bytes).unwrap_or(i32::MAX),
                    )
                    .map_err(driver("opting in to dynamic shared memory"))?;
            }
            let mut args = Vec::with_capacity(params.len());
            for value in params {
                args.push(match value {
                    ParamValue::U32(v) => Arg::U32(*v),
                    ParamValue::U64(v) => Arg::U64(*v),
                    ParamValue::Buffer(data) => {
                        // Never a zero-byte allocation; the padding is not read back.
                        let mut padded = data.clone();
                        padded.resize(data.len().max(16), 0);
                        let slice = self
                            .stream
                            .clone_htod(&padded)
                            .map_err(driver("copying a buffer to the device"))?;
                        Arg::Buffer {
                            slice,
                            len: data.len(),
                        }
                    }
                });
            }
            {
                let mut builder = self.stream.launch_builder(&kernel.function);
                for arg in args.iter_mut() {
                    match arg {
                        Arg::Buffer { slice, .. } => builder.arg(slice),
                        Arg::U32(v) => builder.arg(&*v),
                        Arg::U64(v) => builder.arg(&*v),
                    };
                }
                let cfg = LaunchConfig {
                    grid_dim: (1, 1, 1),
                    block_dim: (config.threads, 1, 1),
                    shared_mem_bytes: bytes,
                };
                // SAFETY: `check` matched every argument to the kernel's `.param`s in number
                // and type (a `.u64` pointer gets a device buffer, a scalar its value), the
                // values outlive the launch (the stream is synchronised below before `args`
                // is read or dropped), and the block fits the device. A kernel that writes
                // outside its buffer faults on the device, which the synchronisation reports
                // as an error; it cannot reach host memory.
                unsafe { builder.launch(cfg) }.map_err(driver("cuLaunchKernel"))?;
            }
            self.stream
                .synchronize()
                .map_err(driver("running the kernel (stream synchronisation)"))?;
            let mut out = Vec::new();
            for arg in &args {
                if let Arg::Buffer { slice, len } = arg {
                    let mut bytes = self
                        .stream
                        .clone_dtoh(slice)
                        .map_err(driver("copying a buffer back"))?;
                    bytes.truncate(*len);
                    out.push(bytes);
                }
            }
            Ok(out)
        })
    }

    /// Runs a [`TestKernel`] (loaded with [`Gpu::load`] from `test.kernel`) with buffer index
    /// `index` (for a run-time index) and returns its `out` as `u32` words, to compare with
    /// [`TestKernel::expected_out`].
    ///
    /// Errors: those of [`Gpu::launch`].
    ///
    /// ```
    /// use codegen::access::BufferLowering;
    /// use codegen::gpu::Gpu;
    /// use codegen::smem::kernels::round_trip;
    /// use codegen::access::IndexSource;
    /// use linear_layout::{AddressMap, BufferMap, LinearLayout};
    /// let smem = LinearLayout::identity_1d(64, "offset", "dim0")?;
    /// let map = AddressMap::shared(BufferMap::new(0, &[])?, 16, &smem)?;
    /// let lanes = |s: u64| (0..5).map(|k| vec![s << k]).collect::<Vec<_>>();
    /// let pairs = LinearLayout::from_bases(&[("register", vec![vec![1]]), ("lane", lanes(2))], &[("dim0", 64)], true)?;
    /// let k = round_trip("rt", &map, &pairs, &pairs, &IndexSource::Const(vec![0]), BufferLowering::Explicit)?;
    /// if let Ok(gpu) = Gpu::open() {
    ///     assert_eq!(gpu.run_test(&gpu.load(&k.kernel)?, &k, None)?, k.expected_out(None)?);
    /// }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run_test(
        &self,
        loaded: &GpuKernel,
        test: &TestKernel,
        index: Option<u32>,
    ) -> Result<Vec<u32>, GpuError> {
        let buffers = self.launch(loaded, &test.config(), &test.params(index))?;
        let out = buffers.into_iter().next().unwrap_or_default();
        Ok(out
            .chunks_exact(4)
            .map(|c| c.iter().rev().fold(0u32, |w, &b| w << 8 | u32::from(b)))
            .collect())
    }
}
