//! The committed training-step trace (`tests/data/training/`) is what
//! `generator::training_trace` regenerates from its seed (`BLESS=1 cargo test -p
//! linalias-packing --test training` rewrites it), with the scale the generator promises.

#![allow(clippy::restriction)] // test code: a failed check panics

use packing::bound::live_bound;
use packing::csv::{read_csv, write_csv};
use packing::generator::training_trace;
use std::path::PathBuf;

/// (seed, buffers) of the committed traces.
const COMMITTED: [(u64, usize); 1] = [(1, 20_000)];

fn path(seed: u64, n: usize) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join(format!("tests/data/training/training_s{seed}_{n}.csv"))
}

#[test]
fn committed_traces_match_the_generator() {
    for (seed, n) in COMMITTED {
        let p = training_trace(seed, n).unwrap();
        let text = write_csv(&p, None).unwrap();
        test_support::golden::check(path(seed, n), &text);
        assert_eq!(read_csv(&text, None).unwrap(), p);
    }
}

#[test]
fn traces_have_thousands_of_buffers_live_at_once() {
    for n in [20_000, 60_000] {
        let p = training_trace(2, n).unwrap();
        assert!((n * 9 / 10..n * 11 / 10).contains(&p.len()), "{}", p.len());
        let turn = p.buffers().iter().map(|b| b.upper).max().unwrap() / 2;
        let live = p
            .buffers()
            .iter()
            .filter(|b| b.lower <= turn && turn < b.upper)
            .count();
        assert!(
            live > n / 10,
            "{live} live at the turn of a {n}-buffer step"
        );
        assert!(live_bound(&p).peak > 0);
    }
}

/// The backward sweep stacks the saved activations as the backward pass frees them: on the
/// committed trace `minimize` meets the lower bound in greedy time (no search, no
/// best-fit-by-size pass) and the checker accepts it.
#[test]
fn the_committed_trace_is_packed_optimally_by_a_sweep() {
    use packing::exact::{minimize, SolveOptions};
    use packing::greedy::{best_fit_by_lifetime, best_fit_by_lifetime_backward};
    let (seed, n) = COMMITTED[0];
    let p = read_csv(&std::fs::read_to_string(path(seed, n)).unwrap(), None).unwrap();
    let s = minimize(&p, &SolveOptions::default()).unwrap();
    assert!(s.proven_optimal, "{} vs {}", s.peak, s.lower_bound);
    assert_eq!(s.nodes, 0);
    assert!(packing::check::check(&p, &s.placement).is_empty());
    let backward = best_fit_by_lifetime_backward(&p).unwrap();
    assert_eq!(backward.peak(&p).unwrap(), s.lower_bound);
    // The forward sweep is valid too, and above the bound on this trace.
    let forward = best_fit_by_lifetime(&p).unwrap();
    assert!(packing::check::check(&p, &forward).is_empty());
    assert!(forward.peak(&p).unwrap() > s.lower_bound);
}
