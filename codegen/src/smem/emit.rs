//! Emitting a planned access: [`SmemContext`] (the per-kernel `%tid.x` and shared base, and
//! what was already computed from them) and [`SmemPlan::emit`].
//!
//! Every access of every thread goes to `Q + (T ^ C)`, `Q = smem + B(i)`, `T` the thread
//! base, `C` the access's constant. Split `C = X ^ Y` with `X = C & span(T)`: `Y` is disjoint
//! from every bit `T` can have, so `T ^ C = (T ^ X) + Y` and `Y` joins the immediate (with a
//! constant `B(i)` or the map's base). The sum is formed as `A = P + W`, either `P = Q`,
//! `W = T`, or — when a run-time `B(i)` lies above every bit of `T` — `P = smem`,
//! `W = T + B(i) = T | B(i)`. An access then costs nothing when `X = 0`; one `xor` of `A` when
//! `X` lies below `P`'s alignment `2^L` (the low `L` bits of `P + W` are `W`'s, so
//! `A ^ X = P + (W ^ X)`); otherwise `P + (W ^ X)`, two instructions. Each distinct `X` is
//! computed once.

use std::collections::HashMap;

use super::buffer::{self, BufferPart};
use super::error::SmemError;
use super::plan::SmemPlan;
use super::thread::TidLinear;
use super::words::{self, Element};
use crate::access::{BufferIndex, BufferLowering, MemoryOp};
use crate::ptx::{
    Address, Builder, IntType, MatrixCount, PtxError, Reg, RegType, Role, SpecialReg, StateSpace,
    Width,
};
use linear_layout::BufferMap;

/// The per-kernel inputs of shared addresses — `%tid.x` and the address of the dynamic
/// shared array — and the values already derived from them, so that several accesses in
/// straight-line code share their thread bases and buffer parts.
///
/// The caches assume registers are written once (as the [`Builder`] helpers do); code that
/// redefines a register or branches between emissions should call
/// [`clear`](SmemContext::clear).
///
/// ```
/// use codegen::smem::SmemContext;
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.extern_shared("smem", 1024)?;
/// let ctx = SmemContext::new(&mut b, "smem")?;
/// assert_eq!(ctx.align_log2(), 10);
/// assert!(b.kernel().to_string().contains("mov.u32 %r1, smem;"));
/// assert!(SmemContext::new(&mut b, "nowhere").is_err());
/// # Ok::<(), codegen::smem::SmemError>(())
/// ```
#[derive(Debug, Clone)]
pub struct SmemContext {
    tid: Reg,
    smem: Reg,
    align_log2: u32,
    thread_bases: HashMap<TidLinear, Option<Reg>>,
    buffer_parts: HashMap<(Reg, BufferLowering, BufferMap), BufferPart>,
    fused: HashMap<(Reg, Reg, BufferMap), Reg>,
    sums: HashMap<(Reg, Reg), Reg>,
    /// Access bases `P + (W ^ X)` by `(P, W, X)`: rounds of a conversion, and accesses of
    /// different plans with the same thread base, share them.
    xors: HashMap<(Reg, Reg, u32), Reg>,
}

