//! [`Op::validate`]: the operand rules of every instruction of the subset — register classes,
//! immediate ranges, vector lengths and widths, distinct destinations, `tcgen05` shapes — which
//! the [`Builder`](super::Builder), the [parser](super::parse) and the interpreter all run, so an
//! invalid combination is an error where it is made, not a ptxas failure later.

use super::error::PtxError;
use super::inst::Op;
use super::operands::{ArithOp, LogicOp, MovSource};
use super::reg::{Operand, Reg, RegType};
use super::types::{DataType, TmemShape};

/// Whether an immediate's value fits an operand of `bits` bits (either signedness).
fn imm_fits(value: i64, bits: u32) -> bool {
    match bits {
        1 => value == 0 || value == 1,
        64 => true,
        _ => {
            let lo = -(1i64 << (bits - 1));
            let hi = (1i64 << bits) - 1;
            (lo..=hi).contains(&value)
        }
    }
}

/// Checks operand classes for one op; prints its opcode only for a message.
struct Check<'a> {
    op: &'a Op,
}

impl Check<'_> {
    fn reg(&self, operand: &'static str, r: Reg, ty: RegType) -> Result<(), PtxError> {
        if r.ty() == ty {
            Ok(())
        } else {
            Err(PtxError::OperandType {
                inst: self.op.opcode(),
                operand,
                expected: format!("a {ty} register"),
                found: r.to_string(),
            })
        }
    }

    fn src(&self, operand: &'static str, o: Operand, ty: RegType) -> Result<(), PtxError> {
        match o {
            Operand::Reg(r) if r.ty() == ty => Ok(()),
            Operand::Reg(r) => Err(PtxError::OperandType {
                inst: self.op.opcode(),
                operand,
                expected: format!("a {ty} register or immediate"),
                found: r.to_string(),
            }),
            Operand::Imm(v) if imm_fits(v, ty.bits()) => Ok(()),
            Operand::Imm(value) => Err(PtxError::ImmediateRange {
                inst: self.op.opcode(),
                value,
                bits: ty.bits(),
            }),
        }
    }

    /// A `.b32` register or an immediate in `0..=255` (bit positions and lengths; ptxas
    /// rejects larger immediates).
    fn bit_field(&self, operand: &'static str, o: Operand) -> Result<(), PtxError> {
        self.src(operand, o, RegType::B32)?;
        match o {
            Operand::Imm(value) if !(0..=255).contains(&value) => Err(PtxError::ImmediateRange {
                inst: self.op.opcode(),
                value,
                bits: 8,
            }),
            _ => Ok(()),
        }
    }

    fn vector(&self, regs: &[Reg], allowed: &[usize], what: &str) -> Result<(), PtxError> {
        if allowed.contains(&regs.len()) {
            Ok(())
        } else {
            let list: Vec<String> = allowed.iter().map(|n| n.to_string()).collect();
            Err(PtxError::VectorLength {
                inst: self.op.opcode(),
                expected: format!("{} {what}", list.join(" or ")),
                found: regs.len(),
            })
        }
    }

    fn distinct(&self, regs: &[Reg]) -> Result<(), PtxError> {
        for (i, r) in regs.iter().enumerate() {
            if regs.iter().skip(i + 1).any(|q| q == r) {
                return Err(PtxError::DuplicateDestination {
                    inst: self.op.opcode(),
                    reg: r.to_string(),
                });
            }
        }
        Ok(())
    }

    fn elements(&self, operand: &'static str, regs: &[Reg], ty: DataType) -> Result<(), PtxError> {
        for r in regs {
            if !ty.fits(r.ty()) {
                return Err(PtxError::OperandType {
                    inst: self.op.opcode(),
                    operand,
                    expected: format!("registers that hold {}", ty.suffix()),
                    found: r.to_string(),
                });
            }
        }
        Ok(())
    }

    fn ncols(&self, operand: &'static str, o: Operand) -> Result<(), PtxError> {
        self.src(operand, o, RegType::B32)?;
        match o {
            Operand::Imm(n) if !(32..=512).contains(&n) || (n & (n - 1)) != 0 => {
                Err(PtxError::TmemColumns { ncols: n })
            }
            _ => Ok(()),
        }
    }
}

