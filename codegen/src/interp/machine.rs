//! [`Machine`]: a prepared run of one kernel on one CTA, and the scheduler that runs it;
//! [`Outcome`]: what a finished run leaves.
//!
//! Scheduling: each warp runs until it reaches `bar.sync` or finishes; when every warp is at
//! the barrier or done, the barrier releases (exited warps count as arrived). Within a warp
//! the threads at the smallest program counter execute together, so forward branches
//! diverge and reconverge at their label. `.sync.aligned` instructions (`ldmatrix`,
//! `stmatrix`, every `tcgen05` instruction but the fences) and `bar.sync` run once per warp
//! with each thread's operands and need the whole warp converged.

use std::collections::HashMap;

use crate::ptx::{Kernel, Op, Reg, RegType, Stmt};

use super::async_state::AsyncState;
use super::error::InterpError;
use super::memory::{buffer_address, Config, ParamValue, SharedLayout, Tmem};
use super::trace::Trace;

/// Where each register lives in a thread's register file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Slots {
    offset: [usize; 4],
    count: [u32; 4],
}

fn class(ty: RegType) -> usize {
    match ty {
        RegType::Pred => 0,
        RegType::B16 => 1,
        RegType::B32 => 2,
        RegType::B64 => 3,
    }
}

impl Slots {
    fn new(kernel: &Kernel) -> Slots {
        let counts = kernel.register_counts();
        let mut offset = [0; 4];
        let mut count = [0; 4];
        let mut total = 0usize;
        for ty in RegType::ALL {
            let n = counts.get(&ty).copied().unwrap_or(0);
            if let (Some(o), Some(c)) = (offset.get_mut(class(ty)), count.get_mut(class(ty))) {
                *o = total;
                *c = n;
            }
            total += n as usize;
        }
        Slots { offset, count }
    }

    fn total(&self) -> usize {
        self.offset
            .iter()
            .zip(&self.count)
            .map(|(o, c)| o + *c as usize)
            .max()
            .unwrap_or(0)
    }

    pub(super) fn slot(&self, r: Reg) -> Option<usize> {
        let k = class(r.ty());
        let (offset, count) = (self.offset.get(k)?, self.count.get(k)?);
        (r.index() < *count).then(|| offset + r.index() as usize)
    }
}

/// One thread's state.
#[derive(Debug, Clone)]
pub(super) struct Thread {
    pub pc: usize,
    pub exited: bool,
    pub regs: Vec<Option<u64>>,
    pub pending: Vec<bool>,
}

/// The state of a run in progress; the instruction semantics live in `exec.rs` and
/// `collective.rs`.
pub(super) struct Exec<'k> {
    pub kernel: &'k Kernel,
    pub labels: HashMap<&'k str, usize>,
    pub slots: Slots,
    pub threads: Vec<Thread>,
    pub layout: SharedLayout,
    pub shared: Vec<u8>,
    pub tmem: Tmem,
    pub params: Vec<ParamValue>,
    pub trace: Trace,
    pub asynchronous: AsyncState,
    pub steps: u64,
}

/// What a thread does after an instruction.
pub(super) enum Flow {
    Next,
    Jump(usize),
    Exit,
}

enum Step {
    Continue,
    Barrier,
    /// An `mbarrier.try_wait` failed: let the other warps run.
    Yield,
    Done,
}

/// Warp steps a run may take (a backstop for wait loops that never leave).
const STEP_LIMIT: u64 = 1 << 27;

/// A kernel ready to run: validated, shared variables placed, memories initialised (zero).
/// Fill shared or tensor memory before [`run`](Machine::run) to give loads known values.
///
/// ```
/// use codegen::interp::{Config, Machine, ParamValue};
/// use codegen::ptx::{Address, Builder, DataType, ParamType, SpecialReg, StateSpace, Target, Width};
/// // out[tid] = smem[tid]
/// let mut b = Builder::new("copy", Target::Sm90a)?;
/// b.param("out", ParamType::U64)?;
/// b.extern_shared("smem", 16)?;
/// let out = b.global_pointer("out")?;
/// let tid = b.special(SpecialReg::TidX)?;
/// let s = b.shared_address("smem")?;
/// let off = b.shl(Width::B32, tid, 2)?;
/// let a = b.add(codegen::ptx::IntType::U32, s, off)?;
/// let v = b.ld(StateSpace::Shared, DataType::B32, 1, a)?;
/// let wide = b.mul_wide_u32(tid, 4)?;
/// let g = b.add(codegen::ptx::IntType::U64, out, wide)?;
/// b.st(StateSpace::Global, DataType::B32, g, &v)?;
/// b.ret()?;
/// let k = b.finish()?;
/// let mut m = Machine::new(&k, Config::new(32).dynamic_shared(128))?;
/// let data: Vec<u8> = (0..128).collect();
/// m.write_shared(m.shared_address("smem").unwrap_or(0), &data)?;
/// let done = m.run(&[ParamValue::Buffer(vec![0; 128])])?;
/// assert_eq!(done.buffers[0], data);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Machine<'k> {
    kernel: &'k Kernel,
    config: Config,
    layout: SharedLayout,
    shared: Vec<u8>,
    tmem: Tmem,
}

