//! [`LapModel::explore`] and [`EveryTileLength`]: a persistent kernel at every sequence of
//! tiles its counters allow at once — the explorer's semantics (`machine.rs`) on laps whose
//! ops are their key's kind, the next lap's key a move (`docs/hazard-check.md`, *Tiles of
//! every length*).
//!
//! **What is explored.** A CTA runs laps of keys `k₀, k₁, …`: `k₀` one of
//! [`LapModel::starts`], each next one a [`LapKey::successors`] of the one before, after a
//! last tile's last lap what runs after the tiles (the end). Lap *l* runs the ops of
//! `k_l`'s kind; an op comes after the ops of its lap it names and, where it says so, after
//! its lane's op before it. Every such sequence of keys and every interleaving of its ops is
//! followed, with a finite state:
//!
//! - the laps decided and not all run, renumbered from 0 (a lap's key holds all the
//!   arithmetic says of it, so laps that differ only in their number are one state), with
//!   what ran of each;
//! - per barrier: the parity of its completed phases, pending arrivals, tx-count, and what is
//!   known at its open and completed phases;
//! - happens-before for the **latest instance** of each class of accesses (the ops of one lane
//!   touching the same cells the same way), as in *Every trip count*: what each lane's last op
//!   knows, what each run op with a successor in its lap still to run knows, and per class its
//!   latest instance.
//!
//! **When a lap's key is chosen.** The next lap's key is a move, offered while some lane has
//! run every op of the laps decided and one of the ops that may come next on it — the first
//! op on that lane of a lap to come, over every sequence of keys from the last one decided —
//! could run now (it is no wait, or its barrier's phase passes). An execution's next op on a
//! lane of a lap not yet decided is such an op, so every execution is followed; a lane whose
//! every possible next op waits on a phase not yet passed leaves the keys undecided, so a lane
//! with nothing to do for a whole tile (the CLC scheduler between tiles' first laps) does not
//! make the search decide the tile's laps ahead. More than [`WINDOW_LAPS`] laps decided and
//! not all run are not followed (the answer is then not complete).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::rc::Rc;

use super::bitset::EventSet;
use super::fingerprint::fingerprint;
use super::known_barrier::{barrier_op, KnownBarrier};
use super::lap_model::{LapLane, LapModel, LapOp};
use super::machine::passes;
use super::outside::{Outside, Tally};
use super::persistent::{persistent, Footprints, Ops, Standing};
use super::tile_laps::LapKey;
use super::trace::{EventId, EventKind};

/// The most laps decided and not all run that the explorer follows.
pub const WINDOW_LAPS: usize = 24;

/// An op of the model: its kind and its position there.
pub type LapOpId = (usize, usize);

/// What a persistent kernel does at every sequence of tiles its counters allow.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EveryTileLength {
    /// Races: two ops, the earlier run first.
    pub races: BTreeSet<(LapOpId, LapOpId)>,
    /// Arrivals past their phase.
    pub faults: BTreeSet<LapOpId>,
    /// Whether some execution is stuck: nothing may run, and something has not run.
    pub stuck: bool,
    /// The ops that wait forever where some execution is stuck (of a lane with nothing left
    /// in the laps begun, every op that may come next on it).
    pub blocked: BTreeSet<LapOpId>,
    /// The keys of the laps up to the first race, fault or hang found (what a read at those
    /// tiles replays).
    pub witness: Option<Vec<LapKey>>,
    /// Keys reached that the model has no kind for: what follows them was not explored.
    pub missing: BTreeSet<LapKey>,
    /// Whether every state was followed: not where a key was missing, more than
    /// [`WINDOW_LAPS`] laps were open or the budget ran out.
    pub complete: bool,
    /// States visited.
    pub states: usize,
}

impl EveryTileLength {
    /// Whether some sequence of tiles races, hangs or arrives past a phase.
    pub fn goes_wrong(&self) -> bool {
        !self.races.is_empty() || !self.faults.is_empty() || self.stuck
    }
}

/// A lap decided: of a key, or what runs after the tiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
enum Lap {
    Key(LapKey),
    End,
}

/// A state: laps decided and not all run (from 0), what ran of each, the barriers and what is
/// known. Instances are `(lap, op)`, laps below 0 ran before the window.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct State {
    laps: Vec<Lap>,
    /// The last lap decided (the window may have run it all).
    last: Option<Lap>,
    done: Vec<EventSet>,
    /// Whether the end ran whole (nothing is left).
    finished: bool,
    barriers: Vec<Rc<KnownBarrier>>,
    /// Per named lane, what its last op run knows (the class of that op included where it is
    /// its class's latest instance: a class is one lane's, so it stays the latest until the
    /// lane runs another op).
    lane_know: Vec<EventSet>,
    /// What a run op with a successor in its lap still to run knows.
    know: BTreeMap<(i64, EventId), EventSet>,
    /// Per class, its latest instance: its lap, and which op of the class it is in that lap's
    /// kind (the first, the second, …), not the op's id, which differs from kind to kind.
    latest: BTreeMap<EventId, (i64, u32)>,
}

