//! [`Builder`]: hands out fresh registers, checks every instruction as it is added
//! ([`Op::validate`], target features, declared names) and collects a [`Kernel`].

use super::error::PtxError;
use super::inst::{Inst, Op, Stmt};
use super::kernel::{is_identifier, Kernel, Param, ParamType, SharedVar};
use super::operands::{Address, ArithOp, Guard, LogicOp, MovSource};
use super::reg::{Operand, Reg, RegType, SpecialReg};
use super::types::{
    CmpOp, DataType, IntType, MatrixCount, PtxVersion, Role, StateSpace, Target, TmemShape, Width,
};

/// Builds one [`Kernel`].
///
/// ALU helpers return their (fresh) destination register, so address code reads like the
/// arithmetic it emits:
///
/// ```
/// use codegen::ptx::{Builder, IntType, SpecialReg, Target, Width};
/// let mut b = Builder::new("lane_warp", Target::Sm90a)?;
/// let tid = b.special(SpecialReg::TidX)?;
/// let lane = b.and(Width::B32, tid, 31)?;
/// let warp = b.shr(IntType::U32, tid, 5)?;
/// b.ret()?;
/// let k = b.finish()?;
/// assert_eq!(k.address_alu_count(), 3);
/// assert!(k.to_string().contains("and.b32 %r1, %r0, 31;"));
/// # let _ = (lane, warp);
/// # Ok::<(), codegen::ptx::PtxError>(())
/// ```
///
/// Every method that adds an instruction validates it first and returns a [`PtxError`]
/// instead of adding an invalid one. Registers are numbered from 0 per class.
#[derive(Debug, Clone)]
pub struct Builder {
    kernel: Kernel,
    next: [u32; 4],
    role: Option<Role>,
    guard: Option<Guard>,
    fresh_labels: u32,
}

fn class_slot(ty: RegType) -> usize {
    match ty {
        RegType::Pred => 0,
        RegType::B16 => 1,
        RegType::B32 => 2,
        RegType::B64 => 3,
    }
}

impl Builder {
    /// A kernel called `name` for `target`, PTX ISA [`PtxVersion::DEFAULT`].
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// assert!(Builder::new("ok_name", Target::Sm100a).is_ok());
    /// assert!(Builder::new("1bad", Target::Sm100a).is_err());
    /// ```
    pub fn new(name: &str, target: Target) -> Result<Builder, PtxError> {
        if !is_identifier(name) {
            return Err(PtxError::InvalidName {
                what: "kernel",
                name: name.to_string(),
            });
        }
        Ok(Builder {
            kernel: Kernel {
                version: PtxVersion::DEFAULT,
                target,
                name: name.to_string(),
                params: Vec::new(),
                shared: Vec::new(),
                reqntid: None,
                maxntid: None,
                body: Vec::new(),
            },
            next: [0; 4],
            role: None,
            guard: None,
            fresh_labels: 0,
        })
    }