impl SmemContext {
    /// Emits `mov.u32 tid, %tid.x` and `mov.u32 base, symbol` for the declared `.shared`
    /// variable `symbol` (its `.align` is what the emitter may assume of the base; capped at
    /// 2^31). Errors: [`SmemError::UnknownShared`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// let ctx = codegen::smem::SmemContext::new(&mut b, "smem")?;
    /// assert_eq!(b.kernel().instruction_count(), 2);
    /// # let _ = ctx;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(b: &mut Builder, symbol: &str) -> Result<SmemContext, SmemError> {
        let align = b
            .kernel()
            .shared
            .iter()
            .find(|s| s.name == symbol)
            .map(|s| s.align)
            .ok_or_else(|| SmemError::UnknownShared {
                name: symbol.to_string(),
            })?;
        let (tid, smem) = b.with_role(Role::Address, |b| {
            Ok((b.special(SpecialReg::TidX)?, b.shared_address(symbol)?))
        })?;
        Ok(SmemContext {
            tid,
            smem,
            align_log2: align.trailing_zeros(),
            thread_bases: HashMap::new(),
            buffer_parts: HashMap::new(),
            fused: HashMap::new(),
            sums: HashMap::new(),
            xors: HashMap::new(),
        })
    }

    /// The register holding `%tid.x`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let ctx = codegen::smem::SmemContext::new(&mut b, "smem")?;
    /// assert_eq!(ctx.tid().to_string(), "%r0");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tid(&self) -> Reg {
        self.tid
    }

    /// The register holding the shared array's address.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let ctx = codegen::smem::SmemContext::new(&mut b, "smem")?;
    /// assert_eq!(ctx.shared_base().to_string(), "%r1");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shared_base(&self) -> Reg {
        self.smem
    }

    /// `log2` of the shared array's alignment.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 128)?;
    /// assert_eq!(codegen::smem::SmemContext::new(&mut b, "smem")?.align_log2(), 7);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn align_log2(&self) -> u32 {
        self.align_log2
    }

    /// Forgets every cached thread base, buffer part and sum.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let mut ctx = codegen::smem::SmemContext::new(&mut b, "smem")?;
    /// ctx.clear();
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clear(&mut self) {
        self.thread_bases.clear();
        self.buffer_parts.clear();
        self.fused.clear();
        self.sums.clear();
        self.xors.clear();
    }

    fn thread_base(&mut self, b: &mut Builder, f: &TidLinear) -> Result<Option<Reg>, PtxError> {
        if let Some(&r) = self.thread_bases.get(f) {
            return Ok(r);
        }
        let r = f.emit(b, self.tid)?;
        self.thread_bases.insert(f.clone(), r);
        Ok(r)
    }

    fn buffer_part(
        &mut self,
        b: &mut Builder,
        plan: &SmemPlan,
        index: BufferIndex,
        headroom: u64,
    ) -> Result<BufferPart, SmemError> {
        let key = match index {
            BufferIndex::Runtime(r) => Some((r, *plan.lowering(), plan.map().buffer().clone())),
            BufferIndex::Const(_) => None,
        };
        if let Some(part) = key.as_ref().and_then(|k| self.buffer_parts.get(k)) {
            return Ok(*part);
        }
        let part = buffer::emit(b, plan, self.smem, self.align_log2, index, headroom)?;
        if let Some(k) = key {
            self.buffer_parts.insert(k, part);
        }
        Ok(part)
    }

    fn fused(
        &mut self,
        b: &mut Builder,
        plan: &SmemPlan,
        i: Reg,
        t: Reg,
        span: u32,
    ) -> Result<Reg, SmemError> {
        let key = (i, t, plan.map().buffer().clone());
        if let Some(&w) = self.fused.get(&key) {
            return Ok(w);
        }
        let w = buffer::onto_thread_base(b, plan, i, t, span)?;
        self.fused.insert(key, w);
        Ok(w)
    }

    fn sum(&mut self, b: &mut Builder, q: Reg, t: Reg) -> Result<Reg, PtxError> {
        if let Some(&r) = self.sums.get(&(q, t)) {
            return Ok(r);
        }
        let r = b.add(IntType::U32, q, t)?;
        self.sums.insert((q, t), r);
        Ok(r)
    }
}

/// One emitted `ld/st.shared`: its body statement index (what the interpreter's trace
/// reports), its address operand, and the layout registers of each element (as in
/// [`PlannedAccess::slots`](super::PlannedAccess::slots)).
///
/// ```
/// use codegen::ptx::{Address, Reg, RegType};
/// use codegen::smem::EmittedAccess;
/// let a = EmittedAccess { stmt: 7, address: Address::new(Reg::new(RegType::B32, 4), 2048),
///                         slots: vec![vec![0], vec![1]], matrix: None };
/// assert_eq!(a.address.to_string(), "[%r4+2048]");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmittedAccess {
    /// Index of the instruction in [`Kernel::body`](crate::ptx::Kernel::body).
    pub stmt: usize,
    /// `[reg+imm]`.
    pub address: Address,
    /// Per element, in memory order, the registers holding it; for a matrix access, per
    /// matrix `j` and half `h`, slot `2j + h`.
    pub slots: Vec<Vec<usize>>,
    /// `Some((count, trans))` for `ldmatrix`/`stmatrix`.
    pub matrix: Option<(MatrixCount, bool)>,
}

