//! The loop at every trip count (`hazard::Looped`, `docs/hazard-check.md`, *Every trip count*)
//! against the explorer at each trip count, and what it proves of the sweep: on the seeded
//! pipelines, whatever goes wrong at any trip count goes wrong at one the sweep runs.
#![allow(clippy::restriction)] // test code: a failed check panics

use std::collections::BTreeSet;

use alias_alloc::hazard::{
    check, explore, kernel_laps, read_kernel, EventId, EveryTripCount, Exploration, KernelLaps,
    KernelTrace, Looped, ReadOptions, Run, Trace, TripCountProof, TripCounts, PROOF_BUDGET,
};
use test_support::pipelines::{fan_in, generate, shape, Mutation, Op, Phase, Pipeline};
use test_support::random_tree::{Source, XorShift};

const BUDGET: usize = 200_000;

/// Races as [`alias_alloc::hazard::EveryTripCount::races`] names them.
type LapRaces = BTreeSet<(EventId, EventId, u32)>;

/// The explorer at `n` laps, with each race named as `Looped` names it: the representatives
/// of both accesses, earlier lap first, and how many laps apart they are.
fn at(p: &mut Pipeline, looped: &Looped, n: u32) -> Option<(Exploration, LapRaces)> {
    p.iterations = n;
    let (trace, laps) = p.unrolled().unwrap();
    let found = explore(&trace, BUDGET / 4).ok()?;
    let mut position = vec![0usize; laps.len()];
    let mut seen = vec![0usize; n as usize];
    for (i, &l) in laps.iter().enumerate() {
        position[i] = seen[l as usize];
        seen[l as usize] += 1;
    }
    let name = |e: EventId| {
        (
            laps[e.0],
            looped.representative(laps[e.0], position[e.0]).unwrap(),
        )
    };
    let races = found
        .races
        .iter()
        .map(|&(a, b)| {
            let ((la, x), (lb, y)) = (name(a), name(b));
            let ((lx, x), (ly, y)) = if (la, x) <= (lb, y) {
                ((la, x), (lb, y))
            } else {
                ((lb, y), (la, x))
            };
            (x, y, ly - lx)
        })
        .collect();
    Some((found, races))
}

/// The pipeline unrolled at 2P … 3P − 1 laps: one run per residue of the trip count, each
/// with the epilogue of its residue.
fn unrolled_per_residue(p: &mut Pipeline) -> Vec<(Trace, Vec<u32>, u32)> {
    let big_p = p.period();
    (2 * big_p..3 * big_p)
        .map(|n| {
            p.iterations = n;
            let (trace, laps) = p.unrolled().unwrap();
            (trace, laps, n)
        })
        .collect()
}

fn runs(built: &[(Trace, Vec<u32>, u32)]) -> Vec<Run<'_>> {
    built
        .iter()
        .map(|(trace, laps, n)| Run {
            trace,
            laps,
            trip_count: *n,
        })
        .collect()
}

/// Whether the static check flags `p` at `n` laps: a pair not verified, a wait that never
/// completes, a hang.
fn flagged(p: &mut Pipeline, n: u32) -> bool {
    p.iterations = n;
    let report = check(&p.trace().unwrap());
    !report.all_verified()
        || !report.happens_before.never_complete.is_empty()
        || report.hang.is_some()
}

/// Whether some execution the explorer ran races, hangs or arrives past a phase.
fn goes_wrong(f: &Exploration) -> bool {
    !f.races.is_empty() || !f.stuck.is_empty() || !f.faults.is_empty()
}

/// Whatever the explorer finds at trip counts 1, 2, … (`found`), `every` finds.
fn finds_what_the_explorer_finds(
    every: &EveryTripCount,
    found: &[&Exploration],
    what: &dyn std::fmt::Debug,
) {
    for (n, f) in (1..).zip(found) {
        assert!(
            f.races.is_empty() || every.race_at.is_some(),
            "a race at {n}: {what:#?}"
        );
        assert!(
            f.faults.is_empty() || every.fault_at.is_some(),
            "a fault at {n}: {what:#?}"
        );
        assert!(
            f.stuck.is_empty() || every.stuck_at.is_some(),
            "stuck at {n}: {what:#?}"
        );
    }
}

#[test]
fn every_correct_shape_is_race_free_at_every_trip_count() {
    let mut states = 0;
    for kind in 0..7 {
        for slots in 1..=3 {
            for aliased in [false, true] {
                let mut p = shape(kind, slots, 0, aliased);
                p.iterations = 2 * p.period();
                let (trace, laps) = p.unrolled().unwrap();
                let every = Looped::new(&trace, &laps, p.period())
                    .unwrap()
                    .explore(BUDGET);
                assert!(every.complete && !every.goes_wrong(), "{every:?}\n{p:#?}");
                states += every.states;
            }
        }
    }
    let mut drained = 0;
    for kind in 0..7 {
        for slots in 1..=3 {
            for aliased in [false, true] {
                let mut p = shape(kind, slots, 0, aliased);
                if !p.drain_and_reuse() {
                    continue;
                }
                let built = unrolled_per_residue(&mut p);
                let every = Looped::runs(&runs(&built), p.period(), 0)
                    .unwrap()
                    .explore(BUDGET);
                assert!(every.complete && !every.goes_wrong(), "{every:?}\n{p:#?}");
                states += every.states;
                drained += 1;
            }
        }
    }
    eprintln!("42 correct pipelines and {drained} with an epilogue reusing the ring: no race, hang or fault at any trip count ({states} states)");
}

