//! The hazard check on the real TLX kernels (`alias-alloc/tests/data/tlx_kernels/`), unmutated:
//! no hazard on any, and every kernel the check does not read is refused with its reason. The
//! table in `docs/hazard-check.md` is this test's output (`BLESS=1` rewrites it).
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{
    check, read_kernel, CheckReport, ReadOptions, Steps, SweepReport, TripCounts,
};
use test_support::tlx_kernels::{dump, KERNELS};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

#[test]
fn the_real_kernels_have_no_hazard_and_every_refusal_names_its_op() {
    let mut table = String::from(
        "\n| kernel | threads | events | pairs | verified | hazards | unknown | protocol findings | refused | swept (no hazard at any) |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    for k in KERNELS {
        let text = dump(k, "before");
        match read_kernel(&text, &ReadOptions::default()) {
            Err(e) => {
                let reason = e.to_string();
                assert!(reason.starts_with("line "), "{k}: {reason}");
                table.push_str(&format!("| {k} | | | | | | | | {reason} | |\n"));
            }
            Ok(kt) => {
                let r = check(&kt.trace);
                let hazards = r.hazards().count();
                assert_eq!(hazards, 0, "{k}: a hazard on an unmutated kernel");
                assert!(
                    r.happens_before.may_overrun.is_empty(),
                    "{k}: a wait may overrun"
                );
                let unknown = r.unknowns().count();
                let hb = &r.happens_before;
                let partitions = kt
                    .trace
                    .timelines
                    .iter()
                    .filter(|t| t.kind == alias_alloc::hazard::TimelineKind::Partition)
                    .count();
                let protocol = hb.never_complete.len()
                    + hb.tx_mismatch.len()
                    + r.open_phases.len()
                    + r.faults.len();
                table.push_str(&format!(
                    "| {k} | {partitions} | {} | {} | {} | {hazards} | {unknown} | {protocol} | | {} |\n",
                    kt.trace.events.len(),
                    r.pairs.len(),
                    r.pairs.len() - hazards - unknown,
                    swept(k, &text),
                ));
            }
        }
    }
    test_support::golden::check_section(
        format!("{ROOT}/docs/hazard-check.md"),
        "<!-- kernels:begin -->\n",
        "<!-- kernels:end -->",
        &format!("{table}\n"),
    );
}

/// The kernel at every residue of its trip counts ([`TripCounts`]): no hazard, no unknown and
/// no wait that may overrun at any; the table's cell.
fn swept(k: &str, text: &str) -> String {
    let opts = ReadOptions::default();
    let trips = TripCounts::new(text, &opts).unwrap();
    if trips.runs == 0 {
        assert!(CAUSAL.contains(&k), "{k}: nothing to sweep");
        return tile_grid(k, text);
    }
    let sweep = SweepReport::new(k, text, &opts, trips, 0).unwrap();
    for (i, run) in sweep.runs.iter().enumerate() {
        let r = &run.as_ref().unwrap().report;
        let at = sweep.trips.label(i);
        assert_eq!(r.hazards().count(), 0, "{k} at {at}: a hazard");
        assert_eq!(r.unknowns().count(), 0, "{k} at {at}: an unknown");
        assert!(r.happens_before.may_overrun.is_empty(), "{k} at {at}");
        assert!(r.open_phases.is_empty(), "{k} at {at}: a phase left open");
        assert!(
            r.faults.is_empty(),
            "{k} at {at}: an arrival past its phase"
        );
    }
    let (a, b) = (
        sweep.trips.label(0),
        sweep.trips.label(sweep.runs.len() - 1),
    );
    format!("{a} … {b}, {} runs", sweep.runs.len())
}

/// The causal kernels, whose loops run `2 · (start_m + 1)` laps for the tile at row `start_m`
/// (a bound from the tile position, no parameter: nothing for `--sweep` to run).
const CAUSAL: [&str; 2] = ["fa_fwd_persistent_rescale", "fa_clc_rescale"];

