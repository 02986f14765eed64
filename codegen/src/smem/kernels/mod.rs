//! Whole `.entry` kernels around the emitter, for the interpreter, ptxas and (later) a GPU:
//!
//! * [`round_trip`]: every thread stores its registers of one layout (each element's value is
//!   its row-major linear index), `bar.sync`, reloads through another (or the same) layout and
//!   writes every loaded register to global memory;
//! * [`address_dump`]: performs one layout's accesses and writes each access's computed
//!   address (relative to the shared array) to global memory;
//! * [`Probe`]: one warp-level shared access at chosen per-lane offsets, for the hardware's
//!   counters;
//! * tile kernels ([`tile_store`], [`tile_load`], [`tile_round_trip`],
//!   [`tile_round_trip_in_rounds`]): Triton's benchmark kernels like for like, the tile read
//!   from and written to a row-major tensor in global memory.
//!
//! All declare `.extern .shared .align 1024 .b8 smem[]`; all but the tile kernels `.param .u64 out` and, for a
//! run-time index, `.param .u32 index`; `out` holds `u32` words, thread `t`'s block of words
//! starting at `t · words_per_thread`. [`TestKernel::expected_out`] computes what `out` must
//! hold from the [`AddressMap`] and the layouts alone, not from the emitter.
//!
//! ```
//! use codegen::access::BufferLowering;
//! use codegen::interp::run;
//! use codegen::smem::kernels::round_trip;
//! use codegen::access::IndexSource;
//! use linear_layout::{AddressMap, BufferMap, families::{Blocked, SwizzledShared}};
//! let blocked = |spt: Vec<u32>, tpw: Vec<u32>| Blocked { size_per_thread: spt, threads_per_warp: tpw,
//!     warps_per_cta: vec![2, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[32, 32]);
//! let smem = SwizzledShared::new(4, 1, 8, vec![1, 0], vec![])?.to_linear_layout(&[32, 32])?;
//! let map = AddressMap::shared(BufferMap::new(0, &[(2, 4096)])?, 32, &smem)?;
//! let k = round_trip("rt", &map, &blocked(vec![1, 4], vec![4, 8])?, &blocked(vec![2, 1], vec![16, 2])?,
//!                    &IndexSource::Const(vec![1]), BufferLowering::Explicit)?;
//! let out = run(&k.kernel, &k.config(), &k.params(None))?;
//! assert_eq!(out.buffers[0], k.expected_out(None)?.iter().flat_map(|w| w.to_le_bytes()).collect::<Vec<_>>());
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod expect;
mod probe;
mod tile;

use expect::linear_index_layout;
pub use expect::{coordinates, expected_address, linear_index, Coordinates};
pub use probe::{Probe, ProbeAccess};
pub use tile::{tile_load, tile_round_trip, tile_round_trip_in_rounds, tile_store, TILE_PARAMS};

use linear_layout::{AddressMap, BufferMap, Dim, LinearLayout};

use super::buffer::tlx_offset;
use super::emit::{Emitted, SmemContext};
use super::error::SmemError;
use super::plan::SmemPlan;
use super::thread::TidLinear;
use crate::access::{Access, BufferIndex, BufferLowering, IndexSource, MemoryOp};
use crate::interp::{Config, ParamValue};
use crate::ptx::{
    Address, Builder, DataType, IntType, Kernel, ParamType, Reg, RegType, Role, StateSpace, Target,
};

/// The dynamic shared array's name and alignment.
///
/// ```
/// assert_eq!(codegen::smem::kernels::SMEM, "smem");
/// ```
pub const SMEM: &str = "smem";
/// `.align` of [`SMEM`].
///
/// ```
/// assert_eq!(codegen::smem::kernels::SMEM_ALIGN, 1024);
/// ```
pub const SMEM_ALIGN: u32 = 1024;