impl Op {
    /// Checks register classes, immediate ranges, vector lengths, distinct destinations and
    /// `tcgen05` shapes.
    /// Names (labels, parameters, variables) are checked by
    /// [`Kernel::validate`](super::Kernel::validate), which knows them.
    ///
    /// ```
    /// use codegen::ptx::{Address, Op, PtxError, Reg, RegType, TmemShape};
    /// let r = |i| Reg::new(RegType::B32, i);
    /// // 16x128b.x1 needs two registers per thread.
    /// let op = Op::TmemLd { shape: TmemShape::S16x128b, num: 1, pack: false, d: vec![r(1)], taddr: r(0).into() };
    /// assert!(matches!(op.validate(), Err(PtxError::VectorLength { .. })));
    /// ```
    pub fn validate(&self) -> Result<(), PtxError> {
        let c = Check { op: self };
        use RegType::{Pred, B16, B32, B64};
        match self {
            Op::Mov { d, src } => match src {
                MovSource::Operand(o) => c.src("a", *o, d.ty()),
                MovSource::Special(_) | MovSource::Shared(_) => c.reg("d", *d, B32),
            },
            Op::Arith { op, ty, d, a, b } => {
                let t = ty.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, if *op == ArithOp::Shr { B32 } else { t })
            }
            Op::Logic { op, width, d, a, b } => {
                let t = width.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, if *op == LogicOp::Shl { B32 } else { t })
            }
            Op::Not { width, d, a } => {
                c.reg("d", *d, width.reg_type())?;
                c.src("a", *a, width.reg_type())
            }
            Op::MadLo {
                ty,
                d,
                a,
                b,
                c: addend,
            } => {
                let t = ty.reg_type();
                c.reg("d", *d, t)?;
                c.src("a", *a, t)?;
                c.src("b", *b, t)?;
                c.src("c", *addend, t)
            }
            Op::Pack { d, halves } => {
                c.reg("d", *d, B32)?;
                halves.iter().try_for_each(|h| c.reg("half", *h, B16))
            }
            Op::Unpack { halves, a } => {
                c.reg("a", *a, B32)?;
                halves
                    .iter()
                    .flatten()
                    .try_for_each(|h| c.reg("half", *h, B16))
            }
            Op::MulWide { d, a, b } => {
                c.reg("d", *d, B64)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)
            }
            Op::MadWide { d, a, b, c: addend } => {
                c.reg("d", *d, B64)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.src("c", *addend, B64)
            }
            Op::Lop3 {
                d, a, b, c: third, ..
            } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.src("c", *third, B32)
            }
            Op::Bfe { d, a, pos, len, .. } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.bit_field("pos", *pos)?;
                c.bit_field("len", *len)
            }
            Op::Bfi { d, a, b, pos, len } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.bit_field("pos", *pos)?;
                c.bit_field("len", *len)
            }
            Op::Prmt { d, a, b, sel } => {
                c.reg("d", *d, B32)?;
                c.src("a", *a, B32)?;
                c.src("b", *b, B32)?;
                c.src("sel", *sel, B32)
            }
            // Zero-extension or truncation between 32 bits and 64 or 16.
            Op::Cvt { d, a } => match d.ty() {
                B64 | B16 => c.reg("a", *a, B32),
                _ => {
                    c.reg("d", *d, B32)?;
                    if a.ty() == B16 {
                        Ok(())
                    } else {
                        c.reg("a", *a, B64)
                    }
                }
            },
            Op::Setp { ty, d, a, b, .. } => {
                c.reg("d", *d, Pred)?;
                c.src("a", *a, ty.reg_type())?;
                c.src("b", *b, ty.reg_type())
            }
            Op::Bra { .. }
            | Op::TmemRelinquish
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::FenceProxyAsync
            | Op::Ret => Ok(()),
            Op::LdParam { d, .. } => {
                if d.ty() == B64 {
                    Ok(())
                } else {
                    c.reg("d", *d, B32)
                }
            }
            Op::CvtaGlobal { d, a } => {
                c.reg("d", *d, B64)?;
                c.reg("a", *a, B64)
            }
            Op::Ld { space, ty, d, addr } => {
                c.vector(d, &[1, 2, 4], "destinations")?;
                c.distinct(d)?;
                c.elements("d", d, *ty)?;
                c.reg("addr", addr.base, space.address_reg())?;
                vector_width(self, *ty, d.len())
            }
            Op::St {
                space,
                ty,
                addr,
                src,
            } => {
                c.vector(src, &[1, 2, 4], "sources")?;
                c.elements("src", src, *ty)?;
                c.reg("addr", addr.base, space.address_reg())?;
                vector_width(self, *ty, src.len())
            }
            Op::Ldmatrix { count, d, addr, .. } => {
                c.vector(d, &[count.count() as usize], "destinations")?;
                c.distinct(d)?;
                d.iter().try_for_each(|r| c.reg("d", *r, B32))?;
                c.reg("addr", addr.base, B32)
            }
            Op::Stmatrix {
                count, addr, src, ..
            } => {
                c.vector(src, &[count.count() as usize], "sources")?;
                src.iter().try_for_each(|r| c.reg("src", *r, B32))?;
                c.reg("addr", addr.base, B32)
            }
            Op::TmemAlloc { dst, ncols } => {
                c.reg("dst", dst.base, B32)?;
                c.ncols("ncols", *ncols)
            }
            Op::TmemDealloc { taddr, ncols } => {
                c.src("taddr", *taddr, B32)?;
                c.ncols("ncols", *ncols)
            }
            Op::TmemLd {
                shape,
                num,
                d,
                taddr,
                ..
            } => {
                let n = shape.registers(*num)?;
                c.vector(d, &[n as usize], "destinations")?;
                c.distinct(d)?;
                d.iter().try_for_each(|r| c.reg("d", *r, B32))?;
                c.reg("taddr", taddr.base, B32)
            }
            Op::TmemSt {
                shape,
                num,
                taddr,
                src,
                ..
            } => {
                let n = shape.registers(*num)?;
                c.vector(src, &[n as usize], "sources")?;
                src.iter().try_for_each(|r| c.reg("src", *r, B32))?;
                c.reg("taddr", taddr.base, B32)
            }
            Op::TmemCp { taddr, desc, .. } => {
                c.reg("taddr", taddr.base, B32)?;
                c.reg("desc", *desc, B64)
            }
            Op::TmemCommit { mbar } => c.reg("mbar", mbar.base, B32),
            Op::MbarrierInit { addr, count } => {
                c.reg("addr", addr.base, B32)?;
                c.src("count", *count, B32)
            }
            Op::MbarrierTryWait { d, addr, parity } => {
                c.reg("d", *d, Pred)?;
                c.reg("addr", addr.base, B32)?;
                c.src("parity", *parity, B32)
            }
            Op::BarSync { id } => {
                if *id < 16 {
                    Ok(())
                } else {
                    Err(PtxError::BarrierId { id: *id })
                }
            }
        }
    }
}

fn vector_width(op: &Op, ty: DataType, n: usize) -> Result<(), PtxError> {
    let bytes = ty.bytes() * n as u32;
    if bytes > 16 {
        Err(PtxError::AccessTooWide {
            inst: op.opcode(),
            bytes,
        })
    } else {
        Ok(())
    }
}

impl TmemShape {
    /// Registers per thread for `.x{num}`; [`PtxError::Tcgen05Repeat`] unless `num` is a power
    /// of two in `1..=max_repeat()`.
    ///
    /// ```
    /// use codegen::ptx::TmemShape;
    /// assert_eq!(TmemShape::S32x32b.registers(128)?, 128);
    /// assert!(TmemShape::S32x32b.registers(3).is_err());
    /// assert!(TmemShape::S16x128b.registers(128).is_err());
    /// # Ok::<(), codegen::ptx::PtxError>(())
    /// ```
    pub fn registers(self, num: u32) -> Result<u32, PtxError> {
        if num.is_power_of_two() && num <= self.max_repeat() {
            Ok(num * self.registers_per_repeat())
        } else {
            Err(PtxError::Tcgen05Repeat {
                shape: self,
                num,
                max: self.max_repeat(),
            })
        }
    }
}
