//! [`Footprints`]: the barriers each op of a [`Looped`] (or event of a [`Trace`]) and every op
//! after it touch — the static half of the persistent sets [`Looped::explore`] and
//! [`super::explore_reduced`] follow instead of every enabled op (`docs/hazard-check.md`,
//! *Persistent sets*).
//!
//! **Why a persistent set is enough.** Two ops of different threads are *dependent* when they
//! touch one barrier and one of them arrives on it (an arrive or a TMA copy's `complete_tx`)
//! in a way that changes what the other does or sees — an arrival that completes or passes
//! the phase (`outside.rs` says when none can):
//! a wait reads the barrier's phase and what its completed phases carry, an arrive writes
//! both. Every other pair commutes and neither enables nor disables the other — accesses
//! (their happens-before sets are the same in either order; a race is found by whichever
//! runs second), named barriers (their members are enabled by program order alone), waits on
//! one barrier. A set *S* of the ops ready in a state is **persistent** when no op outside it
//! that can run before one of *S* is dependent on an op of *S* or enables one: then every
//! execution from the state is, up to swapping independent neighbours, one that starts with
//! an op of *S*, and a race, an arrival past a phase or a hang reachable from the state is
//! reachable through *S* (Godefroid, *Partial-Order Methods for the Verification of
//! Concurrent Systems*, LNCS 1032, ch. 4 — at each trip count the laps are finite and the
//! search acyclic, so no cycle proviso (ch. 6) is needed: `Looped::moves` says why).
//!
//! An op not ready runs only after one of its predecessors, so an op outside *S* can only run
//! before *S* by way of a ready op it comes after. Hence *S* is built from the ops ready in
//! the state, each standing for itself and every op after it ([`Footprints::arrives`],
//! [`Footprints::touches`], [`Footprints::after`]): an enabled arrive brings in every ready op
//! after which something touches its barrier; a wait, enabled or not, every ready op after
//! which something arrives on its barrier (what could complete its phase or change what it
//! receives); a named barrier not yet complete, every ready op its missing members come
//! after. Whether an arrive or a wait needs the others' ops on its barrier depends on the
//! state: where the ops outside the set cannot bring its barrier to the phase's last arrival
//! before it, nor complete the phase a wait waits on ([`Outside`], `outside.rs`), the arrive
//! or wait is independent of all of them and takes none in. The explorer
//! ([`Looped::explore`]) takes, among the sets so closed from each enabled
//! op, the one with the fewest enabled ops, and runs every enabled op instead wherever the
//! set would run an op of a lap that is not the loop's at every trip count the state's
//! further moves stand for (the loop's end is a move of its own, tried at the laps it may end
//! at: what follows the other moves stands for the trip counts past those) or an op is ready
//! outside the window of laps followed.

use super::bitset::EventSet;
use super::looped::Looped;
use super::outside::Outside;
use super::trace::{EventId, EventKind, Trace};

/// Per op of a [`Looped`] (its compact id): the barriers it and every op after it (by
/// predecessors, any number of laps on, the epilogue's included) touch.
#[derive(Debug, Clone)]
pub(super) struct Footprints {
    /// Per op, the barriers arrived on (`arrive`, `complete_tx`), indexed by barrier id.
    arrives: Vec<EventSet>,
    /// Per op, the barriers arrived on or waited on.
    touches: Vec<EventSet>,
    /// Per op, the ops after it, itself included.
    after: Vec<EventSet>,
    /// Whether every loop op has a predecessor: an op without one is ready as soon as its lap
    /// is in the window, which no op of a persistent set need precede (no reduction then).
    pub(super) sound: bool,
}

/// What [`persistent`] asks of the ops it orders: a [`Looped`]'s (by representative) or a
/// [`Trace`]'s (by event).
pub(super) trait Ops {
    /// What op `r` does.
    fn kind(&self, r: EventId) -> Option<&EventKind>;
    /// The members of the named barrier op `r` takes part in.
    fn members(&self, r: EventId) -> Option<&[EventId]>;
}

impl Ops for Looped {
    fn kind(&self, r: EventId) -> Option<&EventKind> {
        self.step(r).map(|s| &s.kind)
    }

    fn members(&self, r: EventId) -> Option<&[EventId]> {
        self.step(r)
            .and_then(|s| s.group.as_ref())
            .map(|g| g.0.as_slice())
    }
}

