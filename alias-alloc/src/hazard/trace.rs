//! [`Trace`]: a warp-specialized kernel as timelines of events with structural edges, the input
//! of both the explorer and the static check (`docs/hazard-check.md`, *Threads and events*).

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use super::error::HazardError;

/// The name prefix of the barrier a partition's warp groups `bar.sync` on (`bar.sync of default`).
pub const PARTITION_SYNC: &str = "bar.sync of ";

/// The name of the barrier the CTAs of a cluster sync on after their inits.
pub const CLUSTER_SYNC: &str = "cluster sync";

/// An event of a [`Trace`] (its index in [`Trace::events`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct EventId(pub usize);

/// A timeline of a [`Trace`] (its index in [`Trace::timelines`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TimelineId(pub usize);

/// An mbarrier of a [`Trace`] (its index in [`Trace::barriers`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct BarrierId(pub usize);

/// The memory an access touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Space {
    /// Shared memory; cells are bytes.
    Smem,
    /// Tensor memory; cell `column · 128 + lane` is one 32-bit cell.
    Tmem,
}

/// The cells one access touches: half-open ranges, sorted and merged.
///
/// ```
/// use alias_alloc::hazard::{Cells, Space};
/// let a = Cells::range(Space::Smem, 0, 128);
/// let b = Cells::from_ranges(Space::Smem, [(256, 384), (100, 140)]);
/// assert!(a.overlaps(&b));
/// assert!(!a.overlaps(&Cells::range(Space::Tmem, 0, 128)));
/// // TMEM: lanes 0..128 of columns 4..8
/// assert_eq!(Cells::tmem_columns(4, 4), Cells::range(Space::Tmem, 512, 512));
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Cells {
    space: Space,
    ranges: Vec<(u64, u64)>,
}

impl Cells {
    /// Cells `start .. start + len` of `space`.
    pub fn range(space: Space, start: u64, len: u64) -> Self {
        Self::from_ranges(space, [(start, start.saturating_add(len))])
    }

    /// All 128 lanes of TMEM columns `column .. column + columns`.
    pub fn tmem_columns(column: u64, columns: u64) -> Self {
        Self::range(
            Space::Tmem,
            column.saturating_mul(128),
            columns.saturating_mul(128),
        )
    }

    /// The same cells `by` further on (another CTA's copy of a buffer).
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, Space};
    /// assert_eq!(Cells::range(Space::Smem, 0, 8).offset(64), Cells::range(Space::Smem, 64, 8));
    /// ```
    pub fn offset(&self, by: u64) -> Self {
        Self::from_ranges(
            self.space,
            self.ranges
                .iter()
                .map(|&(a, b)| (a.saturating_add(by), b.saturating_add(by))),
        )
    }

    /// The cells of both.
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, Space};
    /// let two = Cells::range(Space::Smem, 0, 8).union(&Cells::range(Space::Smem, 16, 8));
    /// assert_eq!(two.ranges(), &[(0, 8), (16, 24)]);
    /// ```
    pub fn union(&self, other: &Cells) -> Self {
        Self::from_ranges(self.space, self.ranges.iter().chain(&other.ranges).copied())
    }

    /// The union of half-open ranges `(start, end)` (empty ones are dropped).
    pub fn from_ranges(space: Space, ranges: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut v: Vec<(u64, u64)> = ranges.into_iter().filter(|(s, e)| s < e).collect();
        v.sort_unstable();
        let mut merged: Vec<(u64, u64)> = Vec::with_capacity(v.len());
        for (s, e) in v {
            match merged.last_mut() {
                Some(last) if s <= last.1 => last.1 = last.1.max(e),
                _ => merged.push((s, e)),
            }
        }
        Self {
            space,
            ranges: merged,
        }
    }

    /// The memory.
    pub fn space(&self) -> Space {
        self.space
    }

    /// The ranges, sorted and disjoint.
    pub fn ranges(&self) -> &[(u64, u64)] {
        &self.ranges
    }

    /// Whether the two touch a common cell.
    pub fn overlaps(&self, other: &Cells) -> bool {
        if self.space != other.space {
            return false;
        }
        let (mut i, mut j) = (
            self.ranges.iter().peekable(),
            other.ranges.iter().peekable(),
        );
        while let (Some(&&(a0, a1)), Some(&&(b0, b1))) = (i.peek(), j.peek()) {
            if a0 < b1 && b0 < a1 {
                return true;
            }
            if a1 <= b1 {
                i.next();
            } else {
                j.next();
            }
        }
        false
    }
}