/// A causal kernel at every tile position of a 6 x 6 grid (the period of its rings of 3): the
/// first tile `program_id` 0…5, the CLC tiles after it from `num_programs` 1…6, with
/// `N_CTX = 2048` so that every tile handed out lies in the launch (8 row tiles of 256; at the
/// default `N_CTX = 1` tiles past the first are outside any launch, and from `num_programs = 6`
/// on the partitions' tile arithmetic disagrees there: a hang no real launch has). Every run is
/// verified, and the default partition's tiles start and run at every pair of even residues
/// modulo 6 — all there are: `2 · (start_m + 1)` laps is even.
fn tile_grid(k: &str, text: &str) -> String {
    let mut seen = std::collections::BTreeSet::new();
    for run in 0..36i64 {
        let opts = ReadOptions {
            params: [("N_CTX".to_string(), 2048)].into(),
            program_id: run % 6,
            num_programs: 1 + run / 6,
            ..ReadOptions::default()
        };
        let kt = read_kernel(text, &opts).unwrap();
        let default = kt
            .trace
            .timelines
            .iter()
            .position(|t| t.name == "default")
            .unwrap();
        let mut laps: Vec<i64> = Vec::new();
        for (o, e) in kt.origins.iter().zip(&kt.trace.events) {
            if let ([tile, lap], true) = (o.iteration.as_slice(), e.timeline.0 == default) {
                let tile = usize::try_from(*tile).unwrap();
                if laps.len() <= tile {
                    laps.resize(tile + 1, 0);
                }
                laps[tile] = laps[tile].max(lap + 1);
            }
        }
        assert_eq!(laps.len(), 3, "{k} run {run}: three tiles");
        let mut start = 0;
        for l in laps {
            seen.insert((start % 6, l % 6));
            start += l;
        }
        let r = CheckReport::new(k, kt, 0);
        assert_eq!(r.exit_code(), 0, "{k} at run {run}: {}", r.text());
        assert!(
            r.report.happens_before.may_overrun.is_empty(),
            "{k} run {run}"
        );
    }
    let even = [0, 2, 4];
    let all: std::collections::BTreeSet<(i64, i64)> = even
        .iter()
        .flat_map(|&a| even.iter().map(move |&b| (a, b)))
        .collect();
    assert_eq!(seen, all, "{k}: (start, laps) of its tiles modulo 6");
    "tiles: N_CTX=2048, program_id 0 … 5 × num_programs 1 … 6, 36 runs".into()
}

#[test]
fn damaged_kernels_are_refused_or_checked_never_a_panic() {
    // Cut short at many points, or with one line dropped: read_kernel returns a typed error or
    // a trace the check runs on; nothing panics.
    let text = dump("fa_ws_pipelined", "before");
    let lines: Vec<&str> = text.lines().collect();
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = |n: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % n as u64) as usize
    };
    let (mut read, mut refused) = (0, 0);
    for k in 0..60 {
        let damaged = if k % 2 == 0 {
            let cut = next(text.len());
            let cut = (0..=cut).rev().find(|&i| text.is_char_boundary(i)).unwrap();
            text[..cut].to_string()
        } else {
            let drop = next(lines.len());
            lines
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != drop)
                .map(|(_, l)| *l)
                .collect::<Vec<_>>()
                .join("\n")
        };
        match read_kernel(&damaged, &ReadOptions::default()) {
            Ok(kt) => {
                check(&kt.trace);
                read += 1;
            }
            Err(e) => {
                assert!(!e.to_string().is_empty());
                refused += 1;
            }
        }
    }
    assert!(read > 0 && refused > 0, "{read} read, {refused} refused");
}

/// The backward mxfp8 kernel with its compute partition's `m_empties` arrive shifted one slot
/// on (the mutation tool's slot-plus-one at line 437): the loader's wait on that barrier may
/// see a phase complete twice before it polls, and the run that polls it late hangs.
#[test]
fn a_slot_shift_whose_hang_needs_a_phase_completed_twice_is_caught() {
    let text = dump("fa_bwd_mxfp8", "before");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = 436;
    let old = "%m_empties[%buf_idx]";
    assert!(lines[at].contains(old), "{}", lines[at]);
    lines[at] = lines[at].replace(old, "%m_empties[%mut_slot]");
    let pad = "          ";
    let extra = [
        "%mut_one = arith.constant 1 : i32",
        "%mut_n = arith.constant 2 : i32",
        "%mut_next = arith.addi %buf_idx, %mut_one : i32",
        "%mut_slot = arith.remsi %mut_next, %mut_n : i32",
    ];
    for (k, l) in extra.iter().enumerate() {
        lines.insert(at + k, format!("{pad}{l}"));
    }
    let kt = read_kernel(&lines.join("\n"), &ReadOptions::default()).unwrap();
    let r = check(&kt.trace);
    let label = |e: alias_alloc::hazard::EventId| kt.trace.events[e.0].label.clone();
    let overrun: Vec<String> = r
        .happens_before
        .may_overrun
        .iter()
        .map(|&w| label(w))
        .collect();
    assert!(!overrun.is_empty());
    assert!(
        overrun
            .iter()
            .all(|w| w.starts_with("ttng.wait_barrier line 909 m_empties[1]")),
        "{overrun:?}"
    );
    let hang = r.hang.expect("an execution hangs");
    assert!(
        hang.blocked
            .iter()
            .any(|&e| label(e).starts_with("ttng.wait_barrier line 909 m_empties[1]")),
        "{:?}",
        hang.blocked.iter().map(|&e| label(e)).collect::<Vec<_>>()
    );
}

