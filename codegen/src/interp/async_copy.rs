//! Asynchronous copies and their completion: `tcgen05.cp` from a shared-memory descriptor,
//! `tcgen05.commit` to an mbarrier, `mbarrier.init` / `try_wait.parity`, and
//! `fence.proxy.async`.
//!
//! The copy moves its data when its thread issues it, but the cells it writes stay *in
//! flight* until a thread's `mbarrier.try_wait` observes the phase the copy was committed to;
//! a `tcgen05.ld/st` of an in-flight cell is an error ([`InterpError::TmemCopyInFlight`]), as
//! is a copy of shared bytes a thread wrote through the generic proxy without a
//! `fence.proxy.async` since ([`InterpError::UnfencedSharedWrite`]). A warp whose
//! `try_wait` fails yields to the others; a round in which no mbarrier receives an arrival
//! while some warp waits is a deadlock ([`InterpError::MbarrierDeadlock`]).
//!
//! The descriptor is decoded per PTX ISA 9.7.16.4.1 (start address, leading and stride byte
//! offsets in 16-byte units, the fixed `0b001` at bits 46–48), for the K-major no-swizzle
//! canonical layout: row `r`, 16-byte chunk `c` of a copy reads
//! `start + 16·(r % 8) + SBO·(r / 8) + LBO·c`. Swizzled descriptors and the absolute leading
//! mode are refused ([`InterpError::CpDescriptor`]), not guessed.

use crate::ptx::{Address, CpShape, Operand, Reg};

use super::async_state::Mbarrier;
use super::error::InterpError;
use super::exec::le;
use super::machine::Exec;
use super::trace::{Access, AccessKind, Location};

/// The fields of a shared-memory descriptor the copy needs.
struct Descriptor {
    start: u32,
    lbo: u32,
    sbo: u32,
}

impl Descriptor {
    fn decode(desc: u64, thread: u32, stmt: usize) -> Result<Descriptor, InterpError> {
        let field = |lo: u32| (((desc >> lo) & 0x3FFF) << 4) as u32;
        let bad = |reason: &str| InterpError::CpDescriptor {
            thread,
            stmt,
            desc,
            reason: reason.to_string(),
        };
        if (desc >> 46) & 0b111 != 0b001 {
            return Err(bad("bits 46-48 must hold the fixed value 0b001"));
        }
        if (desc >> 52) & 1 != 0 {
            return Err(bad("the absolute leading-dimension mode is not modelled"));
        }
        if desc >> 61 != 0 {
            return Err(bad("swizzled source layouts are not modelled"));
        }
        Ok(Descriptor {
            start: field(0),
            lbo: field(16),
            sbo: field(32),
        })
    }

    /// The shared address of row `r`, 16-byte chunk `c`.
    fn chunk(&self, r: u32, c: u32) -> u32 {
        self.start
            .wrapping_add(16 * (r % 8))
            .wrapping_add(self.sbo.wrapping_mul(r / 8))
            .wrapping_add(self.lbo.wrapping_mul(c))
    }
}

