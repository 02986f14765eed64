//! [`LapModel`]: a persistent kernel's K laps as a few kinds, one per key, read from the
//! cuts ([`super::tile_laps`]) of several launches — every lap of every read checked against
//! the kind of its key, what each op comes after included — and the keys the counters'
//! arithmetic reaches from a CTA's first lap, each with its kind or missing
//! (`docs/hazard-check.md`, *Tiles of every length*). It is what an explorer over keys runs:
//! a lap's ops from its kind, the next lap's key from [`LapKey::successors`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::error::HazardError;
use super::tile_laps::{LapKey, TileLaps};
use super::trace::{BarrierId, EventId, EventKind, TimelineId, TimelineKind, Trace};

/// Where an op of a lap runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum LapLane {
    /// A partition or a tensor core, which runs across laps: its index in
    /// [`LapModel::lanes`].
    Named(usize),
    /// A TMA copy's timeline, which lives in its lap alone, numbered as it first shows there.
    OneLap(usize),
}

/// One op of a kind of lap ([`LapModel::kinds`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LapOp {
    /// What it does; its barrier is the model's ([`LapModel::barriers`]), a named barrier's
    /// group is `group`.
    pub kind: EventKind,
    /// Where it runs.
    pub lane: LapLane,
    /// The ops of its own lap it comes after, by their positions in the lap.
    pub within: Vec<usize>,
    /// Whether it also comes after the op its lane ran before it, in an earlier lap — the only
    /// order that reaches across laps in the kernels read (which op that is depends on the
    /// kinds run before, so it is named by the lane, not by the op).
    pub previous: bool,
    /// A named barrier's members (positions in the lap) and the threads it needs.
    pub group: Option<(Vec<usize>, u32)>,
}

/// The laps of a persistent kernel as kinds by key, read from the cuts of several launches:
/// laps of one key ([`TileLaps::keys`]) must be laps of one kind — the same ops, in the same
/// order, on the same lanes, barriers, parities and cells, after the same ops of their lap
/// and of their lane before — or the read is refused ([`HazardError::LapKind`]). Which key
/// follows which is the counters' arithmetic ([`LapKey::successors`]), checked on every read
/// too; [`LapModel::missing`] is what it reaches that no read ran.
///
/// ```
/// use alias_alloc::hazard::{read_kernel, tile_laps, LapModel, ReadOptions};
/// # let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_kernels/fa_clc_rescale/before.mlir");
/// # let text = std::fs::read_to_string(path)
/// #     .map_err(|e| alias_alloc::hazard::HazardError::Module { message: e.to_string() })?;
/// // Causal: tiles of 2 (m + 1) K laps at row m; rings of 3 slots, barriers of 2.
/// let mut model = LapModel::new(6, 2, true);
/// for (program_id, num_programs) in [(0, 1), (0, 2), (1, 2)] {
///     let mut opts = ReadOptions { program_id, num_programs, ..ReadOptions::default() };
///     opts.params.insert("N_CTX".into(), 2048);
///     let kt = read_kernel(&text, &opts)?;
///     model.add(&kt.trace, &tile_laps(&kt)?)?;
/// }
/// // Tiles of 2, 4, 6; 2, 6, 8; 4, 6, 8 K laps: 46 laps read, of 22 kinds (and what runs
/// // after the tiles: nothing); of the 96 keys the arithmetic reaches, these reads ran 31.
/// assert_eq!((model.laps(), model.kinds().len()), (46, 23));
/// assert_eq!((model.reachable().len(), model.missing().len()), (96, 65));
/// assert_eq!(model.kinds()[model.end().unwrap()], []);
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
#[derive(Debug, Clone)]
pub struct LapModel {
    k_period: u32,
    tile_period: u32,
    even: bool,
    kinds: Vec<Vec<LapOp>>,
    by_key: BTreeMap<LapKey, usize>,
    end: Option<usize>,
    lanes: Vec<String>,
    barriers: Vec<(String, u32)>,
    laps: usize,
}

/// A refusal of event `event` at lap `lap`.
fn refuse(event: usize, lap: u32, what: &'static str) -> HazardError {
    HazardError::LapKind { event, lap, what }
}

impl LapModel {
    /// No reads yet; keys by the K counters' period `k_period` and the tile counters'
    /// `tile_period`, every tile of an even number of K laps where `even` (as
    /// [`LapKey::successors`] takes them).
    pub fn new(k_period: u32, tile_period: u32, even: bool) -> Self {
        Self {
            k_period,
            tile_period,
            even,
            kinds: Vec::new(),
            by_key: BTreeMap::new(),
            end: None,
            lanes: Vec::new(),
            barriers: Vec::new(),
            laps: 0,
        }
    }

