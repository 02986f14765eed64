//! [`explore`]: every interleaving of a small [`Trace`], the oracle the static check is held
//! against (`docs/hazard-check.md`, *The explorer*).

use std::collections::{BTreeSet, HashSet};

use super::error::HazardError;
use super::fingerprint::fingerprint;
use super::machine::{Fault, Machine};
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
    let mut out = Exploration::default();
    let mut seen = HashSet::new();
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
        let enabled = m.enabled_events();
        if enabled.is_empty() {
            out.stuck.extend(trace.ids().filter(|&e| !m.ran(e)));
            continue;
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
