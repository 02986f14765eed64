//! A kernel whose partitions run loops one after another (`triple_gemm_multiphase`: three
//! GEMMs, their rings in one pool, joined by `mp_join_0` and `mp_join_1`), cut at its joins
//! and proved phase by phase (`docs/hazard-check.md`, *Loops in sequence*).
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{
    explore_reduced, kernel_laps, open_phases, phases, read_kernel, HazardError, KernelTrace,
    PhasedProof, ReadOptions, Trace, PROOF_BUDGET,
};

const KERNEL: &str = "triple_gemm_multiphase";

fn at_k(text: &str, k: i64) -> Result<KernelTrace, HazardError> {
    let mut opts = ReadOptions::default();
    opts.params.insert("K".into(), k);
    read_kernel(text, &opts)
}

/// `text` without its 1-based line `line`.
fn without_line(text: &str, line: usize) -> String {
    text.lines()
        .enumerate()
        .filter(|(i, _)| i + 1 != line)
        .map(|(_, l)| format!("{l}\n"))
        .collect()
}

/// Whether every execution of `trace` is fine: no race, hang or arrival past a phase, no
/// waited barrier left in the middle of a phase.
fn fine(trace: &Trace) -> bool {
    let f = explore_reduced(trace, PROOF_BUDGET).unwrap();
    f.races.is_empty() && f.stuck.is_empty() && f.faults.is_empty() && open_phases(trace).is_empty()
}

/// The cut at K = 512: each partition's loop in its phase, the joins' waits the last of each
/// phase, then what each partition touches in the later phases; each phase read lap by lap at
/// its own loop's laps (4, 4 and 8: its last lap goes with its epilogue).
#[test]
fn loops_one_after_another_are_cut_at_their_joins() {
    let text = test_support::tlx_kernels::dump(KERNEL, "before");
    let cut = phases(&at_k(&text, 512).unwrap()).unwrap().unwrap();
    assert_eq!(cut.joins, ["mp_join_0[0]", "mp_join_1[0]"]);
    let laps: Vec<u32> = cut
        .phases
        .iter()
        .map(|p| kernel_laps(p).unwrap().trip_count)
        .collect();
    assert_eq!(laps, [3, 3, 7]);
    // After its wait on a join, each partition touches what it touches later, in every phase
    // but the last.
    let appended: Vec<Vec<&str>> = cut
        .phases
        .iter()
        .map(|p| {
            p.trace
                .events
                .iter()
                .map(|e| e.label.as_str())
                .filter(|l| l.starts_with("what "))
                .collect()
        })
        .collect();
    assert_eq!(appended[0].len(), 8); // four partitions, each reading and writing SMEM
    assert!(appended[0].contains(&"what default writes after mp_join_0[0]"));
    assert_eq!(appended[1].len(), 8);
    assert!(appended[2].is_empty());
    // A kernel of one loop a partition is not cut.
    let one = test_support::tlx_kernels::dump("fa_ws_pipelined", "before");
    let kt = read_kernel(&one, &ReadOptions::default()).unwrap();
    assert!(phases(&kt).unwrap().is_none());
}

/// A barrier used in two phases (the epilogue's arrive on `acc_tmem_8_empty` made one on
/// `acc_tmem_7_empty`, which the first phase arrives on) is refused, naming it and both
/// phases: what the cut argues needs each barrier in one phase.
#[test]
fn a_barrier_of_two_phases_is_refused() {
    let text = test_support::tlx_kernels::dump(KERNEL, "before");
    let from = "ttng.arrive_barrier %acc_tmem_8_empty_35, 1";
    assert_eq!(text.matches(from).count(), 1);
    let mutant = text.replace(from, "ttng.arrive_barrier %acc_tmem_7_empty_31, 1");
    let err = phases(&at_k(&mutant, 512).unwrap()).unwrap_err();
    let HazardError::Unsupported { op, line, reason } = err else {
        panic!("{err:?}")
    };
    assert_eq!((op.as_str(), line), ("ttng.arrive_barrier", 183));
    assert!(
        reason.starts_with(
            "the barrier acc_tmem_7_empty[0] is used in phase 1 (line 158) and in phase 3"
        ),
        "{reason}"
    );
}

