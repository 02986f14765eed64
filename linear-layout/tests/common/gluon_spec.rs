//! Golden-file helpers for the family tests: load `tests/data/families/<family>.json` and turn
//! a Gluon layout spec (`{"kind": ..., Gluon constructor arguments}`, see
//! `tools/gen_family_goldens.py`) into an [`Encoding`].

#![allow(dead_code)]

use linear_layout::families::{DistributedEncoding, Encoding, GluonLayout};
use linear_layout::LinearLayout;
use serde_json::Value;

/// The cases of one family file (checks the Triton version).
pub fn load_cases(family: &str) -> Vec<Value> {
    let path = format!(
        "{}/tests/data/families/{family}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let doc: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(doc["triton_version"], "3.9.0", "{path}");
    doc["cases"].as_array().cloned().unwrap_or_default()
}

/// A golden layout in the repo's `from_bases` JSON shape.
pub fn layout(v: &Value) -> LinearLayout {
    LinearLayout::from_json(v).unwrap_or_else(|e| panic!("golden is not a layout ({e}): {v}"))
}

fn u32s(v: &Value) -> Vec<u32> {
    v.as_array()
        .unwrap_or_else(|| panic!("expected a list: {v}"))
        .iter()
        .map(|x| {
            x.as_u64()
                .unwrap_or_else(|| panic!("expected an integer: {x}")) as u32
        })
        .collect()
}

fn usizes(v: &Value) -> Vec<usize> {
    u32s(v).into_iter().map(|x| x as usize).collect()
}

/// `[[u64]]` lists such as `cga_layout` (missing: empty).
pub fn bases(v: &Value) -> Vec<Vec<u64>> {
    v.as_array()
        .map(|a| {
            a.iter()
                .map(|b| {
                    b.as_array()
                        .unwrap_or_else(|| panic!("expected a basis: {b}"))
                        .iter()
                        .map(|x| {
                            x.as_u64()
                                .unwrap_or_else(|| panic!("expected an integer: {x}"))
                        })
                        .collect()
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The shape argument of a case.
pub fn shape(v: &Value) -> Vec<u64> {
    u32s(v).into_iter().map(u64::from).collect()
}

/// A distributed-layout spec.
pub fn distributed(spec: &Value) -> DistributedEncoding {
    match encoding(spec) {
        Encoding::Distributed(d) => d,
        other => panic!("not a distributed layout: {other:?}"),
    }
}

/// Any layout spec: the library's own reading of a Gluon object's fields
/// ([`GluonLayout`]), which the Python bindings use too.
pub fn encoding(spec: &Value) -> Encoding {
    let gluon: GluonLayout = serde_json::from_value(spec.clone())
        .unwrap_or_else(|e| panic!("not a Gluon layout spec ({e}): {spec}"));
    gluon
        .to_encoding()
        .unwrap_or_else(|e| panic!("spec builds no encoding ({e}): {spec}"))
}
