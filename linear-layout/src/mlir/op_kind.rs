//! [`OpKind`]: the one table of the op names the workspace understands, and where each prints
//! the types of its operands and results ([`OpKind::signature`]).
//!
//! Every other op is kept as it is written ([`Operation::kind`](super::Operation::kind) is
//! `None`): its defs, uses and regions are read, its text printed back. A consumer that
//! dispatches on ops matches on `OpKind`, so an op added here is a compile error in every
//! `match` until it is handled.
//!
//! ```
//! use linear_layout::mlir::{OpKind, Slot};
//! assert_eq!(OpKind::from_name("ttg.memdesc_index"), Some(OpKind::MemdescIndex));
//! assert_eq!(OpKind::MemdescIndex.signature(), Some(&[Slot::Operand(0), Slot::Result(0)][..]));
//! assert_eq!(OpKind::from_name("tt.dot"), None);
//! ```

/// Where a type of an op's signature (the types after its last top-level `:`) belongs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    /// The type of operand `k`.
    Operand(usize),
    /// The type of result `k`.
    Result(usize),
    /// The types of all operands, in order (`(T0, T1, …)`).
    Operands,
    /// The types of all results, in order.
    Results,
}

macro_rules! op_kinds {
    ($($(#[$doc:meta])* $variant:ident = $name:literal, $sig:expr;)*) => {
        /// An op the workspace understands. See the [module docs](self).
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum OpKind {
            $($(#[$doc])* $variant,)*
        }

        impl OpKind {
            /// Every kind, in table order.
            pub const ALL: &'static [OpKind] = &[$(OpKind::$variant,)*];

            /// The op's name as MLIR prints it.
            pub fn name(self) -> &'static str {
                match self {
                    $(OpKind::$variant => $name,)*
                }
            }

            /// The kind of the op named `name`, if the workspace understands it.
            pub fn from_name(name: &str) -> Option<OpKind> {
                match name {
                    $($name => Some(OpKind::$variant),)*
                    _ => None,
                }
            }

            /// The slots of the types its custom form prints after its last top-level `:`
            /// (parentheses and `->` aside), or `None` where they are not a fixed list of
            /// operand and result types (`scf.for`'s `: i32` names the induction variable's).
            pub fn signature(self) -> Option<&'static [Slot]> {
                match self {
                    $(OpKind::$variant => $sig,)*
                }
            }
        }
    };
}

use Slot::{Operand, Operands, Result as Res, Results};

/// `%src : T -> R` and its kin.
const UNARY: Option<&[Slot]> = Some(&[Operand(0), Res(0)]);
/// `(%a, …) : (T…) -> R…`.
const ALL: Option<&[Slot]> = Some(&[Operands, Results]);
/// `%barrier, … : T` (the barrier's type only).
const FIRST: Option<&[Slot]> = Some(&[Operand(0)]);

op_kinds! {
    /// `builtin.module`, printed `module`.
    Module = "module", None;
    /// `tt.func`.
    Func = "tt.func", None;
    /// `tt.return`.
    Return = "tt.return", ALL;
    /// `tlx.storage_alias_spec storage = smem|tmem[, size = N] : !tlx.storage_alias_spec<…>`.
    StorageAliasSpec = "tlx.storage_alias_spec", Some(&[Res(0)]);
    /// `tlx.storage_alias_local_alloc %spec : S -> !ttg.memdesc<…>`.
    StorageAliasLocalAlloc = "tlx.storage_alias_local_alloc", UNARY;
    /// `tlx.reuse_group(%a, …) group_kind = shared|distinct[, group_size = k] : (…) -> G`.
    ReuseGroup = "tlx.reuse_group", ALL;
    /// `tlx.set_buffer_overlap(%spec, %group) : (S, G) -> ()`.
    SetBufferOverlap = "tlx.set_buffer_overlap", ALL;
    /// `tlx.local_alias %buffer : T -> U` (legacy `reuse = buffer`, and the lowering's views).
    LocalAlias = "tlx.local_alias", UNARY;
    /// `ttg.local_alloc [%init] : ([T]) -> !ttg.memdesc<…>`.
    LocalAlloc = "ttg.local_alloc", ALL;
    /// `ttng.tmem_alloc [%init] : ([T]) -> !ttg.memdesc<…>`.
    TmemAlloc = "ttng.tmem_alloc", ALL;
    /// `ttg.memdesc_index %src[%i] : T -> U`.
    MemdescIndex = "ttg.memdesc_index", UNARY;
    /// `ttg.memdesc_subslice %src[…] : T -> U`.
    MemdescSubslice = "ttg.memdesc_subslice", UNARY;
    /// `ttg.memdesc_reinterpret %src : T -> U`.
    MemdescReinterpret = "ttg.memdesc_reinterpret", UNARY;
    /// `ttg.memdesc_trans %src {order = […]} : T -> U`.
    MemdescTrans = "ttg.memdesc_trans", UNARY;
    /// `ttng.tmem_subslice %src {N = …} : T -> U`.
    TmemSubslice = "ttng.tmem_subslice", UNARY;
    /// `ttg.local_load %src : T -> tensor<…>`.
    LocalLoad = "ttg.local_load", UNARY;
    /// `ttg.local_store %value, %dst : tensor<…> -> T`.
    LocalStore = "ttg.local_store", Some(&[Operand(0), Operand(1)]);
    /// `ttng.tmem_load %src : T -> tensor<…>`.
    TmemLoad = "ttng.tmem_load", UNARY;
    /// `ttng.tmem_store %value, %dst, %pred : tensor<…> -> T`.
    TmemStore = "ttng.tmem_store", Some(&[Operand(0), Operand(1)]);
    /// `ttng.tmem_copy %src, %dst[, %barrier] : S, T[, B]`.
    TmemCopy = "ttng.tmem_copy", Some(&[Operands]);
    /// `ttg.warp_specialize(%captures…) … default {…} partitionN(%args…) num_warps(n) {…} : (T…) -> (R…)`.
    WarpSpecialize = "ttg.warp_specialize", ALL;
    /// `ttg.warp_yield` (end of the default region).
    WarpYield = "ttg.warp_yield", ALL;
    /// `ttg.warp_return` (end of a partition).
    WarpReturn = "ttg.warp_return", ALL;
    /// `scf.for %iv = %lb to %ub step %s iter_args(%a = %init, …) -> (T…) [: I] {…}`.
    For = "scf.for", None;
    /// `scf.if %cond [-> (T…)] {…} [else {…}]`.
    If = "scf.if", None;
    /// `scf.while (%a = %init, …) : (T…) -> (U…) {…} do {…}`.
    While = "scf.while", None;
    /// `scf.condition(%c) %a, … : T…`.
    Condition = "scf.condition", None;
    /// `scf.yield %a, … : T…`.
    Yield = "scf.yield", Some(&[Operands]);
    /// `arith.constant V[ : T]`.
    Constant = "arith.constant", None;
    /// `ttng.init_barrier %b, count : T`.
    InitBarrier = "ttng.init_barrier", FIRST;
    /// `ttng.inval_barrier %b : T`.
    InvalBarrier = "ttng.inval_barrier", FIRST;
    /// `ttng.barrier_expect %b, bytes, %pred : T`.
    BarrierExpect = "ttng.barrier_expect", FIRST;
    /// `ttng.arrive_barrier %b, count[, %pred] : T`.
    ArriveBarrier = "ttng.arrive_barrier", FIRST;
    /// `ttng.wait_barrier %b, %phase[, %pred][ deps …] : T[, …]`.
    WaitBarrier = "ttng.wait_barrier", None;
    /// `ttng.async_tma_copy_global_to_local %desc[…] %dst, %barrier, %pred : …`.
    AsyncTmaCopyGlobalToLocal = "ttng.async_tma_copy_global_to_local", None;
    /// `ttng.async_tma_copy_local_to_global %desc[…] %src : …`.
    AsyncTmaCopyLocalToGlobal = "ttng.async_tma_copy_local_to_global", None;
    /// `ttng.async_tma_store_wait {pendings = n}`.
    AsyncTmaStoreWait = "ttng.async_tma_store_wait", None;
    /// `ttng.tc_gen5_mma %a, %b, %d[…], …`.
    TcGen5Mma = "ttng.tc_gen5_mma", None;
    /// `ttng.tc_gen5_mma_scaled %a, %b, %d[…], %sa, %sb, …`.
    TcGen5MmaScaled = "ttng.tc_gen5_mma_scaled", None;
    /// `ttng.tc_gen5_commit %barrier : T`.
    TcGen5Commit = "ttng.tc_gen5_commit", FIRST;
    /// `ttng.fence_async_shared`.
    FenceAsyncShared = "ttng.fence_async_shared", None;
    /// `ttng.async_clc_try_cancel %barrier, %response : B, R`.
    AsyncClcTryCancel = "ttng.async_clc_try_cancel", Some(&[Operands]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_reads_both_ways() {
        for &k in OpKind::ALL {
            assert_eq!(OpKind::from_name(k.name()), Some(k));
        }
        assert_eq!(OpKind::ALL.len(), 42);
    }
}
