//! Warp groups as threads: the 8-warp compute partition of the fork's 1-CTA attention backward
//! (`fa_bwd_1cta`) runs as two groups, each with its own TMEM cells. The kernel's named
//! barriers 10 and 11 (added by facebookexperimental/triton#1992 against the intra-partition
//! race on aliased TMEM) order one group's read of `qk` / `dp` before the other's store of `P`
//! / `dsT` into the same columns: without barrier 10 the check finds that race; barrier 11 is
//! redundant in this kernel, because the `m_empties` arrive between the `dp` load and the `dsT`
//! store begins with the partition's `bar.sync` (`docs/hazard-check.md`, *Warp groups*).
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{check, read_kernel, tmem_group_cells, ReadOptions, Verdict};

fn kernel() -> String {
    let path = format!(
        "{}/tests/data/tlx_kernels/fa_bwd_1cta/before.mlir",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The kernel with line `line` (1-based) replaced by `with`, which must contain `expect`.
fn edited(line: usize, expect: &str, with: &str) -> String {
    let text = kernel();
    let mut lines: Vec<&str> = text.lines().collect();
    assert!(lines[line - 1].contains(expect), "{}", lines[line - 1]);
    lines[line - 1] = with;
    lines.join("\n")
}

/// The hazards as (first label, second label, their timelines).
fn hazards(text: &str) -> Vec<(String, String, String, String)> {
    let k = read_kernel(text, &ReadOptions::default()).unwrap();
    let report = check(&k.trace);
    let name = |e: alias_alloc::hazard::EventId| {
        let ev = &k.trace.events[e.0];
        (
            ev.label.clone(),
            k.trace.timelines[ev.timeline.0].name.clone(),
        )
    };
    report
        .pairs
        .iter()
        .filter_map(|(_, v)| match v {
            Verdict::Hazard(w) => {
                let ((a, ta), (b, tb)) = (name(w.first), name(w.second));
                Some((a, b, ta, tb))
            }
            Verdict::Unknown(r) => panic!("unknown: {r:?}"),
            Verdict::Verified(_) => None,
        })
        .collect()
}

#[test]
fn the_two_groups_hold_different_columns_of_the_aliased_tiles() {
    let enc = "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>";
    let cols = |element: &str, group: u64| {
        let c = tmem_group_cells(&[128, 64], element, enc, 8, group).unwrap();
        let columns: std::collections::BTreeSet<u64> = c.iter().map(|&(col, _)| col).collect();
        (
            *columns.first().unwrap(),
            *columns.last().unwrap(),
            c.len() as u64,
        )
    };
    // qk (f32): group 0 reads columns 0..32, group 1 columns 32..64, all 128 lanes.
    assert_eq!(cols("f32", 0), (0, 31, 32 * 128));
    assert_eq!(cols("f32", 1), (32, 63, 32 * 128));
    // P (bf16, two a column) at the same offset: group 1 stores columns 16..32, which group 0
    // reads as qk.
    assert_eq!(cols("bf16", 0), (0, 15, 16 * 128));
    assert_eq!(cols("bf16", 1), (16, 31, 16 * 128));
}

#[test]
fn the_kernel_as_written_is_verified_with_two_groups() {
    let k = read_kernel(&kernel(), &ReadOptions::default()).unwrap();
    let names: Vec<&str> = k.trace.timelines.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"default.wg1"), "{names:?}");
    assert!(check(&k.trace).all_verified());
}

#[test]
fn without_named_barrier_10_a_group_stores_p_over_the_qk_the_other_still_reads() {
    let found = hazards(&edited(260, "wait_barrier_named %c10_i32", ""));
    assert_eq!(found.len(), 4, "{found:?}"); // one per lap
    for (a, b, ta, tb) in &found {
        let (load, store) = if a.contains("tmem_load") {
            ((a, ta), (b, tb))
        } else {
            ((b, tb), (a, ta))
        };
        assert!(
            load.0.starts_with("ttng.tmem_load line 249 qk_tiles[0]"),
            "{load:?}"
        );
        assert!(
            store.0.starts_with("ttng.tmem_store line 263 p_tiles[0]"),
            "{store:?}"
        );
        assert_ne!(load.1, store.1, "two groups of one partition");
        assert!(load.1.starts_with("default") && store.1.starts_with("default"));
    }
}

#[test]
fn a_debug_barrier_in_its_place_orders_the_groups_as_well() {
    let text = edited(260, "wait_barrier_named %c10_i32", "        gpu.barrier");
    assert!(hazards(&text).is_empty());
}

#[test]
fn named_barrier_11_is_redundant_behind_the_m_empties_arrive() {
    assert!(hazards(&edited(285, "wait_barrier_named %c11_i32", "")).is_empty());
    // Made `{perThread}` (no bar.sync in their lowering), the `m_empties` and `d_empties`
    // arrives order nothing between the groups, and a group's dsT store races with the other's
    // dp load (the arrivals also overrun the barriers' counts: protocol findings besides).
    let mut text = edited(285, "wait_barrier_named %c11_i32", "");
    for arrive in [
        "ttng.arrive_barrier %10, 1 : ",
        "ttng.arrive_barrier %11, 1 : ",
    ] {
        assert!(text.contains(arrive));
        text = text.replace(arrive, &arrive.replace("1 : ", "1 {perThread} : "));
    }
    let found = hazards(&text);
    assert!(!found.is_empty());
    for (a, b, ta, tb) in &found {
        let pair = format!("{a} | {b}");
        assert!(
            pair.contains("ttng.tmem_load line 268 dp_tiles[0]")
                && pair.contains("ttng.tmem_store line 288 dsT_tmem_tiles[0]")
                && ta != tb,
            "{pair} {ta} {tb}"
        );
    }
}