    /// Adds the laps of `cut`, a cut of `trace`; returns each lap's kind (what runs after the
    /// tiles last). Refuses ([`HazardError::LapKind`], the model unchanged) a lap of another
    /// kind than one of its key read before, keys that do not follow one another by the
    /// counters' arithmetic, an op after an op of a later lap or after one of an earlier lap
    /// that is not its lane's op before it, an op of a one-lap timeline (a TMA copy's) after
    /// nothing of its lap, and reads that disagree on a barrier's count or
    /// on what runs after the tiles.
    pub fn add(&mut self, trace: &Trace, cut: &TileLaps) -> Result<Vec<usize>, HazardError> {
        let mut next = self.clone();
        let kinds = next.read(trace, cut)?;
        *self = next;
        Ok(kinds)
    }

    fn read(&mut self, trace: &Trace, cut: &TileLaps) -> Result<Vec<usize>, HazardError> {
        let trip = cut.trip_count;
        let lap_of = |e: EventId| cut.laps.get(e.0).copied();
        if cut.laps.len() != trace.events.len() || cut.laps.iter().any(|&l| l > trip) {
            return Err(HazardError::Laps {
                laps: cut.laps.len(),
                events: trace.events.len(),
                unrolled: trip,
                period: self.k_period,
            });
        }
        // Per lap, its events in trace order; per event, its position there.
        let mut by_lap: Vec<Vec<EventId>> = vec![Vec::new(); trip as usize + 1];
        let mut position = vec![0usize; trace.events.len()];
        let mut spans: BTreeMap<TimelineId, (u32, u32)> = BTreeMap::new();
        for (i, &l) in cut.laps.iter().enumerate() {
            if let (Some(v), Some(p)) = (by_lap.get_mut(l as usize), position.get_mut(i)) {
                *p = v.len();
                v.push(EventId(i));
            }
            if let Some(event) = trace.events.get(i) {
                let span = spans.entry(event.timeline).or_insert((l, l));
                *span = (span.0.min(l), span.1.max(l));
            }
        }
        let first_event = |l: u32| {
            by_lap
                .get(l as usize)
                .and_then(|v| v.first())
                .map_or(0, |e| e.0)
        };
        // The keys, each following the one before.
        let keys = cut.keys(self.k_period, self.tile_period);
        if keys.len() != trip as usize {
            return Err(refuse(first_event(0), 0, "a lap outside every tile"));
        }
        let starts = self.starts();
        let mut before: Option<&LapKey> = None;
        for (l, key) in keys.iter().enumerate() {
            let follows = match before {
                None => starts.contains(key),
                Some(b) => b
                    .successors(self.k_period, self.tile_period, self.even)
                    .contains(key),
            };
            if !follows {
                let l = u32::try_from(l).unwrap_or(u32::MAX);
                return Err(refuse(
                    first_event(l),
                    l,
                    "its key does not follow the lap before's by the counters' arithmetic",
                ));
            }
            before = Some(key);
        }
        // Lanes by name: partitions and their tensor cores (a TMA copy's timeline lives in
        // its lap); barriers by name.
        let mut lane_of: HashMap<TimelineId, usize> = HashMap::new();
        for (&t, &(lo, hi)) in &spans {
            let one_lap = trace
                .timelines
                .get(t.0)
                .is_none_or(|x| matches!(x.kind, TimelineKind::Tma { .. }));
            if one_lap {
                if lo != hi {
                    return Err(refuse(0, lo, "a TMA copy's timeline in two laps"));
                }
                continue;
            }
            let name = trace.timeline_name(t);
            let index = match self.lanes.iter().position(|n| n == name) {
                Some(i) => i,
                None => {
                    self.lanes.push(name.to_string());
                    self.lanes.len() - 1
                }
            };
            if lane_of.values().any(|&i| i == index) {
                return Err(refuse(
                    0,
                    lo,
                    "two timelines that live across laps share a name",
                ));
            }
            lane_of.insert(t, index);
        }
        let mut barrier_of: Vec<BarrierId> = Vec::with_capacity(trace.barriers.len());
        for b in &trace.barriers {
            let index = match self.barriers.iter().position(|(n, _)| *n == b.name) {
                Some(i) if self.barriers.get(i).is_some_and(|x| x.1 != b.count) => {
                    return Err(refuse(
                        0,
                        0,
                        "a barrier of another count than another read's",
                    ));
                }
                Some(i) => i,
                None => {
                    self.barriers.push((b.name.clone(), b.count));
                    self.barriers.len() - 1
                }
            };
            if barrier_of.contains(&BarrierId(index)) {
                return Err(refuse(0, 0, "two barriers share a name"));
            }
            barrier_of.push(BarrierId(index));
        }
        let model_barrier = |b: BarrierId| {
            barrier_of
                .get(b.0)
                .copied()
                .ok_or(HazardError::NoSuchBarrier { barrier: b.0 })
        };
        // Per lap, its ops.
        let mut ops: Vec<Vec<LapOp>> = vec![Vec::new(); trip as usize + 1];
        let mut one_lap: Vec<HashMap<TimelineId, usize>> = vec![HashMap::new(); trip as usize + 1];
        let mut last_on: HashMap<TimelineId, EventId> = HashMap::new();
        for (i, event) in trace.events.iter().enumerate() {
            let e = EventId(i);
            let l = lap_of(e).unwrap_or(0);
            let mut within = Vec::new();
            let mut previous = false;
            for &p in &event.after {
                match lap_of(p) {
                    Some(lp) if lp == l => within.push(position.get(p.0).copied().unwrap_or(0)),
                    Some(lp) if lp < l && last_on.get(&event.timeline) == Some(&p) => {
                        previous = true;
                    }
                    Some(lp) if lp < l => {
                        return Err(refuse(
                            i,
                            l,
                            "it comes after an op of an earlier lap that is not its lane's op before it",
                        ))
                    }
                    _ => return Err(refuse(i, l, "it comes after an op of a later lap")),
                }
            }
            within.sort_unstable();
            last_on.insert(event.timeline, e);
            if within.is_empty() && !lane_of.contains_key(&event.timeline) {
                return Err(refuse(
                    i,
                    l,
                    "an op of a one-lap timeline after nothing of its lap would run ahead of every lap",
                ));
            }
            let lane = match lane_of.get(&event.timeline) {
                Some(&n) => LapLane::Named(n),
                None => {
                    let names = one_lap
                        .get_mut(l as usize)
                        .ok_or_else(|| refuse(i, l, "a lap outside every tile"))?;
                    let next = names.len();
                    LapLane::OneLap(*names.entry(event.timeline).or_insert(next))
                }
            };
            let mut group = None;
            let kind = match &event.kind {
                EventKind::Access { .. } => event.kind.clone(),
                EventKind::Arrive { barrier, count, tx } => EventKind::Arrive {
                    barrier: model_barrier(*barrier)?,
                    count: *count,
                    tx: *tx,
                },
                EventKind::Wait { barrier, parity } => EventKind::Wait {
                    barrier: model_barrier(*barrier)?,
                    parity: *parity,
                },
                EventKind::CompleteTx { barrier, bytes, .. } => EventKind::CompleteTx {
                    barrier: model_barrier(*barrier)?,
                    bytes: *bytes,
                    expect: None,
                },
                EventKind::Sync { group: g } => {
                    let sync = trace
                        .syncs
                        .get(*g)
                        .ok_or(HazardError::NoSuchSyncGroup { group: *g })?;
                    if sync.members.iter().any(|&m| lap_of(m) != Some(l)) {
                        return Err(refuse(i, l, "a named barrier taken in two laps"));
                    }
                    let mut members: Vec<usize> = sync
                        .members
                        .iter()
                        .map(|m| position.get(m.0).copied().unwrap_or(0))
                        .collect();
                    members.sort_unstable();
                    group = Some((members, sync.threads));
                    EventKind::Sync { group: 0 }
                }
            };
            ops.get_mut(l as usize)
                .ok_or_else(|| refuse(i, l, "a lap outside every tile"))?
                .push(LapOp {
                    kind,
                    lane,
                    within,
                    previous,
                    group,
                });
        }
        // Each lap's kind, one per key; what runs after the tiles, one for every read.
        let mut kinds = Vec::with_capacity(ops.len());
        for (l, lap) in ops.into_iter().enumerate() {
            let k = match self.kinds.iter().position(|d| *d == lap) {
                Some(k) => k,
                None => {
                    self.kinds.push(lap);
                    self.kinds.len() - 1
                }
            };
            let at = u32::try_from(l).unwrap_or(u32::MAX);
            let known = match keys.get(l) {
                Some(key) => *self.by_key.entry(*key).or_insert(k),
                None => *self.end.get_or_insert(k),
            };
            if known != k {
                let what = if l == trip as usize {
                    "what runs after the tiles differs from another read's"
                } else {
                    "its lap is of another kind than a lap of its key read before"
                };
                return Err(refuse(first_event(at), at, what));
            }
            kinds.push(k);
        }
        self.laps += trip as usize;
        Ok(kinds)
    }

