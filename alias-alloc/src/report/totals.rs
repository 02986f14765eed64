//! [`kernel_totals`]: a whole kernel's shared and tensor memory — every region placed where the
//! compiler places it, the totals against the target's limits, and whether they fit.
//!
//! **Shared memory** follows Triton's allocator (`lib/Analysis/Allocation.cpp`) for buffers that
//! are all live at once, as the allocations of a warp-specialized kernel are (its partitions
//! capture them): buffers sorted by size, largest first (ties in program order), each at the
//! first offset past the previous one that is a multiple of its alignment — a region's largest
//! allocation alignment (NVMMA: 128 × max phase, e.g. 1024 B for a 128-byte swizzle; 16 B by
//! default). What the compiler adds later — scratch for layout conversions and reductions —
//! is not counted: the total is the allocations', and says so.
//!
//! **Tensor memory**: each region takes what one `tcgen05.alloc` takes for it (a power of two
//! ≥ 32 columns), placed one after the other in program order, against 512 columns; the kernel
//! allocates the total rounded up to a power of two (what its PTX's `tcgen05.alloc` asks for).

use crate::capacity::tcgen05_columns;
use crate::{Plan, Storage};
use linear_layout::families::tmem::TMEM_COLUMNS;

/// Triton's default shared-memory alignment (`SharedEncodingTrait::getAlignment`).
const DEFAULT_SMEM_ALIGN: u64 = 16;

/// A region where it lands in the kernel's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    /// The region (spec or plain allocation) name.
    pub name: String,
    /// Its index in [`Plan::specs`].
    pub region: usize,
    /// First byte (SMEM) or column (TMEM).
    pub start: u64,
    /// Bytes or columns it takes (TMEM: rounded to a `tcgen05.alloc` size).
    pub size: u64,
    /// The alignment its start honours (SMEM bytes; 1 for TMEM).
    pub align: u64,
    /// Whether a reuse tree shares it among several allocations.
    pub aliased: bool,
}

/// A kernel's memory: its SMEM regions placed as Triton places buffers that are live together,
/// its TMEM regions at `tcgen05.alloc` sizes, and the totals (see [`kernel_totals`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KernelTotals {
    /// The SMEM regions, in address order.
    pub smem: Vec<Placed>,
    /// Bytes the SMEM allocations span, alignment padding included.
    pub smem_bytes: u64,
    /// The target's shared memory per block.
    pub smem_limit: u64,
    /// The TMEM regions, in column order.
    pub tmem: Vec<Placed>,
    /// Columns the TMEM regions take.
    pub tmem_columns: u64,
    /// Columns the kernel's one `tcgen05.alloc` takes: [`tmem_columns`](Self::tmem_columns)
    /// rounded up to a power of two ≥ 32, as Triton allocates them (0 without TMEM regions).
    pub tmem_allocated: u64,
    /// 512 on a target with tensor memory, 0 without.
    pub tmem_limit: u64,
}

impl KernelTotals {
    /// Whether the allocations fit the target's shared memory.
    pub fn smem_fits(&self) -> bool {
        self.smem_bytes <= self.smem_limit
    }

    /// Whether the TMEM regions fit the target's tensor memory.
    pub fn tmem_fits(&self) -> bool {
        self.tmem_columns <= self.tmem_limit
    }

    /// Both.
    pub fn fits(&self) -> bool {
        self.smem_fits() && self.tmem_fits()
    }
}

/// The kernel's totals for `plan`.
///
/// Shared memory follows Triton's allocator (`lib/Analysis/Allocation.cpp`) for buffers that
/// are all live at once, as a warp-specialized kernel's are: largest first (ties in program
/// order), each at the first offset past the previous one that is a multiple of its region's
/// alignment (NVMMA: 128 × max phase; 16 B by default). Scratch for layout conversions and
/// reductions is not counted. Tensor memory: each region at what one `tcgen05.alloc` takes for
/// it (a power of two ≥ 32 columns), in program order, against 512 columns.
///
/// ```
/// use alias_alloc::{report, DType, Mode, PlanOptions, Program, Storage};
/// let mut p = Program::new();
/// // An mbarrier array (8 B, 16-byte aligned) and a 128-byte-swizzled 32 KiB tile (1024-aligned).
/// let bar = p.alloc(alias_alloc::Allocation {
///     name: "bar".into(), shape: vec![1], dtype: DType::I64, num: 1, storage: Storage::Smem,
///     reuse: alias_alloc::Reuse::None, layout: alias_alloc::AllocLayout::Default, align: None,
/// })?;
/// let s = p.storage_alias_spec("tiles", Storage::Smem, None)?;
/// p.local_alloc("a", &[128, 128], DType::BF16, 1, s)?;
/// let t = report::kernel_totals(&p.plan(&PlanOptions::new(Mode::Intended))?);
/// // Largest first: the tile at 0, the barriers after it.
/// assert_eq!((t.smem[0].name.as_str(), t.smem[0].start), ("tiles", 0));
/// assert_eq!((t.smem[1].name.as_str(), t.smem[1].start), ("bar", 32768));
/// assert_eq!(t.smem_bytes, 32776);
/// assert!(t.fits());
/// # let _ = bar;
/// # Ok::<(), alias_alloc::AllocError>(())
/// ```
pub fn kernel_totals(plan: &Plan) -> KernelTotals {
    let mut smem: Vec<Placed> = Vec::new();
    let mut tmem: Vec<Placed> = Vec::new();
    let mut column = 0u64;
    for (region, s) in plan.specs.iter().enumerate() {
        let align = plan
            .allocs
            .iter()
            .filter(|a| a.region == region)
            .map(|a| a.alignment)
            .max()
            .unwrap_or(1);
        let placed = Placed {
            name: s.name.clone(),
            region,
            start: 0,
            size: s.backing_units,
            align,
            aliased: s.tree.is_some(),
        };
        match s.storage {
            Storage::Tmem => {
                let size = tcgen05_columns(s.backing_units);
                tmem.push(Placed {
                    start: column,
                    size,
                    align: 1,
                    ..placed
                });
                column = column.saturating_add(size);
            }
            Storage::Smem | Storage::SmemCluster => smem.push(Placed {
                align: align.max(DEFAULT_SMEM_ALIGN),
                ..placed
            }),
        }
    }
    smem.sort_by(|a, b| b.size.cmp(&a.size).then(a.region.cmp(&b.region)));
    let mut end = 0u64;
    for p in &mut smem {
        p.start = end.div_ceil(p.align).saturating_mul(p.align);
        end = p.start.saturating_add(p.size);
    }
    KernelTotals {
        smem,
        smem_bytes: end,
        smem_limit: plan.target.smem_bytes,
        tmem,
        tmem_columns: column,
        tmem_allocated: if column == 0 {
            0
        } else {
            column.max(32).checked_next_power_of_two().unwrap_or(column)
        },
        tmem_limit: if plan.target.has_tmem {
            u64::from(TMEM_COLUMNS)
        } else {
            0
        },
    }
}