impl Ops for Trace {
    fn kind(&self, r: EventId) -> Option<&EventKind> {
        self.events.get(r.0).map(|e| &e.kind)
    }

    fn members(&self, r: EventId) -> Option<&[EventId]> {
        match self.kind(r) {
            Some(EventKind::Sync { group }) => self.syncs.get(*group).map(|g| g.members.as_slice()),
            _ => None,
        }
    }
}

impl Footprints {
    /// Reads the footprints of `looped`'s ops.
    pub(super) fn new(looped: &Looped) -> Self {
        // q → r wherever q is a predecessor of r, in a lap reaching into the head or not.
        let mut edges: Vec<(usize, usize)> = Vec::new();
        for (r, step) in looped.steps.iter().enumerate() {
            let after = step.as_ref().map_or(&[][..], |x| x.after.as_slice());
            edges.extend(after.iter().map(|&(_, q)| (q.0, r)));
        }
        for ((_, r), after) in &looped.early {
            edges.extend(after.iter().map(|&(_, q)| (q.0, r.0)));
        }
        let sound = looped
            .laps
            .iter()
            .flatten()
            .all(|r| looped.step(*r).is_some_and(|s| !s.after.is_empty()));
        Self::of(looped, looped.ids, looped.counts.len(), &edges, sound)
    }

    /// The footprints of `trace`'s events (each ready one is in the state: always sound).
    pub(super) fn of_trace(trace: &Trace) -> Self {
        let edges: Vec<(usize, usize)> = trace
            .events
            .iter()
            .enumerate()
            .flat_map(|(r, e)| e.after.iter().map(move |q| (q.0, r)))
            .collect();
        Self::of(
            trace,
            trace.events.len(),
            trace.barriers.len(),
            &edges,
            true,
        )
    }

    /// From `n` ops over `barriers` barriers and the edges `q → r` (q a predecessor of r).
    pub(super) fn of(
        ops: &impl Ops,
        n: usize,
        barriers: usize,
        edges: &[(usize, usize)],
        sound: bool,
    ) -> Self {
        let mut after: Vec<EventSet> = (0..n)
            .map(|i| {
                let mut s = EventSet::new(n);
                s.insert(EventId(i));
                s
            })
            .collect();
        let mut changed = true;
        while changed {
            changed = false;
            for &(q, r) in edges {
                let Some(from) = after.get(r).cloned() else {
                    continue;
                };
                if let Some(to) = after.get_mut(q) {
                    changed |= to.union_with(&from);
                }
            }
        }
        let barrier_of = |r: EventId| -> Option<(usize, bool)> {
            match ops.kind(r) {
                Some(EventKind::Arrive { barrier, .. } | EventKind::CompleteTx { barrier, .. }) => {
                    Some((barrier.0, true))
                }
                Some(EventKind::Wait { barrier, .. }) => Some((barrier.0, false)),
                _ => None,
            }
        };
        let mut arrives = vec![EventSet::new(barriers); n];
        let mut touches = vec![EventSet::new(barriers); n];
        for (i, cone) in after.iter().enumerate() {
            for r in cone.iter() {
                if let Some((b, arrive)) = barrier_of(r) {
                    if arrive {
                        if let Some(a) = arrives.get_mut(i) {
                            a.insert(EventId(b));
                        }
                    }
                    if let Some(t) = touches.get_mut(i) {
                        t.insert(EventId(b));
                    }
                }
            }
        }
        Self {
            arrives,
            touches,
            after,
            sound,
        }
    }

    /// Whether `r` or an op after it arrives on barrier `b`.
    pub(super) fn arrives(&self, r: EventId, b: usize) -> bool {
        self.arrives
            .get(r.0)
            .is_some_and(|s| s.contains(EventId(b)))
    }

    /// Whether `r` or an op after it arrives on or waits on barrier `b`.
    pub(super) fn touches(&self, r: EventId, b: usize) -> bool {
        self.touches
            .get(r.0)
            .is_some_and(|s| s.contains(EventId(b)))
    }

    /// Whether `m` is `r` or comes after it.
    pub(super) fn after(&self, r: EventId, m: EventId) -> bool {
        self.after.get(r.0).is_some_and(|s| s.contains(m))
    }
}