impl<'k> Machine<'k> {
    /// Validates the kernel ([`Kernel::validate`], forward branches only, at most 65536
    /// registers per class), checks the thread count against 32..=1024 and the kernel's
    /// launch bounds, places shared variables.
    ///
    /// ```
    /// use codegen::interp::{Config, InterpError, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.reqntid(64)?;
    /// let k = b.finish()?;
    /// assert!(Machine::new(&k, Config::new(64)).is_ok());
    /// assert_eq!(Machine::new(&k, Config::new(32)).unwrap_err(), InterpError::ThreadCount { threads: 32 });
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(kernel: &'k Kernel, config: Config) -> Result<Machine<'k>, InterpError> {
        kernel.validate()?;
        let n = config.threads;
        let fits_bounds =
            kernel.reqntid.is_none_or(|r| r == n) && kernel.maxntid.is_none_or(|m| n <= m);
        if n == 0 || n % 32 != 0 || n > 1024 || !fits_bounds {
            return Err(InterpError::ThreadCount { threads: n });
        }
        for (ty, count) in kernel.register_counts() {
            if count > 1 << 16 {
                return Err(InterpError::RegisterFile {
                    class: ty.ptx_type().into(),
                    count,
                });
            }
        }
        let labels = kernel.labels();
        for (i, s) in kernel.body.iter().enumerate() {
            if let Stmt::Inst(inst) = s {
                if let Op::Bra { target } = &inst.op {
                    let waits = |l: usize| {
                        kernel.body.get(l..i).is_some_and(|body| {
                            body.iter().any(|s| {
                                matches!(s, Stmt::Inst(x) if matches!(x.op, Op::MbarrierTryWait { .. }))
                            })
                        })
                    };
                    if labels
                        .get(target.as_str())
                        .is_none_or(|&l| l <= i && !waits(l))
                    {
                        return Err(InterpError::BackwardBranch {
                            stmt: i,
                            label: target.clone(),
                        });
                    }
                }
            }
        }
        let layout = SharedLayout::new(kernel, &config)?;
        Ok(Machine {
            kernel,
            shared: vec![0; layout.end as usize],
            layout,
            config,
            tmem: Tmem::new(),
        })
    }

    /// The shared-window address of variable `name`.
    ///
    /// ```
    /// use codegen::interp::{Config, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 1024)?;
    /// let k = b.finish()?;
    /// assert_eq!(Machine::new(&k, Config::new(32))?.shared_address("smem"), Some(1024));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn shared_address(&self, name: &str) -> Option<u32> {
        self.layout.address(name)
    }

