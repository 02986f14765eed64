//! Per-thread instructions: ALU, branches, parameters, and shared/global loads and stores.

use crate::ptx::{ArithOp, LogicOp, MovSource, Op, Operand, Reg, SpecialReg, StateSpace};

use super::alu;
use super::error::InterpError;
use super::machine::{Exec, Flow};
use super::trace::{Access, AccessKind, Location};

/// A resolved memory location for a per-thread access.
enum Place {
    Shared(usize),
    Global { param: usize, offset: usize },
}

impl Exec<'_> {
    /// An operand's value, immediates truncated to `bits`.
    pub(super) fn operand(
        &self,
        t: usize,
        pc: usize,
        o: Operand,
        bits: u32,
    ) -> Result<u64, InterpError> {
        let mask = if bits >= 64 {
            u64::MAX
        } else {
            (1u64 << bits) - 1
        };
        match o {
            Operand::Imm(v) => Ok(v as u64 & mask),
            Operand::Reg(r) => Ok(self.read(t, pc, r)? & mask),
        }
    }

    pub(super) fn exec_thread(
        &mut self,
        t: usize,
        pc: usize,
        op: &Op,
    ) -> Result<Flow, InterpError> {
        let w32 = |me: &Self, o: &Operand| me.operand(t, pc, *o, 32);
        match op {
            Op::Mov { d, src } => {
                let v = match src {
                    MovSource::Operand(o) => self.operand(t, pc, *o, d.ty().bits())?,
                    MovSource::Special(s) => match s {
                        SpecialReg::TidX => t as u64,
                        SpecialReg::NtidX => self.threads.len() as u64,
                        SpecialReg::LaneId => (t % 32) as u64,
                        SpecialReg::CtaIdX => 0,
                    },
                    MovSource::Shared(name) => u64::from(self.layout.address(name).unwrap_or(0)),
                };
                self.write(t, *d, v);
            }
            Op::Arith { op, ty, d, a, b } => {
                let a = self.operand(t, pc, *a, ty.bits())?;
                let b_bits = if *op == ArithOp::Shr { 32 } else { ty.bits() };
                let b = self.operand(t, pc, *b, b_bits)?;
                let v = alu::arith(*op, *ty, a, b).ok_or(InterpError::DivisionByZero {
                    thread: t as u32,
                    stmt: pc,
                })?;
                self.write(t, *d, v);
            }
            Op::Logic { op, width, d, a, b } => {
                let a = self.operand(t, pc, *a, width.bits())?;
                let b_bits = if *op == LogicOp::Shl {
                    32
                } else {
                    width.bits()
                };
                let b = self.operand(t, pc, *b, b_bits)?;
                self.write(t, *d, alu::logic(*op, *width, a, b));
            }
            Op::Not { width, d, a } => {
                let a = self.operand(t, pc, *a, width.bits())?;
                self.write(t, *d, !a);
            }
            Op::MadLo { ty, d, a, b, c } => {
                let bits = ty.bits();
                let (a, b, c) = (
                    self.operand(t, pc, *a, bits)?,
                    self.operand(t, pc, *b, bits)?,
                    self.operand(t, pc, *c, bits)?,
                );
                self.write(t, *d, alu::mad_lo(*ty, a, b, c));
            }
            Op::MulWide { d, a, b } => {
                let (a, b) = (w32(self, a)?, w32(self, b)?);
                self.write(t, *d, a * b);
            }
            Op::Pack {
                d,
                halves: [lo, hi],
            } => {
                let (lo, hi) = (self.read(t, pc, *lo)?, self.read(t, pc, *hi)?);
                self.write(t, *d, (lo & 0xFFFF) | (hi & 0xFFFF) << 16);
            }
            Op::Unpack {
                halves: [lo, hi],
                a,
            } => {
                let v = self.read(t, pc, *a)?;
                if let Some(lo) = lo {
                    self.write(t, *lo, v & 0xFFFF);
                }
                if let Some(hi) = hi {
                    self.write(t, *hi, v >> 16 & 0xFFFF);
                }
            }
            Op::MadWide { d, a, b, c } => {
                let (a, b) = (w32(self, a)?, w32(self, b)?);
                let c = self.operand(t, pc, *c, 64)?;
                self.write(t, *d, (a * b).wrapping_add(c));
            }
            Op::Lop3 { d, a, b, c, lut } => {
                let (a, b, c) = (w32(self, a)?, w32(self, b)?, w32(self, c)?);
                self.write(
                    t,
                    *d,
                    u64::from(alu::lop3(a as u32, b as u32, c as u32, *lut)),
                );
            }
            Op::Bfe {
                d,
                a,
                pos,
                len,
                signed,
            } => {
                let (a, pos, len) = (w32(self, a)?, w32(self, pos)?, w32(self, len)?);
                let extract = if *signed { alu::bfe_s32 } else { alu::bfe_u32 };
                self.write(t, *d, u64::from(extract(a as u32, pos as u32, len as u32)));
            }
            Op::Bfi { d, a, b, pos, len } => {
                let (a, b) = (w32(self, a)?, w32(self, b)?);
                let (pos, len) = (w32(self, pos)?, w32(self, len)?);
                let v = alu::bfi_b32(a as u32, b as u32, pos as u32, len as u32);
                self.write(t, *d, u64::from(v));
            }
            Op::Prmt { d, a, b, sel } => {
                let (a, b, sel) = (w32(self, a)?, w32(self, b)?, w32(self, sel)?);
                self.write(t, *d, u64::from(alu::prmt(a as u32, b as u32, sel as u32)));
            }
            Op::Cvt { d, a } => {
                // Zero-extension and truncation are both "keep the bits the destination holds".
                let v = self.read(t, pc, *a)?;
                self.write(t, *d, v);
            }
            Op::Setp { cmp, ty, d, a, b } => {
                let (a, b) = (
                    self.operand(t, pc, *a, ty.bits())?,
                    self.operand(t, pc, *b, ty.bits())?,
                );
                self.write(t, *d, u64::from(alu::compare(*cmp, *ty, a, b)));
            }
            Op::Bra { target } => {
                let to = self.labels.get(target.as_str()).copied().unwrap_or(pc + 1);
                return Ok(Flow::Jump(to));
            }
            Op::LdParam { d, param } => {
                let v = self.param_value(param).unwrap_or(0);
                self.write(t, *d, v);
            }
            Op::CvtaGlobal { d, a } => {
                let v = self.read(t, pc, *a)?;
                self.write(t, *d, v);
            }
            Op::Ld { space, ty, d, addr } => {
                let elem = ty.bytes() as usize;
                let bytes = elem * d.len();
                let base = self.read(t, pc, addr.base)?;
                let place = self.place(t, pc, *space, base, addr.offset, bytes as u32)?;
                let data = self.bytes_at(&place, bytes).unwrap_or_default();
                let mut value = 0u128;
                for (i, r) in d.iter().enumerate() {
                    let chunk = data.get(i * elem..(i + 1) * elem).unwrap_or_default();
                    let v = le(chunk);
                    value |= u128::from(v) << (8 * i * elem);
                    self.write(t, *r, v);
                }
                self.record(t, pc, AccessKind::Load, &place, bytes as u32, value);
            }
            Op::St {
                space,
                ty,
                addr,
                src,
            } => {
                let elem = ty.bytes() as usize;
                let bytes = elem * src.len();
                let base = self.read(t, pc, addr.base)?;
                let place = self.place(t, pc, *space, base, addr.offset, bytes as u32)?;
                let mut data = Vec::with_capacity(bytes);
                let mut value = 0u128;
                for (i, r) in src.iter().enumerate() {
                    let v = self.read(t, pc, *r)?;
                    data.extend_from_slice(v.to_le_bytes().get(..elem).unwrap_or_default());
                    let masked = if elem >= 8 {
                        v
                    } else {
                        v & ((1u64 << (8 * elem)) - 1)
                    };
                    value |= u128::from(masked) << (8 * i * elem);
                }
                if let Some(dst) = self.bytes_at_mut(&place, bytes) {
                    dst.copy_from_slice(&data);
                }
                if let Place::Shared(i) = place {
                    self.note_generic_write(t, i, bytes);
                }
                self.record(t, pc, AccessKind::Store, &place, bytes as u32, value);
            }
            Op::Ret => return Ok(Flow::Exit),
            Op::TmemCp { shape, taddr, desc } => self.tmem_cp(t, pc, *shape, *taddr, *desc)?,
            Op::TmemCommit { mbar } => self.tmem_commit(t, pc, *mbar)?,
            Op::MbarrierInit { addr, count } => self.mbarrier_init(t, pc, *addr, *count)?,
            Op::MbarrierTryWait { d, addr, parity } => {
                self.mbarrier_try_wait(t, pc, *d, *addr, *parity)?;
            }
            Op::FenceProxyAsync => self.fence_proxy_async(t),
            // Fences order tcgen05 operations against barriers; the interpreter is sequential.
            Op::TmemFenceBefore | Op::TmemFenceAfter => {}
            // Warp-collective ops never reach here (`OpClass::is_collective`).
            Op::Ldmatrix { .. }
            | Op::Stmatrix { .. }
            | Op::TmemAlloc { .. }
            | Op::TmemDealloc { .. }
            | Op::TmemRelinquish
            | Op::TmemLd { .. }
            | Op::TmemSt { .. }
            | Op::TmemWaitLd
            | Op::TmemWaitSt
            | Op::BarSync { .. } => {}
        }
        Ok(Flow::Next)
    }

    /// Checks alignment and range of a shared access and returns its index.
    pub(super) fn shared_index(
        &self,
        t: usize,
        pc: usize,
        address: u32,
        bytes: u32,
        align: u32,
    ) -> Result<usize, InterpError> {
        if address % align != 0 {
            return Err(InterpError::Misaligned {
                thread: t as u32,
                stmt: pc,
                space: "shared",
                address: u64::from(address),
                align,
            });
        }
        let (start, end) = (self.layout.start, self.layout.end);
        if address < start || u64::from(address) + u64::from(bytes) > u64::from(end) {
            return Err(InterpError::SharedOutOfRange {
                thread: t as u32,
                stmt: pc,
                address,
                bytes,
                start,
                end,
            });
        }
        Ok(address as usize)
    }

    fn place(
        &self,
        t: usize,
        pc: usize,
        space: StateSpace,
        base: u64,
        offset: i32,
        bytes: u32,
    ) -> Result<Place, InterpError> {
        match space {
            StateSpace::Shared => {
                let address = (base as u32).wrapping_add(offset as u32);
                Ok(Place::Shared(
                    self.shared_index(t, pc, address, bytes, bytes)?,
                ))
            }
            StateSpace::Global => {
                let address = base.wrapping_add(offset as i64 as u64);
                if address % u64::from(bytes) != 0 {
                    return Err(InterpError::Misaligned {
                        thread: t as u32,
                        stmt: pc,
                        space: "global",
                        address,
                        align: bytes,
                    });
                }
                for (param, p) in self.params.iter().enumerate() {
                    if let super::memory::ParamValue::Buffer(buf) = p {
                        let start = super::memory::buffer_address(param);
                        let inside = address >= start
                            && (address - start).saturating_add(u64::from(bytes))
                                <= buf.len() as u64;
                        if inside {
                            return Ok(Place::Global {
                                param,
                                offset: (address - start) as usize,
                            });
                        }
                    }
                }
                Err(InterpError::GlobalOutOfRange {
                    thread: t as u32,
                    stmt: pc,
                    address,
                    bytes,
                })
            }
        }
    }

    fn bytes_at(&self, place: &Place, len: usize) -> Option<Vec<u8>> {
        match place {
            Place::Shared(i) => self.shared.get(*i..i + len).map(<[u8]>::to_vec),
            Place::Global { param, offset } => match self.params.get(*param)? {
                super::memory::ParamValue::Buffer(b) => {
                    b.get(*offset..offset + len).map(<[u8]>::to_vec)
                }
                _ => None,
            },
        }
    }

    fn bytes_at_mut(&mut self, place: &Place, len: usize) -> Option<&mut [u8]> {
        match place {
            Place::Shared(i) => self.shared.get_mut(*i..i + len),
            Place::Global { param, offset } => match self.params.get_mut(*param)? {
                super::memory::ParamValue::Buffer(b) => b.get_mut(*offset..offset + len),
                _ => None,
            },
        }
    }

    fn record(
        &mut self,
        t: usize,
        pc: usize,
        kind: AccessKind,
        place: &Place,
        bytes: u32,
        value: u128,
    ) {
        let location = match place {
            Place::Shared(i) => Location::Shared(*i as u32),
            Place::Global { param, offset } => Location::Global {
                param: *param,
                offset: *offset as u64,
            },
        };
        self.trace.push(Access {
            thread: t as u32,
            stmt: pc,
            kind,
            location,
            bytes,
            value,
        });
    }

    /// Reads a `.b32` register as `u32`.
    pub(super) fn read32(&self, t: usize, pc: usize, r: Reg) -> Result<u32, InterpError> {
        Ok(self.read(t, pc, r)? as u32)
    }
}

/// Little-endian bytes → `u64`.
pub(super) fn le(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .enumerate()
        .fold(0, |v, (i, b)| v | (u64::from(*b) << (8 * i)))
}
