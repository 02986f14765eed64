//! [`KnownBarrier`]: an mbarrier as the explorers over laps hold it (`every_trip_count.rs`,
//! `every_tile_length.rs`) — its phase, pending arrivals and tx-count (`machine.rs`'s rules),
//! and what is known at its open phase and at its completed ones — and [`barrier_op`], what a
//! wait, an arrive or a complete_tx does to it and to what the op knows.

use std::rc::Rc;

use super::bitset::EventSet;
use super::machine::settle;
use super::trace::{EventId, EventKind};

/// An mbarrier's state with what its phases carry: `open`, what the arrivals on the phase not
/// yet complete knew; `closed`, what every completed phase carried (a wait that passes
/// learns it).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(super) struct KnownBarrier {
    pub(super) parity: u32,
    pub(super) pending: i64,
    pub(super) tx: i64,
    pub(super) open: EventSet,
    pub(super) closed: EventSet,
}

impl KnownBarrier {
    /// A fresh barrier of `count` arrivals a phase, over sets of `ids` members.
    pub(super) fn new(count: u32, ids: usize) -> Self {
        Self {
            parity: 0,
            pending: i64::from(count),
            tx: 0,
            open: EventSet::new(ids),
            closed: EventSet::new(ids),
        }
    }

    /// Forgets `c` (its latest instance is no longer the one anything knows), copying the
    /// shared barrier only where it holds `c`.
    pub(super) fn forget(this: &mut Rc<Self>, c: EventId) {
        if this.open.contains(c) || this.closed.contains(c) {
            let b = Rc::make_mut(this);
            b.open.remove(c);
            b.closed.remove(c);
        }
    }
}

/// What barrier op `kind` does to `barriers` (each a phase of `counts`' arrivals) and to what
/// it knows, `set` (what it inherited): a wait learns what its barrier's completed phases
/// carry; an arrive or a complete_tx hands `set` to the open phase, and a phase it completes
/// closes. Returns whether it arrived past its phase. Other ops do nothing.
pub(super) fn barrier_op(
    kind: &EventKind,
    barriers: &mut [Rc<KnownBarrier>],
    counts: impl Fn(usize) -> i64,
    set: &mut EventSet,
) -> bool {
    let (barrier, arrivals, bytes) = match kind {
        EventKind::Wait { barrier, .. } => {
            if let Some(b) = barriers.get(barrier.0) {
                set.union_with(&b.closed);
            }
            return false;
        }
        EventKind::Arrive { barrier, count, tx } => (
            barrier,
            -i64::from(*count),
            i64::try_from(*tx).unwrap_or(i64::MAX),
        ),
        EventKind::CompleteTx { barrier, bytes, .. } => {
            (barrier, 0, -i64::try_from(*bytes).unwrap_or(i64::MAX))
        }
        EventKind::Access { .. } | EventKind::Sync { .. } => return false,
    };
    let count = counts(barrier.0);
    let Some(b) = barriers.get_mut(barrier.0).map(Rc::make_mut) else {
        return false;
    };
    b.open.union_with(set);
    let (past, completes) = settle(&mut b.pending, &mut b.tx, count, arrivals, bytes);
    if completes {
        b.parity ^= 1;
        let KnownBarrier { open, closed, .. } = b;
        closed.union_with(open);
        open.clear();
    }
    past
}
