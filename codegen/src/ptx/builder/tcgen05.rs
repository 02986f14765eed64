//! The `tcgen05` helpers of [`Builder`] (sm_100a): tensor-memory allocation, `ld`/`st`, waits
//! and fences.

use super::Builder;
use crate::ptx::error::PtxError;
use crate::ptx::inst::Op;
use crate::ptx::operands::Address;
use crate::ptx::reg::{Operand, Reg, RegType};
use crate::ptx::types::TmemShape;

impl Builder {
    /// `tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [dst], ncols`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.shared("slot", 16, 4)?;
    /// let s = b.shared_address("slot")?;
    /// b.tcgen05_alloc(s, 64)?;
    /// assert!(b.tcgen05_alloc(s, 48).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_alloc(
        &mut self,
        dst: impl Into<Address>,
        ncols: impl Into<Operand>,
    ) -> Result<(), PtxError> {
        self.push(Op::TmemAlloc {
            dst: dst.into(),
            ncols: ncols.into(),
        })
    }

    /// `tcgen05.dealloc.cta_group::1.sync.aligned.b32 taddr, ncols`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, DataType, StateSpace, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.shared("slot", 16, 4)?;
    /// let s = b.shared_address("slot")?;
    /// let t = b.ld(StateSpace::Shared, DataType::B32, 1, s)?;
    /// b.tcgen05_dealloc(t[0], 64)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_dealloc(
        &mut self,
        taddr: impl Into<Operand>,
        ncols: impl Into<Operand>,
    ) -> Result<(), PtxError> {
        self.push(Op::TmemDealloc {
            taddr: taddr.into(),
            ncols: ncols.into(),
        })
    }

    /// `tcgen05.relinquish_alloc_permit.cta_group::1.sync.aligned`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.tcgen05_relinquish_alloc_permit()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_relinquish_alloc_permit(&mut self) -> Result<(), PtxError> {
        self.push(Op::TmemRelinquish)
    }

    /// `tcgen05.ld.sync.aligned.<shape>.x<num>.b32` into `shape.registers(num)` fresh
    /// `.b32`s; an invalid `num` is a [`PtxError::Tcgen05Repeat`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target, TmemShape};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let taddr = b.mov(RegType::B32, 0)?;
    /// assert_eq!(b.tcgen05_ld(TmemShape::S16x256b, 2, taddr)?.len(), 8);
    /// assert!(b.tcgen05_ld(TmemShape::S16x256b, 64, taddr).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_ld(
        &mut self,
        shape: TmemShape,
        num: u32,
        taddr: impl Into<Address>,
    ) -> Result<Vec<Reg>, PtxError> {
        self.tcgen05_ld_with(shape, num, false, taddr)
    }

    /// `tcgen05.ld…[.pack::16b]`: with `pack`, register `r` takes the low 16 bits of the two
    /// columns the shape's register `r` covers twice over (columns `2c`, `2c + 1`).
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target, TmemShape};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let taddr = b.mov(RegType::B32, 0)?;
    /// b.tcgen05_ld_with(TmemShape::S32x32b, 4, true, taddr)?;
    /// assert!(b.finish()?.to_string().contains("tcgen05.ld.sync.aligned.32x32b.x4.pack::16b.b32"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_ld_with(
        &mut self,
        shape: TmemShape,
        num: u32,
        pack: bool,
        taddr: impl Into<Address>,
    ) -> Result<Vec<Reg>, PtxError> {
        let n = shape.registers(num)?;
        let start = self.peek(RegType::B32).index();
        let d: Vec<Reg> = (0..n)
            .map(|i| Reg::new(RegType::B32, start.saturating_add(i)))
            .collect();
        self.push(Op::TmemLd {
            shape,
            num,
            pack,
            d: d.clone(),
            taddr: taddr.into(),
        })?;
        Ok(d)
    }

    /// `tcgen05.st.sync.aligned.<shape>.x<num>.b32 [taddr], src`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target, TmemShape};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let taddr = b.mov(RegType::B32, 0)?;
    /// assert!(b.tcgen05_st(TmemShape::S32x32b, 2, taddr, &[taddr]).is_err());
    /// b.tcgen05_st(TmemShape::S32x32b, 1, taddr, &[taddr])?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_st(
        &mut self,
        shape: TmemShape,
        num: u32,
        taddr: impl Into<Address>,
        src: &[Reg],
    ) -> Result<(), PtxError> {
        self.tcgen05_st_with(shape, num, false, taddr, src)
    }

    /// `tcgen05.st…[.unpack::16b]`: with `unpack`, register `r`'s low and high halves go to
    /// the low 16 bits of columns `2c` and `2c + 1`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target, TmemShape};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// let taddr = b.mov(RegType::B32, 0)?;
    /// b.tcgen05_st_with(TmemShape::S32x32b, 1, true, taddr, &[taddr])?;
    /// assert!(b.finish()?.to_string().contains("tcgen05.st.sync.aligned.32x32b.x1.unpack::16b.b32"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_st_with(
        &mut self,
        shape: TmemShape,
        num: u32,
        unpack: bool,
        taddr: impl Into<Address>,
        src: &[Reg],
    ) -> Result<(), PtxError> {
        self.push(Op::TmemSt {
            shape,
            num,
            unpack,
            taddr: taddr.into(),
            src: src.to_vec(),
        })
    }

    /// `tcgen05.wait::ld.sync.aligned`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.tcgen05_wait_ld()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_wait_ld(&mut self) -> Result<(), PtxError> {
        self.push(Op::TmemWaitLd)
    }

    /// `tcgen05.wait::st.sync.aligned`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.tcgen05_wait_st()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_wait_st(&mut self) -> Result<(), PtxError> {
        self.push(Op::TmemWaitSt)
    }

    /// `tcgen05.fence::before_thread_sync`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.tcgen05_fence_before_thread_sync()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_fence_before_thread_sync(&mut self) -> Result<(), PtxError> {
        self.push(Op::TmemFenceBefore)
    }

    /// `tcgen05.fence::after_thread_sync`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.tcgen05_fence_after_thread_sync()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn tcgen05_fence_after_thread_sync(&mut self) -> Result<(), PtxError> {
        self.push(Op::TmemFenceAfter)
    }
}
