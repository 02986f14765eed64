//! [`Looped::explore`] and [`EveryTripCount`]: a loop at every trip count at once — the
//! explorer's semantics (`machine.rs`) on the loop run forever, its laps taken modulo their
//! period (`docs/hazard-check.md`, *Every trip count*).
//!
//! **What is decided.** A loop of *P*-periodic laps: each thread runs lap 0, 1, 2, … and what
//! lap *i* does depends on *i* mod *P* alone; after *n* laps each runs its part of the
//! epilogue, which depends on *n* mod *P* alone. Without an epilogue, *T*ₙ (the loop at *n*
//! laps) is the first *n* laps of *T*∞: an execution of *T*ₙ is an execution of *T*∞ that runs
//! only events of laps below *n* (what may run depends only on what ran), so a race or an
//! arrival past its phase at some *n* is one at every larger *n*, and *T*ₙ is stuck at a state
//! of *T*∞ whose run events lie below *n*, some event below *n* has not run and none below *n*
//! may run. With one, the end is a choice: in any state whose last lap begun is *h* − 1 the
//! loop may end after *n* = *h* … *h* + *reach* − 1 laps (*n* is decided, lap *n* is the
//! epilogue of *n* mod *P*, nothing past it), and every execution of *T*ₙ passes through such
//! a state before its epilogue: each epilogue op comes after one at most *reach* laps back (1
//! for most loops; 2 where two partitions take turns) or waits on a barrier only the epilogue
//! arrives on. A head — prologues, a pipelined loop's first lap — is taken as it is.
//! [`Looped::explore`] runs every interleaving — up to the order of independent ops: a
//! persistent set of the enabled ops in each state (`persistent.rs`) — with a finite state:
//!
//! - the laps where something has not run and something has, the laps below all run — shifted
//!   down by a multiple of *P*, so a state *P* laps on is the same state; the trip count once
//!   decided;
//! - per barrier: the parity of its completed phases, pending arrivals, tx-count;
//! - happens-before only for the **latest instance** of each class of accesses (the ops of one
//!   timeline touching the same cells the same way, [`Looped::class`]): a set of them per run
//!   event with a successor still to run and per barrier (open and completed phases). A new
//!   instance of a class clears it from every set: what was known was the older one. One
//!   every run op with a successor to run knows of is forgotten where every op to run has a
//!   predecessor: every op to come knows of it.
//!
//! The latest instance is enough to decide whether a race exists: an older instance *o* of the
//! same class, unordered with an access *e* while the latest *o*′ is ordered, is ordered
//! before *o*′ on its own timeline (then before *e*), or unordered with *o*′ — a race of two
//! writes that was found when *o*′ ran. A TMA copy's timeline lives one lap: a write there is
//! the same case; a read (a TMA store's) is checked as it runs — an instance unordered with the
//! one before it leaves the answer incomplete.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use super::bitset::EventSet;
use super::fingerprint::fingerprint;
use super::known_barrier::{barrier_op, KnownBarrier};
use super::looped::{Looped, Step};
use super::machine::passes;
use super::outside::{Outside, Residues, Tally};
use super::persistent::{persistent, Footprints, Ops, Standing};
use super::trace::{EventId, EventKind};

/// How far a thread may run ahead of the first lap not yet done, in periods, before the
/// explorer stops following it (and calls its answer incomplete).
pub const DRIFT_PERIODS: i64 = 4;

/// What the loop does at every trip count.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EveryTripCount {
    /// Races: `(a, b, d)` — two ops ([`Looped::origin`]: a loop op's representative, a head's
    /// or an epilogue's op) that race with `b` `d` laps after `a` (the epilogue is the lap
    /// after the last; `u32::MAX`: `a` ran further back than the explorer keeps apart).
    pub races: BTreeSet<(EventId, EventId, u32)>,
    /// The least trip count found at which some execution races (without an epilogue, every
    /// larger one races too).
    pub race_at: Option<u32>,
    /// Arrivals past their phase, by op ([`Looped::origin`]).
    pub faults: BTreeSet<EventId>,
    /// The least trip count found at which some execution arrives past a phase (without an
    /// epilogue, every larger one does too).
    pub fault_at: Option<u32>,
    /// The least trip count found at which some execution is stuck.
    pub stuck_at: Option<u32>,
    /// The ops ([`Looped::origin`]) that wait forever in the hang found at `stuck_at`.
    pub blocked: BTreeSet<EventId>,
    /// Whether every state was followed: `false` when a thread ran more than
    /// [`DRIFT_PERIODS`] periods ahead or the budget ran out — what was found is real, what
    /// was not is not proved.
    pub complete: bool,
    /// States visited.
    pub states: usize,
}

