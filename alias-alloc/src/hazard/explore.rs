//! [`explore`]: every interleaving of a small [`Trace`], the oracle the static check is held
//! against (`docs/hazard-check.md`, *The explorer*).

use std::collections::{BTreeSet, HashSet};

use super::error::HazardError;
use super::fingerprint::fingerprint;
use super::machine::{Fault, Machine};
use super::outside::outside_of_machine;
use super::persistent::{persistent, Footprints, Ops, Standing};
use super::trace::{EventId, Trace};

/// What every execution of a trace can do.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Exploration {
    /// Conflicting pairs `(a, b)`, `a < b`, unordered in some execution.
    pub races: BTreeSet<(EventId, EventId)>,
    /// Events that some execution never runs because it is stuck (empty: no deadlock).
    pub stuck: BTreeSet<EventId>,
    /// Protocol faults some execution runs into.
    pub faults: BTreeSet<Fault>,
    /// States visited.
    pub states: usize,
}

/// Runs every interleaving of `trace`, visiting at most `budget` states (each remembered by
/// a 128-bit fingerprint of what decides its future, `fingerprint.rs`).
///
/// ```
/// use alias_alloc::hazard::{explore, Cells, Space, TraceBuilder};
/// let mut t = TraceBuilder::new();
/// let (p, c) = (t.partition("producer"), t.partition("consumer"));
/// let full = t.barrier("full", 1)?;
/// let tile = Cells::range(Space::Smem, 0, 64);
/// t.access(p, "local_store", tile.clone(), true)?;
/// t.arrive(p, "arrive_barrier", full, 1)?;
/// t.access(c, "local_load", tile.clone(), false)?; // before the wait: a race
/// t.wait(c, "wait_barrier", full, 0)?;
/// let found = explore(&t.build()?, 10_000)?;
/// assert_eq!(found.races.len(), 1);
/// assert!(found.stuck.is_empty());
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn explore(trace: &Trace, budget: usize) -> Result<Exploration, HazardError> {
    search(trace, budget, false)
}

/// [`explore`] up to the order of independent events: in each state only a persistent set of
/// the enabled events runs (`persistent.rs`, `outside.rs`) — every execution is, up to
/// swapping independent neighbours, one that starts in it. The trace is finite, so every
/// class of equivalent complete executions keeps a representative: the same races, stuck
/// events and faults as [`explore`], in fewer states (what [`TripCountProof`] runs at the
/// trip counts below its least).
///
/// [`TripCountProof`]: super::TripCountProof
///
/// ```
/// use alias_alloc::hazard::{explore, explore_reduced, Cells, Space, TraceBuilder};
/// // Three consumers free one slot together (count 3); the producer refills it.
/// let mut t = TraceBuilder::new();
/// let p = t.partition("producer");
/// let (full, empty) = (t.barrier("full", 1)?, t.barrier("empty", 3)?);
/// let slot = Cells::range(Space::Smem, 0, 64);
/// let consumers: Vec<_> = (0..3).map(|_| t.partition("consumer")).collect();
/// for i in 0..2u8 {
///     t.wait(p, "wait empty", empty, 1 - i)?;
///     t.access(p, "local_store", slot.clone(), true)?;
///     t.arrive(p, "arrive full", full, 1)?;
/// }
/// for &c in &consumers {
///     for i in 0..2u8 {
///         t.wait(c, "wait full", full, i)?;
///         t.access(c, "local_load", slot.clone(), false)?;
///         t.arrive(c, "arrive empty", empty, 1)?;
///     }
/// }
/// let trace = t.build()?;
/// let (every, reduced) = (explore(&trace, 100_000)?, explore_reduced(&trace, 100_000)?);
/// assert_eq!((every.races.len(), every.stuck.len()), (0, 0));
/// assert_eq!((&reduced.races, &reduced.stuck, &reduced.faults), (&every.races, &every.stuck, &every.faults));
/// assert!(reduced.states < every.states); // the consumers' arrivals need not be ordered
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn explore_reduced(trace: &Trace, budget: usize) -> Result<Exploration, HazardError> {
    search(trace, budget, true)
}