impl fmt::Display for Cells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let space = match self.space {
            Space::Smem => "smem bytes",
            Space::Tmem => "tmem cells",
        };
        write!(f, "{space} ")?;
        for (k, (s, e)) in self.ranges.iter().enumerate() {
            if k > 0 {
                write!(f, ",")?;
            }
            write!(f, "[{s}, {e})")?;
        }
        Ok(())
    }
}

/// What runs on a timeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimelineKind {
    /// A partition of `ttg.warp_specialize` (or its default region): ops in program order.
    Partition,
    /// The tensor core of a partition: the MMAs it issues, in issue order, and their
    /// completion arrivals.
    TensorCore {
        /// The issuing partition.
        issuer: TimelineId,
    },
    /// One TMA copy: its write, then its `complete_tx`.
    Tma {
        /// The issuing partition.
        issuer: TimelineId,
    },
}

/// A timeline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Timeline {
    /// Its name (`partition0`, `partition0.tensor-core`, …).
    pub name: String,
    /// What runs on it.
    pub kind: TimelineKind,
}

/// An mbarrier (`ttng.init_barrier b, count`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Barrier {
    /// Its name (the allocation and slot, `kv_fulls[1]`).
    pub name: String,
    /// The arrivals that complete a phase.
    pub count: u32,
}

/// What an event does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EventKind {
    /// Reads or writes cells.
    Access {
        /// The cells.
        cells: Cells,
        /// Whether it writes them.
        write: bool,
    },
    /// Arrives `count` times on a barrier, first adding `tx` to its tx-count
    /// (`arrive_barrier`: tx 0; `barrier_expect`: count 1, tx the bytes).
    Arrive {
        /// The barrier.
        barrier: BarrierId,
        /// The arrivals.
        count: u32,
        /// The bytes expected.
        tx: u64,
    },
    /// A TMA copy's completion: subtracts `bytes` from the tx-count.
    CompleteTx {
        /// The barrier.
        barrier: BarrierId,
        /// The bytes.
        bytes: u64,
        /// The `barrier_expect` on the same barrier last before the copy in its issuer's
        /// program order (the phase the bytes belong to).
        expect: Option<EventId>,
    },
    /// Waits until the phase of parity `parity` has completed.
    Wait {
        /// The barrier.
        barrier: BarrierId,
        /// 0 or 1.
        parity: u8,
    },
    /// One thread's part in a named barrier: every member of the group runs together.
    Sync {
        /// The group (an index in [`Trace::syncs`]).
        group: usize,
    },
}

/// An event: what it does, where, and what must run before it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its timeline.
    pub timeline: TimelineId,
    /// What it does.
    pub kind: EventKind,
    /// The op and iteration it comes from, as a person reads it.
    pub label: String,
    /// Its structural predecessors (program order, issue).
    pub after: Vec<EventId>,
}

/// A named-barrier generation: its members and the threads it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncGroup {
    /// The named barrier's id.
    pub id: u32,
    /// The threads that must take part.
    pub threads: u32,
    /// The members that do.
    pub members: Vec<EventId>,
}