    /// Where the shared variables sit.
    ///
    /// ```
    /// use codegen::interp::{Config, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let k = Builder::new("k", Target::Sm90a)?.finish()?;
    /// assert_eq!(Machine::new(&k, Config::new(32))?.layout().start, 1024);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn layout(&self) -> &SharedLayout {
        &self.layout
    }

    /// Copies `bytes` into shared memory at `address`.
    ///
    /// ```
    /// use codegen::interp::{Config, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.extern_shared("smem", 16)?;
    /// let k = b.finish()?;
    /// let mut m = Machine::new(&k, Config::new(32).dynamic_shared(16))?;
    /// m.write_shared(1024, &[1, 2, 3])?;
    /// assert_eq!(m.read_shared(1025, 2)?, &[2, 3]);
    /// assert!(m.write_shared(1030, &[0; 16]).is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_shared(&mut self, address: u32, bytes: &[u8]) -> Result<(), InterpError> {
        let range = self.host_range(address, bytes.len())?;
        match self.shared.get_mut(range) {
            Some(dst) => {
                dst.copy_from_slice(bytes);
                Ok(())
            }
            None => Err(InterpError::HostShared {
                address,
                len: bytes.len(),
            }),
        }
    }

    /// Reads `len` bytes of shared memory at `address`.
    ///
    /// ```
    /// use codegen::interp::{Config, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let k = Builder::new("k", Target::Sm90a)?.finish()?;
    /// let m = Machine::new(&k, Config::new(32))?;
    /// assert!(m.read_shared(0, 4).is_err()); // the reserved region
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn read_shared(&self, address: u32, len: usize) -> Result<&[u8], InterpError> {
        let range = self.host_range(address, len)?;
        self.shared
            .get(range)
            .ok_or(InterpError::HostShared { address, len })
    }

    fn host_range(&self, address: u32, len: usize) -> Result<std::ops::Range<usize>, InterpError> {
        let start = address as usize;
        let end = start.saturating_add(len);
        if address < self.layout.start || end > self.layout.end as usize {
            return Err(InterpError::HostShared { address, len });
        }
        Ok(start..end)
    }

    /// Tensor memory, to fill before the run.
    ///
    /// ```
    /// use codegen::interp::{Config, Machine};
    /// use codegen::ptx::{Builder, Target};
    /// let k = Builder::new("k", Target::Sm100a)?.finish()?;
    /// let mut m = Machine::new(&k, Config::new(128))?;
    /// assert!(m.tmem_mut().set(3, 4, 7));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tmem_mut(&mut self) -> &mut Tmem {
        &mut self.tmem
    }

    /// Runs every thread to completion with the given parameter values (one per kernel
    /// parameter: `U32` for `.u32`, `U64` or `Buffer` for `.u64`).
    ///
    /// ```
    /// use codegen::interp::{Config, InterpError, Machine, ParamValue};
    /// use codegen::ptx::{Builder, ParamType, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// b.param("n", ParamType::U32)?;
    /// b.ret()?;
    /// let k = b.finish()?;
    /// assert!(Machine::new(&k, Config::new(32))?.run(&[ParamValue::U32(3)]).is_ok());
    /// assert!(matches!(Machine::new(&k, Config::new(32))?.run(&[]), Err(InterpError::Param { .. })));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn run(self, params: &[ParamValue]) -> Result<Outcome, InterpError> {
        let kernel = self.kernel;
        if params.len() != kernel.params.len() {
            return Err(InterpError::Param {
                index: params.len().min(kernel.params.len()),
                reason: format!(
                    "the kernel has {} parameters, {} given",
                    kernel.params.len(),
                    params.len()
                ),
            });
        }
        for (index, (p, v)) in kernel.params.iter().zip(params).enumerate() {
            let ok = matches!(
                (p.ty, v),
                (crate::ptx::ParamType::U32, ParamValue::U32(_))
                    | (
                        crate::ptx::ParamType::U64,
                        ParamValue::U64(_) | ParamValue::Buffer(_)
                    )
            );
            if !ok {
                return Err(InterpError::Param {
                    index,
                    reason: format!("'{}' is {}; got {v:?}", p.name, p.ty.suffix()),
                });
            }
        }
        let slots = Slots::new(kernel);
        let total = slots.total();
        let threads = (0..self.config.threads)
            .map(|_| Thread {
                pc: 0,
                exited: false,
                regs: vec![None; total],
                pending: vec![false; total],
            })
            .collect();
        let mut exec = Exec {
            kernel,
            labels: kernel.labels(),
            slots,
            threads,
            layout: self.layout,
            shared: self.shared,
            tmem: self.tmem,
            params: params.to_vec(),
            trace: Trace::default(),
            asynchronous: AsyncState::default(),
            steps: 0,
        };
        exec.run()?;
        let buffers = exec
            .params
            .into_iter()
            .map(|p| match p {
                ParamValue::Buffer(b) => b,
                _ => Vec::new(),
            })
            .collect();
        Ok(Outcome {
            trace: exec.trace,
            shared: exec.shared,
            layout: exec.layout,
            buffers,
            tmem: exec.tmem,
            slots: exec.slots,
            registers: exec.threads.into_iter().map(|t| t.regs).collect(),
        })
    }
}

