//! Warp-collective instructions: `ldmatrix`/`stmatrix` (each thread's row address, each
//! thread's fragment) and `tcgen05.alloc/dealloc/relinquish/ld/st/wait`.
//!
//! `ldmatrix` fragment: matrix `i`'s row `r` is the 16 bytes at the address of thread
//! `8i + r`; lane `l` receives row `l/4`, columns `2(l%4)` and `2(l%4)+1` (low half first), or
//! with `.trans` rows `2(l%4)`, `2(l%4)+1` of column `l/4`. `stmatrix` writes the same places.

use crate::ptx::{Address, Op, Operand, Reg, TmemShape};

use super::error::InterpError;
use super::exec::le;
use super::machine::Exec;
use super::memory::Tmem;
use super::trace::{Access, AccessKind, Location};

/// Where lane `l`'s two 16-bit halves of matrix fragment register go: `(row, byte offset in
/// the row)` for the low and the high half.
fn fragment_halves(l: usize, trans: bool) -> [(usize, usize); 2] {
    if trans {
        [(2 * (l % 4), 2 * (l / 4)), (2 * (l % 4) + 1, 2 * (l / 4))]
    } else {
        [(l / 4, 4 * (l % 4)), (l / 4, 4 * (l % 4) + 2)]
    }
}

