//! The committed GPU-shaped suite (`tests/data/generated/`) is exactly what
//! `generator::suite()` regenerates from its seeds (`BLESS=1 cargo test -p linalias-packing --test
//! generated` rewrites it), and every instance has the shape its kind promises.

use std::collections::BTreeSet;
use std::path::PathBuf;

use packing::bound::live_bound;
use packing::check::check;
use packing::csv::{read_csv, write_csv};
use packing::generator::{
    generate, perfect_packing, pinwheel_packing, suite, Instance, Kind, SplitMix64, SMEM_CAPACITY,
    TMEM_CAPACITY,
};
use packing::{Placement, Problem};

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/generated")
}

/// The capacity a MiniMalloc file name carries: `name.CAPACITY.csv`.
fn capacity_of(name: &str) -> Option<u64> {
    name.strip_suffix(".csv")?.rsplit('.').next()?.parse().ok()
}

#[test]
fn committed_suite_matches_the_generator() {
    let mut expected = BTreeSet::new();
    for instance in suite() {
        let name = instance.file_name();
        let problem = instance.problem().expect("suite instances generate");
        let text = write_csv(&problem, None).expect("generated ids are CSV-safe");
        test_support::golden::check(dir().join(&name), &text);
        let read = read_csv(&text, capacity_of(&name)).expect("the file reads back");
        assert_eq!(read, problem, "{name} reads back as generated");
        expected.insert(name);
    }
    let present: BTreeSet<String> = std::fs::read_dir(dir())
        .expect("the data dir exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".csv"))
        .collect();
    assert_eq!(present, expected, "stray or missing files in {:?}", dir());
}

#[test]
fn suite_has_the_promised_sizes_and_names() {
    let s = suite();
    let count = |k: Kind| s.iter().filter(|i| i.kind == k).count();
    assert_eq!(
        count(Kind::SmemPipeline)
            + count(Kind::SmemPingPong)
            + count(Kind::SmemChained)
            + count(Kind::SmemMixed),
        20
    );
    assert_eq!(
        (
            count(Kind::Tmem),
            count(Kind::Perfect),
            count(Kind::Pinwheel)
        ),
        (10, 10, 10)
    );
    for i in &s {
        let n = i.n;
        match i.kind {
            Kind::Perfect => assert!((150..=450).contains(&n), "{i:?}"),
            Kind::Pinwheel => assert!((250..=400).contains(&n), "{i:?}"),
            Kind::Tmem => assert!((4..=24).contains(&n), "{i:?}"),
            _ => assert!((8..=40).contains(&n), "{i:?}"),
        }
    }
    let names: BTreeSet<String> = s.iter().map(|i| i.file_name()).collect();
    assert_eq!(names.len(), s.len(), "file names are unique");
    assert!(names.contains("smem_pipeline_s1.232448.csv"));
    assert!(names.contains("tmem_s10.512.csv"));
    assert!(names.contains("perfect_s10.1048576.csv"));
    assert!(names.contains("pinwheel_s10.1048576.csv"));
}

fn assert_smem_shape(name: &str, p: &Problem) {
    assert_eq!(p.capacity(), Some(SMEM_CAPACITY), "{name}");
    for b in p.buffers() {
        assert!(b.size > 0 && b.size % 128 == 0, "{name}: {b:?}");
        assert!(b.alignment == 128 || b.alignment == 1024, "{name}: {b:?}");
        if b.alignment == 1024 {
            assert_eq!(b.size % 1024, 0, "{name}: TMA tiles are whole KiB: {b:?}");
        }
        assert_eq!(b.offset, None, "{name}");
    }
}

#[test]
fn smem_instances_are_tile_shaped_and_fit_at_their_live_peak() {
    for instance in suite()
        .iter()
        .filter(|i| i.kind.capacity() == SMEM_CAPACITY)
    {
        let name = instance.file_name();
        let p = instance.problem().expect("generates");
        assert_eq!(p.len(), instance.n, "{name}");
        assert_smem_shape(&name, &p);
        let lb = live_bound(&p).peak;
        assert!(lb <= SMEM_CAPACITY, "{name}: LB {lb}");
        // Stage counts fill the arena CUTLASS-style: every instance uses over half of it.
        assert!(2 * lb > SMEM_CAPACITY, "{name}: LB {lb} is not tight");
    }
}

#[test]
fn chained_instances_hold_a_tile_whose_halves_reuse_it() {
    let p = generate(Kind::SmemChained, 1, 40).expect("generates");
    let held = p
        .buffers()
        .iter()
        .find(|b| b.id.ends_with(".held_a"))
        .expect("an A-stationary producer");
    let half = p
        .buffers()
        .iter()
        .filter(|b| b.size == held.size / 2 && b.lower >= held.upper)
        .count();
    assert!(half >= 2, "double-buffered halves after the held tile");
    assert!(p.buffers().iter().any(|b| b.id.ends_with(".d")));
}

#[test]
fn tmem_instances_use_power_of_two_column_counts() {
    for instance in suite().iter().filter(|i| i.kind == Kind::Tmem) {
        let name = instance.file_name();
        let p = instance.problem().expect("generates");
        assert_eq!(p.capacity(), Some(TMEM_CAPACITY));
        for b in p.buffers() {
            assert!(b.size.is_power_of_two(), "{name}: {b:?}");
            assert!((32..=512).contains(&b.size), "{name}: {b:?}");
            assert_eq!(b.alignment, 32, "{name}: {b:?}");
        }
        assert!(live_bound(&p).peak <= TMEM_CAPACITY, "{name}");
    }
}

#[allow(clippy::expect_used)] // test code: a failed check panics
/// A suite instance of a perfect kind is the problem its cut gives, fills the 2^20 square on
/// the 1 KiB grain (LB = capacity), and the cut is a valid placement at that peak.
fn assert_perfect(instance: &Instance, p: &Problem, cut: &Placement) {
    assert_eq!(*p, instance.problem().expect("generates"));
    assert_eq!(p.len(), instance.n);
    assert_eq!(live_bound(p).peak, 1 << 20);
    assert_eq!(cut.peak(p).expect("lengths agree"), 1 << 20);
    assert_eq!(check(p, cut), vec![]);
    for b in p.buffers() {
        assert_eq!((b.lower % 1024, b.upper % 1024, b.size % 1024), (0, 0, 0));
        assert!(b.upper <= 1 << 20);
    }
}

#[test]
fn perfect_packings_have_lb_equal_to_capacity_and_a_valid_cut() {
    for instance in suite().iter().filter(|i| i.kind == Kind::Perfect) {
        let (p, cut) =
            perfect_packing(instance.seed, instance.n, 1024, 1024, 1024).expect("generates");
        assert_perfect(instance, &p, &cut);
    }
}

/// Whether a straight line crosses the whole tiling between pieces: an offset `x` with
/// every piece wholly below or above it, or a time `t` with every piece wholly before or
/// after it.
fn has_guillotine_cut(p: &Problem, tiling: &Placement) -> bool {
    let pieces: Vec<(u64, u64, u64, u64)> = p
        .buffers()
        .iter()
        .zip(&tiling.offsets)
        .map(|(b, &o)| (o, o + b.size, b.lower, b.upper))
        .collect();
    let across_offsets = pieces
        .iter()
        .map(|r| r.1)
        .filter(|&x| x < 1 << 20)
        .any(|x| pieces.iter().all(|r| r.1 <= x || r.0 >= x));
    let across_time = pieces
        .iter()
        .map(|r| r.3)
        .filter(|&t| t < 1 << 20)
        .any(|t| pieces.iter().all(|r| r.3 <= t || r.2 >= t));
    across_offsets || across_time
}

#[test]
fn pinwheel_packings_are_perfect_and_not_guillotine() {
    for instance in suite().iter().filter(|i| i.kind == Kind::Pinwheel) {
        let (p, tiling) =
            pinwheel_packing(instance.seed, instance.n, 1024, 1024, 1024).expect("generates");
        assert_perfect(instance, &p, &tiling);
        assert!(!has_guillotine_cut(&p, &tiling), "{instance:?}");
    }
    // The guillotine ones do have a cut.
    let (p, cut) = perfect_packing(1, 150, 1024, 1024, 1024).expect("generates");
    assert!(has_guillotine_cut(&p, &cut));
}

#[test]
fn generation_is_deterministic_and_seed_dependent() {
    for kind in Kind::ALL {
        let n = match kind {
            Kind::Perfect | Kind::Pinwheel => 150,
            _ => 30,
        };
        let a = generate(kind, 11, n).expect("generates");
        assert_eq!(a, generate(kind, 11, n).expect("generates"), "{kind:?}");
        assert_ne!(a, generate(kind, 12, n).expect("generates"), "{kind:?}");
        assert_eq!(a.len(), n, "{kind:?}");
    }
    assert_eq!(generate(Kind::SmemMixed, 1, 0).expect("generates").len(), 0);
    // SplitMix64's published first output for seed 0.
    assert_eq!(SplitMix64::new(0).next_u64(), 0xE220_A839_7B1D_CDAF);
}

#[test]
fn large_instances_stay_within_capacity() {
    for kind in [Kind::SmemMixed, Kind::SmemPipeline, Kind::Tmem] {
        let p = generate(kind, 5, 5_000).expect("generates");
        assert_eq!(p.len(), 5_000);
        assert!(live_bound(&p).peak <= kind.capacity(), "{kind:?}");
    }
    // A 2 × 2-cell square has only 4 cells to give.
    let (p, cut) = perfect_packing(1, 10, 2, 2, 8).expect("generates");
    assert_eq!(p.len(), 4);
    assert!(p
        .buffers()
        .iter()
        .all(|b| b.size == 8 && b.upper - b.lower == 8));
    assert!(check(&p, &cut).is_empty());
}