/// Timelines, barriers and events (see the module docs and `docs/hazard-check.md`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Trace {
    /// The timelines.
    pub timelines: Vec<Timeline>,
    /// The mbarriers.
    pub barriers: Vec<Barrier>,
    /// The events; every structural predecessor comes before its successor.
    pub events: Vec<Event>,
    /// The named-barrier generations.
    pub syncs: Vec<SyncGroup>,
}

impl Trace {
    /// The event `e`.
    pub fn event(&self, e: EventId) -> Result<&Event, HazardError> {
        self.events
            .get(e.0)
            .ok_or(HazardError::NoSuchEvent { event: e.0 })
    }

    /// The barrier `b`.
    pub fn barrier(&self, b: BarrierId) -> Result<&Barrier, HazardError> {
        self.barriers
            .get(b.0)
            .ok_or(HazardError::NoSuchBarrier { barrier: b.0 })
    }

    /// The name of timeline `t` (`?` if there is none).
    pub fn timeline_name(&self, t: TimelineId) -> &str {
        self.timelines.get(t.0).map_or("?", |t| t.name.as_str())
    }

    /// The name of barrier `b` (`?` if there is none).
    ///
    /// ```
    /// use alias_alloc::hazard::{BarrierId, TraceBuilder};
    /// let mut t = TraceBuilder::new();
    /// let full = t.barrier("kv_fulls[0]", 1)?;
    /// let trace = t.build()?;
    /// assert_eq!((trace.barrier_name(full), trace.barrier_name(BarrierId(7))), ("kv_fulls[0]", "?"));
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn barrier_name(&self, b: BarrierId) -> &str {
        self.barriers.get(b.0).map_or("?", |b| b.name.as_str())
    }

    /// The event ids.
    pub fn ids(&self) -> impl Iterator<Item = EventId> {
        (0..self.events.len()).map(EventId)
    }

    /// Every event's structural successors (the inverse of [`Event::after`]).
    pub fn successors(&self) -> Vec<Vec<EventId>> {
        let mut succ = vec![Vec::new(); self.events.len()];
        for (i, e) in self.events.iter().enumerate() {
            for p in &e.after {
                if let Some(s) = succ.get_mut(p.0) {
                    s.push(EventId(i));
                }
            }
        }
        succ
    }

    /// Whether `a` and `b` are a conflicting pair: accesses on different timelines to
    /// overlapping cells, at least one a write.
    pub fn conflict(&self, a: EventId, b: EventId) -> bool {
        match (self.events.get(a.0), self.events.get(b.0)) {
            (Some(x), Some(y)) => match (&x.kind, &y.kind) {
                (
                    EventKind::Access { cells: c, write: w },
                    EventKind::Access { cells: d, write: v },
                ) => x.timeline != y.timeline && (*w || *v) && c.overlaps(d),
                _ => false,
            },
            _ => false,
        }
    }

    /// Every conflicting pair `(a, b)` with `a < b`, in order.
    pub fn conflicting_pairs(&self) -> Vec<(EventId, EventId)> {
        // The accesses grouped by their cells (most touch a buffer slot many others touch):
        // only two of overlapping groups may conflict ([`Trace::conflict`] decides).
        let mut groups: Vec<(&Cells, Vec<EventId>)> = Vec::new();
        let mut group_of: HashMap<&Cells, usize> = HashMap::new();
        for (i, e) in self.events.iter().enumerate() {
            if let EventKind::Access { cells, .. } = &e.kind {
                let g = *group_of.entry(cells).or_insert_with(|| {
                    groups.push((cells, Vec::new()));
                    groups.len() - 1
                });
                if let Some((_, members)) = groups.get_mut(g) {
                    members.push(EventId(i));
                }
            }
        }
        let mut pairs = Vec::new();
        for (g, (c, xs)) in groups.iter().enumerate() {
            for (h, (d, ys)) in groups.iter().enumerate().skip(g) {
                if !c.overlaps(d) {
                    continue;
                }
                for (k, &a) in xs.iter().enumerate() {
                    // (within one group, each pair once)
                    let others = if h == g {
                        ys.get(k + 1..).unwrap_or(&[])
                    } else {
                        ys
                    };
                    for &b in others {
                        if self.conflict(a, b) {
                            pairs.push((a.min(b), a.max(b)));
                        }
                    }
                }
            }
        }
        pairs.sort_unstable();
        pairs
    }