/// What a test kernel does, with the layouts needed to predict its output.
///
/// ```
/// # use codegen::access::{BufferLowering, MemoryOp};
/// # use codegen::smem::kernels::address_dump;
/// # use codegen::access::IndexSource;
/// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
/// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
/// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
/// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
/// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
/// assert!(matches!(k.kind, codegen::smem::kernels::TestKind::AddressDump { op: MemoryOp::Store, .. }));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub enum TestKind {
    /// [`round_trip`]: stored through `store`, reloaded through `load`.
    RoundTrip {
        /// The storing layout.
        store: LinearLayout,
        /// The loading layout.
        load: LinearLayout,
    },
    /// [`access_kernel`]: `regs` moved between global `data` and shared memory.
    Access {
        /// The layout.
        regs: LinearLayout,
        /// Load or store.
        op: MemoryOp,
    },
    /// [`address_dump`] of `regs`.
    AddressDump {
        /// The layout.
        regs: LinearLayout,
        /// Load or store.
        op: MemoryOp,
    },
    /// A tile kernel ([`tile_store`], [`tile_load`], [`tile_round_trip`],
    /// [`tile_round_trip_in_rounds`]): `in_ptr` holds the tensor row-major (each element its
    /// linear index, truncated to the element width) and `out_ptr` receives it.
    Tile {
        /// The layout (of one round) of the first shared access: the store's, or a load-only
        /// kernel's load.
        regs: LinearLayout,
        /// What the first shared access does.
        op: MemoryOp,
        /// A round trip's load layout (of one round).
        reload: Option<LinearLayout>,
        /// `log2` of the rounds (0: one pass through the whole tile).
        rounds_log2: u32,
        /// Elements of the whole tensor.
        elements: u64,
    },
}

/// One emission of a test kernel: which buffer index (for a constant) and what it emitted.
///
/// ```
/// # use codegen::access::{BufferLowering, MemoryOp};
/// # use codegen::smem::kernels::address_dump;
/// # use codegen::access::IndexSource;
/// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
/// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
/// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
/// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
/// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
/// assert_eq!((k.emissions[0].role, k.emissions[0].index), ("store", None));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Emission {
    /// `"store"` or `"load"`.
    pub role: &'static str,
    /// The constant index, `None` for the run-time one.
    pub index: Option<u64>,
    /// The plan it came from.
    pub plan: SmemPlan,
    /// What the emitter added.
    pub emitted: Emitted,
}

impl Emission {
    fn new(op: MemoryOp, index: Option<u64>, plan: &SmemPlan, emitted: Emitted) -> Emission {
        let role = match op {
            MemoryOp::Load => "load",
            MemoryOp::Store => "store",
        };
        Emission {
            role,
            index,
            plan: plan.clone(),
            emitted,
        }
    }
}

/// A built test kernel and how to run and check it.
///
/// ```
/// # use codegen::access::{BufferLowering, MemoryOp};
/// # use codegen::smem::kernels::address_dump;
/// # use codegen::access::IndexSource;
/// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// # let smem = LinearLayout::identity_1d(128, "offset", "dim0")?;
/// # let map = AddressMap::shared(BufferMap::new(0, &[(2, 512)])?, 32, &smem)?;
/// # let lanes = vec![vec![4], vec![8], vec![16], vec![32], vec![64]];
/// # let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2]]), ("lane", lanes)], &[("dim0", 128)], true)?;
/// let k = address_dump("dump", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
/// assert_eq!((k.threads, k.words_per_thread, k.dynamic_shared_bytes), (32, 1, 1024));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct TestKernel {
    /// The kernel.
    pub kernel: Kernel,
    /// `.reqntid`.
    pub threads: u32,
    /// Dynamic shared memory it needs (every buffer it may touch).
    pub dynamic_shared_bytes: u32,
    /// `u32` words per thread in `out`.
    pub words_per_thread: usize,
    /// The address map.
    pub map: AddressMap,
    /// How the buffer part is lowered.
    pub lowering: BufferLowering,
    /// Where the index comes from.
    pub index: IndexSource,
    /// What the kernel does.
    pub kind: TestKind,
    /// Every emission, in order.
    pub emissions: Vec<Emission>,
}

