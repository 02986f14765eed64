//! [`tile_laps`] on the real TLX kernels: every persistent one cut into the K laps of its
//! tiles — the causal ones' tiles of different lengths among them — and every other refused.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{
    read_kernel, tile_laps, HazardError, KernelTrace, LapKey, LapKinds, LapModel, ReadOptions,
    TileLaps, TilePlace, TimelineKind,
};
use test_support::tlx_kernels::{dump, read_launch as read_at, KERNELS};

/// The K laps of each tile at the reader's defaults: three tiles a CLC kernel's CTA, `H` = 2
/// `fa_ws_persistent`'s; `N_CTX` left out, 4 K laps a tile, or R + 1 for a ring of R slots
/// (`ReadOptions::laps`); a causal tile at row m, 2 (m + 1).
const TILES: [(&str, &[u32]); 8] = [
    ("fa_bwd_mxfp8", &[4, 4, 4, 4]),
    ("fa_clc", &[4, 4, 4]),
    ("fa_clc_rescale", &[2, 4, 6]),
    ("fa_fwd_mxfp8", &[5, 5, 5]),
    ("fa_fwd_persistent", &[4, 4, 4]),
    ("fa_fwd_persistent_hd64", &[7, 7, 7]),
    ("fa_fwd_persistent_rescale", &[2, 4, 6]),
    ("fa_ws_persistent", &[4, 4]),
];

/// What every cut must be: each partition's laps in program order, an engine op no earlier
/// than what issues it, every partition that runs a K loop present in every K lap.
fn assert_cut(k: &str, kt: &KernelTrace, cut: &TileLaps) {
    let trace = &kt.trace;
    assert_eq!(cut.laps.len(), trace.events.len(), "{k}");
    assert_eq!(cut.tiles.iter().sum::<u32>(), cut.trip_count, "{k}");
    let mut last = vec![0u32; trace.timelines.len()];
    let mut present = vec![vec![false; cut.trip_count as usize]; trace.timelines.len()];
    for (e, event) in trace.events.iter().enumerate() {
        let (t, lap) = (event.timeline.0, cut.laps[e]);
        assert!(lap <= cut.trip_count, "{k}: event {e} at lap {lap}");
        if trace.timelines[t].kind == TimelineKind::Partition {
            assert!(
                lap >= last[t],
                "{k}: event {e} at lap {lap} after lap {}",
                last[t]
            );
            last[t] = lap;
            if kt.origins[e].induction.len() == 2 {
                present[t][lap as usize] = true;
            }
        }
        for p in &event.after {
            assert!(
                lap >= cut.laps[p.0],
                "{k}: event {e} at lap {lap} before its issuer"
            );
        }
    }
    for (t, laps) in present.iter().enumerate() {
        if laps.iter().any(|&x| x) {
            // (a partition that does a tile's first K lap before its loop has it in lap 0)
            let missing: Vec<usize> = (0..laps.len())
                .filter(|&l| {
                    !laps[l] && cut.place(l as u32).is_some_and(|p| p.1 != TilePlace::First)
                })
                .collect();
            assert!(
                missing.is_empty(),
                "{k}: timeline {t} runs no K iteration in laps {missing:?}"
            );
        }
    }
}

#[test]
fn every_persistent_kernel_is_cut_into_the_k_laps_of_its_tiles() {
    for k in KERNELS {
        let kt = read_kernel(&dump(k, "before"), &ReadOptions::default()).unwrap();
        match (tile_laps(&kt), TILES.iter().find(|x| x.0 == k)) {
            (Ok(cut), Some((_, tiles))) => {
                assert_eq!(cut.tiles, *tiles, "{k}");
                assert_cut(k, &kt, &cut);
            }
            (Err(HazardError::Unsupported { reason, .. }), None) => {
                assert!(
                    reason.starts_with("no tile loop around a K loop"),
                    "{k}: {reason}"
                );
            }
            (cut, expected) => panic!("{k}: {cut:?}, expected {expected:?}"),
        }
    }
}