impl EveryTripCount {
    /// Whether some trip count races, hangs or arrives past a phase.
    pub fn goes_wrong(&self) -> bool {
        self.race_at.is_some() || self.fault_at.is_some() || self.stuck_at.is_some()
    }
}

impl Looped {
    /// Runs every interleaving of the loop run forever, up to the order of independent ops (a
    /// persistent set of the enabled ops in each state: every race, arrival past a phase and
    /// hang is still reached), visiting at most `budget` states (past it, what was found is
    /// returned, not [`EveryTripCount::complete`]).
    pub fn explore(&self, budget: usize) -> EveryTripCount {
        self.search(budget, false, true)
    }

    /// [`Looped::explore`] running every enabled op in every state instead of a persistent
    /// set of them (`persistent.rs`): the same answer over more states — the reference the
    /// reduction is tested against.
    ///
    /// ```
    /// use alias_alloc::hazard::{Cells, Looped, Space, TraceBuilder};
    /// // One producer fills two one-slot rings a lap; a consumer drains each.
    /// let mut t = TraceBuilder::new();
    /// let p = t.partition("producer");
    /// let mut laps = Vec::new();
    /// let mut rings = Vec::new();
    /// for ring in 0..2u64 {
    ///     let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 1)?);
    ///     rings.push((full, empty, Cells::range(Space::Smem, 128 * ring, 128)));
    /// }
    /// for i in 0..4u8 {
    ///     for (full, empty, slot) in &rings {
    ///         t.wait(p, "wait empty", *empty, 1 - i % 2)?;
    ///         t.access(p, "local_store", slot.clone(), true)?;
    ///         t.arrive(p, "arrive full", *full, 1)?;
    ///         laps.extend([u32::from(i); 3]);
    ///     }
    /// }
    /// for (full, empty, slot) in &rings {
    ///     let c = t.partition("consumer");
    ///     for i in 0..4u8 {
    ///         t.wait(c, "wait full", *full, i % 2)?;
    ///         t.access(c, "local_load", slot.clone(), false)?;
    ///         t.arrive(c, "arrive empty", *empty, 1)?;
    ///         laps.extend([u32::from(i); 3]);
    ///     }
    /// }
    /// let looped = Looped::new(&t.build()?, &laps, 2)?;
    /// let (every, reduced) = (looped.explore_every_interleaving(100_000), looped.explore(100_000));
    /// assert!(every.complete && reduced.complete && !every.goes_wrong() && !reduced.goes_wrong());
    /// assert!(reduced.states < every.states); // the consumers need not be interleaved
    /// # Ok::<(), alias_alloc::hazard::HazardError>(())
    /// ```
    pub fn explore_every_interleaving(&self, budget: usize) -> EveryTripCount {
        self.search(budget, false, false)
    }

    /// [`Looped::explore`] up to the first race, hang or arrival past a phase (then not
    /// [`EveryTripCount::complete`]): enough to refute, and the shortest trip counts go first,
    /// so what it finds is at the least trip count found.
    pub fn refute(&self, budget: usize) -> EveryTripCount {
        self.search(budget, true, true)
    }

