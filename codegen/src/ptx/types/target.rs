//! [`Target`] (the GPU a kernel is for) and [`PtxVersion`] (the ISA version it declares).

use std::fmt;

/// The GPU a kernel is for, ordered by age: every instruction of the subset that an older
/// target has, a newer one has too ([`Op::min_target`](crate::ptx::Op::min_target)).
///
/// ```
/// use codegen::ptx::Target;
/// assert_eq!(Target::Sm100a.to_string(), "sm_100a");
/// assert_eq!(Target::parse("sm_90a"), Some(Target::Sm90a));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Target {
    /// Hopper with the arch-specific features (`stmatrix`, `wgmma`).
    Sm90a,
    /// Blackwell datacenter with the arch-specific features (`tcgen05`, tensor memory).
    Sm100a,
}

impl Target {
    /// The name `.target` and `ptxas -arch=` use.
    ///
    /// ```
    /// use codegen::ptx::Target;
    /// assert_eq!(Target::Sm90a.arch(), "sm_90a");
    /// ```
    pub fn arch(self) -> &'static str {
        match self {
            Target::Sm90a => "sm_90a",
            Target::Sm100a => "sm_100a",
        }
    }

    /// The target called `name`.
    ///
    /// ```
    /// use codegen::ptx::Target;
    /// assert_eq!(Target::parse("sm_80"), None);
    /// ```
    pub fn parse(name: &str) -> Option<Target> {
        [Target::Sm90a, Target::Sm100a]
            .into_iter()
            .find(|t| t.arch() == name)
    }

    /// The oldest PTX ISA version with this target: 8.0 for sm_90a, 8.6 for sm_100a
    /// (`tcgen05` arrived in 8.6; ptxas 13.5 rejects it under 8.0).
    ///
    /// ```
    /// use codegen::ptx::{PtxVersion, Target};
    /// assert_eq!(Target::Sm100a.min_version(), PtxVersion::new(8, 6));
    /// ```
    pub fn min_version(self) -> PtxVersion {
        match self {
            Target::Sm90a => PtxVersion::new(8, 0),
            Target::Sm100a => PtxVersion::new(8, 6),
        }
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.arch())
    }
}

/// A PTX ISA version, printed `8.7`.
///
/// [`PtxVersion::DEFAULT`] is 8.7: the first version of CUDA 12.8's ptxas era that has both
/// targets and every instruction of the subset; ptxas 12.9 and 13.x accept it (13.5 accepts
/// 8.6 through 9.5 for `tcgen05`).
///
/// ```
/// use codegen::ptx::PtxVersion;
/// assert_eq!(PtxVersion::DEFAULT.to_string(), "8.7");
/// assert!(PtxVersion::new(8, 6) < PtxVersion::new(9, 0));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct PtxVersion {
    /// Major version.
    pub major: u8,
    /// Minor version (one digit in every released ISA).
    pub minor: u8,
}

impl PtxVersion {
    /// PTX ISA 8.7.
    pub const DEFAULT: PtxVersion = PtxVersion { major: 8, minor: 7 };

    /// `major.minor`.
    ///
    /// ```
    /// use codegen::ptx::PtxVersion;
    /// assert_eq!(PtxVersion::new(9, 0).major, 9);
    /// ```
    pub fn new(major: u8, minor: u8) -> PtxVersion {
        PtxVersion { major, minor }
    }
}

impl Default for PtxVersion {
    fn default() -> PtxVersion {
        PtxVersion::DEFAULT
    }
}

impl fmt::Display for PtxVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}