impl Exec<'_> {
    /// Marks `bytes` at shared address `at` as written by thread `t` through the generic
    /// proxy.
    pub(super) fn note_generic_write(&mut self, t: usize, at: usize, bytes: usize) {
        let unfenced = &mut self.asynchronous.unfenced;
        if unfenced.len() < self.shared.len() {
            unfenced.resize(self.shared.len(), 0);
        }
        if let Some(cells) = unfenced.get_mut(at..at + bytes) {
            cells.fill((t as u16).wrapping_add(1));
        }
    }

    /// `fence.proxy.async.shared::cta` by thread `t`.
    pub(super) fn fence_proxy_async(&mut self, t: usize) {
        let tag = (t as u16).wrapping_add(1);
        for cell in self.asynchronous.unfenced.iter_mut().filter(|c| **c == tag) {
            *cell = 0;
        }
    }

    /// Errors if the cell is written by a copy no wait has observed.
    pub(super) fn check_not_in_flight(
        &self,
        warp: u32,
        stmt: usize,
        (lane, column): (u32, u32),
    ) -> Result<(), InterpError> {
        let in_flight = &self.asynchronous.in_flight;
        if !in_flight.is_empty() && in_flight.contains(&(lane, column)) {
            return Err(InterpError::TmemCopyInFlight {
                warp,
                stmt,
                lane,
                column,
            });
        }
        Ok(())
    }

    /// `tcgen05.cp` by thread `t`.
    pub(super) fn tmem_cp(
        &mut self,
        t: usize,
        pc: usize,
        shape: CpShape,
        taddr: Address,
        desc: Reg,
    ) -> Result<(), InterpError> {
        let thread = t as u32;
        let base = (self.read(t, pc, taddr.base)? as u32).wrapping_add(taddr.offset as u32);
        let d = Descriptor::decode(self.read(t, pc, desc)?, thread, pc)?;
        let (lane0, column0) = (base >> 16, base & 0xFFFF);
        let mut cells = Vec::new();
        for r in 0..shape.rows() {
            for c in 0..shape.row_bytes() / 16 {
                let at = d.chunk(r, c);
                let i = self.shared_index(t, pc, at, 16, 16)?;
                if let Some(&tag) = self
                    .asynchronous
                    .unfenced
                    .get(i..i + 16)
                    .and_then(|s| s.iter().find(|&&x| x != 0))
                {
                    return Err(InterpError::UnfencedSharedWrite {
                        thread,
                        stmt: pc,
                        writer: u32::from(tag - 1),
                        address: at,
                    });
                }
                let bytes = self.shared.get(i..i + 16).unwrap_or_default().to_vec();
                for lane in shape.lanes_of(r) {
                    for word in 0..4u32 {
                        let (lane, column) = (lane0 + lane, column0 + 4 * c + word);
                        if lane >= super::Tmem::LANES || column >= super::Tmem::COLUMNS {
                            return Err(InterpError::TmemOutOfRange {
                                warp: thread / 32,
                                stmt: pc,
                                lane: u64::from(lane),
                                column: u64::from(column),
                            });
                        }
                        if !self.tmem.is_allocated(column) {
                            return Err(InterpError::TmemUnallocated {
                                warp: thread / 32,
                                stmt: pc,
                                column,
                            });
                        }
                        let w = word as usize * 4;
                        let v = le(bytes.get(w..w + 4).unwrap_or_default()) as u32;
                        cells.push((r, lane, column, v));
                    }
                }
            }
        }
        let list = self.asynchronous.uncommitted.entry(t).or_default();
        for &(row, lane, column, v) in &cells {
            self.tmem.set(lane, column, v);
            list.push((lane, column));
            self.asynchronous.in_flight.insert((lane, column));
            self.trace.push(Access {
                thread,
                stmt: pc,
                kind: AccessKind::TmemCopy { row: row as u16 },
                location: Location::Tmem { lane, column },
                bytes: 4,
                value: u128::from(v),
            });
        }
        Ok(())
    }

    /// The checked shared address of an mbarrier operand.
    fn mbarrier_address(&self, t: usize, pc: usize, addr: Address) -> Result<u32, InterpError> {
        let a = (self.read(t, pc, addr.base)? as u32).wrapping_add(addr.offset as u32);
        self.shared_index(t, pc, a, 8, 8)?;
        Ok(a)
    }

    /// The initialised mbarrier an operand names, or [`InterpError::MbarrierUninitialized`].
    fn mbarrier(
        &mut self,
        t: usize,
        pc: usize,
        addr: Address,
    ) -> Result<&mut Mbarrier, InterpError> {
        let address = self.mbarrier_address(t, pc, addr)?;
        self.asynchronous
            .mbarriers
            .get_mut(&address)
            .ok_or(InterpError::MbarrierUninitialized {
                thread: t as u32,
                stmt: pc,
                address,
            })
    }

    /// `mbarrier.init` by thread `t`.
    pub(super) fn mbarrier_init(
        &mut self,
        t: usize,
        pc: usize,
        addr: Address,
        count: Operand,
    ) -> Result<(), InterpError> {
        let count = self.operand(t, pc, count, 32)? as u32;
        let a = self.mbarrier_address(t, pc, addr)?;
        self.asynchronous.mbarriers.insert(
            a,
            Mbarrier {
                count,
                pending: count,
                ..Mbarrier::default()
            },
        );
        Ok(())
    }

    /// `tcgen05.commit` by thread `t`: the copies it issued complete now, and the mbarrier
    /// receives one arrival.
    pub(super) fn tmem_commit(
        &mut self,
        t: usize,
        pc: usize,
        mbar: Address,
    ) -> Result<(), InterpError> {
        let cells = self.asynchronous.uncommitted.remove(&t).unwrap_or_default();
        let bar = self.mbarrier(t, pc, mbar)?;
        bar.committed.push((bar.completed, cells));
        bar.pending = bar.pending.saturating_sub(1);
        if bar.pending == 0 {
            bar.completed += 1;
            bar.pending = bar.count;
        }
        self.asynchronous.arrivals += 1;
        Ok(())
    }

    /// `mbarrier.try_wait.parity` by thread `t`: true once the phase of that parity has
    /// completed (the current phase has the other parity); the copies committed to completed
    /// phases are then no longer in flight.
    pub(super) fn mbarrier_try_wait(
        &mut self,
        t: usize,
        pc: usize,
        d: Reg,
        addr: Address,
        parity: Operand,
    ) -> Result<bool, InterpError> {
        let parity = self.operand(t, pc, parity, 32)? & 1;
        let bar = self.mbarrier(t, pc, addr)?;
        let done = u64::from(bar.completed & 1) != parity;
        let mut seen = Vec::new();
        if done {
            let completed = bar.completed;
            bar.committed.retain(|(phase, cells)| {
                let keep = *phase >= completed;
                if !keep {
                    seen.extend(cells.iter().copied());
                }
                keep
            });
        }
        for cell in seen {
            self.asynchronous.in_flight.remove(&cell);
        }
        self.write(t, d, u64::from(done));
        Ok(done)
    }
}