    fn search(&self, budget: usize, first: bool, reduce: bool) -> EveryTripCount {
        let mut out = EveryTripCount {
            complete: true,
            ..EveryTripCount::default()
        };
        let start = State {
            base: 0,
            shifted: false,
            exit: None,
            done: Vec::new(),
            barriers: self
                .counts
                .iter()
                .map(|&count| Rc::new(KnownBarrier::new(count, self.ids)))
                .collect(),
            know: BTreeMap::new(),
            latest: BTreeMap::new(),
        };
        let footprints = reduce.then(|| (Footprints::new(self), Residues::new(self)));
        let mut seen = HashSet::new();
        // Depth first, a frame per state on the path: the state and the moves not yet tried.
        // No cycle proviso: a state met again is the same up to a shift by whole periods, and
        // at each trip count the laps are finite — see `moves`.
        let mut stack: Vec<Frame> = Vec::new();
        // By offset, the states a shift reached, searched once every state of a lower offset
        // was: a state is first met at the least offset it is reached at, so what goes wrong
        // from it is found at the least trip count it goes wrong at (a state met again at a
        // higher offset is the same state at a greater trip count).
        let mut level = 0;
        // (each with its `awake`, below)
        let mut later: BTreeMap<i64, Vec<(State, i64)>> = BTreeMap::new();
        let mut words = Vec::new();
        // With the state: the least trip count whose End move is still to be tried from it —
        // an End move commutes with the ops of laps begun, so one tried in a state stands for
        // the states they lead to (a sleep set of End moves, `moves`). Trip counts are
        // counted as the unshifted loop's.
        let mut pending = Some((start, 0i64, i64::MIN));
        loop {
            if first && out.goes_wrong() {
                out.complete = false;
                break;
            }
            if let Some((mut s, mut offset, awake)) = pending.take() {
                // Accesses touch no barrier: run those of laps already begun as soon as they
                // may.
                let ready = loop {
                    let ready = self.ready(&s);
                    let local: Vec<(i64, EventId)> = ready
                        .iter()
                        .copied()
                        .filter(|&(l, r)| {
                            (l < s.hi() || s.exit.is_some())
                                && matches!(
                                    self.step(r).map(|x| &x.kind),
                                    Some(EventKind::Access { .. })
                                )
                        })
                        .collect();
                    if local.is_empty() {
                        break ready;
                    }
                    for (l, r) in local {
                        let found = s.run(self, l, r);
                        self.record(&mut out, found, offset, s.exit.unwrap_or(s.hi()));
                    }
                    offset += s.normalize(self);
                };
                if offset > level {
                    later.entry(offset).or_default().push((s, awake));
                } else if seen.insert(s.fingerprint(&mut words)) {
                    out.states += 1;
                    if out.states > budget {
                        out.complete = false;
                        break;
                    }
                    let moves =
                        self.moves(&s, &ready, offset, awake, footprints.as_ref(), &mut out);
                    stack.push(Frame {
                        state: s,
                        offset,
                        moves,
                    });
                }
            }
            let Some(frame) = stack.last_mut() else {
                // (a state deferred is searched from a frame of its own, one at a time)
                let Some(mut entry) = later.first_entry() else {
                    break;
                };
                level = *entry.key();
                pending = entry.get_mut().pop().map(|(s, awake)| (s, level, awake));
                if entry.get().is_empty() {
                    entry.remove();
                }
                continue;
            };
            let Some(m) = frame.moves.pop() else {
                stack.pop();
                continue;
            };
            let offset = frame.offset;
            // Every End move of this state was tried in it or before it: what its moves lead
            // to tries only the trip counts that come into reach.
            let awake = if reduce {
                frame.state.hi() + self.reach + offset
            } else {
                i64::MIN
            };
            // A frame whose last move is taken leaves the path at once, its state moved into
            // the next instead of copied: the path holds only the states with a move to try
            // (where most states have one op to run, it is otherwise as long as the search).
            let mut next = if frame.moves.is_empty() {
                match stack.pop() {
                    Some(f) => f.state,
                    None => continue,
                }
            } else {
                frame.state.clone()
            };
            match m {
                Move::End(n) => {
                    // The loop ends at n ≥ hi: every lap begun so far is one of its.
                    next.exit = Some(n);
                    pending = Some((next, offset, awake));
                }
                Move::Run(l, r) => {
                    let found = next.run(self, l, r);
                    self.record(&mut out, found, offset, next.exit.unwrap_or(next.hi()));
                    let shifted = offset + next.normalize(self);
                    pending = Some((next, shifted, awake));
                }
            }
        }
        out
    }