/// On seeded pipelines (rings of 1–3): what `Looped` finds at every trip count is what the
/// explorer finds at some trip count — each race, hang and fault it reports at the trip count
/// it names, each the explorer finds (up to two periods past the ring) among its findings —
/// and whatever goes wrong at any trip count goes wrong at one of the *P* the sweep runs
/// (*R* + 1 … *R* + *P*), where the static check flags it.
#[test]
fn what_goes_wrong_at_any_trip_count_goes_wrong_in_the_sweep() {
    let mut rng = XorShift(0x9e71_0d1c);
    let (mut judged, mut buggy, mut incomplete, mut undecided, mut over_budget, mut not_periodic) =
        (0, 0, 0, 0, 0, 0);
    let mut not_periodic_counts = 0;
    for _ in 0..150 {
        let (mut p, _) = generate(&mut rng);
        let r = p.barriers.iter().map(|b| b.slots).max().unwrap_or(1);
        let big_p = p.period();
        p.iterations = 2 * big_p;
        let (trace, laps) = p.unrolled().unwrap();
        let looped = match Looped::new(&trace, &laps, big_p) {
            Ok(l) => l,
            Err(e) => {
                eprintln!("not a periodic loop ({e}): {p:#?}");
                not_periodic += 1;
                continue;
            }
        };
        let every = looped.explore(BUDGET);
        incomplete += usize::from(!every.complete);
        let last = (r + 2 * big_p).max(every.race_at.unwrap_or(0));
        let runs: Option<Vec<_>> = (1..=last).map(|n| at(&mut p, &looped, n)).collect();
        let Some(runs) = runs else {
            over_budget += 1;
            continue;
        };
        let run = |n: u32| &runs[n as usize - 1];
        // What it reports happens at the trip count it names.
        if let Some(n) = every.race_at {
            assert!(!run(n).0.races.is_empty(), "no race at {n}: {p:#?}");
        }
        if let Some(n) = every.fault_at {
            assert!(!run(n).0.faults.is_empty(), "no fault at {n}: {p:#?}");
        }
        if let Some(n) = every.stuck_at.filter(|&n| n <= last) {
            assert!(!run(n).0.stuck.is_empty(), "not stuck at {n}: {p:#?}");
        }
        let all_races: BTreeSet<_> = runs.iter().flat_map(|x| x.1.iter().copied()).collect();
        // (a pair d laps apart whose first access is in the first two periods fits in 2P + d laps)
        let near: BTreeSet<_> = every
            .races
            .iter()
            .copied()
            .filter(|&(_, _, d)| d.checked_add(2 * big_p).is_some_and(|n| n <= last))
            .collect();
        assert!(
            near.is_subset(&all_races),
            "{near:?} not in {all_races:?}: {p:#?}"
        );
        // What the explorer finds at some trip count, it finds.
        let found: Vec<&Exploration> = runs.iter().map(|x| &x.0).collect();
        finds_what_the_explorer_finds(&every, &found, &p);
        if !every.complete && !every.goes_wrong() {
            undecided += 1;
            continue;
        }
        // The sweep's trip counts see it, and the static check flags it there.
        let swept = r + 1..=r + big_p;
        let wrong = |n: u32| goes_wrong(&run(n).0);
        not_periodic_counts += swept
            .clone()
            .filter(|&n| wrong(n) != wrong(n + big_p))
            .count();
        let wrong_swept = swept.clone().any(wrong);
        assert_eq!(every.goes_wrong(), wrong_swept, "{every:?}\n{p:#?}");
        let flagged_swept = swept.into_iter().any(|n| flagged(&mut p, n));
        assert_eq!(wrong_swept, flagged_swept, "{p:#?}");
        judged += 1;
        buggy += usize::from(wrong_swept);
    }
    eprintln!("{judged} pipelines decided at every trip count ({buggy} racing, hanging or faulty), {incomplete} with a thread past {} periods ahead or over its budget ({undecided} of them undecided), {over_budget} over the explorer's budget, {not_periodic} not periodic; {not_periodic_counts} swept trip counts whose verdict differs P laps on", alias_alloc::hazard::DRIFT_PERIODS);
    assert!(
        judged >= 100 && buggy >= 40,
        "{judged} judged, {buggy} buggy"
    );
}

/// What is not a loop of the period given is refused, naming the event.
#[test]
fn what_does_not_repeat_is_refused() {
    use alias_alloc::hazard::HazardError;
    let mut p = shape(0, 2, 0, true); // a ring of 2: period 4
    p.iterations = 8;
    let (trace, laps) = p.unrolled().unwrap();
    let e = Looped::new(&trace, &laps, 2).unwrap_err();
    assert!(
        matches!(e, HazardError::NotPeriodic { period: 2, .. }),
        "{e}"
    );
    assert!(e.to_string().contains("do not repeat every 2 laps"), "{e}");
    let e = Looped::new(&trace, &laps[1..], 4).unwrap_err();
    assert!(matches!(e, HazardError::Laps { .. }), "{e}");
    let e = Looped::new(&trace, &laps, 8).unwrap_err(); // one period unrolled
    assert!(
        matches!(
            e,
            HazardError::Laps {
                unrolled: 8,
                period: 8,
                ..
            }
        ),
        "{e}"
    );
    assert!(Looped::new(&trace, &laps, 4).is_ok());
}

/// One change to the epilogue `Pipeline::drain_and_reuse` gives (or none); what it did.
fn mutate_epilogue(p: &mut Pipeline, which: u32) -> &'static str {
    match which % 7 {
        0 => "none",
        1 => {
            p.epilogue.remove(0);
            "no wait"
        }
        2..=4 => {
            if let Op::Wait { phase, .. } = &mut p.epilogue[0].1 {
                *phase = match which % 7 {
                    2 => Phase::Const(0),
                    3 => Phase::Const(1),
                    _ => Phase::Lap { flip: 0 },
                };
            }
            "a constant or flipped phase"
        }
        5 => {
            if let Op::Wait { shift, .. } = &mut p.epilogue[0].1 {
                *shift += 1;
            }
            "the wait on the next slot"
        }
        _ => {
            if let Op::Access { shift, .. } = &mut p.epilogue[1].1 {
                *shift += 1;
            }
            "the write to the next slot"
        }
    }
}