/// The oracle: at K = 128, 256 and 384, every interleaving of the whole kernel against every
/// interleaving of each phase alone, on the kernel and on each of its waits, arrives,
/// commits and TMA store waits deleted — the phases go wrong wherever the whole kernel does,
/// and only there; so on each arrive moved above the two ops before it. The TMA store wait
/// before the first join deleted is a race across the join: the store still reads `c_smem`
/// when the second phase writes it. The default partition's arrive on that join moved above
/// its TMA store is none: the store is still waited for before its own next write of
/// `c_smem`, and no other partition touches `c_smem`.
#[test]
fn the_phases_go_wrong_where_the_whole_kernel_does() {
    let text = test_support::tlx_kernels::dump(KERNEL, "before");
    let deletable = [
        "ttng.wait_barrier",
        "ttng.arrive_barrier",
        "ttng.tc_gen5_commit",
        "ttng.async_tma_store_wait",
    ];
    let mut mutants = vec![(0, text.clone())];
    for (i, line) in text.lines().enumerate() {
        if deletable.iter().any(|op| line.contains(op)) {
            mutants.push((i + 1, without_line(&text, i + 1)));
        }
    }
    assert_eq!(mutants.len(), 41);
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate() {
        if line.contains("ttng.arrive_barrier") && i >= 2 {
            let mut moved = lines.clone();
            let arrive = moved.remove(i);
            moved.insert(i - 2, arrive);
            mutants.push((1000 + i + 1, moved.join("\n") + "\n"));
        }
    }
    let (mut wrong, mut merged) = (Vec::new(), Vec::new());
    for (line, m) in &mutants {
        for k in [128, 256, 384] {
            let Ok(kt) = at_k(m, k) else {
                // An arrive moved above the op that defines its barrier: no kernel.
                assert!(*line > 1000, "line {line} deleted");
                continue;
            };
            let whole = fine(&kt.trace);
            let cut = phases(&kt).unwrap().unwrap();
            if cut.joins.len() < 2 && k == 128 {
                merged.push(*line);
            }
            let each = cut.phases.iter().all(|p| fine(&p.trace));
            assert_eq!(whole, each, "line {line} deleted, K = {k}");
            if !whole {
                wrong.push((*line, k));
            }
        }
    }
    eprintln!("wrong (line deleted, K): {wrong:?}");
    // A join's wait deleted from one partition: no longer a join, two phases are one (which
    // `kernel_laps` refuses, a partition running two loops in it).
    assert_eq!(merged, [166, 178, 221, 243, 288, 304, 343, 359]);
    assert!(wrong.contains(&(164, 128)), "{wrong:?}");
    assert!(!wrong.iter().any(|x| x.0 == 0 || x.0 == 1165), "{wrong:?}");
}