#[test]
fn a_causal_tile_runs_to_its_diagonal() {
    // The tile grid of `hazard_kernels.rs` (first tile 0 … 5, a launch of 1 … 6 programs),
    // N_CTX = 2048: 8 row tiles of 2 (m + 1) K laps. Every K lap of a tile is one place of it.
    let mut lengths = std::collections::BTreeSet::new();
    for k in ["fa_clc_rescale", "fa_fwd_persistent_rescale"] {
        let text = dump(k, "before");
        for num_programs in 1..=6 {
            for program_id in 0..num_programs.min(6) {
                let (kt, cut) = read_at(&text, 2048, 2, (program_id, num_programs), None);
                assert_cut(k, &kt, &cut);
                let mut lap = 0;
                for (t, &n) in cut.tiles.iter().enumerate() {
                    assert!(
                        n % 2 == 0 && (2..=16).contains(&n),
                        "{k}: tile {t} of {n} laps"
                    );
                    lengths.insert(n);
                    for i in 0..n {
                        let place = match i {
                            0 => TilePlace::First,
                            1 if n == 2 => TilePlace::LastOfTwo,
                            i if i + 1 == n => TilePlace::Last,
                            1 => TilePlace::Second,
                            _ => TilePlace::Middle,
                        };
                        assert_eq!(cut.place(lap), Some((t, place)), "{k}: lap {lap}");
                        lap += 1;
                    }
                }
                assert_eq!(cut.place(lap), None);
            }
        }
    }
    // Tiles of every length a row of 2048 has: 2, 4, …, 16 laps.
    assert_eq!(
        lengths.into_iter().collect::<Vec<_>>(),
        [2, 4, 6, 8, 10, 12, 14, 16]
    );
}

/// Lap kinds ([`TileLaps::kinds`]) at K laps a tile and tiles a CTA doubled: a kernel's laps
/// take a few kinds, however long its tiles and however many — tiles of 8 K laps (`N_CTX` =
/// 1024), CLC handing out 12 after the first (or `H` = 13), against tiles of 16 (2048), 24
/// after the first (`H` = 25).
const KINDS: [(&str, usize); 6] = [
    ("fa_clc", 24),
    ("fa_clc_rescale", 20),
    ("fa_fwd_persistent", 24),
    ("fa_fwd_persistent_hd64", 24),
    ("fa_fwd_persistent_rescale", 20),
    ("fa_ws_persistent", 19),
];

#[test]
fn the_laps_of_every_tile_length_take_a_few_kinds() {
    for (k, expected) in KINDS {
        let text = dump(k, "before");
        for (n_ctx, tiles) in [(1024, 12), (2048, 24)] {
            let heads = (k == "fa_ws_persistent").then_some(tiles + 1);
            let (kt, cut) = read_at(&text, n_ctx, tiles, (0, 1), heads);
            assert_cut(k, &kt, &cut);
            let kinds = cut.kinds(&kt.trace);
            assert_eq!(kinds.len(), cut.trip_count as usize + 1);
            let distinct = kinds.iter().max().map_or(0, |m| m + 1);
            assert_eq!(
                distinct,
                expected,
                "{k} at N_CTX = {n_ctx}, {} tiles",
                cut.tiles.len()
            );
        }
    }
}

/// The kinds of a causal kernel's laps across launches ([`LapKinds`]): read at every tile
/// position of a launch of up to 6 programs, with CLC handing out 2 and 5 tiles (`N_CTX` =
/// 2048: tiles of 2 … 16 K laps), they are 35, and 53 pairs of kinds follow one another;
/// launches with longer rows (4096: up to 32 K laps a tile), more tiles a CTA (11, 23) and
/// more programs (7, 12) add none; one with shorter rows adds one.
#[test]
fn the_lap_kinds_of_a_causal_kernel_across_launches() {
    let text = dump("fa_clc_rescale", "before");
    let mut kinds = LapKinds::new();
    let mut add = |n_ctx: i64, clc_tiles: i64, program_id: i64, num_programs: i64| {
        let (kt, cut) = read_at(&text, n_ctx, clc_tiles, (program_id, num_programs), None);
        let laps = kinds.add(&kt.trace, &cut);
        assert_eq!(laps.len(), cut.trip_count as usize + 1);
        (kinds.len(), kinds.follows().len())
    };
    let mut seen = (0, 0);
    for clc_tiles in [2, 5] {
        for num_programs in 1..=6 {
            for program_id in 0..num_programs {
                seen = add(2048, clc_tiles, program_id, num_programs);
            }
        }
    }
    assert_eq!(seen, (35, 53));
    for (n_ctx, clc_tiles, program_id, num_programs) in [
        (4096, 11, 0, 1),
        (4096, 11, 3, 7),
        (4096, 5, 5, 12),
        (2048, 23, 0, 1),
    ] {
        assert_eq!(
            add(n_ctx, clc_tiles, program_id, num_programs),
            seen,
            "N_CTX = {n_ctx}, {clc_tiles} CLC tiles, program {program_id} of {num_programs}"
        );
    }
    // Yet the reads sampled are not every read: rows of 1024, program 5 of 6 with 11 tiles
    // from CLC, run a lap of a kind none of the above ran (its tile ids lie past the 4 tiles
    // a launch of H = Z = 1 has, where the reader runs the kernel's arithmetic all the same).
    // Kinds read from launches are evidence, not the automaton.
    assert_eq!(add(1024, 11, 5, 6), (36, 55));
}

