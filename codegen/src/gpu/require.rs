//! [`require_gpu`]: the test helper that skips cleanly without a GPU.

use super::device::Gpu;
use super::GpuError;

/// Test helper: device 0, or `None` after printing `skipped: <reason>` to stderr when this
/// machine has no GPU tier ([`GpuError::is_unavailable`]: no driver, no device, older than
/// sm_90), so that a test can `return` early.
///
/// # Errors
///
/// The [`Gpu::open`] error when `REQUIRE_GPU=1` is set (a run on a GPU machine must not pass
/// by skipping), and any error that is not "unavailable" (a driver that fails after opening
/// the device).
///
/// ```
/// let Some(gpu) = codegen::gpu::require_gpu()? else { return Ok(()); };
/// assert!(gpu.capability() >= (9, 0));
/// # Ok::<(), codegen::gpu::GpuError>(())
/// ```
pub fn require_gpu() -> Result<Option<Gpu>, GpuError> {
    match Gpu::open() {
        Ok(gpu) => Ok(Some(gpu)),
        Err(e) if e.is_unavailable() && !std::env::var("REQUIRE_GPU").is_ok_and(|v| v == "1") => {
            eprintln!("skipped: {e}");
            Ok(None)
        }
        Err(e) => Err(e),
    }
}
