//! The module model (`linear_layout::mlir`) on every real module the repo holds: the TLX
//! kernels at each stage of the storage-alias passes and the fork's lit cases. Reading and
//! printing is the identity, byte for byte.
#![allow(clippy::restriction)] // test code: a failed check panics

use linear_layout::mlir::Module;
use test_support::tlx_kernels::{dump, KERNELS};

#[test]
fn every_committed_dump_prints_as_read() {
    for kernel in KERNELS {
        for stage in ["before", "lowered", "rewritten"] {
            let text = dump(kernel, stage);
            let m = Module::parse(&text).unwrap_or_else(|e| panic!("{kernel}/{stage}: {e}"));
            assert!(
                m.to_string() == text,
                "{kernel}/{stage}: the printed module differs"
            );
            assert!(m.walk().len() > 100, "{kernel}/{stage}");
        }
    }
}

#[test]
fn every_lit_case_prints_as_read() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/tlx_lit/cases.json");
    let cases: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let mut read = 0;
    for case in cases["cases"].as_array().unwrap() {
        let text = case["mlir"].as_str().unwrap();
        if case["expected"]["parsed"] != true {
            continue;
        }
        let m = Module::parse(text).unwrap_or_else(|e| panic!("{}: {e}\n{text}", case["file"]));
        assert_eq!(m.to_string(), text);
        read += 1;
        if let Some(out) = case["expected"]["lowered"].as_str() {
            let m = Module::parse(out).unwrap_or_else(|e| panic!("{}: {e}\n{out}", case["file"]));
            assert_eq!(m.to_string(), out);
        }
    }
    assert_eq!(read, 59);
}

/// Every op of the table in every committed dump reads into its typed form; the TMA loads'
/// barriers and destinations, the waits' barriers are memdescs wherever their types are known,
/// as their roles say.
#[test]
fn every_known_op_of_the_real_dumps_has_its_typed_form() {
    use linear_layout::mlir::TypedOp;
    let mut seen = std::collections::BTreeMap::new();
    for kernel in KERNELS {
        let m = Module::parse(&dump(kernel, "before")).unwrap();
        // A type the text prints where the model links it (a value made by an op outside the
        // table has none to check).
        let known = std::cell::Cell::new(0usize);
        let memdesc = |v| {
            let ty = m.value(v).and_then(|x| x.ty());
            if ty.is_some() {
                known.set(known.get() + 1);
            }
            ty.is_none_or(|t| t.starts_with("!ttg.memdesc<"))
        };
        for o in m.walk() {
            let typed = m.typed(o).unwrap_or_else(|e| panic!("{kernel}: {e}"));
            let Some(t) = typed else { continue };
            let name = m.op(o).unwrap().name().to_string();
            *seen.entry(name).or_insert(0usize) += 1;
            match t {
                TypedOp::TmaLoad { dst, barrier, .. } => {
                    assert!(memdesc(dst) && memdesc(barrier), "{kernel}: {t:?}");
                }
                TypedOp::WaitBarrier { barrier, .. } | TypedOp::ArriveBarrier { barrier, .. } => {
                    assert!(memdesc(barrier), "{kernel}: {t:?}");
                }
                TypedOp::WarpSpecialize {
                    partitions,
                    captures,
                    ..
                } => {
                    assert!(!partitions.is_empty(), "{kernel}");
                    for &p in partitions {
                        let entry = m.block(m.region(p).unwrap().blocks()[0]).unwrap();
                        assert_eq!(entry.arguments().len(), captures.len(), "{kernel}");
                    }
                }
                _ => {}
            }
        }
        // The roles were checked on real types, not only on values of unknown type.
        assert!(
            known.get() > 0,
            "{kernel}: no barrier or destination type known"
        );
    }
    for op in [
        "ttng.wait_barrier",
        "ttng.async_tma_copy_global_to_local",
        "ttng.tc_gen5_mma",
        "ttg.warp_specialize",
        "scf.for",
    ] {
        assert!(seen.get(op).copied().unwrap_or(0) > 0, "{op}: {seen:?}");
    }
}