    /// What may happen next in state `s` (recording where it is stuck): the loop's end where
    /// it may end, and the enabled events — all of them, or (`footprints` given) a persistent
    /// set of them.
    ///
    /// Each trip count is kept apart. Where the loop has not ended, the End moves take the
    /// trip counts below `cover` and what follows the other moves the rest, at each of which
    /// every lap below `cover` is a loop lap: a set of ops of those laps is persistent at
    /// every trip count it stands for, one that would run an op at or past `cover` is not
    /// taken. So the states the search reaches at trip count *n* — *n* laps and an epilogue,
    /// finitely many events — are a persistent-set search of that finite, acyclic system,
    /// which needs no cycle proviso: the search meets a state again only once `normalize`
    /// shifted it by whole periods (unshifted, a state only grows), the same state at trip
    /// count *n* − *kP*.
    ///
    /// An End move at *n* is tried once on a path, in the state where *n* comes into reach
    /// (`awake`, a trip count of the unshifted loop: the least not tried before): it commutes
    /// with every op of a lap below *n*, so the search from it — the finite system at *n* —
    /// reaches whatever the same move reaches after those ops (a sleep set; a state met
    /// again was searched from the path that first met it, whose End moves are tried on it).
    fn moves(
        &self,
        s: &State,
        ready: &[(i64, EventId)],
        offset: i64,
        awake: i64,
        footprints: Option<&(Footprints, Residues)>,
        out: &mut EveryTripCount,
    ) -> Vec<Move> {
        let drift = DRIFT_PERIODS * i64::from(self.period);
        let ends = !self.epilogues.is_empty();
        let enabled: Vec<(i64, EventId)> = ready
            .iter()
            .copied()
            .filter(|&(l, r)| self.enabled(s, l, r))
            .collect();
        let first_ready = ready.iter().map(|x| x.0).min();
        match (s.exit, first_ready) {
            (Some(n), Some(_)) if enabled.is_empty() => {
                let n = u32::try_from(n + offset).unwrap_or(u32::MAX);
                stuck(out, n, ready.iter().map(|x| x.1));
            }
            (None, Some(unrun)) => {
                // Stuck at every n from `least` to the first enabled lap; with an epilogue,
                // n = hi is the end's move below.
                let mut least = unrun.max(s.hi() - 1) + 1;
                if ends {
                    least = least.max(s.hi() + self.reach);
                }
                if !s.shifted {
                    least = least.max(i64::from(self.least_trip_count()));
                }
                let blocked = enabled.iter().map(|x| x.0).min().is_none_or(|e| least <= e);
                if blocked {
                    let n = u32::try_from(least + offset).unwrap_or(u32::MAX);
                    stuck(out, n, ready.iter().filter(|x| x.0 < least).map(|x| x.1));
                }
            }
            _ => {}
        }
        let mut moves = Vec::new();
        if ends && s.exit.is_none() {
            for n in s.hi()..s.hi() + self.reach {
                if (s.shifted || n >= i64::from(self.least_trip_count())) && n + offset >= awake {
                    moves.push(Move::End(n));
                }
            }
        }
        // The loop not ended, its End moves stand for the trip counts below `cover`: what
        // follows them stands for the rest, in each of which every lap below `cover` is the
        // loop's — an op there runs in all of them.
        let mut cover = s.hi() + if ends { self.reach } else { 0 };
        if !s.shifted {
            cover = cover.max(i64::from(self.least_trip_count()));
        }
        let beyond = |l: i64| s.exit.is_none() && (l >= cover || l - s.base >= drift);
        let chosen = footprints.and_then(|(fp, residues)| {
            let mut standing: Vec<(EventId, Standing)> = ready
                .iter()
                .map(|&(l, r)| {
                    let st = match (self.enabled(s, l, r), beyond(l)) {
                        (true, false) => Standing::Enabled,
                        (true, true) => Standing::Beyond,
                        (false, _) => Standing::Blocked,
                    };
                    (r, st)
                })
                .collect();
            standing.extend(
                self.beyond_window(s)
                    .into_iter()
                    .map(|(_, r)| (r, Standing::Outside)),
            );
            persistent(self, fp, &standing, |seed| {
                let &(l, r) = ready.get(seed)?;
                let frozen: Vec<(i64, EventId)> = self
                    .members(r)
                    .map_or_else(|| vec![(l, r)], |m| m.iter().map(|&m| (l, m)).collect());
                self.outside(s, residues, &frozen)
            })
        });
        for (i, &(l, r)) in ready.iter().enumerate() {
            if !self.enabled(s, l, r) {
                continue;
            }
            if s.exit.is_none() && l - s.base >= drift {
                out.complete = false;
            } else if chosen.as_ref().is_none_or(|c| c.contains(&i)) {
                moves.push(Move::Run(l, r));
            }
        }
        // Popped from the back: the loop's end first, the earliest laps next — the shortest
        // trip counts are explored first, so what goes wrong is found at the least first.
        moves.reverse();
        moves
    }

    /// The events that would be ready if their laps were in the window, as `(lap,
    /// representative)`: a head lap's past it whose predecessors all ran (or it has none).
    fn beyond_window(&self, s: &State) -> Vec<(i64, EventId)> {
        if s.shifted || s.exit.is_some() {
            return Vec::new();
        }
        let end = s.hi() + self.max_back;
        (end..self.head + self.max_back)
            .flat_map(|l| {
                self.reps_at(s, l)
                    .iter()
                    .filter(move |&&r| !s.ran(l, r) && self.preds_ran(s, l, r))
                    .map(move |&r| (l, r))
            })
            .collect()
    }

