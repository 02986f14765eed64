//! Unit tests of `lower.rs`, compiled only under `#[cfg(test)]` (they read the crate-private
//! alias table and memdesc parser to compare modules structurally).
//!
//! `lower_module` against fbtriton 3.7.4's real `tlx-storage-alias-lowering` output on the
//! eight committed kernels and the fork's lit cases: the same ops in the same order, with the
//! same operand and result types and attributes, SSA names, aliases and locations aside.

use std::collections::HashMap;

use super::super::read_module;
use super::*;
use crate::PlanOptions;
use test_support::tlx_kernels::{dump, memdesc_indexes, value_at, KERNELS};

/// The module's ops in order, SSA names, aliases and locations aside
/// ([`Module::structure`]); TLX prints its dummy TMEM layout without the `<>` the lit inputs
/// give it.
fn structure(text: &str) -> Vec<String> {
    let m = Module::parse(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    m.structure()
        .into_iter()
        .map(|l| l.replace("#tlx.dummy_tmem_layout < >", "#tlx.dummy_tmem_layout"))
        .collect()
}

/// The first op where two structures differ, for a readable failure.
fn first_difference(got: &[String], want: &[String]) -> Option<String> {
    let n = got.iter().zip(want).position(|(g, w)| g != w);
    match n {
        Some(i) => Some(format!("op #{i}:\n  ours {}\n  TLX  {}", got[i], want[i])),
        None if got.len() != want.len() => Some(format!("{} ops, TLX {}", got.len(), want.len())),
        None => None,
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
        let ours = lower_module(&m, &plan).unwrap_or_else(|e| panic!("{kernel}: {e}"));
        let got = structure(&ours);
        let want = structure(&dump(kernel, "lowered"));
        if let Some(d) = first_difference(&got, &want) {
            panic!("{kernel}: {d}");
        }
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
  %b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>
  %0 = tlx.reuse_group(%a, %b) group_kind = distinct : (!ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>, !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>) -> !tlx.reuse_group<distinct>
  tlx.set_buffer_overlap(%s, %0) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
  %v = ttng.tmem_load %b : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<2x128x1xf32>
  %w = ttng.tmem_load %a : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<2x128x1xf32>
}
";
    let m = read_module(text).unwrap();
    let plan = m
        .program
        .plan(&PlanOptions::new(Mode::TlxCompatible))
        .unwrap();
    // %b is re-typed (4 slots, every other one its own): a tmem_load of it would read another
    // meaning. %a keeps its type and slots, so its load stays as it is.
    match lower_module(&m, &plan) {
        Err(AllocError::Mlir {
            line,
            column,
            message,
        }) => {
            assert_eq!((line, column), (8, 8));
            assert!(
                message.contains("%b is aliased and used by 'ttng.tmem_load'"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    // An op whose signature the model does not know keeps a re-typed operand's type in its
    // text: refused by the model itself.
    let unknown = text.replace(
        "%v = ttng.tmem_load %b : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable> -> tensor<2x128x1xf32>",
        "\"x.use\"(%b) : (!ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>) -> ()\n  x.custom %b : !ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>",
    );
    let m = read_module(&unknown).unwrap();
    match lower_module(&m, &plan) {
        Err(AllocError::Syntax(e)) => {
            assert_eq!((e.line, e.column), (9, 3), "{e}");
            assert!(
                e.to_string()
                    .contains("%b changes type and 'x.custom' uses it"),
                "{e}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// Intended mode's lowering: each aliased buffer index reaches the slot of Intended's explicit
/// placement (`slot(i)` of its reindexing), in the kernels' partitions too.
#[test]
fn intended_lowering_indexes_the_explicit_slots() {
    for kernel in KERNELS {
        let before = dump(kernel, "before");
        let m = read_module(&before).unwrap();
        let plan = m.program.plan(&PlanOptions::new(Mode::Intended)).unwrap();
        let ours = match lower_module(&m, &plan) {
            Ok(ours) => ours,
            // Intended packs the mxfp8 kernel's 4-column scale tiles after three 1-column
            // tiles, at column 3: an address map reaches it, an index of an alias cannot.
            Err(e) if kernel == "fa_fwd_mxfp8" => {
                assert!(
                    matches!(&e, AllocError::AliasIndexUnreachable { alloc, buffer_map, unit: 4, units: "columns" }
                        if alloc == "q_scale_tmem" && buffer_map == "3 + (2):(128)"),
                    "{e}"
                );
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
        // Each rewritten index, evaluated on the printed module read back, against the index
        // it replaced (by name: the lowering keeps the original as the arithmetic's leaf).
        let lowered = Module::parse(&ours).unwrap();
        let originals = memdesc_indexes(&m.module);
        let rewritten = memdesc_indexes(&lowered);
        assert_eq!(originals.len(), rewritten.len(), "{kernel}");
        let mut checked = 0;
        for ((ty, idx), (_, leaf)) in rewritten.iter().zip(&originals) {
            let Some(all) = by_type.get(ty) else {
                continue;
            };
            let leaf = m.module.value(*leaf).unwrap().name().to_string();
            for want in all {
                let got: Vec<i64> = (0..want.len() as i64)
                    .map(|i| value_at(&lowered, *idx, &leaf, i))
                    .collect();
                assert_eq!(&got, want, "{kernel}: memdesc_index of {ty}");
            }
            checked += 1;
        }
        // Kernels that alias only through legacy `reuse=` views have no spec to lower.
        let has_spec = m
            .allocs
            .iter()
            .any(|a| a.op == AllocOp::StorageAliasLocalAlloc);
        assert!(checked > 0 || !has_spec, "{kernel}: nothing checked");
    }
}

/// The fork's own lit tests of the storage-alias passes (`tools/gen_tlx_lit_goldens.py`): each
/// case the fbtriton 3.7.4 pass reads is read here too; where the pass lowers it, TLX mode
/// lowers it the same way (backings, alias types, every memdesc_index), and where the pass
/// fails, TLX mode fails with its text.
#[test]
fn reproduces_the_pass_on_the_forks_lit_tests() {
    // The lit cases, and the constructs they miss (`tools/gen_tlx_construct_goldens.py`: i4 and
    // f4E2M1FN allocations with the 4-bit NVMMA layout TLX builds, an alias carried by an
    // scf.for), in one schema.
    let mut cases = Vec::new();
    for file in [
        "tests/data/tlx_lit/cases.json",
        "tests/data/tlx_constructs/cases.json",
    ] {
        let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let data: serde_json::Value = serde_json::from_str(&text).unwrap();
        cases.extend(data["cases"].as_array().unwrap().iter().cloned());
    }
    let mut bad = Vec::new();
    let mut checked = 0;
    for case in &cases {
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
                let ours = match lower_module(&m, &plan) {
                    Ok(o) => o,
                    Err(e) => {
                        bad.push(format!("{what}: lowering refused: {e}"));
                        continue;
                    }
                };
                let got = structure(&ours);
                let want = structure(exp["lowered"].as_str().unwrap());
                if let Some(d) = first_difference(&got, &want) {
                    bad.push(format!("{what}: {d}"));
                }
            }
            (true, Err(e)) => bad.push(format!("{what}: TLX lowers it, we refuse: {e}")),
            (false, Ok((m, plan))) => {
                // TLX plans it and its verifier refuses what the lowering leaves: so must we.
                match lower_module(&m, &plan) {
                    Err(e) => {
                        let ours = e.tlx_message().unwrap_or_else(|| e.to_string());
                        if !errors.iter().any(|t| *t == ours) {
                            bad.push(format!(
                                "{what}: TLX says {errors:?}, our lowering {ours:?}"
                            ));
                        }
                    }
                    Ok(_) => bad.push(format!("{what}: TLX fails ({errors:?}), we lower it")),
                }
            }
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
    assert!(checked >= 59 + 5, "{checked} cases checked");
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

/// An alias carried around an `scf.for`: TLX re-types the alias and not the loop, and its
/// verifier refuses the result (the golden above); Intended mode gives the body's argument,
/// the loop's result and its `scf.yield` the alias's new type, and indexes both.
#[test]
fn intended_mode_carries_an_alias_through_a_loop() {
    let m = read_module(&construct_case("loop_carried_alias")).unwrap();
    let plan = m.program.plan(&PlanOptions::new(Mode::Intended)).unwrap();
    let text = lower_module(&m, &plan).unwrap();
    let lowered = Module::parse(&text).unwrap();
    let alias_type = |name: &str| {
        lowered
            .walk()
            .into_iter()
            .filter_map(|o| lowered.op(o))
            .find(|o| {
                o.name() == "tlx.local_alias"
                    && lowered.value(o.results()[0]).unwrap().name() == name
            })
            .map(|o| {
                lowered
                    .value(o.results()[0])
                    .unwrap()
                    .ty()
                    .unwrap()
                    .to_string()
            })
            .unwrap()
    };
    let b = alias_type("b");
    assert!(b.starts_with("!ttg.memdesc<"), "{b}");
    let for_op = lowered
        .walk()
        .into_iter()
        .find(|&o| lowered.op(o).unwrap().kind() == Some(OpKind::For))
        .unwrap();
    let (arg, result, yielded) = lowered.loop_carried(for_op, 3).unwrap();
    assert_eq!(arg, yielded);
    assert_eq!(
        lowered.value(result).unwrap().ty(),
        Some(b.as_str()),
        "{text}"
    );
    assert!(
        text.contains(&format!("scf.yield %buf, %k1 : {b}, i32")),
        "{text}"
    );
    // Both indexings — inside the loop and of its result — reach Intended's slots.
    let indexes = memdesc_indexes(&lowered);
    assert_eq!(indexes.len(), 2);
    for (ty, _) in &indexes {
        assert_eq!(ty, &b);
    }
}

/// A view of a whole aliased buffer: TLX mode prints it as the fork does (the lit-style test
/// above compares it); Intended mode refuses it at the view.
#[test]
fn intended_mode_refuses_a_view_of_a_whole_alias() {
    let m = read_module(&construct_case("view_of_alias")).unwrap();
    let plan = m.program.plan(&PlanOptions::new(Mode::Intended)).unwrap();
    match lower_module(&m, &plan) {
        Err(AllocError::Mlir { line, message, .. }) => {
            assert_eq!(line, 10);
            assert!(
                message.contains("%b is aliased and viewed whole"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
}

/// The module of the construct golden `name` (`tools/gen_tlx_construct_goldens.py`).
fn construct_case(name: &str) -> String {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/tlx_constructs/cases.json");
    let data: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = data["cases"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["file"] == name)
        .unwrap();
    case["mlir"].as_str().unwrap().to_string()
}