    /// The kinds, numbered as first read: per kind, its ops in trace order.
    pub fn kinds(&self) -> &[Vec<LapOp>] {
        &self.kinds
    }

    /// The kind of the laps of `key`, if a read ran one.
    pub fn kind_of(&self, key: &LapKey) -> Option<usize> {
        self.by_key.get(key).copied()
    }

    /// The kind of what runs after the tiles, once a read was added.
    pub fn end(&self) -> Option<usize> {
        self.end
    }

    /// The lanes that live across laps, by name ([`LapLane::Named`]).
    pub fn lanes(&self) -> &[String] {
        &self.lanes
    }

    /// The barriers, by name, with their counts (the ops' barrier ids index this).
    pub fn barriers(&self) -> &[(String, u32)] {
        &self.barriers
    }

    /// The K counters' period, the tile counters', and whether every tile runs an even number
    /// of K laps, as [`LapModel::new`] was given them.
    pub fn periods(&self) -> (u32, u32, bool) {
        (self.k_period, self.tile_period, self.even)
    }

    /// The K laps read, over every read.
    pub fn laps(&self) -> usize {
        self.laps
    }

    /// The keys a CTA's first lap may have: the first K lap of its first tile, which may be
    /// its last too (and, where tiles may run one K lap, the tile's only).
    pub fn starts(&self) -> Vec<LapKey> {
        LapKey::tile_starts(0, 0, true, self.even)
    }

