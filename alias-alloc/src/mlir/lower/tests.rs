//! Unit tests of `lower.rs`, compiled only under `#[cfg(test)]` (they read the crate-private
//! alias table and memdesc parser to compare modules structurally).
//!
//! `lower_module` against fbtriton 3.7.4's real `tlx-storage-alias-lowering` output on the
//! eight committed kernels: the same backings, alias types, `ttg.memdesc_index` ops (base type
//! and the slot each buffer index reaches) and the same ops otherwise, SSA names aside.

use std::collections::HashMap;

use super::super::memdesc::MemDesc;
use super::super::read_module;
use super::*;
use crate::PlanOptions;
use linear_layout::text::aliases::Aliases;
use test_support::tlx_kernels::{dump, memdesc_index_ops, tlx_leaf, value_at, KERNELS};

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
        // TLX prints the dummy layout without its empty `<>`.
        m.encoding_text
            .split_whitespace()
            .collect::<String>()
            .trim_end_matches("<>"),
        m.space_text,
        m.mutable,
        m.alloc_shape
    )
}

/// What the comparison looks at in one module.
#[derive(Debug, PartialEq)]
struct Structure {
    /// The backings: the distinct sources of `tlx.local_alias` ops (the legacy views' too).
    backings: Vec<String>,
    /// `tlx.local_alias` result types, in order.
    aliases: Vec<String>,
    /// Each `ttg.memdesc_index`: the resolved base type and the slots of buffers 0..4.
    indexings: Vec<(String, Vec<i64>)>,
    /// How many of each op.
    ops: Vec<(String, usize)>,
}

