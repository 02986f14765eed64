//! The static hazard check against the explorer (`docs/hazard-check.md`): on small random
//! pipelines with aliased buffers, every race some interleaving has is not `verified`, every
//! `hazard` is a race the explorer finds, and a wait the check says never completes leaves
//! some execution stuck.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{check, explore, explore_reduced, Proof, Trace, Verdict};
use proptest::prelude::*;
use test_support::pipelines::{
    arrived_twice, fan_in, generate, handoff, shape, Mutation, Pipeline,
};
use test_support::random_tree::{Choices, XorShift};

const BUDGET: usize = 200_000;

/// Holds the check against the explorer on one trace; returns (pairs, hazards, unknowns,
/// pairs the static relation left to the search).
fn agree(p: &Pipeline, trace: &Trace) -> (usize, usize, usize, usize) {
    let found = explore(trace, BUDGET).unwrap_or_else(|e| panic!("{e}: {p:#?}"));
    let report = check(trace);
    let name = |e: alias_alloc::hazard::EventId| trace.events[e.0].label.clone();
    for &(a, b) in &found.races {
        let v = report.pairs.iter().find(|(pair, _)| *pair == (a, b));
        assert!(
            !matches!(v, Some((_, Verdict::Verified(_)))),
            "verified, but the explorer races\n  {}\n  {}\n{p:#?}",
            name(a),
            name(b)
        );
    }
    for (a, b) in report.hazards() {
        assert!(
            found.races.contains(&(a, b)),
            "a hazard the explorer never runs into\n  {}\n  {}\n{p:#?}",
            name(a),
            name(b)
        );
    }
    if report.hang.is_some() {
        assert!(
            !found.stuck.is_empty(),
            "a hang the explorer never runs into\n{p:#?}"
        );
    }
    if !report.happens_before.never_complete.is_empty() {
        assert!(
            !found.stuck.is_empty(),
            "a wait that never completes, yet no execution is stuck\n{p:#?}"
        );
    }
    for f in &report.faults {
        assert!(
            found.faults.contains(f),
            "an arrival past its phase the explorer never runs into: {f:?}\n{p:#?}"
        );
    }
    let searched = report
        .pairs
        .iter()
        .filter(|(_, v)| matches!(v, Verdict::Verified(Proof::Exhaustive)))
        .count();
    (
        report.pairs.len(),
        report.hazards().count(),
        report.unknowns().count(),
        searched,
    )
}

