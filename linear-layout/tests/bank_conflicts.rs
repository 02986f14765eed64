//! `linear_layout::analysis::bank_conflicts` against Triton 3.9 / Gluon's
//! `ttgl.bank_conflicts`, recorded by `tools/gen_family_goldens.py` in
//! `tests/data/families/bank_conflicts.json`, plus the error cases Triton would abort on.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::gluon_spec::{layout, load_cases};
use linear_layout::analysis::{
    bank_conflicts, bank_conflicts_at_vector, largest_vectorisation, widest_conflict_free_vector,
    DEFAULT_NUM_BANKS,
};
use linear_layout::{LayoutError, LinearLayout};

#[test]
fn every_golden_case_agrees() {
    let cases = load_cases("bank_conflicts");
    assert_eq!(cases.len(), 99);
    let mut failures = Vec::new();
    for case in &cases {
        let ok = &case["expect"]["ok"];
        let reg = layout(&ok["reg_layout"]);
        let smem = layout(&ok["shared_layout"]);
        let bits = case["args"]["bitwidth"].as_u64().expect("bitwidth") as u32;
        let want = ok["conflicts"].as_u64().expect("conflicts");
        match bank_conflicts(&reg, &smem, bits, DEFAULT_NUM_BANKS) {
            Ok(c) if c.conflicts == want && c.wavefronts == want + 1 => {}
            other => failures.push(format!("{}: want {want}, got {other:?}", case["id"])),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} disagree:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

#[test]
fn widest_conflict_free_vector_is_conflict_free_and_widest() {
    for case in load_cases("bank_conflicts") {
        let ok = &case["expect"]["ok"];
        let (reg, smem) = (layout(&ok["reg_layout"]), layout(&ok["shared_layout"]));
        let bits = case["args"]["bitwidth"].as_u64().expect("bitwidth") as u32;
        let full = bank_conflicts(&reg, &smem, bits, 32).expect("golden case");
        let widest = widest_conflict_free_vector(&reg, &smem, bits, 32).expect("golden case");
        if full.conflicts == 0 {
            assert_eq!(widest, Some(full.vector_elems), "{}", case["id"]);
        }
        let mut v = full.vector_elems;
        while v >= 1 {
            let c = bank_conflicts_at_vector(&reg, &smem, bits, 32, v).expect("narrower vector");
            match widest {
                Some(w) if v == w => assert_eq!(c.conflicts, 0, "{}", case["id"]),
                Some(w) if v > w => assert!(c.conflicts > 0, "{}", case["id"]),
                None => assert!(c.conflicts > 0, "{}", case["id"]),
                _ => {}
            }
            v /= 2;
        }
    }
}

fn row_major(rows: u64, cols: u64) -> LinearLayout {
    let mut bases = Vec::new();
    for i in 0..cols.trailing_zeros() {
        bases.push(vec![0, 1 << i]);
    }
    for i in 0..rows.trailing_zeros() {
        bases.push(vec![1 << i, 0]);
    }
    LinearLayout::from_bases(
        &[("offset", bases)],
        &[("dim0", rows), ("dim1", cols)],
        true,
    )
    .expect("row-major offsets")
}

/// Lane `i` holds row `i`, registers walk the columns.
fn row_per_lane(cols: u64) -> LinearLayout {
    let regs = (0..cols.trailing_zeros())
        .map(|i| vec![0, 1 << i])
        .collect();
    let lanes = (0..5).map(|i| vec![1 << i, 0]).collect();
    LinearLayout::from_bases(
        &[("register", regs), ("lane", lanes)],
        &[("dim0", 32), ("dim1", cols)],
        true,
    )
    .expect("row per lane")
}

#[test]
fn bank_count_is_a_parameter() {
    // 32 lanes × one f32 column each: 32-way conflict on 32 banks. With 64 banks the rows are
    // 64 words wide, so each pair of rows shares a bank row and half the conflicts go.
    let reg = row_per_lane(32);
    let smem = row_major(32, 32);
    assert_eq!(bank_conflicts(&reg, &smem, 32, 32).unwrap().conflicts, 7);
    let c1 = bank_conflicts_at_vector(&reg, &smem, 32, 32, 1).unwrap();
    assert_eq!(c1.conflicts, 31);
    let c64 = bank_conflicts_at_vector(&reg, &smem, 32, 64, 1).unwrap();
    assert_eq!(c64.conflicts, 15);
}

#[test]
fn register_broadcast_is_ignored() {
    let reg = row_per_lane(8);
    let bcast = reg
        .product(&LinearLayout::zeros_1d(2, "register", "dim1", 1).unwrap())
        .unwrap();
    assert_eq!(
        bcast.bases_of("register").unwrap().last(),
        Some(&vec![0, 0])
    );
    let smem = row_major(32, 8);
    assert_eq!(
        bank_conflicts(&bcast, &smem, 16, 32).unwrap(),
        bank_conflicts(&reg, &smem, 16, 32).unwrap()
    );
}

#[test]
fn lane_broadcast_never_conflicts() {
    // Every lane holds the same 8 elements: one address, one wavefront.
    let reg = LinearLayout::from_bases(
        &[
            ("register", (0..3).map(|i| vec![1 << i]).collect()),
            ("lane", vec![vec![0]; 5]),
        ],
        &[("dim0", 8)],
        true,
    )
    .unwrap();
    let smem = LinearLayout::identity_1d(8, "offset", "dim0").unwrap();
    let c = bank_conflicts(&reg, &smem, 16, 32).unwrap();
    assert_eq!((c.conflicts, c.vector_elems), (0, 8));
}

#[test]
fn out_dim_order_does_not_matter() {
    let reg = row_per_lane(8);
    let smem = row_major(32, 8);
    let swapped = smem.transpose_outs(&["dim1", "dim0"]).unwrap();
    assert_eq!(
        bank_conflicts(&reg, &smem, 16, 32).unwrap(),
        bank_conflicts(&reg, &swapped, 16, 32).unwrap()
    );
}

#[test]
fn invalid_input_is_a_typed_error() {
    let reg = row_per_lane(8);
    let smem = row_major(32, 8);
    // element widths and bank counts
    assert!(matches!(
        bank_conflicts(&reg, &smem, 12, 32),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        bank_conflicts(&reg, &smem, 0, 32),
        Err(LayoutError::NotPowerOfTwo { .. })
    ));
    assert!(matches!(
        bank_conflicts(&reg, &smem, 256, 32),
        Err(LayoutError::InvalidParameter { .. })
    ));
    assert!(matches!(
        bank_conflicts(&reg, &smem, 16, 24),
        Err(LayoutError::InvalidParameter { .. })
    ));
    assert!(matches!(
        bank_conflicts(&reg, &smem, 16, 2),
        Err(LayoutError::InvalidParameter { .. })
    ));
    // missing dims
    let no_offset = smem.rename_in_dim("offset", "row").unwrap();
    assert!(matches!(
        bank_conflicts(&reg, &no_offset, 16, 32),
        Err(LayoutError::UnknownDim { .. })
    ));
    let no_register = reg.rename_in_dim("register", "reg").unwrap();
    assert!(matches!(
        bank_conflicts(&no_register, &smem, 16, 32),
        Err(LayoutError::UnknownDim { .. })
    ));
    let no_lane = reg.sublayout(&["register"], &["dim0", "dim1"]).unwrap();
    assert!(matches!(
        bank_conflicts(&no_lane, &smem, 16, 32),
        Err(LayoutError::UnknownDim { .. })
    ));
    // different tensors
    let bigger = row_major(64, 8);
    assert!(matches!(
        bank_conflicts(&reg, &bigger, 16, 32),
        Err(LayoutError::SizeMismatch { .. })
    ));
    let renamed = LinearLayout::identity_1d(256, "offset", "x").unwrap();
    assert!(matches!(
        bank_conflicts(&reg, &renamed, 16, 32),
        Err(LayoutError::DimsMismatch { .. })
    ));
    // a shared layout that does not cover the tensor
    let half = LinearLayout::from_bases(
        &[(
            "offset",
            smem.bases_of("offset")
                .unwrap()
                .into_iter()
                .take(7)
                .collect(),
        )],
        &[("dim0", 32), ("dim1", 8)],
        false,
    )
    .unwrap();
    assert!(bank_conflicts(&reg, &half, 16, 32).is_err());
    // a vector wider than the copy allows
    assert!(bank_conflicts_at_vector(&reg, &smem, 16, 32, 3).is_err());
}

#[test]
fn empty_and_tiny_layouts_do_not_panic() {
    let empty = LinearLayout::empty();
    assert!(bank_conflicts(&empty, &empty, 16, 32).is_err());
    // one lane, one element
    let reg = LinearLayout::from_bases(
        &[("register", vec![]), ("lane", vec![])],
        &[("dim0", 1)],
        true,
    )
    .unwrap();
    let smem = LinearLayout::identity_1d(1, "offset", "dim0").unwrap();
    let c = bank_conflicts(&reg, &smem, 8, 32).unwrap();
    assert_eq!((c.conflicts, c.vector_elems), (0, 1));
    // 4 f8 in 4 registers: a 32-bit vector in a 4-element buffer
    let reg = LinearLayout::from_bases(
        &[
            ("register", vec![vec![1], vec![2]]),
            ("lane", vec![vec![0]; 5]),
        ],
        &[("dim0", 4)],
        true,
    )
    .unwrap();
    let smem = LinearLayout::identity_1d(4, "offset", "dim0").unwrap();
    let c = bank_conflicts(&reg, &smem, 8, 32).unwrap();
    assert_eq!((c.conflicts, c.vector_elems), (0, 4));
    assert_eq!(
        largest_vectorisation(&reg.invert_and_compose(&smem).unwrap(), 8, None)
            .unwrap()
            .0,
        4
    );
}

/// Hand-made cases checked against Triton 3.9 (`ttgl.bank_conflicts` on Gluon's
/// `DistributedLinearLayout` / `SharedLinearLayout`): 64-bit elements, which the family goldens
/// do not cover, and a few row/column patterns.
#[test]
fn more_cases_recorded_from_triton() {
    type Bases = Vec<Vec<u64>>;
    let b = |v: &[[u64; 2]]| -> Bases { v.iter().map(|x| x.to_vec()).collect() };
    let rows = |n: u32| (0..n).map(|i| [1u64 << i, 0]).collect::<Vec<_>>();
    let cols = |n: u32| (0..n).map(|i| [0, 1u64 << i]).collect::<Vec<_>>();
    let cat = |a: Vec<[u64; 2]>, c: Vec<[u64; 2]>| a.into_iter().chain(c).collect::<Vec<_>>();
    // (register, lane, offset, shape, bits, Triton's count)
    let cases: Vec<(Bases, Bases, Bases, [u64; 2], u32, u64)> = vec![
        (
            b(&cols(2)),
            b(&rows(5)),
            b(&cat(cols(2), rows(5))),
            [32, 4],
            64,
            1,
        ),
        (
            b(&rows(2)),
            b(&cols(5)),
            b(&cat(cols(5), rows(2))),
            [4, 32],
            64,
            0,
        ),
        (
            b(&cols(5)),
            b(&rows(5)),
            b(&cat(cols(5), rows(5))),
            [32, 32],
            32,
            7,
        ),
        (
            b(&cols(4)),
            b(&rows(5)),
            b(&cat(cols(4), rows(5))),
            [32, 16],
            16,
            1,
        ),
        (
            b(&cols(3)),
            b(&rows(5)),
            b(&cat(cols(3), rows(5))),
            [32, 8],
            16,
            0,
        ),
        (
            b(&cols(3)),
            b(&rows(5)),
            b(&cat(rows(5), cols(3))),
            [32, 8],
            16,
            0,
        ),
        (
            b(&cols(2)),
            b(&rows(5)),
            b(&cat(cols(2), rows(5))),
            [32, 4],
            32,
            0,
        ),
    ];
    for (i, (regs, lanes, offsets, [d0, d1], bits, want)) in cases.into_iter().enumerate() {
        let outs = [("dim0", d0), ("dim1", d1)];
        let reg =
            LinearLayout::from_bases(&[("register", regs), ("lane", lanes)], &outs, true).unwrap();
        let smem = LinearLayout::from_bases(&[("offset", offsets)], &outs, true).unwrap();
        assert_eq!(
            bank_conflicts(&reg, &smem, bits, 32).unwrap().conflicts,
            want,
            "case {i}"
        );
    }
}