/// With an epilogue that reuses the ring's bytes (`Pipeline::drain_and_reuse`), changed or
/// not: what `Looped` finds over every trip count is what the explorer finds at the trip count
/// it names, whatever the explorer finds at some trip count `Looped` finds, and whatever goes
/// wrong at any trip count goes wrong at one the sweep runs — though no longer at every larger
/// one (a constant phase after the loop is right at every other trip count).
#[test]
fn what_goes_wrong_after_the_loop_at_any_trip_count_goes_wrong_in_the_sweep() {
    let mut rng = XorShift(0x9e71_0d1c);
    let mut change = XorShift(0x0e91_1093);
    let (mut judged, mut buggy, mut not_monotone, mut undecided) = (0, 0, 0, 0);
    let mut over_budget = 0;
    for _ in 0..150 {
        let (mut p, _) = generate(&mut rng);
        if !p.drain_and_reuse() {
            continue;
        }
        let what = mutate_epilogue(&mut p, change.below(7));
        let r = p.barriers.iter().map(|b| b.slots).max().unwrap_or(1);
        let big_p = p.period();
        let built = unrolled_per_residue(&mut p);
        let every = Looped::runs(&runs(&built), big_p, 0)
            .unwrap_or_else(|e| panic!("{e}: {p:#?}"))
            .explore(BUDGET);
        let last = r + 2 * big_p;
        let mut flat = std::collections::BTreeMap::new();
        let mut at_n = |n: u32| -> Option<Exploration> {
            flat.entry(n)
                .or_insert_with(|| {
                    p.iterations = n;
                    explore(&p.trace().unwrap(), BUDGET / 4).ok()
                })
                .clone()
        };
        if let Some(n) = every.race_at {
            assert!(
                at_n(n).is_none_or(|f| !f.races.is_empty()),
                "no race at {n} ({what}): {p:#?}"
            );
        }
        if let Some(n) = every.fault_at {
            assert!(
                at_n(n).is_none_or(|f| !f.faults.is_empty()),
                "no fault at {n} ({what}): {p:#?}"
            );
        }
        if let Some(n) = every.stuck_at {
            assert!(
                at_n(n).is_none_or(|f| !f.stuck.is_empty()),
                "not stuck at {n} ({what}): {p:#?}"
            );
        }
        let Some(runs): Option<Vec<Exploration>> = (1..=last).map(&mut at_n).collect() else {
            over_budget += 1;
            continue;
        };
        let wrong: Vec<bool> = runs.iter().map(goes_wrong).collect();
        finds_what_the_explorer_finds(&every, &runs.iter().collect::<Vec<_>>(), &p);
        if !every.complete && !every.goes_wrong() {
            undecided += 1;
            continue;
        }
        let swept = (r + 1) as usize..=(r + big_p) as usize;
        let wrong_swept = swept.clone().any(|n| wrong[n - 1]);
        assert_eq!(
            every.goes_wrong(),
            wrong_swept,
            "({what}) {every:?}\n{p:#?}"
        );
        let flagged_swept = swept.into_iter().any(|n| flagged(&mut p, n as u32));
        assert_eq!(wrong_swept, flagged_swept, "({what}) {p:#?}");
        judged += 1;
        buggy += usize::from(wrong_swept);
        not_monotone += usize::from(wrong.windows(2).any(|w| w[0] && !w[1]));
    }
    eprintln!("{judged} pipelines with an epilogue decided at every trip count ({buggy} racing, hanging or faulty, {not_monotone} of them right at a trip count past one where they go wrong), {undecided} undecided, {over_budget} over the explorer's budget");
    assert!(
        judged >= 60 && buggy >= 20 && not_monotone > 0,
        "{judged} judged, {buggy} buggy, {not_monotone} not monotone"
    );
}

/// After the loop, a wait with a constant phase is right at every other trip count (as
/// `fa_clc`'s at line 631 made constant, `docs/hazard-check.md`): a one-slot ring whose producer
/// then reuses the slot, waiting on phase 0 for the consumer's last free, races (or hangs,
/// polled late) at every even trip count and at none odd. `Looped` finds it over every trip count, the explorer at each
/// even one only, the sweep's two trip counts include one.
#[test]
fn a_constant_phase_after_the_loop_races_at_every_other_trip_count() {
    let mut p = shape(0, 1, 0, true);
    assert!(p.drain_and_reuse());
    if let Op::Wait { phase, .. } = &mut p.epilogue[0].1 {
        *phase = Phase::Const(0);
    }
    let built = unrolled_per_residue(&mut p);
    let every = Looped::runs(&runs(&built), p.period(), 0)
        .unwrap()
        .explore(BUDGET);
    assert!(every.complete, "{every:?}");
    assert_eq!(every.race_at, Some(2), "{every:?}");
    // Polled after the last free, the wait sees an even count and never passes.
    assert!(every.stuck_at.is_some_and(|n| n % 2 == 0), "{every:?}");
    assert_eq!(every.fault_at, None, "{every:?}");
    for n in 1..=8 {
        p.iterations = n;
        let found = explore(&p.trace().unwrap(), BUDGET).unwrap();
        assert_eq!(
            !found.races.is_empty(),
            n % 2 == 0,
            "at {n} laps: {found:?}"
        );
        assert_eq!(
            !found.stuck.is_empty(),
            n % 2 == 0,
            "at {n} laps: {found:?}"
        );
        assert!(found.faults.is_empty(), "at {n} laps");
    }
    p.iterations = 2; // R + 1 … R + P = 2, 3
    assert!(!check(&p.trace().unwrap()).all_verified());
}

