//! Tile kernels: Triton's benchmark kernels, like for like. The tile comes from a row-major
//! tensor in global memory and goes back to one, as Gluon's
//! `x = gl.load(in_ptr + rows[:, None] * N + cols[None, :])` and `gl.store(out_ptr + …, y)`
//! do: the same four `.u64` parameters (`in_ptr`, `out_ptr`, and the global and profile
//! scratch pointers Triton 3.9 appends, unused), the same global accesses (the widest vector
//! of consecutive elements, at most 16 bytes, at the layout's addresses), and the data kept
//! packed as it was loaded: a shared access whose elements sit in the loaded words in its
//! order reuses them as they are ([`SmemPlan::emit_elements`]). A whole-kernel figure — SASS
//! instructions, instructions executed on a GPU, cycles — then compares the shared-memory
//! addressing and nothing else.
//!
//! * [`tile_store`]: `in_ptr` → registers of `src` → shared;
//! * [`tile_load`]: shared → registers of `dst` → `out_ptr`;
//! * [`tile_round_trip`]: `in_ptr` → `src` → shared → `bar.sync` → `dst` → `out_ptr`;
//! * [`tile_round_trip_in_rounds`]: the same through a bounded scratch, in
//!   [`Rounds`](crate::smem::Rounds).
//!
//! Global address arithmetic has role [`Role::Data`], like the rest of the harness: the
//! kernel's [`stats`](Kernel::stats) count the shared addressing alone. Elements are 8, 16
//! or 32 bits wide.
//!
//! ```
//! use codegen::interp::run;
//! use codegen::smem::kernels::tile_round_trip;
//! use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
//! let blocked = |spt: Vec<u32>, tpw: Vec<u32>, wpc: Vec<u32>, order: Vec<usize>| Blocked {
//!     size_per_thread: spt, threads_per_warp: tpw, warps_per_cta: wpc, order, cga_layout: vec![] }
//!     .to_linear_layout(&[64, 64]);
//! let rows = blocked(vec![1, 8], vec![4, 8], vec![4, 1], vec![1, 0])?;
//! let cols = blocked(vec![8, 1], vec![8, 4], vec![1, 4], vec![0, 1])?;
//! let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
//! let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[64, 64])?;
//! let k = tile_round_trip("transpose", &map, &rows, &cols)?;
//! let text = k.kernel.to_string();
//! assert_eq!(text.matches("ld.global.v4.b32").count(), 4);
//! // The loaded words go to shared memory as they are; the column-major layout reads and
//! // writes single elements (as Triton's kernel does).
//! assert_eq!(text.matches("st.shared::cta.v4.b32").count(), 4);
//! assert_eq!(text.matches("st.global.b16").count(), 32);
//! let params = k.params(None);
//! let out = run(&k.kernel, &k.config(), &params)?;
//! // Every element came back to where it was.
//! assert_eq!(Some(&out.buffers[1]), match &params[0] { codegen::interp::ParamValue::Buffer(b) => Some(b), _ => None });
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::expect::register_count;
use super::*;
use crate::smem::words::Element;
use crate::smem::{PlannedAccess, Rounds};

/// The parameters of a tile kernel, in order (Triton 3.9's: its two pointers, then the global
/// and profile scratch pointers it appends to every kernel).
///
/// ```
/// assert_eq!(codegen::smem::kernels::TILE_PARAMS[1], "out_ptr");
/// ```
pub const TILE_PARAMS: [&str; 4] = ["in_ptr", "out_ptr", "global_scratch", "profile_scratch"];

/// The row-major tensor in global memory, moved to or from the registers of one layout: a
/// shared-memory plan of the unswizzled row-major map (no `ldmatrix`), emitted with global
/// addresses.
struct GlobalTile {
    plan: SmemPlan,
}

impl GlobalTile {
    fn new(regs: &LinearLayout, bits: u32, op: MemoryOp) -> Result<GlobalTile, SmemError> {
        let map = AddressMap::shared(BufferMap::new(0, &[])?, bits, &row_major(regs)?)?;
        let access = Access {
            matrix: false,
            ..Access::new(op, bits)
        };
        let plan = SmemPlan::new(&map, regs, access, BufferLowering::Explicit)?;
        Ok(GlobalTile { plan })
    }