fn structure(text: &str) -> Structure {
    let mut aliases = Aliases::default();
    let mut s = Structure {
        backings: vec![],
        aliases: vec![],
        indexings: vec![],
        ops: vec![],
    };
    let mut counts: HashMap<String, usize> = HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let body = line.trim_start();
        let code = body.split(" loc(").next().unwrap_or(body);
        if let Some((name, value)) = body.split_once(" = ").filter(|_| body.starts_with('#')) {
            if !value.starts_with("loc(") {
                aliases.define(name, value);
            }
            continue;
        }
        let op = match code.split_once(" = ") {
            Some((l, r)) if l.starts_with('%') => r,
            _ => code,
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
            "tlx.local_alias" => {
                // The backing is the alias's source (TLX renames the spec's value).
                let source = op
                    .split_once(" : ")
                    .map(|(_, t)| t)
                    .and_then(|t| t.split(" -> ").next())
                    .unwrap_or("");
                let source = resolved(source, &aliases);
                if !s.backings.contains(&source) {
                    s.backings.push(source);
                }
                s.aliases.push(resolved(&arrow(op), &aliases));
            }
            "ttg.memdesc_index" => {
                let rest = &op["ttg.memdesc_index".len()..];
                let idx = rest.split_once('[').unwrap().1.split(']').next().unwrap();
                let idx = idx.trim_start_matches('%');
                let base = rest
                    .split_once(" : ")
                    .unwrap()
                    .1
                    .split(" -> ")
                    .next()
                    .unwrap();
                let slots = match tlx_leaf(text, n, idx) {
                    Some(x) => (0..4).map(|i| value_at(text, n, idx, &x, i)).collect(),
                    None => vec![-1],
                };
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
        let got = structure(&ours);
        let want = structure(&dump(kernel, "lowered"));
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
}

/// `%r = ttg.memdesc_index %b[%i] : T -> U` ops in order: (base type text, index name).
fn index_ops(text: &str) -> Vec<(String, String)> {
    memdesc_index_ops(text)
        .into_iter()
        .map(|(_, ty, idx)| (ty, idx))
        .collect()
}

/// Intended mode's lowering: each aliased buffer index reaches the slot of Intended's explicit
/// placement (`slot(i)` of its reindexing), in the kernels' partitions too.
#[test]
fn intended_lowering_indexes_the_explicit_slots() {
    for kernel in KERNELS {
        let before = dump(kernel, "before");
        let m = read_module(&before).unwrap();
        let plan = m.program.plan(&PlanOptions::new(Mode::Intended)).unwrap();
        let ours = match lower_module(&before, &m, &plan) {
            Ok(ours) => ours,
            // Intended packs the mxfp8 kernel's 4-column scale tiles after three 1-column
            // tiles, at column 3: an address map reaches it, an index of an alias cannot.
            Err(e) if kernel == "fa_fwd_mxfp8" => {
                assert!(e.to_string().starts_with("%q_scale_tmem: Intended mode places its buffers at offsets that are not whole buffers (3 + (2):(128))"), "{e}");
                continue;
            }
            Err(e) => panic!("{kernel}: {e}"),
        };
        // The new type of each aliased allocation and its slots.
        let mut by_type: HashMap<String, Vec<Vec<i64>>> = HashMap::new();
        for a in m
            .allocs
            .iter()
            .filter(|a| a.op == AllocOp::StorageAliasLocalAlloc)
        {
            let alloc = m.program.allocation(a.alloc).unwrap();
            let ap = plan.alloc(&alloc.name).unwrap();
            let mut md = a.memdesc.clone();
            md.shape[0] = ap.alias_shape.as_ref().unwrap()[0];
            let slots = (0..alloc.num)
                .map(|i| ap.reindex.as_ref().unwrap().slot(i).unwrap() as i64)
                .collect();
            by_type.entry(md.to_string()).or_default().push(slots);
        }
        let originals = index_ops(&before);
        let rewritten = index_ops(&ours);
        assert_eq!(originals.len(), rewritten.len(), "{kernel}");
        let lines: Vec<usize> = ours
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(" = ttg.memdesc_index "))
            .map(|(n, _)| n)
            .collect();
        let mut checked = 0;
        for (((ty, idx), (_, leaf)), line) in rewritten.iter().zip(&originals).zip(lines) {
            let Some(all) = by_type.get(ty) else {
                continue;
            };
            for want in all {
                let got: Vec<i64> = (0..want.len() as i64)
                    .map(|i| value_at(&ours, line, idx, leaf, i))
                    .collect();
                assert_eq!(
                    &got,
                    want,
                    "{kernel}: memdesc_index of {ty} at line {}",
                    line + 1
                );
            }
            checked += 1;
        }
        assert!(
            checked > 0 || kernel == "fa_ws_legacy_reuse",
            "{kernel}: nothing checked"
        );
    }
}

/// The fork's own lit tests of the storage-alias passes (`tools/gen_tlx_lit_goldens.py`): each
/// case the fbtriton 3.7.4 pass reads is read here too; where the pass lowers it, TLX mode
/// lowers it the same way (backings, alias types, every memdesc_index), and where the pass
/// fails, TLX mode fails with its text.
#[test]
fn reproduces_the_pass_on_the_forks_lit_tests() {
    let path =
        std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tlx_lit/cases.json");
    let text = std::fs::read_to_string(&path).unwrap();
    let data: serde_json::Value = serde_json::from_str(&text).unwrap();
    let mut bad = Vec::new();
    let mut checked = 0;
    for case in data["cases"].as_array().unwrap() {
        let exp = &case["expected"];
        if exp["parsed"] != true {
            continue;
        }
        let what = format!("{}#{}", case["file"].as_str().unwrap(), case["index"]);
        let mlir = case["mlir"].as_str().unwrap();
        let errors: Vec<&str> = exp["errors"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e.as_str())
            .collect();
        let planned = read_module(mlir).and_then(|m| {
            let plan = m.program.plan(&PlanOptions::new(Mode::TlxCompatible))?;
            Ok((m, plan))
        });
        checked += 1;
        match (exp["ok"] == true, planned) {
            (true, Ok((m, plan))) => {
                let ours = match lower_module(mlir, &m, &plan) {
                    Ok(o) => o,
                    Err(e) => {
                        bad.push(format!("{what}: lowering refused: {e}"));
                        continue;
                    }
                };
                let got = structure(&ours);
                let want = structure(exp["lowered"].as_str().unwrap());
                if got.backings != want.backings
                    || got.aliases != want.aliases
                    || got.indexings != want.indexings
                {
                    bad.push(format!("{what}: ours {got:?}\n  TLX {want:?}"));
                }
            }
            (true, Err(e)) => bad.push(format!("{what}: TLX lowers it, we refuse: {e}")),
            (false, Ok(_)) => bad.push(format!("{what}: TLX fails ({errors:?}), we plan it")),
            (false, Err(e)) => {
                let ours = e.tlx_message().unwrap_or_else(|| e.to_string());
                if !errors.iter().any(|t| *t == ours || t.ends_with(&ours)) {
                    bad.push(format!(
                        "{what}: TLX says {errors:?}, we say {ours:?} ({e})"
                    ));
                }
            }
        }
    }
    assert!(checked >= 59, "{checked} cases checked");
    assert!(
        bad.is_empty(),
        "{} of {checked}:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

/// What Intended mode makes of every tree the fork's lit tests and the eight kernels use,
/// beside TLX's verdict: `tests/data/tlx_lit/intended.txt` (regenerate with `BLESS=1`), the
/// table `docs/plan-from-ir.md` summarises.
#[test]
fn intended_verdicts_on_real_trees() {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/tlx_lit");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path.join("cases.json")).unwrap()).unwrap();
    let mut inputs: Vec<(String, String)> = data["cases"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["expected"]["parsed"] == true)
        .map(|c| {
            (
                format!("{}#{}", c["file"].as_str().unwrap(), c["index"]),
                c["mlir"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    for k in KERNELS {
        inputs.push((format!("kernel {k}"), dump(k, "before")));
    }
    let mut out = String::from(
        "# Intended mode on the trees of the fork's lit tests and the eight TLX kernels.\n\
         # Generated by alias-alloc/src/mlir/lower/tests.rs (BLESS=1 cargo test -p linalias-alias-alloc --lib).\n",
    );
    for (what, mlir) in inputs {
        let verdict = |mode: Mode| match read_module(&mlir) {
            Err(e) => format!("unreadable: {e}"),
            Ok(m) => match m.program.plan(&PlanOptions::new(mode)) {
                Err(e) => format!("refused: {e}"),
                Ok(plan) => {
                    let notes: Vec<String> = plan
                        .warnings
                        .iter()
                        .filter(|w| {
                            matches!(
                                w,
                                crate::Warning::PhasePool { .. }
                                    | crate::Warning::UnusedSpec { .. }
                            )
                        })
                        .map(|w| w.to_string())
                        .collect();
                    if notes.is_empty() {
                        "planned".into()
                    } else {
                        format!("planned ({})", notes.join("; "))
                    }
                }
            },
        };
        out.push_str(&format!(
            "{what}\n  tlx: {}\n  intended: {}\n",
            verdict(Mode::TlxCompatible),
            verdict(Mode::Intended)
        ));
    }
    test_support::golden::check(path.join("intended.txt"), &out);
}