/// `ttg.memdesc_subslice` views of shared memory cover their own bytes, through the buffer's
/// layout: the forward kernel's two MMAs on the halves of one `kv` tile (rows 0..64 and 64..128
/// of a 128x128 bf16 tile in two 64-column swizzle blocks) read disjoint bytes, together the
/// tile.
#[test]
fn the_kv_halves_read_disjoint_bytes() {
    let kt = read_kernel(
        &dump("fa_fwd_persistent", "before"),
        &ReadOptions::default(),
    )
    .unwrap();
    let cells = |line: &str| {
        kt.trace
            .events
            .iter()
            .find(|e| e.label.starts_with(line))
            .and_then(|e| match &e.kind {
                alias_alloc::hazard::EventKind::Access { cells, .. } => Some(cells.clone()),
                _ => None,
            })
            .unwrap()
    };
    let (a, b) = (
        cells("ttng.tc_gen5_mma line 638 kv_tiles[1] iteration 0"),
        cells("ttng.tc_gen5_mma line 643 kv_tiles[1] iteration 0"),
    );
    assert!(!a.overlaps(&b));
    let bytes = |c: &alias_alloc::hazard::Cells| c.ranges().iter().map(|(x, y)| y - x).sum::<u64>();
    assert_eq!((bytes(&a), bytes(&b)), (16384, 16384));
    assert_eq!(a.ranges().len(), 2);
}

/// The 2-CTA backward runs as a cluster of two CTAs (`ttg.cluster-dim-x = 2`): each its own
/// partitions, memory and barriers; the leader's paired MMA (`two_ctas`) writes the TMEM of
/// both and its barriers arrive in both; remote arrives and the dS exchange reach the peer.
#[test]
fn the_2cta_kernel_runs_as_a_cluster_of_two() {
    let kt = read_kernel(&dump("fa_bwd_2cta", "before"), &ReadOptions::default()).unwrap();
    let names: Vec<&str> = kt.trace.timelines.iter().map(|t| t.name.as_str()).collect();
    for n in [
        "cta0.default",
        "cta0.default.wg1",
        "cta1.default",
        "cta1.partition2",
    ] {
        assert!(names.contains(&n), "{n}: {names:?}");
    }
    // A paired MMA's write covers the same TMEM columns in both CTAs (cells of CTA 1 start at
    // 1 << 48), and only the leader's MMA partition issues MMAs.
    let mma = kt
        .trace
        .events
        .iter()
        .find(|e| {
            e.label.starts_with("ttng.tc_gen5_mma")
                && matches!(
                    &e.kind,
                    alias_alloc::hazard::EventKind::Access { write: true, .. }
                )
        })
        .unwrap();
    assert!(kt.trace.timelines[mma.timeline.0].name.starts_with("cta0."));
    let alias_alloc::hazard::EventKind::Access { cells, .. } = &mma.kind else {
        unreachable!()
    };
    let r = cells.ranges();
    assert!(
        r.first().unwrap().0 < 1 << 48 && r.last().unwrap().1 > 1 << 48,
        "{r:?}"
    );
    assert!(!kt
        .trace
        .events
        .iter()
        .any(|e| e.label.starts_with("ttng.tc_gen5_mma")
            && kt.trace.timelines[e.timeline.0].name.starts_with("cta1.")));
    assert!(check(&kt.trace).all_verified());
}