    /// The 64-bit address of each access: `ptr + (T ^ X)` and the immediate `Y`.
    fn addresses(
        &self,
        b: &mut Builder,
        tid: Reg,
        ptr: Reg,
    ) -> Result<Vec<(Address, &PlannedAccess)>, SmemError> {
        let t = self.plan.thread_base().emit(b, tid)?;
        let span = self.plan.thread_base().span();
        let mut bases: Vec<(u32, Reg)> = Vec::new();
        let mut out = Vec::with_capacity(self.plan.accesses().len());
        for planned in self.plan.accesses() {
            let (x, y) = (planned.constant & span, planned.constant & !span);
            let base = match bases.iter().find(|(k, _)| *k == x) {
                Some(&(_, r)) => r,
                None => {
                    let r = match (t, x) {
                        (None, _) => ptr,
                        (Some(t), 0) => b.mad_wide_u32(t, 1, ptr)?,
                        (Some(t), x) => {
                            let tx = b.xor(crate::ptx::Width::B32, t, x)?;
                            b.mad_wide_u32(tx, 1, ptr)?
                        }
                    };
                    bases.push((x, r));
                    r
                }
            };
            let imm = match t {
                None => planned.constant,
                Some(_) => y,
            };
            let offset = i32::try_from(imm).map_err(|_| SmemError::AddressTooLarge {
                what: "global offset",
                value: u64::from(imm),
            })?;
            out.push((Address::new(base, offset), planned));
        }
        Ok(out)
    }

    /// `ld.global` of the tile from `ptr`: one [`Element`] per register, in the loaded words.
    fn load(&self, b: &mut Builder, tid: Reg, ptr: Reg) -> Result<Vec<Element>, SmemError> {
        let v = self.plan.vector();
        let bits = self.plan.access().element_bits;
        let mut loaded: Vec<Option<Element>> = vec![None; self.plan.registers()];
        let addresses = b.with_role(Role::Data, |b| Ok(self.addresses(b, tid, ptr)))??;
        for (address, planned) in addresses {
            let words: Vec<Reg> = (0..v.words).map(|_| b.reg(RegType::B32)).collect();
            b.with_role(Role::Data, |b| {
                b.ld_into(StateSpace::Global, v.ty, words.clone(), address)
            })?;
            let bytes = v.ty.bytes();
            crate::smem::words::unpack(b, bits, &words, &planned.slots, bytes, false, &mut loaded)?;
        }
        loaded
            .into_iter()
            .enumerate()
            .map(|(r, e)| {
                e.ok_or_else(|| SmemError::RegisterLayout {
                    reason: format!("register {r} is in no global access"),
                })
            })
            .collect()
    }

    /// `st.global` of `elements` (one per register) to `ptr`.
    fn store(
        &self,
        b: &mut Builder,
        tid: Reg,
        ptr: Reg,
        elements: &[Element],
    ) -> Result<(), SmemError> {
        let v = self.plan.vector();
        let bits = self.plan.access().element_bits;
        let addresses = b.with_role(Role::Data, |b| Ok(self.addresses(b, tid, ptr)))??;
        for (address, planned) in addresses {
            let words = crate::smem::words::pack(b, bits, &planned.slots, v.ty.bytes(), elements)?;
            b.with_role(Role::Data, |b| {
                b.st(StateSpace::Global, v.ty, address, &words)
            })?;
        }
        Ok(())
    }
}

/// The elements of `regs`' tensor.
fn elements(regs: &LinearLayout) -> Result<u64, SmemError> {
    regs.out_dims()
        .iter()
        .try_fold(1u64, |n, &(_, s)| n.checked_mul(s))
        .ok_or(SmemError::AddressTooLarge {
            what: "tensor elements",
            value: u64::MAX,
        })
}

/// `offset → tensor`, row-major (the last dim fastest), over `regs`' out-dims.
fn row_major(regs: &LinearLayout) -> Result<LinearLayout, SmemError> {
    let dims = regs.out_dims();
    let mut bases = Vec::new();
    for (k, &(_, size)) in dims.iter().enumerate().rev() {
        for j in 0..size.trailing_zeros() {
            let mut v = vec![0u64; dims.len()];
            if let Some(c) = v.get_mut(k) {
                *c = 1 << j;
            }
            bases.push(v);
        }
    }
    Ok(LinearLayout::from_bases(&[("offset", bases)], &dims, true)?)
}

