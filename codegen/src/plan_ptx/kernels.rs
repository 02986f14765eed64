//! [`PlanPtx`]: one kernel per allocation of a storage-alias plan, through the explicit
//! lowering's [`AddressMap`]s, and the module that holds them.

use std::collections::HashSet;
use std::fmt;

use alias_alloc::{AllocLayout, AllocPlan, CtaMode, Plan, Program, Storage};
use linear_layout::families::Tcgen05Atom;
use linear_layout::{AddressMap, LinearLayout};

use super::error::PlanPtxError;
use super::registers::store_layout;
use crate::access::BufferLowering;
use crate::access::IndexSource;
use crate::ptx::{Kernel, Module};
use crate::smem::kernels::{round_trip, TestKernel};
use crate::tmem::{self, TmemPlan};

/// How the kernels of a plan are made.
///
/// ```
/// use codegen::plan_ptx::PlanPtxOptions;
/// use linear_layout::families::Tcgen05Atom;
/// let o = PlanPtxOptions::default();
/// assert_eq!((o.num_warps, o.tmem_atom), (4, Tcgen05Atom::M32x32b));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PlanPtxOptions {
    /// Warps per CTA: the most a shared-memory allocation's [`store_layout`] uses, and the
    /// warps of every tensor-memory access (at least 4: a warpgroup covers the 128 lanes).
    pub num_warps: u32,
    /// The `tcgen05.ld/st` shape of tensor-memory accesses (Gluon's register layout for it).
    pub tmem_atom: Tcgen05Atom,
}

impl Default for PlanPtxOptions {
    fn default() -> PlanPtxOptions {
        PlanPtxOptions {
            num_warps: 4,
            tmem_atom: Tcgen05Atom::M32x32b,
        }
    }
}

/// The kernel of one allocation: a store of the whole tile to buffer `index` (the run-time
/// parameter), a barrier, and the load of it back.
///
/// ```
/// use alias_alloc::{plan_file::PlanFile, PlanOptions, Mode};
/// use codegen::plan_ptx::{AllocationKernel, PlanPtx, PlanPtxOptions};
/// let file = PlanFile::parse("[[alloc]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f16\"\nnum = 2\n")?;
/// let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
/// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
/// assert!(matches!(ptx.allocations[0].kernel, AllocationKernel::Smem(_)));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub enum AllocationKernel {
    /// Shared memory: [`round_trip`] through the allocation's [`store_layout`], with
    /// [`IndexSource::Param`] (`.param .u64 out`, `.param .u32 index`), sm_90a.
    Smem(Box<TestKernel>),
    /// Tensor memory: [`tmem::roundtrip_kernel`] through Gluon's register layout for
    /// [`PlanPtxOptions::tmem_atom`], with [`IndexSource::Param`]
    /// (`.param .u64 out`, `.param .u32 buffer`), sm_100a.
    Tmem {
        /// The kernel.
        kernel: Box<Kernel>,
        /// The store and load plan.
        plan: Box<TmemPlan>,
    },
}

/// One allocation's kernel and what it was made from.
///
/// ```
/// use alias_alloc::{plan_file::PlanFile, PlanOptions, Mode};
/// use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
/// let file = PlanFile::parse("[[alloc]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f16\"\nnum = 2\n")?;
/// let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
/// let a = &PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?.allocations[0];
/// assert_eq!((a.allocation.as_str(), a.kernel().name.as_str()), ("x", "x_roundtrip"));
/// assert_eq!(a.map.buffer().num_buffers(), 2);
/// assert_eq!(a.layout().in_dim_size("warp")?, 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct AllocationPtx {
    /// The allocation's name.
    pub allocation: String,
    /// Its explicit address map (every buffer).
    pub map: AddressMap,
    /// The kernel.
    pub kernel: AllocationKernel,
}

impl AllocationPtx {
    /// The kernel's PTX IR.
    ///
    /// ```
    /// # use alias_alloc::{plan_file::PlanFile, PlanOptions, Mode};
    /// # use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
    /// # let file = PlanFile::parse("[[alloc]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f16\"\nnum = 2\n")?;
    /// # let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
    /// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
    /// assert_eq!(ptx.allocations[0].kernel().target, codegen::ptx::Target::Sm90a);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn kernel(&self) -> &Kernel {
        match &self.kernel {
            AllocationKernel::Smem(k) => &k.kernel,
            AllocationKernel::Tmem { kernel, .. } => kernel,
        }
    }

    /// The register layout the tile is stored and loaded through.
    ///
    /// ```
    /// # use alias_alloc::{plan_file::PlanFile, PlanOptions, Mode};
    /// # use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
    /// # let file = PlanFile::parse("[[alloc]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f16\"\nnum = 2\n")?;
    /// # let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
    /// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
    /// assert_eq!(ptx.allocations[0].layout().in_dim_size("register")?, 32); // 4096 / 128 threads
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &LinearLayout {
        match &self.kernel {
            AllocationKernel::Smem(k) => match &k.kind {
                crate::smem::kernels::TestKind::RoundTrip { store, .. } => store,
                crate::smem::kernels::TestKind::Access { regs, .. }
                | crate::smem::kernels::TestKind::AddressDump { regs, .. }
                | crate::smem::kernels::TestKind::Tile { regs, .. } => regs,
            },
            AllocationKernel::Tmem { plan, .. } => plan.layout(),
        }
    }
}