/// A lap's kind is what the kernel's arithmetic says ([`TileLaps::keys`]): on every read of
/// the persistent kernels below — each tile position of a launch of up to 4 programs, CLC
/// handing out 2 and 5 tiles, `N_CTX` = 2048; of 8 programs, 0 and 1 tiles; of up to 3, 5
/// tiles, `H` = 4 (the causal kernel's row 0 later in a CTA); one read of rows of 1024 —
/// laps of one key
/// (place in the tile, K lap mod 6, tile mod 2, first or last tile) are laps of one kind. A
/// coarser key is not enough: K lap mod 3, or no tile residue, puts laps of different kinds
/// under one key. Each lap's key follows the one before by [`LapKey::successors`], and the
/// keys read are among those the arithmetic reaches.
#[test]
fn a_laps_kind_is_its_place_and_its_counters_residues() {
    for k in ["fa_clc", "fa_clc_rescale", "fa_ws_persistent"] {
        let text = dump(k, "before");
        let mut kinds = LapKinds::new();
        // Per (K period, tile period): each key's kind, and the laps whose kind differs.
        let periods = [(6, 2), (3, 2), (6, 1)];
        let mut of_key = vec![std::collections::BTreeMap::new(); periods.len()];
        let mut differ = vec![0usize; periods.len()];
        // (N_CTX, CLC tiles, program, programs, H)
        let mut reads = vec![(1024, 11, 5, 6, 1)];
        reads.extend((0..8).map(|p| (2048, 0, p, 8, 1)));
        reads.extend((0..8).map(|p| (2048, 1, p, 8, 1)));
        for num_programs in 1..=3 {
            reads.extend((0..num_programs).map(|p| (2048, 5, p, num_programs, 4)));
        }
        let even = k == "fa_clc_rescale";
        let mut read_keys = std::collections::BTreeSet::new();
        for clc_tiles in [2, 5] {
            for num_programs in 1..=4 {
                reads.extend((0..num_programs).map(|p| (2048, clc_tiles, p, num_programs, 1)));
            }
        }
        for (n_ctx, clc_tiles, program_id, num_programs, heads) in reads {
            let heads = if k == "fa_ws_persistent" {
                clc_tiles + 1
            } else {
                heads
            };
            let (kt, cut) = read_at(
                &text,
                n_ctx,
                clc_tiles,
                (program_id, num_programs),
                Some(heads),
            );
            let laps = kinds.add(&kt.trace, &cut);
            // Each lap's key follows the one before by the counters' arithmetic.
            let keys = cut.keys(6, 2);
            for w in keys.windows(2) {
                assert!(
                    w[0].successors(6, 2, even).contains(&w[1]),
                    "{k}: {:?} then {:?}",
                    w[0],
                    w[1]
                );
            }
            read_keys.extend(keys);
            for (i, &(kp, tp)) in periods.iter().enumerate() {
                for (key, &kind) in cut.keys(kp, tp).iter().zip(&laps) {
                    if *of_key[i].entry(*key).or_insert(kind) != kind {
                        differ[i] += 1;
                    }
                }
            }
        }
        assert_eq!(differ[0], 0, "{k}: laps of one key, of different kinds");
        assert!(differ[1] > 0 && differ[2] > 0, "{k}: {differ:?}");
        assert!(of_key[0].len() >= kinds.len() - 1, "{k}"); // (the epilogue has no key)
        let reachable = LapModel::new(6, 2, even).reachable();
        // What the arithmetic reaches from a CTA's first lap (any tile length, or an even one)
        // against what the reads ran: a causal kernel's unread keys are all the last lap of
        // a row-0 tile (2 K laps) run after a CTA's first tile, which takes a launch whose
        // tiles put row 0 there; for the others, reads at one N_CTX run tiles of one length.
        let unread: Vec<&LapKey> = reachable.difference(&read_keys).collect();
        let expected = match k {
            "fa_clc" => (176, 70),
            "fa_clc_rescale" => (96, 88),
            _ => (176, 64),
        };
        assert_eq!((reachable.len(), read_keys.len()), expected, "{k}");
        assert!(read_keys.is_subset(&reachable), "{k}");
        if even {
            assert!(
                unread
                    .iter()
                    .all(|x| x.place == TilePlace::LastOfTwo && !x.first_tile),
                "{k}: {unread:?}"
            );
        }
    }
}