/// A kernel's runs as `Looped::runs` takes them.
fn kernel_as_runs(built: &[(KernelTrace, KernelLaps)]) -> Vec<Run<'_>> {
    built.iter().map(|(kt, cut)| cut.run(&kt.trace)).collect()
}

/// The options that read `text` at `laps` laps of its `N_CTX` loops (`ReadOptions::laps` takes
/// no fewer than R + 1).
fn n_ctx(text: &str, laps: u32) -> ReadOptions {
    let trips = TripCounts::new(text, &ReadOptions::default()).unwrap();
    trips.at_laps(&ReadOptions::default(), laps)
}

/// A real kernel cut into laps (`kernel_laps`): every partition's loop, its prologue and its
/// epilogue, read at `head + 2P + 1 … head + 3P` laps (one run per residue), then at `also`.
fn kernel_runs(
    kernel: &str,
    also: impl IntoIterator<Item = u32>,
) -> (u32, u32, Vec<(KernelTrace, KernelLaps)>) {
    let text = test_support::tlx_kernels::dump(kernel, "before");
    let period = TripCounts::new(&text, &ReadOptions::default())
        .unwrap()
        .period as u32;
    let head = kernel_laps(&read_kernel(&text, &ReadOptions::default()).unwrap())
        .unwrap()
        .head;
    let built = (head + 2 * period + 1..=head + 3 * period)
        .chain(also)
        .map(|n| {
            let kt = read_kernel(&text, &n_ctx(&text, n)).unwrap();
            let cut = kernel_laps(&kt).unwrap();
            assert_eq!(cut.trip_count + 1, n, "{kernel}");
            (kt, cut)
        })
        .collect();
    (period, head, built)
}

/// The sweep's premise on real kernels: read lap by lap, `fa_ws_pipelined` and
/// `fa_ws_legacy_reuse` repeat every 6 laps past a head of their prologues and first lap, with
/// an epilogue per residue (`Looped` accepts them; a budget of 1,000 states does not decide
/// them — the release test does, in 1,203 and 1,695). `fa_ws_pipelined_fp8` is decided: stuck at every trip
/// count (its `barrier_expect`s expect twice the bytes its copies bring, as the check reports).
/// `fa_bwd_1cta` is read as a loop too, past what a small budget follows; a loop in a loop
/// (`fa_clc`) is cut into tiles, and refused by the every-trip-count proof.
#[test]
fn real_kernels_read_lap_by_lap_repeat_with_their_period() {
    for (kernel, decided) in [
        ("fa_ws_pipelined", false),
        ("fa_ws_legacy_reuse", false),
        ("fa_ws_pipelined_fp8", true),
    ] {
        let (period, head, built) = kernel_runs(kernel, []);
        assert_eq!(period, 6, "{kernel}");
        let runs = kernel_as_runs(&built);
        let looped = Looped::runs(&runs, period, head).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let every = looped.explore(if decided { 10_000 } else { 1_000 });
        assert_eq!(every.complete, decided, "{kernel}: {every:?}");
        assert!(
            every.races.is_empty() && every.faults.is_empty(),
            "{kernel}: {every:?}"
        );
        // Looped's trip count leaves out the loop's last lap: 3 is the kernel's 4.
        assert_eq!(every.stuck_at, decided.then_some(3), "{kernel}: {every:?}");
    }
    // fa_bwd_1cta's TMA stores read on timelines of one lap each: read as a loop, but past
    // what the explorer follows here (each store's read is checked against the one before it
    // as it runs).
    let (period, head, built) = kernel_runs("fa_bwd_1cta", []);
    let runs = kernel_as_runs(&built);
    let every = Looped::runs(&runs, period, head).unwrap().explore(2_000);
    assert!(!every.complete && !every.goes_wrong(), "{every:?}");
    // fa_clc's partitions loop over tiles around their K loop: cut by the tile loop, a lap a
    // tile (clc_tiles = 2: the program's own tile and two handed out), and refused by the
    // every-trip-count proof, whose laps are the K loop's.
    let clc = test_support::tlx_kernels::dump("fa_clc", "before");
    let cut = kernel_laps(&read_kernel(&clc, &ReadOptions::default()).unwrap()).unwrap();
    assert_eq!((cut.trip_count, cut.head, cut.nested), (2, 1, true));
    let e = TripCountProof::new(&clc, &ReadOptions::default(), 1_000).unwrap_err();
    assert!(e.to_string().contains("a loop in a loop"), "{e}");
}