/// An allocation that got no kernel, and why.
///
/// ```
/// use codegen::plan_ptx::{PlanPtxError, Skipped};
/// let s = Skipped { allocation: "t".into(), error: PlanPtxError::Unsupported { allocation: "t".into(), reason: "x".into() } };
/// assert_eq!(s.error.to_string(), "allocation 't': x");
/// ```
#[derive(Debug)]
pub struct Skipped {
    /// The allocation's name.
    pub allocation: String,
    /// Why.
    pub error: PlanPtxError,
}

/// The PTX of a plan's accesses under its explicit lowering: for every allocation with an
/// [`AddressMap`], a kernel that stores the whole tile to the buffer chosen at run time and
/// loads it back ([`AllocationKernel`]); all of them in one [`Module`] (sm_100a when any is a
/// tensor-memory kernel). `Display` prints a comment per kernel and per skipped allocation,
/// then the module.
///
/// ```
/// use alias_alloc::{plan_file::PlanFile, Mode, PlanOptions};
/// use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
/// let toml = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/flash_attention.toml"))?;
/// let file = PlanFile::parse(&toml)?;
/// let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
/// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
/// let names: Vec<_> = ptx.allocations.iter().map(|a| a.kernel().name.as_str()).collect();
/// assert_eq!(names, ["qk_roundtrip", "p_roundtrip", "alpha_roundtrip", "l_roundtrip", "m_roundtrip"]);
/// assert!(ptx.skipped.is_empty());
/// assert_eq!(ptx.module().target(), codegen::ptx::Target::Sm100a);
/// assert!(ptx.to_string().contains("tcgen05.st.sync.aligned.32x32b"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct PlanPtx {
    /// The allocations that got a kernel, in plan order.
    pub allocations: Vec<AllocationPtx>,
    /// The allocations that did not.
    pub skipped: Vec<Skipped>,
    module: Module,
}

impl PlanPtx {
    /// The kernels of `plan` (a plan of `program`). An allocation the emitters refuse is
    /// listed in [`PlanPtx::skipped`] with its error.
    ///
    /// Errors: [`PlanPtxError::Alloc`] when `plan` names an allocation `program` does not
    /// have; [`PlanPtxError::Ptx`] when the kernels cannot share a module.
    ///
    /// ```
    /// use alias_alloc::{plan_file::PlanFile, Mode, PlanOptions};
    /// use codegen::plan_ptx::{PlanPtx, PlanPtxError, PlanPtxOptions};
    /// // TLX gives 8-bit tensor-memory tiles a placeholder layout: nothing to emit.
    /// let file = PlanFile::parse("[[spec]]\nname = \"t\"\nstorage = \"tmem\"\n\
    ///     [[alloc]]\nname = \"q\"\nshape = [128, 64]\ndtype = \"i8\"\nnum = 1\nspec = \"t\"\n")?;
    /// let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
    /// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
    /// assert!(ptx.allocations.is_empty());
    /// assert!(matches!(ptx.skipped[0].error, PlanPtxError::Unsupported { .. }));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(
        program: &Program,
        plan: &Plan,
        options: &PlanPtxOptions,
    ) -> Result<PlanPtx, PlanPtxError> {
        let mut allocations = Vec::new();
        let mut skipped = Vec::new();
        let mut names = HashSet::new();
        for a in &plan.allocs {
            let name = kernel_name(&a.name, &mut names);
            match allocation_kernel(program, a, &name, options)? {
                Ok(ptx) => allocations.push(ptx),
                Err(error) => skipped.push(Skipped {
                    allocation: a.name.clone(),
                    error,
                }),
            }
        }
        let module = Module::new(allocations.iter().map(|a| a.kernel().clone()).collect())?;
        Ok(PlanPtx {
            allocations,
            skipped,
            module,
        })
    }

    /// Every kernel in one module.
    ///
    /// ```
    /// use alias_alloc::{plan_file::PlanFile, Mode, PlanOptions};
    /// use codegen::plan_ptx::{PlanPtx, PlanPtxOptions};
    /// let file = PlanFile::parse("[[alloc]]\nname = \"x\"\nshape = [64, 64]\ndtype = \"f16\"\nnum = 2\n")?;
    /// let plan = file.program.plan(&PlanOptions::new(Mode::Intended))?;
    /// let ptx = PlanPtx::new(&file.program, &plan, &PlanPtxOptions::default())?;
    /// assert_eq!(ptx.module().kernels().len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn module(&self) -> &Module {
        &self.module
    }
}