/// A wait's phase matters once a ring comes round, and where a loop counter runs on across
/// tiles, which phase a tile starts on depends on the trip count. `fa_clc`'s wait at line 631
/// (on `%20`, a barrier of its own: phase `accum_cnt_qk & 1`) made to wait on phase 0 always
/// waits in step while every tile starts on an even count — 4 laps a tile, the default — and
/// races at odd trip counts: the sweep (every residue modulo 6, the period of its rings of 3)
/// flags it at 5, 7 and 9 laps and at no other.
#[test]
fn a_constant_phase_races_at_odd_trip_counts_only() {
    let text = dump("fa_clc", "before");
    let trips = TripCounts::new(&text, &ReadOptions::default()).unwrap();
    // The four `p_fulls` barriers are each taken by a constant index: no ring.
    assert_eq!(trips.rings, vec![3]);
    assert_eq!((trips.period, trips.first, trips.runs), (6, 4, 6));
    let kt = read_kernel(&text, &ReadOptions::default()).unwrap();
    assert_eq!(kt.params.get("N_CTX"), Some(&512));
    let lines: Vec<&str> = text.lines().collect();
    let line = lines[630];
    assert!(line.contains("ttng.wait_barrier %20, %phase_52"), "{line}");
    let indent = &line[..line.len() - line.trim_start().len()];
    let mut mutant: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    mutant[630] = line.replace("%phase_52,", "%const_phase,");
    mutant.insert(
        630,
        format!("{indent}%const_phase = arith.constant 0 : i32"),
    );
    let mutant = mutant.join("\n");
    let opts = ReadOptions::default();
    let sweep = SweepReport::new("fa_clc", &mutant, &opts, trips, 0).unwrap();
    let flagged: Vec<i64> = sweep
        .runs
        .iter()
        .map(|r| r.as_ref().unwrap())
        .filter(|r| r.exit_code() == 1)
        .map(|r| r.kernel.params["N_CTX"] / 128)
        .collect();
    assert_eq!(flagged, vec![5, 7, 9]);
    assert_eq!(sweep.exit_code(), 1);
    assert!(
        sweep.summary().ends_with("first at N_CTX=640"),
        "{}",
        sweep.summary()
    );
    // A run the reader refuses (here a trace past a lowered event limit from 6 laps on) is that
    // run's, and hides nothing the others find: still exit 1, first at N_CTX=640.
    let small = ReadOptions {
        max_events: 1400,
        ..ReadOptions::default()
    };
    let trips = TripCounts::new(&mutant, &small).unwrap();
    let sweep = SweepReport::new("fa_clc", &mutant, &small, trips, 0).unwrap();
    let codes: Vec<u8> = sweep
        .runs
        .iter()
        .map(|r| match r {
            Ok(r) => r.exit_code(),
            Err(e) => e.exit_code(),
        })
        .collect();
    assert_eq!(codes, [0, 1, 3, 3, 3, 3]);
    assert_eq!(sweep.exit_code(), 1);
    assert!(sweep.summary().starts_with("6 runs: 1 verified, 1 with a hazard or protocol finding, 4 with unknowns; first at N_CTX=640"), "{}", sweep.summary());
    assert!(
        sweep
            .text()
            .contains("N_CTX=768    refused: the trace passed 1400 events"),
        "{}",
        sweep.text()
    );
    // The default run is the first of the sweep: it verifies the mutant.
    let kt = read_kernel(&mutant, &opts).unwrap();
    assert_eq!(CheckReport::new("fa_clc", kt, 0).exit_code(), 0);
}

/// The cross-attention kernels' loops run over `cu_seqlens[z + 1] - cu_seqlens[z]`, which the
/// reader takes as cumulative offsets `i · seq_stride`: by default 4 laps of the longest-step
/// loop (`cross_attention` has loops of step 256 and 128 over the same length), and the sweep
/// runs the stride by 128 until the step-128 loops too have run every residue of the rings'
/// period (rings of 2 and 3: 12), 24 runs.
#[test]
fn loops_over_loaded_lengths_are_swept() {
    let text = dump("cross_attention", "before");
    let kt = read_kernel(&text, &ReadOptions::default()).unwrap();
    assert_eq!(kt.seq_stride, Some(1024));
    let trips = TripCounts::new(&text, &ReadOptions::default()).unwrap();
    assert_eq!(
        trips.seq,
        Some(Steps {
            shortest: 128,
            longest: 256
        })
    );
    assert!(trips.swept.is_empty());
    assert_eq!((trips.period, trips.first, trips.runs), (12, 4, 24));
    let strides: Vec<i64> = trips
        .options(&ReadOptions::default())
        .iter()
        .map(|o| o.seq_stride.unwrap())
        .collect();
    assert_eq!(strides.first(), Some(&1024));
    assert_eq!(strides.last(), Some(&(1024 + 23 * 128)));
    // The step-256 loops run 4 … 15 laps, the step-128 loops 8 … 31: each 12 consecutive.
    assert_eq!(trips.label(23), "seq_stride=3968");
    // A stride given is not swept.
    let given = ReadOptions {
        seq_stride: Some(512),
        ..ReadOptions::default()
    };
    let trips = TripCounts::new(&text, &given).unwrap();
    assert!(trips.runs == 0 && trips.seq.is_none());
    assert_eq!(read_kernel(&text, &given).unwrap().seq_stride, Some(512));
    // A kernel whose loops no loaded length bounds has none.
    let kt = read_kernel(&dump("fa_ws_pipelined", "before"), &ReadOptions::default()).unwrap();
    assert_eq!(kt.seq_stride, None);
}

