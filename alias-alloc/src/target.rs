//! [`Target`]: the memory a GPU generation gives one thread block.

use std::fmt;
use std::str::FromStr;

use crate::AllocError;

/// A compilation target: its shared-memory limit per block (opt-in maximum) and whether it has
/// tensor memory.
///
/// ```
/// use alias_alloc::Target;
/// let t: Target = "sm_90".parse()?;
/// assert_eq!(t.smem_bytes, 227 * 1024);
/// assert!(!t.has_tmem);
/// assert!("sm_100".parse::<Target>()?.has_tmem);
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    /// Compute capability × 10 (80, 90, 100, 120).
    pub sm: u32,
    /// Largest dynamic shared memory per block, in bytes.
    pub smem_bytes: u64,
    /// Whether the target has tensor memory (512 columns × 128 lanes per CTA).
    pub has_tmem: bool,
}

impl Target {
    /// Ampere A100: 163 KiB.
    pub const SM80: Target = Target {
        sm: 80,
        smem_bytes: 163 * 1024,
        has_tmem: false,
    };
    /// Hopper H100/H200: 227 KiB.
    pub const SM90: Target = Target {
        sm: 90,
        smem_bytes: 227 * 1024,
        has_tmem: false,
    };
    /// Blackwell B200: 227 KiB and tensor memory.
    pub const SM100: Target = Target {
        sm: 100,
        smem_bytes: 227 * 1024,
        has_tmem: true,
    };
    /// Blackwell RTX (sm_120): 99 KiB, no tensor memory.
    pub const SM120: Target = Target {
        sm: 120,
        smem_bytes: 99 * 1024,
        has_tmem: false,
    };
}

impl Default for Target {
    /// sm_100: TLX's storage aliasing is a Blackwell feature.
    fn default() -> Self {
        Target::SM100
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sm_{}", self.sm)
    }
}

impl FromStr for Target {
    type Err = AllocError;

    fn from_str(s: &str) -> Result<Self, AllocError> {
        let digits = s.trim().trim_start_matches("sm_").trim_end_matches('a');
        match digits {
            "80" => Ok(Target::SM80),
            "90" => Ok(Target::SM90),
            "100" => Ok(Target::SM100),
            "120" => Ok(Target::SM120),
            _ => Err(AllocError::Input(format!(
                "unknown target '{s}' (expected sm_80, sm_90, sm_100 or sm_120)"
            ))),
        }
    }
}
