//! The memory helpers of [`Builder`]: parameters, `ld`/`st`, `ldmatrix`/`stmatrix`.

use super::Builder;
use crate::ptx::error::PtxError;
use crate::ptx::inst::Op;
use crate::ptx::operands::Address;
use crate::ptx::reg::{Reg, RegType};
use crate::ptx::types::{DataType, MatrixCount, StateSpace};

impl Builder {
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
}
