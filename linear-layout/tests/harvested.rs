//! Layout attributes harvested from real TTGIR — the lit tests of the TLX fork of Triton and
//! our committed TLX kernel dumps — each with the shape it is used with, evaluated by Triton
//! 3.9.0 (`tools/gen_harvested_layouts.py` → `tests/data/harvest/layouts.json`).
//!
//! Every case falls in one bucket:
//! * **agree**: the same layout, or both refuse;
//! * **wrong**: both build a layout and they differ — a silent wrong answer; there must be none;
//! * **accepted**: Triton refuses (or cannot parse) and we build a layout — there must be none;
//! * **refused**: Triton builds a layout and we refuse. Allowed only for the attribute kinds in
//!   [`NOT_YET`], each refused with a typed error; the test fails when a kind outside that
//!   list is refused, and when a kind on it is no longer refused (so the list shrinks);
//! * **departure**: Triton builds a layout and we refuse on purpose ([`DEPARTURES`], each
//!   listed in `docs/families.md`): the attribute says something Triton silently ignores.

#![allow(clippy::restriction)] // test code: a failed check panics

use std::collections::BTreeMap;

use linear_layout::families::Encoding;
use linear_layout::{LayoutError, LinearLayout};
use serde_json::Value;

/// Attribute kinds we do not build yet, and why (issue 13 lists them).
const NOT_YET: &[(&str, &str)] = &[];

/// Attributes Triton 3.9 builds and we refuse on purpose: the text our error must contain, and
/// why. Each rule must match at least one harvested case.
const DEPARTURES: &[(&str, &str)] = &[
    (
        "unknown key 'isTransposed' (expected one of version, rank, ctaLayout, isTranspose",
        "#ttg.amd_wmma spells its flag isTranspose; Triton's parser skips an isTransposed key \
         and builds the untransposed layout the author did not ask for",
    ),
    (
        "describe more than one CTA, but Triton 3.9 ignores these keys",
        "legacy CTAsPerCGA / CTASplitNum keys for two CTAs: Triton 3.9's parser skips them and \
         lays the tensor out for one CTA",
    ),
    (
        "mma.sync (v2) at rank 2 needs [M, N] (rank 2) or [1, M, N] (rank 3), M 16 or fp64's 8",
        "an mma.sync accumulator with an M no mma.sync instruction has (32): Triton builds a \
         tile for it anyway",
    ),
];

fn kind(attr: &str) -> &str {
    let end = attr.find(['<', ' ']).unwrap_or(attr.len());
    &attr[..end]
}

#[derive(Default)]
struct Tally {
    agree: usize,
    agree_refusals: usize,
    wrong: Vec<String>,
    accepted: Vec<String>,
    refused: BTreeMap<String, Vec<String>>,
    departures: BTreeMap<&'static str, usize>,
}

/// Our layout as Triton's answer shows it: Gluon's Python view of a TMEM layout has no `block`
/// in-dim (`families_tmem.rs` checks our `block` bases against the CGA layout), and its view of
/// a partitioned layout no `partition` in-dim (`families_shared.rs` checks those bases).
fn ours(attr: &str, shape: &[u64]) -> Result<LinearLayout, LayoutError> {
    let l = Encoding::from_mlir(attr)?.to_linear_layout(shape)?;
    if l.has_in_dim("row") && l.has_in_dim("block") {
        return l.sublayout(&["row", "col"], &l.out_dim_names());
    }
    if l.has_in_dim("partition") {
        // ... and sizes its out-dims by the bases left.
        let dims = [
            ("offset", l.bases_of("offset")?),
            ("block", l.bases_of("block")?),
        ];
        let sizes: Vec<(linear_layout::Dim, u64)> = l
            .out_dim_names()
            .into_iter()
            .enumerate()
            .map(|(k, d)| {
                let top = dims.iter().flat_map(|(_, b)| b).map(|b| b[k]).max();
                (d, top.map_or(1, |t| (t + 1).next_power_of_two()))
            })
            .collect();
        return LinearLayout::from_bases(&dims, &sizes, false);
    }
    Ok(l)
}

