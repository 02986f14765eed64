//! [`TypedOp`]: the ops of the [`OpKind`] table read into what each means — which operand is
//! the buffer, the index, the barrier, the phase; which region is the loop body or a partition.
//! [`Module::typed`] checks the operand and region counts the op's syntax gives, so a reader
//! (the storage-alias lowering does) matches on a typed form instead of indexing an operand
//! list by hand.

use super::error::{MlirError, MlirErrorKind};
use super::model::{Module, OpId, Operation, RegionId, ValueId};
use super::op_kind::OpKind;

/// An op of the [`OpKind`] table in its typed form. Operand roles follow the op's custom form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TypedOp<'m> {
    /// `module`: its body.
    Module {
        /// The body region.
        body: RegionId,
    },
    /// `tt.func`: its body (its block arguments are the parameters).
    Func {
        /// The body region.
        body: RegionId,
    },
    /// `tt.return`, `ttg.warp_yield`, `ttg.warp_return`, `scf.yield`: the values it passes on.
    Terminator {
        /// Which terminator.
        kind: OpKind,
        /// The values.
        values: &'m [ValueId],
    },
    /// `tlx.storage_alias_spec storage = …[, size = N]`.
    StorageAliasSpec {
        /// `smem`, `tmem` (as written).
        storage: &'m str,
        /// `size`, where given (as written).
        size: Option<&'m str>,
    },
    /// `tlx.storage_alias_local_alloc %spec`.
    StorageAliasLocalAlloc {
        /// The spec.
        spec: ValueId,
    },
    /// `tlx.reuse_group(%members…) group_kind = …[, group_size = k]`.
    ReuseGroup {
        /// Its members: allocations and groups.
        members: &'m [ValueId],
        /// `shared` or `distinct`.
        group_kind: &'m str,
        /// `group_size`, where given.
        group_size: Option<&'m str>,
    },
    /// `tlx.set_buffer_overlap(%spec, %group)`.
    SetBufferOverlap {
        /// The spec.
        spec: ValueId,
        /// The reuse tree.
        group: ValueId,
    },
    /// `ttg.local_alloc` / `ttng.tmem_alloc [%init]`.
    Alloc {
        /// Which.
        kind: OpKind,
        /// The value it is initialised with, where given.
        init: Option<ValueId>,
    },
    /// `tlx.local_alias`, `ttg.memdesc_subslice`, `ttg.memdesc_reinterpret`,
    /// `ttg.memdesc_trans`, `ttng.tmem_subslice`: a view of `src`.
    View {
        /// Which view.
        kind: OpKind,
        /// What it views.
        src: ValueId,
    },
    /// `ttg.memdesc_index %src[%index]`: buffer `index` of `src`.
    MemdescIndex {
        /// The multi-buffered memdesc.
        src: ValueId,
        /// The buffer index.
        index: ValueId,
    },
    /// `ttg.local_load`, `ttng.tmem_load`: reads `src`.
    Load {
        /// Which.
        kind: OpKind,
        /// The buffer read.
        src: ValueId,
    },
    /// `ttg.local_store %value, %dst`, `ttng.tmem_store %value, %dst, %pred`: writes `dst`.
    Store {
        /// Which.
        kind: OpKind,
        /// The value written.
        value: ValueId,
        /// The buffer written.
        dst: ValueId,
        /// The predicate (`ttng.tmem_store`).
        pred: Option<ValueId>,
    },
    /// `ttng.tmem_copy %src, %dst[, %barrier]`: an asynchronous SMEM → TMEM copy.
    TmemCopy {
        /// Shared-memory source.
        src: ValueId,
        /// Tensor-memory destination.
        dst: ValueId,
        /// The barrier it arrives on, where given.
        barrier: Option<ValueId>,
    },
    /// `ttg.warp_specialize(%captures…) default {…} partitionN(…) {…}`.
    WarpSpecialize {
        /// The captured values (block arguments `k` of every partition).
        captures: &'m [ValueId],
        /// The default region (the warps that launched the kernel).
        default: RegionId,
        /// The partitions, in order.
        partitions: &'m [RegionId],
    },
    /// `scf.for %iv = %lower to %upper step %step iter_args(%a = %init…)`.
    For {
        /// Lower bound.
        lower: ValueId,
        /// Upper bound.
        upper: ValueId,
        /// Step.
        step: ValueId,
        /// Initial values of the loop-carried arguments.
        inits: &'m [ValueId],
        /// The body (its block arguments: the induction variable, then the carried values).
        body: RegionId,
    },
    /// `scf.if %cond {…} [else {…}]`.
    If {
        /// The condition.
        cond: ValueId,
        /// Then.
        then: RegionId,
        /// Else, where written.
        otherwise: Option<RegionId>,
    },
    /// `scf.while (%a = %init…) {…} do {…}`.
    While {
        /// Initial values.
        inits: &'m [ValueId],
        /// The condition region.
        before: RegionId,
        /// The body region.
        after: RegionId,
    },
    /// `scf.condition(%cond) %values…`.
    Condition {
        /// Whether to go on.
        cond: ValueId,
        /// The values passed on.
        values: &'m [ValueId],
    },
    /// `arith.constant V`.
    Constant {
        /// The value as written (`128`, `true`, `dense<0.0>`).
        value: &'m str,
    },
    /// `ttng.init_barrier %b, count`.
    InitBarrier {
        /// The mbarrier.
        barrier: ValueId,
    },
    /// `ttng.inval_barrier %b`.
    InvalBarrier {
        /// The mbarrier.
        barrier: ValueId,
    },
    /// `ttng.barrier_expect %b, bytes, %pred`.
    BarrierExpect {
        /// The mbarrier.
        barrier: ValueId,
        /// The predicate.
        pred: Option<ValueId>,
    },
    /// `ttng.arrive_barrier %b, count[, %pred]`.
    ArriveBarrier {
        /// The mbarrier.
        barrier: ValueId,
        /// The predicate, where given.
        pred: Option<ValueId>,
    },
    /// `ttng.wait_barrier %b, %phase[, %pred][ deps …]`.
    WaitBarrier {
        /// The mbarrier.
        barrier: ValueId,
        /// The phase waited for.
        phase: ValueId,
        /// The rest: the predicate and dependencies.
        rest: &'m [ValueId],
    },
    /// `ttng.async_tma_copy_global_to_local %desc[%coords…] %dst, %barrier, %pred`.
    TmaLoad {
        /// The tensor descriptor.
        desc: ValueId,
        /// The coordinates.
        coords: &'m [ValueId],
        /// The shared-memory destination.
        dst: ValueId,
        /// The mbarrier whose tx-count the copy completes.
        barrier: ValueId,
        /// The predicate.
        pred: ValueId,
    },
    /// `ttng.async_tma_copy_local_to_global %desc[%coords…] %src`.
    TmaStore {
        /// The tensor descriptor.
        desc: ValueId,
        /// The coordinates.
        coords: &'m [ValueId],
        /// The shared-memory source.
        src: ValueId,
    },
    /// `ttng.async_tma_store_wait {pendings = n}`.
    TmaStoreWait {
        /// `pendings`, as written.
        pendings: Option<&'m str>,
    },
    /// `ttng.tc_gen5_mma` / `ttng.tc_gen5_mma_scaled %a, %b, %d[…], …`.
    Mma {
        /// Which.
        kind: OpKind,
        /// Operand A (SMEM or TMEM).
        a: ValueId,
        /// Operand B (SMEM).
        b: ValueId,
        /// The TMEM accumulator.
        d: ValueId,
        /// Every operand after `d`, in order (scales, flags, predicates, barriers).
        rest: &'m [ValueId],
    },
    /// `ttng.tc_gen5_commit %barrier[, %pred]`.
    Commit {
        /// The mbarrier that tracks the MMAs issued before.
        barrier: ValueId,
        /// The predicate, where given.
        pred: Option<ValueId>,
    },
    /// `ttng.fence_async_shared`.
    FenceAsyncShared,
    /// `ttng.async_clc_try_cancel %barrier, %response`.
    ClcTryCancel {
        /// The mbarrier.
        barrier: ValueId,
        /// The response buffer.
        response: ValueId,
    },
}

