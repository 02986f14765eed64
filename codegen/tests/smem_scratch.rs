//! The scratch chooser on random conversions: every choice is a bijective shared layout whose
//! round trip, in the chooser's rounds and bytes, puts every element where the destination
//! layout wants it (in the interpreter); bad inputs are typed errors.

#![allow(clippy::restriction)] // test code: a failed check panics

use codegen::smem::kernels::round_trip_in_rounds;
use codegen::smem::{optimal_scratch, SmemError};
use linear_layout::LinearLayout;
use test_support::smem::{check_run, random_gf2_layout};

#[test]
fn random_conversions_round_trip_through_the_chosen_scratch() {
    let mut checked = 0;
    for seed in 1..=40u64 {
        let bits = [8, 16, 32][(seed % 3) as usize];
        let shape = [[64, 64], [32, 128], [128, 32]][(seed % 3) as usize];
        let warps = [4, 8][(seed % 2) as usize];
        let src = random_gf2_layout(shape, warps, seed, (seed % 4) as usize);
        let dst = random_gf2_layout(shape, warps, seed * 7919, (seed % 3) as usize);
        let s = optimal_scratch(&src, &dst, bits).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        // A bijection onto the tile: as many offsets as elements.
        let elements = shape[0] * shape[1];
        assert_eq!(
            1u64 << s.layout.in_dim_size_log2("offset").unwrap(),
            elements,
            "seed {seed}"
        );
        assert_eq!(
            s.bytes << s.rounds_log2,
            elements * u64::from(bits) / 8,
            "seed {seed}"
        );
        let k = round_trip_in_rounds("cvt", &s.layout, bits, &src, &dst, s.bytes)
            .unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        assert_eq!(
            u64::from(k.dynamic_shared_bytes),
            s.bytes,
            "seed {seed}: rounds {} scratch {:?}",
            s.rounds_log2,
            s.layout
        );
        check_run(&k, None).unwrap_or_else(|e| panic!("seed {seed}: {e}"));
        checked += 1;
    }
    assert_eq!(checked, 40);
}

#[test]
fn unsupported_conversions_are_typed_errors() {
    let l = random_gf2_layout([64, 64], 4, 3, 0);
    assert!(matches!(
        optimal_scratch(&l, &l, 12),
        Err(SmemError::Scratch { .. })
    ));
    let with_block = LinearLayout::from_bases(
        &[
            ("register", l.bases_of("register").unwrap()),
            ("lane", l.bases_of("lane").unwrap()),
            ("warp", l.bases_of("warp").unwrap()),
            ("block", vec![vec![0, 0]]),
        ],
        &l.out_dims(),
        false,
    )
    .unwrap();
    // A block basis that is zero is one CTA: fine.
    assert!(optimal_scratch(&with_block, &l, 16).is_ok());
}