/// The model laid out for the search: ops numbered across kinds, their classes and conflicts,
/// and per key and lane the ops that may come next on it.
struct Layout<'m> {
    model: &'m LapModel,
    /// Per kind, the id of its first op.
    start: Vec<usize>,
    ops: usize,
    /// Per op id, its class.
    class: Vec<EventId>,
    /// Per op id, how many ops of its class come before it in its kind.
    occurrence: Vec<u32>,
    /// Per access op id, the classes it conflicts with.
    conflicts: BTreeMap<EventId, Vec<EventId>>,
    /// Per op id, its successors within its lap (positions).
    successors: Vec<Vec<usize>>,
    /// Per (key, lane), the first ops on the lane of every lap that may come after the key.
    next_ops: BTreeMap<(Option<LapKey>, usize), BTreeSet<EventId>>,
    /// Per op id, what it does and its named barrier's members.
    table: OpTable,
    /// Per op id, the barriers it and every op after it touch (`persistent.rs`).
    footprints: Footprints,
}

/// Per op id, what it does and, of a named barrier, its group's members (as [`Ops`] asks).
struct OpTable {
    kinds: Vec<EventKind>,
    members: Vec<Option<Vec<EventId>>>,
}

impl Ops for OpTable {
    fn kind(&self, r: EventId) -> Option<&EventKind> {
        self.kinds.get(r.0)
    }

    fn members(&self, r: EventId) -> Option<&[EventId]> {
        self.members.get(r.0).and_then(Option::as_deref)
    }
}

