//! Emission: the allocation protocol ([`TmemContext`]), a warp's TMEM address, and the
//! `tcgen05.ld/st` messages of a [`TmemPlan`] for a constant or run-time [`BufferIndex`].

use linear_layout::families::tcgen05_alloc_columns;

use super::error::TmemError;
use super::plan::TmemPlan;
use crate::access::BufferIndex;
use crate::ptx::{
    Address, Builder, CmpOp, DataType, Guard, IntType, PtxError, Reg, RegType, Role, SpecialReg,
    StateSpace,
};

/// The `.shared` word `tcgen05.alloc` writes the TMEM base address to.
pub const TMEM_SLOT: &str = "tmem_slot";

/// A buffer's TMEM address for one warp ([`TmemPlan::address`]): message `m` is at
/// `[reg + column + m.offset()]`.
///
/// ```
/// use codegen::ptx::{Reg, RegType};
/// use codegen::tmem::TmemAddress;
/// let at = TmemAddress { reg: Reg::new(RegType::B32, 7), column: 128 };
/// assert_eq!(at.column, 128);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TmemAddress {
    /// The warp's address plus the run-time part of the buffer offset.
    pub reg: Reg,
    /// The constant part of the buffer offset (columns), folded into the immediates.
    pub column: u64,
}

/// `tcgen05.fence::before_thread_sync; bar.sync 0; tcgen05.fence::after_thread_sync`: hands
/// tensor memory (or its address) from some threads to others.
///
/// ```
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm100a)?;
/// codegen::tmem::thread_sync(&mut b)?;
/// assert_eq!(b.kernel().instruction_count(), 3);
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
pub fn thread_sync(b: &mut Builder) -> Result<(), PtxError> {
    b.tcgen05_fence_before_thread_sync()?;
    b.bar_sync(0)?;
    b.tcgen05_fence_after_thread_sync()
}

/// The registers of a kernel's TMEM allocation: made by [`TmemContext::alloc`], released by
/// [`TmemContext::free`].
///
/// ```
/// use codegen::interp::{run, Config};
/// use codegen::ptx::{Builder, Target};
/// use codegen::tmem::TmemContext;
/// let mut b = Builder::new("k", Target::Sm100a)?;
/// let ctx = TmemContext::alloc(&mut b, 100)?;
/// assert_eq!(ctx.ncols, 128);
/// ctx.free(&mut b)?;
/// b.ret()?;
/// let k = b.finish()?;
/// assert!(k.to_string().contains("@%p0 tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%r2], 128;"));
/// run(&k, &Config::new(128), &[])?; // allocates, frees, leaks nothing
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TmemContext {
    /// `%tid.x`.
    pub tid: Reg,
    /// `%tid.x >> 5`.
    pub warp: Reg,
    /// Whether this thread is in warp 0 (which allocates and frees).
    pub is_warp0: Reg,
    /// The shared address of [`TMEM_SLOT`].
    pub slot: Reg,
    /// The allocation's TMEM address (lane 0, its first column), read back from the slot.
    pub base: Reg,
    /// Columns allocated: a power of two in 32..=512.
    pub ncols: u32,
}

impl TmemContext {
    /// Declares `.shared .align 16 .b8 tmem_slot[4]` and emits: `%tid.x`, the warp, warp 0's
    /// `tcgen05.alloc` of [`tcgen05_alloc_columns`]`(columns)` (at least 32) into the slot,
    /// [`thread_sync`], and every thread's `ld.shared` of the base.
    ///
    /// Errors: more than 512 columns ([`TmemError::Layout`]); a kernel that already declares
    /// `tmem_slot` or targets sm_90a ([`TmemError::Ptx`]).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// use codegen::tmem::TmemContext;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// assert!(TmemContext::alloc(&mut b, 513).is_err());
    /// assert_eq!(TmemContext::alloc(&mut b, 0)?.ncols, 32);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn alloc(b: &mut Builder, columns: u32) -> Result<TmemContext, TmemError> {
        let ncols = tcgen05_alloc_columns(columns.max(1))?;
        b.shared(TMEM_SLOT, 16, 4)?;
        let tid = b.special(SpecialReg::TidX)?;
        let warp = b.shr(IntType::U32, tid, 5)?;
        let slot = b.with_role(Role::Control, |b| b.shared_address(TMEM_SLOT))?;
        let is_warp0 = b.setp(CmpOp::Eq, IntType::U32, warp, 0)?;
        b.guarded(Guard::when(is_warp0), |b| b.tcgen05_alloc(slot, ncols))?;
        thread_sync(b)?;
        let base = b.with_role(Role::Control, |b| {
            b.ld(StateSpace::Shared, DataType::B32, 1, slot)
        })?;
        let base = base.first().copied().ok_or(PtxError::VectorLength {
            inst: "ld.shared.b32".into(),
            expected: "1".into(),
            found: 0,
        })?;
        Ok(TmemContext {
            tid,
            warp,
            is_warp0,
            slot,
            base,
            ncols,
        })
    }

    /// [`thread_sync`], then warp 0's `tcgen05.dealloc` and
    /// `tcgen05.relinquish_alloc_permit`. Errors: [`TmemError::Ptx`] (sm_90a).
    pub fn free(&self, b: &mut Builder) -> Result<(), TmemError> {
        thread_sync(b)?;
        b.guarded(Guard::when(self.is_warp0), |b| {
            b.tcgen05_dealloc(self.base, self.ncols)?;
            b.tcgen05_relinquish_alloc_permit()
        })?;
        Ok(())
    }
}