/// The laps of a real kernel follow its loops' induction variable: `cross_attention`'s two
/// softmax partitions step 256 from 0 and from 128 — they take turns, even laps and odd — while
/// its MMA and load partitions step 128 from 128 (their prologue does lap 0).
/// `cross_attention_pipeline`'s default partition runs no loop: it waits for the last
/// accumulator (a barrier only the MMA partition's epilogue commits to) and stores it, all in
/// the epilogue.
/// A loop-less partition that waits on what another loop-less one arrives on in its
/// epilogue is in the epilogue from that wait too: the split is found again until nothing
/// moves. A producer loops; `relay` waits for its `done` (the epilogue's) and arrives on
/// `ready`; `reader` waits on `ready` — found only once `relay` is split.
#[test]
fn a_chain_of_loop_less_partitions_waits_for_the_epilogue() {
    use alias_alloc::hazard::{Cells, Origin, Space, TraceBuilder};
    let mut b = TraceBuilder::new();
    let (producer, relay, reader) = (
        b.partition("producer"),
        b.partition("relay"),
        b.partition("reader"),
    );
    let (done, ready) = (
        b.barrier("done", 1).unwrap(),
        b.barrier("ready", 1).unwrap(),
    );
    let origin = |line: usize, induction: Vec<(i64, i64)>| Origin {
        op: format!("op{line}"),
        line,
        location: None,
        buffer: None,
        iteration: induction.iter().map(|x| x.0).collect(),
        induction,
    };
    let mut origins = Vec::new();
    let tile = Cells::range(Space::Smem, 0, 64);
    for i in 0..4 {
        b.access(producer, "store", tile.clone(), true).unwrap();
        origins.push(origin(1, vec![(i, 1)]));
    }
    b.arrive(producer, "arrive done", done, 1).unwrap();
    b.wait(relay, "wait done", done, 0).unwrap();
    b.arrive(relay, "arrive ready", ready, 1).unwrap();
    let wait = b.wait(reader, "wait ready", ready, 0).unwrap();
    let load = b.access(reader, "load", tile, false).unwrap();
    origins.extend((2..=6).map(|line| origin(line, Vec::new())));
    let kt = KernelTrace {
        trace: b.build().unwrap(),
        origins,
        params: Default::default(),
        seq_stride: None,
        tile: (0, 1),
        clc_tiles: 0,
    };
    let cut = kernel_laps(&kt).unwrap();
    assert_eq!(cut.trip_count, 3);
    assert_eq!((cut.laps[wait.0], cut.laps[load.0]), (3, 3));
}

#[test]
fn real_kernels_are_cut_by_their_induction_variable() {
    let text = test_support::tlx_kernels::dump("cross_attention", "before");
    let kt = read_kernel(&text, &n_ctx(&text, 7)).unwrap();
    let cut = kernel_laps(&kt).unwrap();
    assert_eq!((cut.trip_count, cut.head), (6, 2));
    let laps_of = |kt: &KernelTrace, cut: &KernelLaps, line: usize| -> Vec<u32> {
        let mut v: Vec<u32> = (0..kt.origins.len())
            .filter(|&e| kt.origins[e].line == line)
            .map(|e| cut.laps[e])
            .collect();
        v.dedup();
        v
    };
    // qk_fulls waits: the softmax partitions', the last lap with the epilogue (lap 6).
    assert_eq!(laps_of(&kt, &cut, 169), [0, 2, 4, 6]);
    assert_eq!(laps_of(&kt, &cut, 240), [1, 3, 5]);
    // The load partition's k_empty wait, from lap 1.
    let text = test_support::tlx_kernels::dump("cross_attention_pipeline", "before");
    let kt = read_kernel(&text, &n_ctx(&text, 7)).unwrap();
    let cut = kernel_laps(&kt).unwrap();
    assert_eq!((cut.trip_count, cut.head), (6, 2));
    assert_eq!(laps_of(&kt, &cut, 493), [1, 2, 3, 4, 5, 6]);
    // The default partition's wait on acc_empties[0] and its TMEM load: the epilogue.
    assert_eq!(laps_of(&kt, &cut, 109), [6]);
    assert_eq!(laps_of(&kt, &cut, 133), [6]);
    let first = (0..kt.origins.len())
        .find(|&e| kt.trace.events[e].timeline.0 == 0)
        .unwrap();
    assert_eq!(
        kt.origins[first].line, 109,
        "the default partition's first event"
    );
    // Without that wait, its first op runs in lap 0 and its wait at line 151 (on acc_empties[1],
    // committed after the loop) begins the epilogue: an epilogue op after a head op, as many
    // laps back as the trip count — refused.
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[108].contains("ttng.wait_barrier"));
    let without: String = lines
        .iter()
        .enumerate()
        .filter(|&(i, _)| i != 108)
        .map(|(_, l)| format!("{l}\n"))
        .collect();
    let e = TripCountProof::new(&without, &ReadOptions::default(), 1).unwrap_err();
    assert!(
        e.to_string()
            .contains("an epilogue op after an op of the head"),
        "{e}"
    );
}

/// Six real kernels proved at every trip count (`TripCountProof`, what `linalias check
/// --every-trip-count` prints): `Looped` decides every trip count from its least on — no race,
/// no hang, no arrival past a phase in any interleaving — and the explorer each one below.
/// 5 to 20 s each in release, many minutes in debug: `.ci/run` runs it with `--release
/// --ignored`.
#[test]
#[ignore = "minutes in debug; .ci/run runs it in release"]
fn real_kernels_are_race_free_at_every_trip_count() {
    let cross = &[18, 32, 46, 60][..];
    let pipeline = &[26, 44, 62][..];
    for (kernel, period, least, states, below) in [
        ("fa_ws_pipelined", 6, 4, 1_203, &[44, 74, 104][..]),
        ("fa_ws_legacy_reuse", 6, 3, 1_695, &[44, 76][..]),
        // Two softmax partitions taking turns (step 256 a lap of 128): 2 × lcm(2, 2·3, 2·2).
        ("cross_attention", 24, 5, 5_743, cross),
        ("cross_attention_m64", 24, 5, 5_743, cross),
        // A default partition without a loop, in the epilogue.
        ("cross_attention_pipeline", 4, 4, 1_366, pipeline),
        ("cross_attention_pipeline_n64", 4, 4, 1_366, pipeline),
        // Backward: TMA stores read on timelines of one lap, five partitions; past 2,000,000
        // states before persistent sets.
        ("fa_bwd_1cta", 4, 4, 6_901, &[129, 207, 285][..]),
        ("fa_bwd_1cta_hd64", 4, 4, 6_865, &[121, 199, 277][..]),
        (
            "fa_bwd_1cta_warp_barrier",
            4,
            4,
            5_881,
            &[111, 177, 243][..],
        ),
    ] {
        let text = test_support::tlx_kernels::dump(kernel, "before");
        let proof = TripCountProof::new(&text, &ReadOptions::default(), PROOF_BUDGET).unwrap();
        eprint!("{}", proof.text(kernel));
        assert_eq!((proof.period, proof.least), (period, least), "{kernel}");
        assert_eq!(proof.checked, (least, proof.model.1 + period), "{kernel}");
        assert!(
            proof.every.complete && !proof.every.goes_wrong(),
            "{kernel}"
        );
        assert_eq!(proof.every.states, states, "{kernel}");
        assert_eq!(explored_below(&proof), below, "{kernel}");
        assert_eq!(proof.exit_code(), 0, "{kernel}");
        assert_eq!(proof.summary(), "verified at every trip count");
    }
}

