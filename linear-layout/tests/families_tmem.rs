//! Tensor memory (Blackwell TMEM) layouts — `TensorMemory`, `TensorMemoryScales`, the tcgen05
//! access atoms and `tmem_reg_layout` — against every case recorded from Triton 3.9.0 by
//! `tools/gen_family_goldens.py` (`tests/data/families/{tensor_memory,tmem_reg_layout}.json`),
//! cases probed by hand on Triton 3.9.0, and properties on random parameters.
//!
//! Agreement means the same layout where Triton succeeded and an `Err` (a typed family error)
//! where it refused or returned `None`. Gluon's Python view of a TMEM layout drops the `block`
//! in-dim, so for a multi-CTA `cga_layout` the goldens are compared with our `row, col`
//! sublayout and the `block` bases are checked against the CGA separately. Deliberate
//! departures are listed in [`DEPARTURES`] (none of the generated goldens hits one; the
//! hand-probed cases do) and must come out as the typed error named there.

#![allow(clippy::restriction)] // test code: a failed check panics

mod common;

use common::gluon_spec::{encoding, layout, load_cases, shape};
use common::tally::Tally;
use linear_layout::families::tmem::tcgen05_alloc_columns;
use linear_layout::families::tmem_access::tmem_reg_layout;
use linear_layout::families::{Encoding, Tcgen05Atom, TensorMemory, TensorMemoryScales};
use linear_layout::{DType, LayoutError, LinearLayout};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Cases Triton 3.9 answers and we refuse on purpose, by reason: a rule on the case's op and
/// arguments, the parameter our `InvalidParameter` must name, and why.
struct Departure {
    applies: fn(&str, &Value) -> bool,
    param: &'static str,
    reason: &'static str,
}

const DEPARTURES: &[Departure] = &[Departure {
    applies: |op, args| op == "tmem_reg_layout" && args["num_warps"].as_u64() > Some(32),
    param: "num_warps",
    reason: "more than 32 warps: a CTA has at most 1024 threads",
}];

fn departure(op: &str, args: &Value) -> Option<&'static Departure> {
    DEPARTURES.iter().find(|d| (d.applies)(op, args))
}

/// Runs one case (`op` with golden-style `args`).
fn run(op: &str, args: &Value) -> Result<LinearLayout, LayoutError> {
    match op {
        "to_linear_layout" => encoding(&args["layout"]).to_linear_layout(&shape(&args["shape"])),
        "tmem_reg_layout" => {
            let layout = encoding(&args["layout"]);
            let atom: Tcgen05Atom = args["atom"].as_str().unwrap_or("?").parse()?;
            tmem_reg_layout(
                DType::of_bits(args["element_bits"].as_u64().unwrap_or(0) as u32)?,
                &shape(&args["shape"]),
                &shape(&args["alloc_shape"]),
                &layout,
                args["num_warps"].as_u64().unwrap_or(0) as u32,
                atom,
            )
        }
        other => panic!("unknown op {other}"),
    }
}

/// Gluon's view of our layout: TMEM layouts without `block` (checked here against the CGA:
/// each `block` basis is its `cga_layout` basis times the per-CTA shape).
fn gluon_view(op: &str, args: &Value, got: &LinearLayout) -> Result<LinearLayout, String> {
    if op != "to_linear_layout" || !got.has_in_dim("block") {
        return Ok(got.clone());
    }
    let cga: Vec<Vec<u64>> = common::gluon_spec::bases(&args["layout"]["cga_layout"]);
    let shape = shape(&args["shape"]);
    let split = split_of(&cga);
    let want: Vec<Vec<u64>> = cga
        .iter()
        .map(|b| (0..2).map(|d| b[d] * (shape[d] / split[d])).collect())
        .collect();
    let block = got.bases_of("block").map_err(|e| e.to_string())?;
    if block != want {
        return Err(format!("block bases {block:?}, expected {want:?}"));
    }
    got.sublayout(&["row", "col"], &["dim0", "dim1"])
        .map_err(|e| e.to_string())
}

