//! [`LapModel::explore`] against the explorer of one launch ([`explore`]): small persistent
//! programs — a producer and a consumer over tiles of different lengths, a ring of K slots
//! and a tile buffer of two — right and with seeded bugs. Every sequence of tiles where the
//! finite explorer finds a race or a hang is one the explorer over keys goes wrong on, and
//! what it finds replays: its witness, read as tiles and unrolled, goes wrong in the finite
//! explorer too.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{
    explore, Cells, EveryTileLength, LapKey, LapModel, Space, TileLaps, TilePlace, Trace,
    TraceBuilder,
};

/// What a toy program gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Bug {
    None,
    /// The consumer frees the tile buffer at the tile's first lap, still reading it after.
    EarlyTileRelease,
    /// The consumer frees a K slot before reading it.
    EarlySlotRelease,
    /// The producer waits on the tile buffer with the phase of the K counter (K laps over the
    /// ring's slots) instead of the tile counter's: a phase of the wrong counter.
    TilePhaseFromK,
}

/// A producer and a consumer over `tiles` (K laps each): a ring of `ring` K slots, a tile
/// buffer of two; each event's lap, the K laps one after another.
fn unroll(ring: u32, bug: Bug, tiles: &[u32]) -> (Trace, TileLaps) {
    let mut t = TraceBuilder::new();
    let (p, c) = (t.partition("producer"), t.partition("consumer"));
    let full: Vec<_> = (0..ring)
        .map(|s| t.barrier(&format!("full[{s}]"), 1).unwrap())
        .collect();
    let empty: Vec<_> = (0..ring)
        .map(|s| t.barrier(&format!("empty[{s}]"), 1).unwrap())
        .collect();
    let tile_full: Vec<_> = (0..2)
        .map(|s| t.barrier(&format!("tile_full[{s}]"), 1).unwrap())
        .collect();
    let tile_empty: Vec<_> = (0..2)
        .map(|s| t.barrier(&format!("tile_empty[{s}]"), 1).unwrap())
        .collect();
    let slot = |s: u32| Cells::range(Space::Smem, 128 * u64::from(s), 128);
    let tile = |s: u32| Cells::range(Space::Smem, 4096 + 128 * u64::from(s), 128);
    let parity = |n: u32| u8::from(n % 2 == 1);
    let mut laps = Vec::new();
    // (tile, its K lap, the K lap overall)
    let mut steps = Vec::new();
    let mut i = 0;
    for (n, &len) in tiles.iter().enumerate() {
        for j in 0..len {
            steps.push((n as u32, j, len, i));
            i += 1;
        }
    }
    for &(n, j, _, i) in &steps {
        let (s, u) = ((i % ring) as usize, (n % 2) as usize);
        if j == 0 {
            let phase = if bug == Bug::TilePhaseFromK {
                i / ring
            } else {
                n / 2
            };
            t.wait(p, "wait tile_empty", tile_empty[u], 1 - parity(phase))
                .unwrap();
            t.access(p, "store tile", tile(n % 2), true).unwrap();
            t.arrive(p, "arrive tile_full", tile_full[u], 1).unwrap();
            laps.extend([i; 3]);
        }
        t.wait(p, "wait empty", empty[s], 1 - parity(i / ring))
            .unwrap();
        t.access(p, "store slot", slot(i % ring), true).unwrap();
        t.arrive(p, "arrive full", full[s], 1).unwrap();
        laps.extend([i; 3]);
    }
    for &(n, j, len, i) in &steps {
        let (s, u) = ((i % ring) as usize, (n % 2) as usize);
        if j == 0 {
            t.wait(c, "wait tile_full", tile_full[u], parity(n / 2))
                .unwrap();
            laps.push(i);
            if bug == Bug::EarlyTileRelease {
                t.arrive(c, "arrive tile_empty (early)", tile_empty[u], 1)
                    .unwrap();
                laps.push(i);
            }
        }
        t.wait(c, "wait full", full[s], parity(i / ring)).unwrap();
        laps.push(i);
        if bug == Bug::EarlySlotRelease {
            t.arrive(c, "arrive empty (early)", empty[s], 1).unwrap();
            laps.push(i);
        }
        t.access(c, "load slot", slot(i % ring), false).unwrap();
        t.access(c, "load tile", tile(n % 2), false).unwrap();
        laps.extend([i; 2]);
        if bug != Bug::EarlySlotRelease {
            t.arrive(c, "arrive empty", empty[s], 1).unwrap();
            laps.push(i);
        }
        if j + 1 == len && bug != Bug::EarlyTileRelease {
            t.arrive(c, "arrive tile_empty", tile_empty[u], 1).unwrap();
            laps.push(i);
        }
    }
    let trip_count = tiles.iter().sum();
    (
        t.build().unwrap(),
        TileLaps {
            laps,
            tiles: tiles.to_vec(),
            trip_count,
        },
    )
}

/// Every sequence of up to `count` tiles of the lengths given.
fn sequences(lengths: &[u32], count: usize) -> Vec<Vec<u32>> {
    let mut all: Vec<Vec<u32>> = vec![Vec::new()];
    let mut out = Vec::new();
    for _ in 0..count {
        all = all
            .iter()
            .flat_map(|s| {
                lengths.iter().map(move |&l| {
                    let mut v = s.clone();
                    v.push(l);
                    v
                })
            })
            .collect();
        out.extend(all.iter().cloned());
    }
    out
}