/// Emits, with role [`Role::Data`], one `.b32` per register holding the linear index of its
/// element under `layout`.
fn linear_index_values(
    b: &mut Builder,
    ctx: &SmemContext,
    map: &AddressMap,
    layout: &LinearLayout,
) -> Result<Vec<Reg>, SmemError> {
    let index = layout.compose(&linear_index_layout(map)?)?;
    let bases = |name: &str| -> Result<Vec<u32>, SmemError> {
        if !index.has_in_dim(name) {
            return Ok(Vec::new());
        }
        Ok(index
            .bases_of(name)?
            .iter()
            .map(|v| v.first().copied().unwrap_or(0) as u32)
            .collect())
    };
    let registers = bases("register")?;
    let mut tid = bases("lane")?;
    tid.resize(5, 0);
    tid.extend(bases("warp")?);
    let per_thread = TidLinear::new(tid);
    b.with_role(Role::Data, |b| {
        let v = per_thread.emit(b, ctx.tid())?;
        (0..1usize << registers.len())
            .map(|r| {
                let c = registers
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| r >> k & 1 == 1)
                    .fold(0u32, |acc, (_, x)| acc ^ x);
                match (v, c) {
                    (Some(v), 0) => Ok(v),
                    (Some(v), c) => b.xor(crate::ptx::Width::B32, v, c),
                    (None, c) => b.mov(RegType::B32, c),
                }
            })
            .collect()
    })
    .map_err(SmemError::from)
}

/// Shared bytes covering every buffer `index` may touch.
fn shared_bytes(
    map: &AddressMap,
    lowering: &BufferLowering,
    index: &IndexSource,
) -> Result<u32, SmemError> {
    let all: Vec<u64> = match index {
        IndexSource::Const(v) => v.clone(),
        IndexSource::Param => (0..map.buffer().num_buffers().min(1 << 16)).collect(),
    };
    let mut end = 16u64;
    for i in all {
        let start = match lowering {
            BufferLowering::Explicit => map.buffer().offset(i)?,
            BufferLowering::TlxReindex(t) => tlx_offset(t, i)?,
        };
        end = end.max(start.saturating_add(map.element_span()));
    }
    u32::try_from(end.div_ceil(16) * 16).map_err(|_| SmemError::AddressTooLarge {
        what: "shared memory end",
        value: end,
    })
}

/// The start of a test kernel: declarations, context, output pointer of this thread.
struct Frame {
    b: Builder,
    ctx: SmemContext,
    out: Reg,
    index: Option<Reg>,
    shape: Shape,
}

/// A test kernel's threads and output words per thread.
#[derive(Debug, Clone, Copy)]
struct Shape {
    threads: u32,
    words_per_thread: usize,
}

/// `ret`, then the kernel with what its checks need.
fn close(
    mut b: Builder,
    shape: Shape,
    map: &AddressMap,
    lowering: BufferLowering,
    index: &IndexSource,
    kind: TestKind,
    emissions: Vec<Emission>,
) -> Result<TestKernel, SmemError> {
    b.ret()?;
    Ok(TestKernel {
        kernel: b.finish()?,
        threads: shape.threads,
        dynamic_shared_bytes: shared_bytes(map, &lowering, index)?,
        words_per_thread: shape.words_per_thread,
        map: map.clone(),
        lowering,
        index: index.clone(),
        kind,
        emissions,
    })
}

fn frame(
    name: &str,
    threads: u32,
    index: &IndexSource,
    words_per_thread: usize,
) -> Result<Frame, SmemError> {
    let mut b = Builder::new(name, Target::Sm90a)?;
    b.extern_shared(SMEM, SMEM_ALIGN)?;
    b.param("out", ParamType::U64)?;
    if *index == IndexSource::Param {
        b.param("index", ParamType::U32)?;
    }
    b.reqntid(threads)?;
    let ctx = SmemContext::new(&mut b, SMEM)?;
    let stride = u32::try_from(words_per_thread * 4).map_err(|_| SmemError::AddressTooLarge {
        what: "output bytes per thread",
        value: words_per_thread as u64 * 4,
    })?;
    let (out, index) = b.with_role(Role::Data, |b| {
        let base = b.global_pointer("out")?;
        let off = b.mul_wide_u32(ctx.tid(), stride)?;
        let out = b.add(IntType::U64, base, off)?;
        let index = match index {
            IndexSource::Param => Some(b.ld_param("index")?),
            IndexSource::Const(_) => None,
        };
        Ok((out, index))
    })?;
    let shape = Shape {
        threads,
        words_per_thread,
    };
    Ok(Frame {
        b,
        ctx,
        out,
        index,
        shape,
    })
}

/// `st.global` of `values` at word `first` of this thread's block, four at a time where
/// aligned.
fn write_words(b: &mut Builder, out: Reg, first: usize, values: &[Reg]) -> Result<(), SmemError> {
    let mut w = first;
    let mut rest = values;
    while !rest.is_empty() {
        let n = if w % 4 == 0 && rest.len() >= 4 { 4 } else { 1 };
        let (now, later) = rest.split_at(n);
        let offset = i32::try_from(w * 4).map_err(|_| SmemError::AddressTooLarge {
            what: "output offset",
            value: w as u64 * 4,
        })?;
        b.st(
            StateSpace::Global,
            DataType::B32,
            Address::new(out, offset),
            now,
        )?;
        w += n;
        rest = later;
    }
    Ok(())
}