/// Compares one case with Triton's answer (`Some(layout JSON)`, or `None` for a refusal).
fn check_case(t: &mut Tally, id: &str, op: &str, args: &Value, want: Option<&Value>) {
    let got = run(op, args);
    if let Some(d) = departure(op, args) {
        match &got {
            Err(LayoutError::InvalidParameter { param, .. }) if *param == d.param => {
                t.deliberate += 1
            }
            other => t.failures.push(format!(
                "{id}: deliberate departure ({}) must be InvalidParameter on {}, got {other:?}",
                d.reason, d.param
            )),
        }
        return;
    }
    match (want, got) {
        (Some(want), Ok(l)) => {
            let want = layout(want);
            match gluon_view(op, args, &l) {
                Ok(view) if view == want => t.agreed += 1,
                Ok(view) => t.failures.push(format!(
                    "{id}: {args}\n  expected {want:?}\n  got      {view:?}"
                )),
                Err(e) => t.failures.push(format!("{id}: {args}\n  {e}")),
            }
        }
        (Some(want), Err(e)) => t.failures.push(format!(
            "{id}: {args}\n  expected {:?}\n  got error {e}",
            layout(want)
        )),
        (None, Err(e)) => {
            if matches!(
                e,
                LayoutError::InvalidParameter { .. } | LayoutError::InvalidShape { .. }
            ) {
                t.agreed_errors += 1;
            } else {
                t.failures.push(format!(
                    "{id}: refused, but not with a typed family error: {e:?}"
                ));
            }
        }
        (None, Ok(l)) => t
            .failures
            .push(format!("{id}: {args}\n  Triton refused\n  got {l:?}")),
    }
}

fn check_family(family: &str) {
    let cases = load_cases(family);
    let mut t = Tally::default();
    for case in &cases {
        let id = case["id"].as_str().unwrap_or("?");
        let op = case["op"].as_str().unwrap_or("?");
        let want = case["expect"]
            .get("ok")
            .map(|ok| &ok["layout"])
            .filter(|l| !l.is_null());
        check_case(&mut t, id, op, &case["args"], want);
    }
    t.finish(family, cases.len());
}

#[test]
fn tensor_memory_goldens() {
    check_family("tensor_memory");
}

#[test]
fn tmem_reg_layout_goldens() {
    check_family("tmem_reg_layout");
}