/// Every trip count of every phase: verified (release, `.ci/run`; half a minute in debug);
/// the TMA store wait before the first join deleted races at every trip count of the first
/// phase, named by the store and what follows the join; a second arrive on the join leaves
/// it in the middle of a phase.
#[test]
#[ignore = "half a minute in debug; .ci/run runs it in release"]
fn a_kernel_of_three_loops_in_sequence_is_race_free_at_every_trip_count() {
    let text = test_support::tlx_kernels::dump(KERNEL, "before");
    let opts = ReadOptions::default();
    let proof = PhasedProof::new(&text, &opts, PROOF_BUDGET)
        .unwrap()
        .unwrap();
    eprint!("{}", proof.text(KERNEL));
    assert_eq!(proof.exit_code(), 0);
    let got: Vec<(i64, u32, usize, Vec<usize>)> = proof
        .phases
        .iter()
        .map(|p| {
            let below = p
                .below
                .iter()
                .map(|(_, r)| r.as_ref().map_or(0, |f| f.states))
                .collect();
            (p.counted.bounds[0].1, p.least, p.every.states, below)
        })
        .collect();
    assert_eq!(
        got,
        [
            (128, 3, 1510, vec![21, 31]),
            (128, 3, 1510, vec![21, 31]),
            (64, 3, 1889, vec![13, 23]),
        ]
    );
    let store_wait = without_line(&text, 164);
    let proof = PhasedProof::new(&store_wait, &opts, PROOF_BUDGET)
        .unwrap()
        .unwrap();
    let first = &proof.phases[0];
    // At 3 laps, from the least on (`race_at` counts the loop's laps, the last with the epilogue).
    assert_eq!((proof.exit_code(), first.every.race_at), (1, Some(2)));
    assert_eq!(
        first.findings,
        ["race: ttng.async_tma_copy_local_to_global line 163 c_smem[0] and what default writes after mp_join_0[0] line 165, in one lap"]
    );
    let line = text.lines().nth(164).unwrap();
    let twice = text.replace(line, &format!("{line}\n{line}"));
    let proof = PhasedProof::new(&twice, &opts, PROOF_BUDGET)
        .unwrap()
        .unwrap();
    assert_eq!(proof.exit_code(), 1);
    assert_eq!(
        proof.phases[0].open,
        Some((
            1,
            vec!["mp_join_0[0]: 1 of 4 arrivals past its last whole phase".to_string()]
        ))
    );
}

/// What a generated program of loops in sequence does wrong, in phase `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// The consumer's TMA store is not waited for before the join.
    NoStoreWait,
    /// The consumer reads a pool slot once more after arriving on the join.
    ReadAfterArrive,
    /// The producer does not wait on the join: no longer a join.
    ProducerSkipsJoin,
    /// The consumer does not arrive on the join: it never completes.
    NoJoinArrive,
    /// The producer arrives on the join twice.
    ExtraJoinArrive,
}

/// A producer and a consumer running `phases` loops of `n` laps one after another over one
/// pool of `slots` shared-memory slots (TMA loads in, the consumer reading each slot itself
/// or by an MMA), each phase ending in the consumer's TMA store of an output tile and a join
/// both arrive on and wait on; `bug` in phase `at`. Each event's origin carries its loop's
/// induction variable, as the reader's do.
fn sequence(
    phases: u32,
    slots: u32,
    mma: bool,
    n: u32,
    (bug, at): (Bug, u32),
) -> Result<KernelTrace, HazardError> {
    use alias_alloc::hazard::{Cells, Origin, Space, TraceBuilder};
    let mut b = TraceBuilder::new();
    let (p, c) = (b.partition("producer"), b.partition("consumer"));
    let mut origins: Vec<Origin> = Vec::new();
    let mut line = 0usize;
    // Every event built since the last call gets the next line and `induction`.
    let mut mark = |b: &TraceBuilder, induction: Vec<(i64, i64)>| {
        line += 1;
        while origins.len() < b.len() {
            origins.push(Origin {
                op: format!("op{line}"),
                line,
                location: None,
                buffer: None,
                iteration: induction.iter().map(|x| x.0).collect(),
                induction: induction.clone(),
            });
        }
    };
    let slot_cells = |k: u32| Cells::range(Space::Smem, u64::from(k) * 64, 64);
    let out = Cells::range(Space::Smem, 4096, 64);
    let acc = Cells::range(Space::Tmem, 0, 128);
    for s in 0..phases {
        let bug_here = |x: Bug| bug == x && at == s;
        let full: Vec<_> = (0..slots)
            .map(|k| b.barrier(&format!("full{s}_{k}"), 1))
            .collect::<Result<_, _>>()?;
        let empty: Vec<_> = (0..slots)
            .map(|k| b.barrier(&format!("empty{s}_{k}"), 1))
            .collect::<Result<_, _>>()?;
        let done = b.barrier(&format!("done{s}"), 1)?;
        let join = b.barrier(&format!("join{s}"), 2)?;
        for i in 0..n {
            let (k, ph) = ((i % slots) as usize, ((i / slots) & 1) as u8);
            let ind = vec![(i64::from(i), 1)];
            b.wait(p, "wait empty", empty[k], 1 - ph)?;
            mark(&b, ind.clone());
            b.barrier_expect(p, "expect", full[k], 64)?;
            mark(&b, ind.clone());
            b.tma_load(p, "load", slot_cells(k as u32), full[k], 64)?;
            mark(&b, ind.clone());
            b.wait(c, "wait full", full[k], ph)?;
            mark(&b, ind.clone());
            if mma {
                b.mma(
                    c,
                    "mma",
                    &[slot_cells(k as u32)],
                    std::slice::from_ref(&acc),
                    &[empty[k]],
                )?;
            } else {
                b.access(c, "read", slot_cells(k as u32), false)?;
                b.arrive(c, "arrive empty", empty[k], 1)?;
            }
            mark(&b, ind);
        }
        if mma {
            b.commit(c, "commit", done)?;
            b.wait(c, "wait done", done, 0)?;
            b.access(c, "tmem_load", acc.clone(), false)?;
            mark(&b, Vec::new());
        }
        b.access(c, "local_store", out.clone(), true)?;
        let store = b.tma_store(c, "tma store", out.clone())?;
        if !bug_here(Bug::NoStoreWait) {
            b.depend(c, store)?;
        }
        mark(&b, Vec::new());
        if s + 1 < phases {
            b.arrive(p, "join", join, 1)?;
            if bug_here(Bug::ExtraJoinArrive) {
                b.arrive(p, "join again", join, 1)?;
            }
            if !bug_here(Bug::NoJoinArrive) {
                b.arrive(c, "join", join, 1)?;
            }
            if bug_here(Bug::ReadAfterArrive) {
                b.access(c, "late read", slot_cells(0), false)?;
            }
            if !bug_here(Bug::ProducerSkipsJoin) {
                b.wait(p, "wait join", join, 0)?;
            }
            b.wait(c, "wait join", join, 0)?;
            mark(&b, Vec::new());
        }
    }
    let trace = b.build()?;
    Ok(KernelTrace {
        trace,
        origins,
        params: Default::default(),
        seq_stride: None,
        tile: (0, 1),
        clc_tiles: 0,
    })
}