/// The start of a tile kernel: the four parameters, `.reqntid`, the shared context and the
/// tensor pointers it uses (`in_ptr` when it reads the tensor, `out_ptr` when it writes it).
struct TileFrame {
    b: Builder,
    ctx: SmemContext,
    input: Option<Reg>,
    output: Option<Reg>,
}

impl TileFrame {
    fn pointers(&self) -> Result<(Reg, Reg), SmemError> {
        match (self.input, self.output) {
            (Some(i), Some(o)) => Ok((i, o)),
            _ => Err(SmemError::RegisterLayout {
                reason: "a tile kernel without its tensor pointers".into(),
            }),
        }
    }
}

fn tile_frame(
    name: &str,
    threads: u32,
    bits: u32,
    reads: bool,
    writes: bool,
) -> Result<TileFrame, SmemError> {
    if !matches!(bits, 8 | 16 | 32) {
        return Err(SmemError::UnsupportedElementBits { bits });
    }
    let mut b = Builder::new(name, Target::Sm90a)?;
    b.extern_shared(SMEM, SMEM_ALIGN)?;
    for p in TILE_PARAMS {
        b.param(p, ParamType::U64)?;
    }
    b.reqntid(threads)?;
    let ctx = SmemContext::new(&mut b, SMEM)?;
    let (input, output) = b.with_role(Role::Data, |b| {
        let input = reads
            .then(|| b.global_pointer(TILE_PARAMS[0]))
            .transpose()?;
        let output = writes
            .then(|| b.global_pointer(TILE_PARAMS[1]))
            .transpose()?;
        Ok((input, output))
    })?;
    Ok(TileFrame {
        b,
        ctx,
        input,
        output,
    })
}

/// The tile kernel's [`TestKernel`]: one buffer at index 0 (or one per round, all at 0).
fn tile_kernel(
    mut b: Builder,
    threads: u32,
    map: &AddressMap,
    rounds: u64,
    kind: TestKind,
    emissions: Vec<Emission>,
) -> Result<TestKernel, SmemError> {
    b.ret()?;
    let index = IndexSource::Const((0..rounds).collect());
    let tensor_bytes = match kind {
        TestKind::Tile { elements, .. } => {
            elements.saturating_mul(u64::from(map.element_bits() / 8))
        }
        _ => map.element_span(),
    };
    let words =
        usize::try_from(tensor_bytes.div_ceil(4 * u64::from(threads.max(1)))).map_err(|_| {
            SmemError::AddressTooLarge {
                what: "tensor bytes",
                value: tensor_bytes,
            }
        })?;
    Ok(TestKernel {
        kernel: b.finish()?,
        threads,
        dynamic_shared_bytes: shared_bytes(map, &BufferLowering::Explicit, &index)?,
        words_per_thread: words,
        map: map.clone(),
        lowering: BufferLowering::Explicit,
        index,
        kind,
        emissions,
    })
}

/// `in_ptr` (row-major) → registers of `src` → buffer 0 of `map`.
///
/// Errors: those of [`SmemPlan::new`] (for `map` and for the row-major global tensor) and
/// [`SmemPlan::emit_elements`]; [`SmemError::UnsupportedElementBits`] for elements other
/// than 8, 16 or 32 bits.
///
/// ```
/// use codegen::smem::kernels::tile_store;
/// use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
/// let rows = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
///     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[64, 64])?;
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[64, 64])?;
/// let text = tile_store("store_kernel", &map, &rows)?.kernel.to_string();
/// assert_eq!((text.matches("ld.global.v4").count(), text.matches("st.shared::cta.v4").count()), (4, 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile_store(
    name: &str,
    map: &AddressMap,
    src: &LinearLayout,
) -> Result<TestKernel, SmemError> {
    let bits = map.element_bits();
    let plan = SmemPlan::new(map, src, Access::store(bits), BufferLowering::Explicit)?;
    let global = GlobalTile::new(src, bits, MemoryOp::Load)?;
    let frame = tile_frame(name, plan.threads(), bits, true, false)?;
    let TileFrame { mut b, mut ctx, .. } = frame;
    let input = frame.input.ok_or(SmemError::RegisterLayout {
        reason: "a tile store without in_ptr".into(),
    })?;
    let values = global.load(&mut b, ctx.tid(), input)?;
    let emitted = plan.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &values, false)?;
    let emissions = vec![Emission::new(MemoryOp::Store, Some(0), &plan, emitted)];
    let kind = TestKind::Tile {
        regs: src.clone(),
        op: MemoryOp::Store,
        reload: None,
        rounds_log2: 0,
        elements: elements(src)?,
    };
    tile_kernel(b, plan.threads(), map, 1, kind, emissions)
}