fn search(trace: &Trace, budget: usize, reduce: bool) -> Result<Exploration, HazardError> {
    let mut out = Exploration::default();
    let mut seen = HashSet::new();
    let reduction = reduce.then(|| (Footprints::of_trace(trace), trace.successors()));
    let mut stack = vec![Machine::new(trace)];
    while let Some(mut m) = stack.pop() {
        m.run_accesses(|_| true);
        for &(a, b) in &m.races {
            out.races.insert((a.min(b), a.max(b)));
        }
        out.faults.extend(m.faults.iter().copied());
        if m.finished() || !seen.insert(fingerprint(&m.key())) {
            continue;
        }
        out.states += 1;
        if out.states > budget {
            return Err(HazardError::Budget {
                states: out.states,
                budget,
            });
        }
        let mut enabled = m.enabled_events();
        if enabled.is_empty() {
            out.stuck.extend(trace.ids().filter(|&e| !m.ran(e)));
            continue;
        }
        if let Some((fp, successors)) = &reduction {
            // (the state space is acyclic — every step runs an event —: no cycle proviso)
            let ready: Vec<(EventId, Standing)> = m
                .blocked()
                .into_iter()
                .map(|e| {
                    let standing = if enabled.contains(&e) {
                        Standing::Enabled
                    } else {
                        Standing::Blocked
                    };
                    (e, standing)
                })
                .collect();
            let chosen = persistent(trace, fp, &ready, |seed| {
                let &(e, _) = ready.get(seed)?;
                let frozen = trace
                    .members(e)
                    .map_or_else(|| vec![e], <[EventId]>::to_vec);
                Some(outside_of_machine(&m, trace, successors, &frozen))
            });
            if let Some(chosen) = chosen {
                let keep: Vec<EventId> = chosen
                    .iter()
                    .filter_map(|&i| ready.get(i).map(|x| x.0))
                    .collect();
                enabled.retain(|e| keep.contains(e));
            }
        }
        for e in enabled {
            let mut next = m.clone();
            next.races.clear();
            next.faults.clear();
            next.step(e);
            stack.push(next);
        }
    }
    Ok(out)
}

/// `runs` random executions of `trace`, seeded: each step picks uniformly among the events that
/// may run. What they find is real — every race and every stuck state happened in an
/// execution — but what they miss is not proved absent (that is [`explore`]'s job, on small
/// traces). `states` counts the steps taken.
///
/// ```
/// use alias_alloc::hazard::{sample, Cells, Space, TraceBuilder};
/// let mut t = TraceBuilder::new();
/// let (p, c) = (t.partition("producer"), t.partition("consumer"));
/// let tile = Cells::range(Space::Smem, 0, 64);
/// t.access(p, "local_store", tile.clone(), true)?;
/// t.access(c, "local_load", tile, false)?; // nothing orders them
/// assert_eq!(sample(&t.build()?, 4, 1).races.len(), 1);
/// # Ok::<(), alias_alloc::hazard::HazardError>(())
/// ```
pub fn sample(trace: &Trace, runs: usize, seed: u64) -> Exploration {
    let successors = trace.successors();
    let mut out = Exploration::default();
    let mut state = seed | 1;
    let fresh = Machine::new(trace);
    for _ in 0..runs {
        let m = random_run(fresh.restart(), &successors, &mut state);
        out.states += m.schedule.len();
        for &(a, b) in &m.races {
            out.races.insert((a.min(b), a.max(b)));
        }
        out.faults.extend(m.faults.iter().copied());
        if !m.finished() {
            out.stuck.extend(trace.ids().filter(|&e| !m.ran(e)));
        }
    }
    out
}

/// One execution from `start` (a fresh [`Machine`]), picking uniformly among the events that
/// may run, from the xorshift state `state` (advanced). `successors` is
/// [`Trace::successors`].
pub fn random_run<'t>(
    start: Machine<'t>,
    successors: &[Vec<EventId>],
    state: &mut u64,
) -> Machine<'t> {
    let mut m = start;
    m.run_with(
        successors,
        |_| true,
        |m| m.finished(),
        |m, waits, others| {
            let ready: Vec<EventId> = waits
                .iter()
                .chain(others.iter())
                .copied()
                .filter(|&e| m.enabled(e))
                .collect();
            *state ^= *state << 13;
            *state ^= *state >> 7;
            *state ^= *state << 17;
            let k = usize::try_from(*state % (ready.len().max(1) as u64)).unwrap_or(0);
            ready.get(k).copied()
        },
    );
    m
}
