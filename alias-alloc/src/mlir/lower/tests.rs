//! `lower_module` against fbtriton 3.7.4's real `tlx-storage-alias-lowering` output on the
//! seven committed kernels: the same backings, alias types, `ttg.memdesc_index` ops (base type
//! and the slot each buffer index reaches) and the same ops otherwise, SSA names aside.

use std::collections::HashMap;

use super::super::aliases::Aliases;
use super::super::memdesc::MemDesc;
use super::super::read_module;
use super::*;
use crate::PlanOptions;

const KERNELS: [&str; 7] = [
    "fa_fwd_persistent",
    "fa_bwd_1cta",
    "fa_bwd_2cta",
    "fa_fwd_mxfp8",
    "fa_clc",
    "fa_ws_legacy_reuse",
    "triple_gemm_multiphase",
];

fn dump(kernel: &str, stage: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tlx_kernels")
        .join(kernel)
        .join(format!("{stage}.mlir"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// A memdesc with its aliases resolved, as comparable text.
fn resolved(ty: &str, aliases: &Aliases) -> String {
    let body = ty
        .trim()
        .strip_prefix("!ttg.memdesc<")
        .and_then(|t| t.strip_suffix('>'))
        .unwrap_or_else(|| panic!("not a memdesc: {ty}"));
    let m = MemDesc::parse_with(body, aliases).unwrap_or_else(|e| panic!("{e}: {ty}"));
    format!(
        "{:?} {} {} {} {} {:?}",
        m.shape,
        m.element,
        m.encoding_text.split_whitespace().collect::<String>(),
        m.space_text,
        m.mutable,
        m.alloc_shape
    )
}

/// What the comparison looks at in one module.
#[derive(Debug, PartialEq)]
struct Structure {
    /// `%name = OP : () -> T` of the given names (the backings).
    backings: Vec<(String, String)>,
    /// `tlx.local_alias` result types, in order.
    aliases: Vec<String>,
    /// Each `ttg.memdesc_index`: the resolved base type and the slots of buffers 0..4.
    indexings: Vec<(String, Vec<i64>)>,
    /// How many of each op.
    ops: Vec<(String, usize)>,
}

fn structure(text: &str, backing_names: &[String]) -> Structure {
    let mut aliases = Aliases::default();
    let mut consts: HashMap<String, i64> = HashMap::new();
    let mut ops: HashMap<String, (String, Vec<String>)> = HashMap::new();
    let mut s = Structure {
        backings: vec![],
        aliases: vec![],
        indexings: vec![],
        ops: vec![],
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for line in text.lines() {
        let body = line.trim_start();
        let code = body.split(" loc(").next().unwrap_or(body);
        if let Some((name, value)) = body.split_once(" = ").filter(|_| body.starts_with('#')) {
            if !value.starts_with("loc(") {
                aliases.define(name, value);
            }
            continue;
        }
        let (lhs, op) = match code.split_once(" = ") {
            Some((l, r)) if l.starts_with('%') => (Some(l.trim_start_matches('%')), r),
            _ => (None, code),
        };
        let name = identifier(op);
        if name.contains('.') {
            *counts.entry(name.to_string()).or_default() += 1;
        }
        let arrow = |o: &str| {
            o.rsplit_once(" -> ")
                .map(|(_, t)| t.to_string())
                .unwrap_or_default()
        };
        match name {
            "arith.constant" => {
                if let (Some(l), Some(v)) = (
                    lhs,
                    op["arith.constant ".len()..]
                        .split(" : ")
                        .next()
                        .and_then(|v| v.trim().parse().ok()),
                ) {
                    consts.insert(l.to_string(), v);
                }
            }
            "arith.muli" | "arith.addi" | "arith.remsi" => {
                let args = op[name.len()..]
                    .split(" : ")
                    .next()
                    .unwrap_or("")
                    .split(',')
                    .map(|a| a.trim().trim_start_matches('%').to_string())
                    .collect();
                ops.insert(lhs.unwrap_or("").to_string(), (name.to_string(), args));
            }
            "ttng.tmem_alloc" | "ttg.local_alloc" => {
                if let Some(l) = lhs.filter(|l| backing_names.iter().any(|b| b == l)) {
                    s.backings
                        .push((l.to_string(), resolved(&arrow(op), &aliases)));
                }
            }
            "tlx.local_alias" => s.aliases.push(resolved(&arrow(op), &aliases)),
            "ttg.memdesc_index" => {
                let rest = &op["ttg.memdesc_index".len()..];
                let idx = rest
                    .split_once('[')
                    .unwrap()
                    .1
                    .split(']')
                    .next()
                    .unwrap()
                    .trim_start_matches('%');
                let base = rest
                    .split_once(" : ")
                    .unwrap()
                    .1
                    .split(" -> ")
                    .next()
                    .unwrap();
                let leaf = leaf(idx, &ops);
                let slots = (0..4)
                    .map(|i| match &leaf {
                        Some(x) => eval(idx, x, i, &ops, &consts),
                        None => -1 - i,
                    })
                    .collect();
                s.indexings.push((resolved(base, &aliases), slots));
            }
            _ => {}
        }
    }
    let mut counts: Vec<(String, usize)> = counts.into_iter().collect();
    counts.sort();
    s.ops = counts;
    s
}

fn leaf(v: &str, ops: &HashMap<String, (String, Vec<String>)>) -> Option<String> {
    let (op, args) = ops.get(v)?;
    if op == "arith.muli" {
        return Some(args[0].clone());
    }
    args.iter().find_map(|a| leaf(a, ops))
}

fn eval(
    v: &str,
    x: &str,
    i: i64,
    ops: &HashMap<String, (String, Vec<String>)>,
    consts: &HashMap<String, i64>,
) -> i64 {
    if v == x {
        return i;
    }
    if let Some(c) = consts.get(v) {
        return *c;
    }
    let (op, args) = &ops[v];
    let (a, b) = (
        eval(&args[0], x, i, ops, consts),
        eval(&args[1], x, i, ops, consts),
    );
    match op.as_str() {
        "arith.muli" => a * b,
        "arith.addi" => a + b,
        _ => a % b,
    }
}

#[test]
fn reproduces_the_storage_alias_pass_on_real_kernels() {
    for kernel in KERNELS {
        let before = dump(kernel, "before");
        let m = read_module(&before).unwrap();
        let plan = m
            .program
            .plan(&PlanOptions::new(Mode::TlxCompatible))
            .unwrap();
        let ours = lower_module(&before, &m, &plan).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let names: Vec<String> = m.specs.iter().map(|s| s.ssa.clone()).collect();
        let got = structure(&ours, &names);
        let want = structure(&dump(kernel, "lowered"), &names);
        assert_eq!(got.backings, want.backings, "{kernel}");
        assert_eq!(got.aliases, want.aliases, "{kernel}");
        assert_eq!(got.indexings.len(), want.indexings.len(), "{kernel}");
        for (i, (g, w)) in got.indexings.iter().zip(&want.indexings).enumerate() {
            assert_eq!(g, w, "{kernel}: memdesc_index #{i}");
        }
        assert_eq!(got.ops, want.ops, "{kernel}");
        // What we print reads back: the aliases are plain allocations' views now.
        let again = read_module(&ours).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        assert!(again.specs.is_empty(), "{kernel}");
    }
}

#[test]
fn other_uses_of_an_aliased_buffer_are_refused() {
    let text = "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
module {
  %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
  %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
  %v = ttng.tmem_load %a : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<2x128x1xf32>
}
";
    let m = read_module(text).unwrap();
    let plan = m
        .program
        .plan(&PlanOptions::new(Mode::TlxCompatible))
        .unwrap();
    match lower_module(text, &m, &plan) {
        Err(AllocError::Mlir {
            line,
            column,
            message,
        }) => {
            assert_eq!((line, column), (5, 23));
            assert!(
                message.contains("%a is aliased and used by 'ttng.tmem_load'"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    let intended = m.program.plan(&PlanOptions::new(Mode::Intended)).unwrap();
    assert!(matches!(
        lower_module(text, &m, &intended),
        Err(AllocError::Input(_))
    ));
}