/// Buffer 0 of `map` → registers of `dst` → `out_ptr` (row-major).
///
/// Errors: as [`tile_store`].
///
/// ```
/// use codegen::smem::kernels::tile_load;
/// use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
/// let rows = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
///     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[64, 64])?;
/// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
/// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[64, 64])?;
/// let text = tile_load("load_kernel", &map, &rows)?.kernel.to_string();
/// assert_eq!(text.matches("st.global.v4").count(), 4);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile_load(
    name: &str,
    map: &AddressMap,
    dst: &LinearLayout,
) -> Result<TestKernel, SmemError> {
    let bits = map.element_bits();
    let plan = SmemPlan::new(map, dst, Access::load(bits), BufferLowering::Explicit)?;
    let global = GlobalTile::new(dst, bits, MemoryOp::Store)?;
    let frame = tile_frame(name, plan.threads(), bits, false, true)?;
    let TileFrame { mut b, mut ctx, .. } = frame;
    let output = frame.output.ok_or(SmemError::RegisterLayout {
        reason: "a tile load without out_ptr".into(),
    })?;
    let emitted = plan.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &[], false)?;
    global.store(&mut b, ctx.tid(), output, &emitted.elements)?;
    let emissions = vec![Emission::new(MemoryOp::Load, Some(0), &plan, emitted)];
    let kind = TestKind::Tile {
        regs: dst.clone(),
        op: MemoryOp::Load,
        reload: None,
        rounds_log2: 0,
        elements: elements(dst)?,
    };
    tile_kernel(b, plan.threads(), map, 1, kind, emissions)
}

/// `in_ptr` → registers of `src` → buffer 0 of `map` → `bar.sync` → registers of `dst` →
/// `out_ptr`: `out_ptr` ends equal to `in_ptr`.
///
/// Errors: as [`tile_store`], and [`SmemError::RegisterLayout`] when the layouts have
/// different thread counts.
///
/// ```
/// # use codegen::smem::kernels::tile_round_trip;
/// # use linear_layout::{AddressMap, BufferMap, LinearLayout};
/// let smem = LinearLayout::identity_1d(64, "offset", "dim0")?;
/// let map = AddressMap::shared(BufferMap::new(0, &[])?, 16, &smem)?;
/// let lanes = |s: u64| (0..5).map(|k| vec![s << k]).collect::<Vec<_>>();
/// let pairs = LinearLayout::from_bases(&[("register", vec![vec![1]]), ("lane", lanes(2))], &[("dim0", 64)], true)?;
/// let k = tile_round_trip("rt", &map, &pairs, &pairs)?;
/// // One 32-bit word (two f16) per thread each way, moved as loaded.
/// let text = k.kernel.to_string();
/// for op in ["ld.global.b32", "st.shared::cta.b32", "ld.shared::cta.b32", "st.global.b32"] {
///     assert_eq!(text.matches(op).count(), 1, "{op}");
/// }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile_round_trip(
    name: &str,
    map: &AddressMap,
    src: &LinearLayout,
    dst: &LinearLayout,
) -> Result<TestKernel, SmemError> {
    let bits = map.element_bits();
    let store = SmemPlan::new(map, src, Access::store(bits), BufferLowering::Explicit)?;
    let load = SmemPlan::new(map, dst, Access::load(bits), BufferLowering::Explicit)?;
    same_threads(&store, &load)?;
    let (from, to) = (
        GlobalTile::new(src, bits, MemoryOp::Load)?,
        GlobalTile::new(dst, bits, MemoryOp::Store)?,
    );
    let frame = tile_frame(name, store.threads(), bits, true, true)?;
    let (input, output) = frame.pointers()?;
    let TileFrame { mut b, mut ctx, .. } = frame;
    let values = from.load(&mut b, ctx.tid(), input)?;
    let stored = store.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &values, false)?;
    b.bar_sync(0)?;
    let loaded = load.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &[], false)?;
    to.store(&mut b, ctx.tid(), output, &loaded.elements)?;
    let emissions = vec![
        Emission::new(MemoryOp::Store, Some(0), &store, stored),
        Emission::new(MemoryOp::Load, Some(0), &load, loaded),
    ];
    let kind = TestKind::Tile {
        regs: src.clone(),
        op: MemoryOp::Store,
        reload: Some(dst.clone()),
        rounds_log2: 0,
        elements: elements(src)?,
    };
    tile_kernel(b, store.threads(), map, 1, kind, emissions)
}

