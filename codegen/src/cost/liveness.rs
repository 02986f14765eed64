//! Which shared loads ptxas keeps: a load whose result no side effect ever depends on is
//! deleted before it reaches the hardware (the recorded address-dump kernels, whose loads only
//! feed nothing, execute no shared load at all), so the cost model must not count it.
//!
//! The analysis is by register name over the whole body (flow-insensitive), so it can only
//! keep more than ptxas does: stores, barriers, branches, tensor-memory and mbarrier
//! instructions, `ret` and the guards of live instructions are live; an instruction is live
//! when it writes a register a live instruction reads.

use std::collections::BTreeSet;

use crate::ptx::{Kernel, Op, Reg, StateSpace, Stmt};

/// Whether ptxas may delete the op when nothing reads what it writes.
fn removable(op: &Op) -> bool {
    matches!(
        op,
        Op::Ld { .. }
            | Op::Mov { .. }
            | Op::Arith { .. }
            | Op::Logic { .. }
            | Op::MulWide { .. }
            | Op::Setp { .. }
            | Op::Not { .. }
            | Op::MadLo { .. }
            | Op::Lop3 { .. }
            | Op::Bfe { .. }
            | Op::Bfi { .. }
            | Op::Prmt { .. }
            | Op::Cvt { .. }
            | Op::CvtaGlobal { .. }
            | Op::LdParam { .. }
            | Op::Ldmatrix { .. }
    )
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
    let insts: Vec<(usize, &crate::ptx::Inst)> = kernel
        .body
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Stmt::Inst(inst) => Some((i, inst)),
            _ => None,
        })
        .collect();
    let mut live: BTreeSet<usize> = insts
        .iter()
        .filter(|(_, inst)| !removable(&inst.op))
        .map(|&(i, _)| i)
        .collect();
    let mut read: BTreeSet<Reg> = BTreeSet::new();
    loop {
        let before = (live.len(), read.len());
        for &(i, inst) in &insts {
            if live.contains(&i) {
                let written = inst.op.destinations().len();
                read.extend(inst.op.registers().into_iter().skip(written));
                read.extend(inst.guard.map(|g| g.pred));
            } else if inst.op.destinations().iter().any(|d| read.contains(d)) {
                live.insert(i);
            }
        }
        if (live.len(), read.len()) == before {
            break;
        }
    }
    insts
        .iter()
        .filter(|(i, inst)| {
            !live.contains(i)
                && matches!(
                    inst.op,
                    Op::Ld {
                        space: StateSpace::Shared,
                        ..
                    } | Op::Ldmatrix { .. }
                )
        })
        .map(|&(i, _)| i)
        .collect()
}