impl<'m> Layout<'m> {
    fn new(model: &'m LapModel) -> Self {
        let kinds = model.kinds();
        let mut start = Vec::with_capacity(kinds.len());
        let mut ops = 0;
        for k in kinds {
            start.push(ops);
            ops += k.len();
        }
        let all: Vec<(EventId, &LapOp)> = kinds
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, o)| (EventId(i), o))
            .collect();
        // Classes: the least op of a named lane touching the same cells the same way.
        let mut first = HashMap::new();
        let class: Vec<EventId> = all
            .iter()
            .map(|&(id, o)| match (&o.kind, o.lane) {
                (EventKind::Access { cells, write }, LapLane::Named(n)) => {
                    *first.entry((n, cells, *write)).or_insert(id)
                }
                _ => id,
            })
            .collect();
        let mut occurrence = vec![0u32; class.len()];
        for (k, kind) in kinds.iter().enumerate() {
            let s0 = start.get(k).copied().unwrap_or(0);
            let mut seen: HashMap<EventId, u32> = HashMap::new();
            for i in s0..s0 + kind.len() {
                if let (Some(&c), Some(slot)) = (class.get(i), occurrence.get_mut(i)) {
                    let n = seen.entry(c).or_insert(0);
                    *slot = *n;
                    *n += 1;
                }
            }
        }
        let mut conflicts: BTreeMap<EventId, Vec<EventId>> = BTreeMap::new();
        let accesses: Vec<_> = all
            .iter()
            .filter_map(|&(id, o)| match &o.kind {
                EventKind::Access { cells, write } => Some((id, o.lane, cells, *write)),
                _ => None,
            })
            .collect();
        for &(a, la, ca, wa) in &accesses {
            for &(b, lb, cb, wb) in &accesses {
                let may_differ = la != lb || matches!(la, LapLane::OneLap(_));
                if may_differ && (wa || wb) && ca.overlaps(cb) {
                    let c = class.get(b.0).copied().unwrap_or(b);
                    conflicts.entry(a).or_default().push(c);
                }
            }
        }
        for v in conflicts.values_mut() {
            v.sort_unstable();
            v.dedup();
        }
        let mut successors = vec![Vec::new(); ops];
        for (k, kind) in kinds.iter().enumerate() {
            for (i, o) in kind.iter().enumerate() {
                for &j in &o.within {
                    if let Some(s) = start.get(k).and_then(|&s0| successors.get_mut(s0 + j)) {
                        s.push(i);
                    }
                }
            }
        }
        // q → r where q comes before r: in its lap, or as its lane's last op of a kind before
        // r, its lane's first op of any kind after (of whatever kinds the keys put between).
        let mut edges: Vec<(usize, usize)> = Vec::new();
        let mut firsts: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        let mut lasts: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
        for (k, kind) in kinds.iter().enumerate() {
            let s0 = start.get(k).copied().unwrap_or(0);
            for (i, o) in kind.iter().enumerate() {
                edges.extend(o.within.iter().map(|&j| (s0 + j, s0 + i)));
                if let (true, LapLane::Named(n)) = (o.previous, o.lane) {
                    firsts.entry(n).or_default().push(s0 + i);
                }
            }
            for lane in 0..model.lanes().len() {
                if let Some(i) = kind.iter().rposition(|o| o.lane == LapLane::Named(lane)) {
                    lasts.entry(lane).or_default().push(s0 + i);
                }
            }
        }
        for (lane, qs) in &lasts {
            for &q in qs {
                edges.extend(firsts.get(lane).into_iter().flatten().map(|&r| (q, r)));
            }
        }
        let op_kinds: Vec<EventKind> = kinds.iter().flatten().map(|o| o.kind.clone()).collect();
        let members: Vec<Option<Vec<EventId>>> = kinds
            .iter()
            .enumerate()
            .flat_map(|(k, kind)| {
                let s0 = start.get(k).copied().unwrap_or(0);
                kind.iter().map(move |o| {
                    o.group
                        .as_ref()
                        .map(|g| g.0.iter().map(|&m| EventId(s0 + m)).collect())
                })
            })
            .collect();
        let table = OpTable {
            kinds: op_kinds,
            members,
        };
        let footprints = Footprints::of(&table, ops, model.barriers().len(), &edges, true);
        let mut layout = Self {
            model,
            start,
            ops,
            class,
            occurrence,
            conflicts,
            successors,
            next_ops: BTreeMap::new(),
            table,
            footprints,
        };
        layout.next_ops = layout.next_ops_fixpoint();
        layout
    }

    /// Per (key, lane): the first op on the lane of each lap that may follow the key (`None`:
    /// before the first lap), over every sequence of keys — to the least fixpoint.
    fn next_ops_fixpoint(&self) -> BTreeMap<(Option<LapKey>, usize), BTreeSet<EventId>> {
        let lanes = self.model.lanes().len();
        let keys: Vec<Option<LapKey>> = std::iter::once(None)
            .chain(self.model.reachable().into_iter().map(Some))
            .collect();
        let mut next: BTreeMap<(Option<LapKey>, usize), BTreeSet<EventId>> = BTreeMap::new();
        loop {
            let mut changed = false;
            for &key in &keys {
                for lane in 0..lanes {
                    let mut set = BTreeSet::new();
                    for lap in self.after(key) {
                        let first = self.kind(lap).and_then(|k| {
                            self.model.kinds().get(k).and_then(|ops| {
                                ops.iter()
                                    .position(|o| o.lane == LapLane::Named(lane))
                                    .map(|i| self.id(k, i))
                            })
                        });
                        match (first, lap) {
                            (Some(op), _) => {
                                set.insert(op);
                            }
                            (None, Lap::Key(k)) => {
                                if let Some(s) = next.get(&(Some(k), lane)) {
                                    set.extend(s.iter().copied());
                                }
                            }
                            (None, Lap::End) => {}
                        }
                    }
                    let slot = next.entry((key, lane)).or_default();
                    if set.len() > slot.len() {
                        *slot = set;
                        changed = true;
                    }
                }
            }
            if !changed {
                return next;
            }
        }
    }

    /// The laps that may follow a lap of `key` (`None`: the first).
    fn after(&self, key: Option<LapKey>) -> Vec<Lap> {
        match key {
            None => self.model.starts().into_iter().map(Lap::Key).collect(),
            Some(k) => {
                let next = self.model.successors(&k);
                if next.is_empty() {
                    vec![Lap::End]
                } else {
                    next.into_iter().map(Lap::Key).collect()
                }
            }
        }
    }

    fn kind(&self, lap: Lap) -> Option<usize> {
        match lap {
            Lap::Key(k) => self.model.kind_of(&k),
            Lap::End => self.model.end(),
        }
    }

    fn id(&self, kind: usize, position: usize) -> EventId {
        EventId(self.start.get(kind).copied().unwrap_or(0) + position)
    }

    /// An op id as (kind, position).
    fn named(&self, id: EventId) -> LapOpId {
        let kind = self.start.partition_point(|&s| s <= id.0).saturating_sub(1);
        (kind, id.0 - self.start.get(kind).copied().unwrap_or(0))
    }

    fn op(&self, id: EventId) -> Option<&LapOp> {
        let (k, i) = self.named(id);
        self.model.kinds().get(k).and_then(|v| v.get(i))
    }

    fn occurrence(&self, id: EventId) -> u32 {
        self.occurrence.get(id.0).copied().unwrap_or(0)
    }

    fn class_of(&self, id: EventId) -> EventId {
        self.class.get(id.0).copied().unwrap_or(id)
    }
}

/// A move: run an op (its lap, its id; a named barrier: its group), or decide the next lap.
#[derive(Debug, Clone, Copy)]
enum Move {
    Run(i64, EventId),
    Decide(Lap),
}

/// A finding of one step.
enum Found {
    Race(EventId, EventId),
    Fault(EventId),
    Unordered,
}