impl TmemPlan {
    /// The warp's TMEM address `base + (32·(warp % 4) << 16) + Σ warp offsets`: one
    /// `bfi.b32 t, warp, base, 21, 2` (the lane field of an allocated address is 0, so
    /// inserting `warp % 4` at bit 21 adds it), then `bfe`/`shr` + `mad.lo` per
    /// [`WarpOffset`](super::WarpOffset). Tagged [`Role::Address`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// use codegen::access::BufferIndex;
    /// use codegen::tmem::{TmemContext, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &tm, &[128, 64])?;
    /// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 64], Tcgen05Atom::M32x32b, 8)?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let ctx = TmemContext::alloc(&mut b, 64)?;
    /// let before = b.kernel().address_alu_count();
    /// plan.warp_address(&mut b, &ctx)?;
    /// // 8 warps split the 64 columns: warps 4..7 add 32 columns (shr + mad.lo).
    /// assert_eq!(b.kernel().address_alu_count() - before, 3);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn warp_address(&self, b: &mut Builder, ctx: &TmemContext) -> Result<Reg, TmemError> {
        let top = self.num_warps().trailing_zeros().saturating_sub(1);
        let offsets = self.warp_offsets().to_vec();
        Ok(b.with_role(Role::Address, |b| {
            let mut t = b.bfi(ctx.warp, ctx.base, 21, 2)?;
            for w in offsets {
                let bit = if w.bit == top {
                    b.shr(IntType::U32, ctx.warp, w.bit)?
                } else {
                    b.bfe(ctx.warp, w.bit, 1)?
                };
                t = b.mad_lo(IntType::U32, bit, w.offset(), t)?;
            }
            Ok(t)
        })?)
    }

    /// The address of buffer `index` for this warp: a register and a constant column that
    /// every message adds its offset to (as one `[reg+imm]` immediate). For a constant index,
    /// `(warp_taddr, base + B(i))`: no instruction. For a run-time index, `B(i) = Σ_k c_k ·
    /// (i / P_k)` with `P_k` the product of the sizes before mode `k`, `c_0 = d_0` and
    /// `c_k = d_k − d_{k−1}·s_{k−1}` (the mixed-radix digits telescoped, so no `and`/`rem`):
    /// one `mad.lo` for the first mode, `shr` (`div` when `P_k` is not a power of two) +
    /// `mad.lo` per further mode with `c_k ≠ 0`; the map's base stays in the immediate.
    /// Tagged [`Role::Address`]. Compute it once and pass it to [`load_at`](Self::load_at) /
    /// [`store_at`](Self::store_at) when several accesses use one index.
    ///
    /// Errors: [`TmemError::Layout`] (a constant index out of range),
    /// [`TmemError::IndexRegister`] (not a `.b32` register), [`TmemError::Ptx`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, Target};
    /// use codegen::access::BufferIndex;
    /// use codegen::tmem::{TmemAddress, TmemContext, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 1, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let alpha = AddressMap::tensor_memory(BufferMap::new(64, &[(2, 128)])?, 32, &tm, &[128, 1])?;
    /// let plan = TmemPlan::for_tensor_memory(&alpha, &tm, &[128, 1], Tcgen05Atom::M32x32b, 4)?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let ctx = TmemContext::alloc(&mut b, 256)?;
    /// let t = plan.warp_address(&mut b, &ctx)?;
    /// assert_eq!(plan.address(&mut b, t, BufferIndex::Const(1))?, TmemAddress { reg: t, column: 192 });
    /// let i = b.shr(IntType::U32, ctx.tid, 31)?;
    /// let at = plan.address(&mut b, t, BufferIndex::Runtime(i))?;
    /// assert_eq!(at.column, 64); // the base; 128·i is one mad.lo
    /// assert!(b.kernel().to_string().contains(&format!("mad.lo.u32 {}, {i}, 128, {t};", at.reg)));
    /// assert!(plan.address(&mut b, t, BufferIndex::Const(2)).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn address(
        &self,
        b: &mut Builder,
        warp_taddr: Reg,
        index: BufferIndex,
    ) -> Result<TmemAddress, TmemError> {
        let i = match index {
            BufferIndex::Const(i) => {
                return Ok(TmemAddress {
                    reg: warp_taddr,
                    column: self.buffer().offset(i)?,
                })
            }
            BufferIndex::Runtime(r) if r.ty() == RegType::B32 => r,
            BufferIndex::Runtime(r) => {
                return Err(TmemError::IndexRegister {
                    found: r.to_string(),
                })
            }
        };
        let modes: Vec<(u64, u64)> = self
            .buffer()
            .modes()
            .iter()
            .copied()
            .filter(|&(s, _)| s > 1)
            .collect();
        let reg = b.with_role(Role::Address, |b| {
            let mut t = warp_taddr;
            let mut before = 1u64;
            let mut previous: Option<(u64, u64)> = None;
            for (size, stride) in modes {
                let coef = match previous {
                    None => stride,
                    Some((s, d)) => stride.wrapping_sub(d.wrapping_mul(s)),
                } as u32;
                if coef != 0 {
                    let q = if before == 1 {
                        i
                    } else if before.is_power_of_two() {
                        b.shr(IntType::U32, i, before.trailing_zeros())?
                    } else {
                        b.div(IntType::U32, i, before)?
                    };
                    t = b.mad_lo(IntType::U32, q, coef, t)?;
                }
                before = before.saturating_mul(size);
                previous = Some((size, stride));
            }
            Ok(t)
        })?;
        Ok(TmemAddress {
            reg,
            column: self.buffer().base(),
        })
    }

    /// `[reg + column + message offset]` for each message.
    fn message_addresses(&self, at: TmemAddress) -> Result<Vec<Address>, TmemError> {
        self.messages()
            .iter()
            .map(|m| {
                let value = at.column.saturating_add(u64::from(m.offset()));
                let imm = i32::try_from(value).map_err(|_| TmemError::Immediate { value })?;
                Ok(Address::new(at.reg, imm))
            })
            .collect()
    }

    /// Loads buffer `index`: the messages of [`messages`](Self::messages) from
    /// `warp_taddr` ([`warp_address`](Self::warp_address)) into fresh registers, then
    /// `tcgen05.wait::ld`. Returns the [`registers`](Self::registers) registers in order.
    ///
    /// Errors: [`TmemError::Layout`] (a constant index out of range),
    /// [`TmemError::IndexRegister`], [`TmemError::Ptx`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// use codegen::access::BufferIndex;
    /// use codegen::tmem::{TmemContext, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 128, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let s = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 128)])?, 32, &tm, &[128, 128])?;
    /// let plan = TmemPlan::for_tensor_memory(&s, &tm, &[128, 128], Tcgen05Atom::M16x64b, 4)?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let ctx = TmemContext::alloc(&mut b, 256)?;
    /// let t = plan.warp_address(&mut b, &ctx)?;
    /// let regs = plan.load(&mut b, t, BufferIndex::Const(1))?;
    /// assert_eq!(regs.len(), 128);
    /// let text = b.kernel().to_string();
    /// assert!(text.contains("tcgen05.ld.sync.aligned.16x64b.x64.b32"));
    /// assert!(text.contains(&format!("[{t}+128]"))); // buffer 1's columns: an immediate
    /// assert!(text.contains(&format!("[{t}+1048704]"))); // lanes 16..31: (16 << 16) + 128
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load(
        &self,
        b: &mut Builder,
        warp_taddr: Reg,
        index: BufferIndex,
    ) -> Result<Vec<Reg>, TmemError> {
        let at = self.address(b, warp_taddr, index)?;
        self.load_at(b, at)
    }

    /// [`load`](Self::load) from an [`address`](Self::address) already computed.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// use codegen::access::BufferIndex;
    /// use codegen::tmem::{TmemAddress, TmemContext, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 8, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let map = AddressMap::tensor_memory(BufferMap::new(0, &[])?, 32, &tm, &[128, 8])?;
    /// let plan = TmemPlan::for_tensor_memory(&map, &tm, &[128, 8], Tcgen05Atom::M16x128b, 4)?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let ctx = TmemContext::alloc(&mut b, 32)?;
    /// let t = plan.warp_address(&mut b, &ctx)?;
    /// let regs = plan.load_at(&mut b, TmemAddress { reg: t, column: 24 })?;
    /// assert_eq!(regs.len(), 8);
    /// assert!(b.kernel().to_string().contains(&format!("16x128b.x2.b32 {{%r5, %r6, %r7, %r8}}, [{t}+24];")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn load_at(&self, b: &mut Builder, at: TmemAddress) -> Result<Vec<Reg>, TmemError> {
        let mut out = Vec::with_capacity(self.registers() as usize);
        for (m, addr) in self.messages().iter().zip(self.message_addresses(at)?) {
            out.extend(b.tcgen05_ld_with(self.shape(), m.num, self.halves(), addr)?);
        }
        b.tcgen05_wait_ld()?;
        Ok(out)
    }

    /// Stores `values` ([`registers`](Self::registers) `.b32` registers, in register order) to
    /// buffer `index`, then `tcgen05.wait::st`.
    ///
    /// Errors: [`TmemError::ValueCount`], and those of [`load`](Self::load).
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, Target};
    /// use codegen::access::BufferIndex;
    /// use codegen::tmem::{TmemContext, TmemPlan};
    /// use linear_layout::{AddressMap, BufferMap, families::{Tcgen05Atom, TensorMemory}};
    /// let tm = TensorMemory { block_m: 128, block_n: 64, col_stride: 1, cga_layout: vec![], two_ctas: false, fp4_padded: false };
    /// let p = AddressMap::tensor_memory(BufferMap::new(0, &[(2, 32), (2, 128)])?, 16, &tm, &[128, 64])?;
    /// let plan = TmemPlan::for_tensor_memory(&p, &tm, &[128, 64], Tcgen05Atom::M32x32b, 4)?;
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let ctx = TmemContext::alloc(&mut b, 192)?;
    /// let t = plan.warp_address(&mut b, &ctx)?;
    /// let i = b.shr(IntType::U32, ctx.tid, 30)?; // any warp-uniform index
    /// let before = b.kernel().address_alu_count();
    /// plan.store(&mut b, t, BufferIndex::Runtime(i), &vec![ctx.tid; 32])?;
    /// // (2,2):(32,128): mad.lo i·32, shr i >> 1, mad.lo ·(128 − 64): 3 ALU for the index.
    /// assert_eq!(b.kernel().address_alu_count() - before, 3);
    /// assert!(plan.store(&mut b, t, BufferIndex::Const(0), &[ctx.tid]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn store(
        &self,
        b: &mut Builder,
        warp_taddr: Reg,
        index: BufferIndex,
        values: &[Reg],
    ) -> Result<(), TmemError> {
        self.check_values(values)?;
        let at = self.address(b, warp_taddr, index)?;
        self.store_at(b, at, values)
    }

    /// [`TmemError::ValueCount`] unless `values` has one register per register of the plan.
    fn check_values(&self, values: &[Reg]) -> Result<(), TmemError> {
        if values.len() == self.registers() as usize {
            Ok(())
        } else {
            Err(TmemError::ValueCount {
                expected: self.registers(),
                found: values.len(),
            })
        }
    }

    /// [`store`](Self::store) to an [`address`](Self::address) already computed.
    /// Errors: [`TmemError::ValueCount`], [`TmemError::Immediate`], [`TmemError::Ptx`].
    pub fn store_at(
        &self,
        b: &mut Builder,
        at: TmemAddress,
        values: &[Reg],
    ) -> Result<(), TmemError> {
        self.check_values(values)?;
        let per_message = values.len() / self.messages().len().max(1);
        for ((m, addr), src) in self
            .messages()
            .iter()
            .zip(self.message_addresses(at)?)
            .zip(values.chunks(per_message.max(1)))
        {
            b.tcgen05_st_with(self.shape(), m.num, self.halves(), addr, src)?;
        }
        b.tcgen05_wait_st()?;
        Ok(())
    }
}