impl Module {
    /// The typed form of `op`, or `None` for an op outside the [`OpKind`] table.
    ///
    /// Errors: [`MlirErrorKind::Expected`] at the op when its operands or regions are not what
    /// its syntax gives (an `scf.for` without a body, a `ttg.memdesc_index` with one operand).
    ///
    /// ```
    /// use linear_layout::mlir::{Module, TypedOp};
    /// let m = Module::parse("module {\n  tt.func @k(%i: i32) {\n    %b = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n    %x = ttg.memdesc_index %b[%i] : !ttg.memdesc<2xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable> -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n    tt.return\n  }\n}\n")?;
    /// let index = m.walk()[3];
    /// let name = |v| m.value(v).map(|x| x.name());
    /// let Some(TypedOp::MemdescIndex { src, index }) = m.typed(index)? else {
    ///     return Err("not a memdesc_index".into());
    /// };
    /// assert_eq!((name(src), name(index)), (Some("b"), Some("i")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn typed(&self, op: OpId) -> Result<Option<TypedOp<'_>>, MlirError> {
        let Some(o) = self.op(op) else {
            return Ok(None);
        };
        let Some(kind) = o.kind() else {
            return Ok(None);
        };
        let ops = o.operands();
        let regions = o.regions();
        let arg = |k: usize| {
            ops.get(k)
                .copied()
                .ok_or_else(|| malformed(o, "more operands"))
        };
        let region = |k: usize| {
            regions
                .get(k)
                .copied()
                .ok_or_else(|| malformed(o, "a region"))
        };
        let opt = |k: usize| ops.get(k).copied();
        let rest_from = |k: usize| ops.get(k..).unwrap_or_default();
        Ok(Some(match kind {
            OpKind::Module => TypedOp::Module { body: region(0)? },
            OpKind::Func => TypedOp::Func { body: region(0)? },
            OpKind::Return | OpKind::WarpYield | OpKind::WarpReturn | OpKind::Yield => {
                TypedOp::Terminator { kind, values: ops }
            }
            OpKind::StorageAliasSpec => TypedOp::StorageAliasSpec {
                storage: o
                    .attribute("storage")
                    .ok_or_else(|| malformed(o, "storage = smem|tmem"))?,
                size: o.attribute("size"),
            },
            OpKind::StorageAliasLocalAlloc => TypedOp::StorageAliasLocalAlloc { spec: arg(0)? },
            OpKind::ReuseGroup => TypedOp::ReuseGroup {
                members: ops,
                group_kind: o
                    .attribute("group_kind")
                    .ok_or_else(|| malformed(o, "group_kind = shared|distinct"))?,
                group_size: o.attribute("group_size"),
            },
            OpKind::SetBufferOverlap => TypedOp::SetBufferOverlap {
                spec: arg(0)?,
                group: arg(1)?,
            },
            OpKind::LocalAlloc | OpKind::TmemAlloc => TypedOp::Alloc { kind, init: opt(0) },
            OpKind::LocalAlias
            | OpKind::MemdescSubslice
            | OpKind::MemdescReinterpret
            | OpKind::MemdescTrans
            | OpKind::TmemSubslice => TypedOp::View { kind, src: arg(0)? },
            OpKind::MemdescIndex => TypedOp::MemdescIndex {
                src: arg(0)?,
                index: arg(1)?,
            },
            OpKind::LocalLoad | OpKind::TmemLoad => TypedOp::Load { kind, src: arg(0)? },
            OpKind::LocalStore | OpKind::TmemStore => TypedOp::Store {
                kind,
                value: arg(0)?,
                dst: arg(1)?,
                pred: opt(2),
            },
            OpKind::TmemCopy => TypedOp::TmemCopy {
                src: arg(0)?,
                dst: arg(1)?,
                barrier: opt(2),
            },
            OpKind::WarpSpecialize => TypedOp::WarpSpecialize {
                captures: ops,
                default: region(0)?,
                partitions: regions.get(1..).unwrap_or_default(),
            },
            OpKind::For => {
                if ops.len() < 3 {
                    return Err(malformed(o, "lower bound, upper bound and step"));
                }
                TypedOp::For {
                    lower: arg(0)?,
                    upper: arg(1)?,
                    step: arg(2)?,
                    inits: rest_from(3),
                    body: region(0)?,
                }
            }
            OpKind::If => TypedOp::If {
                cond: arg(0)?,
                then: region(0)?,
                otherwise: regions.get(1).copied(),
            },
            OpKind::While => TypedOp::While {
                inits: ops,
                before: region(0)?,
                after: region(1)?,
            },
            OpKind::Condition => TypedOp::Condition {
                cond: arg(0)?,
                values: rest_from(1),
            },
            OpKind::Constant => TypedOp::Constant {
                value: o
                    .attribute("value")
                    .ok_or_else(|| malformed(o, "a value"))?,
            },
            OpKind::InitBarrier => TypedOp::InitBarrier { barrier: arg(0)? },
            OpKind::InvalBarrier => TypedOp::InvalBarrier { barrier: arg(0)? },
            OpKind::BarrierExpect => TypedOp::BarrierExpect {
                barrier: arg(0)?,
                pred: opt(1),
            },
            OpKind::ArriveBarrier => TypedOp::ArriveBarrier {
                barrier: arg(0)?,
                pred: opt(1),
            },
            OpKind::WaitBarrier => TypedOp::WaitBarrier {
                barrier: arg(0)?,
                phase: arg(1)?,
                rest: rest_from(2),
            },
            OpKind::AsyncTmaCopyGlobalToLocal => {
                let n = ops.len();
                if n < 4 {
                    return Err(malformed(
                        o,
                        "a descriptor, coordinates, a destination, a barrier and a predicate",
                    ));
                }
                TypedOp::TmaLoad {
                    desc: arg(0)?,
                    coords: ops.get(1..n - 3).unwrap_or_default(),
                    dst: arg(n - 3)?,
                    barrier: arg(n - 2)?,
                    pred: arg(n - 1)?,
                }
            }
            OpKind::AsyncTmaCopyLocalToGlobal => {
                let n = ops.len();
                if n < 2 {
                    return Err(malformed(o, "a descriptor, coordinates and a source"));
                }
                TypedOp::TmaStore {
                    desc: arg(0)?,
                    coords: ops.get(1..n - 1).unwrap_or_default(),
                    src: arg(n - 1)?,
                }
            }
            OpKind::AsyncTmaStoreWait => TypedOp::TmaStoreWait {
                pendings: o.attribute("pendings"),
            },
            OpKind::TcGen5Mma | OpKind::TcGen5MmaScaled => TypedOp::Mma {
                kind,
                a: arg(0)?,
                b: arg(1)?,
                d: arg(2)?,
                rest: rest_from(3),
            },
            OpKind::TcGen5Commit => TypedOp::Commit {
                barrier: arg(0)?,
                pred: opt(1),
            },
            OpKind::FenceAsyncShared => TypedOp::FenceAsyncShared,
            OpKind::AsyncClcTryCancel => TypedOp::ClcTryCancel {
                barrier: arg(0)?,
                response: arg(1)?,
            },
        }))
    }
}

fn malformed(o: &Operation, expected: &'static str) -> MlirError {
    let (line, column) = o.position();
    MlirError {
        line,
        column,
        kind: MlirErrorKind::Expected {
            expected,
            found: format!("'{}' with {} operands", o.name(), o.operands().len()),
        },
    }
}