    /// Every key the counters' arithmetic reaches from [`LapModel::starts`].
    pub fn reachable(&self) -> BTreeSet<LapKey> {
        let mut seen = BTreeSet::new();
        let mut work = self.starts();
        while let Some(key) = work.pop() {
            if seen.insert(key) {
                work.extend(key.successors(self.k_period, self.tile_period, self.even));
            }
        }
        seen
    }

    /// The shortest sequence of keys from a CTA's first lap to `key` by the counters'
    /// arithmetic (`None`: it is not reached) — the laps a read must run to give `key` its
    /// kind.
    ///
    /// ```
    /// use alias_alloc::hazard::{LapKey, LapModel, TilePlace};
    /// let model = LapModel::new(6, 2, true);
    /// // The last lap of a tile of two after a CTA's first tile of two: K lap 3, tile 1.
    /// let key = LapKey { place: TilePlace::LastOfTwo, k_residue: 3, tile_residue: 1, first_tile: false, last_tile: true };
    /// let path = model.path_to(&key).unwrap();
    /// assert_eq!(path.iter().map(|k| k.place).collect::<Vec<_>>(),
    ///            [TilePlace::First, TilePlace::LastOfTwo, TilePlace::First, TilePlace::LastOfTwo]);
    /// ```
    pub fn path_to(&self, key: &LapKey) -> Option<Vec<LapKey>> {
        let mut parent: BTreeMap<LapKey, Option<LapKey>> = BTreeMap::new();
        let mut queue: std::collections::VecDeque<LapKey> = std::collections::VecDeque::new();
        for s in self.starts() {
            parent.entry(s).or_insert(None);
            queue.push_back(s);
        }
        while let Some(k) = queue.pop_front() {
            if k == *key {
                let mut path = vec![k];
                let mut at = k;
                while let Some(&Some(p)) = parent.get(&at) {
                    path.push(p);
                    at = p;
                }
                path.reverse();
                return Some(path);
            }
            for n in k.successors(self.k_period, self.tile_period, self.even) {
                if let std::collections::btree_map::Entry::Vacant(v) = parent.entry(n) {
                    v.insert(Some(k));
                    queue.push_back(n);
                }
            }
        }
        None
    }

    /// The keys reached ([`LapModel::reachable`]) that no read ran: an explorer over keys has
    /// no kind for them, and must refuse them or be given a read that runs them.
    pub fn missing(&self) -> Vec<LapKey> {
        self.reachable()
            .into_iter()
            .filter(|k| !self.by_key.contains_key(k))
            .collect()
    }
}
