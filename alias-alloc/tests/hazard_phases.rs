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
            (128, 3, 2396, vec![21, 31]),
            (128, 3, 2396, vec![21, 31]),
            (64, 3, 3055, vec![13, 23]),
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
