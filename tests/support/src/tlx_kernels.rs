//! The real TLX kernels' TTGIR (`alias-alloc/tests/data/tlx_kernels/`, made by
//! `tools/gen_tlx_kernel_dumps.py`), and the index arithmetic of a lowered module evaluated.

use std::path::PathBuf;

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

/// The definition `OP ARGS` of `%v` last made before line `upto` (0-based) of `text`: SSA names
/// repeat across regions, and the index arithmetic sits right before its use.
fn definition<'t>(text: &'t str, upto: usize, v: &str) -> Option<&'t str> {
    let head = format!("%{v} = ");
    text.lines()
        .take(upto)
        .filter(|l| l.trim_start().starts_with(&head))
        .last()
        .and_then(|l| l.split_once(" = "))
        .map(|(_, op)| op.split(" : ").next().unwrap_or(op))
}

/// The value of `%v` with `%leaf = i`, through `arith.constant`, `muli`, `addi`, `remsi`,
/// `remui` and `divui` defined before line `upto`.
pub fn value_at(text: &str, upto: usize, v: &str, leaf: &str, i: i64) -> i64 {
    if v == leaf {
        return i;
    }
    let op = definition(text, upto, v).unwrap_or_else(|| panic!("%{v} is not defined"));
    if let Some(c) = op.strip_prefix("arith.constant ") {
        return c.trim().parse().unwrap_or_else(|_| panic!("%{v} = {op}"));
    }
    let (name, args) = op.split_once(' ').unwrap_or((op, ""));
    let args: Vec<&str> = args
        .split(',')
        .map(|a| a.trim().trim_start_matches('%'))
        .collect();
    let (a, b) = (
        value_at(text, upto, args[0], leaf, i),
        value_at(text, upto, args[1], leaf, i),
    );
    match name {
        "arith.muli" => a * b,
        "arith.addi" => a + b,
        "arith.divui" => a / b,
        "arith.remsi" | "arith.remui" => a % b,
        other => panic!("%{v}: {other} is not index arithmetic"),
    }
}

/// The index TLX's rewrite starts from: the first operand of the `arith.muli` in `%v`'s
/// definitions before line `upto` (`scale·i + offset + i mod g`); `None` when `%v` is not
/// such arithmetic (the index was not rewritten).
pub fn tlx_leaf(text: &str, upto: usize, v: &str) -> Option<String> {
    let op = definition(text, upto, v)?;
    let (name, args) = op.split_once(' ')?;
    let args: Vec<&str> = args
        .split(',')
        .map(|a| a.trim().trim_start_matches('%'))
        .collect();
    match name {
        "arith.muli" => Some(args[0].to_string()),
        "arith.addi" | "arith.remsi" => args.iter().find_map(|a| tlx_leaf(text, upto, a)),
        _ => None,
    }
}

/// Every `%r = ttg.memdesc_index %b[%i] : T -> U` of a module, in order: (its 0-based line, the
/// base type `T` as written, the index name `i`).
pub fn memdesc_index_ops(text: &str) -> Vec<(usize, String, String)> {
    text.lines()
        .enumerate()
        .filter_map(|(n, line)| {
            let rhs = line.split_once(" = ttg.memdesc_index ")?.1;
            let idx = rhs
                .split_once('[')?
                .1
                .split(']')
                .next()?
                .trim_start_matches('%');
            let ty = rhs.split_once(" : ")?.1.split(" -> ").next()?;
            Some((n, ty.to_string(), idx.to_string()))
        })
        .collect()
}