    /// Sets `.version` (checked against the target by [`finish`](Self::finish)).
    ///
    /// ```
    /// use codegen::ptx::{Builder, PtxVersion, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.set_version(PtxVersion::new(8, 6));
    /// assert!(b.finish()?.to_string().starts_with(".version 8.6\n"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn set_version(&mut self, version: PtxVersion) {
        self.kernel.version = version;
    }

    /// `.reqntid n`: the kernel must be launched with exactly `n` threads (1..=1024); not
    /// together with [`maxntid`](Self::maxntid).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.reqntid(128)?;
    /// assert!(b.reqntid(2048).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn reqntid(&mut self, n: u32) -> Result<(), PtxError> {
        check_threads(".reqntid", n)?;
        if self.kernel.maxntid.is_some() {
            return Err(PtxError::BothThreadBounds);
        }
        self.kernel.reqntid = Some(n);
        Ok(())
    }

    /// `.maxntid n` (1..=1024); not together with [`reqntid`](Self::reqntid).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.maxntid(256)?;
    /// assert!(b.reqntid(256).is_err());
    /// assert!(b.finish()?.to_string().contains(".maxntid 256\n"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn maxntid(&mut self, n: u32) -> Result<(), PtxError> {
        check_threads(".maxntid", n)?;
        if self.kernel.reqntid.is_some() {
            return Err(PtxError::BothThreadBounds);
        }
        self.kernel.maxntid = Some(n);
        Ok(())
    }

    /// Declares a parameter.
    ///
    /// ```
    /// use codegen::ptx::{Builder, ParamType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("out", ParamType::U64)?;
    /// assert!(b.param("out", ParamType::U32).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn param(&mut self, name: &str, ty: ParamType) -> Result<(), PtxError> {
        self.check_new_name("param", name)?;
        self.kernel.params.push(Param {
            name: name.to_string(),
            ty,
        });
        Ok(())
    }

    /// Declares a static `.shared .align align .b8 name[size]`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm100a)?;
    /// b.shared("tmem_slot", 16, 4)?;
    /// assert!(b.shared("odd", 12, 4).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn shared(&mut self, name: &str, align: u32, size: u32) -> Result<(), PtxError> {
        self.declare_shared(name, align, Some(size))
    }

    /// Declares the dynamic `.extern .shared .align align .b8 name[]`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// assert!(b.finish()?.to_string().contains(".extern .shared .align 1024 .b8 smem[];"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn extern_shared(&mut self, name: &str, align: u32) -> Result<(), PtxError> {
        self.declare_shared(name, align, None)
    }

    fn declare_shared(
        &mut self,
        name: &str,
        align: u32,
        size: Option<u32>,
    ) -> Result<(), PtxError> {
        self.check_new_name("shared variable", name)?;
        let var = SharedVar {
            name: name.to_string(),
            align,
            size,
        };
        if !align.is_power_of_two() {
            return Err(PtxError::SharedDecl {
                name: var.name,
                reason: format!("alignment {align} is not a power of two"),
            });
        }
        if size == Some(0) {
            return Err(PtxError::SharedDecl {
                name: var.name,
                reason: "size 0".into(),
            });
        }
        self.kernel.shared.push(var);
        Ok(())
    }

    fn check_new_name(&self, what: &'static str, name: &str) -> Result<(), PtxError> {
        if !is_identifier(name) {
            return Err(PtxError::InvalidName {
                what,
                name: name.to_string(),
            });
        }
        let taken = self.kernel.params.iter().any(|p| p.name == name)
            || self.kernel.shared.iter().any(|s| s.name == name);
        if taken {
            return Err(PtxError::DuplicateName {
                what,
                name: name.to_string(),
            });
        }
        Ok(())
    }

    /// A fresh register of class `ty`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, RegType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// assert_eq!(b.reg(RegType::B32).to_string(), "%r0");
    /// assert_eq!(b.reg(RegType::B32).to_string(), "%r1");
    /// assert_eq!(b.reg(RegType::B64).to_string(), "%rd0");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn reg(&mut self, ty: RegType) -> Reg {
        let slot = class_slot(ty);
        let index = self.next.get(slot).copied().unwrap_or(0);
        if let Some(n) = self.next.get_mut(slot) {
            *n = index.saturating_add(1);
        }
        Reg::new(ty, index)
    }

    fn peek(&self, ty: RegType) -> Reg {
        Reg::new(ty, self.next.get(class_slot(ty)).copied().unwrap_or(0))
    }

    /// Adds `op` with the current guard and role ([`guarded`](Self::guarded),
    /// [`with_role`](Self::with_role)) after validating it.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Op, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.push(Op::BarSync { id: 0 })?;
    /// assert!(b.push(Op::BarSync { id: 16 }).is_err());
    /// // tcgen05 needs sm_100a:
    /// assert!(b.push(Op::TmemWaitLd).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn push(&mut self, op: Op) -> Result<(), PtxError> {
        let role = self.role.unwrap_or_else(|| op.default_role());
        self.push_inst(Inst {
            guard: self.guard,
            op,
            role,
        })
    }

    /// Adds a complete instruction (its own guard and role) after validating it.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Inst, Op, Role, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.push_inst(Inst { guard: None, op: Op::Ret, role: Role::Data })?;
    /// assert!(b.finish()?.to_string().contains("ret; // @data"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn push_inst(&mut self, inst: Inst) -> Result<(), PtxError> {
        inst.validate()?;
        if inst.op.min_target() > self.kernel.target {
            return Err(PtxError::TargetFeature {
                inst: inst.op.opcode(),
                target: self.kernel.target,
            });
        }
        match &inst.op {
            Op::Mov {
                src: MovSource::Shared(name),
                ..
            } if !self.kernel.shared.iter().any(|s| &s.name == name) => {
                return Err(PtxError::UnknownSharedVar { name: name.clone() });
            }
            Op::LdParam { d, param } => {
                match self.kernel.params.iter().find(|p| &p.name == param) {
                    None => {
                        return Err(PtxError::UnknownParam {
                            name: param.clone(),
                        })
                    }
                    Some(p) if p.ty.reg_type() != d.ty() => {
                        return Err(PtxError::ParamType {
                            name: param.clone(),
                            param_type: p.ty.suffix().into(),
                            found: d.to_string(),
                        })
                    }
                    Some(_) => {}
                }
            }
            _ => {}
        }
        // Keep hand-made registers (push of an op naming %r9) out of the fresh range.
        for r in inst.registers() {
            if let Some(n) = self.next.get_mut(class_slot(r.ty())) {
                *n = (*n).max(r.index().saturating_add(1));
            }
        }
        self.kernel.body.push(Stmt::Inst(inst));
        Ok(())
    }

    /// Adds the op `make(d)` for a fresh destination `d` of class `ty` and returns `d`.
    fn def(&mut self, ty: RegType, make: impl FnOnce(Reg) -> Op) -> Result<Reg, PtxError> {
        let d = self.peek(ty);
        self.push(make(d))?;
        Ok(d)
    }

    /// Runs `f` with every instruction it adds tagged `role`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, IntType, Role, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.with_role(Role::Data, |b| b.add(IntType::U32, t, 1))?;
    /// assert_eq!(b.finish()?.count_role(Role::Data), 1);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn with_role<T>(
        &mut self,
        role: Role,
        f: impl FnOnce(&mut Builder) -> Result<T, PtxError>,
    ) -> Result<T, PtxError> {
        let saved = self.role.replace(role);
        let out = f(self);
        self.role = saved;
        out
    }

    /// Runs `f` with every instruction it adds guarded by `guard`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, CmpOp, Guard, IntType, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// let p = b.setp(CmpOp::Eq, IntType::U32, t, 0)?;
    /// b.guarded(Guard::unless(p), |b| b.bra("DONE"))?;
    /// b.label("DONE")?;
    /// b.ret()?;
    /// assert!(b.finish()?.to_string().contains("@!%p0 bra DONE;"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn guarded<T>(
        &mut self,
        guard: Guard,
        f: impl FnOnce(&mut Builder) -> Result<T, PtxError>,
    ) -> Result<T, PtxError> {
        let saved = self.guard.replace(guard);
        let out = f(self);
        self.guard = saved;
        out
    }

    /// Places label `name` here.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.label("A")?;
    /// assert!(b.label("A").is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn label(&mut self, name: &str) -> Result<(), PtxError> {
        if !is_identifier(name) {
            return Err(PtxError::InvalidName {
                what: "label",
                name: name.to_string(),
            });
        }
        if self.kernel.labels().contains_key(name) {
            return Err(PtxError::DuplicateName {
                what: "label",
                name: name.to_string(),
            });
        }
        self.kernel.body.push(Stmt::Label(name.to_string()));
        Ok(())
    }

    /// A label name no other call returns: `L__<stem>_<n>` (place it with
    /// [`label`](Self::label)).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// assert_eq!(b.fresh_label("skip"), "L__skip_0");
    /// assert_eq!(b.fresh_label("skip"), "L__skip_1");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn fresh_label(&mut self, stem: &str) -> String {
        let n = self.fresh_labels;
        self.fresh_labels = self.fresh_labels.saturating_add(1);
        format!("L__{stem}_{n}")
    }

    /// A comment line (no line breaks).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.comment("Swizzle<3,4,3>")?;
    /// assert!(b.comment("two\nlines").is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn comment(&mut self, text: &str) -> Result<(), PtxError> {
        if text.contains(['\n', '\r']) {
            return Err(PtxError::CommentLineBreak {
                text: text.to_string(),
            });
        }
        self.kernel.body.push(Stmt::Comment(text.to_string()));
        Ok(())
    }

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
        let (a, pos, len) = (a.into(), pos.into(), len.into());
        self.def(RegType::B32, |d| Op::Bfe { d, a, pos, len })
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

    /// `bra target` (guard it with [`guarded`](Self::guarded)); the label may come later.
    /// The interpreter runs forward branches only.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.bra("END")?;
    /// b.label("END")?;
    /// b.ret()?;
    /// b.finish()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn bra(&mut self, target: &str) -> Result<(), PtxError> {
        self.push(Op::Bra {
            target: target.to_string(),
        })
    }

    /// `ld.param.{u32,u64} d, [name]` into a fresh register of the parameter's width.
    ///
    /// ```
    /// use codegen::ptx::{Builder, ParamType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("n", ParamType::U32)?;
    /// assert_eq!(b.ld_param("n")?.to_string(), "%r0");
    /// assert!(b.ld_param("m").is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn ld_param(&mut self, name: &str) -> Result<Reg, PtxError> {
        let ty = match self.kernel.params.iter().find(|p| p.name == name) {
            Some(p) => p.ty.reg_type(),
            None => {
                return Err(PtxError::UnknownParam {
                    name: name.to_string(),
                })
            }
        };
        let param = name.to_string();
        self.def(ty, |d| Op::LdParam { d, param })
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

    /// `ld.param.u64` + `cvta.to.global.u64`: the global pointer in `.u64` parameter `name`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, ParamType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("out", ParamType::U64)?;
    /// assert_eq!(b.global_pointer("out")?.to_string(), "%rd1");
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn global_pointer(&mut self, name: &str) -> Result<Reg, PtxError> {
        let generic = self.ld_param(name)?;
        self.cvta_to_global(generic)
    }

    /// `ld.<space>{.vN}.<ty>` into `vec` fresh registers (`.b16` for `.b8`/`.b16` elements,
    /// else the element's width).
    ///
    /// ```
    /// use codegen::ptx::{Builder, DataType, StateSpace, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let s = b.shared_address("smem")?;
    /// let v = b.ld(StateSpace::Shared, DataType::B32, 4, s)?;
    /// assert_eq!(v.len(), 4);
    /// assert!(b.ld(StateSpace::Shared, DataType::B64, 4, s).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn ld(
        &mut self,
        space: StateSpace,
        ty: DataType,
        vec: u32,
        addr: impl Into<Address>,
    ) -> Result<Vec<Reg>, PtxError> {
        let class = match ty {
            DataType::B8 | DataType::B16 => RegType::B16,
            DataType::B32 => RegType::B32,
            DataType::B64 => RegType::B64,
        };
        let start = self.peek(class).index();
        let d: Vec<Reg> = (0..vec)
            .map(|i| Reg::new(class, start.saturating_add(i)))
            .collect();
        self.ld_into(space, ty, d.clone(), addr)?;
        Ok(d)
    }

    /// `ld.<space>{.vN}.<ty>` into the given registers.
    ///
    /// ```
    /// use codegen::ptx::{Builder, DataType, RegType, StateSpace, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let s = b.shared_address("smem")?;
    /// let x = b.reg(RegType::B32);
    /// b.ld_into(StateSpace::Shared, DataType::B8, vec![x], s)?;
    /// assert!(b.finish()?.to_string().contains("ld.shared::cta.b8 %r1, [%r0];"));
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn ld_into(
        &mut self,
        space: StateSpace,
        ty: DataType,
        d: Vec<Reg>,
        addr: impl Into<Address>,
    ) -> Result<(), PtxError> {
        self.push(Op::Ld {
            space,
            ty,
            d,
            addr: addr.into(),
        })
    }

    /// `st.<space>{.vN}.<ty> [addr], src`.
    ///
    /// ```
    /// use codegen::ptx::{Address, Builder, DataType, ParamType, SpecialReg, StateSpace, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("out", ParamType::U64)?;
    /// let out = b.global_pointer("out")?;
    /// let t = b.special(SpecialReg::TidX)?;
    /// b.st(StateSpace::Global, DataType::B32, Address::new(out, 4), &[t])?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn st(
        &mut self,
        space: StateSpace,
        ty: DataType,
        addr: impl Into<Address>,
        src: &[Reg],
    ) -> Result<(), PtxError> {
        self.push(Op::St {
            space,
            ty,
            addr: addr.into(),
            src: src.to_vec(),
        })
    }

    /// `ldmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16` into fresh `.b32`s.
    ///
    /// ```
    /// use codegen::ptx::{Builder, MatrixCount, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// let s = b.shared_address("smem")?;
    /// assert_eq!(b.ldmatrix(MatrixCount::X4, false, s)?.len(), 4);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn ldmatrix(
        &mut self,
        count: MatrixCount,
        trans: bool,
        addr: impl Into<Address>,
    ) -> Result<Vec<Reg>, PtxError> {
        let start = self.peek(RegType::B32).index();
        let d: Vec<Reg> = (0..count.count())
            .map(|i| Reg::new(RegType::B32, start.saturating_add(i)))
            .collect();
        self.push(Op::Ldmatrix {
            count,
            trans,
            d: d.clone(),
            addr: addr.into(),
        })?;
        Ok(d)
    }

    /// `stmatrix.sync.aligned.m8n8.<count>{.trans}.shared::cta.b16 [addr], src`.
    ///
    /// ```
    /// use codegen::ptx::{Address, Builder, MatrixCount, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// let s = b.shared_address("smem")?;
    /// let v = b.ldmatrix(MatrixCount::X2, true, s)?;
    /// b.stmatrix(MatrixCount::X2, true, Address::new(s, 2048), &v)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn stmatrix(
        &mut self,
        count: MatrixCount,
        trans: bool,
        addr: impl Into<Address>,
        src: &[Reg],
    ) -> Result<(), PtxError> {
        self.push(Op::Stmatrix {
            count,
            trans,
            addr: addr.into(),
            src: src.to_vec(),
        })
    }

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
        let n = shape.registers(num)?;
        let start = self.peek(RegType::B32).index();
        let d: Vec<Reg> = (0..n)
            .map(|i| Reg::new(RegType::B32, start.saturating_add(i)))
            .collect();
        self.push(Op::TmemLd {
            shape,
            num,
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
        self.push(Op::TmemSt {
            shape,
            num,
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

    /// `bar.sync id`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.bar_sync(0)?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn bar_sync(&mut self, id: u32) -> Result<(), PtxError> {
        self.push(Op::BarSync { id })
    }

    /// `ret`.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.ret()?;
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn ret(&mut self) -> Result<(), PtxError> {
        self.push(Op::Ret)
    }

    /// The kernel so far.
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.ret()?;
    /// assert_eq!(b.kernel().instruction_count(), 1);
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }

    /// The finished kernel, after [`Kernel::validate`] (which catches branches to labels
    /// never placed).
    ///
    /// ```
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.bra("NEVER_PLACED")?;
    /// assert!(b.finish().is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn finish(self) -> Result<Kernel, PtxError> {
        self.kernel.validate()?;
        Ok(self.kernel)
    }
}

fn check_threads(directive: &'static str, n: u32) -> Result<(), PtxError> {
    if (1..=1024).contains(&n) {
        Ok(())
    } else {
        Err(PtxError::ThreadCount {
            directive,
            value: n,
        })
    }
}