/// What a finished run leaves: the trace, final memories and registers.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// Every memory access, in order.
    pub trace: Trace,
    /// Shared memory (indexed by shared-window address; bytes below the base are unused).
    pub shared: Vec<u8>,
    /// Where the shared variables sat.
    pub layout: SharedLayout,
    /// The final contents of each `Buffer` parameter (empty for scalars), by parameter index.
    pub buffers: Vec<Vec<u8>>,
    /// Tensor memory.
    pub tmem: Tmem,
    slots: Slots,
    registers: Vec<Vec<Option<u64>>>,
}

impl Outcome {
    /// The final value of `reg` in `thread`; `None` if never written (or no such thread or
    /// register).
    ///
    /// ```
    /// use codegen::interp::{run, Config};
    /// use codegen::ptx::{Builder, SpecialReg, Target};
    /// let mut b = Builder::new("k", Target::Sm90a)?;
    /// let lane = b.special(SpecialReg::LaneId)?;
    /// b.ret()?;
    /// let out = run(&b.finish()?, &Config::new(64), &[])?;
    /// assert_eq!(out.register(37, lane), Some(5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn register(&self, thread: u32, reg: Reg) -> Option<u64> {
        let slot = self.slots.slot(reg)?;
        self.registers
            .get(thread as usize)?
            .get(slot)
            .copied()
            .flatten()
    }
}

