//! The hazard check on a real bug's history: facebookexperimental/triton#739 ("Fix a potential
//! race condition in FA fwd", bee3ddcb2). The forward persistent tutorial of the fork at the
//! commit before the fix and at the fix, compiled with fbtriton 3.7.4
//! (`tools/gen_tlx_kernel_dumps.py --repo … --only fa_fwd_pr739_{before,after} --out
//! alias-alloc/tests/data/tlx_history`): before, the `qk_empties` arrive comes between the loads
//! of `l` and `m`, which share `qk`'s TMEM, and the next tile's QK MMA may overwrite `m` before
//! it is read; after, the arrive follows both loads.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{check, read_kernel, ReadOptions, Verdict};

fn kernel(name: &str) -> String {
    let path = format!(
        "{}/tests/data/tlx_history/{name}/before.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
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

    let after = read_kernel(&kernel("fa_fwd_pr739_after"), &ReadOptions::default()).unwrap();
    let report = check(&after.trace);
    assert!(
        report.all_verified(),
        "{} hazards",
        report.hazards().count()
    );
    assert_eq!(report.pairs.len(), 3111);
}