/// A ring of `slots` filled by a producer every lap and drained by two consumers taking turns
/// (A the even laps, B the odd, as `cross_attention`'s softmax partitions), unrolled at `n`
/// laps; after the loop A reuses the ring's bytes: it waits for slot `n mod slots` to be freed
/// (the wait the producer's lap `n` would take) and writes there. `variant` changes the
/// epilogue: 1 waits on the constant phase 0, 2 writes the next slot, 3 does not wait.
fn taking_turns(n: u32, slots: u32, variant: u32) -> (Trace, Vec<u32>) {
    use alias_alloc::hazard::{Cells, Space, TraceBuilder};
    let mut t = TraceBuilder::new();
    let producer = t.partition("producer");
    let consumers = [t.partition("A"), t.partition("B")];
    let full: Vec<_> = (0..slots)
        .map(|s| t.barrier(&format!("full[{s}]"), 1).unwrap())
        .collect();
    let empty: Vec<_> = (0..slots)
        .map(|s| t.barrier(&format!("empty[{s}]"), 1).unwrap())
        .collect();
    let slot = |i: u32| Cells::range(Space::Smem, u64::from(i % slots) * 128, 128);
    let phase = |i: u32| ((i / slots) & 1) as u8;
    let mut laps = Vec::new();
    for i in 0..n {
        let s = (i % slots) as usize;
        t.wait(producer, "wait empty", empty[s], phase(i) ^ 1)
            .unwrap();
        t.access(producer, "write", slot(i), true).unwrap();
        t.arrive(producer, "arrive full", full[s], 1).unwrap();
        laps.resize(t.len(), i);
    }
    for (k, &c) in consumers.iter().enumerate() {
        for i in (k as u32..n).step_by(2) {
            let s = (i % slots) as usize;
            t.wait(c, "wait full", full[s], phase(i)).unwrap();
            t.access(c, "read", slot(i), false).unwrap();
            t.arrive(c, "arrive empty", empty[s], 1).unwrap();
            laps.resize(t.len(), i);
        }
    }
    let [a, _] = consumers;
    if variant != 3 {
        let parity = if variant == 1 { 0 } else { phase(n) ^ 1 };
        t.wait(
            a,
            "epilogue: wait empty",
            empty[(n % slots) as usize],
            parity,
        )
        .unwrap();
    }
    let at = if variant == 2 { n + 1 } else { n };
    t.access(a, "epilogue: write", slot(at), true).unwrap();
    laps.resize(t.len(), n);
    (t.build().unwrap(), laps)
}

/// Partitions taking turns: the loop may end after either, so A's epilogue follows its own op
/// two laps back (`Looped`'s reach of 2, the case of `cross_attention`). Over rings of 2 and
/// 3, the correct epilogue is verified at every trip count and each changed one goes wrong at
/// some; whatever the explorer finds at 1 … 2P + 2 laps `Looped` finds, and the trip count
/// `Looped` names goes wrong in the explorer.
#[test]
fn partitions_taking_turns_are_decided_at_every_trip_count() {
    for slots in [2, 3] {
        let period = 2 * slots;
        for variant in 0..4 {
            let built: Vec<(Trace, Vec<u32>, u32)> = (2 * period..3 * period)
                .map(|n| {
                    let (trace, laps) = taking_turns(n, slots, variant);
                    (trace, laps, n)
                })
                .collect();
            let looped = Looped::runs(&runs(&built), period, 0).unwrap();
            let every = looped.explore(BUDGET);
            let what = format!("ring of {slots}, variant {variant}: {every:?}");
            assert!(every.complete, "{what}");
            assert_eq!(every.goes_wrong(), variant != 0, "{what}");
            let found: Vec<Exploration> = (1..=2 * period + 2)
                .map(|n| explore(&taking_turns(n, slots, variant).0, BUDGET).unwrap())
                .collect();
            finds_what_the_explorer_finds(&every, &found.iter().collect::<Vec<_>>(), &what);
            assert!(found.iter().all(|f| f.faults.is_empty()), "{what}");
            for (at, races) in [(every.race_at, true), (every.stuck_at, false)] {
                if let Some(n) = at {
                    let f = explore(&taking_turns(n, slots, variant).0, BUDGET).unwrap();
                    let none = if races {
                        f.races.is_empty()
                    } else {
                        f.stuck.is_empty()
                    };
                    assert!(!none, "Looped names {n}: {what}");
                }
            }
        }
    }
}