#[test]
fn every_correct_shape_is_verified_and_race_free() {
    for kind in 0..7 {
        for slots in 1..=3 {
            for iterations in 2..=4 {
                for aliased in [true, false] {
                    let p = shape(kind, slots, iterations, aliased);
                    let trace = p.trace().unwrap();
                    let found = explore(&trace, BUDGET).unwrap();
                    assert!(found.races.is_empty() && found.stuck.is_empty(), "{p:#?}");
                    let report = check(&trace);
                    assert!(report.all_verified(), "{:?}\n{p:#?}", report.pairs);
                    assert!(report.stale_waits.is_empty(), "{p:#?}");
                    // …by the static relation alone, not by the search's fallback.
                    for (pair, v) in &report.pairs {
                        assert!(
                            matches!(v, Verdict::Verified(Proof::Ordered { .. })),
                            "{pair:?} {v:?}\n{p:#?}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn the_check_agrees_with_the_explorer_on_seeded_pipelines() {
    let mut rng = XorShift(0x5eed_7a11);
    let (mut programs, mut pairs, mut hazards, mut unknowns, mut buggy, mut searched) =
        (0, 0, 0, 0, 0, 0);
    for _ in 0..400 {
        let (p, m) = generate(&mut rng);
        let trace = p.trace().unwrap();
        let (n, h, u, s) = agree(&p, &trace);
        searched += s;
        programs += 1;
        pairs += n;
        hazards += h;
        unknowns += u;
        buggy += usize::from(m.is_some());
    }
    eprintln!("{programs} programs ({buggy} mutated): {pairs} pairs, {hazards} hazards, {unknowns} unknown, {searched} verified by search");
    assert!(hazards > 0 && buggy > 100);
    assert!(
        unknowns * 20 <= pairs,
        "{unknowns} of {pairs} pairs unknown"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn the_check_agrees_with_the_explorer(data in proptest::collection::vec(any::<u32>(), 0..8)) {
        let (p, _) = generate(&mut Choices::new(&data));
        let trace = p.trace().unwrap();
        agree(&p, &trace);
    }
}

#[test]
fn each_mutation_is_caught_somewhere() {
    for m in Mutation::ALL {
        let mut caught = 0;
        for kind in 0..7 {
            for at in 0..6 {
                let mut p = shape(kind, 2, 4, true);
                if !p.mutate(m, at) {
                    continue;
                }
                let trace = p.trace().unwrap();
                let report = check(&trace);
                caught += usize::from(!report.all_verified());
            }
        }
        assert!(caught > 0, "{m:?} never flagged");
    }
}

#[test]
fn a_constant_phase_on_a_loop_wait_is_a_stale_wait() {
    // One slot, three iterations: the consumer's wait on `full` with a constant phase waits for
    // the parity it already saw.
    let mut p = shape(0, 1, 3, true);
    assert!(p.mutate(Mutation::ConstPhase, 1));
    let report = check(&p.trace().unwrap());
    assert_eq!(report.stale_waits.len(), 2, "{p:#?}"); // iterations 1 and 2
}

/// The explorer visits at most `budget` states: a budget of exactly the states a full
/// exploration visits is enough, one less is a `Budget` error naming both.
#[test]
fn the_explorer_stops_at_its_budget() {
    use alias_alloc::hazard::HazardError;
    let (trace, _) = handoff().unwrap();
    let whole = explore(&trace, BUDGET).unwrap();
    assert!(whole.races.is_empty() && whole.stuck.is_empty());
    // Accesses run as soon as they may (they commute with everything), so only the arrive
    // and the wait branch: the state after the store, and the one after the arrive.
    assert_eq!(whole.states, 2);
    assert_eq!(explore(&trace, whole.states).unwrap(), whole);
    assert_eq!(
        explore(&trace, whole.states - 1).unwrap_err(),
        HazardError::Budget {
            states: whole.states,
            budget: whole.states - 1
        }
    );
}

/// A producer arrives twice on a barrier of count 1; the consumer waits for phase 0. If it
/// waits between the arrives it passes; after both, the barrier is back at parity 0 and the
/// wait never completes. Random executions find both, each run drawing from xorshift64
/// (13, 7, 17): three draws per run here, the second choosing between the wait (even) and the
/// second arrive (odd).
#[test]
fn sampling_draws_schedules_at_random() {
    use alias_alloc::hazard::{random_run, sample, EventId, Machine};
    let (trace, _, [first, second, wait]) = arrived_twice().unwrap();
    assert_eq!(explore(&trace, BUDGET).unwrap().stuck, [wait].into());
    // Which runs pass, from the generator alone: run i passes iff its second draw is even.
    let passes = |state: u64, runs: usize| -> Vec<bool> {
        let mut x = XorShift(state);
        (0..runs)
            .map(|_| {
                let draws: Vec<u64> = (0..3)
                    .map(|_| {
                        x.next_u64();
                        x.0
                    })
                    .collect();
                draws[1].is_multiple_of(2)
            })
            .collect()
    };
    let successors = trace.successors();
    let fresh = Machine::new(&trace);
    let mut state = 1;
    for (run, pass) in passes(1, 16).into_iter().enumerate() {
        let m = random_run(fresh.restart(), &successors, &mut state);
        let schedule: Vec<EventId> = if pass {
            vec![first, wait, second]
        } else {
            vec![first, second]
        };
        assert_eq!((m.finished(), &m.schedule), (pass, &schedule), "run {run}");
    }
    // `sample` starts from `seed | 1` (xorshift stays at 0 from 0), counts every step and
    // reports the wait stuck; an even seed and its odd neighbour draw the same runs.
    for seed in [0, 1, 2, 3, 7] {
        let runs = passes(seed | 1, 32);
        assert!(runs.contains(&true) && runs.contains(&false), "seed {seed}");
        let found = sample(&trace, 32, seed);
        let steps: usize = runs.iter().map(|&pass| if pass { 3 } else { 2 }).sum();
        assert_eq!(found.states, steps, "seed {seed}");
        assert_eq!(found.stuck, [wait].into(), "seed {seed}");
        assert!(found.races.is_empty() && found.faults.is_empty());
    }
}

/// Per trip count the verdict is not periodic: a slot shift in a ring of 3 barriers that no
/// interleaving runs into at 4 laps races at 10 (= 4 + P, P = 6) — it needs a fifth lap (two
/// such mutants of shape 5, wrong at every count from 5). The sweep's trip counts (4 … 9)
/// reach it, and the static check flags it there.
#[test]
fn a_slot_shift_can_need_more_laps_than_the_ring() {
    let wrong = |p: &mut Pipeline, t: u32| {
        p.iterations = t;
        let trace = p.trace().unwrap();
        let found = explore(&trace, BUDGET).unwrap();
        !found.races.is_empty() || !found.stuck.is_empty() || !found.faults.is_empty()
    };
    let mut seen = 0;
    for kind in 0..7 {
        for at in 0..16 {
            let mut p = shape(kind, 3, 4, true);
            if !p.mutate(Mutation::SlotPlusOne, at) || wrong(&mut p, 4) || !wrong(&mut p, 10) {
                continue;
            }
            seen += 1;
            let swept: Vec<u32> = (5..10).filter(|&t| wrong(&mut p, t)).collect();
            eprintln!("kind {kind}, at {at}: wrong at {swept:?} of 5..9");
            assert!(!swept.is_empty(), "{p:#?}");
            p.iterations = swept[0];
            let report = check(&p.trace().unwrap());
            assert!(
                !report.all_verified() || report.hang.is_some(),
                "not flagged at {} laps: {p:#?}",
                swept[0]
            );
        }
    }
    assert!(seen > 0, "no slot shift that needs more laps than 4");
}

/// The explorer up to the order of independent events (`explore_reduced`: persistent sets,
/// arrivals that commute) finds what running every enabled event finds — the same races,
/// stuck events and faults — on the seeded pipelines, correct and with every seeded bug, in no
/// more states.
#[test]
fn the_reduced_explorer_finds_what_every_interleaving_finds() {
    let mut rng = XorShift(0x7e1e_c7ed);
    let (mut compared, mut wrong, mut fewer, mut states, mut reduced) = (0, 0, 0, 0, 0);
    let mut pipelines: Vec<Pipeline> = (0..300).map(|_| generate(&mut rng).0).collect();
    // Many threads arriving on one barrier: 2 to 4 consumers, the count right, short, over,
    // and every seeded bug at two places.
    for k in 2..=4usize {
        let right = k as u32;
        for count in [right, right - 1, right + 1] {
            pipelines.push(fan_in(k, 1, count));
        }
        for m in Mutation::ALL {
            for at in [0, 3] {
                let mut p = fan_in(k, 2, right);
                if p.mutate(m, at) {
                    pipelines.push(p);
                }
            }
        }
    }
    for p in pipelines {
        let trace = p.trace().unwrap();
        let (Ok(every), Ok(less)) = (explore(&trace, BUDGET), explore_reduced(&trace, BUDGET))
        else {
            continue;
        };
        assert_eq!(less.races, every.races, "{p:#?}");
        assert_eq!(less.stuck, every.stuck, "{p:#?}");
        assert_eq!(less.faults, every.faults, "{p:#?}");
        assert!(less.states <= every.states, "{p:#?}");
        compared += 1;
        wrong += usize::from(
            !every.races.is_empty() || !every.stuck.is_empty() || !every.faults.is_empty(),
        );
        fewer += usize::from(less.states < every.states);
        states += every.states;
        reduced += less.states;
    }
    eprintln!("{compared} pipelines compared ({wrong} going wrong), {fewer} in fewer states: {reduced} states against {states}");
    assert!(
        compared >= 300 && wrong >= 100 && fewer >= 150,
        "{compared} compared, {wrong} wrong, {fewer} fewer"
    );
}