/// Cases outside the generated goldens, run by hand on Triton 3.9.0 (Gluon `to_linear_layout`
/// and `gluon_ir.compute_tmem_reg_layout`): (op, args, Triton's bases — `None` where Triton
/// refused or returned `None`). They pin two-CTA mode, CGA register layouts, scales with CGA or
/// below one tile, packing corner cases, multi-buffered allocations and refusals.
const PROBED: &[(&str, &str, Option<&str>)] = &[
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"shape":[128,64]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[32,0],[0,32]]],["col",[[0,1],[0,2],[0,4],[0,8],[0,16]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":2,"cga_layout":[[1,0]],"two_ctas":true},"shape":[128,128]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[32,0],[0,32]]],["col",[[0,0],[0,1],[0,2],[0,4],[0,8],[0,16],[0,64]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"shape":[256,64]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[32,0],[64,0]]],["col",[[0,1],[0,2],[0,4],[0,8],[0,16],[0,32]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[0,1]],"two_ctas":true},"shape":[256,64]}"#,
        None,
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":8,"cga_layout":[],"two_ctas":false},"shape":[128,64]}"#,
        None,
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,1024],"col_stride":1,"cga_layout":[],"two_ctas":false},"shape":[128,1024]}"#,
        None,
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"shape":[128,48]}"#,
        None,
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[2,0]],"two_ctas":false},"shape":[256,64]}"#,
        None,
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[64,8],"col_stride":1,"cga_layout":[],"two_ctas":false},"shape":[64,4]}"#,
        Some(r#"[["row",[[1,0],[2,0],[4,0],[8,0],[0,0],[16,0],[32,0]]],["col",[[0,1],[0,2]]]]"#),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory","block":[64,16],"col_stride":4,"cga_layout":[[0,1],[1,0]],"two_ctas":false},"shape":[256,64]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[64,0],[16,0],[32,0]]],["col",[[0,0],[0,0],[0,1],[0,2],[0,4],[0,8],[0,16]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory_scales","cga_layout":[[1,0]]},"shape":[256,8]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[0,0],[0,0]]],["col",[[0,1],[0,2],[32,0],[64,0],[0,4]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory_scales","cga_layout":[[0,1]]},"shape":[128,16]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[0,0],[0,0]]],["col",[[0,1],[0,2],[32,0],[64,0],[0,4]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory_scales","cga_layout":[]},"shape":[32,4]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[0,0],[0,0]]],["col",[[0,1],[0,2],[0,0]]]]"#,
        ),
    ),
    (
        "to_linear_layout",
        r#"{"layout":{"kind":"tensor_memory_scales","cga_layout":[]},"shape":[128,1]}"#,
        Some(
            r#"[["row",[[1,0],[2,0],[4,0],[8,0],[16,0],[0,0],[0,0]]],["col",[[0,0],[0,0],[32,0],[64,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[256,64],"alloc_shape":[256,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[0,4],[0,8],[0,16],[0,32]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[[128,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,128],"alloc_shape":[128,128],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[0,1]],"two_ctas":false},"num_warps":4,"atom":"16x256b"}"#,
        Some(
            r#"[["register",[[0,1],[8,0],[0,8],[0,16],[0,32],[16,0]]],["lane",[[0,2],[0,4],[1,0],[2,0],[4,0]]],["warp",[[32,0],[64,0]]],["block",[[0,64]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,128],"alloc_shape":[128,128],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[0,0]],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[0,4],[0,8],[0,16],[0,32],[0,64]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[[0,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[256,128],"alloc_shape":[256,128],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[[1,0],[0,1]],"two_ctas":false},"num_warps":8,"atom":"16x64b"}"#,
        Some(
            r#"[["register",[[0,2],[0,4],[0,8],[0,16],[0,32]]],["lane",[[8,0],[0,1],[1,0],[2,0],[4,0]]],["warp",[[32,0],[64,0],[16,0]]],["block",[[128,0],[0,64]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[0,4],[0,8],[0,16]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[0,32]]],["block",[[64,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":4,"atom":"16x256b"}"#,
        Some(
            r#"[["register",[[0,1],[8,0],[0,8],[0,16],[16,0]]],["lane",[[0,2],[0,4],[1,0],[2,0],[4,0]]],["warp",[[32,0],[0,32]]],["block",[[64,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,128],"alloc_shape":[128,128],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":8,"atom":"16x64b"}"#,
        Some(
            r#"[["register",[[0,2],[0,4],[0,8],[0,16],[0,64]]],["lane",[[8,0],[0,1],[1,0],[2,0],[4,0]]],["warp",[[32,0],[0,32],[16,0]]],["block",[[64,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[256,128],"alloc_shape":[256,128],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":2,"cga_layout":[[0,1]],"two_ctas":false},"num_warps":4,"atom":"16x256b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[8,0],[0,16],[0,32],[128,0],[64,0]]],["lane",[[0,4],[0,8],[1,0],[2,0],[4,0]]],["warp",[[16,0],[32,0]]],["block",[[0,64]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[0,4],[0,8],[0,16]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[0,32]]],["block",[[64,0]]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":8,"shape":[128,4],"alloc_shape":[128,4],"layout":{"kind":"tensor_memory","block":[64,2],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,4],"alloc_shape":[128,4],"layout":{"kind":"tensor_memory","block":[64,2],"col_stride":1,"cga_layout":[[1,0]],"two_ctas":true},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":8,"shape":[64,4],"alloc_shape":[64,4],"layout":{"kind":"tensor_memory","block":[64,1],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[64,4],"alloc_shape":[64,4],"layout":{"kind":"tensor_memory","block":[64,2],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1]]],["lane",[[1,0],[2,0],[4,0],[8,0],[0,2]]],["warp",[[16,0],[32,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,4],"alloc_shape":[128,4],"layout":{"kind":"tensor_memory","block":[128,4],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x256b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,1],"alloc_shape":[128,1],"layout":{"kind":"tensor_memory","block":[128,1],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x64b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":8,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":2,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":4,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[64,64],"alloc_shape":[64,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":2,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,32],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x32bx2"}"#,
        None,
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,1],"alloc_shape":[128,1],"layout":{"kind":"tensor_memory","block":[128,1],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,1],"alloc_shape":[128,1],"layout":{"kind":"tensor_memory","block":[128,1],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,1],"alloc_shape":[128,1],"layout":{"kind":"tensor_memory","block":[128,1],"col_stride":2,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":8,"shape":[128,2],"alloc_shape":[128,2],"layout":{"kind":"tensor_memory","block":[128,2],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[64,2],"alloc_shape":[64,2],"layout":{"kind":"tensor_memory","block":[64,2],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[]],["lane",[[1,0],[2,0],[4,0],[8,0],[0,1]]],["warp",[[16,0],[32,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[64,1],"alloc_shape":[64,1],"layout":{"kind":"tensor_memory","block":[64,1],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[]],["lane",[[1,0],[2,0],[4,0],[8,0],[0,0]]],["warp",[[16,0],[32,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[64,64],"alloc_shape":[64,64],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":2,"cga_layout":[],"two_ctas":false},"num_warps":8,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2],[0,4],[0,8]]],["lane",[[1,0],[2,0],[4,0],[8,0],[0,16]]],["warp",[[16,0],[32,0],[0,32]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":8,"shape":[64,128],"alloc_shape":[64,128],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":4,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x64b"}"#,
        Some(
            r#"[["register",[[0,2],[0,4],[0,8],[0,16],[0,32],[0,64]]],["lane",[[8,0],[0,1],[1,0],[2,0],[4,0]]],["warp",[[16,0],[32,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":16,"shape":[128,64],"alloc_shape":[3,128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x128b"}"#,
        Some(
            r#"[["register",[[0,1],[8,0],[0,8],[0,16],[0,32],[16,0]]],["lane",[[0,2],[0,4],[1,0],[2,0],[4,0]]],["warp",[[32,0],[64,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,16],"alloc_shape":[128,16],"layout":{"kind":"tensor_memory","block":[128,16],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":32,"atom":"16x256b"}"#,
        Some(
            r#"[["register",[[0,1],[8,0]]],["lane",[[0,2],[0,4],[1,0],[2,0],[4,0]]],["warp",[[32,0],[64,0],[16,0],[0,8],[0,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[256,64],"alloc_shape":[256,64],"layout":{"kind":"tensor_memory","block":[64,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":4,"atom":"16x128b"}"#,
        Some(
            r#"[["register",[[8,0],[0,4],[0,8],[0,16],[0,32],[128,0],[64,0]]],["lane",[[0,1],[0,2],[1,0],[2,0],[4,0]]],["warp",[[16,0],[32,0]]],["block",[]]]"#,
        ),
    ),
    (
        "tmem_reg_layout",
        r#"{"element_bits":32,"shape":[128,64],"alloc_shape":[128,64],"layout":{"kind":"tensor_memory","block":[128,64],"col_stride":1,"cga_layout":[],"two_ctas":false},"num_warps":64,"atom":"32x32b"}"#,
        Some(
            r#"[["register",[[0,1],[0,2]]],["lane",[[1,0],[2,0],[4,0],[8,0],[16,0]]],["warp",[[32,0],[64,0],[0,4],[0,8],[0,16],[0,32]]],["block",[]]]"#,
        ),
    ),
];

#[test]
fn probed_cases() {
    let mut t = Tally::default();
    for (i, &(op, args, want)) in PROBED.iter().enumerate() {
        let args: Value = serde_json::from_str(args).expect("args JSON");
        let want = want.map(|bases| {
            let outs: Vec<Value> = shape(&args["shape"])
                .iter()
                .enumerate()
                .map(|(i, &s)| json!([format!("dim{i}"), s]))
                .collect();
            json!({"bases": serde_json::from_str::<Value>(bases).expect("bases JSON"), "out_dims": outs})
        });
        check_case(&mut t, &format!("probed/{i}"), op, &args, want.as_ref());
    }
    t.finish("probed", PROBED.len());
}

/// Every departure rule is exercised by at least one case (the list does not rot).
#[test]
fn departures_are_exercised() {
    for d in DEPARTURES {
        let golden = ["tensor_memory", "tmem_reg_layout"]
            .iter()
            .flat_map(|f| load_cases(f))
            .filter(|c| departure(c["op"].as_str().unwrap_or(""), &c["args"]).is_some())
            .count();
        let probed = PROBED
            .iter()
            .filter(|(op, args, _)| {
                let args: Value = serde_json::from_str(args).expect("args JSON");
                departure(op, &args).is_some_and(|x| std::ptr::eq(x, d))
            })
            .count();
        assert!(
            golden + probed > 0,
            "departure '{}' matches no case",
            d.reason
        );
    }
}

/// TMEM sizes of one allocation, from compiling Gluon kernels for sm_100 with Triton 3.9.0
/// (`metadata.tmem_size`, the rounded module total): (bits, shape, block, col_stride, cga,
/// tcgen05.alloc columns).
#[test]
fn alloc_sizes_match_triton() {
    type Case = (u32, [u64; 2], [u32; 2], u32, &'static [[u64; 2]], u32);
    let cases: &[Case] = &[
        (32, [128, 128], [128, 128], 1, &[], 128),
        (32, [128, 256], [128, 128], 1, &[[0, 1]], 128),
        (32, [256, 128], [128, 128], 1, &[[1, 0]], 128),
        (32, [128, 128], [128, 128], 1, &[[0, 0]], 128),
        (16, [128, 128], [128, 128], 1, &[], 64),
        (16, [128, 128], [128, 128], 2, &[], 128),
        (32, [64, 128], [64, 128], 1, &[], 128),
        (32, [128, 16], [128, 16], 1, &[], 32),
    ];
    for &(bits, shape, block, col_stride, cga, want) in cases {
        let tm = TensorMemory {
            block_m: block[0],
            block_n: block[1],
            col_stride,
            cga_layout: cga.iter().map(|b| b.to_vec()).collect(),
            two_ctas: false,
            fp4_padded: false,
        };
        let cols = tm.alloc_columns(&shape, bits).expect("alloc_columns");
        assert_eq!(
            tcgen05_alloc_columns(cols).expect("rounding"),
            want,
            "{tm:?} {shape:?} {bits}-bit: {cols} columns"
        );
    }
}

#[test]
fn typed_errors_name_the_parameter() {
    let ok = TensorMemory {
        block_m: 128,
        block_n: 64,
        col_stride: 1,
        cga_layout: vec![],
        two_ctas: false,
        fp4_padded: false,
    };
    let param = |r: Result<LinearLayout, LayoutError>| match r {
        Err(LayoutError::InvalidParameter { param, .. }) => param,
        other => panic!("expected InvalidParameter, got {other:?}"),
    };
    let with = |f: fn(&mut TensorMemory)| {
        let mut t = ok.clone();
        f(&mut t);
        t.to_linear_layout(&[128, 64])
    };
    assert_eq!(param(with(|t| t.block_m = 96)), "block_m");
    assert_eq!(param(with(|t| t.block_n = 48)), "block_n");
    assert_eq!(param(with(|t| t.block_n = 1024)), "block_n");
    assert_eq!(param(with(|t| t.col_stride = 3)), "col_stride");
    assert_eq!(param(with(|t| t.two_ctas = true)), "two_ctas");
    assert_eq!(param(with(|t| t.cga_layout = vec![vec![1]])), "cga_layout");
    let enc = Encoding::TensorMemory(ok.clone());
    let reg = |bits, nw, atom| {
        tmem_reg_layout(
            DType::of_bits(bits)?,
            &[128, 64],
            &[128, 64],
            &enc,
            nw,
            atom,
        )
    };
    assert!(matches!(
        reg(24, 4, Tcgen05Atom::M32x32b),
        Err(LayoutError::UnknownDType { .. })
    ));
    assert_eq!(param(reg(64, 4, Tcgen05Atom::M32x32b)), "element_bits");
    assert_eq!(param(reg(32, 6, Tcgen05Atom::M32x32b)), "num_warps");
    assert_eq!(param(reg(32, 64, Tcgen05Atom::M32x32b)), "num_warps");
    let swizzled = Encoding::from_mlir(
        "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [1, 0]}>",
    )
    .unwrap();
    let not_tmem = tmem_reg_layout(
        DType::F32,
        &[128, 64],
        &[128, 64],
        &swizzled,
        4,
        Tcgen05Atom::M32x32b,
    );
    assert_eq!(param(not_tmem), "layout");
    let shape_err = |r: Result<LinearLayout, LayoutError>| {
        assert!(
            matches!(r, Err(LayoutError::InvalidShape { .. })),
            "expected InvalidShape, got {r:?}"
        )
    };
    shape_err(ok.to_linear_layout(&[64, 64])); // smaller than a block
    shape_err(ok.to_linear_layout(&[128, 48])); // not a power of two
    shape_err(ok.to_linear_layout(&[2, 128, 64])); // rank 3
    shape_err(TensorMemoryScales::default().to_linear_layout(&[128]));
    // Two-CTA block_m = 64 with one column per CTA: Triton pops a column basis that is not there.
    let narrow = TensorMemory {
        block_m: 64,
        block_n: 1,
        two_ctas: true,
        cga_layout: vec![vec![1, 0]],
        ..ok.clone()
    };
    shape_err(narrow.to_linear_layout(&[128, 1]));
    assert!(matches!(
        ok.alloc_columns(&[16, 128, 64], 32),
        Err(LayoutError::InvalidShape { .. })
    ));
    // Fewer int8 elements than one 32-bit column: Triton's integer division says 0 columns.
    let tiny = TensorMemory {
        block_n: 2,
        ..ok.clone()
    };
    assert_eq!(tiny.alloc_columns(&[128, 2], 8), Ok(1));
}

/// PTX ISA data-movement shapes (tcgen05 "Matrix fragments", as in CUTLASS's
/// `SM100_TMEM_LOAD_*` traits): thread `t`, register `r` of one `.x1` message → (TMEM lane,
/// 32-bit column).
fn ptx_fragment(atom: Tcgen05Atom, t: u64, r: u64) -> (u64, u64) {
    match atom {
        Tcgen05Atom::M32x32b => (t, 0),
        Tcgen05Atom::M16x64b => ((t >> 2) + 8 * (t & 1), (t >> 1) & 1),
        Tcgen05Atom::M16x128b => ((t >> 2) + 8 * r, t & 3),
        Tcgen05Atom::M16x256b => ((t >> 2) + 8 * (r >> 1), 2 * (t & 3) + (r & 1)),
    }
}

#[test]
fn atom_tiles_are_the_ptx_shapes() {
    for atom in Tcgen05Atom::ALL {
        let tile = atom.tile();
        let warp_tile = atom.warp_tile();
        assert_eq!(
            tile.in_dim_size("register").unwrap(),
            u64::from(atom.registers())
        );
        assert_eq!(tile.out_dim_size("row").unwrap(), u64::from(atom.lanes()));
        assert_eq!(tile.out_dim_size("col").unwrap(), u64::from(atom.columns()));
        assert!(tile.is_invertible(), "{atom}: each cell moved once");
        for t in 0..32 {
            for r in 0..u64::from(atom.registers()) {
                let (row, col) = ptx_fragment(atom, t, r);
                let got = tile.apply(&[("register", r), ("lane", t)]).unwrap();
                assert_eq!(
                    got,
                    vec![("row".into(), row), ("col".into(), col)],
                    "{atom}"
                );
                for w in 0..4 {
                    let got = warp_tile
                        .apply(&[("register", r), ("lane", t), ("warp", w)])
                        .unwrap();
                    assert_eq!(got, vec![("row".into(), row + 32 * w), ("col".into(), col)]);
                }
            }
        }
        assert_eq!(atom.to_string().parse::<Tcgen05Atom>().unwrap(), atom);
        assert_eq!(
            atom.lanes() * atom.columns(),
            32 * atom.registers(),
            "{atom}"
        );
    }
}

// ----- properties ----------------------------------------------------------------------------

/// CGA layouts (Gluon `cga_layout`) to draw from.
const CGAS: &[&[[u64; 2]]] = &[
    &[],
    &[[1, 0]],
    &[[0, 1]],
    &[[0, 0]],
    &[[1, 0], [0, 1]],
    &[[0, 1], [1, 0]],
];

/// A valid TMEM layout and a shape it accepts.
fn tmem_case() -> impl Strategy<Value = (TensorMemory, [u64; 2])> {
    (
        prop_oneof![Just(64u32), Just(128u32)],
        0u32..=9,
        prop_oneof![Just(1u32), Just(2), Just(4)],
        0..CGAS.len(),
        any::<bool>(),
        0u32..=2,
        0u32..=3,
    )
        .prop_map(|(block_m, n_log2, col_stride, cga, two, m_rep, n_rep)| {
            let cga_layout: Vec<Vec<u64>> = CGAS[cga].iter().map(|b| b.to_vec()).collect();
            let block_n = 1u32 << n_log2;
            // Two-CTA mode needs the first CGA basis [1, 0], and for block_m = 64 a column bit
            // to stack the two 64-row halves with.
            let two_ctas =
                two && cga_layout.first() == Some(&vec![1, 0]) && (block_m == 128 || block_n >= 2);
            let split = split_of(&cga_layout);
            let m = (u64::from(block_m) * split[0]) << m_rep;
            let n = (u64::from(block_n) * split[1]) << n_rep;
            let tm = TensorMemory {
                block_m,
                block_n,
                col_stride,
                cga_layout,
                two_ctas,
                fp4_padded: false,
            };
            (tm, [m, n])
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Restricted to the rows it uses and without the `col_stride` padding, a TMEM layout is
    /// injective (every element has its own lane and column) and reaches the whole per-CTA
    /// tile; the zero bases are exactly the padding and the unused lane 16.
    #[test]
    fn tmem_layout_is_injective_on_used_cells((tm, shape) in tmem_case()) {
        let l = tm.to_linear_layout(&shape).unwrap();
        let rows = l.bases_of("row").unwrap();
        let cols = l.bases_of("col").unwrap();
        prop_assert_eq!(rows.len(), 7);
        let pad = tm.col_stride.trailing_zeros() as usize;
        prop_assert!(cols[..pad].iter().all(|b| b == &vec![0, 0]));
        let half = tm.alloc_rows(&shape).unwrap() == 64;
        prop_assert_eq!(half, rows[4] == vec![0, 0]);
        let used: Vec<Vec<u64>> = rows
            .iter()
            .enumerate()
            .filter(|&(i, _)| !(half && i == 4))
            .map(|(_, b)| b.clone())
            .collect();
        let split = split_of(&tm.cga_layout);
        let cta = [shape[0] / split[0], shape[1] / split[1]];
        let used = LinearLayout::from_bases(
            &[("row", used), ("col", cols[pad..].to_vec())],
            &[("dim0", cta[0]), ("dim1", cta[1])],
            false,
        )
        .unwrap();
        prop_assert!(used.is_injective(), "{:?} {:?}: {:?}", tm, shape, used);
        prop_assert!(used.is_surjective(), "{:?} {:?}: {:?}", tm, shape, used);
        // Columns: the used `col` bits in 32-bit units (2 16-bit values per column when packed).
        let bits = 32 / tm.col_stride;
        if let Ok(c) = tm.alloc_columns(&shape, bits) {
            prop_assert_eq!(u64::from(c), (1u64 << cols.len()) * u64::from(bits) / 32);
        }
    }

    /// For every atom Triton can use on a layout, the register layout reaches TMEM: each
    /// register, lane, warp and CTA holds an element that has a TMEM cell, warps 1 and 2 of a
    /// warpgroup are the lane slices 32 and 64, and everything else stays inside the warp's
    /// 32-lane slice. Where no layout exists the atom is wider than the layout's columns.
    #[test]
    fn registers_reach_tmem(
        (tm, shape) in tmem_case(),
        bits in prop_oneof![Just(8u32), Just(16), Just(32)],
        nw_log2 in 2u32..=5,
    ) {
        // Packed, or one element per 32-bit column.
        let tm = TensorMemory { col_stride: if tm.col_stride == 1 { 1 } else { 32 / bits }, ..tm };
        let mem = tm.to_linear_layout(&shape).unwrap();
        for atom in Tcgen05Atom::ALL {
            let enc = Encoding::TensorMemory(tm.clone());
            match tmem_reg_layout(DType::of_bits(bits).unwrap(), &shape, &shape, &enc, 1 << nw_log2, atom) {
                Ok(regs) => {
                    prop_assert!(regs.is_surjective(), "{} {:?}: {:?}", atom, tm, regs);
                    let cvt = regs.invert_and_compose(&mem);
                    prop_assert!(cvt.is_ok(), "{} {:?} {:?}: {:?}", atom, tm, shape, cvt);
                    let cvt = cvt.unwrap();
                    for (dim, bases) in cvt.bases() {
                        for (i, b) in bases.iter().enumerate() {
                            let row = b[0];
                            if dim.name() == "warp" && i < 2 {
                                prop_assert_eq!(row, 32 << i, "{} {:?}", atom, tm);
                            } else if dim.name() != "block" {
                                prop_assert!(row < 32, "{} {:?} {}[{}] -> {:?}", atom, tm, dim, i, b);
                            }
                        }
                    }
                }
                Err(LayoutError::InvalidShape { reason, .. }) => {
                    // Unpacked 16-bit values come two columns to a register.
                    let unpacked = if bits == 16 && tm.col_stride == 2 { 2 } else { 1 };
                    let cols = tm.alloc_columns(&shape, bits).unwrap();
                    prop_assert!(reason.contains("per TMEM lane"), "{} {:?}: {}", atom, tm, reason);
                    prop_assert!(atom.columns() * unpacked > cols, "{} {:?}: {} columns", atom, tm, cols);
                }
                // Narrow elements of a row that are not in consecutive columns (a block narrower
                // than one 32-bit column, or two-CTA block_m = 64 moving a column bit into the
                // rows) cannot be packed: Triton returns None.
                Err(LayoutError::InvalidParameter { param: "col_stride", .. })
                    if !packable(&mem, bits, tm.col_stride) => {}
                Err(e) => prop_assert!(false, "{} {:?} {:?}: {}", atom, tm, shape, e),
            }
        }
    }
}

/// Whether `32 / bits` consecutive elements of a row sit in consecutive `col` values (or the
/// layout is unpacked, or has fewer columns than that): what packing into registers needs.
fn packable(mem: &LinearLayout, bits: u32, col_stride: u32) -> bool {
    let cols = mem.bases_of("col").unwrap();
    let run = cols
        .iter()
        .zip(0u32..)
        .take_while(|(b, i)| **b == vec![0, 1 << i])
        .count();
    col_stride > 1 || run >= (32 / bits).trailing_zeros() as usize || run == cols.len()
}

/// CTAs along `dim0, dim1` of a Gluon `cga_layout` (its inferred out sizes).
fn split_of(cga: &[Vec<u64>]) -> [u64; 2] {
    let split = |d: usize| {
        cga.iter()
            .map(|b| (b[d] + 1).next_power_of_two())
            .max()
            .unwrap_or(1)
    };
    [split(0), split(1)]
}

/// Every tensor-memory address map spans exactly the 128 lanes, never more (the plan checker's
/// rule 5 relies on it): taller tiles wrap into further columns, and a 64-row block spreads over
/// all four lane quadrants. Every `block_m`/`block_n`, tile height up to 1,024 rows and width up
/// to 256, 8/16/32-bit elements, a column stride of 2 and two-CTA blocks; `block_m` other than
/// 64 or 128 is refused.
#[test]
fn tmem_address_maps_span_exactly_128_lanes() {
    use linear_layout::{AddressMap, BufferMap};
    let mut built = 0;
    for block_m in [32u32, 64, 128, 256] {
        for block_n in [8u32, 16, 32, 64, 128, 256] {
            for (m, n) in [
                (64u64, 64u64),
                (128, 128),
                (256, 64),
                (256, 256),
                (512, 32),
                (1024, 16),
            ] {
                for (bits, col_stride, two_ctas) in [
                    (8u32, 1u32, false),
                    (16, 1, false),
                    (16, 2, false),
                    (32, 1, false),
                    (32, 1, true),
                ] {
                    let tm = TensorMemory {
                        block_m,
                        block_n,
                        col_stride,
                        cga_layout: vec![],
                        two_ctas,
                        fp4_padded: false,
                    };
                    let map = AddressMap::tensor_memory(
                        BufferMap::new(0, &[(1, 0)]).unwrap(),
                        bits,
                        &tm,
                        &[m, n],
                    );
                    // Refused: block_m not 64 or 128, or a tile smaller than a block.
                    if let Ok(map) = map {
                        assert!(matches!(block_m, 64 | 128), "block_m {block_m} accepted");
                        built += 1;
                        let lanes = map.element().out_dim_size("lane").unwrap();
                        assert_eq!(lanes, 128, "{block_m}×{block_n} over [{m}, {n}]");
                    }
                }
            }
        }
    }
    assert!(built > 100, "{built}");
}