/// What [`SmemPlan::emit`] added.
///
/// ```
/// let e = codegen::smem::Emitted { values: vec![], elements: vec![], accesses: vec![], address_alu: 0 };
/// assert!(e.values.is_empty());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Emitted {
    /// For a load by [`SmemPlan::emit`], one `.b32` per register of the layout holding its
    /// element (zero-extended; registers holding the same element share one); empty for a
    /// store and for a load by [`SmemPlan::emit_elements`] that does not extract.
    pub values: Vec<Reg>,
    /// For a load, where each register's element sits (in the loaded words, or in
    /// [`values`](Emitted::values) at bit 0); empty for a store.
    pub elements: Vec<Element>,
    /// The accesses, in order.
    pub accesses: Vec<EmittedAccess>,
    /// Address-role ALU instructions this emission added (thread base, buffer part, XORs);
    /// cached values computed by an earlier emission are not counted again.
    pub address_alu: usize,
}

impl Emitted {
    /// `address_alu / accesses`.
    ///
    /// ```
    /// let e = codegen::smem::Emitted { values: vec![], elements: vec![], accesses: vec![], address_alu: 3 };
    /// assert_eq!(e.address_alu_per_access(), None);
    /// ```
    pub fn address_alu_per_access(&self) -> Option<f64> {
        (!self.accesses.is_empty()).then(|| self.address_alu as f64 / self.accesses.len() as f64)
    }
}