/// Triton errors about the type around the layout (an `i1` memdesc), not the layout, or
/// about Gluon's Python view (`#ttg.amd_rotating_shared` has none: no golden exists for it,
/// `families_shared.rs` checks its properties).
fn not_about_the_layout(error: &str) -> bool {
    error.contains("element type bit width") || error.contains("Unhandled encoding encountered")
}

/// The shape a case was evaluated on.
fn shape_of(case: &Value) -> Vec<u64> {
    case["shape"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect()
}

/// The harvested cases (checks the Triton version).
fn harvested_cases() -> Vec<Value> {
    let path = format!(
        "{}/tests/data/harvest/layouts.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["triton_version"], "3.9.0");
    doc["cases"].as_array().cloned().unwrap_or_default()
}

#[test]
fn harvested_attributes_agree_with_triton() {
    let cases = &harvested_cases();
    assert!(cases.len() > 3000, "{} cases", cases.len());
    let mut t = Tally::default();
    for case in cases {
        let id = case["id"].as_str().unwrap();
        let attr = case["attr"].as_str().unwrap();
        let shape = shape_of(case);
        let what = format!("{id} ({}) {attr} on {shape:?}", case["source"]);
        if not_about_the_layout(case["expect"]["error"].as_str().unwrap_or("")) {
            continue;
        }
        let got = ours(attr, &shape);
        match (case["expect"].get("ok"), got) {
            (Some(ok), Ok(l)) => {
                let want = LinearLayout::from_json(&ok["layout"]).unwrap();
                if l == want {
                    t.agree += 1;
                } else {
                    t.wrong.push(format!(
                        "{what}\n  Triton {}\n  ours   {}",
                        want.to_json(),
                        l.to_json()
                    ));
                }
            }
            (Some(_), Err(e)) => {
                let text = e.to_string();
                match DEPARTURES.iter().find(|(needle, _)| text.contains(needle)) {
                    Some((needle, _)) => *t.departures.entry(needle).or_default() += 1,
                    None => t
                        .refused
                        .entry(kind(attr).to_string())
                        .or_default()
                        .push(format!("{what}: {e}")),
                }
            }
            (None, Err(_)) => t.agree_refusals += 1,
            (None, Ok(l)) => t.accepted.push(format!(
                "{what}\n  Triton: {}\n  ours {}",
                case["expect"]["error"],
                l.to_json()
            )),
        }
    }
    println!(
        "{} cases: {} layouts agree, {} refusals agree, {} deliberate departures, {} wrong, {} \
         accepted where Triton refuses, {} refused",
        cases.len(),
        t.agree,
        t.agree_refusals,
        t.departures.values().sum::<usize>(),
        t.wrong.len(),
        t.accepted.len(),
        t.refused.values().map(Vec::len).sum::<usize>()
    );
    for (k, v) in &t.refused {
        println!("refused {k}: {} cases, e.g. {}", v.len(), v[0]);
    }
    for w in t.wrong.iter().take(10) {
        println!("WRONG {w}");
    }
    for a in t.accepted.iter().take(10) {
        println!("ACCEPTED {a}");
    }
    assert!(t.wrong.is_empty(), "{} silent wrong answers", t.wrong.len());
    assert!(
        t.accepted.is_empty(),
        "{} accepted where Triton refuses",
        t.accepted.len()
    );
    for k in t.refused.keys() {
        assert!(
            NOT_YET.iter().any(|(n, _)| n == k),
            "{k} is refused in {} real cases and is not on the NOT_YET list",
            t.refused[k].len()
        );
    }
    for (needle, why) in DEPARTURES {
        assert!(
            t.departures.contains_key(needle),
            "departure '{why}' matches no harvested case"
        );
    }
    for (k, why) in NOT_YET {
        assert!(
            t.refused.contains_key(*k),
            "{k} ({why}) is on NOT_YET but no longer refused: take it off"
        );
    }
}

/// Padded layouts have no linear layout in Triton (both refuse, above); their linear component
/// (Triton's `paddedLinearLayout` for a padded attribute, Gluon's `offset_bases`, `cga_layout`
/// and `shape`) and interval-padding pairs agree with ours for every harvested one.
#[test]
fn harvested_padded_layouts_agree_with_triton() {
    use linear_layout::families::{PaddedShared, SharedEncoding};
    let (mut agree, mut refused) = (0, 0);
    for case in &harvested_cases() {
        let Some(want) = case.get("padded_linear") else {
            continue;
        };
        let attr = case["attr"].as_str().unwrap();
        let ours: Result<PaddedShared, LayoutError> = Encoding::from_mlir(attr).map(|e| match e {
            Encoding::Shared(SharedEncoding::Padded(p)) => p,
            Encoding::Shared(SharedEncoding::Partitioned(p)) => match *p.partition_layout {
                SharedEncoding::Padded(p) => p,
                other => panic!("{attr}: pieces {other:?}"),
            },
            other => panic!("{attr}: parsed as {other:?}"),
        });
        match (want.get("ok"), ours) {
            (Some(w), Ok(p)) => {
                let nums =
                    |v: &Value| -> Vec<Vec<u64>> { serde_json::from_value(v.clone()).unwrap() };
                let pairs: Vec<(u64, u64)> =
                    nums(&w["pairs"]).iter().map(|p| (p[0], p[1])).collect();
                let shape: Vec<u64> = serde_json::from_value(w["shape"].clone()).unwrap();
                let triton =
                    PaddedShared::new(&pairs, &nums(&w["offset"]), &nums(&w["block"]), &shape)
                        .unwrap_or_else(|e| {
                            panic!("{attr}: Triton's component does not check: {e}")
                        });
                assert_eq!(p, triton, "{attr}");
                agree += 1;
            }
            (None, Err(_)) => refused += 1,
            // Triton's memdesc verifier: a padded allocation has its linear component's shape.
            (None, Ok(p)) if want["error"].as_str().is_some_and(|e| e.contains("shape")) => {
                let own: Vec<u64> = p
                    .linear_component()
                    .out_dims()
                    .iter()
                    .map(|d| d.1)
                    .collect();
                assert_ne!(own, shape_of(case), "{attr}");
                refused += 1;
            }
            (w, ours) => panic!("{attr}: Triton {w:?}, ours {ours:?}"),
        }
    }
    println!("padded layouts: {agree} linear components agree, {refused} refusals agree");
    assert!(agree >= 70, "{agree}");
}

/// The module reader finds every harvested attribute again when the cases are written as one
/// TTGIR text (inline attributes, one use per line), with the shape Triton evaluated.
#[test]
fn module_reader_finds_every_harvested_use() {
    use linear_layout::text::module::{module_layouts, UseKind};
    let cases = &harvested_cases();
    let mut text = String::new();
    for (i, case) in cases.iter().enumerate() {
        let shape: Vec<String> = shape_of(case).iter().map(u64::to_string).collect();
        let attr = case["attr"].as_str().unwrap();
        let ty = if case["space"] == "tensor" {
            format!("tensor<{}xf16, {attr}>", shape.join("x"))
        } else {
            format!(
                "!ttg.memdesc<{}xi8, {attr}, #smem, mutable>",
                shape.join("x")
            )
        };
        text.push_str(&format!("  %v{i} = test.op : {ty}\n"));
    }
    let layouts = module_layouts(&text);
    let found: std::collections::HashSet<usize> = layouts
        .iter()
        .flat_map(|l| l.uses.iter().map(|u| u.line))
        .collect();
    let missing: Vec<String> = (1..=cases.len())
        .filter(|n| !found.contains(n))
        .map(|n| text.lines().nth(n - 1).unwrap_or("").to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "{} not found: {missing:#?}",
        missing.len()
    );
    for l in &layouts {
        for u in &l.uses {
            let case = &cases[u.line - 1];
            assert_eq!(
                l.attribute,
                case["attr"].as_str().unwrap(),
                "line {}",
                u.line
            );
            assert_eq!(u.layout_shape(), shape_of(case));
            assert_eq!(u.kind == UseKind::Tensor, case["space"] == "tensor");
        }
    }
}