    /// What the executions from `s` that run none of `frozen` (op instances `(lap, op)`, a
    /// named barrier's whole group) can do to each barrier; `None` where they may run more
    /// than [`DRIFT_PERIODS`] periods past the window's first lap.
    fn outside(
        &self,
        s: &State,
        residues: &Residues,
        frozen: &[(i64, EventId)],
    ) -> Option<Outside> {
        let laps = DRIFT_PERIODS * i64::from(self.period) + self.max_back + 1;
        let mut taken: Vec<EventSet> = (0..laps).map(|_| EventSet::new(self.ids)).collect();
        let mut tally = Tally::new(s.barriers.iter().map(|b| b.pending).collect());
        let mut work: Vec<(i64, EventId)> = self.ready(s);
        work.extend(self.beyond_window(s));
        if s.exit.is_none() {
            // The loop may end at any lap from hi on (the explorer's End move is never left
            // out): every epilogue op is a candidate there, taken once its predecessors are.
            let period = i64::from(self.period);
            for l in s.hi()..s.base + laps {
                if let Some(e) = self.epilogues.get(l.rem_euclid(period) as usize) {
                    work.extend(e.iter().map(|&r| (l, r)));
                }
            }
        }
        let is_taken = |taken: &[EventSet], l: i64, r: EventId| {
            usize::try_from(l - s.base)
                .ok()
                .and_then(|k| taken.get(k))
                .is_some_and(|t| t.contains(r))
        };
        while let Some((l, r)) = work.pop() {
            if frozen.contains(&(l, r)) || s.ran(l, r) || is_taken(&taken, l, r) {
                continue;
            }
            if !self.may_be_at(s, residues, l, r) {
                continue;
            }
            let preds = self.after_of(s, l, r).iter().all(|&(back, q)| {
                let at = l - back;
                s.before_start(at) || s.ran(at, q) || is_taken(&taken, at, q)
            });
            if !preds {
                continue;
            }
            let step = self.step(r)?;
            let passes_now =
                |b: usize, parity: u8| s.barriers.get(b).is_some_and(|x| passes(x.parity, parity));
            if !tally.admit(&step.kind, passes_now, (l, r)) {
                continue;
            }
            // Past the laps followed: given up.
            let slot = usize::try_from(l - s.base).ok()?;
            taken.get_mut(slot)?.insert(r);
            work.extend(tally.took(&step.kind));
            work.extend(step.successors.iter().map(|&(on, q)| (l + on, q)));
        }
        Some(tally.finish())
    }

    /// Whether op `r` may run at lap `l` in some execution from `s`: an op of that lap, or of
    /// the epilogue there where the loop may still end at `l`.
    fn may_be_at(&self, s: &State, residues: &Residues, l: i64, r: EventId) -> bool {
        let residue = l.rem_euclid(i64::from(self.period)) as usize;
        let within = |sets: &[EventSet]| sets.get(residue).is_some_and(|x| x.contains(r));
        let head = !s.shifted && l < self.head;
        match s.exit {
            Some(n) if l >= n => l == n && within(&residues.epilogues),
            _ if head => self.reps_at(s, l).contains(&r),
            _ => {
                within(&residues.laps)
                    || (s.exit.is_none() && l >= s.hi() && within(&residues.epilogues))
            }
        }
    }

    /// Op `r`'s step.
    pub(super) fn step(&self, r: EventId) -> Option<&Step> {
        self.steps.get(r.0).and_then(Option::as_ref)
    }

    /// Records what a step found at trip count `at` (shifted by `offset`): there, and at no
    /// trip count below the least this decides (a race among laps below it is one of every
    /// trip count from the least on).
    fn record(&self, out: &mut EveryTripCount, found: Vec<Found>, offset: i64, at: i64) {
        let n = u32::try_from(at + offset)
            .unwrap_or(u32::MAX)
            .max(self.least_trip_count());
        let least = |at: &mut Option<u32>| *at = Some(at.map_or(n, |m| m.min(n)));
        for f in found {
            match f {
                Found::Race { a, la, b, lb } => {
                    let ((x, lx), (y, ly)) = if (la, a) <= (lb, b) {
                        ((a, la), (b, lb))
                    } else {
                        ((b, lb), (a, la))
                    };
                    out.races
                        .insert((x, y, u32::try_from(ly - lx).unwrap_or(u32::MAX)));
                    least(&mut out.race_at);
                }
                Found::Fault(r) => {
                    out.faults.insert(r);
                    least(&mut out.fault_at);
                }
                Found::Unordered => out.complete = false,
            }
        }
    }