fn buffer_index(index: Option<Reg>, constant: Option<u64>) -> BufferIndex {
    match (index, constant) {
        (Some(r), _) => BufferIndex::Runtime(r),
        (None, c) => BufferIndex::Const(c.unwrap_or(0)),
    }
}

/// A round trip of the tile through shared memory: `store` layout → buffer → `load` layout,
/// for each buffer index (`bar.sync` between the store and the load, and after the load).
/// `out` gets, per thread and index, the loaded registers.
///
/// Errors: those of [`SmemPlan::new`] and [`SmemPlan::emit`];
/// [`SmemError::RegisterLayout`] when the two layouts have different warp counts.
///
/// ```
/// use codegen::access::BufferLowering;
/// use codegen::smem::kernels::round_trip;
/// use codegen::access::IndexSource;
/// use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// let smem = LinearLayout::identity_1d(64, "offset", "dim0")?;
/// let map = AddressMap::shared(BufferMap::new(0, &[])?, 16, &smem)?;
/// let lanes = |s: u64| (0..5).map(|k| vec![s << k]).collect::<Vec<_>>();
/// let pairs = LinearLayout::from_bases(&[("register", vec![vec![1]]), ("lane", lanes(2))], &[("dim0", 64)], true)?;
/// let strided = LinearLayout::from_bases(&[("register", vec![vec![32]]), ("lane", lanes(1))], &[("dim0", 64)], true)?;
/// let k = round_trip("rt", &map, &pairs, &strided, &IndexSource::Const(vec![0]), BufferLowering::Explicit)?;
/// assert_eq!(k.words_per_thread, 2);
/// // Lane 3 reloads elements 3 and 35.
/// assert_eq!(&k.expected_out(None)?[6..8], &[3, 35]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn round_trip(
    name: &str,
    map: &AddressMap,
    store: &LinearLayout,
    load: &LinearLayout,
    index: &IndexSource,
    lowering: BufferLowering,
) -> Result<TestKernel, SmemError> {
    let bits = map.element_bits();
    let store_plan = SmemPlan::new(map, store, Access::store(bits), lowering)?;
    let load_plan = SmemPlan::new(map, load, Access::load(bits), lowering)?;
    if store_plan.threads() != load_plan.threads() {
        return Err(SmemError::RegisterLayout {
            reason: format!(
                "the store layout has {} threads and the load layout {}",
                store_plan.threads(),
                load_plan.threads()
            ),
        });
    }
    let threads = store_plan.threads();
    let per_index = load_plan.registers();
    let constants = index.emissions();
    let words_per_thread = per_index * constants.len();
    let Frame {
        mut b,
        mut ctx,
        out,
        index: index_reg,
        shape,
    } = frame(name, threads, index, words_per_thread)?;
    let values = linear_index_values(&mut b, &ctx, map, store)?;
    let mut emissions = Vec::new();
    for (p, &c) in constants.iter().enumerate() {
        let i = buffer_index(index_reg, c);
        let stored = store_plan.emit(&mut b, &mut ctx, i, &values)?;
        b.bar_sync(0)?;
        let loaded = load_plan.emit(&mut b, &mut ctx, i, &[])?;
        write_words(&mut b, out, p * per_index, &loaded.values)?;
        b.bar_sync(0)?;
        emissions.push(Emission::new(MemoryOp::Store, c, &store_plan, stored));
        emissions.push(Emission::new(MemoryOp::Load, c, &load_plan, loaded));
    }
    let kind = TestKind::RoundTrip {
        store: store.clone(),
        load: load.clone(),
    };
    close(b, shape, map, lowering, index, kind, emissions)
}

