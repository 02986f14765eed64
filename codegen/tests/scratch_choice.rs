//! The hardware's figure where we choose: a conversion's scratch picked by the cost model's
//! wavefronts (`codegen::cost::fewest_wavefronts_scratch`) beside Triton's pick
//! (`optimal_scratch`, its `optimalSwizzling`), on the 10 conversions of the benchmark and on
//! random conversions. The table in `docs/gpu-counters.md` (`BLESS=1` rewrites it) says how
//! often the choices differ and what that saves; every differing choice's kernel is checked
//! element by element in the interpreter.

#![allow(clippy::restriction)] // test code: a failed check panics

use std::collections::BTreeMap;

use codegen::cost::fewest_wavefronts_scratch;
use codegen::smem::kernels::round_trip_in_rounds;
use linear_layout::families::Encoding;
use linear_layout::LinearLayout;
use serde_json::Value;
use test_support::smem::{check_run, random_gf2_layout, random_layout, Rng};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

struct Conversion {
    from: String,
    src: LinearLayout,
    dst: LinearLayout,
    bits: u32,
}

fn flag<'a>(cmd: &'a [&str], name: &str) -> &'a str {
    let i = cmd.iter().position(|a| *a == name).unwrap();
    cmd[i + 1]
}

/// The benchmark's `convert_layout` pairs.
fn bench_conversions() -> Vec<Conversion> {
    let path = format!("{ROOT}/benches/data/ours_address_counts.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for pair in doc["pairs"].as_array().unwrap() {
        if pair["group"] != "convert" {
            continue;
        }
        let cmd: Vec<&str> = pair["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let shape: Vec<u64> = flag(&cmd, "--shape")
            .split('x')
            .map(|d| d.parse().unwrap())
            .collect();
        let layout = |text: &str| {
            Encoding::from_mlir(text)
                .and_then(|e| e.to_linear_layout(&shape))
                .unwrap()
        };
        out.push(Conversion {
            from: pair["name"].as_str().unwrap().to_string(),
            src: layout(flag(&cmd, "--regs")),
            dst: layout(flag(&cmd, "--round-trip")),
            bits: flag(&cmd, "--dtype")
                .parse::<linear_layout::DType>()
                .unwrap()
                .bits(),
        });
    }
    out
}

/// Random conversions between the GPU tier's generators (GF(2) bijections, and arbitrary
/// layouts with broadcast that cover the tile) of one tile and warp count.
fn random_conversions(n: usize) -> Vec<Conversion> {
    let mut rng = Rng(0x5C2A_7C40_1CE0_0001);
    let mut out = Vec::new();
    while out.len() < n {
        let bits = [8u32, 16, 16, 32][rng.below(4)];
        let shape = [[64u64, 64], [32, 64], [64, 32], [16, 128]][rng.below(4)];
        let warps = 1u32 << rng.below(3);
        let side = |rng: &mut Rng| {
            if rng.below(3) > 0 {
                random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6))
            } else {
                random_layout(shape, warps, rng.below(5) as u32 + 3, rng.next_u64())
            }
        };
        let (src, dst) = (side(&mut rng), side(&mut rng));
        // A conversion moves a whole tensor: both layouts cover it.
        if !src.is_surjective() || !dst.is_surjective() {
            continue;
        }
        out.push(Conversion {
            from: format!("random {bits}-bit {shape:?} {warps} warps"),
            src,
            dst,
            bits,
        });
    }
    out
}

#[derive(Default)]
struct Row {
    conversions: u64,
    fewer: u64,
    smaller: u64,
    triton: u64,
    ours: u64,
    saved_max: u64,
}

#[test]
fn the_hardware_chooses_the_scratch() {
    let bench = bench_conversions();
    assert_eq!(bench.len(), 10);
    let random = random_conversions(150);
    let mut rows: BTreeMap<(&str, u32), Row> = BTreeMap::new();
    let mut refused = 0;
    for (corpus, convs) in [("benchmark", &bench), ("random", &random)] {
        for c in convs.iter() {
            let choice = match fewest_wavefronts_scratch(&c.src, &c.dst, c.bits) {
                Ok(choice) => choice,
                Err(e) => {
                    // Triton's own pick must be emitted for the benchmark's conversions.
                    assert_eq!(corpus, "random", "{}: {e}", c.from);
                    refused += 1;
                    continue;
                }
            };
            let (t, h) = (
                choice.triton_counters.wavefronts(),
                choice.counters.wavefronts(),
            );
            assert!(h <= t, "{}: {h} > Triton's {t}", c.from);
            let row = rows.entry((corpus, c.bits)).or_default();
            row.conversions += 1;
            row.triton += t;
            row.ours += h;
            if !choice.is_tritons() {
                let smaller = h == t && choice.scratch.bytes < choice.triton.bytes;
                assert!(
                    h < t || smaller,
                    "{}: a different scratch for nothing",
                    c.from
                );
                match smaller {
                    true => row.smaller += 1,
                    false => row.fewer += 1,
                }
                row.saved_max = row.saved_max.max(t - h);
                let k = round_trip_in_rounds(
                    "chosen",
                    &choice.scratch.layout,
                    c.bits,
                    &c.src,
                    &c.dst,
                    choice.scratch.bytes,
                )
                .unwrap();
                check_run(&k, None).unwrap_or_else(|e| panic!("{}: {e}", c.from));
            }
        }
    }
    eprintln!("{refused} random conversions the emitter refused");
    assert!(refused * 10 < random.len(), "{refused} refused");
    let mut table = String::from(
        "\n| conversions | element bits | count | hardware's choice: fewer wavefronts | as many, smaller scratch | wavefronts, Triton's picks | hardware's picks | saved (max per conversion) |\n\
         |---|---|---|---|---|---|---|---|\n",
    );
    for ((corpus, bits), r) in &rows {
        table.push_str(&format!(
            "| {corpus} | {bits} | {} | {} | {} | {} | {} | {} |\n",
            r.conversions, r.fewer, r.smaller, r.triton, r.ours, r.saved_max
        ));
    }
    test_support::golden::check_section(
        format!("{ROOT}/docs/gpu-counters.md"),
        "<!-- scratch:begin -->\n",
        "<!-- scratch:end -->",
        &format!("{table}\n"),
    );
}