    /// The ops of lap `l` in state `s`: the loop's, the epilogue's at the trip count, none past.
    fn reps_at(&self, s: &State, l: i64) -> &[EventId] {
        let p = i64::from(self.period);
        let (list, r) = match s.exit {
            Some(n) if l == n => (&self.epilogues, n),
            Some(n) if l > n => return &[],
            _ if !s.shifted && l < self.head => {
                return self.heads.get(l as usize).map_or(&[], Vec::as_slice)
            }
            _ => (&self.laps, l),
        };
        list.get(r.rem_euclid(p) as usize)
            .map_or(&[], Vec::as_slice)
    }

    /// The events not run whose predecessors all ran, as `(lap, representative)`.
    fn ready(&self, s: &State) -> Vec<(i64, EventId)> {
        let mut out = Vec::new();
        let end = (s.hi() + self.max_back).max(s.exit.map_or(0, |n| n + 1));
        for l in s.base..end {
            for &r in self.reps_at(s, l) {
                if !s.ran(l, r) && self.preds_ran(s, l, r) {
                    out.push((l, r));
                }
            }
        }
        out
    }

    fn preds_ran(&self, s: &State, l: i64, r: EventId) -> bool {
        self.step(r).is_some()
            && self
                .after_of(s, l, r)
                .iter()
                .all(|&(back, q)| s.before_start(l - back) || s.ran(l - back, q))
    }

    /// The predecessors of `(l, r)`: its lap's own where they reach into the head, else its
    /// op's.
    fn after_of(&self, s: &State, l: i64, r: EventId) -> &[(i64, EventId)] {
        if !s.shifted {
            if let Some(v) = self.early.get(&(l, r)) {
                return v;
            }
        }
        self.step(r).map_or(&[], |x| x.after.as_slice())
    }

    /// Whether `(l, r)` may run now (a named barrier: by its first member, all members ready).
    fn enabled(&self, s: &State, l: i64, r: EventId) -> bool {
        match self.step(r) {
            Some(Step {
                kind: EventKind::Wait { barrier, parity },
                ..
            }) => s
                .barriers
                .get(barrier.0)
                .is_some_and(|b| passes(b.parity, *parity)),
            Some(Step {
                group: Some((members, threads)),
                ..
            }) => {
                members.first() == Some(&r)
                    && members.len() == *threads as usize
                    && members
                        .iter()
                        .all(|&m| !s.ran(l, m) && self.preds_ran(s, l, m))
            }
            Some(_) => true,
            None => false,
        }
    }
}

/// Records a hang at trip count `n` with the ops that wait forever there, where it is the
/// least found so far.
fn stuck(out: &mut EveryTripCount, n: u32, waiting: impl Iterator<Item = EventId>) {
    if out.stuck_at.is_none_or(|m| n < m) {
        out.stuck_at = Some(n);
        out.blocked = waiting.collect();
    }
}

/// The lap of an access last run further below the window than any predecessor reaches: only
/// ever compared with what runs in the window, where no predecessor reaches it.
const LONG_AGO: i64 = i64::MIN / 4;

/// A state on the search's path and the moves from it not yet tried.
struct Frame {
    state: State,
    offset: i64,
    moves: Vec<Move>,
}

/// A move of the explorer: the loop ends (after the laps given), or an event runs.
enum Move {
    End(i64),
    Run(i64, EventId),
}

/// A finding of one step.
enum Found {
    Race {
        a: EventId,
        la: i64,
        b: EventId,
        lb: i64,
    },
    Fault(EventId),
    /// A read of a one-lap timeline ran unordered with its older instance.
    Unordered,
}

/// A state of the loop run forever: laps below `base` all ran, `done[k]` is what ran of lap
/// `base + k` (the last one not empty).
#[derive(Debug, Clone, PartialEq, Eq)]
struct State {
    base: i64,
    /// Whether laps were shifted down (lap 0 is no longer the loop's first; a lap below it is
    /// one the loop ran, not one before it).
    shifted: bool,
    /// The trip count, once decided (a loop with an epilogue): lap `exit` is the epilogue.
    exit: Option<i64>,
    done: Vec<EventSet>,
    /// Per barrier (shared with the states it was copied from until one changes it).
    barriers: Vec<Rc<KnownBarrier>>,
    /// The latest instances known to each run event with a successor still to run.
    know: BTreeMap<(i64, EventId), Rc<EventSet>>,
    /// Per class of accesses ([`Looped::class`]; the sets above hold classes): the lap and
    /// the op of its latest instance.
    latest: BTreeMap<EventId, (i64, EventId)>,
}

