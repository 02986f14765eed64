//! The mbarrier machine the explorer branches (`alias_alloc::hazard::Machine`), step by step on
//! hand-built traces: which events may run, where a stuck execution waits, a named barrier's
//! group, and a barrier's phases.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{Cells, Fault, Machine, Space, TraceBuilder};
use test_support::pipelines::{arrived_twice, handoff};

/// `bar.sync 1, 2` in two partitions, the consumer's after a store: the sync runs only when
/// both members may, appears once among the enabled events (by its first member), and runs
/// both members at once.
#[test]
fn a_named_barrier_waits_for_every_member() {
    let mut t = TraceBuilder::new();
    let (p, c) = (t.partition("producer"), t.partition("consumer"));
    let p_sync = t.named_barrier(p, "bar.sync 1", 1, 2).unwrap();
    let store = t
        .access(c, "local_store", Cells::range(Space::Smem, 0, 64), true)
        .unwrap();
    let c_sync = t.named_barrier(c, "bar.sync 1", 1, 2).unwrap();
    let trace = t.build().unwrap();
    let mut m = Machine::new(&trace);
    assert!(!m.enabled(p_sync) && !m.enabled(c_sync));
    assert_eq!(m.enabled_events(), vec![store]);
    // Not run, predecessors run: the producer's sync and the store (the consumer's sync
    // still waits for the store).
    assert_eq!(m.blocked(), vec![p_sync, store]);
    assert!(m.step(store));
    assert!(m.ran(store) && !m.ran(p_sync));
    assert_eq!(m.blocked(), vec![p_sync, c_sync]);
    assert!(m.enabled(p_sync) && m.enabled(c_sync));
    assert_eq!(m.enabled_events(), vec![p_sync]);
    assert!(m.step(p_sync));
    assert!(m.ran(p_sync) && m.ran(c_sync) && m.finished());
    assert_eq!(m.blocked(), vec![]);
    assert_eq!(m.schedule, vec![store, p_sync, c_sync]);
}

/// A barrier of count 1 completes a phase per arrival; a wait for phase 0 passes once phase
/// 0 completed, and not after phase 1 also completed (the parity is back at 0).
#[test]
fn a_barrier_counts_its_phases() {
    let (trace, full, [first, second, wait]) = arrived_twice().unwrap();
    let mut m = Machine::new(&trace);
    let phases = |m: &Machine<'_>| m.barrier(full).map(|b| (b.completed, b.pending));
    assert_eq!(phases(&m), Some((0, 1)));
    assert!(!m.enabled(wait));
    assert!(m.step(first));
    assert_eq!(phases(&m), Some((1, 1)));
    assert!(m.enabled(wait));
    assert!(m.step(second));
    assert_eq!(phases(&m), Some((2, 1)));
    assert!(!m.enabled(wait) && !m.step(wait));
    assert_eq!(m.blocked(), vec![wait]);
    assert!(!m.finished());
}

/// `run_greedy` runs what `allowed` lets through and nothing else, even the event it prefers,
/// and a second run on the same machine picks up where the first stopped.
#[test]
fn greedy_runs_respect_allowed_and_resume() {
    let (trace, [store, arrive, wait, load]) = handoff().unwrap();
    let successors = trace.successors();
    let mut m = Machine::new(&trace);
    // The store is preferred but not allowed: nothing else may run before it.
    m.run_greedy(&successors, |e| e != store, Some(store), |m| m.finished());
    assert!(m.schedule.is_empty() && !m.ran(store));
    // Up to the store, then the rest (the arrive's predecessor ran in the earlier run):
    // waits first, as soon as they may pass.
    m.run_greedy(&successors, |_| true, None, |m| m.ran(store));
    assert_eq!(m.schedule, vec![store]);
    m.run_greedy(&successors, |_| true, None, |m| m.finished());
    assert_eq!(m.schedule, vec![store, arrive, wait, load]);
    assert!(m.races.is_empty());
}

/// A chooser may pick an event that cannot run yet: it is set aside and the run goes on while
/// some event in the ready sets may run, and stops when none may.
#[test]
fn a_pick_that_cannot_run_is_set_aside() {
    let mut t = TraceBuilder::new();
    let (p, c) = (t.partition("producer"), t.partition("consumer"));
    let full = t.barrier("full", 1).unwrap();
    let arrive = t.arrive(p, "arrive_barrier", full, 1).unwrap();
    let wait = t.wait(c, "wait_barrier", full, 0).unwrap();
    let trace = t.build().unwrap();
    let successors = trace.successors();
    // First the wait (its phase has not completed), then whatever may run.
    let mut m = Machine::new(&trace);
    let mut picks = 0;
    m.run_with(
        &successors,
        |_| true,
        |m| m.finished(),
        |m, waits, others| {
            picks += 1;
            if picks == 1 {
                return Some(wait);
            }
            waits.iter().chain(others).copied().find(|&e| m.enabled(e))
        },
    );
    assert_eq!(m.schedule, vec![arrive, wait]);
    // Always the wait, and the arrive is not allowed: nothing may run, the run stops.
    let mut m = Machine::new(&trace);
    m.run_with(
        &successors,
        |e| e != arrive,
        |m| m.finished(),
        |_, _, _| Some(wait),
    );
    assert!(m.schedule.is_empty() && !m.finished());
}

/// An arrival past the count of the current phase is a fault (the arrive and the barrier);
/// arrivals that exactly complete a phase are not.
#[test]
fn too_many_arrivals_is_a_fault() {
    let mut t = TraceBuilder::new();
    let (p, q) = (t.partition("producer"), t.partition("other producer"));
    let full = t.barrier("full", 2).unwrap();
    let exact = t.arrive(p, "arrive 2 of 2", full, 2).unwrap();
    let over = t.arrive(q, "arrive 3 of 2", full, 3).unwrap();
    let trace = t.build().unwrap();
    let mut m = Machine::new(&trace);
    assert!(m.step(exact));
    assert!(m.faults.is_empty());
    assert_eq!(
        m.barrier(full).map(|b| (b.completed, b.pending)),
        Some((1, 2))
    );
    assert!(m.step(over));
    assert_eq!(
        m.faults,
        vec![Fault::TooManyArrivals {
            event: over,
            barrier: full
        }]
    );
}

/// The chooser is offered exactly the ready events: not run, every predecessor run (what
/// `blocked` lists), waits apart from the rest — on a fresh machine and on one resumed.
#[test]
fn the_chooser_is_offered_the_ready_events() {
    let (trace, [store, _, wait, _]) = handoff().unwrap();
    let successors = trace.successors();
    let mut m = Machine::new(&trace);
    let mut offered = Vec::new();
    let mut choose = |m: &Machine<'_>,
                      waits: &std::collections::BTreeSet<_>,
                      others: &std::collections::BTreeSet<_>| {
        let ready: Vec<_> = waits.iter().chain(others).copied().collect();
        let mut blocked = m.blocked();
        blocked.sort();
        let mut sorted = ready.clone();
        sorted.sort();
        assert_eq!(sorted, blocked);
        assert!(waits.iter().all(|&w| w == wait) && !others.contains(&wait));
        offered.push(ready.len());
        ready.into_iter().find(|&e| m.enabled(e))
    };
    m.run_with(&successors, |_| true, |m| m.ran(store), &mut choose);
    m.run_with(&successors, |_| true, |m| m.finished(), &mut choose);
    assert!(m.finished());
    assert_eq!(offered, vec![2, 2, 1, 1]);
}
