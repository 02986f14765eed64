//! Which shared loads ptxas keeps: a load whose result no side effect ever depends on is
//! deleted before it reaches the hardware (the recorded address-dump kernels, whose loads only
//! feed nothing, execute no shared load at all), so the cost model must not count it.
//!
//! The analysis is by register name over the whole body (flow-insensitive), so it can only
//! keep more than ptxas does: stores, barriers, branches, tensor-memory and mbarrier
//! instructions, `ret` and the guards of live instructions are live; an instruction is live
//! when it writes a register a live instruction reads.

use std::collections::BTreeSet;

use crate::ptx::{Kernel, Op, OpClass, Reg, StateSpace, Stmt};

/// Whether ptxas may delete the op when nothing reads what it writes: every ALU op
/// ([`OpClass::Alu`], so a new one is covered by its class) and the loads (`ld`, `ld.param`,
/// `ldmatrix`).
fn removable(op: &Op) -> bool {
    op.class() == OpClass::Alu
        || matches!(op, Op::Ld { .. } | Op::LdParam { .. } | Op::Ldmatrix { .. })
}

/// The body statements (indices) that are shared loads ptxas deletes: `ld.shared` and
/// `ldmatrix` whose results nothing live reads.
///
/// ```
/// use codegen::cost::dead_shared_loads;
/// use codegen::ptx::{Builder, DataType, StateSpace, Target};
/// let mut b = Builder::new("k", Target::Sm90a)?;
/// b.shared("buf", 16, 64)?;
/// let at = b.shared_address("buf")?;
/// let unused = b.ld(StateSpace::Shared, DataType::B32, 1, at)?;
/// let kept = b.ld(StateSpace::Shared, DataType::B32, 1, at)?;
/// b.st(StateSpace::Shared, DataType::B32, at, &kept)?;
/// b.ret()?;
/// let k = b.finish()?;
/// assert_eq!(dead_shared_loads(&k).len(), 1);
/// # let _ = unused;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn dead_shared_loads(kernel: &Kernel) -> BTreeSet<usize> {
    /// One instruction: its statement, whether it is a root (never deleted) or a shared load,
    /// and the registers it writes and reads.
    struct Node {
        stmt: usize,
        root: bool,
        shared_load: bool,
        writes: Vec<Reg>,
        reads: Vec<Reg>,
    }
    let nodes: Vec<Node> = kernel
        .body
        .iter()
        .enumerate()
        .filter_map(|(stmt, s)| match s {
            Stmt::Inst(inst) => {
                let writes = inst.op.destinations();
                let mut reads = inst.op.registers().split_off(writes.len());
                reads.extend(inst.guard.map(|g| g.pred));
                Some(Node {
                    stmt,
                    root: !removable(&inst.op),
                    shared_load: matches!(
                        inst.op,
                        Op::Ld {
                            space: StateSpace::Shared,
                            ..
                        } | Op::Ldmatrix { .. }
                    ),
                    writes,
                    reads,
                })
            }
            _ => None,
        })
        .collect();
    let mut live: Vec<bool> = nodes.iter().map(|n| n.root).collect();
    let mut read: BTreeSet<Reg> = nodes
        .iter()
        .filter(|n| n.root)
        .flat_map(|n| n.reads.iter().copied())
        .collect();
    let mut changed = true;
    while changed {
        changed = false;
        for (n, l) in nodes.iter().zip(live.iter_mut()) {
            if !*l && n.writes.iter().any(|d| read.contains(d)) {
                *l = true;
                changed = true;
                read.extend(n.reads.iter().copied());
            }
        }
    }
    nodes
        .iter()
        .zip(&live)
        .filter(|(n, &l)| !l && n.shared_load)
        .map(|(n, _)| n.stmt)
        .collect()
}
