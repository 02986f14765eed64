//! The real TLX kernels' TTGIR (`alias-alloc/tests/data/tlx_kernels/`, made by
//! `tools/gen_tlx_kernel_dumps.py`), and the index arithmetic of a lowered module evaluated on
//! the module model (`linear_layout::mlir`).

use std::path::PathBuf;

use linear_layout::mlir::{Module, OpKind, Operation, ValueDef, ValueId};

/// The committed kernels, one folder each.
pub const KERNELS: [&str; 20] = [
    "fa_fwd_persistent",
    "fa_bwd_1cta",
    "fa_bwd_2cta",
    "fa_fwd_mxfp8",
    "fa_bwd_mxfp8",
    "fa_clc",
    "fa_ws_legacy_reuse",
    "triple_gemm_multiphase",
    "fa_ws_pipelined",
    "fa_ws_pipelined_fp8",
    "fa_ws_persistent",
    "fa_fwd_persistent_rescale",
    "fa_fwd_persistent_hd64",
    "fa_bwd_1cta_warp_barrier",
    "fa_bwd_1cta_hd64",
    "fa_clc_rescale",
    "cross_attention",
    "cross_attention_m64",
    "cross_attention_pipeline",
    "cross_attention_pipeline_n64",
];

/// The path of a kernel's module at `stage`: `before` (what `tlx-storage-alias-lowering`
/// receives), `lowered` (what it leaves), `rewritten` (after `tlx-rewrite-local-alias`).
pub fn path(kernel: &str, stage: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../alias-alloc/tests/data/tlx_kernels")
        .join(kernel)
        .join(format!("{stage}.mlir"))
}

/// The text of [`path`].
pub fn dump(kernel: &str, stage: &str) -> String {
    let p = path(kernel, stage);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A read of persistent kernel `text` at one launch — `N_CTX`, the tiles CLC hands out after
/// the first, `(program, programs)`, and `H` where given — and its cut into the K laps of its
/// tiles.
pub fn read_launch(
    text: &str,
    n_ctx: i64,
    clc_tiles: i64,
    (program_id, num_programs): (i64, i64),
    heads: Option<i64>,
) -> (
    alias_alloc::hazard::KernelTrace,
    alias_alloc::hazard::TileLaps,
) {
    let mut opts = alias_alloc::hazard::ReadOptions {
        program_id,
        num_programs,
        clc_tiles,
        max_events: 200_000,
        ..alias_alloc::hazard::ReadOptions::default()
    };
    opts.params.insert("N_CTX".into(), n_ctx);
    if let Some(h) = heads {
        opts.params.insert("H".into(), h);
    }
    let kt = alias_alloc::hazard::read_kernel(text, &opts).unwrap_or_else(|e| panic!("{e}"));
    let cut = alias_alloc::hazard::tile_laps(&kt).unwrap_or_else(|e| panic!("{e}"));
    (kt, cut)
}

/// The op that defines `v` in `m`, where an op does.
fn defining_op(m: &Module, v: ValueId) -> Option<&Operation> {
    match m.value(v)?.def() {
        ValueDef::Result { op, .. } => m.op(op),
        _ => None,
    }
}

/// The value of `v` with the value named `leaf` set to `i`, through `arith.constant`, `muli`,
/// `addi`, `remsi`, `remui` and `divui` (the lowering's index arithmetic), read on the model.
pub fn value_at(m: &Module, v: ValueId, leaf: &str, i: i64) -> i64 {
    let value = m.value(v).expect("a value of the module");
    if value.name() == leaf {
        return i;
    }
    let op = defining_op(m, v).unwrap_or_else(|| panic!("{} is not computed", value.use_name()));
    if op.kind() == Some(OpKind::Constant) {
        let text = op.attribute("value").expect("a constant has a value");
        return text
            .parse()
            .unwrap_or_else(|_| panic!("{} = {text}", value.use_name()));
    }
    let (a, b) = (
        value_at(m, op.operands()[0], leaf, i),
        value_at(m, op.operands()[1], leaf, i),
    );
    match op.name() {
        "arith.muli" => a * b,
        "arith.addi" => a + b,
        "arith.divui" => a / b,
        "arith.remsi" | "arith.remui" => a % b,
        other => panic!("{}: {other} is not index arithmetic", value.use_name()),
    }
}

/// The index TLX's rewrite starts from: the first operand of the `arith.muli` in `v`'s
/// definition (`scale·i + offset + i mod g`), by name; `None` when `v` is not such arithmetic
/// (the index was not rewritten).
pub fn tlx_leaf(m: &Module, v: ValueId) -> Option<String> {
    let op = defining_op(m, v)?;
    match op.name() {
        "arith.muli" => m.value(op.operands()[0]).map(|x| x.name().to_string()),
        "arith.addi" | "arith.remsi" => op.operands().iter().find_map(|&a| tlx_leaf(m, a)),
        _ => None,
    }
}

/// Every `ttg.memdesc_index` of `m`, in walk order: (the base type it prints, its index).
pub fn memdesc_indexes(m: &Module) -> Vec<(String, ValueId)> {
    m.walk()
        .into_iter()
        .filter_map(|o| m.op(o))
        .filter(|op| op.kind() == Some(OpKind::MemdescIndex))
        .map(|op| {
            let base = m.value(op.operands()[0]).and_then(|v| v.ty()).unwrap_or("");
            (base.to_string(), op.operands()[1])
        })
        .collect()
}
