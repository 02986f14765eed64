//! The greedy packers and the independent checker:
//!
//! - known peaks on the public DSA cases (`tests/data/dsa/`) and on MiniMalloc's
//!   challenging A–K (`tests/data/minimalloc/`), matching the ratios the static-packing
//!   reference measured for program-order first fit (PTOAS) and size-descending best fit
//!   (TFLite);
//! - pypto's chained matmul (64 KB freed, then two 32 KB buffers reuse it);
//! - the checker accepts every greedy placement (generated suite, random problems), agrees with
//!   a brute-force pairwise check, and names each kind of hand-made violation;
//! - malformed CSV and random bytes never panic.

#![allow(clippy::restriction)] // test code: a failed check panics

use test_support::dsa_cases::DSA;

use std::path::PathBuf;

use packing::bound::live_bound;
use packing::check::{check, Violation};
use packing::csv::read_csv;
use packing::generator::{generate, suite, Kind};
use packing::greedy::{best_fit_by_size, first_fit_by_lifetime};
use packing::time_index::TimeIndex;
use packing::{Buffer, PackError, Placement, Problem};
use proptest::collection::vec;
use proptest::prelude::*;

fn data(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// Reads `tests/data/<path>` with the capacity its name carries (`a.6.csv` → 6).
fn load(path: &str) -> Problem {
    let full = data(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full:?}: {e}"));
    let name = full
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    let capacity = name
        .strip_suffix(".csv")
        .and_then(|s| s.rsplit('.').next())
        .and_then(|c| c.parse().ok());
    read_csv(&text, capacity).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn peak(p: &Problem, placement: &Placement) -> u64 {
    placement.peak(p).expect("one offset per buffer")
}

/// Checks `placement` and returns its peak: it must be valid except for the capacity, and
/// over-capacity exactly when the peak passes it.
fn checked_peak(p: &Problem, placement: &Placement) -> u64 {
    let height = peak(p, placement);
    let violations = check(p, placement);
    for v in &violations {
        assert!(
            matches!(v, Violation::OverCapacity { .. }),
            "unexpected violation {v}"
        );
    }
    let over = p.capacity().is_some_and(|c| height > c);
    assert_eq!(!violations.is_empty(), over, "{violations:?}");
    height
}

#[test]
fn dsa_cases_known_greedy_peaks() {
    for (file, lb, ff, bf) in DSA {
        let p = load(&format!("dsa/{file}"));
        assert_eq!(p.capacity(), Some(lb), "{file}");
        assert_eq!(live_bound(&p).peak, lb, "{file}");
        assert_eq!(
            checked_peak(&p, &first_fit_by_lifetime(&p).unwrap()),
            ff,
            "{file}"
        );
        assert_eq!(
            checked_peak(&p, &best_fit_by_size(&p).unwrap()),
            bf,
            "{file}"
        );
        // The reference: greedy lands at 1.29–1.38× LB on the gotchas, best fit gets e exactly.
        let ratio = bf as f64 / lb as f64;
        match file {
            "input.12.csv" | "e.12.csv" => assert_eq!(bf, lb, "{file}"),
            _ => assert!((1.28..=1.38).contains(&ratio), "{file}: {ratio}"),
        }
    }
}

#[test]
fn minimalloc_challenging_matches_the_reference_greedy_ratios() {
    // (instance, LB, first-fit peak, best-fit peak, reference prog_ff, reference tflite_bf):
    // the reference's §4 table, measured with its Python re-implementations.
    let cases = [
        ("A", 1_048_576, 1_608_704, 1_374_208, 1.53, 1.31),
        ("B", 1_048_576, 1_775_616, 1_412_096, 1.69, 1.35),
        ("C", 1_039_360, 1_769_472, 1_417_216, 1.70, 1.36),
        ("D", 986_112, 1_547_264, 1_315_840, 1.57, 1.33),
        ("E", 1_048_576, 1_981_440, 1_469_440, 1.89, 1.40),
        ("F", 1_048_576, 1_277_952, 1_441_792, 1.22, 1.38),
        ("G", 1_048_576, 1_343_488, 1_396_736, 1.28, 1.33),
        ("H", 1_048_576, 1_299_456, 1_421_312, 1.24, 1.36),
        ("I", 1_048_576, 1_629_184, 1_478_656, 1.55, 1.41),
        ("J", 989_184, 1_587_200, 1_333_248, 1.60, 1.35),
        ("K", 1_048_576, 2_102_272, 1_391_616, 2.00, 1.33),
    ];
    for (name, lb, ff, bf, ref_ff, ref_bf) in cases {
        let p = load(&format!("minimalloc/{name}.1048576.csv")).with_capacity(None);
        assert_eq!(live_bound(&p).peak, lb, "{name}");
        let got_ff = checked_peak(&p, &first_fit_by_lifetime(&p).unwrap());
        let got_bf = checked_peak(&p, &best_fit_by_size(&p).unwrap());
        assert_eq!((got_ff, got_bf), (ff, bf), "{name}");
        let round = |x: u64| (100.0 * x as f64 / lb as f64).round() / 100.0;
        assert_eq!((round(ff), round(bf)), (ref_ff, ref_bf), "{name}");
    }
}

#[test]
fn chained_matmul_reuses_the_freed_operand() {
    // pypto: an A-stationary producer's 64 KB operand, then the consumer's 2 × 32 KB double
    // buffers. Whole-slot reuse needs 96 KB; offset packing fits the 64 KB L0A.
    let p = Problem::new(
        vec![
            Buffer::new("producer_a", 0, 4, 65536).unwrap(),
            Buffer::new("consumer_a0", 4, 8, 32768).unwrap(),
            Buffer::new("consumer_a1", 4, 8, 32768).unwrap(),
        ],
        Some(65536),
    )
    .unwrap();
    assert_eq!(live_bound(&p).peak, 65536);
    for placement in [
        first_fit_by_lifetime(&p).unwrap(),
        best_fit_by_size(&p).unwrap(),
    ] {
        assert_eq!(placement.offsets, vec![0, 0, 32768]);
        assert_eq!(check(&p, &placement), vec![]);
    }
}

#[test]
fn fixed_offsets_and_odd_alignments_are_honoured() {
    let p = Problem::new(
        vec![
            Buffer::new("pinned", 0, 10, 4)
                .unwrap()
                .fixed_at(6)
                .unwrap(),
            Buffer::new("x", 0, 5, 6).unwrap().aligned(3).unwrap(),
            Buffer::new("y", 2, 8, 5).unwrap().aligned(3).unwrap(),
            Buffer::new("z", 8, 12, 2).unwrap().aligned(4).unwrap(),
        ],
        None,
    )
    .unwrap();
    let ff = first_fit_by_lifetime(&p).unwrap();
    // x fits under the pin at 0; y (aligned to 3) goes above it at 12; z at 0 (x and y ended).
    assert_eq!(ff.offsets, vec![6, 0, 12, 0]);
    assert_eq!(check(&p, &ff), vec![]);
    let bf = best_fit_by_size(&p).unwrap();
    // Size order x, y, z: x fills the 6-unit hole under the pin exactly, y goes on top.
    assert_eq!(bf.offsets, vec![6, 0, 12, 0]);
    assert_eq!(check(&p, &bf), vec![]);
}

#[test]
fn offsets_past_u64_name_the_buffer() {
    let p = Problem::new(
        vec![
            Buffer::new("huge", 0, 2, u64::MAX - 4).unwrap(),
            Buffer::new("next", 1, 3, 8).unwrap(),
        ],
        None,
    )
    .unwrap();
    let overflow = PackError::Overflow { id: "next".into() };
    assert_eq!(first_fit_by_lifetime(&p), Err(overflow.clone()));
    assert_eq!(best_fit_by_size(&p), Err(overflow));
    assert_eq!(
        check(
            &p,
            &Placement {
                offsets: vec![0, u64::MAX - 4]
            }
        ),
        vec![
            Violation::EndOverflows {
                id: "next".into(),
                offset: u64::MAX - 4
            },
            // Its range is unknown, so no overlap is claimed for it.
        ]
    );
}

#[test]
fn checker_accepts_greedy_on_the_generated_suite() {
    let mut over = 0;
    for instance in suite() {
        let p = instance.problem().unwrap();
        let lb = live_bound(&p).peak;
        for placement in [
            first_fit_by_lifetime(&p).unwrap(),
            best_fit_by_size(&p).unwrap(),
        ] {
            let height = checked_peak(&p, &placement);
            assert!(height >= lb, "{}", instance.file_name());
            if p.capacity().is_some_and(|c| height > c) {
                over += 1;
            }
        }
    }
    // Greedy misses the capacity on every perfect packing (both rules) and on some SMEM/TMEM
    // instances, though each fits at its live peak: that is what the exact solver is for.
    assert!(over > 20, "{over}");
}

#[test]
fn greedy_scales_to_large_instances() {
    let p = generate(Kind::SmemMixed, 3, 20_000)
        .unwrap()
        .with_capacity(None);
    let lb = live_bound(&p).peak;
    for placement in [
        first_fit_by_lifetime(&p).unwrap(),
        best_fit_by_size(&p).unwrap(),
    ] {
        assert_eq!(check(&p, &placement), vec![]);
        assert!(peak(&p, &placement) >= lb);
    }
}

#[test]
fn checker_names_each_violation() {
    let p = Problem::new(
        vec![
            Buffer::new("a", 0, 4, 8).unwrap().aligned(8).unwrap(),
            Buffer::new("b", 2, 6, 8).unwrap().fixed_at(16).unwrap(),
            Buffer::new("c", 3, 9, 4).unwrap(),
            Buffer::new("d", 4, 9, 4).unwrap(),
            Buffer::new("empty", 0, 9, 0).unwrap(),
        ],
        Some(24),
    )
    .unwrap();
    assert_eq!(
        check(
            &p,
            &Placement {
                offsets: vec![0, 16, 8, 12, 0]
            }
        ),
        vec![]
    );
    assert_eq!(
        check(
            &p,
            &Placement {
                offsets: vec![4, 8, 10, 22, 3]
            }
        ),
        vec![
            Violation::Misaligned {
                id: "a".into(),
                offset: 4,
                alignment: 8
            },
            Violation::FixedOffsetMoved {
                id: "b".into(),
                fixed: 16,
                got: 8
            },
            Violation::OverCapacity {
                id: "d".into(),
                end: 26,
                capacity: 24
            },
            Violation::Overlap {
                a: "a".into(),
                b: "b".into(),
                from: 8,
                to: 12
            },
            Violation::Overlap {
                a: "a".into(),
                b: "c".into(),
                from: 10,
                to: 12
            },
            Violation::Overlap {
                a: "b".into(),
                b: "c".into(),
                from: 10,
                to: 14
            },
        ]
    );
    assert_eq!(
        check(
            &p,
            &Placement {
                offsets: vec![0; 3]
            }
        ),
        vec![Violation::WrongLength {
            expected: 5,
            got: 3
        }]
    );
    let text = Violation::Overlap {
        a: "a".into(),
        b: "b".into(),
        from: 8,
        to: 12,
    }
    .to_string();
    assert_eq!(
        text,
        "buffers 'a' and 'b' are live at the same time and both occupy [8, 12)"
    );
}

/// A random problem: lifetimes in 0..60, sizes 0..64, alignments 1..=8 or 16, about one
/// buffer in eight pinned at a random aligned offset.
fn problem_strategy() -> impl Strategy<Value = Problem> {
    vec(
        (
            0u64..50,
            1u64..20,
            0u64..64,
            prop::sample::select(vec![1u64, 2, 3, 4, 5, 8, 16]),
            0u8..8,
            0u64..16,
        ),
        0..40,
    )
    .prop_map(|rows| {
        let buffers = rows
            .into_iter()
            .enumerate()
            .map(|(i, (lower, len, size, align, pin, slot))| {
                let b = Buffer::new(format!("b{i}"), lower, lower + len, size)
                    .and_then(|b| b.aligned(align))
                    .expect("valid by construction");
                if pin == 0 {
                    b.fixed_at(slot * align).expect("aligned by construction")
                } else {
                    b
                }
            })
            .collect();
        Problem::new(buffers, None).expect("unique ids")
    })
}

/// Every pair of buffers, the slow way.
fn brute_force_overlaps(p: &Problem, placement: &Placement) -> Vec<(String, String, u64, u64)> {
    let mut out = Vec::new();
    let b = p.buffers();
    for i in 0..b.len() {
        for j in i + 1..b.len() {
            if !b[i].overlaps_in_time(&b[j]) {
                continue;
            }
            let (oi, oj) = (placement.offsets[i], placement.offsets[j]);
            let from = oi.max(oj);
            let to = (oi + b[i].size).min(oj + b[j].size);
            if from < to {
                out.push((b[i].id.clone(), b[j].id.clone(), from, to));
            }
        }
    }
    out.sort();
    out
}

fn overlaps(violations: &[Violation]) -> Vec<(String, String, u64, u64)> {
    let mut out: Vec<_> = violations
        .iter()
        .filter_map(|v| match v {
            Violation::Overlap { a, b, from, to } => Some((a.clone(), b.clone(), *from, *to)),
            _ => None,
        })
        .collect();
    out.sort();
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, failure_persistence: None, ..ProptestConfig::default() })]

    /// Greedy placements are valid, apart from pinned buffers that collide with each other.
    #[test]
    fn greedy_placements_pass_the_checker(p in problem_strategy()) {
        let lb = live_bound(&p).peak;
        for placement in [first_fit_by_lifetime(&p).unwrap(), best_fit_by_size(&p).unwrap()] {
            let violations = check(&p, &placement);
            // Colliding pins can make a placement lower than LB; a valid one never is.
            prop_assert!(!violations.is_empty() || placement.peak(&p).unwrap() >= lb);
            for v in violations {
                let pinned = |id: &str| p.buffers().iter().any(|b| b.id == id && b.offset.is_some());
                match &v {
                    Violation::Overlap { a, b, .. } => prop_assert!(pinned(a) && pinned(b), "{}", v),
                    _ => prop_assert!(false, "{}", v),
                }
            }
        }
    }

    /// First fit puts every unpinned buffer at the lowest aligned offset free of the buffers
    /// placed before it (pinned ones and those earlier in program order).
    #[test]
    fn first_fit_is_lowest(p in problem_strategy()) {
        let placement = first_fit_by_lifetime(&p).unwrap();
        let b = p.buffers();
        let before = |j: usize, i: usize| {
            b[j].offset.is_some() || (b[j].lower, j) < (b[i].lower, i)
        };
        for i in (0..b.len()).filter(|&i| b[i].offset.is_none()) {
            let mut o = 0;
            while o < placement.offsets[i] {
                let clear = (0..b.len()).all(|j| {
                    j == i
                        || !before(j, i)
                        || !b[i].overlaps_in_time(&b[j])
                        || b[j].size == 0
                        || b[i].size == 0
                        || o + b[i].size <= placement.offsets[j]
                        || placement.offsets[j] + b[j].size <= o
                });
                prop_assert!(!clear, "{} fits lower, at {}", b[i].id, o);
                o += b[i].alignment;
            }
        }
    }

    /// The checker's overlaps are exactly the brute-force pairwise ones, on random placements.
    #[test]
    fn checker_agrees_with_brute_force(
        p in problem_strategy(),
        seed in vec(0u64..200, 40),
    ) {
        let offsets: Vec<u64> = (0..p.len()).map(|i| seed[i % seed.len()]).collect();
        let placement = Placement { offsets };
        prop_assert_eq!(overlaps(&check(&p, &placement)), brute_force_overlaps(&p, &placement));
    }

    /// The time index reports exactly the inserted buffers live during a query.
    #[test]
    fn time_index_agrees_with_brute_force(
        p in problem_strategy(),
        inserted in vec(any::<bool>(), 40),
        l in 0u64..70,
        len in 1u64..30,
    ) {
        let mut index = TimeIndex::new(&p);
        let mut expected = Vec::new();
        for (i, b) in p.buffers().iter().enumerate() {
            if inserted[i % inserted.len()] {
                index.insert(i);
                if b.lower < l + len && l < b.upper {
                    expected.push(i);
                }
            }
        }
        let mut got = index.overlapping(l, l + len);
        got.sort_unstable();
        prop_assert_eq!(got, expected);
    }

    /// Arbitrary text read as CSV is an error or a problem the packers and checker handle.
    #[test]
    fn random_csv_never_panics(text in "(id,lower,upper,size(,alignment)?(,offset)?\n)?([0-9a-z,\\- ]{0,24}\n){0,8}") {
        if let Ok(p) = read_csv(&text, Some(64)) {
            for placement in [first_fit_by_lifetime(&p), best_fit_by_size(&p)].into_iter().flatten() {
                let _ = check(&p, &placement);
            }
        }
    }

    /// Random bytes never panic the reader.
    #[test]
    fn random_bytes_never_panic(bytes in vec(any::<u8>(), 0..256)) {
        let text = String::from_utf8_lossy(&bytes);
        if let Ok(p) = read_csv(&text, None) {
            let _ = first_fit_by_lifetime(&p).map(|pl| check(&p, &pl));
        }
    }
}

#[test]
fn malformed_csv_is_an_error_naming_the_line() {
    let bad = [
        ("", 1),
        ("id,lower,upper\n", 1),
        ("id,lower,upper,size\na,0,1\n", 2),
        ("id,lower,upper,size\na,0,1,x\n", 2),
        ("id,lower,upper,size\na,0,1,4\nb,5,5,4\n", 3),
        ("id,lower,upper,size,alignment\na,0,1,4,0\n", 2),
        ("id,lower,upper,size\na,0,1,-4\n", 2),
    ];
    for (text, line) in bad {
        match read_csv(text, None) {
            Err(PackError::Csv { line: l, .. }) => assert_eq!(l, line, "{text:?}"),
            Err(PackError::EmptyLifetime { id, .. }) => assert_eq!(id, "b", "{text:?}"),
            Err(PackError::ZeroAlignment { id }) => assert_eq!(id, "a", "{text:?}"),
            other => panic!("{text:?}: {other:?}"),
        }
    }
}