/// The persistent sets `Looped::explore` follows (`persistent.rs`) find what running every
/// enabled op finds — the same least trip count racing, arriving past a phase and hanging —
/// on the seeded pipelines, with and without a broken epilogue, in no more states.
#[test]
fn persistent_sets_find_what_every_interleaving_finds() {
    let mut rng = XorShift(0x51ee_75e7);
    let mut change = XorShift(0x0e91_1093);
    let mut tally = Tally::default();
    for i in 0..200 {
        let (mut p, _) = generate(&mut rng);
        let big_p = p.period();
        let what = if i % 2 == 1 && p.drain_and_reuse() {
            mutate_epilogue(&mut p, change.below(7))
        } else {
            "no epilogue"
        };
        let built = if what == "no epilogue" {
            p.iterations = 2 * big_p;
            let (trace, laps) = p.unrolled().unwrap();
            vec![(trace, laps, 2 * big_p)]
        } else {
            unrolled_per_residue(&mut p)
        };
        let looped = match Looped::runs(&runs(&built), big_p, 0) {
            Ok(l) => l,
            Err(_) => continue,
        };
        let every = looped.explore_every_interleaving(BUDGET);
        let persistent = looped.explore(BUDGET);
        tally.add(&every, &persistent, &format!("({what}) {p:#?}"));
    }
    tally.holds("pipelines", 150, 50, 50);
}

/// Verdicts of `Looped::explore` held against `Looped::explore_every_interleaving`, counted.
#[derive(Default)]
struct Tally {
    compared: usize,
    wrong: usize,
    fewer: usize,
    states: usize,
    reduced: usize,
}

impl Tally {
    /// Holds `persistent` to `every` (both complete, else left out): the same least trip count
    /// racing, faulting and hanging, in no more states.
    fn add(&mut self, every: &EveryTripCount, persistent: &EveryTripCount, what: &str) {
        if !every.complete || !persistent.complete {
            // (a thread running more than DRIFT_PERIODS ahead, or past the budget)
            return;
        }
        let verdict = |e: &EveryTripCount| (e.race_at, e.fault_at, e.stuck_at, e.goes_wrong());
        assert_eq!(
            verdict(persistent),
            verdict(every),
            "{what}: {persistent:?}\n{every:?}"
        );
        assert!(persistent.states <= every.states, "{what}");
        self.compared += 1;
        self.wrong += usize::from(every.goes_wrong());
        self.fewer += usize::from(persistent.states < every.states);
        self.states += every.states;
        self.reduced += persistent.states;
    }

    /// Prints the counts and requires at least so many compared, going wrong and reduced.
    fn holds(&self, what: &str, compared: usize, wrong: usize, fewer: usize) {
        let Tally {
            compared: c,
            wrong: w,
            fewer: f,
            states,
            reduced,
        } = self;
        eprintln!("{c} {what} compared ({w} going wrong), {f} in fewer states: {reduced} states against {states}");
        assert!(
            *c >= compared && *w >= wrong && *f >= fewer,
            "{c} compared, {w} wrong, {f} fewer"
        );
    }
}

/// Many threads arriving on one barrier (`fan_in`: 2 to 4 consumers, rings of 1 and 2, the
/// barrier's count right, one short and one over), correct and with every seeded bug at
/// several places: the persistent sets — which take an arrive alone where what the others can
/// do leaves its phase open — find what running every enabled op finds, in no more states.
#[test]
fn arrivals_of_many_threads_on_one_barrier_are_reduced_without_loss() {
    let mut tally = Tally::default();
    for (k, slots) in [(2, 1), (2, 2), (3, 1), (3, 2), (4, 1)] {
        {
            let right = k as u32;
            let mut cases: Vec<(String, Pipeline)> = [right, right - 1, right + 1]
                .into_iter()
                .map(|count| (format!("count {count}"), fan_in(k, slots, count)))
                .collect();
            for m in Mutation::ALL {
                for at in [0, 2, 5] {
                    let mut p = fan_in(k, slots, right);
                    if p.mutate(m, at) {
                        cases.push((format!("{m:?} at {at}"), p));
                    }
                }
            }
            for (what, mut p) in cases {
                let big_p = p.period();
                p.iterations = 2 * big_p;
                let (trace, laps) = p.unrolled().unwrap();
                let built = vec![(trace, laps, 2 * big_p)];
                let Ok(looped) = Looped::runs(&runs(&built), big_p, 0) else {
                    continue;
                };
                // (a producer let loose runs past any budget: such a case is left out)
                let every = looped.explore_every_interleaving(BUDGET / 10);
                let persistent = looped.explore(BUDGET / 10);
                tally.add(
                    &every,
                    &persistent,
                    &format!("{k} consumers, ring of {slots}, {what}"),
                );
            }
        }
    }
    tally.holds("hand-offs", 80, 40, 60);
}

/// `fa_ws_persistent`, a persistent kernel (a tile loop around the K loop in every partition),
/// at every tile count a CTA runs, one lap a tile, at one to four K laps a tile: verified.
/// `--every-trip-count` refuses it: its laps are tiles. 3 to 17 s each in release: `.ci/run`
/// runs it with `--release --ignored`.
#[test]
#[ignore = "minutes in debug; .ci/run runs it in release"]
fn a_persistent_kernel_is_race_free_at_every_tile_count() {
    let text = test_support::tlx_kernels::dump("fa_ws_persistent", "before");
    let refused = TripCountProof::new(&text, &ReadOptions::default(), PROOF_BUDGET).unwrap_err();
    assert!(refused.to_string().contains("a lap is a tile"), "{refused}");
    for (n_ctx, programs, states, below) in [
        (128, 1, 1_427, [52, 104]),
        (256, 1, 2_681, [82, 164]),
        (384, 2, 3_839, [112, 224]),
        (512, 2, 4_997, [142, 284]),
    ] {
        let mut opts = ReadOptions::default();
        opts.params.insert("N_CTX".into(), n_ctx);
        let proof = TripCountProof::tiles(&text, &opts, PROOF_BUDGET).unwrap();
        eprint!("{}", proof.text("fa_ws_persistent"));
        // H tiles a CTA; at 3 and 4 K laps two programs share H · 2 tiles.
        let mut fixed = vec![("N_CTX".to_string(), n_ctx)];
        if programs > 1 {
            fixed.push(("num_programs".to_string(), programs));
        }
        assert_eq!(proof.counted.bounds, [("H".to_string(), 1)]);
        assert_eq!(proof.counted.fixed, fixed);
        assert_eq!((proof.period, proof.head, proof.least), (6, 1, 3));
        assert!(proof.every.complete && !proof.every.goes_wrong());
        assert_eq!(proof.every.states, states, "N_CTX = {n_ctx}");
        assert_eq!(explored_below(&proof), below, "N_CTX = {n_ctx}");
        assert_eq!(proof.summary(), "verified at every tile count");
    }
}