impl SmemPlan {
    /// Appends the access for buffer `index`: the address arithmetic (role
    /// [`Role::Address`]), packing or unpacking of sub-word elements (`bfi`/`bfe`, role
    /// [`Role::Data`]) and one `ld/st.shared` per [`PlannedAccess`](super::PlannedAccess).
    /// `stored` holds, for a store, one `.b32` register per layout register (the element in
    /// its low bits); for a load it must be empty and [`Emitted::values`] has the result.
    ///
    /// Errors: [`SmemError::ValueCount`], [`SmemError::RegisterClass`] (a value or index not
    /// `.b32`), [`SmemError::Layout`] (a constant index out of range),
    /// [`SmemError::AddressTooLarge`] (an immediate past `i32`), [`SmemError::Ptx`].
    ///
    /// ```
    /// use codegen::access::{Access, BufferIndex, BufferLowering};
    /// use codegen::interp::{run, Config};
    /// use codegen::ptx::{parse, Builder, ParamType, Role, Target};
    /// use codegen::smem::{SmemContext, SmemPlan};
    /// use linear_layout::{Address, AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
    /// let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
    ///     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[64, 64])?;
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[(3, 8192)])?, 16, &enc, &[64, 64])?;
    /// let plan = SmemPlan::new(&map, &regs, Access::load(16), BufferLowering::Explicit)?;
    ///
    /// let mut b = Builder::new("load_stage", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// b.param("stage", ParamType::U32)?;
    /// let stage = b.with_role(Role::Data, |b| b.ld_param("stage"))?;
    /// let mut ctx = SmemContext::new(&mut b, "smem")?;
    /// let out = plan.emit(&mut b, &mut ctx, BufferIndex::Runtime(stage), &[])?;
    /// b.ret()?;
    /// assert_eq!((out.values.len(), out.accesses.len()), (32, 4)); // 4 × ld.shared.v4.b32
    /// // shl + shl + lop3 (thread base), mad.lo (stage), add: 5 for 4 accesses.
    /// assert_eq!(out.address_alu, 5);
    ///
    /// let k = parse(&b.finish()?.to_string())?;
    /// let run = run(&k, &Config::new(128).dynamic_shared(3 * 8192), &[codegen::interp::ParamValue::U32(2)])?;
    /// let first = run.trace.iter().find(|a| a.thread == 9).map(|a| a.location.to_address(run.layout.dynamic_start));
    /// // thread 9: lane 9 = row 1, chunk 1 (16 bytes); registers 0..8 are its 8 columns.
    /// assert_eq!(first, Some(Some(map.address(2, &[1, 8])?)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn emit(
        &self,
        b: &mut Builder,
        ctx: &mut SmemContext,
        index: BufferIndex,
        stored: &[Reg],
    ) -> Result<Emitted, SmemError> {
        let elements: Vec<Element> = stored.iter().copied().map(Element::alone).collect();
        self.emit_elements(b, ctx, index, &elements, true)
    }

    /// [`emit`](SmemPlan::emit) for packed data: `stored` holds one [`Element`] per layout
    /// register (the words of an earlier load stay as they are), and a load names its
    /// elements inside the loaded words ([`Emitted::elements`]) instead of extracting each.
    /// Elements already in an access's order cost no instruction; others are gathered with
    /// `bfi` (elements alone in their registers), `prmt` (bytes inside packed words) or
    /// `bfe` + `bfi` (sub-byte elements inside packed words).
    ///
    /// Errors: those of [`emit`](SmemPlan::emit), and [`SmemError::RegisterLayout`] for an
    /// element that is not a whole field of its word.
    ///
    /// ```
    /// use codegen::access::{Access, BufferIndex, BufferLowering};
    /// use codegen::ptx::{Builder, Target};
    /// use codegen::smem::{SmemContext, SmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Blocked, NvmmaShared, SharedEncoding}};
    /// let regs = Blocked { size_per_thread: vec![1, 8], threads_per_warp: vec![4, 8],
    ///     warps_per_cta: vec![4, 1], order: vec![1, 0], cga_layout: vec![] }.to_linear_layout(&[64, 64])?;
    /// let enc = SharedEncoding::Nvmma(NvmmaShared::new(128, 16, false, false, vec![])?);
    /// let map = AddressMap::from_shared_encoding(BufferMap::new(0, &[])?, 16, &enc, &[64, 64])?;
    /// let load = SmemPlan::new(&map, &regs, Access::load(16), BufferLowering::Explicit)?;
    /// let store = SmemPlan::new(&map, &regs, Access::store(16), BufferLowering::Explicit)?;
    /// let mut b = Builder::new("copy", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// let mut ctx = SmemContext::new(&mut b, "smem")?;
    /// let loaded = load.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &[], false)?;
    /// let before = b.kernel().instruction_count();
    /// store.emit_elements(&mut b, &mut ctx, BufferIndex::Const(0), &loaded.elements, false)?;
    /// // The 32 f16 elements stay in the 16 loaded words: 4 stores and nothing else.
    /// assert_eq!(b.kernel().instruction_count() - before, 4);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn emit_elements(
        &self,
        b: &mut Builder,
        ctx: &mut SmemContext,
        index: BufferIndex,
        stored: &[Element],
        extract: bool,
    ) -> Result<Emitted, SmemError> {
        let expected = match self.access().op {
            MemoryOp::Store => self.registers(),
            MemoryOp::Load => 0,
        };
        if stored.len() != expected {
            return Err(SmemError::ValueCount {
                expected,
                found: stored.len(),
            });
        }
        words::check_elements(stored, self.access().element_bits)?;
        let before = b.kernel().address_alu_count();
        let span = self.thread_base().span();
        let headroom = self
            .accesses()
            .iter()
            .map(|a| u64::from(a.constant & !span))
            .max()
            .unwrap_or(0);
        // `with_role` takes PTX-error closures: carry the emitter's own error inside.
        let (p, w, immediate, align_log2) = b.with_role(Role::Address, |b| {
            Ok(self.address_base(b, ctx, index, span, headroom))
        })??;
        let a = match w {
            Some(w) => b.with_role(Role::Address, |b| ctx.sum(b, p, w))?,
            None => p,
        };
        let mut accesses = Vec::with_capacity(self.accesses().len());
        let mut loaded: Vec<Option<Element>> = vec![None; self.registers()];
        let bits = self.access().element_bits;
        for planned in self.accesses() {
            let x = planned.constant & span;
            let y = planned.constant & !span;
            let base = match (x, w) {
                (0, _) | (_, None) => a,
                (x, Some(w)) => match ctx.xors.get(&(p, w, x)) {
                    Some(&r) => r,
                    None => {
                        let r = b.with_role(Role::Address, |b| {
                            if u64::from(x) >> align_log2 == 0 {
                                b.xor(Width::B32, a, x)
                            } else {
                                let wx = b.xor(Width::B32, w, x)?;
                                b.add(IntType::U32, p, wx)
                            }
                        })?;
                        ctx.xors.insert((p, w, x), r);
                        r
                    }
                },
            };
            let imm = immediate.saturating_add(u64::from(y));
            let offset = i32::try_from(imm).map_err(|_| SmemError::AddressTooLarge {
                what: "address immediate",
                value: imm,
            })?;
            let address = Address::new(base, offset);
            let stmt = match (self.access().op, self.matrix()) {
                (MemoryOp::Store, None) => self.store(b, address, &planned.slots, stored)?,
                (MemoryOp::Load, None) => {
                    self.load(b, address, &planned.slots, extract, &mut loaded)?
                }
                (MemoryOp::Store, Some((count, trans))) => {
                    let words = words::pack(b, bits, &planned.slots, 4, stored)?;
                    let stmt = b.kernel().body.len();
                    b.stmatrix(count, trans, address, &words)?;
                    stmt
                }
                (MemoryOp::Load, Some((count, trans))) => {
                    let stmt = b.kernel().body.len();
                    let words = b.ldmatrix(count, trans, address)?;
                    words::unpack(b, bits, &words, &planned.slots, 4, extract, &mut loaded)?;
                    stmt
                }
            };
            accesses.push(EmittedAccess {
                stmt,
                address,
                slots: planned.slots.clone(),
                matrix: self.matrix(),
            });
        }
        let elements: Vec<Element> = match self.access().op {
            MemoryOp::Store => Vec::new(),
            MemoryOp::Load => loaded
                .into_iter()
                .enumerate()
                .map(|(r, v)| {
                    v.ok_or_else(|| SmemError::RegisterLayout {
                        reason: format!("register {r} is in no access"),
                    })
                })
                .collect::<Result<_, _>>()?,
        };
        let values = match extract {
            true => elements.iter().map(|e| e.word).collect(),
            false => Vec::new(),
        };
        Ok(Emitted {
            values,
            elements,
            accesses,
            address_alu: b.kernel().address_alu_count() - before,
        })
    }

    /// `(P, W, immediate, log2 align(P))` with every address `P + (W ^ X) + immediate + Y`:
    /// `P` the shared base plus whatever of `B(i)` is not in `W`, `W` the thread base plus
    /// (when [`fusable`](buffer::fusable)) a run-time `B(i)`.
    fn address_base(
        &self,
        b: &mut Builder,
        ctx: &mut SmemContext,
        index: BufferIndex,
        span: u32,
        headroom: u64,
    ) -> Result<(Reg, Option<Reg>, u64, u32), SmemError> {
        let t = ctx.thread_base(b, self.thread_base())?;
        if let (BufferIndex::Runtime(i), Some(t)) = (index, t) {
            if buffer::fusable(self, span) {
                let w = ctx.fused(b, self, i, t, span)?;
                let base = self.map().buffer().base();
                return Ok((ctx.smem, Some(w), base, ctx.align_log2));
            }
        }
        let part = ctx.buffer_part(b, self, index, headroom)?;
        Ok((part.q, t, part.immediate, part.align_log2))
    }

    fn store(
        &self,
        b: &mut Builder,
        address: Address,
        slots: &[Vec<usize>],
        stored: &[Element],
    ) -> Result<usize, SmemError> {
        let bits = self.access().element_bits;
        let words = words::pack(b, bits, slots, self.vector().ty.bytes(), stored)?;
        let stmt = b.kernel().body.len();
        b.st(StateSpace::Shared, self.vector().ty, address, &words)?;
        Ok(stmt)
    }

    fn load(
        &self,
        b: &mut Builder,
        address: Address,
        slots: &[Vec<usize>],
        extract: bool,
        loaded: &mut [Option<Element>],
    ) -> Result<usize, SmemError> {
        let words: Vec<Reg> = (0..self.vector().words)
            .map(|_| b.reg(RegType::B32))
            .collect();
        let stmt = b.kernel().body.len();
        b.ld_into(StateSpace::Shared, self.vector().ty, words.clone(), address)?;
        let bits = self.access().element_bits;
        let word_bytes = self.vector().ty.bytes();
        words::unpack(b, bits, &words, slots, word_bytes, extract, loaded)?;
        Ok(stmt)
    }
}