impl fmt::Display for PlanPtx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for a in &self.allocations {
            let (space, index) = match a.kernel {
                AllocationKernel::Smem(_) => ("shared memory", "index"),
                AllocationKernel::Tmem { .. } => ("tensor memory", "buffer"),
            };
            writeln!(
                f,
                "// {}: allocation '{}' ({space}, {} buffer(s); .param .u32 {index}): {}",
                a.kernel().name,
                a.allocation,
                a.map.buffer().num_buffers(),
                a.map
            )?;
        }
        for s in &self.skipped {
            writeln!(f, "// skipped: {}", s.error)?;
        }
        writeln!(f)?;
        write!(f, "{}", self.module)
    }
}

/// `Ok(Ok(kernel))`, `Ok(Err(why not))`, or `Err` for a plan that does not fit the program.
fn allocation_kernel(
    program: &Program,
    a: &AllocPlan,
    name: &str,
    options: &PlanPtxOptions,
) -> Result<Result<AllocationPtx, PlanPtxError>, PlanPtxError> {
    let alloc = program.allocation(a.alloc)?;
    let unsupported = |reason: &str| PlanPtxError::Unsupported {
        allocation: a.name.clone(),
        reason: reason.to_string(),
    };
    let layout = match alloc.resolved_layout() {
        Ok(l) => l,
        Err(e) => return Ok(Err(PlanPtxError::Alloc(e))),
    };
    let map = match (&a.address_map, &*layout) {
        (Some(map), _) => map,
        (None, AllocLayout::DummyTmem) => {
            return Ok(Err(unsupported(
                "no tensor-memory layout (TLX's placeholder for sub-16-bit elements)",
            )))
        }
        (None, AllocLayout::TmemScales(_)) => {
            return Ok(Err(unsupported(
                "block-scale factors in tensor memory are written by tcgen05.cp, not addressed per element",
            )))
        }
        (None, AllocLayout::Tmem(_, mode)) if *mode != CtaMode::Default => {
            return Ok(Err(unsupported(
                "a two-CTA tensor-memory layout is not emitted",
            )))
        }
        (None, _) => return Ok(Err(unsupported("no explicit address map"))),
    };
    let kernel = match (alloc.storage, layout.into_owned()) {
        (Storage::Tmem, AllocLayout::Tmem(tm, CtaMode::Default)) => {
            let tmem_error = |source| PlanPtxError::Tmem {
                allocation: a.name.clone(),
                source,
            };
            let plan = TmemPlan::for_tensor_memory(
                map,
                &tm,
                &alloc.shape,
                options.tmem_atom,
                options.num_warps,
            );
            let built = plan.and_then(|plan| {
                tmem::roundtrip_kernel(name, &plan, &plan, IndexSource::Param).map(|kernel| {
                    AllocationKernel::Tmem {
                        kernel: Box::new(kernel),
                        plan: Box::new(plan),
                    }
                })
            });
            built.map_err(tmem_error)
        }
        (Storage::Tmem, _) => Err(unsupported("no tensor-memory layout the emitter takes")),
        (_, _) => store_layout(&alloc.shape, alloc.dtype.bits(), options.num_warps)
            .map_err(|source| PlanPtxError::Layout {
                allocation: a.name.clone(),
                source,
            })
            .and_then(|regs| {
                round_trip(
                    name,
                    map,
                    &regs,
                    &regs,
                    &IndexSource::Param,
                    BufferLowering::Explicit,
                )
                .map_err(|source| PlanPtxError::Smem {
                    allocation: a.name.clone(),
                    source,
                })
            })
            .map(|k| AllocationKernel::Smem(Box::new(k))),
    };
    Ok(kernel.map(|kernel| AllocationPtx {
        allocation: a.name.clone(),
        map: map.clone(),
        kernel,
    }))
}

/// `<allocation>_roundtrip` as a PTX identifier (other characters become `_`), numbered when
/// taken.
fn kernel_name(allocation: &str, taken: &mut HashSet<String>) -> String {
    let mut base: String = allocation
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '$' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if !base.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_') {
        base.insert(0, '_');
    }
    base.push_str("_roundtrip");
    let mut name = base.clone();
    let mut n = 2;
    while !taken.insert(name.clone()) {
        name = format!("{base}{n}");
        n += 1;
    }
    name
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kernel_names_are_identifiers_and_distinct() {
        let mut taken = HashSet::new();
        assert_eq!(kernel_name("a.b", &mut taken), "a_b_roundtrip");
        assert_eq!(kernel_name("a-b", &mut taken), "a_b_roundtrip2");
        assert_eq!(kernel_name("9x", &mut taken), "_9x_roundtrip");
    }
}