/// Three CLC kernels (`fa_clc`, `fa_fwd_persistent`: the next tile a `try_cancel` answered, six
/// consumers arriving on the response's empty barrier, count 6, once a tile;
/// `fa_fwd_persistent_hd64`, a ring of 6) and `fa_fwd_mxfp8` (scales copied beside every
/// operand, `H` tiles) at every tile count a CTA runs, one K lap a tile: verified. Past
/// 2,000,000 states from 3 tiles while arrivals on one barrier were taken as dependent; now a
/// consumer's arrive that the others cannot bring to the phase's last is a persistent set of
/// its own (`outside.rs`), and each trip count is kept apart (562,809 and 976,242 states for
/// the last two before). Seconds each in release.
#[test]
#[ignore = "minutes in debug; .ci/run runs it in release"]
fn the_clc_kernels_are_race_free_at_every_tile_count() {
    for (kernel, bound, offset, period, states, below) in [
        ("fa_clc", "clc_tiles", 1, 6, 4_156, [73, 270]),
        ("fa_fwd_persistent", "clc_tiles", 1, 6, 4_156, [73, 270]),
        (
            "fa_fwd_persistent_hd64",
            "clc_tiles",
            1,
            12,
            7_522,
            [73, 266],
        ),
        ("fa_fwd_mxfp8", "H", 0, 8, 2_418, [80, 160]),
    ] {
        let text = test_support::tlx_kernels::dump(kernel, "before");
        let mut opts = ReadOptions::default();
        opts.params.insert("N_CTX".into(), 128);
        let proof = TripCountProof::tiles(&text, &opts, PROOF_BUDGET).unwrap();
        eprint!("{}", proof.text(kernel));
        assert_eq!(proof.counted.bounds, [(bound.to_string(), 1)], "{kernel}");
        assert_eq!(proof.counted.offset, offset, "{kernel}");
        assert_eq!(
            (proof.period, proof.head, proof.least),
            (period, 1, 3),
            "{kernel}"
        );
        assert!(
            proof.every.complete && !proof.every.goes_wrong(),
            "{kernel}"
        );
        assert_eq!(proof.every.states, states, "{kernel}");
        assert_eq!(explored_below(&proof), below, "{kernel}");
        assert_eq!(proof.summary(), "verified at every tile count");
    }
}

/// A wait of `fa_ws_persistent`'s load partition made to pass at once every tile (`q_empties`'
/// phase the constant 1): the next tile's Q is loaded over the one the MMAs still read. The
/// kernel at one tile a CTA is fine — what the default check and a sweep of `N_CTX` = 128 see
/// — and the tile proof finds the race at 2 tiles and a hang from 3 on.
#[test]
fn a_tile_count_proof_finds_a_wait_that_passes_into_the_next_tile() {
    let text = test_support::tlx_kernels::dump("fa_ws_persistent", "before");
    let wait = "ttng.wait_barrier %3, %4, %true_32";
    assert_eq!(text.matches(wait).count(), 1);
    let mutant = text.replace(wait, "ttng.wait_barrier %3, %c1_i32_34, %true_32");
    let mut opts = ReadOptions::default();
    opts.params.insert("N_CTX".into(), 128);
    let proof = TripCountProof::tiles(&mutant, &opts, PROOF_BUDGET).unwrap();
    assert_eq!(proof.exit_code(), 1);
    assert_eq!(proof.every.stuck_at, Some(2), "a hang from 3 tiles on");
    let one = proof.below[0].1.as_ref().unwrap();
    assert!(one.races.is_empty() && one.stuck.is_empty() && one.faults.is_empty());
    let two = proof.below[1].1.as_ref().unwrap();
    assert_eq!((two.races.len(), two.faults.len()), (2, 3));
    let text = proof.text("m");
    assert!(
        text.contains("2 tiles: 2 races, 164 stuck events, 3 faults"),
        "{text}"
    );
    assert!(text.contains("hang: ttng.wait_barrier line 543 q_empties[0] waits forever"));
}

/// Where the reads that look for the tile count's knob stop — `fa_ws_persistent` at 16 K laps a
/// tile passes the reader's cap on events before two tiles — the refusal says so, not only
/// that no knob was found.
#[test]
fn a_tile_proof_says_why_its_knob_search_read_nothing() {
    let text = test_support::tlx_kernels::dump("fa_ws_persistent", "before");
    let mut opts = ReadOptions::default();
    opts.params.insert("N_CTX".into(), 2048);
    let refused = TripCountProof::tiles(&text, &opts, PROOF_BUDGET).unwrap_err();
    let message = refused.to_string();
    assert!(
        message.contains("no free parameter nor clc_tiles sets its tiles one at a time")
            && message.contains("(a read to find out: the trace passed 20000 events"),
        "{message}"
    );
}

/// The states the explorer visited at each trip count below the proof's least.
fn explored_below(proof: &TripCountProof) -> Vec<usize> {
    proof
        .below
        .iter()
        .map(|(_, r)| r.as_ref().unwrap().states)
        .collect()
}
