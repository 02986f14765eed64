//! [`LapModel`] on the real TLX kernels: the causal CLC kernels' K laps are one kind per key,
//! what every op comes after included, and launches chosen for it run every key the
//! counters' arithmetic reaches; a read that breaks its key's kind is refused.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{EventKind, HazardError, KernelTrace, LapKinds, LapModel, TileLaps};
use test_support::tlx_kernels::{dump, read_launch};

/// A read of kernel `text` at one launch — `N_CTX`, the tiles CLC hands out after the first,
/// the program, the number of programs, `H` — and its cut.
fn read_at(
    text: &str,
    (n_ctx, clc_tiles, program_id, num_programs, heads): (i64, i64, i64, i64, i64),
) -> (KernelTrace, TileLaps) {
    read_launch(
        text,
        n_ctx,
        clc_tiles,
        (program_id, num_programs),
        Some(heads),
    )
}

/// Launches whose CTAs between them run every key a causal CLC kernel's arithmetic reaches
/// (`N_CTX`, CLC tiles, program, programs, `H`). Tiles are handed out four heads to a row
/// (a group of `4 · ⌈N_CTX / 256⌉` tile ids): with `H` = 8, the tiles past a group's first
/// run row 0 again, after a CTA's first tile — the last lap of a tile of two K laps, at every
/// residue, the CTA's last tile or not; a launch of one tile a CTA runs its first and last
/// tile at once, of every length up to 10 K laps; a CTA's first tile runs up to 10.
fn causal_launches() -> Vec<(i64, i64, i64, i64, i64)> {
    let mut launches = Vec::new();
    for clc_tiles in [2, 5] {
        for num_programs in 1..=3 {
            launches.extend((0..num_programs).map(|p| (2048, clc_tiles, p, num_programs, 1)));
        }
    }
    // CTAs whose first tile runs 8 and 10 K laps.
    launches.extend([(2048, 2, 3, 4, 1), (2048, 2, 4, 5, 1)]);
    launches.extend((0..=4).chain(16..=19).map(|clc| (1024, clc, 0, 1, 8)));
    launches.push((1024, 0, 4, 5, 8));
    launches.extend([8, 12, 16].map(|p| (2048, 0, p, 32, 4)));
    launches
}

/// Every lap of every launch above is of its key's kind, what its ops come after included —
/// and across laps an op comes only after its own lane's op before it, so which op that is
/// follows from the kinds run before. The launches run every one of the 96 keys the
/// arithmetic reaches from a CTA's first lap: there is a kind for every lap an explorer over
/// keys can take. The kinds are the laps' shapes ([`LapKinds`]) but one: a CTA's first lap
/// has the shape of a later tile's first lap, its lanes with nothing before them. The
/// explorer over keys finds nothing wrong in the first 2,000 states of either.
#[test]
fn a_causal_kernels_laps_are_one_kind_per_key_and_every_key_is_read() {
    for k in ["fa_clc_rescale", "fa_fwd_persistent_rescale"] {
        let text = dump(k, "before");
        let mut model = LapModel::new(6, 2, true);
        let mut shapes = LapKinds::new();
        for launch in causal_launches() {
            let (kt, cut) = read_at(&text, launch);
            let kinds = model.add(&kt.trace, &cut).unwrap();
            assert_eq!(kinds.len(), cut.trip_count as usize + 1, "{k} {launch:?}");
            shapes.add(&kt.trace, &cut);
        }
        assert_eq!(model.reachable().len(), 96, "{k}");
        assert_eq!(model.missing(), [], "{k}");
        assert_eq!(model.laps(), 918, "{k}");
        assert_eq!((model.kinds().len(), shapes.len()), (48, 47), "{k}");
        // Seven lanes live across laps: the five partitions, the MMA issuer's tensor core and
        // the default region; every op that reaches across laps is a lane's op after its own
        // op before.
        assert_eq!(model.lanes().len(), 7, "{k}");
        let reaching = model
            .kinds()
            .iter()
            .flatten()
            .filter(|o| o.previous)
            .count();
        assert!(reaching > 0, "{k}");
        // The explorer over keys runs the model: nothing goes wrong in the states it follows
        // (it does not finish: `docs/hazard-check.md`, *Tiles of every length*).
        let every = model.explore(2_000);
        assert!(!every.goes_wrong(), "{k}: {every:?}");
        assert!(every.missing.is_empty() && !every.complete, "{k}");
    }
}

/// A read whose lap is not its key's kind read before is refused, naming the event and its
/// lap, and leaves the model as it was: here one wait of a later tile's lap flips its phase.
/// So is a cut whose keys do not follow one another by the counters' arithmetic (a causal
/// tile of 3 K laps).
#[test]
fn a_read_that_breaks_its_keys_kind_is_refused() {
    let text = dump("fa_clc_rescale", "before");
    let mut model = LapModel::new(6, 2, true);
    let (kt, cut) = read_at(&text, (2048, 5, 0, 1, 1));
    model.add(&kt.trace, &cut).unwrap();
    let (kinds, laps) = (model.kinds().len(), model.laps());
    // The same launch with one wait's phase flipped, in tile 2's first lap (lap 6).
    let mut trace = kt.trace.clone();
    let (e, _) = trace
        .events
        .iter()
        .enumerate()
        .find(|&(e, x)| cut.laps[e] == 6 && matches!(x.kind, EventKind::Wait { .. }))
        .unwrap();
    if let EventKind::Wait { parity, .. } = &mut trace.events[e].kind {
        *parity ^= 1;
    }
    // Its lap's key was read at lap 6 of the first read: the same launch.
    let refused = model.add(&trace, &cut).unwrap_err();
    assert!(
        matches!(refused, HazardError::LapKind { lap: 6, .. }),
        "{refused}"
    );
    assert!(refused.to_string().contains("another kind"), "{refused}");
    assert_eq!((model.kinds().len(), model.laps()), (kinds, laps));
    // A tile of 3 K laps: odd, where the causal kernel's are even.
    let mut odd = cut.clone();
    odd.tiles[1] -= 1;
    odd.tiles[2] += 1;
    let refused = model.add(&kt.trace, &odd).unwrap_err();
    assert!(refused.to_string().contains("does not follow"), "{refused}");
    assert_eq!(refused.exit_code(), 3);
}

/// What is out of the model: the mxfp8 kernels' ops reach across laps to other lanes' ops — a
/// TMA store or reduce waited for before its buffer is written again, a lap or a tile later;
/// (`fa_bwd_mxfp8`) the two warp groups of the default partition ordered by the compiler's
/// barrier — refused by name (two tiles of two K laps, and of four). Their tiles are
/// proved as one lap each (`docs/hazard-check.md`, *Every tile count*).
#[test]
fn an_order_across_laps_to_another_lane_is_refused() {
    for (k, n_ctx) in [("fa_bwd_mxfp8", 256), ("fa_fwd_mxfp8", 512)] {
        let text = dump(k, "before");
        let (kt, cut) = read_at(&text, (n_ctx, 1, 0, 1, 1));
        let refused = LapModel::new(6, 2, false).add(&kt.trace, &cut).unwrap_err();
        assert!(
            refused.to_string().contains("not its lane's op before it"),
            "{k}: {refused}"
        );
    }
}