impl LapModel {
    /// Runs every interleaving of every sequence of laps the keys allow, visiting at most
    /// `budget` states (past it, what was found is returned, not
    /// [`EveryTileLength::complete`]).
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, HazardError, LapModel, Space, TileLaps, Trace, TraceBuilder};
    /// // A one-slot ring over tiles of an even number of K laps; the consumer frees the slot
    /// // before it reads it.
    /// let unroll = |tiles: &[u32]| -> Result<(Trace, TileLaps), HazardError> {
    ///     let mut t = TraceBuilder::new();
    ///     let (p, c) = (t.partition("producer"), t.partition("consumer"));
    ///     let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 1)?);
    ///     let slot = Cells::range(Space::Smem, 0, 128);
    ///     let (n, mut laps) = (tiles.iter().sum::<u32>(), Vec::new());
    ///     for i in 0..n {
    ///         t.wait(p, "wait empty", empty, 1 - (i % 2) as u8)?;
    ///         t.access(p, "store", slot.clone(), true)?;
    ///         t.arrive(p, "arrive full", full, 1)?;
    ///         laps.extend([i; 3]);
    ///     }
    ///     for i in 0..n {
    ///         t.wait(c, "wait full", full, (i % 2) as u8)?;
    ///         t.arrive(c, "arrive empty", empty, 1)?; // too early
    ///         t.access(c, "load", slot.clone(), false)?;
    ///         laps.extend([i; 3]);
    ///     }
    ///     Ok((t.build()?, TileLaps { laps, tiles: tiles.to_vec(), trip_count: n }))
    /// };
    /// // Keys by the ring's slot and phase (2 K laps), one tile counter; reads that run every
    /// // key the arithmetic reaches.
    /// let mut model = LapModel::new(2, 1, true);
    /// for tiles in [&[2][..], &[6], &[6, 2], &[2, 2, 2], &[2, 6, 2], &[2, 6]] {
    ///     let (trace, cut) = unroll(tiles)?;
    ///     model.add(&trace, &cut)?;
    /// }
    /// assert!(model.missing().is_empty());
    /// let every = model.explore(100_000);
    /// assert!(every.complete && !every.races.is_empty());
    /// // Found in a CTA of one tile of two K laps: the second store meets the first load.
    /// assert_eq!(every.witness.map(|w| w.len()), Some(2));
    /// # Ok::<(), HazardError>(())
    /// ```
    pub fn explore(&self, budget: usize) -> EveryTileLength {
        self.search(budget, true)
    }

    /// [`LapModel::explore`] running every enabled op in every state, and the next lap's key
    /// wherever it may be decided, instead of a persistent set of the ops (`persistent.rs`):
    /// the same answer over more states — the reference the reduction is tested against.
    pub fn explore_every_interleaving(&self, budget: usize) -> EveryTileLength {
        self.search(budget, false)
    }

    fn search(&self, budget: usize, reduce: bool) -> EveryTileLength {
        let layout = Layout::new(self);
        let mut out = EveryTileLength {
            complete: true,
            ..EveryTileLength::default()
        };
        let empty = EventSet::new(layout.ops);
        let start = State {
            laps: Vec::new(),
            last: None,
            done: Vec::new(),
            finished: false,
            barriers: self
                .barriers()
                .iter()
                .map(|&(_, count)| Rc::new(KnownBarrier::new(count, layout.ops)))
                .collect(),
            lane_know: vec![empty.clone(); self.lanes().len()],
            know: BTreeMap::new(),
            latest: BTreeMap::new(),
        };
        let mut seen = HashSet::new();
        // Depth first: per state on the path, the moves left and the lap it decided.
        let mut stack: Vec<(State, Vec<Move>, Option<Lap>)> = Vec::new();
        let mut pending = Some((start, None));
        loop {
            if let Some((mut s, decided)) = pending.take() {
                // Accesses touch no barrier: run those ready as soon as they may (what the
                // others see of them is the same in either order, a race is found by whichever
                // runs second).
                loop {
                    let ready = layout.ready(&s);
                    let local: Vec<(i64, EventId)> = ready
                        .into_iter()
                        .filter(|&(_, r)| {
                            matches!(
                                layout.op(r).map(|o| &o.kind),
                                Some(EventKind::Access { .. })
                            )
                        })
                        .collect();
                    if local.is_empty() {
                        break;
                    }
                    for (l, r) in local {
                        let found = layout.run(&mut s, l, r);
                        record(&layout, &mut out, found, &stack, decided);
                    }
                    layout.normalize(&mut s);
                }
                if seen.insert(fingerprint(&s)) {
                    out.states += 1;
                    if out.states > budget {
                        out.complete = false;
                        break;
                    }
                    let (moves, whole) = layout.moves(&s, reduce, &mut out);
                    if moves.is_empty() && whole && !s.finished {
                        out.stuck = true;
                        out.blocked.extend(layout.waiting(&s));
                        if out.witness.is_none() {
                            out.witness = Some(witness(&stack, decided));
                        }
                    }
                    stack.push((s, moves, decided));
                }
            }
            let Some((state, moves, _)) = stack.last_mut() else {
                break;
            };
            let Some(m) = moves.pop() else {
                stack.pop();
                continue;
            };
            let mut next = state.clone();
            match m {
                Move::Decide(lap) => {
                    next.laps.push(lap);
                    next.last = Some(lap);
                    next.done.push(empty.clone());
                    // After a CTA's last lap comes what runs after the tiles, and nothing else.
                    let terminal = match lap {
                        Lap::Key(k) => layout.after(Some(k)).first() == Some(&Lap::End),
                        Lap::End => false,
                    };
                    if terminal {
                        next.laps.push(Lap::End);
                        next.last = Some(Lap::End);
                        next.done.push(empty.clone());
                    }
                    layout.normalize(&mut next);
                    pending = Some((next, Some(lap)));
                }
                Move::Run(l, r) => {
                    let found = layout.run(&mut next, l, r);
                    record(&layout, &mut out, found, &stack, None);
                    layout.normalize(&mut next);
                    pending = Some((next, None));
                }
            }
        }
        out
    }

    /// The keys that may follow a lap of `key` ([`LapKey::successors`] with this model's
    /// periods).
    pub fn successors(&self, key: &LapKey) -> Vec<LapKey> {
        let (k_period, tile_period, even) = self.periods();
        key.successors(k_period, tile_period, even)
    }
}