    /// Whether barrier `b` is one the reader adds for a `bar.sync` of a partition's warp groups
    /// or the cluster's sync (named [`PARTITION_SYNC`]… / [`CLUSTER_SYNC`]), not one of the
    /// kernel's: no advice names it.
    pub fn is_reader_sync(&self, b: BarrierId) -> bool {
        self.barriers
            .get(b.0)
            .is_some_and(|x| x.name.starts_with(PARTITION_SYNC) || x.name == CLUSTER_SYNC)
    }

    /// Per event, the events it conflicts with ([`Trace::conflict`]), in order.
    pub fn conflicts(&self) -> Vec<Vec<EventId>> {
        let mut out = vec![Vec::new(); self.events.len()];
        for (a, b) in self.conflicting_pairs() {
            if let Some(v) = out.get_mut(a.0) {
                v.push(b);
            }
            if let Some(v) = out.get_mut(b.0) {
                v.push(a);
            }
        }
        for v in &mut out {
            v.sort_unstable();
        }
        out
    }

    /// Checks what the builder guarantees: predecessors come first, ids are in range, every
    /// barrier counts at least one arrival, every sync group's members name it.
    pub fn validate(&self) -> Result<(), HazardError> {
        for (i, e) in self.events.iter().enumerate() {
            if e.timeline.0 >= self.timelines.len() {
                return Err(HazardError::NoSuchTimeline {
                    timeline: e.timeline.0,
                });
            }
            if let Some(p) = e.after.iter().find(|p| p.0 >= i) {
                return Err(HazardError::PredecessorAfter {
                    event: i,
                    predecessor: p.0,
                });
            }
            match &e.kind {
                EventKind::Arrive { barrier, .. }
                | EventKind::CompleteTx { barrier, .. }
                | EventKind::Wait { barrier, .. } => {
                    self.barrier(*barrier)?;
                }
                EventKind::Sync { group } => {
                    let g = self
                        .syncs
                        .get(*group)
                        .ok_or(HazardError::NoSuchSyncGroup { group: *group })?;
                    if !g.members.contains(&EventId(i)) {
                        return Err(HazardError::NoSuchSyncGroup { group: *group });
                    }
                }
                EventKind::Access { .. } => {}
            }
        }
        if let Some(b) = self.barriers.iter().find(|b| b.count == 0) {
            return Err(HazardError::ZeroCount {
                barrier: b.name.clone(),
            });
        }
        Ok(())
    }
}

/// Builds a [`Trace`] op by op, adding program-order and issue edges.
///
/// ```
/// use alias_alloc::hazard::{Cells, Space, TraceBuilder};
/// let mut t = TraceBuilder::new();
/// let (producer, consumer) = (t.partition("producer"), t.partition("consumer"));
/// let full = t.barrier("full", 1)?;
/// let tile = Cells::range(Space::Smem, 0, 1024);
/// t.barrier_expect(producer, "barrier_expect", full, 1024)?;
/// t.tma_load(producer, "tma", tile.clone(), full, 1024)?;
/// t.wait(consumer, "wait_barrier", full, 0)?;
/// t.access(consumer, "local_load", tile, false)?;
/// let trace = t.build()?;
/// assert_eq!(trace.timelines.len(), 3); // the two partitions and the copy
/// assert_eq!(trace.conflicting_pairs().len(), 1);
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
#[derive(Debug, Default)]
pub struct TraceBuilder {
    trace: Trace,
    last: Vec<Option<EventId>>,
    pending: Vec<Vec<EventId>>,
    tensor_core: BTreeMap<TimelineId, TimelineId>,
    last_expect: BTreeMap<(TimelineId, BarrierId), EventId>,
    syncs_seen: BTreeMap<(u32, TimelineId), usize>,
    sync_groups: BTreeMap<(u32, usize), usize>,
}

