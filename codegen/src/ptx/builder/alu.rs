//! The ALU helpers of [`Builder`]: each returns its fresh destination register.

use super::Builder;
use crate::ptx::error::PtxError;
use crate::ptx::inst::Op;
use crate::ptx::operands::{ArithOp, LogicOp, MovSource};
use crate::ptx::reg::{Operand, Reg, RegType, SpecialReg};
use crate::ptx::types::{CmpOp, IntType, Width};

impl Builder {
    /// `mov` of a register or immediate into a fresh register of class `ty`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let c = b.mov(RegType::B32, 0x4000_0040u32)?;
    /// assert!(b.finish()?.to_string().contains("mov.u32 %r0, 1073741888;"));
    /// # let _ = c;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mov(&mut self, ty: RegType, src: impl Into<Operand>) -> Result<Reg, PtxError> {
        let src = MovSource::Operand(src.into());
        self.def(ty, |d| Op::Mov { d, src })
    }

    /// `mov.u32 d, %tid.x` (or another special register).
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.special(SpecialReg::LaneId)?;
    /// assert!(b.finish()?.to_string().contains("mov.u32 %r0, %laneid;"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn special(&mut self, s: SpecialReg) -> Result<Reg, PtxError> {
        self.def(RegType::B32, |d| Op::Mov {
            d,
            src: MovSource::Special(s),
        })
    }

    /// `mov.u32 d, name`: the shared-window address of a declared `.shared` variable.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// b.shared_address("smem")?;
    /// assert!(b.shared_address("nope").is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn shared_address(&mut self, name: &str) -> Result<Reg, PtxError> {
        let src = MovSource::Shared(name.to_string());
        self.def(RegType::B32, |d| Op::Mov { d, src })
    }

    /// `<op>.<ty> d, a, b` for any [`ArithOp`].
    ///
    /// ```
    /// use codegen::ptx::{ArithOp, Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.arith(ArithOp::Rem, IntType::U32, t, 3)?;
    /// assert!(b.finish()?.to_string().contains("rem.u32 %r1, %r0, 3;"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn arith(
        &mut self,
        op: ArithOp,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b) = (a.into(), b.into());
        self.def(ty.reg_type(), |d| Op::Arith { op, ty, d, a, b })
    }

    /// `add.<ty>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// assert_eq!(b.add(IntType::S32, t, -4)?.to_string(), "%r1");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn add(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::Add, ty, a, b)
    }

    /// `sub.<ty>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.sub(IntType::U32, 64, t)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn sub(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::Sub, ty, a, b)
    }

    /// `mul.lo.<ty>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.mul_lo(IntType::U32, t, 96)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mul_lo(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::MulLo, ty, a, b)
    }

    /// `div.<ty>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.div(IntType::U32, t, 3)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn div(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::Div, ty, a, b)
    }

    /// `rem.<ty>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.rem(IntType::U32, t, 3)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn rem(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::Rem, ty, a, b)
    }

    /// `shr.<ty>` (`b` a 32-bit amount).
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.shr(IntType::U32, t, 5)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn shr(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.arith(ArithOp::Shr, ty, a, b)
    }

    /// `<op>.<width> d, a, b` for any [`LogicOp`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, LogicOp, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.logic(LogicOp::Or, Width::B32, t, 0x10)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn logic(
        &mut self,
        op: LogicOp,
        width: Width,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b) = (a.into(), b.into());
        self.def(width.reg_type(), |d| Op::Logic { op, width, d, a, b })
    }

    /// `and.<width>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.and(Width::B32, t, 31)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn and(
        &mut self,
        width: Width,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.logic(LogicOp::And, width, a, b)
    }

    /// `or.<width>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.or(Width::B32, t, 0x400)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn or(
        &mut self,
        width: Width,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.logic(LogicOp::Or, width, a, b)
    }

    /// `xor.<width>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.xor(Width::B32, t, 0x70)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn xor(
        &mut self,
        width: Width,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.logic(LogicOp::Xor, width, a, b)
    }

    /// `shl.<width>` (`b` a 32-bit amount).
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.shl(Width::B32, t, 4)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn shl(
        &mut self,
        width: Width,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.logic(LogicOp::Shl, width, a, b)
    }

    /// `not.<width>`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target, Width};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.not(Width::B32, t)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn not(&mut self, width: Width, a: impl Into<Operand>) -> Result<Reg, PtxError> {
        let a = a.into();
        self.def(width.reg_type(), |d| Op::Not { width, d, a })
    }

    /// `mad.lo.<ty> d, a, b, c`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.mad_lo(IntType::S32, t, 128, 0)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mad_lo(
        &mut self,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b, c) = (a.into(), b.into(), c.into());
        self.def(ty.reg_type(), |d| Op::MadLo { ty, d, a, b, c })
    }

    /// `mul.wide.u32 d, a, b` into a fresh `.b64`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// assert_eq!(b.mul_wide_u32(t, 4)?.to_string(), "%rd0");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mul_wide_u32(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b) = (a.into(), b.into());
        self.def(RegType::B64, |d| Op::MulWide { d, a, b })
    }

    /// `mad.wide.u32 d, a, b, c` into a fresh `.b64`: `a · b` widened, plus the `.b64` `c`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// let base = b.mul_wide_u32(t, 0)?;
    /// assert_eq!(b.mad_wide_u32(t, 4, base)?.to_string(), "%rd1");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn mad_wide_u32(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b, c) = (a.into(), b.into(), c.into());
        self.def(RegType::B64, |d| Op::MadWide { d, a, b, c })
    }

    /// `lop3.b32 d, a, b, c, lut` (`a ^ (b & c)` is `0x78`, `a ^ b ^ c` is `0x96`,
    /// `(a & b) | c` is `0xEA`).
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let off = b.special(SpecialReg::TidX)?;
    /// let hi = b.shr(IntType::U32, off, 3)?;
    /// b.lop3(off, hi, 0x70, 0x78)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn lop3(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        c: impl Into<Operand>,
        lut: u8,
    ) -> Result<Reg, PtxError> {
        let (a, b, c) = (a.into(), b.into(), c.into());
        self.def(RegType::B32, |d| Op::Lop3 { d, a, b, c, lut })
    }

    /// `bfe.u32 d, a, pos, len`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.bfe(t, 0, 4)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn bfe(
        &mut self,
        a: impl Into<Operand>,
        pos: impl Into<Operand>,
        len: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.bit_field(a.into(), pos.into(), len.into(), false)
    }

    /// `bfe.s32 d, a, pos, len`: the field sign-extended.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// let f = b.bfe_signed(t, 3, 1)?;
    /// assert!(b.finish()?.to_string().contains(&format!("bfe.s32 {f}, {t}, 3, 1;")));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn bfe_signed(
        &mut self,
        a: impl Into<Operand>,
        pos: impl Into<Operand>,
        len: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        self.bit_field(a.into(), pos.into(), len.into(), true)
    }

    /// `bfe.u32` or `bfe.s32` into a fresh `.b32`.
    fn bit_field(
        &mut self,
        a: Operand,
        pos: Operand,
        len: Operand,
        signed: bool,
    ) -> Result<Reg, PtxError> {
        self.def(RegType::B32, |d| Op::Bfe {
            d,
            a,
            pos,
            len,
            signed,
        })
    }

    /// `bfi.b32 d, a, b, pos, len`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.bfi(t, 0, 8, 4)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn bfi(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        pos: impl Into<Operand>,
        len: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b, pos, len) = (a.into(), b.into(), pos.into(), len.into());
        self.def(RegType::B32, |d| Op::Bfi { d, a, b, pos, len })
    }

    /// `prmt.b32 d, a, b, sel`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.prmt(t, 0, 0x5410)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn prmt(
        &mut self,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
        sel: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b, sel) = (a.into(), b.into(), sel.into());
        self.def(RegType::B32, |d| Op::Prmt { d, a, b, sel })
    }

    /// `cvt.u64.u32 d, a` (zero-extend into a fresh `.b64`).
    ///
    /// ```
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// let w = b.cvt_u64_u32(t)?;
    /// b.cvt_u32_u64(w)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn cvt_u64_u32(&mut self, a: Reg) -> Result<Reg, PtxError> {
        self.def(RegType::B64, |d| Op::Cvt { d, a })
    }

    /// `cvt.u32.u64 d, a` (truncate into a fresh `.b32`).
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let w = b.mov(RegType::B64, 1u64 << 40)?;
    /// b.cvt_u32_u64(w)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn cvt_u32_u64(&mut self, a: Reg) -> Result<Reg, PtxError> {
        self.def(RegType::B32, |d| Op::Cvt { d, a })
    }

    /// `setp.<cmp>.<ty> p, a, b` into a fresh `.pred`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, CmpOp, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// assert_eq!(b.setp(CmpOp::Lt, IntType::U32, t, 32)?.to_string(), "%p0");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn setp(
        &mut self,
        cmp: CmpOp,
        ty: IntType,
        a: impl Into<Operand>,
        b: impl Into<Operand>,
    ) -> Result<Reg, PtxError> {
        let (a, b) = (a.into(), b.into());
        self.def(RegType::Pred, |d| Op::Setp { cmp, ty, d, a, b })
    }

    /// `cvta.to.global.u64 d, a`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, ParamType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("out", ParamType::U64)?;
    /// let p = b.ld_param("out")?;
    /// b.cvta_to_global(p)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn cvta_to_global(&mut self, a: Reg) -> Result<Reg, PtxError> {
        self.def(RegType::B64, |d| Op::CvtaGlobal { d, a })
    }
}