/// The oracle on generated programs: two or three loops in sequence, rings of one or two slots,
/// a consumer that reads or MMAs, at 1 … 3 laps, every bug in the first and the last phase but
/// one — wherever every interleaving of the whole program goes wrong, some phase alone does
/// (or the cut is refused: the only join gone), and the reverse: the cut neither misses nor
/// invents. The TMA store not waited for and the read after the join's arrive are races
/// across a join, found by what each partition touches after it.
#[test]
fn the_phases_of_generated_programs_go_wrong_where_the_whole_does() {
    let bugs = [
        Bug::None,
        Bug::NoStoreWait,
        Bug::ReadAfterArrive,
        Bug::ProducerSkipsJoin,
        Bug::NoJoinArrive,
        Bug::ExtraJoinArrive,
    ];
    let (mut programs, mut wrong, mut refused) = (0, 0, 0);
    for phases_n in [2u32, 3] {
        for slots in [1u32, 2] {
            for mma in [false, true] {
                for bug in bugs {
                    for at in [0, phases_n - 2] {
                        for n in 1..=3 {
                            let kt = sequence(phases_n, slots, mma, n, (bug, at)).unwrap();
                            programs += 1;
                            let whole = fine(&kt.trace);
                            if !whole {
                                wrong += 1;
                            }
                            let Ok(Some(cut)) = phases(&kt) else {
                                refused += 1;
                                assert!(
                                    bug == Bug::ProducerSkipsJoin && phases_n == 2,
                                    "{bug:?} refused"
                                );
                                continue;
                            };
                            let each = cut.phases.iter().all(|p| fine(&p.trace));
                            assert_eq!(
                                whole, each,
                                "{phases_n} phases, {slots} slots, mma {mma}, {bug:?} in phase {at}, {n} laps"
                            );
                            assert_eq!(whole, bug == Bug::None, "{bug:?}");
                        }
                    }
                }
            }
        }
    }
    eprintln!("{programs} programs, {wrong} going wrong, {refused} refused");
    assert_eq!((programs, wrong, refused), (288, 240, 24));
}
