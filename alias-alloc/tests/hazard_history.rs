//! The hazard check on real bugs' history. facebookexperimental/triton#1992 (fed3bd718, "Fix
//! intra-task warp race on aliased TMEM in the 2-CTA path"): the 2-CTA attention backward at
//! the commit before the fix and at the fix (`fa_bwd_pr1992_{before,after}`): before, one warp
//! group of the compute partition stores P over `qk` columns the other has not loaded yet, and
//! the dq MMA overwrites `qk` one iteration after the wait that should guard it (the "one
//! iteration stale" wait of the same audit); after, both are ordered.
//! facebookexperimental/triton#739 ("Fix a potential race condition in FA fwd", bee3ddcb2). The forward persistent tutorial of the fork at the
//! commit before the fix and at the fix, compiled with fbtriton 3.7.4
//! (`tools/gen_tlx_kernel_dumps.py --repo … --only fa_fwd_pr739_{before,after} --out
//! alias-alloc/tests/data/tlx_history`): before, the `qk_empties` arrive comes between the loads
//! of `l` and `m`, which share `qk`'s TMEM, and the next tile's QK MMA may overwrite `m` before
//! it is read; after, the arrive follows both loads.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{
    check, read_kernel, EventId, ReadOptions, SweepReport, TripCounts, Verdict,
};

fn kernel(name: &str) -> String {
    let path = format!(
        "{}/tests/data/tlx_history/{name}/before.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The history kernel `name` has `pairs` overlapping pairs, all verified.
fn verified(name: &str, pairs: usize) {
    let k = read_kernel(&kernel(name), &ReadOptions::default()).unwrap();
    let report = check(&k.trace);
    assert!(
        report.all_verified(),
        "{name}: {} hazards",
        report.hazards().count()
    );
    assert_eq!(report.pairs.len(), pairs, "{name}");
}

#[test]
fn the_pre_fix_kernel_races_on_m_and_the_fix_is_verified() {
    let before = read_kernel(&kernel("fa_fwd_pr739_before"), &ReadOptions::default()).unwrap();
    let report = check(&before.trace);
    let witnesses: Vec<_> = report
        .pairs
        .iter()
        .filter_map(|(_, v)| match v {
            Verdict::Hazard(w) => Some(w),
            _ => None,
        })
        .collect();
    // Once per MMA group, at N_CTX = 512 (4 laps).
    assert_eq!(witnesses.len(), 2, "{:?}", report.pairs.len());
    let label = |e: alias_alloc::hazard::EventId| before.trace.events[e.0].label.clone();
    for w in &witnesses {
        let (a, b) = (label(w.first), label(w.second));
        // The QK MMA of the next tile writes the TMEM the default partition still reads m from
        // (`m_tiles[cid * BLOCK_N + 2]`, in that version a view of alpha_tiles), once per MMA
        // group: cid 0 at line 232, cid 1 at line 277.
        let (mma, load) = if a.contains("tc_gen5_mma") {
            (a, b)
        } else {
            (b, a)
        };
        assert!(
            mma.starts_with("ttng.tc_gen5_mma") && mma.contains("qk_tiles"),
            "{mma}"
        );
        assert!(
            load.starts_with("ttng.tmem_load line 232 alpha_tiles[2]")
                || load.starts_with("ttng.tmem_load line 277 alpha_tiles[130]"),
            "{load}"
        );
    }
    assert!(report.happens_before.never_complete.is_empty() && report.hang.is_none());

    verified("fa_fwd_pr739_after", 3111);

    // At every residue of the trip count modulo 6 (its rings of 3 barriers): the race before
    // the fix at each, none after.
    for (name, code) in [("fa_fwd_pr739_before", 1), ("fa_fwd_pr739_after", 0)] {
        let text = kernel(name);
        let opts = ReadOptions::default();
        let trips = TripCounts::new(&text, &opts).unwrap();
        assert_eq!((trips.first, trips.runs), (4, 6));
        let sweep = SweepReport::new(name, &text, &opts, trips, 0).unwrap();
        assert!(
            sweep
                .runs
                .iter()
                .all(|r| r.as_ref().is_ok_and(|r| r.exit_code() == code)),
            "{name}"
        );
    }
}

#[test]
fn the_pre_1992_kernel_races_twice_on_qk_and_the_fix_is_verified() {
    let before = read_kernel(&kernel("fa_bwd_pr1992_before"), &ReadOptions::default()).unwrap();
    let report = check(&before.trace);
    let name = |e: EventId| {
        let ev = &before.trace.events[e.0];
        (
            before.trace.timelines[ev.timeline.0].name.clone(),
            ev.label.clone(),
        )
    };
    let mut warp_race = 0;
    let mut stale = 0;
    for (_, v) in &report.pairs {
        let Verdict::Hazard(w) = v else { continue };
        let ((ta, a), (tb, b)) = (name(w.first), name(w.second));
        if b.starts_with("ttng.tmem_store line 303 p_tiles[0]") {
            // Hazard 1: group 0 loads qk, group 1 of the same partition stores P over it.
            assert!(a.starts_with("ttng.tmem_load line 290 qk_tiles[0]"), "{a}");
            assert!(
                ta.ends_with(".default") && tb.ends_with(".default.wg1"),
                "{ta} {tb}"
            );
            assert_eq!(ta.split('.').next(), tb.split('.').next(), "one CTA");
            warp_race += 1;
        } else {
            // The stale wait: the dq MMA of iteration j writes qk's TMEM while iteration j+1's
            // qk is read (or the other way round).
            let (load, mma) = if a.contains("tmem_load") {
                (&a, &b)
            } else {
                (&b, &a)
            };
            assert!(
                load.starts_with("ttng.tmem_load line 290 qk_tiles[0]"),
                "{load}"
            );
            assert!(
                mma.starts_with("ttng.tc_gen5_mma line 552 dq_tiles[0]"),
                "{mma}"
            );
            stale += 1;
        }
    }
    assert_eq!(
        (warp_race, stale),
        (8, 6),
        "{} hazards",
        report.hazards().count()
    );

    verified("fa_bwd_pr1992_after", 1660);
}
