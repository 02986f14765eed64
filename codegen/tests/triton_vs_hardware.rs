//! Triton's bank-conflict formula (`bankConflictsMemDesc`, `linear_layout::analysis::
//! bank_conflicts`) against the hardware's rules (`codegen::cost::copy_cost`) on every
//! register ↔ shared copy of the 48 benchmark pairs and of 2,000 random copies over the GPU
//! tier's shared layouts: the table in `docs/gpu-counters.md` (`BLESS=1` rewrites it) says
//! where Triton's figure is exact and by how much it is not, and a property test holds the
//! two to equality wherever the table says exact.

#![allow(clippy::restriction)] // test code: a failed check panics

mod gpu_cases;
mod smem_cases;

use std::collections::BTreeMap;

use codegen::cost::{copy_cost, CopyCost};
use codegen::smem::optimal_scratch;
use linear_layout::families::Encoding;
use linear_layout::LinearLayout;
use serde_json::Value;
use test_support::smem::{random_gf2_layout, random_layout, Rng};

const ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// A copy: register layout, shared layout, element bits, and where it comes from.
struct Copy {
    from: String,
    reg: LinearLayout,
    shared: LinearLayout,
    bits: u32,
}

fn encoding(text: &str, shape: &[u64]) -> LinearLayout {
    Encoding::from_mlir(text)
        .and_then(|e| e.to_linear_layout(shape))
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The copies of the 48 benchmark pairs: each side of each pair through its shared layout
/// (`--mem auto`: the scratch Triton's `optimalSwizzling` picks).
fn bench_copies() -> Vec<Copy> {
    let path = format!("{ROOT}/benches/data/ours_address_counts.json");
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut out = Vec::new();
    for pair in doc["pairs"].as_array().unwrap() {
        let name = pair["name"].as_str().unwrap();
        let shape: Vec<u64> = pair["shape"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        let bits = match pair["dtype"].as_str().unwrap() {
            "f32" | "i32" => 32,
            "f16" | "bf16" | "i16" => 16,
            _ => 8,
        };
        let cmd: Vec<&str> = pair["command"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let arg = |flag: &str| cmd.iter().position(|&a| a == flag).map(|i| cmd[i + 1]);
        let regs = encoding(arg("--regs").unwrap(), &shape);
        let other = arg("--round-trip").map(|t| encoding(t, &shape));
        let shared = match arg("--mem").unwrap() {
            "auto" => {
                optimal_scratch(&regs, other.as_ref().unwrap(), bits)
                    .unwrap()
                    .layout
            }
            text => encoding(text, &shape),
        };
        for (side, reg) in [("src", Some(regs)), ("dst", other)] {
            if let Some(reg) = reg {
                out.push(Copy {
                    from: format!("{name} {side}"),
                    reg,
                    shared: shared.clone(),
                    bits,
                });
            }
        }
    }
    out
}

/// Random copies: the GPU tier's generators (GF(2) bijections and arbitrary layouts with
/// broadcast) over its eight shared layouts.
fn random_copies(n: usize) -> Vec<Copy> {
    random_copies_from(&mut Rng(0x7217_0A11_BA2C_0001), n)
}

fn random_copies_from(rng: &mut Rng, n: usize) -> Vec<Copy> {
    let mut out = Vec::new();
    while out.len() < n {
        let spec = gpu_cases::SPECS[rng.below(gpu_cases::SPECS.len())];
        let bits = [8u32, 16, 16, 32][rng.below(4)];
        let shape = [[64u64, 64], [32, 64], [64, 32], [128, 64], [16, 128]][rng.below(5)];
        let warps = 1u32 << rng.below(3);
        let reg = if rng.below(2) == 0 {
            random_gf2_layout(shape, warps, rng.next_u64(), rng.below(6))
        } else {
            random_layout(shape, warps, rng.below(5) as u32, rng.next_u64())
        };
        let Some(enc) = spec.encoding(bits) else {
            continue;
        };
        let Ok(shared) = enc.to_linear_layout(&shape) else {
            continue;
        };
        out.push(Copy {
            from: format!("random {spec:?} {bits}-bit {shape:?}"),
            reg,
            shared,
            bits,
        });
    }
    out
}

fn costs(copies: &[Copy]) -> Vec<(&Copy, CopyCost)> {
    copies
        .iter()
        .filter_map(|c| match copy_cost(&c.reg, &c.shared, c.bits) {
            Ok(cost) => Some((c, cost)),
            Err(e) => {
                eprintln!("{}: {e}", c.from);
                None
            }
        })
        .collect()
}

/// Copies whose lanes share addresses at wide vectors: `v` contiguous elements per lane along
/// dim 1, `zeros` of the 5 lane bases broadcast, the rest of a 32×64 tile spread over lanes,
/// warps and registers at random.
fn broadcast_copies(n: usize) -> Vec<Copy> {
    broadcast_copies_from(&mut Rng(0xB20A_DCA5_7000_0001), n)
}

fn broadcast_copies_from(rng: &mut Rng, n: usize) -> Vec<Copy> {
    let mut out = Vec::new();
    while out.len() < n {
        let bits = [8u32, 16, 32][rng.below(3)];
        let vec_log2 = [64u32, 128][rng.below(2)].trailing_zeros() - bits.trailing_zeros();
        let zeros = 1 + rng.below(4);
        // Tensor bits of a 32×64 tile: dim1 bits 0..6, dim0 bits 0..5.
        let mut bits_left: Vec<Vec<u64>> = (vec_log2..6)
            .map(|b| vec![0, 1 << b])
            .chain((0..5).map(|b| vec![1 << b, 0]))
            .collect();
        for i in (1..bits_left.len()).rev() {
            let j = rng.below(i + 1);
            bits_left.swap(i, j);
        }
        let mut lane: Vec<Vec<u64>> = (0..5 - zeros).filter_map(|_| bits_left.pop()).collect();
        lane.extend((0..zeros).map(|_| vec![0, 0]));
        for i in (1..lane.len()).rev() {
            let j = rng.below(i + 1);
            lane.swap(i, j);
        }
        let warp: Vec<Vec<u64>> = (0..2).filter_map(|_| bits_left.pop()).collect();
        let register: Vec<Vec<u64>> = (0..vec_log2)
            .map(|b| vec![0, 1 << b])
            .chain(bits_left)
            .collect();
        let Ok(reg) = LinearLayout::from_bases(
            &[("register", register), ("lane", lane), ("warp", warp)],
            &[("dim0", 32), ("dim1", 64)],
            false,
        ) else {
            continue;
        };
        let spec = gpu_cases::SPECS[rng.below(gpu_cases::SPECS.len())];
        let Some(enc) = spec.encoding(bits) else {
            continue;
        };
        let Ok(shared) = enc.to_linear_layout(&[32, 64]) else {
            continue;
        };
        out.push(Copy {
            from: format!("broadcast {spec:?} {bits}-bit, {zeros} zero lane bases"),
            reg,
            shared,
            bits,
        });
    }
    out
}

/// Whether two lanes of the request move the same address.
fn lanes_share(c: &Copy) -> bool {
    let r = linear_layout::analysis::warp_request(&c.reg, &c.shared, c.bits, 32).unwrap();
    let mut seen = std::collections::BTreeSet::new();
    !r.lane_offsets.iter().all(|o| seen.insert(*o))
}

/// Where Triton's figure is the hardware's (the table's "exact" rows): 4 bytes and more per
/// lane, and for 8- and 16-byte loads no two lanes of the request at one address.
fn triton_exact(class: &str, bytes: u32, shared: bool) -> bool {
    bytes >= 4 && (class == "st" || bytes == 4 || !shared)
}

#[derive(Default)]
struct Row {
    copies: u64,
    exact: u64,
    over: u64,
    over_max: u64,
    under: u64,
    under_max: u64,
}

#[test]
fn tritons_formula_against_the_hardware() {
    let bench = bench_copies();
    assert_eq!(
        bench.len(),
        48 + 6 + 10,
        "48 pairs: one copy each, two for the transposes and conversions"
    );
    let random = random_copies(2000);
    let broadcast = broadcast_copies(500);
    let mut rows: BTreeMap<(&str, u32, bool), Row> = BTreeMap::new();
    let mut wrong = Vec::new();
    for corpus in [&bench, &random, &broadcast] {
        for (c, cost) in costs(corpus) {
            let t = cost.triton.request_wavefronts();
            let shared = lanes_share(c);
            for (class, hw) in [("ld", cost.load), ("st", cost.store)] {
                let row = rows.entry((class, cost.bytes, shared)).or_default();
                row.copies += 1;
                let h = hw.wavefronts;
                match t.cmp(&h) {
                    std::cmp::Ordering::Equal => row.exact += 1,
                    std::cmp::Ordering::Greater => {
                        row.over += 1;
                        row.over_max = row.over_max.max(t - h);
                    }
                    std::cmp::Ordering::Less => {
                        row.under += 1;
                        row.under_max = row.under_max.max(h - t);
                    }
                }
                if triton_exact(class, cost.bytes, shared) && t != h {
                    wrong.push(format!("{} {class}: Triton {t}, hardware {h}", c.from));
                }
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "Triton's figure differs where the table says exact:\n{}",
        wrong.join("\n")
    );
    let mut table = String::from(
        "\n| access | bytes per lane | lanes share an address | copies | Triton exact | Triton over (max) | Triton under (max) |\n\
         |---|---|---|---|---|---|---|\n",
    );
    for ((class, bytes, shared), r) in &rows {
        let over = if r.over == 0 {
            "0".to_string()
        } else {
            format!("{} (+{})", r.over, r.over_max)
        };
        let under = if r.under == 0 {
            "0".to_string()
        } else {
            format!("{} (−{})", r.under, r.under_max)
        };
        table.push_str(&format!(
            "| `{class}.shared` | {bytes} | {} | {} | {} | {over} | {under} |\n",
            if *shared { "yes" } else { "no" },
            r.copies,
            r.exact
        ));
    }
    test_support::golden::check_section(
        format!("{ROOT}/docs/gpu-counters.md"),
        "<!-- triton:begin -->\n",
        "<!-- triton:end -->",
        &format!("{table}\n"),
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(256))]

    /// On random register and shared layouts the two agree wherever the table says exact, and
    /// elsewhere differ only in the direction it says: Triton over for wide loads of shared
    /// addresses, under for sub-word accesses.
    #[test]
    fn triton_and_the_hardware_agree_where_the_table_says(seed in proptest::prelude::any::<u64>(), broadcast in proptest::prelude::any::<bool>()) {
        let mut rng = Rng(seed | 1);
        let copies = if broadcast { broadcast_copies_from(&mut rng, 1) } else { random_copies_from(&mut rng, 1) };
        for (c, cost) in costs(&copies) {
            let t = cost.triton.request_wavefronts();
            let shared = lanes_share(c);
            for (class, hw) in [("ld", cost.load), ("st", cost.store)] {
                let h = hw.wavefronts;
                if triton_exact(class, cost.bytes, shared) {
                    proptest::prop_assert_eq!(t, h, "{} {}", c.from, class);
                } else if cost.bytes >= 8 {
                    proptest::prop_assert!(t >= h, "{} {}: Triton {} under the hardware's {}", c.from, class, t, h);
                } else {
                    proptest::prop_assert!(t <= h, "{} {}: Triton {} over the hardware's {}", c.from, class, t, h);
                }
            }
        }
    }
}