fn same_threads(store: &SmemPlan, load: &SmemPlan) -> Result<(), SmemError> {
    if store.threads() != load.threads() {
        return Err(SmemError::RegisterLayout {
            reason: format!(
                "the store layout has {} threads and the load layout {}",
                store.threads(),
                load.threads()
            ),
        });
    }
    Ok(())
}

/// [`tile_round_trip`] through at most `max_bytes` of the scratch layout `scratch`
/// (`offset` → tensor), in the [`Rounds`] that need: round `ρ` stores and reloads the
/// registers of the full layouts whose round bits are `ρ`, through the same scratch, with a
/// `bar.sync` after each store and each load.
///
/// Errors: those of [`round_trip_in_rounds`] and [`tile_round_trip`], and
/// [`SmemError::Scratch`] when the rounds do not split both layouts' registers alike (an
/// element stored in one round and loaded in another).
///
/// ```
/// use codegen::smem::kernels::tile_round_trip_in_rounds;
/// use linear_layout::LinearLayout;
/// let regs = LinearLayout::from_bases(
///     &[("register", vec![vec![0, 1], vec![16, 0]]), ("lane", vec![vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0]]), ("warp", vec![vec![8, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// let scratch = LinearLayout::from_bases(
///     &[("offset", vec![vec![0, 1], vec![0, 2], vec![0, 4], vec![1, 0], vec![2, 0], vec![4, 0], vec![8, 0], vec![16, 0]])],
///     &[("dim0", 32), ("dim1", 8)], true)?;
/// let k = tile_round_trip_in_rounds("rounds", &scratch, 32, &regs, &regs, 512)?;
/// assert_eq!((k.dynamic_shared_bytes, k.kernel.to_string().matches("bar.sync").count()), (512, 4));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn tile_round_trip_in_rounds(
    name: &str,
    scratch: &LinearLayout,
    element_bits: u32,
    src: &LinearLayout,
    dst: &LinearLayout,
    max_bytes: u64,
) -> Result<TestKernel, SmemError> {
    let element_bytes = u64::from(element_bits).div_ceil(8).max(1);
    let rounds = Rounds::split(src, dst, scratch, max_bytes / element_bytes)?;
    let bytes = rounds
        .scratch
        .out_dims()
        .iter()
        .map(|&(_, s)| s)
        .product::<u64>()
        .saturating_mul(element_bytes);
    let n = 1u64 << rounds.rounds_log2;
    if bytes > max_bytes {
        return Err(SmemError::Scratch {
            reason: format!(
                "{bytes} bytes in {n} rounds: no tensor bit left that both register layouts \
                 hold in registers and the scratch in its top offsets, and the cap is {max_bytes}"
            ),
        });
    }
    same_rounds(src, dst, &rounds)?;
    let map = AddressMap::shared(BufferMap::new(0, &[(n, 0)])?, element_bits, &rounds.scratch)?;
    let bits = element_bits;
    let store = SmemPlan::new(
        &map,
        &rounds.store,
        Access::store(bits),
        BufferLowering::Explicit,
    )?;
    let load = SmemPlan::new(
        &map,
        &rounds.load,
        Access::load(bits),
        BufferLowering::Explicit,
    )?;
    same_threads(&store, &load)?;
    let (from, to) = (
        GlobalTile::new(src, bits, MemoryOp::Load)?,
        GlobalTile::new(dst, bits, MemoryOp::Store)?,
    );
    let frame = tile_frame(name, store.threads(), bits, true, true)?;
    let (input, output) = frame.pointers()?;
    let TileFrame { mut b, mut ctx, .. } = frame;
    let values = from.load(&mut b, ctx.tid(), input)?;
    let mut results: Vec<Option<Element>> = vec![None; register_count(dst)?];
    let mut emissions = Vec::new();
    for round in 0..n {
        let part = |positions: &[u32], count: usize| -> Vec<u64> {
            (0..count as u64)
                .map(|r| Rounds::full_register(positions, round, r))
                .collect()
        };
        let mine = part(&rounds.store_registers, store.registers());
        let stored_values = mine
            .iter()
            .map(|&r| {
                values
                    .get(r as usize)
                    .copied()
                    .ok_or_else(|| SmemError::RegisterLayout {
                        reason: format!("round {round}: store register {r} past the layout"),
                    })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let i = BufferIndex::Const(round);
        let stored = store.emit_elements(&mut b, &mut ctx, i, &stored_values, false)?;
        b.bar_sync(0)?;
        let loaded = load.emit_elements(&mut b, &mut ctx, i, &[], false)?;
        for (&r, &e) in part(&rounds.load_registers, load.registers())
            .iter()
            .zip(&loaded.elements)
        {
            if let Some(slot) = results.get_mut(r as usize) {
                *slot = Some(e);
            }
        }
        b.bar_sync(0)?;
        emissions.push(Emission::new(MemoryOp::Store, Some(round), &store, stored));
        emissions.push(Emission::new(MemoryOp::Load, Some(round), &load, loaded));
    }
    let results = results
        .into_iter()
        .enumerate()
        .map(|(r, e)| {
            e.ok_or_else(|| SmemError::RegisterLayout {
                reason: format!("load register {r} is in no round"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    to.store(&mut b, ctx.tid(), output, &results)?;
    let kind = TestKind::Tile {
        regs: rounds.store.clone(),
        op: MemoryOp::Store,
        reload: Some(rounds.load.clone()),
        rounds_log2: rounds.rounds_log2,
        elements: elements(src)?,
    };
    tile_kernel(b, store.threads(), &map, n, kind, emissions)
}

/// Checks that every element is stored and loaded in the same round: for each basis of
/// `src`, the round bits of the `dst` registers holding the same element (`src` composed with
/// `dst`'s inverse) equal its own.
fn same_rounds(src: &LinearLayout, dst: &LinearLayout, rounds: &Rounds) -> Result<(), SmemError> {
    let k = rounds.rounds_log2 as usize;
    if rounds.store_registers.len() != k || rounds.load_registers.len() != k {
        return Err(SmemError::Scratch {
            reason: "a round bit is not one register basis of both layouts".into(),
        });
    }
    if k == 0 {
        return Ok(());
    }
    // In-dims `src`'s, out-dims `dst`'s: where `dst` holds each element `src` holds.
    let to_dst = src.invert_and_compose(dst)?;
    let dims: Vec<String> = src
        .in_dims()
        .iter()
        .map(|(d, _)| d.name().to_string())
        .collect();
    let round_of = |register: u64, positions: &[u32]| -> u64 {
        positions
            .iter()
            .enumerate()
            .fold(0, |acc, (j, &p)| acc | (register >> p & 1) << j)
    };
    for (dim, bases) in src.bases() {
        for (bit, _) in bases.iter().enumerate() {
            let x = 1u64 << bit;
            let here = match dim.name() {
                "register" => round_of(x, &rounds.store_registers),
                _ => 0,
            };
            let inputs: Vec<(&str, u64)> = dims
                .iter()
                .map(|d| (d.as_str(), if d == dim.name() { x } else { 0 }))
                .collect();
            let image = to_dst.apply(&inputs)?;
            let register = image
                .iter()
                .find(|(d, _)| d.name() == "register")
                .map_or(0, |&(_, v)| v);
            let there = round_of(register, &rounds.load_registers);
            if here != there {
                return Err(SmemError::Scratch {
                    reason: format!(
                        "{} basis {bit} is stored in round {here} and loaded in round {there}",
                        dim.name()
                    ),
                });
            }
        }
    }
    Ok(())
}
