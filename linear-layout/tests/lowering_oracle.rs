//! Shared layouts against Triton 3.9's own lowering (`tools/gen_lowering_oracle.py` →
//! `tests/data/families/lowering_oracle.json`): for each attribute and shape, the slot Triton's
//! compiled `ttg.local_alloc` stores every element to, read off the LLVM IR of an AMD kernel.
//! This is the only Triton answer for `#ttg.amd_rotating_shared` (Gluon cannot hold it) and for
//! the padding of `#ttg.padded_shared` (no linear layout); swizzled cases check the oracle
//! itself against a family Gluon does check.

#![allow(clippy::restriction)] // test code: a failed check panics

use linear_layout::families::{Encoding, SharedEncoding};
use linear_layout::LinearLayout;
use serde_json::Value;

/// Our slot of each element `r·C + c`: the layout's offset for it, padded where the layout pads.
fn our_slots(enc: &Encoding, shape: &[u64]) -> Result<Vec<u64>, String> {
    let (layout, pad): (LinearLayout, Box<dyn Fn(u64) -> u64>) = match enc {
        Encoding::Shared(SharedEncoding::Padded(p)) => {
            let p = p.clone();
            (
                p.linear_component().clone(),
                Box::new(move |o| p.padded_offset(o)),
            )
        }
        other => (
            other.to_linear_layout(shape).map_err(|e| e.to_string())?,
            Box::new(|o| o),
        ),
    };
    let n: u64 = shape.iter().product();
    let mut slots = vec![u64::MAX; n as usize];
    for o in 0..layout.in_dim_size("offset").map_err(|e| e.to_string())? {
        let out = layout
            .apply(&[("offset", o), ("block", 0)])
            .map_err(|e| e.to_string())?;
        let (r, c) = (out[0].1, out[1].1);
        slots[(r * shape[1] + c) as usize] = pad(o);
    }
    Ok(slots)
}

#[test]
fn shared_layouts_agree_with_triton_s_lowering() {
    let path = format!(
        "{}/tests/data/families/lowering_oracle.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(doc["triton_version"], "3.9.0");
    let (mut agree, mut by_kind) = (0, std::collections::BTreeMap::<String, usize>::new());
    let mut failures = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let attr = case["attr"].as_str().unwrap();
        let shape: Vec<u64> = serde_json::from_value(case["shape"].clone()).unwrap();
        let enc = Encoding::from_mlir(attr).unwrap_or_else(|e| panic!("{attr}: {e}"));
        let ours = our_slots(&enc, &shape);
        match (case["expect"].get("ok"), ours) {
            (Some(ok), Ok(slots)) => {
                let triton: Vec<u64> = serde_json::from_value(ok["slots"].clone()).unwrap();
                if slots == triton {
                    agree += 1;
                    let kind = attr.split('<').next().unwrap_or(attr).to_string();
                    *by_kind.entry(kind).or_default() += 1;
                } else {
                    let first = slots.iter().zip(&triton).position(|(a, b)| a != b);
                    failures.push(format!(
                        "{attr} on {shape:?}: first difference at element {first:?}"
                    ));
                }
            }
            (Some(_), Err(e)) => failures.push(format!("{attr} on {shape:?}: we refuse: {e}")),
            (None, _) => failures.push(format!(
                "{attr} on {shape:?}: no Triton answer ({})",
                case["expect"]["error"]
            )),
        }
    }
    println!("lowering oracle: {agree} agree {by_kind:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(by_kind
        .get("#ttg.amd_rotating_shared")
        .is_some_and(|&n| n >= 60));
    assert!(by_kind.get("#ttg.padded_shared").is_some_and(|&n| n >= 15));
}
