//! Real TLX kernels read from their TTGIR (`tests/data/tlx_kernels/`, made by
//! `tools/gen_tlx_kernel_dumps.py` with fbtriton 3.7.4): each one read from the module
//! `tlx-storage-alias-lowering` receives, planned in TLX mode, and compared with what the pass
//! really printed — backing allocations, alias types, and the index arithmetic of every
//! `ttg.memdesc_index` of an aliased buffer (evaluated, SSA names aside).
#![allow(clippy::restriction)] // test code: a failed check panics

use std::collections::HashMap;

use alias_alloc::mlir::{read_module, AllocOp, KernelModule, MemDesc};
use alias_alloc::{Mode, Plan, PlanOptions, Warning};
use linear_layout::mlir::Module;
use test_support::tlx_kernels::{dump, memdesc_indexes, tlx_leaf, value_at, KERNELS};

/// `%name = OP … -> !ttg.memdesc<…>` lines of a module: name → (op, result memdesc).
fn results(text: &str, op: &str) -> HashMap<String, MemDesc> {
    let mut out = HashMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some((lhs, rhs)) = line.split_once(" = ") else {
            continue;
        };
        if !rhs.starts_with(op) || !lhs.starts_with('%') {
            continue;
        }
        let Some(at) = rhs.find("-> !ttg.memdesc<") else {
            continue;
        };
        let body = &rhs[at + "-> !ttg.memdesc<".len()..];
        let end = body.find("> loc(").or_else(|| body.rfind('>')).unwrap();
        out.insert(lhs[1..].to_string(), MemDesc::parse(&body[..end]).unwrap());
    }
    out
}

/// Every `ttg.memdesc_index %base[%idx] : !ttg.memdesc<T> -> …` whose `T` `num` knows, in
/// order: (T, the slots its index gives for buffers `0..min(num(T), 8)`).
fn indexings(text: &str, num: impl Fn(&str) -> Option<u64>) -> Vec<(String, Vec<i64>)> {
    let m = Module::parse(text).unwrap();
    memdesc_indexes(&m)
        .into_iter()
        .filter_map(|(ty, idx)| {
            let ty = ty.strip_prefix("!ttg.memdesc<")?.strip_suffix('>')?;
            let count = num(ty)?.min(8) as i64;
            let slots = match tlx_leaf(&m, idx) {
                Some(leaf) => (0..count).map(|i| value_at(&m, idx, &leaf, i)).collect(),
                None => (0..count).collect(),
            };
            Some((ty.to_string(), slots))
        })
        .collect()
}

