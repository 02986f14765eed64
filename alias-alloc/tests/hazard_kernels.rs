//! The hazard check on the real TLX kernels (`alias-alloc/tests/data/tlx_kernels/`), unmutated:
//! no hazard on any, and every kernel the check does not read is refused with its reason. The
//! table in `docs/hazard-check.md` is this test's output (`BLESS=1` rewrites it).
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::hazard::{check, read_kernel, ReadOptions};
use test_support::tlx_kernels::{dump, KERNELS};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

#[test]
fn the_real_kernels_have_no_hazard_and_every_refusal_names_its_op() {
    let mut table = String::from(
        "\n| kernel | threads | events | pairs | verified | hazards | unknown | protocol findings | refused |\n\
         |---|---|---|---|---|---|---|---|---|\n",
    );
    for k in KERNELS {
        let text = dump(k, "before");
        match read_kernel(&text, &ReadOptions::default()) {
            Err(e) => {
                let reason = e.to_string();
                assert!(reason.starts_with("line "), "{k}: {reason}");
                table.push_str(&format!("| {k} | | | | | | | | {reason} |\n"));
            }
            Ok(kt) => {
                let r = check(&kt.trace);
                let hazards = r.hazards().count();
                assert_eq!(hazards, 0, "{k}: a hazard on an unmutated kernel");
                let unknown = r.unknowns().count();
                let hb = &r.happens_before;
                let partitions = kt
                    .trace
                    .timelines
                    .iter()
                    .filter(|t| t.kind == alias_alloc::hazard::TimelineKind::Partition)
                    .count();
                let protocol = hb.never_complete.len() + hb.tx_mismatch.len();
                table.push_str(&format!(
                    "| {k} | {partitions} | {} | {} | {} | {hazards} | {unknown} | {protocol} | |\n",
                    kt.trace.events.len(),
                    r.pairs.len(),
                    r.pairs.len() - hazards - unknown,
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