/// How an op stands in a state, for [`persistent`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Standing {
    /// May run now, in every trip count the state's further moves stand for.
    Enabled,
    /// May run now but is of a lap past the loop's end at one of those trip counts, or past
    /// the laps followed: a persistent set holding it is not taken.
    Beyond,
    /// Ready, not enabled (a wait on a phase not complete, a named barrier's member).
    Blocked,
    /// Would be ready if its lap were in the window: a persistent set holding it is not taken.
    Outside,
}

/// The smallest persistent set found among those closed from each enabled op: the indices
/// into `ready` of its enabled ops, or `None` where none is smaller than every enabled op
/// (or one would hold an op [`Standing::Beyond`] or [`Standing::Outside`]). `outside` says
/// what the executions that do not run `ready[seed]` can do to each barrier.
pub(super) fn persistent(
    ops: &impl Ops,
    fp: &Footprints,
    ready: &[(EventId, Standing)],
    mut outside: impl FnMut(usize) -> Option<Outside>,
) -> Option<Vec<usize>> {
    if !fp.sound {
        return None;
    }
    let enabled = ready
        .iter()
        .filter(|x| matches!(x.1, Standing::Enabled | Standing::Beyond))
        .count();
    let mut best: Option<Vec<usize>> = None;
    for (seed, _) in ready
        .iter()
        .enumerate()
        .filter(|(_, x)| x.1 == Standing::Enabled)
    {
        let Some(set) = close(ops, fp, ready, seed, &mut outside) else {
            continue;
        };
        if best.as_ref().is_none_or(|b| set.len() < b.len()) {
            let one = set.len() == 1;
            best = Some(set);
            if one {
                break;
            }
        }
    }
    best.filter(|b| b.len() < enabled)
}

/// The persistent set closed from `ready[seed]`: its enabled ops, or `None` where it holds an
/// op [`Standing::Beyond`] or [`Standing::Outside`]. What the ops outside it can do to a
/// barrier ([`Outside`], asked of the executions that do not run the seed — a superset of
/// those that run no op of the set) is asked once, at the first arrive or wait taken.
fn close(
    ops: &impl Ops,
    fp: &Footprints,
    ready: &[(EventId, Standing)],
    seed: usize,
    outside: &mut impl FnMut(usize) -> Option<Outside>,
) -> Option<Vec<usize>> {
    let mut known: Option<Option<Outside>> = None;
    let mut taken = vec![false; ready.len()];
    let mut work = vec![seed];
    if let Some(t) = taken.get_mut(seed) {
        *t = true;
    }
    let mut out = Vec::new();
    while let Some(i) = work.pop() {
        let &(r, standing) = ready.get(i)?;
        match standing {
            Standing::Beyond | Standing::Outside => return None,
            Standing::Enabled => out.push(i),
            Standing::Blocked => {}
        }
        let kind = ops.kind(r);
        // An arrive that commutes with whatever the outside does to its barrier, a wait on a
        // barrier whose phase the outside cannot complete: independent of every op outside.
        let alone = match kind {
            Some(EventKind::Arrive { barrier, count, .. }) => Some((barrier.0, Some(*count))),
            Some(EventKind::CompleteTx { barrier, .. }) => Some((barrier.0, Some(0))),
            Some(EventKind::Wait { barrier, .. }) => Some((barrier.0, None)),
            _ => None,
        }
        .is_some_and(|(b, arrivals)| {
            let bound = known.get_or_insert_with(|| outside(seed)).as_ref();
            bound.is_some_and(|o| match arrivals {
                Some(c) => o.commutes(b, i64::from(c)),
                None => o.quiet(b),
            })
        });
        let brings = |x: EventId| -> bool {
            match kind {
                _ if alone => false,
                Some(EventKind::Arrive { barrier, .. } | EventKind::CompleteTx { barrier, .. }) => {
                    fp.touches(x, barrier.0)
                }
                Some(EventKind::Wait { barrier, .. }) => fp.arrives(x, barrier.0),
                Some(EventKind::Sync { .. }) if standing == Standing::Blocked => ops
                    .members(r)
                    .is_some_and(|members| members.iter().any(|&m| fp.after(x, m))),
                _ => false,
            }
        };
        for (j, &(x, _)) in ready.iter().enumerate() {
            if taken.get(j) == Some(&false) && brings(x) {
                if let Some(t) = taken.get_mut(j) {
                    *t = true;
                }
                work.push(j);
            }
        }
    }
    Some(out)
}