/// A stray single-thread arrival beside a per-thread one (`fa_bwd_1cta_warp_barrier`'s
/// `p_fulls`, 256 arrivals a phase, 257 a lap): the ledger flags the phase it leaves open at
/// any trip count, one lap included, where no interleaving of that lap races or overshoots;
/// from the second lap on the per-thread arrival overshoots the phase the stray one opened.
#[test]
fn arrivals_that_are_not_whole_phases_are_flagged_at_any_trip_count() {
    let text = dump("fa_bwd_1cta_warp_barrier", "before");
    let lines: Vec<&str> = text.lines().collect();
    let line = lines[264];
    assert!(
        line.contains("ttng.arrive_barrier %p_fulls_23, 1 {perThread}"),
        "{line}"
    );
    let mut mutant: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    mutant.insert(265, line.replace(" {perThread}", ""));
    let mutant = mutant.join("\n");
    let check_at = |laps: i64| {
        let opts = ReadOptions {
            params: [("N_CTX".to_string(), 64 * laps)].into(),
            ..ReadOptions::default()
        };
        CheckReport::new("mutant", read_kernel(&mutant, &opts).unwrap(), 0)
    };
    for laps in [1, 2, 4] {
        let r = check_at(laps);
        // The per-thread arrival is two warp groups' (128 threads each).
        let open = &r.report.open_phases;
        assert_eq!(open.len(), 1, "{laps} laps");
        assert_eq!(
            r.kernel.trace.barriers[open[0].barrier.0].name,
            "p_fulls[0]"
        );
        assert_eq!(
            (open[0].arrivals, open[0].count, open[0].left_over()),
            (257 * laps as u64, 256, laps as u64)
        );
        assert_eq!(r.exit_code(), 1);
        assert_eq!(r.report.faults.is_empty(), laps == 1, "{laps} laps");
        assert_eq!(r.report.hazards().count(), 0);
    }
    let one = check_at(1);
    assert_eq!(one.protocol, vec![
        "open phase: p_fulls[*] (count 256) receives 257 arrivals in all, 1 past its last whole phase, from default: ttng.arrive_barrier line 265 p_fulls[*]; default.wg1: ttng.arrive_barrier line 265 p_fulls[*]; default: ttng.arrive_barrier line 266 p_fulls[*]: arrivals that are not whole phases build up lap after lap until a wait passes a phase early or never passes".to_string()
    ]);
    // Unmutated, every lap brings whole phases.
    let kt = read_kernel(&text, &ReadOptions::default()).unwrap();
    assert!(check(&kt.trace).open_phases.is_empty());
}

/// The kernels whose CTAs take tiles from CLC (`clc_query_cancel`): three tiles by default, and
/// tile t starts its loops at t · L for L laps a tile, so the starts modulo the period P of the
/// rings are t · L mod P — all of them only with P tiles where L and P are coprime. At every run
/// of each kernel's sweep, with P tiles a CTA (`clc_tiles = P - 1`), every tile start is seen
/// and every run is verified.
#[test]
fn every_tile_start_of_the_clc_kernels_is_verified() {
    for k in ["fa_clc", "fa_fwd_persistent", "fa_fwd_persistent_hd64"] {
        let text = dump(k, "before");
        assert!(text.contains("ttng.clc_query_cancel"), "{k}");
        let base = ReadOptions::default();
        let trips = TripCounts::new(&text, &base).unwrap();
        let tiles = trips.period;
        let mut most = 0;
        for (i, o) in trips.options(&base).into_iter().enumerate() {
            let o = ReadOptions {
                clc_tiles: tiles - 1,
                ..o
            };
            let kt = read_kernel(&text, &o).unwrap();
            most = most.max(kt.trace.events.len());
            let r = CheckReport::new(k, kt, 0);
            let at = trips.label(i);
            assert_eq!(r.exit_code(), 0, "{k} at {at}, {tiles} tiles: {}", r.text());
            assert!(
                r.report.happens_before.may_overrun.is_empty(),
                "{k} at {at}"
            );
        }
        // docs/hazard-check.md, *Tiles*: up to 17,250 events (12 tiles of up to 18 laps).
        if k == "fa_fwd_persistent_hd64" {
            assert_eq!((tiles, most), (12, 17_250));
        }
    }
}
