//! [`Builder`]: hands out fresh registers, checks every instruction as it is added
//! ([`Op::validate`], target features, declared names) and collects a [`Kernel`].
//!
//! | instructions | file |
//! |---|---|
//! | header, parameters, `.shared`, registers, roles, guards, labels, `bra`, `bar.sync`, `ret` | `builder/mod.rs` |
//! | `mov`, integer and bitwise arithmetic, `lop3`, `bfe`/`bfi`, `prmt`, `cvt`, `cvta`, `setp` | `builder/alu.rs` |
//! | `ld.param`, `ld`/`st` (shared, global), `ldmatrix`/`stmatrix` | `builder/memory.rs` |
//! | `tcgen05.*` | `builder/tcgen05.rs` |
//! | `tcgen05.cp`, `tcgen05.commit`, mbarriers, `fence.proxy.async` | `builder/async_copy.rs` |

mod alu;
mod async_copy;
mod memory;
mod tcgen05;

use super::error::PtxError;
use super::inst::{Inst, Op, Stmt};
use super::kernel::{is_identifier, Kernel, Param, ParamType, SharedVar};
use super::operands::{Guard, MovSource};
use super::reg::{Reg, RegType};
use super::types::{PtxVersion, Role, Target};

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

    /// `bra target` (guard it with [`guarded`](Self::guarded)); the label may come later.
    /// The interpreter runs forward branches, and backward ones only out of mbarrier wait
    /// loops ([`mbarrier_wait`](Self::mbarrier_wait)).
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
