//! [`Module`]: several kernels in one PTX file — one header for the newest target and ISA
//! version among them, each module-level `.shared` variable declared once, then every
//! `.entry` in order.

use std::collections::HashSet;
use std::fmt;

use super::display;
use super::error::PtxError;
use super::kernel::{Kernel, SharedVar};
use super::types::{PtxVersion, Target};

/// Kernels printed as one PTX module that ptxas assembles in one run.
///
/// Every kernel keeps its own `.version`/`.target` in [`Module::kernels`]; the module prints
/// the newest of each (sm_100a accepts the sm_90a subset, so an sm_90a kernel may share a
/// module with an sm_100a one). A `.shared` variable several kernels declare must be
/// declared the same way by all of them.
///
/// ```
/// use codegen::ptx::{Builder, Module, Target};
/// let kernel = |name: &str, target| -> Result<_, codegen::ptx::PtxError> {
///     let mut b = Builder::new(name, target)?;
///     b.extern_shared("smem", 1024)?;
///     b.ret()?;
///     b.finish()
/// };
/// let m = Module::new(vec![kernel("a", Target::Sm90a)?, kernel("b", Target::Sm100a)?])?;
/// let text = m.to_string();
/// assert_eq!(m.target(), Target::Sm100a);
/// assert_eq!(text.matches(".target").count(), 1);
/// assert_eq!(text.matches(".extern .shared .align 1024 .b8 smem[];").count(), 1);
/// assert_eq!(text.matches(".visible .entry").count(), 2);
/// assert!(Module::new(vec![kernel("a", Target::Sm90a)?, kernel("a", Target::Sm90a)?]).is_err());
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Module {
    kernels: Vec<Kernel>,
    shared: Vec<SharedVar>,
}

impl Module {
    /// The module of `kernels`, in order.
    ///
    /// Errors: [`PtxError::DuplicateName`] for two kernels of the same name,
    /// [`PtxError::SharedDecl`] for a `.shared` variable declared differently by two kernels.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Module, PtxError, Target};
    /// let mut a = Builder::new("a", Target::Sm90a)?;
    /// a.extern_shared("smem", 1024)?;
    /// a.ret()?;
    /// let mut b = Builder::new("b", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// b.ret()?;
    /// let err = Module::new(vec![a.finish()?, b.finish()?]).unwrap_err();
    /// assert!(matches!(err, PtxError::SharedDecl { .. }));
    /// # Ok::<(), PtxError>(())
    /// ```
    pub fn new(kernels: Vec<Kernel>) -> Result<Module, PtxError> {
        let mut names = HashSet::new();
        let mut shared: Vec<SharedVar> = Vec::new();
        for k in &kernels {
            if !names.insert(k.name.as_str()) {
                return Err(PtxError::DuplicateName {
                    what: "kernel",
                    name: k.name.clone(),
                });
            }
            for s in &k.shared {
                match shared.iter().find(|d| d.name == s.name) {
                    Some(d) if d == s => {}
                    Some(d) => {
                        return Err(PtxError::SharedDecl {
                            name: s.name.clone(),
                            reason: format!(
                                "kernel '{}' declares `{s}`, an earlier kernel `{d}`",
                                k.name
                            ),
                        })
                    }
                    None => shared.push(s.clone()),
                }
            }
        }
        Ok(Module { kernels, shared })
    }

    /// The kernels, in order.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Module, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.ret()?;
    /// assert_eq!(Module::new(vec![b.finish()?])?.kernels()[0].name, "k");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn kernels(&self) -> &[Kernel] {
        &self.kernels
    }

    /// The `.target` printed: sm_100a if any kernel targets it, else sm_90a.
    ///
    /// ```
    /// use codegen::ptx::{Module, Target};
    /// assert_eq!(Module::new(vec![])?.target(), Target::Sm90a);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn target(&self) -> Target {
        if self.kernels.iter().any(|k| k.target == Target::Sm100a) {
            Target::Sm100a
        } else {
            Target::Sm90a
        }
    }

    /// The `.version` printed: the newest of the kernels' versions and the target's minimum.
    ///
    /// ```
    /// use codegen::ptx::{Module, PtxVersion};
    /// assert_eq!(Module::new(vec![])?.version(), PtxVersion::new(8, 0));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn version(&self) -> PtxVersion {
        self.kernels
            .iter()
            .map(|k| k.version)
            .fold(self.target().min_version(), PtxVersion::max)
    }
}

impl fmt::Display for Module {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        display::header(f, self.version(), self.target())?;
        if !self.shared.is_empty() {
            for s in &self.shared {
                writeln!(f, "{s}")?;
            }
            writeln!(f)?;
        }
        for (i, k) in self.kernels.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            display::entry(f, k)?;
        }
        Ok(())
    }
}