/// A conversion `store → scratch → load` through at most `max_bytes` of scratch: the
/// [`Rounds`](crate::smem::Rounds) of the round trip, each a [`round_trip`] of the round's
/// layouts through the same scratch (one buffer per round, all at offset 0, constant indices).
/// `scratch` is the whole tile's shared layout (`offset` → tensor).
///
/// Errors: [`SmemError::Scratch`] when no rounds bring the scratch under `max_bytes`, the
/// layouts' ([`SmemError::Layout`]) and those of [`round_trip`].
///
/// ```
/// use codegen::smem::kernels::round_trip_in_rounds;
/// use linear_layout::LinearLayout;
/// let regs = LinearLayout::from_bases(
///     &[("register", vec![vec![0, 1], vec![16, 0]]), ("lane", vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]), ("warp", vec![vec![8, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// let scratch = LinearLayout::from_bases(
///     &[("offset", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// // 256 f32 elements, at most 512 bytes: row 16 becomes a second round.
/// let k = round_trip_in_rounds("rounds", &scratch, 32, &regs, &regs, 512)?;
/// assert_eq!(k.dynamic_shared_bytes, 512);
/// // 256 bytes would need a third round bit, and none is left.
/// assert!(round_trip_in_rounds("rounds", &scratch, 32, &regs, &regs, 256).is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn round_trip_in_rounds(
    name: &str,
    scratch: &LinearLayout,
    element_bits: u32,
    store: &LinearLayout,
    load: &LinearLayout,
    max_bytes: u64,
) -> Result<TestKernel, SmemError> {
    let element_bytes = u64::from(element_bits).div_ceil(8).max(1);
    let rounds = crate::smem::Rounds::split(store, load, scratch, max_bytes / element_bytes)?;
    let bytes = rounds
        .scratch
        .out_dims()
        .iter()
        .map(|&(_, s)| s)
        .product::<u64>()
        .saturating_mul(element_bytes);
    if bytes > max_bytes {
        return Err(SmemError::Scratch {
            reason: format!(
                "{bytes} bytes in {} rounds: no tensor bit left that both register layouts hold \
                 in registers and the scratch in its top offsets, and the cap is {max_bytes}",
                1u64 << rounds.rounds_log2
            ),
        });
    }
    let n = 1u64 << rounds.rounds_log2;
    let map = AddressMap::shared(BufferMap::new(0, &[(n, 0)])?, element_bits, &rounds.scratch)?;
    round_trip(
        name,
        &map,
        &rounds.store,
        &rounds.load,
        &IndexSource::Const((0..n).collect()),
        BufferLowering::Explicit,
    )
}

/// The accesses of `regs` (`op`; a store writes each element's linear index) for each buffer
/// index, each access's address minus the shared array's written to `out`, in emission order.
///
/// Errors: those of [`SmemPlan::new`] and [`SmemPlan::emit`].
///
/// ```
/// use codegen::access::{BufferLowering, MemoryOp};
/// use codegen::interp::run;
/// use codegen::smem::kernels::address_dump;
/// use codegen::access::IndexSource;
/// use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
/// let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
///     warps_per_cta: vec![1, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[8, 64])?;
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(4, 1024)])?, 16, &enc, &[8, 64])?;
/// let k = address_dump("dump", &map, &regs, MemoryOp::Load, &IndexSource::Param, BufferLowering::Explicit)?;
/// for i in 0..4 {
///     let out = run(&k.kernel, &k.config(), &k.params(Some(i)))?;
///     let words: Vec<u32> = out.buffers[0].chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
///     assert_eq!(words, k.expected_out(Some(u64::from(i)))?);
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn address_dump(
    name: &str,
    map: &AddressMap,
    regs: &LinearLayout,
    op: MemoryOp,
    index: &IndexSource,
    lowering: BufferLowering,
) -> Result<TestKernel, SmemError> {
    let plan = SmemPlan::new(map, regs, Access::new(op, map.element_bits()), lowering)?;
    let threads = plan.threads();
    let constants = index.emissions();
    let words_per_thread = plan.accesses().len() * constants.len();
    let Frame {
        mut b,
        mut ctx,
        out,
        index: index_reg,
        shape,
    } = frame(name, threads, index, words_per_thread)?;
    let values = match op {
        MemoryOp::Store => linear_index_values(&mut b, &ctx, map, regs)?,
        MemoryOp::Load => Vec::new(),
    };
    let mut emissions = Vec::new();
    let mut addresses = Vec::new();
    for &c in &constants {
        let emitted = plan.emit(&mut b, &mut ctx, buffer_index(index_reg, c), &values)?;
        let smem = ctx.shared_base();
        for a in &emitted.accesses {
            let rel = b.with_role(Role::Data, |b| {
                let abs = match a.address.offset {
                    0 => a.address.base,
                    o => b.add(IntType::U32, a.address.base, o)?,
                };
                b.sub(IntType::U32, abs, smem)
            })?;
            addresses.push(rel);
        }
        emissions.push(Emission::new(op, c, &plan, emitted));
    }
    write_words(&mut b, out, 0, &addresses)?;
    let kind = TestKind::AddressDump {
        regs: regs.clone(),
        op,
    };
    close(b, shape, map, lowering, index, kind, emissions)
}

