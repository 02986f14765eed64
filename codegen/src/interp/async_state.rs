//! The state asynchronous copies add to a run ([`AsyncState`]): mbarriers, the TMEM cells of
//! copies no wait has observed, and the shared bytes written without a proxy fence. The
//! operations on it are in `async_copy.rs`.

use std::collections::{HashMap, HashSet};

/// One mbarrier: the arrivals a phase needs, those still missing, the phases completed, and
/// the TMEM cells of the copies committed to each phase.
#[derive(Debug, Clone, Default)]
pub(super) struct Mbarrier {
    pub count: u32,
    pub pending: u32,
    pub completed: u32,
    /// (phase the commit arrived in, cells).
    pub committed: Vec<(u32, Vec<(u32, u32)>)>,
}

/// The state asynchronous copies add to a run.
#[derive(Debug, Clone, Default)]
pub(super) struct AsyncState {
    pub mbarriers: HashMap<u32, Mbarrier>,
    /// Cells written by copies no wait has observed yet.
    pub in_flight: HashSet<(u32, u32)>,
    /// Per thread: cells of copies issued since its last commit.
    pub uncommitted: HashMap<usize, Vec<(u32, u32)>>,
    /// Per shared byte (indexed by shared-window address): 1 + the thread that wrote it
    /// through the generic proxy since its last `fence.proxy.async`, or 0.
    pub unfenced: Vec<u16>,
    /// Arrivals so far (the scheduler's progress measure).
    pub arrivals: u64,
}
