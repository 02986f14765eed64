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