impl TraceBuilder {
    /// An empty trace.
    pub fn new() -> Self {
        Self::default()
    }

    /// A new partition timeline.
    pub fn partition(&mut self, name: &str) -> TimelineId {
        self.timeline(name.to_string(), TimelineKind::Partition)
    }

    fn timeline(&mut self, name: String, kind: TimelineKind) -> TimelineId {
        self.trace.timelines.push(Timeline { name, kind });
        self.last.push(None);
        self.pending.push(Vec::new());
        TimelineId(self.trace.timelines.len() - 1)
    }

    /// A new partition whose first event comes after everything `parent` did so far (the
    /// partitions of a `ttg.warp_specialize` start after the ops before it).
    pub fn partition_after(
        &mut self,
        name: &str,
        parent: TimelineId,
    ) -> Result<TimelineId, HazardError> {
        let from = self.last_of(parent)?;
        let t = self.partition(name);
        if let (Some(p), Some(e)) = (self.pending.get_mut(t.0), from) {
            p.push(e);
        }
        Ok(t)
    }

    /// The next event of `t` comes after `e` (a synchronous MMA's completion, a joined
    /// partition, a TMA store waited for).
    pub fn depend(&mut self, t: TimelineId, e: EventId) -> Result<(), HazardError> {
        self.trace.event(e)?;
        self.pending
            .get_mut(t.0)
            .ok_or(HazardError::NoSuchTimeline { timeline: t.0 })?
            .push(e);
        Ok(())
    }

