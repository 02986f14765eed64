//! Turning a panic inside cudarc into a [`GpuError::Panicked`].
//!
//! cudarc loads libcuda and each driver symbol lazily and panics when either is missing
//! (`CudaContext::new` on a machine without a driver, a symbol an old driver lacks). The
//! public entry points of [`gpu`](super) run their cudarc calls through [`guarded`] so that a
//! caller gets an error instead. The default panic hook still prints the message once.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

use super::GpuError;

/// Runs `f`, turning a panic into [`GpuError::Panicked`] naming `call`.
///
/// `AssertUnwindSafe` is sound here: after a panic nothing `f` touched is observed again —
/// its captures are dropped with it, and only the error comes back.
pub(crate) fn guarded<T>(
    call: &'static str,
    f: impl FnOnce() -> Result<T, GpuError>,
) -> Result<T, GpuError> {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or_else(|payload| {
        Err(GpuError::Panicked {
            call,
            message: panic_message(payload.as_ref()),
        })
    })
}

/// The text of a panic payload (`&str` or `String`), else a placeholder.
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic without a message".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_an_error() {
        let r: Result<(), GpuError> = guarded("probe", || panic!("no libcuda here"));
        match r {
            Err(GpuError::Panicked { call, message }) => {
                assert_eq!((call, message.as_str()), ("probe", "no libcuda here"));
            }
            other => panic!("expected Panicked, got {other:?}"),
        }
        assert_eq!(guarded("ok", || Ok(3)).ok(), Some(3));
    }
}