/// The model of a toy: read from every sequence of up to four tiles of the lengths given
/// (`even`, 2, 4 or 6 K laps, the causal kernels' tiles; else 1, 2 or 3), then from a launch
/// for each key still missing — the shortest sequence of keys to it ([`LapModel::path_to`])
/// as tiles. Keys by the K ring's slots and phases, and the tile buffer's two slots and two
/// phases.
fn model(ring: u32, bug: Bug, even: bool) -> LapModel {
    let mut model = LapModel::new(2 * ring, 4, even);
    let lengths: &[u32] = if even { &[2, 4, 6] } else { &[1, 2, 3] };
    for tiles in sequences(lengths, 4) {
        let (trace, cut) = unroll(ring, bug, &tiles);
        model.add(&trace, &cut).unwrap();
    }
    while let Some(key) = model.missing().first().copied() {
        let tiles = tiles_of(&model.path_to(&key).unwrap(), even);
        let (trace, cut) = unroll(ring, bug, &tiles);
        model.add(&trace, &cut).unwrap();
        assert!(model.kind_of(&key).is_some(), "{key:?}: {tiles:?}");
    }
    model
}

/// The tiles a witness's keys run, completed to a launch: the tile it ends in run to its
/// last lap, and one tile of two more where the last is not the CTA's last (one tile of two
/// where no lap was decided).
fn tiles_of(keys: &[LapKey], even: bool) -> Vec<u32> {
    if keys.is_empty() {
        return vec![2];
    }
    let mut tiles: Vec<u32> = Vec::new();
    for k in keys {
        match k.place {
            TilePlace::First | TilePlace::Only => tiles.push(1),
            _ => {
                if let Some(last) = tiles.last_mut() {
                    *last += 1;
                }
            }
        }
    }
    let last = keys.last().copied();
    if let (Some(k), Some(n)) = (last, tiles.last_mut()) {
        if !matches!(
            k.place,
            TilePlace::Last | TilePlace::LastOfTwo | TilePlace::Only
        ) {
            // (one more lap; an even tile, to the next even length)
            *n += if even && *n % 2 == 0 { 2 } else { 1 };
        }
        if !k.last_tile {
            tiles.push(2);
        }
    }
    tiles
}

/// Rings of one to `rings` K slots, tiles even (`rings`) or of any length (`odd_rings`).
fn toys(rings: u32, odd_rings: u32) -> Vec<(u32, bool)> {
    let even = (1..=rings).map(|r| (r, true));
    even.chain((1..=odd_rings).map(|r| (r, false))).collect()
}

/// A toy without a bug: every key has a kind, and every sequence of tiles is race-free,
/// hang-free, every arrival within its phase.
fn right_at_every_sequence_of_tiles(toys: &[(u32, bool)]) {
    for &(ring, even) in toys {
        let model = model(ring, Bug::None, even);
        assert_eq!(model.missing(), [], "ring {ring}, even {even}");
        for every in [
            model.explore(1_000_000),
            model.explore_every_interleaving(1_000_000),
        ] {
            assert!(every.complete, "ring {ring}, even {even}: {every:?}");
            assert!(!every.goes_wrong(), "ring {ring}, even {even}: {every:?}");
        }
    }
}

/// Each seeded bug: where one launch of up to three tiles (2 or 4 K laps; 1, 2 or 3) goes
/// wrong in the finite explorer, the explorer over keys goes wrong, and its witness —
/// its keys as tiles — goes wrong in the finite explorer.
fn seeded_bugs_are_found_and_their_witnesses_replay(toys: &[(u32, bool)]) {
    let bugs = [
        Bug::EarlyTileRelease,
        Bug::EarlySlotRelease,
        Bug::TilePhaseFromK,
    ];
    for &(ring, even) in toys {
        let lengths: &[u32] = if even { &[2, 4] } else { &[1, 2, 3] };
        for bug in bugs {
            let at = format!("{bug:?}, ring {ring}, even {even}");
            let model = model(ring, bug, even);
            let every = model.explore(1_000_000);
            assert!(every.complete, "{at}");
            // The persistent sets find what every interleaving finds.
            let all = model.explore_every_interleaving(1_000_000);
            assert!(all.complete, "{at}");
            let what = |e: &EveryTileLength| (!e.races.is_empty(), !e.faults.is_empty(), e.stuck);
            assert_eq!(what(&every), what(&all), "{at}");
            println!(
                "{at}: {} states, {} every interleaving",
                every.states, all.states
            );
            let finite = sequences(lengths, 3).into_iter().any(|tiles| {
                let (trace, _) = unroll(ring, bug, &tiles);
                goes_wrong(&trace)
            });
            assert!(!finite || every.goes_wrong(), "{at}: {every:?}");
            if every.goes_wrong() {
                let keys = every.witness.clone().unwrap();
                let tiles = tiles_of(&keys, even);
                let (trace, _) = unroll(ring, bug, &tiles);
                assert!(
                    goes_wrong(&trace),
                    "{at}: the witness {tiles:?} replays nothing"
                );
            }
        }
    }
}

#[test]
fn a_right_toy_is_right_at_every_sequence_of_tiles() {
    right_at_every_sequence_of_tiles(&toys(2, 1));
}

#[test]
fn a_seeded_bug_is_found_and_its_witness_replays() {
    seeded_bugs_are_found_and_their_witnesses_replay(&toys(2, 1));
}

/// The same on rings of three slots and, tiles of any length, of two (release, `.ci/run`).
#[test]
#[ignore = "release: cargo test --release --test hazard_every_tile_length -- --ignored"]
fn larger_toys_agree_with_one_launch() {
    let larger = [(3, true), (2, false)];
    right_at_every_sequence_of_tiles(&larger);
    seeded_bugs_are_found_and_their_witnesses_replay(&larger);
}

/// Whether some execution of `trace` races, hangs or arrives past a phase.
fn goes_wrong(trace: &Trace) -> bool {
    let found = explore(trace, 1_000_000).unwrap();
    !found.races.is_empty() || !found.stuck.is_empty() || !found.faults.is_empty()
}
