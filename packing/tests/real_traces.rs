//! idealloc's public allocation traces (`tests/data/idealloc/`, imported unchanged by
//! `tools/import_idealloc_traces.sh`): what we answer on them, against the makespans idealloc
//! itself answers (its `idealloc` binary, `ex-csv`, default settings, at the imported commit;
//! `docs/benchmarks.md` has the side-by-side run).

#![allow(clippy::restriction)] // test code: a failed check panics

use packing::bound::live_bound;
use packing::check::check;
use packing::csv::read_csv;
use packing::exact::{minimize, SolveOptions, MAX_SEARCH_PAIRS};
use packing::Problem;

fn trace(name: &str) -> Problem {
    let path = format!(
        "{}/tests/data/idealloc/{name}.csv",
        env!("CARGO_MANIFEST_DIR")
    );
    read_csv(&std::fs::read_to_string(&path).unwrap(), None).unwrap()
}

/// (trace, buffers, live lower bound, idealloc's makespan).
const TRACES: [(&str, usize, u64, u64); 3] = [
    ("G_1", 816, 3_030_937_746, 3_039_277_202),
    ("resnet50", 1_042, 1_515_472_556, 1_525_214_892),
    ("S_1", 28_526, 1_498_635_932, 1_542_556_726),
];

/// Every placement passes the checker and is no higher than idealloc's; the two small traces
/// are packed at their lower bound and proved optimal (idealloc's are 0.28 % and 0.64 % above
/// it), within a node limit, so the answer is the same on any machine.
#[test]
fn we_answer_at_or_below_idealloc() {
    for (name, buffers, bound, idealloc) in TRACES {
        let p = trace(name);
        assert_eq!(p.len(), buffers, "{name}");
        assert_eq!(live_bound(&p).peak, bound, "{name}");
        let s = minimize(
            &p,
            &SolveOptions {
                budget: None,
                node_limit: Some(100_000),
                ..SolveOptions::default()
            },
        )
        .unwrap();
        assert!(check(&p, &s.placement).is_empty(), "{name}");
        assert_eq!(s.peak, s.placement.peak(&p).unwrap(), "{name}");
        assert!(
            s.peak < idealloc,
            "{name}: {} against idealloc's {idealloc}",
            s.peak
        );
        if name == "S_1" {
            // 43 million pairs of buffers live together, past what the search may hold: the
            // answer is the settled greedy placement's, and the solution says why the search
            // did not run (a larger budget would change nothing).
            const { assert!(43_218_991 > MAX_SEARCH_PAIRS) };
            assert_eq!(s.search_skipped, Some(43_218_991));
            assert_eq!(s.nodes, 0);
            // Settled both ways: 0.35 % above the bound (the greedy rules alone: 1.58 %).
            assert!(s.peak <= 1_503_831_439, "{}", s.peak);
        } else {
            assert!(s.proven_optimal && s.peak == bound, "{name}: {}", s.peak);
            assert_eq!(s.search_skipped, None);
        }
    }
}
