//! [`KernelCost`]: the six counters of one launch, and where they come from, from the
//! interpreter's trace.

use std::collections::BTreeMap;

use super::counters::SharedCounters;
use super::liveness::dead_shared_loads;
use super::wavefront::{access_cost, AccessError, LaneAccess, SharedAccessClass};
use crate::interp::{run, Access, AccessKind, Config, InterpError, Location, ParamValue, Trace};
use crate::ptx::{Kernel, Op, StateSpace, Stmt};

/// What one shared-memory instruction of the body cost over a launch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementCost {
    /// The body statement index.
    pub stmt: usize,
    /// Its opcode (`ld.shared::cta.v4.b32`, …).
    pub opcode: String,
    /// Warp-level executions.
    pub issues: u64,
    /// Its counters (zero when ptxas deletes it).
    pub counters: SharedCounters,
    /// A load nothing reads: ptxas deletes it, so the hardware never runs it.
    pub dead: bool,
}

/// A launch's shared-memory counters as the hardware would report them, per statement and
/// in total.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelCost {
    /// The totals.
    pub counters: SharedCounters,
    /// Each shared-memory statement that ran, in body order.
    pub statements: Vec<StatementCost>,
}

/// Why a launch could not be costed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CostError {
    /// The interpreter stopped.
    #[error(transparent)]
    Interp(#[from] InterpError),
    /// The kernel to cost could not be emitted.
    #[error(transparent)]
    Emit(#[from] crate::smem::SmemError),
    /// One warp-level access is not one the rules cover.
    #[error("statement {stmt} ({opcode}): {source}")]
    Access {
        /// The statement.
        stmt: usize,
        /// Its opcode.
        opcode: String,
        /// Why.
        source: AccessError,
    },
    /// A warp ran a shared access with every lane predicated off. What the hardware counts then
    /// is ptxas's choice, not the addresses': a predicated `LDS` still issues (one instruction,
    /// no wavefront), a guarded store ptxas turns into an early `EXIT` never does (the probes
    /// `ld/st 32xN no lane active` in `docs/gpu-counters.md`).
    #[error(
        "statement {stmt} ({opcode}): warp {warp} runs it with every lane predicated off; what \
         the hardware counts for that depends on how ptxas lays out the guard"
    )]
    AllLanesOff {
        /// The statement.
        stmt: usize,
        /// Its opcode.
        opcode: String,
        /// The warp.
        warp: u32,
    },
    /// The trace does not fit the kernel: an access of another statement, warp, kind or width
    /// inside one execution, or shared memory touched by an instruction the rules do not cover.
    #[error("statement {stmt} ({opcode}): {reason}")]
    Trace {
        /// The statement.
        stmt: usize,
        /// Its opcode (empty past the body).
        opcode: String,
        /// What does not fit.
        reason: String,
    },
}

/// The class the hardware counts a statement's shared accesses in, if it is one of the four.
fn class_of(op: &Op) -> Option<SharedAccessClass> {
    match op {
        Op::Ld {
            space: StateSpace::Shared,
            ..
        } => Some(SharedAccessClass::Load),
        Op::St {
            space: StateSpace::Shared,
            ..
        } => Some(SharedAccessClass::Store),
        Op::Ldmatrix { .. } => Some(SharedAccessClass::Ldmatrix),
        Op::Stmatrix { .. } => Some(SharedAccessClass::Stmatrix),
        _ => None,
    }
}

/// The lanes of one execution of a shared access by `class`, after checking that every access
/// is that statement's, of one warp, kind and width.
fn lanes_of(
    stmt: usize,
    opcode: &dyn Fn() -> String,
    accesses: &[Access],
) -> Result<(u32, Vec<LaneAccess>), CostError> {
    let wrong = |reason: String| CostError::Trace {
        stmt,
        opcode: opcode(),
        reason,
    };
    let Some(first) = accesses.first() else {
        return Ok((0, Vec::new()));
    };
    let mut lanes = Vec::with_capacity(accesses.len());
    for a in accesses {
        if a.stmt != stmt || a.warp() != first.warp() || a.bytes != first.bytes {
            return Err(wrong(format!(
                "an access of statement {}, thread {}, {} bytes in one execution of warp {}",
                a.stmt,
                a.thread,
                a.bytes,
                first.warp()
            )));
        }
        let Location::Shared(address) = a.location else {
            return Err(wrong(format!(
                "thread {} accesses {:?}",
                a.thread, a.location
            )));
        };
        let slot = match a.kind {
            AccessKind::LdmatrixRow { matrix, row } | AccessKind::StmatrixRow { matrix, row } => {
                8 * u32::from(matrix) + u32::from(row)
            }
            AccessKind::Load | AccessKind::Store => a.thread % 32,
            other => return Err(wrong(format!("a {other:?} access"))),
        };
        lanes.push(LaneAccess { slot, address });
    }
    Ok((first.bytes, lanes))
}