    /// Event `later` comes after `earlier` (already added, in that order): an order the kernel
    /// has without an event for it (a `bar.sync` the compiler puts somewhere between).
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, Space, TraceBuilder};
    /// let mut t = TraceBuilder::new();
    /// let (p, q) = (t.partition("p"), t.partition("q"));
    /// let a = t.access(p, "store", Cells::range(Space::Smem, 0, 8), true)?;
    /// let b = t.access(q, "load", Cells::range(Space::Smem, 0, 8), false)?;
    /// t.order(a, b)?;
    /// assert!(t.order(b, a).is_err()); // only forwards
    /// assert_eq!(t.build()?.events[b.0].after, vec![a]);
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn order(&mut self, earlier: EventId, later: EventId) -> Result<(), HazardError> {
        if earlier.0 >= later.0 {
            return Err(HazardError::PredecessorAfter {
                event: later.0,
                predecessor: earlier.0,
            });
        }
        let ev = self
            .trace
            .events
            .get_mut(later.0)
            .ok_or(HazardError::NoSuchEvent { event: later.0 })?;
        if let Err(k) = ev.after.binary_search(&earlier) {
            ev.after.insert(k, earlier);
        }
        Ok(())
    }

    /// The `barrier_expect` a `complete_tx` belongs to, set once it is known (a copy from
    /// another CTA of the cluster, whose expect that CTA's partition makes).
    pub fn set_expect(&mut self, done: EventId, expect: EventId) -> Result<(), HazardError> {
        self.trace.event(expect)?;
        match self.trace.events.get_mut(done.0).map(|e| &mut e.kind) {
            Some(EventKind::CompleteTx { expect: slot, .. }) => {
                *slot = Some(expect);
                Ok(())
            }
            _ => Err(HazardError::NoSuchEvent { event: done.0 }),
        }
    }

    /// The last event of `t` so far.
    pub fn last_event(&self, t: TimelineId) -> Option<EventId> {
        self.last.get(t.0).copied().flatten()
    }

    /// The last event on the tensor core of partition `t` so far.
    pub fn last_tensor_core_event(&self, t: TimelineId) -> Option<EventId> {
        self.tensor_core.get(&t).and_then(|&tc| self.last_event(tc))
    }

    /// Gives event `e` another label.
    pub fn relabel(&mut self, e: EventId, label: &str) -> Result<(), HazardError> {
        let ev = self
            .trace
            .events
            .get_mut(e.0)
            .ok_or(HazardError::NoSuchEvent { event: e.0 })?;
        ev.label = label.to_string();
        Ok(())
    }

    /// The arrival count of barrier `b`.
    pub fn barrier_count(&self, b: BarrierId) -> Option<u32> {
        self.trace.barriers.get(b.0).map(|x| x.count)
    }

    /// The number of events so far.
    pub fn len(&self) -> usize {
        self.trace.events.len()
    }

    /// Whether no event was added yet.
    pub fn is_empty(&self) -> bool {
        self.trace.events.is_empty()
    }

    /// `async_tma_copy_local_to_global` from `cells`: a timeline of its own that reads them.
    pub fn tma_store(
        &mut self,
        t: TimelineId,
        label: &str,
        cells: Cells,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        let issue: Vec<EventId> = self.last_of(t)?.into_iter().collect();
        let name = format!("{}.tma-store", self.trace.timeline_name(t));
        let copy = self.timeline(name, TimelineKind::Tma { issuer: t });
        self.read_on(copy, label, cells, issue)
    }

    /// A read of `cells` on the copy timeline `copy`, after `after`.
    fn read_on(
        &mut self,
        copy: TimelineId,
        label: &str,
        cells: Cells,
        after: Vec<EventId>,
    ) -> Result<EventId, HazardError> {
        let kind = EventKind::Access {
            cells,
            write: false,
        };
        self.push(copy, label, kind, after)
    }

    /// A new mbarrier whose phases complete on `count` arrivals.
    pub fn barrier(&mut self, name: &str, count: u32) -> Result<BarrierId, HazardError> {
        if count == 0 {
            return Err(HazardError::ZeroCount {
                barrier: name.to_string(),
            });
        }
        self.trace.barriers.push(Barrier {
            name: name.to_string(),
            count,
        });
        Ok(BarrierId(self.trace.barriers.len() - 1))
    }

    fn last_of(&self, t: TimelineId) -> Result<Option<EventId>, HazardError> {
        self.last
            .get(t.0)
            .copied()
            .ok_or(HazardError::NoSuchTimeline { timeline: t.0 })
    }

    fn push(
        &mut self,
        t: TimelineId,
        label: &str,
        kind: EventKind,
        mut after: Vec<EventId>,
    ) -> Result<EventId, HazardError> {
        if let Some(prev) = self.last_of(t)? {
            after.push(prev);
        }
        if let Some(p) = self.pending.get_mut(t.0) {
            after.append(p);
        }
        after.sort_unstable();
        after.dedup();
        let id = EventId(self.trace.events.len());
        self.trace.events.push(Event {
            timeline: t,
            kind,
            label: label.to_string(),
            after,
        });
        if let Some(slot) = self.last.get_mut(t.0) {
            *slot = Some(id);
        }
        Ok(id)
    }

    fn partition_of(&self, t: TimelineId) -> Result<(), HazardError> {
        match self.trace.timelines.get(t.0).map(|x| x.kind) {
            Some(TimelineKind::Partition) => Ok(()),
            _ => Err(HazardError::NotAPartition { timeline: t.0 }),
        }
    }

    /// A partition's read (`write = false`) or write of `cells`.
    pub fn access(
        &mut self,
        t: TimelineId,
        label: &str,
        cells: Cells,
        write: bool,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        self.push(t, label, EventKind::Access { cells, write }, vec![])
    }

    /// `arrive_barrier b, count`.
    pub fn arrive(
        &mut self,
        t: TimelineId,
        label: &str,
        barrier: BarrierId,
        count: u32,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        self.trace.barrier(barrier)?;
        let kind = EventKind::Arrive {
            barrier,
            count,
            tx: 0,
        };
        self.push(t, label, kind, vec![])
    }

    /// `barrier_expect b, bytes`: one arrival that first expects `bytes` of TMA data.
    pub fn barrier_expect(
        &mut self,
        t: TimelineId,
        label: &str,
        barrier: BarrierId,
        bytes: u64,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        self.trace.barrier(barrier)?;
        let kind = EventKind::Arrive {
            barrier,
            count: 1,
            tx: bytes,
        };
        let e = self.push(t, label, kind, vec![])?;
        self.last_expect.insert((t, barrier), e);
        Ok(e)
    }

    /// `wait_barrier b, parity`.
    pub fn wait(
        &mut self,
        t: TimelineId,
        label: &str,
        barrier: BarrierId,
        parity: u8,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        self.trace.barrier(barrier)?;
        if parity > 1 {
            return Err(HazardError::BadParity {
                label: label.to_string(),
                parity: u64::from(parity),
            });
        }
        self.push(t, label, EventKind::Wait { barrier, parity }, vec![])
    }

    /// `async_tma_copy_global_to_local` into `cells`, completing `bytes` on `barrier`: a
    /// timeline of its own (the write, then the `complete_tx`). Returns both events.
    pub fn tma_load(
        &mut self,
        t: TimelineId,
        label: &str,
        cells: Cells,
        barrier: BarrierId,
        bytes: u64,
    ) -> Result<(EventId, EventId), HazardError> {
        let (_, write, done) = self.copy(t, label, None, cells, barrier, bytes)?;
        Ok((write, done))
    }

    /// A bulk copy of shared memory `from` into `to` (another CTA's: `ttg.async_remote_shmem_copy`),
    /// completing `bytes` on `barrier`: a timeline of its own (the read, the write, then the
    /// `complete_tx`). Returns the three.
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, EventKind, Space, TraceBuilder};
    /// let mut t = TraceBuilder::new();
    /// let p = t.partition("p");
    /// let bar = t.barrier("peer_full", 1)?;
    /// let (read, write, done) = t.bulk_copy(p, "remote copy", Cells::range(Space::Smem, 0, 64),
    ///     Cells::range(Space::Smem, 1 << 48, 64), bar, 64)?;
    /// let trace = t.build()?;
    /// assert!(matches!(trace.events[read.0].kind, EventKind::Access { write: false, .. }));
    /// assert!(matches!(trace.events[write.0].kind, EventKind::Access { write: true, .. }));
    /// assert!(matches!(trace.events[done.0].kind, EventKind::CompleteTx { bytes: 64, .. }));
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn bulk_copy(
        &mut self,
        t: TimelineId,
        label: &str,
        from: Cells,
        to: Cells,
        barrier: BarrierId,
        bytes: u64,
    ) -> Result<(EventId, EventId, EventId), HazardError> {
        let (read, write, done) = self.copy(t, label, Some(from), to, barrier, bytes)?;
        Ok((read.unwrap_or(write), write, done))
    }

    fn copy(
        &mut self,
        t: TimelineId,
        label: &str,
        from: Option<Cells>,
        cells: Cells,
        barrier: BarrierId,
        bytes: u64,
    ) -> Result<(Option<EventId>, EventId, EventId), HazardError> {
        self.partition_of(t)?;
        self.trace.barrier(barrier)?;
        let issue: Vec<EventId> = self.last_of(t)?.into_iter().collect();
        let name = format!("{}.tma", self.trace.timeline_name(t));
        let copy = self.timeline(name, TimelineKind::Tma { issuer: t });
        let (read, issue) = match from {
            Some(cells) => (Some(self.read_on(copy, label, cells, issue)?), vec![]),
            None => (None, issue),
        };
        let write = self.push(copy, label, EventKind::Access { cells, write: true }, issue)?;
        let expect = self.last_expect.get(&(t, barrier)).copied();
        let kind = EventKind::CompleteTx {
            barrier,
            bytes,
            expect,
        };
        let done = self.push(copy, label, kind, vec![])?;
        Ok((read, write, done))
    }

    fn tensor_core_of(&mut self, t: TimelineId) -> Result<(TimelineId, Vec<EventId>), HazardError> {
        self.partition_of(t)?;
        let issue: Vec<EventId> = self.last_of(t)?.into_iter().collect();
        let tc = match self.tensor_core.get(&t) {
            Some(&tc) => tc,
            None => {
                let name = format!("{}.tensor-core", self.trace.timeline_name(t));
                let tc = self.timeline(name, TimelineKind::TensorCore { issuer: t });
                self.tensor_core.insert(t, tc);
                tc
            }
        };
        Ok((tc, issue))
    }

    /// `tc_gen5_mma` issued by `t`: on its tensor core, after what `t` did before and after
    /// the MMAs `t` issued before, it reads `reads`, writes `writes`, then arrives once on each
    /// of `barriers`. Returns the tensor core's events.
    pub fn mma(
        &mut self,
        t: TimelineId,
        label: &str,
        reads: &[Cells],
        writes: &[Cells],
        barriers: &[BarrierId],
    ) -> Result<Vec<EventId>, HazardError> {
        let (tc, mut issue) = self.tensor_core_of(t)?;
        let mut events = Vec::new();
        let accesses = reads
            .iter()
            .map(|c| (c, false))
            .chain(writes.iter().map(|c| (c, true)));
        for (cells, write) in accesses {
            let kind = EventKind::Access {
                cells: cells.clone(),
                write,
            };
            events.push(self.push(tc, label, kind, std::mem::take(&mut issue))?);
        }
        for &barrier in barriers {
            self.trace.barrier(barrier)?;
            let kind = EventKind::Arrive {
                barrier,
                count: 1,
                tx: 0,
            };
            events.push(self.push(tc, label, kind, std::mem::take(&mut issue))?);
        }
        Ok(events)
    }

    /// `tc_gen5_commit b`: one arrival on `b` once every MMA `t` issued before has completed.
    pub fn commit(
        &mut self,
        t: TimelineId,
        label: &str,
        barrier: BarrierId,
    ) -> Result<EventId, HazardError> {
        let (tc, issue) = self.tensor_core_of(t)?;
        self.trace.barrier(barrier)?;
        let kind = EventKind::Arrive {
            barrier,
            count: 1,
            tx: 0,
        };
        self.push(tc, label, kind, issue)
    }

    /// A named barrier `bar.sync id, ·` that `threads` partitions take part in: the k-th
    /// such sync of each partition on `id` belongs to generation k.
    pub fn named_barrier(
        &mut self,
        t: TimelineId,
        label: &str,
        id: u32,
        threads: u32,
    ) -> Result<EventId, HazardError> {
        self.partition_of(t)?;
        let generation = {
            let seen = self.syncs_seen.entry((id, t)).or_insert(0);
            *seen += 1;
            *seen - 1
        };
        let group = match self.sync_groups.get(&(id, generation)) {
            Some(&g) => g,
            None => {
                self.trace.syncs.push(SyncGroup {
                    id,
                    threads,
                    members: vec![],
                });
                let g = self.trace.syncs.len() - 1;
                self.sync_groups.insert((id, generation), g);
                g
            }
        };
        let e = self.push(t, label, EventKind::Sync { group }, vec![])?;
        let g = self
            .trace
            .syncs
            .get_mut(group)
            .ok_or(HazardError::NoSuchSyncGroup { group })?;
        if g.threads != threads {
            return Err(HazardError::SyncThreads {
                id,
                first: g.threads,
                now: threads,
            });
        }
        g.members.push(e);
        Ok(e)
    }

    /// The trace, validated.
    pub fn build(self) -> Result<Trace, HazardError> {
        self.trace.validate()?;
        Ok(self.trace)
    }
}