/// Records what a step found, with the keys decided on the search's path to it (`last`: the
/// lap decided into the state it ran from, not on the path yet) where it is the first finding.
fn record(
    layout: &Layout<'_>,
    out: &mut EveryTileLength,
    found: Vec<Found>,
    stack: &[(State, Vec<Move>, Option<Lap>)],
    last: Option<Lap>,
) {
    let wrong = !found.is_empty();
    for f in found {
        match f {
            Found::Race(a, b) => {
                out.races.insert((layout.named(a), layout.named(b)));
            }
            Found::Fault(a) => {
                out.faults.insert(layout.named(a));
            }
            Found::Unordered => out.complete = false,
        }
    }
    if wrong && out.goes_wrong() && out.witness.is_none() {
        out.witness = Some(witness(stack, last));
    }
}

/// The keys decided on the search's path (and `last`, the move into the state found).
fn witness(stack: &[(State, Vec<Move>, Option<Lap>)], last: Option<Lap>) -> Vec<LapKey> {
    stack
        .iter()
        .filter_map(|f| f.2)
        .chain(last)
        .filter_map(|lap| match lap {
            Lap::Key(k) => Some(k),
            Lap::End => None,
        })
        .collect()
}

impl Layout<'_> {
    /// The ops of lap `l` of `s`, by id.
    fn lap_ops(&self, s: &State, l: i64) -> Option<(usize, &[LapOp])> {
        let lap = *s.laps.get(usize::try_from(l).ok()?)?;
        let k = self.kind(lap)?;
        Some((k, self.model.kinds().get(k)?.as_slice()))
    }

    fn ran(s: &State, l: i64, i: usize) -> bool {
        l < 0
            || usize::try_from(l)
                .ok()
                .and_then(|k| s.done.get(k))
                .is_some_and(|d| d.contains(EventId(i)))
    }

    /// Whether every op of named lane `lane` in laps below `l` ran.
    fn lane_caught_up(&self, s: &State, lane: usize, l: i64) -> bool {
        (0..l).all(|at| {
            self.lap_ops(s, at).is_none_or(|(_, ops)| {
                ops.iter()
                    .enumerate()
                    .all(|(i, o)| o.lane != LapLane::Named(lane) || Self::ran(s, at, i))
            })
        })
    }

    /// What waits in a stuck state `s`: the ops whose predecessors all ran, and of every lane
    /// with nothing left in the laps decided, the ops that may come next on it.
    fn waiting(&self, s: &State) -> Vec<LapOpId> {
        let mut out: Vec<LapOpId> = self
            .ready(s)
            .into_iter()
            .map(|(_, r)| self.named(r))
            .collect();
        let key = match s.last {
            Some(Lap::Key(k)) => Some(k),
            _ => None,
        };
        let n = s.laps.len() as i64;
        for lane in 0..self.model.lanes().len() {
            if self.lane_caught_up(s, lane, n) {
                let next = self.next_ops.get(&(key, lane)).into_iter().flatten();
                out.extend(next.map(|&r| self.named(r)));
            }
        }
        out
    }

    /// The ops not run whose predecessors all ran, as `(lap, id)`.
    fn ready(&self, s: &State) -> Vec<(i64, EventId)> {
        let mut out = Vec::new();
        for l in 0..s.laps.len() as i64 {
            let Some((k, ops)) = self.lap_ops(s, l) else {
                continue;
            };
            for (i, o) in ops.iter().enumerate() {
                if Self::ran(s, l, i) || !o.within.iter().all(|&j| Self::ran(s, l, j)) {
                    continue;
                }
                let lane_ready = match o.lane {
                    LapLane::Named(n) => self.lane_caught_up(s, n, l),
                    LapLane::OneLap(_) => true,
                };
                if lane_ready {
                    out.push((l, self.id(k, i)));
                }
            }
        }
        out
    }

    /// Whether op `r` of lap `l` may run now (a named barrier: by its first member, all
    /// members ready).
    fn enabled(&self, s: &State, ready: &[(i64, EventId)], l: i64, r: EventId) -> bool {
        let Some(o) = self.op(r) else {
            return false;
        };
        match (&o.kind, &o.group) {
            (EventKind::Wait { barrier, parity }, _) => s
                .barriers
                .get(barrier.0)
                .is_some_and(|b| passes(b.parity, *parity)),
            (_, Some((members, threads))) => {
                let (k, i) = self.named(r);
                members.first() == Some(&i)
                    && members.len() == *threads as usize
                    && members.iter().all(|&m| ready.contains(&(l, self.id(k, m))))
            }
            _ => true,
        }
    }

    /// Whether op `r`, the first on its lane of a lap not yet decided, could be the first op
    /// run there in `s`: it comes after no op of its lap, and is no wait or one whose phase
    /// passes.
    fn could_run(&self, s: &State, r: EventId) -> bool {
        let Some(o) = self.op(r).filter(|o| o.within.is_empty()) else {
            return false;
        };
        match &o.kind {
            EventKind::Wait { barrier, parity } => s
                .barriers
                .get(barrier.0)
                .is_some_and(|b| passes(b.parity, *parity)),
            _ => true,
        }
    }

    /// The moves from `s`: its enabled ops, and the next lap's key where a lane caught up
    /// could run its next op in it (recording keys without a kind); and whether they are
    /// every way on (not where a lap past the window or without a kind was left out).
    fn moves(&self, s: &State, reduce: bool, out: &mut EveryTileLength) -> (Vec<Move>, bool) {
        let ready = self.ready(s);
        let enabled: Vec<bool> = ready
            .iter()
            .map(|&(l, r)| self.enabled(s, &ready, l, r))
            .collect();
        if reduce {
            // Ready ops, and the ops a lane with nothing left in the laps decided may run first
            // in a lap to come.
            let mut standing: Vec<(EventId, Standing)> = ready
                .iter()
                .zip(&enabled)
                .map(|(&(_, r), &e)| {
                    (
                        r,
                        if e {
                            Standing::Enabled
                        } else {
                            Standing::Blocked
                        },
                    )
                })
                .collect();
            // A lane's next op in a lap not yet decided (of each kind it may be): one that
            // could run now needs the lap decided first (a set holding it is not taken); one
            // that cannot — a wait whose phase has not passed, an op after another of its lap
            // — stands as a blocked op of the state, what would enable it brought in.
            standing.extend(self.future(s).into_iter().map(|r| {
                let st = if self.could_run(s, r) {
                    Standing::Outside
                } else {
                    Standing::Blocked
                };
                (r, st)
            }));
            let chosen = persistent(&self.table, &self.footprints, &standing, |seed| {
                let &(l, r) = ready.get(seed)?;
                let frozen: Vec<(i64, EventId)> = self
                    .table
                    .members(r)
                    .map_or_else(|| vec![(l, r)], |m| m.iter().map(|&m| (l, m)).collect());
                self.outside(s, &frozen)
            });
            if let Some(set) = chosen {
                let moves = set
                    .iter()
                    .filter_map(|&i| ready.get(i))
                    .map(|&(l, r)| Move::Run(l, r))
                    .collect();
                return (moves, true);
            }
        }
        let mut moves: Vec<Move> = ready
            .iter()
            .zip(&enabled)
            .filter(|x| *x.1)
            .map(|(&(l, r), _)| Move::Run(l, r))
            .collect();
        let last = s.last;
        if s.finished || last == Some(Lap::End) {
            return (moves, true);
        }
        let key = match last {
            Some(Lap::Key(k)) => Some(k),
            _ => None,
        };
        let wanted = self.future(s).into_iter().any(|r| self.could_run(s, r));
        let mut whole = true;
        if wanted {
            if s.laps.len() >= WINDOW_LAPS {
                out.complete = false;
                return (moves, false);
            }
            for lap in self.after(key) {
                match (lap, self.kind(lap)) {
                    (_, Some(_)) => moves.push(Move::Decide(lap)),
                    (Lap::Key(k), None) => {
                        out.missing.insert(k);
                        whole = false;
                    }
                    (Lap::End, None) => whole = false,
                }
            }
        }
        if !whole {
            out.complete = false;
        }
        (moves, whole)
    }

    /// Of every lane with nothing left in the laps decided, the ops that may come next on it:
    /// the first on it of each lap that may follow the last decided.
    fn future(&self, s: &State) -> Vec<EventId> {
        let key = match s.last {
            Some(Lap::End) => return Vec::new(),
            Some(Lap::Key(k)) => Some(k),
            None => None,
        };
        let n = s.laps.len() as i64;
        let mut out: Vec<EventId> = (0..self.model.lanes().len())
            .filter(|&lane| self.lane_caught_up(s, lane, n))
            .flat_map(|lane| {
                self.next_ops
                    .get(&(key, lane))
                    .into_iter()
                    .flatten()
                    .copied()
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// What the executions from `s` that run none of `frozen` (op instances `(lap, id)`, a
    /// named barrier's whole group) can do to each barrier (`outside.rs`): the instances they
    /// may run over the laps decided, and where one may run the first op of a lane in a lap
    /// not yet decided, every barrier that op and the ops after it touch as touched without
    /// bound (they could be of any kind the keys allow, any number of laps on).
    fn outside(&self, s: &State, frozen: &[(i64, EventId)]) -> Option<Outside> {
        /// The lap of an op of a lap not yet decided.
        const FUTURE: i64 = i64::MAX;
        let n = s.laps.len();
        let mut taken: Vec<EventSet> = (0..n).map(|_| EventSet::new(self.ops)).collect();
        let mut tally = Tally::new(s.barriers.iter().map(|b| b.pending).collect());
        let mut work: Vec<(i64, EventId)> = self.ready(s);
        work.extend(self.future(s).into_iter().map(|r| (FUTURE, r)));
        let mut future_taken: HashSet<EventId> = HashSet::new();
        let done = |taken: &[EventSet], l: i64, i: usize| {
            Self::ran(s, l, i)
                || usize::try_from(l)
                    .ok()
                    .and_then(|x| taken.get(x))
                    .is_some_and(|t| t.contains(EventId(i)))
        };
        let passes_now =
            |b: usize, parity: u8| s.barriers.get(b).is_some_and(|x| passes(x.parity, parity));
        while let Some((l, r)) = work.pop() {
            if frozen.contains(&(l, r)) {
                continue;
            }
            let op = self.op(r)?;
            if l == FUTURE {
                // The first op run on its lane in a lap to come, of whatever kind: once it may
                // run, it and every op after it, any number of laps on, may arrive on and wait
                // on every barrier they touch, without bound.
                if op.within.is_empty()
                    && !future_taken.contains(&r)
                    && tally.admit(&op.kind, passes_now, (l, r))
                {
                    future_taken.insert(r);
                    for b in 0..s.barriers.len() {
                        if self.footprints.touches(r, b) {
                            work.extend(tally.unbounded(b));
                        }
                    }
                }
                continue;
            }
            let (k, i) = self.named(r);
            if done(&taken, l, i) || !op.within.iter().all(|&j| done(&taken, l, j)) {
                continue;
            }
            let lane = match op.lane {
                LapLane::Named(x) => Some(x),
                LapLane::OneLap(_) => None,
            };
            let lane_done_below = |taken: &[EventSet], x: usize, below: i64| {
                (0..below).all(|at| {
                    self.lap_ops(s, at).is_none_or(|(_, ops)| {
                        ops.iter()
                            .enumerate()
                            .all(|(j, o)| o.lane != LapLane::Named(x) || done(taken, at, j))
                    })
                })
            };
            if lane.is_some_and(|x| !lane_done_below(&taken, x, l)) {
                continue;
            }
            if !tally.admit(&op.kind, passes_now, (l, r)) {
                continue;
            }
            taken.get_mut(usize::try_from(l).ok()?)?.insert(EventId(i));
            work.extend(tally.took(&op.kind));
            let within = self.successors.get(r.0).into_iter().flatten();
            work.extend(within.map(|&j| (l, self.id(k, j))));
            if let Some(x) = lane {
                // The lane's next op: later in its lap, in a later lap decided, or to come.
                let next = (l..n as i64).find_map(|at| {
                    let (kk, ops) = self.lap_ops(s, at)?;
                    let from = if at == l { i + 1 } else { 0 };
                    let j = ops
                        .iter()
                        .enumerate()
                        .skip(from)
                        .find(|(_, o)| o.lane == LapLane::Named(x))?
                        .0;
                    Some((at, self.id(kk, j)))
                });
                match next {
                    Some(at) => work.push(at),
                    None => {
                        let key = match s.last {
                            Some(Lap::Key(key)) => Some(key),
                            _ => None,
                        };
                        if s.last != Some(Lap::End) {
                            let ops = self.next_ops.get(&(key, x)).into_iter().flatten();
                            work.extend(ops.map(|&q| (FUTURE, q)));
                        }
                    }
                }
            }
        }
        Some(tally.finish())
    }

    /// What happens before op `r` of lap `l` through its predecessors.
    fn inherited(&self, s: &State, l: i64, r: EventId) -> EventSet {
        let mut set = EventSet::new(self.ops);
        let Some(o) = self.op(r) else {
            return set;
        };
        let (k, _) = self.named(r);
        if let (true, LapLane::Named(n)) = (o.previous, o.lane) {
            if let Some(known) = s.lane_know.get(n) {
                set.union_with(known);
            }
        }
        for q in o.within.iter().map(|&j| self.id(k, j)) {
            if let Some(known) = s.know.get(&(l, q)) {
                set.union_with(known);
            }
            let c = self.class_of(q);
            if s.latest.get(&c) == Some(&(l, self.occurrence(q))) {
                set.insert(c);
            }
        }
        set
    }

    /// Runs op `r` of lap `l` (a named barrier: its whole group); returns what it found.
    fn run(&self, s: &mut State, l: i64, r: EventId) -> Vec<Found> {
        let mut found = Vec::new();
        let Some(o) = self.op(r) else {
            return found;
        };
        match &o.kind {
            EventKind::Access { write, .. } => {
                let mut set = self.inherited(s, l, r);
                let own = self.class_of(r);
                let one_lap = matches!(o.lane, LapLane::OneLap(_));
                if one_lap && !write && s.latest.contains_key(&own) && !set.contains(own) {
                    found.push(Found::Unordered);
                }
                for &class in self.conflicts.get(&r).into_iter().flatten() {
                    let Some(&(lc, _)) = s.latest.get(&class) else {
                        continue;
                    };
                    // (a one-lap op is its own class)
                    let same_timeline =
                        one_lap && lc == l && self.op(class).is_some_and(|x| x.lane == o.lane);
                    if !set.contains(class) && !same_timeline {
                        found.push(Found::Race(class, r));
                    }
                }
                let latest = self.conflicts.contains_key(&r);
                if latest {
                    unknow(s, own);
                    set.remove(own);
                    s.latest.insert(own, (l, self.occurrence(r)));
                }
                self.finish(s, l, r, set);
                if let (true, LapLane::Named(n)) = (latest, o.lane) {
                    if let Some(k) = s.lane_know.get_mut(n) {
                        k.insert(own);
                    }
                }
            }
            EventKind::Wait { .. } | EventKind::Arrive { .. } | EventKind::CompleteTx { .. } => {
                let mut set = self.inherited(s, l, r);
                let barriers = self.model.barriers();
                let counts = |b: usize| barriers.get(b).map_or(1, |x| i64::from(x.1));
                if barrier_op(&o.kind, &mut s.barriers, counts, &mut set) {
                    found.push(Found::Fault(r));
                }
                self.finish(s, l, r, set);
            }
            EventKind::Sync { .. } => {
                let (k, _) = self.named(r);
                let members: Vec<EventId> = o
                    .group
                    .as_ref()
                    .map(|g| g.0.iter().map(|&m| self.id(k, m)).collect())
                    .unwrap_or_default();
                let mut set = EventSet::new(self.ops);
                for &m in &members {
                    set.union_with(&self.inherited(s, l, m));
                }
                for &m in &members {
                    self.finish(s, l, m, set.clone());
                }
            }
        }
        found
    }

    /// Marks op `r` of lap `l` run, keeps what it knows for its lane and for its successors in
    /// its lap, and forgets what its predecessors there knew once their successors all ran.
    fn finish(&self, s: &mut State, l: i64, r: EventId, set: EventSet) {
        let Some(o) = self.op(r) else {
            return;
        };
        let (k, i) = self.named(r);
        if let Some(d) = usize::try_from(l).ok().and_then(|x| s.done.get_mut(x)) {
            d.insert(EventId(i));
        }
        if self.successors.get(r.0).is_some_and(|v| !v.is_empty()) {
            s.know.insert((l, r), set.clone());
        }
        if let LapLane::Named(n) = o.lane {
            if let Some(slot) = s.lane_know.get_mut(n) {
                *slot = set;
            }
        }
        for &j in &o.within {
            let q = self.id(k, j);
            let all_ran = self
                .successors
                .get(q.0)
                .is_none_or(|v| v.iter().all(|&x| Self::ran(s, l, x)));
            if all_ran {
                s.know.remove(&(l, q));
            }
        }
    }

    /// Drops the laps all run — from the front, and from the middle of the window (a lane
    /// that does its tile's work in the tile's first lap keeps that lap open while the K laps
    /// after it run) — renumbering the rest from 0 in order. An instance in a lap dropped is
    /// only ever compared with one of the window, or with the same instance (a lane's last op
    /// and its class's latest instance, both of one lane), so where it lay no longer matters.
    fn normalize(&self, s: &mut State) {
        let full = |lap: Lap, d: &EventSet| {
            let len = self
                .kind(lap)
                .and_then(|k| self.model.kinds().get(k))
                .map_or(0, Vec::len);
            d.len() >= len
        };
        // Per lap of the window, where it goes (`None`: dropped).
        let mut to: Vec<Option<i64>> = Vec::with_capacity(s.laps.len());
        let mut kept = 0i64;
        for (lap, d) in s.laps.iter().zip(&s.done) {
            if full(*lap, d) {
                to.push(None);
            } else {
                to.push(Some(kept));
                kept += 1;
            }
        }
        if to.iter().all(Option::is_some) {
            return;
        }
        let place = |x: i64| -> Option<i64> {
            usize::try_from(x)
                .ok()
                .and_then(|i| to.get(i).copied().flatten())
        };
        let mut laps = Vec::new();
        let mut done = Vec::new();
        for ((lap, d), t) in s.laps.iter().zip(&s.done).zip(&to) {
            if t.is_some() {
                laps.push(*lap);
                done.push(d.clone());
            }
        }
        s.laps = laps;
        s.done = done;
        s.finished = s.laps.is_empty() && s.last == Some(Lap::End);
        let moved = |x: &mut i64| {
            if *x != LONG_AGO {
                *x = place(*x).unwrap_or(LONG_AGO);
            }
        };
        for v in s.latest.values_mut() {
            moved(&mut v.0);
        }
        s.know = std::mem::take(&mut s.know)
            .into_iter()
            .filter_map(|((at, q), set)| Some(((place(at)?, q), set)))
            .collect();
    }
}

/// The lap of an instance run before the window.
const LONG_AGO: i64 = i64::MIN / 4;

/// Clears class `c` from every set of what is known (its latest instance is no longer the one
/// anything knows).
fn unknow(s: &mut State, c: EventId) {
    for k in s.know.values_mut().chain(s.lane_know.iter_mut()) {
        k.remove(c);
    }
    for b in &mut s.barriers {
        KnownBarrier::forget(b, c);
    }
}