impl State {
    /// The state's [`fingerprint`], which the explorer remembers instead of the state: of its
    /// words, laid out in `words` without ambiguity (every list after its length).
    fn fingerprint(&self, words: &mut Vec<u64>) -> u128 {
        words.clear();
        // (i64 as u64 and back is one-to-one)
        words.extend([self.base as u64, u64::from(self.shifted)]);
        words.extend(match self.exit {
            Some(n) => [1, n as u64],
            None => [0, 0],
        });
        words.push(self.done.len() as u64);
        for d in &self.done {
            words.extend_from_slice(d.words());
        }
        for b in &self.barriers {
            words.extend([u64::from(b.parity), b.pending as u64, b.tx as u64]);
            words.extend_from_slice(b.open.words());
            words.extend_from_slice(b.closed.words());
        }
        words.push(self.know.len() as u64);
        for (&(l, r), k) in &self.know {
            words.extend([l as u64, r.0 as u64]);
            words.extend_from_slice(k.words());
        }
        words.push(self.latest.len() as u64);
        for (c, &(l, r)) in &self.latest {
            words.extend([c.0 as u64, l as u64, r.0 as u64]);
        }
        fingerprint(words)
    }

    /// Whether lap `l` comes before the loop's first (no event there: a predecessor absent).
    fn before_start(&self, l: i64) -> bool {
        l < 0 && !self.shifted
    }

    fn hi(&self) -> i64 {
        self.base + self.done.len() as i64
    }

    fn ran(&self, l: i64, r: EventId) -> bool {
        l < self.base
            || usize::try_from(l - self.base)
                .ok()
                .and_then(|k| self.done.get(k))
                .is_some_and(|d| d.contains(r))
    }

    /// Shifts every lap down by the largest multiple of the period that keeps `base` at the
    /// floor or above (past the head and the laps whose predecessors reach into it, `head +
    /// max_back`); returns it. From [`Looped::least_trip_count`] on (the floor, lap 1 at
    /// least) nothing before lap 0 and nothing of the head is in reach: the state counts as
    /// shifted, the one a shift would make. Once shifted, an access last run more than
    /// `max_back` laps below the window is [`LONG_AGO`]: no op of the window reaches back to it
    /// (the head's, which may, never run again), so it is only ever compared with what runs
    /// there and how far below no longer matters — states that differ in nothing else are one.
    fn normalize(&mut self, looped: &Looped) -> i64 {
        let p = i64::from(looped.period);
        let floor = looped.head + looped.max_back;
        let shift = (self.base - floor).div_euclid(p) * p;
        if shift > 0 {
            self.base -= shift;
            self.shifted = true;
            self.exit = self.exit.map(|n| n - shift);
            self.know = std::mem::take(&mut self.know)
                .into_iter()
                .map(|((l, r), k)| ((l - shift, r), k))
                .collect();
            for (l, _) in self.latest.values_mut() {
                if *l != LONG_AGO {
                    *l -= shift;
                }
            }
        }
        if self.base >= i64::from(looped.least_trip_count()) {
            self.shifted = true;
        }
        if self.shifted {
            let gone = self.base - looped.max_back;
            for (l, _) in self.latest.values_mut() {
                if *l < gone {
                    *l = LONG_AGO;
                }
            }
            if !looped.rootless {
                self.forget_known();
            }
        }
        shift.max(0)
    }

    /// Forgets the latest instance of each class every op still to run knows of (each has a
    /// predecessor, and every run op with a successor to run knows it): no op to come races
    /// with it.
    fn forget_known(&mut self) {
        let known: Vec<EventId> = self
            .latest
            .keys()
            .copied()
            .filter(|&c| self.know.values().all(|k| k.contains(c)))
            .collect();
        for c in known {
            self.latest.remove(&c);
            self.unknow(c);
        }
    }

    /// Clears class `c` from every set of what is known (its latest instance is no longer the
    /// one anything knows).
    fn unknow(&mut self, c: EventId) {
        for k in self.know.values_mut() {
            if k.contains(c) {
                Rc::make_mut(k).remove(c);
            }
        }
        for b in &mut self.barriers {
            KnownBarrier::forget(b, c);
        }
    }