impl Exec<'_> {
    fn run(&mut self) -> Result<(), InterpError> {
        let warps = self.threads.len() / 32;
        let mut at_barrier = vec![false; warps];
        loop {
            let arrivals = self.asynchronous.arrivals;
            let mut yielded = None;
            for (w, waiting) in at_barrier.iter_mut().enumerate() {
                while !*waiting {
                    self.steps += 1;
                    if self.steps > STEP_LIMIT {
                        return Err(InterpError::StepLimit { steps: self.steps });
                    }
                    match self.step_warp(w)? {
                        Step::Continue => {}
                        Step::Barrier => *waiting = true,
                        Step::Yield => {
                            yielded = yielded.or(Some(w));
                            break;
                        }
                        Step::Done => break,
                    }
                }
            }
            // A waiting warp holds the barrier closed; with no arrival this round, nothing
            // can complete its wait.
            if let Some(w) = yielded {
                if self.asynchronous.arrivals == arrivals {
                    let stmt = self
                        .warp_threads(w)
                        .filter_map(|t| self.threads.get(t))
                        .map(|t| t.pc)
                        .min()
                        .unwrap_or(0);
                    return Err(InterpError::MbarrierDeadlock {
                        warp: w as u32,
                        stmt,
                    });
                }
                continue;
            }
            if !at_barrier.iter().any(|&b| b) {
                break;
            }
            for (w, waiting) in at_barrier.iter_mut().enumerate() {
                if *waiting {
                    for t in self.warp_threads(w) {
                        if let Some(th) = self.threads.get_mut(t) {
                            th.pc += 1;
                        }
                    }
                    *waiting = false;
                }
            }
        }
        let live = self.tmem.allocations().to_vec();
        if !live.is_empty() {
            return Err(InterpError::TmemLeak { columns: live });
        }
        Ok(())
    }

    pub(super) fn warp_threads(&self, w: usize) -> std::ops::Range<usize> {
        let start = w * 32;
        start..(start + 32).min(self.threads.len())
    }

    fn step_warp(&mut self, w: usize) -> Result<Step, InterpError> {
        let kernel = self.kernel;
        let active: Vec<usize> = self
            .warp_threads(w)
            .filter(|&t| self.threads.get(t).is_some_and(|th| !th.exited))
            .collect();
        let Some(pc) = active
            .iter()
            .filter_map(|&t| self.threads.get(t).map(|th| th.pc))
            .min()
        else {
            return Ok(Step::Done);
        };
        let here: Vec<usize> = active
            .iter()
            .copied()
            .filter(|&t| self.threads.get(t).is_some_and(|th| th.pc == pc))
            .collect();
        let inst = match kernel.body.get(pc) {
            None => {
                // Falling off the end of the body exits, like `ret`.
                for &t in &here {
                    if let Some(th) = self.threads.get_mut(t) {
                        th.exited = true;
                    }
                }
                return Ok(Step::Continue);
            }
            Some(Stmt::Label(_) | Stmt::Comment(_)) => {
                self.advance(&here, pc + 1);
                return Ok(Step::Continue);
            }
            Some(Stmt::Inst(inst)) => inst,
        };
        self.trace.begin_issue(pc, w as u32);
        if inst.op.class().is_collective() {
            if here.len() != 32 {
                return Err(self.divergent(w, pc));
            }
            let mut runs = Vec::with_capacity(32);
            for &t in &here {
                runs.push(self.guard(t, pc, inst.guard)?);
            }
            if runs.iter().all(|&r| !r) {
                self.advance(&here, pc + 1);
                return Ok(Step::Continue);
            }
            if !runs.iter().all(|&r| r) {
                return Err(self.divergent(w, pc));
            }
            if matches!(inst.op, Op::BarSync { .. }) {
                return Ok(Step::Barrier);
            }
            self.exec_warp(w, pc, &inst.op)?;
            self.advance(&here, pc + 1);
            return Ok(Step::Continue);
        }
        let mut wait_failed = false;
        for &t in &here {
            let flow = if self.guard(t, pc, inst.guard)? {
                if let Op::MbarrierTryWait { d, addr, parity } = &inst.op {
                    wait_failed |= !self.mbarrier_try_wait(t, pc, *d, *addr, *parity)?;
                    Flow::Next
                } else {
                    self.exec_thread(t, pc, &inst.op)?
                }
            } else {
                Flow::Next
            };
            if let Some(th) = self.threads.get_mut(t) {
                match flow {
                    Flow::Next => th.pc = pc + 1,
                    Flow::Jump(target) => th.pc = target,
                    Flow::Exit => th.exited = true,
                }
            }
        }
        Ok(if wait_failed {
            Step::Yield
        } else {
            Step::Continue
        })
    }

    fn advance(&mut self, threads: &[usize], pc: usize) {
        for &t in threads {
            if let Some(th) = self.threads.get_mut(t) {
                th.pc = pc;
            }
        }
    }

    fn divergent(&self, w: usize, pc: usize) -> InterpError {
        let inst = match self.kernel.body.get(pc) {
            Some(Stmt::Inst(i)) => i.op.opcode(),
            _ => String::new(),
        };
        InterpError::Divergent {
            warp: w as u32,
            stmt: pc,
            inst,
        }
    }

    fn guard(
        &self,
        t: usize,
        pc: usize,
        guard: Option<crate::ptx::Guard>,
    ) -> Result<bool, InterpError> {
        match guard {
            None => Ok(true),
            Some(g) => Ok((self.read(t, pc, g.pred)? != 0) != g.negated),
        }
    }

    /// Reads a register: [`InterpError::Uninitialized`] before its first write,
    /// [`InterpError::PendingLoad`] between `tcgen05.ld` and `wait::ld`.
    pub(super) fn read(&self, t: usize, pc: usize, r: Reg) -> Result<u64, InterpError> {
        let uninit = || InterpError::Uninitialized {
            thread: t as u32,
            stmt: pc,
            reg: r.to_string(),
        };
        let slot = self.slots.slot(r).ok_or_else(uninit)?;
        let th = self.threads.get(t).ok_or_else(uninit)?;
        if th.pending.get(slot).copied().unwrap_or(false) {
            return Err(InterpError::PendingLoad {
                thread: t as u32,
                stmt: pc,
                reg: r.to_string(),
            });
        }
        th.regs.get(slot).copied().flatten().ok_or_else(uninit)
    }

    /// Writes a register (masked to its class), clearing a pending load.
    pub(super) fn write(&mut self, t: usize, r: Reg, value: u64) {
        if let (Some(slot), Some(th)) = (self.slots.slot(r), self.threads.get_mut(t)) {
            if let Some(v) = th.regs.get_mut(slot) {
                *v = Some(value & r.ty().mask());
            }
            if let Some(p) = th.pending.get_mut(slot) {
                *p = false;
            }
        }
    }

    /// The value of a `.u64` parameter as `ld.param` sees it.
    pub(super) fn param_value(&self, name: &str) -> Option<u64> {
        let index = self.kernel.params.iter().position(|p| p.name == name)?;
        match self.params.get(index)? {
            ParamValue::U32(v) => Some(u64::from(*v)),
            ParamValue::U64(v) => Some(*v),
            ParamValue::Buffer(_) => Some(buffer_address(index)),
        }
    }
}