/// Costs every warp-level shared access in `trace` (a run of `kernel`), skipping the loads
/// ptxas deletes ([`dead_shared_loads`]).
///
/// Errors ([`CostError`]): a trace that does not fit the kernel, shared memory touched by an
/// instruction other than `ld`/`st.shared`, `ldmatrix`, `stmatrix`, an access the rules do not
/// cover ([`AccessError`]), a warp running a shared access with every lane predicated off
/// (what the hardware counts then is ptxas's choice).
///
/// ```
/// use codegen::cost::kernel_cost;
/// use codegen::interp::{run, Config};
/// use codegen::ptx::{Builder, DataType, IntType, SpecialReg, StateSpace, Target, Width};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.extern_shared("smem", 1024)?;
/// let tid = b.special(SpecialReg::TidX)?;
/// let off = b.shl(Width::B32, tid, 3)?; // 8 bytes apart: 2 words per lane
/// let smem = b.shared_address("smem")?;
/// let at = b.add(IntType::U32, smem, off)?;
/// b.st(StateSpace::Shared, DataType::B32, at, &[tid])?; // 32-bit stores, 2 per bank
/// b.ret()?;
/// let k = b.finish()?;
/// let out = run(&k, &Config::new(64).dynamic_shared(512), &[])?;
/// let cost = kernel_cost(&k, &out.trace)?;
/// assert_eq!(cost.counters.values(), [0, 2, 0, 4, 0, 2]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn kernel_cost(kernel: &Kernel, trace: &Trace) -> Result<KernelCost, CostError> {
    let dead = dead_shared_loads(kernel);
    let mut per: BTreeMap<usize, StatementCost> = BTreeMap::new();
    for (stmt, warp, accesses) in trace.executions() {
        let op = match kernel.body.get(stmt) {
            Some(Stmt::Inst(i)) => Some(&i.op),
            _ => None,
        };
        let opcode = || op.map(Op::opcode).unwrap_or_default();
        let Some(class) = op.and_then(class_of) else {
            if let Some(a) = accesses
                .iter()
                .find(|a| matches!(a.location, Location::Shared(_)))
            {
                return Err(CostError::Trace {
                    stmt,
                    opcode: opcode(),
                    reason: format!(
                        "thread {} touches shared memory through an instruction the rules do not \
                         cover (ld/st.shared, ldmatrix, stmatrix)",
                        a.thread
                    ),
                });
            }
            continue;
        };
        let (bytes, lanes) = lanes_of(stmt, &opcode, accesses)?;
        let is_dead = dead.contains(&stmt);
        if lanes.is_empty() && !is_dead {
            return Err(CostError::AllLanesOff {
                stmt,
                opcode: opcode(),
                warp,
            });
        }
        let entry = per.entry(stmt).or_insert_with(|| StatementCost {
            stmt,
            opcode: opcode(),
            issues: 0,
            counters: SharedCounters::default(),
            dead: is_dead,
        });
        entry.issues += 1;
        if is_dead {
            continue;
        }
        let cost = access_cost(class, bytes, &lanes).map_err(|source| CostError::Access {
            stmt,
            opcode: opcode(),
            source,
        })?;
        entry.counters += SharedCounters::of_access(class, cost);
    }
    let statements: Vec<StatementCost> = per.into_values().collect();
    let mut counters = SharedCounters::default();
    for s in &statements {
        counters += s.counters;
    }
    Ok(KernelCost {
        counters,
        statements,
    })
}

/// Runs `kernel` in the interpreter and costs the run ([`kernel_cost`]).
///
/// ```
/// use codegen::cost::run_cost;
/// use codegen::interp::Config;
/// use codegen::ptx::{Builder, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.ret()?;
/// assert_eq!(run_cost(&b.finish()?, &Config::new(32), &[])?.counters.wavefronts(), 0);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn run_cost(
    kernel: &Kernel,
    config: &Config,
    params: &[ParamValue],
) -> Result<KernelCost, CostError> {
    let out = run(kernel, config, params)?;
    kernel_cost(kernel, &out.trace)
}
