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

use super::bitset::EventSet;
use super::fingerprint::fingerprint;
use super::lap_model::{LapLane, LapModel, LapOp};
use super::machine::{passes, settle};
use super::tile_laps::LapKey;
use super::trace::{BarrierId, EventId, EventKind};

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

/// A barrier's state.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
struct Bar {
    parity: u32,
    pending: i64,
    tx: i64,
    open: EventSet,
    closed: EventSet,
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
    barriers: Vec<Bar>,
    /// Per named lane, its last op run and what that knows.
    lane_last: Vec<Option<(i64, EventId)>>,
    lane_know: Vec<EventSet>,
    /// What a run op with a successor in its lap still to run knows.
    know: BTreeMap<(i64, EventId), EventSet>,
    /// Per class, its latest instance.
    latest: BTreeMap<EventId, (i64, EventId)>,
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
    /// Per access op id, the classes it conflicts with.
    conflicts: BTreeMap<EventId, Vec<EventId>>,
    /// Per op id, its successors within its lap (positions).
    successors: Vec<Vec<usize>>,
    /// Per (key, lane), the first ops on the lane of every lap that may come after the key.
    next_ops: BTreeMap<(Option<LapKey>, usize), BTreeSet<EventId>>,
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
        let mut layout = Self {
            model,
            start,
            ops,
            class,
            conflicts,
            successors,
            next_ops: BTreeMap::new(),
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
                .map(|&(_, count)| Bar {
                    parity: 0,
                    pending: i64::from(count),
                    tx: 0,
                    open: empty.clone(),
                    closed: empty.clone(),
                })
                .collect(),
            lane_last: vec![None; self.lanes().len()],
            lane_know: vec![empty.clone(); self.lanes().len()],
            know: BTreeMap::new(),
            latest: BTreeMap::new(),
        };
        let mut seen = HashSet::new();
        // Depth first: per state on the path, the moves left and the lap it decided.
        let mut stack: Vec<(State, Vec<Move>, Option<Lap>)> = Vec::new();
        let mut pending = Some((start, None));
        loop {
            if let Some((s, decided)) = pending.take() {
                if seen.insert(fingerprint(&s)) {
                    out.states += 1;
                    if out.states > budget {
                        out.complete = false;
                        break;
                    }
                    let (moves, whole) = layout.moves(&s, &mut out);
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
                        out.witness = Some(witness(&stack, None));
                    }
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
    fn moves(&self, s: &State, out: &mut EveryTileLength) -> (Vec<Move>, bool) {
        let ready = self.ready(s);
        let mut moves: Vec<Move> = ready
            .iter()
            .filter(|&&(l, r)| self.enabled(s, &ready, l, r))
            .map(|&(l, r)| Move::Run(l, r))
            .collect();
        let last = s.last;
        if s.finished || last == Some(Lap::End) {
            return (moves, true);
        }
        let key = match last {
            Some(Lap::Key(k)) => Some(k),
            _ => None,
        };
        let n = s.laps.len() as i64;
        let wanted = (0..self.model.lanes().len()).any(|lane| {
            self.lane_caught_up(s, lane, n)
                && self
                    .next_ops
                    .get(&(key, lane))
                    .is_some_and(|ops| ops.iter().any(|&r| self.could_run(s, r)))
        });
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

    /// What happens before op `r` of lap `l` through its predecessors.
    fn inherited(&self, s: &State, l: i64, r: EventId) -> EventSet {
        let mut set = EventSet::new(self.ops);
        let Some(o) = self.op(r) else {
            return set;
        };
        let (k, _) = self.named(r);
        let mut preds: Vec<(i64, EventId)> = o.within.iter().map(|&j| (l, self.id(k, j))).collect();
        if let (true, LapLane::Named(n)) = (o.previous, o.lane) {
            if let Some(last) = s.lane_last.get(n).copied().flatten() {
                if let Some(known) = s.lane_know.get(n) {
                    set.union_with(known);
                }
                preds.push(last);
            }
        }
        for (at, q) in preds {
            if let Some(known) = s.know.get(&(at, q)) {
                set.union_with(known);
            }
            let c = self.class_of(q);
            if s.latest.get(&c) == Some(&(at, q)) {
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
                    let Some(&(lc, c)) = s.latest.get(&class) else {
                        continue;
                    };
                    let same_timeline =
                        one_lap && lc == l && self.op(c).is_some_and(|x| x.lane == o.lane);
                    if !set.contains(class) && !same_timeline {
                        found.push(Found::Race(c, r));
                    }
                }
                if self.conflicts.contains_key(&r) {
                    unknow(s, own);
                    set.remove(own);
                    s.latest.insert(own, (l, r));
                }
                self.finish(s, l, r, set);
            }
            EventKind::Wait { barrier, .. } => {
                let mut set = self.inherited(s, l, r);
                if let Some(b) = s.barriers.get(barrier.0) {
                    set.union_with(&b.closed);
                }
                self.finish(s, l, r, set);
            }
            EventKind::Arrive { barrier, count, tx } => {
                let set = self.inherited(s, l, r);
                let bytes = i64::try_from(*tx).unwrap_or(i64::MAX);
                if self.arrive(s, *barrier, &set, -i64::from(*count), bytes) {
                    found.push(Found::Fault(r));
                }
                self.finish(s, l, r, set);
            }
            EventKind::CompleteTx { barrier, bytes, .. } => {
                let set = self.inherited(s, l, r);
                let bytes = i64::try_from(*bytes).unwrap_or(i64::MAX);
                self.arrive(s, *barrier, &set, 0, -bytes);
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

    /// An arrive or complete_tx; returns whether it arrived past the phase.
    fn arrive(
        &self,
        s: &mut State,
        barrier: BarrierId,
        set: &EventSet,
        arrivals: i64,
        bytes: i64,
    ) -> bool {
        let count = self
            .model
            .barriers()
            .get(barrier.0)
            .map_or(1, |b| i64::from(b.1));
        let Some(b) = s.barriers.get_mut(barrier.0) else {
            return false;
        };
        b.open.union_with(set);
        let (past, completes) = settle(&mut b.pending, &mut b.tx, count, arrivals, bytes);
        if completes {
            b.parity ^= 1;
            let open = std::mem::replace(&mut b.open, EventSet::new(self.ops));
            b.closed.union_with(&open);
        }
        past
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
            if let Some(slot) = s.lane_last.get_mut(n) {
                *slot = Some((l, r));
            }
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

    /// Drops the laps all run from the front, renumbering the rest from 0; an instance
    /// further back is only ever compared with one in the window.
    fn normalize(&self, s: &mut State) {
        let mut gone = 0i64;
        while let (Some(d), Some(&lap)) = (s.done.first(), s.laps.first()) {
            let len = self
                .kind(lap)
                .and_then(|k| self.model.kinds().get(k))
                .map_or(0, Vec::len);
            if d.len() < len {
                break;
            }
            if lap == Lap::End {
                s.finished = true;
            }
            s.done.remove(0);
            s.laps.remove(0);
            gone += 1;
        }
        if gone == 0 {
            return;
        }
        let shift = |x: &mut i64| {
            if *x != LONG_AGO {
                *x -= gone;
                if *x < 0 {
                    *x = LONG_AGO;
                }
            }
        };
        for v in s.latest.values_mut() {
            shift(&mut v.0);
        }
        for (at, _) in s.lane_last.iter_mut().flatten() {
            shift(at);
        }
        s.know = std::mem::take(&mut s.know)
            .into_iter()
            .filter(|((at, _), _)| *at >= gone)
            .map(|((at, q), set)| ((at - gone, q), set))
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
        b.open.remove(c);
        b.closed.remove(c);
    }
}