impl Exec<'_> {
    pub(super) fn exec_warp(&mut self, w: usize, pc: usize, op: &Op) -> Result<(), InterpError> {
        match op {
            Op::Ldmatrix {
                count,
                trans,
                d,
                addr,
            } => self.ldmatrix(w, pc, count.count() as usize, *trans, d, *addr),
            Op::Stmatrix {
                count,
                trans,
                addr,
                src,
            } => self.stmatrix(w, pc, count.count() as usize, *trans, src, *addr),
            Op::TmemAlloc { dst, ncols } => self.tmem_alloc(w, pc, *dst, *ncols),
            Op::TmemDealloc { taddr, ncols } => {
                let taddr = self.uniform_operand(w, pc, *taddr, "tcgen05.dealloc address")?;
                let ncols = self.uniform_operand(w, pc, *ncols, "column count")?;
                if !self.tmem.free(taddr, ncols) {
                    return Err(InterpError::TmemDealloc {
                        warp: w as u32,
                        stmt: pc,
                        taddr,
                        ncols,
                    });
                }
                Ok(())
            }
            Op::TmemRelinquish => {
                self.tmem.relinquish();
                Ok(())
            }
            Op::TmemLd {
                shape,
                d,
                taddr,
                pack,
                ..
            } => self.tmem_ld(w, pc, *shape, *pack, d, *taddr),
            Op::TmemSt {
                shape,
                src,
                taddr,
                unpack,
                ..
            } => self.tmem_st(w, pc, *shape, *unpack, src, *taddr),
            Op::TmemWaitLd => {
                for t in self.warp_threads(w) {
                    if let Some(th) = self.threads.get_mut(t) {
                        th.pending.iter_mut().for_each(|p| *p = false);
                    }
                }
                Ok(())
            }
            // Stores take effect at once, so there is nothing to wait for.
            Op::TmemWaitSt | Op::BarSync { .. } => Ok(()),
            // Per-thread ops never reach here (`OpClass::is_collective`).
            Op::Mov { .. }
            | Op::Arith { .. }
            | Op::Logic { .. }
            | Op::Not { .. }
            | Op::MadLo { .. }
            | Op::MulWide { .. }
            | Op::MadWide { .. }
            | Op::Pack { .. }
            | Op::Unpack { .. }
            | Op::Lop3 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Cvt { .. }
            | Op::Setp { .. }
            | Op::Bra { .. }
            | Op::LdParam { .. }
            | Op::CvtaGlobal { .. }
            | Op::Ld { .. }
            | Op::St { .. }
            | Op::TmemFenceBefore
            | Op::TmemFenceAfter
            | Op::TmemCp { .. }
            | Op::TmemCommit { .. }
            | Op::MbarrierInit { .. }
            | Op::MbarrierTryWait { .. }
            | Op::FenceProxyAsync
            | Op::Ret => Ok(()),
        }
    }

    /// The row addresses of `count` matrices (thread `8i + r` supplies matrix `i` row `r`),
    /// checked for 16-byte alignment and range, as shared-memory indices.
    fn matrix_rows(
        &self,
        w: usize,
        pc: usize,
        count: usize,
        addr: Address,
    ) -> Result<Vec<Vec<(usize, usize)>>, InterpError> {
        let base = w * 32;
        let mut rows = Vec::with_capacity(count);
        for i in 0..count {
            let mut matrix = Vec::with_capacity(8);
            for r in 0..8 {
                let t = base + 8 * i + r;
                let a = (self.read(t, pc, addr.base)? as u32).wrapping_add(addr.offset as u32);
                matrix.push((t, self.shared_index(t, pc, a, 16, 16)?));
            }
            rows.push(matrix);
        }
        Ok(rows)
    }

    fn row_value(&self, index: usize) -> u128 {
        self.shared.get(index..index + 16).map_or(0, |b| {
            u128::from(le(b.get(..8).unwrap_or_default()))
                | (u128::from(le(b.get(8..).unwrap_or_default())) << 64)
        })
    }

    fn ldmatrix(
        &mut self,
        w: usize,
        pc: usize,
        count: usize,
        trans: bool,
        d: &[Reg],
        addr: Address,
    ) -> Result<(), InterpError> {
        let rows = self.matrix_rows(w, pc, count, addr)?;
        for (i, matrix) in rows.iter().enumerate() {
            for (r, &(t, index)) in matrix.iter().enumerate() {
                self.trace.push(Access {
                    thread: t as u32,
                    stmt: pc,
                    kind: AccessKind::LdmatrixRow {
                        matrix: i as u8,
                        row: r as u8,
                    },
                    location: Location::Shared(index as u32),
                    bytes: 16,
                    value: self.row_value(index),
                });
            }
        }
        for l in 0..32 {
            for (i, dst) in d.iter().enumerate() {
                let mut v = 0u64;
                for (h, (row, byte)) in fragment_halves(l, trans).into_iter().enumerate() {
                    let at = rows
                        .get(i)
                        .and_then(|m| m.get(row))
                        .map_or(0, |&(_, idx)| idx)
                        + byte;
                    let half = self.shared.get(at..at + 2).map_or(0, le);
                    v |= half << (16 * h);
                }
                self.write(w * 32 + l, *dst, v);
            }
        }
        Ok(())
    }

    fn stmatrix(
        &mut self,
        w: usize,
        pc: usize,
        count: usize,
        trans: bool,
        src: &[Reg],
        addr: Address,
    ) -> Result<(), InterpError> {
        let rows = self.matrix_rows(w, pc, count, addr)?;
        let mut values = Vec::with_capacity(32 * src.len());
        for l in 0..32 {
            for r in src {
                values.push(self.read(w * 32 + l, pc, *r)?);
            }
        }
        for l in 0..32 {
            for i in 0..src.len() {
                let v = values.get(l * src.len() + i).copied().unwrap_or(0);
                for (h, (row, byte)) in fragment_halves(l, trans).into_iter().enumerate() {
                    let at = rows
                        .get(i)
                        .and_then(|m| m.get(row))
                        .map_or(0, |&(_, idx)| idx)
                        + byte;
                    let half = ((v >> (16 * h)) & 0xFFFF) as u16;
                    if let Some(dst) = self.shared.get_mut(at..at + 2) {
                        dst.copy_from_slice(&half.to_le_bytes());
                    }
                    self.note_generic_write(w * 32 + l, at, 2);
                }
            }
        }
        for (i, matrix) in rows.iter().enumerate() {
            for (r, &(t, index)) in matrix.iter().enumerate() {
                self.trace.push(Access {
                    thread: t as u32,
                    stmt: pc,
                    kind: AccessKind::StmatrixRow {
                        matrix: i as u8,
                        row: r as u8,
                    },
                    location: Location::Shared(index as u32),
                    bytes: 16,
                    value: self.row_value(index),
                });
            }
        }
        Ok(())
    }

    /// An operand every thread of warp `w` must agree on.
    fn uniform_operand(
        &self,
        w: usize,
        pc: usize,
        o: Operand,
        what: &'static str,
    ) -> Result<u32, InterpError> {
        let mut value = None;
        for t in self.warp_threads(w) {
            let v = self.operand(t, pc, o, 32)? as u32;
            match value {
                None => value = Some(v),
                Some(u) if u != v => {
                    return Err(InterpError::NonUniform {
                        warp: w as u32,
                        stmt: pc,
                        what,
                    })
                }
                Some(_) => {}
            }
        }
        Ok(value.unwrap_or(0))
    }

    fn uniform_address(
        &self,
        w: usize,
        pc: usize,
        addr: Address,
        what: &'static str,
    ) -> Result<u32, InterpError> {
        let base = self.uniform_operand(w, pc, Operand::Reg(addr.base), what)?;
        Ok(base.wrapping_add(addr.offset as u32))
    }

    fn tmem_alloc(
        &mut self,
        w: usize,
        pc: usize,
        dst: Address,
        ncols: Operand,
    ) -> Result<(), InterpError> {
        let at = self.uniform_address(w, pc, dst, "tcgen05.alloc destination")?;
        let ncols = self.uniform_operand(w, pc, ncols, "column count")?;
        let (warp, stmt) = (w as u32, pc);
        if self.tmem.is_relinquished() {
            return Err(InterpError::AllocAfterRelinquish { warp, stmt });
        }
        if !ncols.is_power_of_two() || !(32..=Tmem::COLUMNS).contains(&ncols) {
            return Err(InterpError::TmemColumns { warp, stmt, ncols });
        }
        let t = w * 32;
        let index = self.shared_index(t, pc, at, 4, 4)?;
        let column = self
            .tmem
            .allocate(ncols)
            .ok_or(InterpError::TmemExhausted { warp, stmt, ncols })?;
        if let Some(dst) = self.shared.get_mut(index..index + 4) {
            dst.copy_from_slice(&column.to_le_bytes());
        }
        self.trace.push(Access {
            thread: t as u32,
            stmt: pc,
            kind: AccessKind::TmemAllocWrite,
            location: Location::Shared(at),
            bytes: 4,
            value: u128::from(column),
        });
        Ok(())
    }

    /// The cell register `r` of lane `l` touches, checked against range, the warp's lane
    /// quarter and the live allocations.
    /// With `half = Some(h)` (`.pack::16b` / `.unpack::16b`), the shape's columns count
    /// pairs: half `h` of the register sits in column `2·c + h`.
    #[allow(clippy::too_many_arguments)]
    fn tmem_cell(
        &self,
        w: usize,
        pc: usize,
        shape: TmemShape,
        half: Option<u32>,
        taddr: u32,
        l: u32,
        r: u32,
    ) -> Result<(u32, u32), InterpError> {
        let (dl, dc) = shape.cell(l, r);
        // The 16x32bx2 split is an address (real columns); only the shape's own columns count
        // pairs.
        let split_column = match shape.split() {
            Some(split) if (l / 16) % 2 == 1 => split & 0xFFFF,
            _ => 0,
        };
        let dc = match half {
            Some(h) => dc
                .wrapping_sub(split_column)
                .wrapping_mul(2)
                .wrapping_add(h)
                .wrapping_add(split_column),
            None => dc,
        };
        let lane = u64::from(taddr >> 16) + u64::from(dl);
        let column = u64::from(taddr & 0xFFFF) + u64::from(dc);
        let (warp, stmt) = (w as u32, pc);
        if lane >= u64::from(Tmem::LANES) || column >= u64::from(Tmem::COLUMNS) {
            return Err(InterpError::TmemOutOfRange {
                warp,
                stmt,
                lane,
                column,
            });
        }
        let (lane, column) = (lane as u32, column as u32);
        let allowed_start = 32 * (warp % 4);
        if !(allowed_start..allowed_start + 32).contains(&lane) {
            return Err(InterpError::TmemLaneRestriction {
                warp,
                stmt,
                lane,
                allowed_start,
            });
        }
        if !self.tmem.is_allocated(column) {
            return Err(InterpError::TmemUnallocated { warp, stmt, column });
        }
        self.check_not_in_flight(warp, stmt, (lane, column))?;
        Ok((lane, column))
    }

    /// `tcgen05.ld`; with `pack`, each register takes the low 16 bits of two columns (the
    /// first in its low half).
    fn tmem_ld(
        &mut self,
        w: usize,
        pc: usize,
        shape: TmemShape,
        pack: bool,
        d: &[Reg],
        taddr: Address,
    ) -> Result<(), InterpError> {
        let taddr = self.uniform_address(w, pc, taddr, "tcgen05.ld address")?;
        let halves: &[Option<u32>] = if pack { &[Some(0), Some(1)] } else { &[None] };
        for l in 0..32u32 {
            let t = w * 32 + l as usize;
            for (r, dst) in d.iter().enumerate() {
                let mut value = 0u32;
                for &half in halves {
                    let (lane, column) = self.tmem_cell(w, pc, shape, half, taddr, l, r as u32)?;
                    let v = self.tmem.get(lane, column).unwrap_or(0);
                    let part = match half {
                        Some(h) => (v & 0xFFFF) << (16 * h),
                        None => v,
                    };
                    value |= part;
                    let kind = AccessKind::TmemLoad {
                        reg: r as u16,
                        half: half.map(|h| h as u8),
                    };
                    self.trace_tmem(t, pc, kind, (lane, column), v & mask(half));
                }
                self.write(t, *dst, u64::from(value));
                if let (Some(slot), Some(th)) = (self.slots.slot(*dst), self.threads.get_mut(t)) {
                    if let Some(p) = th.pending.get_mut(slot) {
                        *p = true;
                    }
                }
            }
        }
        Ok(())
    }

    /// `tcgen05.st`; with `unpack`, each register's low and high halves go to the low 16 bits
    /// of two columns (zero-extended).
    fn tmem_st(
        &mut self,
        w: usize,
        pc: usize,
        shape: TmemShape,
        unpack: bool,
        src: &[Reg],
        taddr: Address,
    ) -> Result<(), InterpError> {
        let taddr = self.uniform_address(w, pc, taddr, "tcgen05.st address")?;
        let halves: &[Option<u32>] = if unpack { &[Some(0), Some(1)] } else { &[None] };
        let mut cells = Vec::with_capacity(32 * src.len() * halves.len());
        for l in 0..32u32 {
            let t = w * 32 + l as usize;
            for (r, s) in src.iter().enumerate() {
                let v = self.read32(t, pc, *s)?;
                for &half in halves {
                    let (lane, column) = self.tmem_cell(w, pc, shape, half, taddr, l, r as u32)?;
                    let part = match half {
                        Some(h) => (v >> (16 * h)) & 0xFFFF,
                        None => v,
                    };
                    cells.push((t, r, half, lane, column, part));
                }
            }
        }
        for (t, r, half, lane, column, v) in cells {
            self.tmem.set(lane, column, v);
            let kind = AccessKind::TmemStore {
                reg: r as u16,
                half: half.map(|h| h as u8),
            };
            self.trace_tmem(t, pc, kind, (lane, column), v);
        }
        Ok(())
    }

    /// Records thread `t`'s 32-bit access to the TMEM cell `(lane, column)` at statement `pc`.
    fn trace_tmem(
        &mut self,
        t: usize,
        pc: usize,
        kind: AccessKind,
        (lane, column): (u32, u32),
        v: u32,
    ) {
        self.trace.push(Access {
            thread: t as u32,
            stmt: pc,
            kind,
            location: Location::Tmem { lane, column },
            bytes: 4,
            value: u128::from(v),
        });
    }
}

/// The bits of a cell a packed access moves: the low 16 for a half, all 32 otherwise.
fn mask(half: Option<u32>) -> u32 {
    if half.is_some() {
        0xFFFF
    } else {
        u32::MAX
    }
}