    /// What happens before `(l, r)` through its predecessors.
    fn inherited(&self, looped: &Looped, l: i64, r: EventId) -> EventSet {
        let mut set = EventSet::new(looped.ids);
        for &(back, q) in looped.after_of(self, l, r) {
            let at = l - back;
            if self.before_start(at) {
                continue;
            }
            if let Some(k) = self.know.get(&(at, q)) {
                set.union_with(k);
            }
            let c = looped.class_of(q);
            if self.latest.get(&c) == Some(&(at, q)) {
                set.insert(c);
            }
        }
        set
    }

    /// Runs `(l, r)` (a named barrier: its whole group); returns what it found.
    fn run(&mut self, looped: &Looped, l: i64, r: EventId) -> Vec<Found> {
        let mut found = Vec::new();
        let Some(step) = looped.step(r) else {
            return found;
        };
        match &step.kind {
            EventKind::Access { write, .. } => {
                let mut set = self.inherited(looped, l, r);
                let own = looped.class_of(r);
                if step.per_lap && !write && self.latest.contains_key(&own) && !set.contains(own) {
                    // Two instances of a read on timelines of one lap each, unordered: the
                    // latest no longer stands for the older.
                    found.push(Found::Unordered);
                }
                for &class in looped.conflicts.get(&r).into_iter().flatten() {
                    let Some(&(lc, c)) = self.latest.get(&class) else {
                        continue;
                    };
                    let same_timeline = step.per_lap
                        && lc == l
                        && looped.step(c).is_some_and(|x| x.lane == step.lane);
                    if !set.contains(class) && !same_timeline {
                        found.push(Found::Race {
                            a: c,
                            la: lc,
                            b: r,
                            lb: l,
                        });
                    }
                }
                if !looped.conflicts.contains_key(&r) {
                    // An access nothing conflicts with: no one needs to know it.
                    self.finish(looped, l, r, set);
                    return found;
                }
                // The older instance is no longer the one anything knows.
                self.unknow(own);
                set.remove(own);
                self.latest.insert(own, (l, r));
                self.finish(looped, l, r, set);
            }
            EventKind::Wait { .. } | EventKind::Arrive { .. } | EventKind::CompleteTx { .. } => {
                let mut set = self.inherited(looped, l, r);
                let counts = |b: usize| looped.counts.get(b).map_or(1, |&c| i64::from(c));
                if barrier_op(&step.kind, &mut self.barriers, counts, &mut set) {
                    found.push(Found::Fault(r));
                }
                self.finish(looped, l, r, set);
            }
            EventKind::Sync { .. } => {
                let members = step.group.as_ref().map(|g| g.0.clone()).unwrap_or_default();
                let mut set = EventSet::new(looped.ids);
                for &m in &members {
                    set.union_with(&self.inherited(looped, l, m));
                }
                for &m in &members {
                    self.finish(looped, l, m, set.clone());
                }
            }
        }
        found
    }

    /// Marks `(l, r)` run, keeps what it knows while a successor has not run, and forgets
    /// what its predecessors knew once all their successors ran.
    fn finish(&mut self, looped: &Looped, l: i64, r: EventId, set: EventSet) {
        let Some(step) = looped.step(r) else {
            return;
        };
        if let Ok(k) = usize::try_from(l - self.base) {
            if self.done.len() <= k {
                self.done.resize(k + 1, EventSet::new(looped.ids));
            }
            if let Some(d) = self.done.get_mut(k) {
                d.insert(r);
            }
        }
        if !step.successors.is_empty() {
            self.know.insert((l, r), Rc::new(set));
        }
        for &(back, q) in looped.after_of(self, l, r) {
            let at = l - back;
            // (a successor that is no op of its lap here — the epilogue's while the loop runs,
            // the loop's past the trip count — is none)
            let all_ran = looped.step(q).is_some_and(|x| {
                x.successors.iter().all(|&(on, s)| {
                    self.ran(at + on, s) || !looped.reps_at(self, at + on).contains(&s)
                })
            });
            if all_ran {
                self.know.remove(&(at, q));
            }
        }
        // Laps all run leave the window.
        while let Some(first) = self.done.first() {
            let full = looped
                .reps_at(self, self.base)
                .iter()
                .all(|&x| first.contains(x));
            if !full {
                break;
            }
            self.done.remove(0);
            self.base += 1;
        }
    }
}