/// The access alone, for reading and counting: a store takes each thread's registers from
/// global `data` (`ld.global.v4`, thread `t`'s block at word `t · registers`), a load writes
/// them there; everything but the address arithmetic has role [`Role::Data`], so
/// [`Kernel::stats`] counts exactly the emitter's address instructions (and the two `mov`s of
/// `%tid.x` and `smem`). The parameter is called `out` (as in the other kernels), whatever
/// the direction.
///
/// Errors: those of [`SmemPlan::new`] and [`SmemPlan::emit`].
///
/// ```
/// use codegen::access::{BufferLowering, MemoryOp};
/// use codegen::smem::kernels::access_kernel;
/// use codegen::access::IndexSource;
/// use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// let smem = LinearLayout::identity_1d(256, "offset", "dim0")?;
/// let map = AddressMap::shared(BufferMap::new(0, &[(2, 1024)])?, 32, &smem)?;
/// let regs = LinearLayout::from_bases(&[("register", vec![vec![1], vec![2], vec![128]]),
///     ("lane", vec![vec![4], vec![8], vec![16], vec![32], vec![64]])], &[("dim0", 256)], true)?;
/// let k = access_kernel("st", &map, &regs, MemoryOp::Store, &IndexSource::Param, BufferLowering::Explicit)?;
/// let s = k.kernel.stats();
/// // tid << 4, mad.lo index, add: 3 (+ 2 mov) for 2 × st.shared.v4.b32.
/// assert_eq!((s.address_alu, k.emissions[0].emitted.address_alu), (5, 3));
/// assert_eq!(k.kernel.to_string().matches("st.shared::cta.v4.b32").count(), 2);
/// assert_eq!(k.emissions[0].emitted.accesses[1].address.offset, 512);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn access_kernel(
    name: &str,
    map: &AddressMap,
    regs: &LinearLayout,
    op: MemoryOp,
    index: &IndexSource,
    lowering: BufferLowering,
) -> Result<TestKernel, SmemError> {
    let plan = SmemPlan::new(map, regs, Access::new(op, map.element_bits()), lowering)?;
    let threads = plan.threads();
    let registers = plan.registers();
    let constants = index.emissions();
    let Frame {
        mut b,
        mut ctx,
        out,
        index: index_reg,
        shape,
    } = frame(name, threads, index, registers)?;
    let values = match op {
        MemoryOp::Store => read_words(&mut b, out, registers)?,
        MemoryOp::Load => Vec::new(),
    };
    let mut emissions = Vec::new();
    for &c in &constants {
        let emitted = plan.emit(&mut b, &mut ctx, buffer_index(index_reg, c), &values)?;
        if op == MemoryOp::Load {
            write_words(&mut b, out, 0, &emitted.values)?;
        }
        emissions.push(Emission::new(op, c, &plan, emitted));
    }
    let kind = TestKind::Access {
        regs: regs.clone(),
        op,
    };
    close(b, shape, map, lowering, index, kind, emissions)
}

/// `ld.global` of `n` words from this thread's block, four at a time where possible.
fn read_words(b: &mut Builder, out: Reg, n: usize) -> Result<Vec<Reg>, SmemError> {
    let mut values = Vec::with_capacity(n);
    while values.len() < n {
        let w = values.len();
        let count = if n - w >= 4 { 4 } else { 1 };
        let offset = i32::try_from(w * 4).map_err(|_| SmemError::AddressTooLarge {
            what: "input offset",
            value: w as u64 * 4,
        })?;
        let regs: Vec<Reg> = (0..count).map(|_| b.reg(RegType::B32)).collect();
        b.ld_into(
            StateSpace::Global,
            DataType::B32,
            regs.clone(),
            Address::new(out, offset),
        )?;
        values.extend(regs);
    }
    Ok(values)
}