fn read(kernel: &str) -> KernelModule {
    read_module(&dump(kernel, "before")).unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

fn tlx_plan(kernel: &str, m: &KernelModule) -> Plan {
    let options = PlanOptions {
        target: m.target().unwrap(),
        ..PlanOptions::new(Mode::TlxCompatible)
    };
    m.program
        .plan(&options)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

#[test]
fn every_kernel_reads() {
    for kernel in KERNELS {
        let m = read(kernel);
        assert_eq!(m.attributes.target.as_deref(), Some("cuda:100"), "{kernel}");
        assert!(m.program.allocations().count() > 5, "{kernel}");
    }
    // What the FA forward allocates, as its tutorial writes it.
    let m = read("fa_fwd_persistent");
    let p = m.alloc_by_ssa("p_tiles").unwrap();
    assert_eq!(p.op, AllocOp::StorageAliasLocalAlloc);
    let a = m.program.allocation(p.alloc).unwrap();
    assert_eq!((a.num, a.shape.as_slice()), (4, &[128, 64][..]));
    assert_eq!(m.specs.len(), 1);
    let legacy = read("fa_ws_legacy_reuse");
    assert_eq!(
        legacy.alloc_by_ssa("alpha_tiles").map(|a| a.op),
        Some(AllocOp::LocalAlias)
    );
}

#[test]
fn tlx_mode_reproduces_the_storage_alias_pass() {
    let mut bad = Vec::new();
    for kernel in KERNELS {
        let m = read(kernel);
        let plan = tlx_plan(kernel, &m);
        let lowered = dump(kernel, "lowered");
        let backings: HashMap<String, MemDesc> = results(&lowered, "ttng.tmem_alloc")
            .into_iter()
            .chain(results(&lowered, "ttg.local_alloc"))
            .collect();
        let aliases = results(&lowered, "tlx.local_alias");
        for s in &m.specs {
            let got = &plan.specs[s.spec.index()].backing_shape;
            match backings.get(&s.ssa) {
                Some(md) if &md.shape == got => {}
                other => bad.push(format!(
                    "{kernel}: backing %{}: ours {got:?}, TLX {:?}",
                    s.ssa,
                    other.map(|m| &m.shape)
                )),
            }
        }
        let mut indexed = 0;
        let uses = indexings(&lowered, |ty| {
            aliases
                .values()
                .find(|m| m.to_string() == format!("!ttg.memdesc<{ty}>"))
                .map(|m| m.shape[0])
        });
        for a in m
            .allocs
            .iter()
            .filter(|a| a.op == AllocOp::StorageAliasLocalAlloc)
        {
            let ours = plan
                .alloc(&m.program.allocation(a.alloc).unwrap().name)
                .unwrap();
            let tlx = aliases
                .get(&a.ssa)
                .unwrap_or_else(|| panic!("{kernel}: no alias %{}", a.ssa));
            if ours.alias_shape.as_ref() != Some(&tlx.shape) {
                bad.push(format!(
                    "{kernel}: alias %{}: ours {:?}, TLX {:?}",
                    a.ssa, ours.alias_shape, tlx.shape
                ));
            }
            // The alias's type names its memdesc_index uses; where two aliases share a type,
            // their rewrites must agree for the check to mean anything.
            let ty = tlx.to_string();
            let ty = &ty["!ttg.memdesc<".len()..ty.len() - 1];
            let want: Vec<i64> = (0..a.memdesc.shape[0])
                .map(|i| match &ours.reindex {
                    Some(r) => r.slot(i).unwrap() as i64,
                    None => i as i64,
                })
                .collect();
            for other in m
                .allocs
                .iter()
                .filter(|o| o.op == AllocOp::StorageAliasLocalAlloc)
            {
                if aliases.get(&other.ssa).map(|t| t.to_string()) == Some(tlx.to_string()) {
                    let o = plan
                        .alloc(&m.program.allocation(other.alloc).unwrap().name)
                        .unwrap();
                    let theirs: Vec<i64> = (0..other.memdesc.shape[0])
                        .map(|i| o.reindex.as_ref().map_or(i, |r| r.slot(i).unwrap()) as i64)
                        .collect();
                    assert_eq!(
                        theirs, want,
                        "{kernel}: %{} and %{} share a type",
                        a.ssa, other.ssa
                    );
                }
            }
            let mut seen = 0;
            for (_, tlx_slots) in uses.iter().filter(|(t, _)| t == ty) {
                seen += 1;
                let slots: Vec<i64> = tlx_slots.iter().take(want.len()).copied().collect();
                if slots != want {
                    bad.push(format!(
                        "{kernel}: %{} slots: ours {want:?}, TLX {slots:?}",
                        a.ssa
                    ));
                }
            }
            indexed += usize::from(seen > 0);
        }
        // Some aliases are only captured (fa_bwd_1cta's are never indexed; the legacy kernel has no spec).
        let specs = m.specs.len();
        assert!(
            indexed > 0 || specs == 0 || kernel == "fa_bwd_1cta",
            "{kernel}: no alias is indexed"
        );
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Bytes (SMEM) or 32-bit columns (a 2-D `i32` TMEM backing) of a backing memdesc.
fn units(m: &MemDesc) -> u64 {
    let elements: u64 = m.shape.iter().product();
    let bits: u64 = match m.element.as_str() {
        "i8" | "ui8" => 8,
        "f16" | "bf16" => 16,
        "i32" | "f32" => 32,
        other => panic!("backing element {other}"),
    };
    if m.space == "#ttng.tensor_memory" {
        // 32-bit columns over the rows (the second-to-last dim), whatever the leading dims.
        elements * bits / 32 / m.shape[m.shape.len() - 2]
    } else {
        elements * bits / 8
    }
}

/// What really runs is the module after `tlx-rewrite-local-alias`: TLX mode's verdict is taken
/// on that backing, so a kernel TLX gets right raises no alarm, and the backing the multiphase
/// GEMM's largest alias forces is the one reported.
#[test]
fn tlx_verdict_is_on_the_rewritten_backing() {
    for kernel in KERNELS {
        let m = read(kernel);
        let plan = tlx_plan(kernel, &m);
        let unsafe_: Vec<String> = plan
            .warnings
            .iter()
            .filter(|w| matches!(w, Warning::Unsafe(_)))
            .map(|w| w.to_string())
            .collect();
        assert!(unsafe_.is_empty(), "{kernel}: {unsafe_:?}");
        let rewritten = dump(kernel, "rewritten");
        let backings: HashMap<String, MemDesc> = results(&rewritten, "ttng.tmem_alloc")
            .into_iter()
            .chain(results(&rewritten, "ttg.local_alloc"))
            .collect();
        for s in &m.specs {
            let ours = plan.specs[s.spec.index()].backing_units;
            let theirs = units(&backings[&s.ssa]);
            assert_eq!(ours, theirs, "{kernel}: rewritten backing %{}", s.ssa);
        }
    }
    let m = read("triple_gemm_multiphase");
    let plan = tlx_plan("triple_gemm_multiphase", &m);
    assert!(plan.warnings.contains(&Warning::BackingGrown {
        spec: "smem_pool".into(),
        alloc: "L2_smem_1".into(),
        from: 131072,
        to: 163840,
        unit: "bytes",
    }));
}
