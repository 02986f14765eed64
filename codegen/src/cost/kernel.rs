//! [`KernelCost`]: the six counters of one launch, and where they come from, from the
//! interpreter's trace.

use std::collections::BTreeMap;

use super::counters::SharedCounters;
use super::liveness::dead_shared_loads;
use super::wavefront::{access_cost, LaneAccess, SharedAccessClass};
use crate::interp::{run, AccessKind, Config, InterpError, Location, ParamValue, Trace};
use crate::ptx::{Kernel, Stmt};

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
    /// A shared access of a width no hardware access has.
    #[error("statement {stmt} ({opcode}): a {bytes}-byte shared access per lane has no hardware cost rule (1, 2, 4, 8 or 16 bytes)")]
    Width {
        /// The statement.
        stmt: usize,
        /// Its opcode.
        opcode: String,
        /// Bytes per lane.
        bytes: u32,
    },
}

/// The class of a traced access, when it touched shared memory as the hardware counts it.
fn class_of(kind: AccessKind) -> Option<SharedAccessClass> {
    match kind {
        AccessKind::Load => Some(SharedAccessClass::Load),
        AccessKind::Store => Some(SharedAccessClass::Store),
        AccessKind::LdmatrixRow { .. } => Some(SharedAccessClass::Ldmatrix),
        AccessKind::StmatrixRow { .. } => Some(SharedAccessClass::Stmatrix),
        _ => None,
    }
}

/// Costs every warp-level shared access in `trace` (a run of `kernel`), skipping the loads
/// ptxas deletes ([`dead_shared_loads`]).
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
    for issue in trace.issues() {
        let Some(first) = issue.first() else { continue };
        let Some(class) = class_of(first.kind) else {
            continue;
        };
        let lanes: Vec<LaneAccess> = issue
            .iter()
            .filter_map(|a| match (a.location, a.kind) {
                (Location::Shared(address), AccessKind::LdmatrixRow { matrix, row })
                | (Location::Shared(address), AccessKind::StmatrixRow { matrix, row }) => {
                    Some(LaneAccess {
                        slot: 8 * u32::from(matrix) + u32::from(row),
                        address,
                    })
                }
                (Location::Shared(address), _) => Some(LaneAccess {
                    slot: a.thread % 32,
                    address,
                }),
                _ => None,
            })
            .collect();
        if lanes.is_empty() {
            continue;
        }
        let opcode = || match kernel.body.get(first.stmt) {
            Some(Stmt::Inst(i)) => i.op.opcode(),
            _ => String::new(),
        };
        let is_dead = dead.contains(&first.stmt);
        let entry = per.entry(first.stmt).or_insert_with(|| StatementCost {
            stmt: first.stmt,
            opcode: opcode(),
            issues: 0,
            counters: SharedCounters::default(),
            dead: is_dead,
        });
        entry.issues += 1;
        if is_dead {
            continue;
        }
        let cost = access_cost(class, first.bytes, &lanes).ok_or_else(|| CostError::Width {
            stmt: first.stmt,
            opcode: opcode(),
            bytes: first.bytes,
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
