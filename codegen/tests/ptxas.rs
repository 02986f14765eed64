//! The ptxas driver: arguments, failures carrying ptxas' message, register counts.

use std::path::Path;

use codegen::ptx::{Builder, Target};
use codegen::ptxas::{assemble_with, parse_registers, require_ptxas, PtxasError};

#[test]
fn architecture_names_are_checked_before_running_anything() {
    for arch in ["sm90a", "sm_", "sm_90ab", "sm_90a -o /tmp/x", "compute_90"] {
        assert!(
            matches!(
                assemble_with(Path::new("/nonexistent/ptxas"), "", arch),
                Err(PtxasError::Arch(_))
            ),
            "{arch}"
        );
    }
    // A valid name with a missing binary is an I/O error, not a panic.
    assert!(matches!(
        assemble_with(Path::new("/nonexistent/ptxas"), "", "sm_100a"),
        Err(PtxasError::Io(_))
    ));
}

#[test]
fn register_counts_are_read_from_verbose_output() {
    let text = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\n\
                ptxas info    : Used 30 registers, used 0 barriers, 1024 bytes smem\n";
    assert_eq!(parse_registers(text), Some(30));
    assert_eq!(parse_registers("ptxas info    : Used 2 barriers"), None);
}

#[test]
fn valid_ptx_assembles_and_invalid_ptx_is_rejected_with_the_message() {
    let Some(ptxas) = require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    let mut b = Builder::new("k", Target::Sm90a).unwrap();
    b.ret().unwrap();
    let good = b.finish().unwrap().to_string();
    let out = assemble_with(&ptxas, &good, "sm_90a").unwrap();
    assert!(!out.cubin.is_empty());
    assert!(out.registers.is_some(), "{}", out.stderr);
    // The same text for the other target fails: .target says sm_90a.
    let bad = good.replace("ret;", "ret\n");
    match assemble_with(&ptxas, &bad, "sm_90a") {
        Err(PtxasError::Rejected { stderr, status }) => {
            assert_ne!(status, Some(0));
            assert!(
                stderr.contains("error") || stderr.contains("fatal"),
                "{stderr}"
            );
        }
        other => panic!("expected a rejection, got {other:?}"),
    }
    let version = codegen::ptxas::version(&ptxas).unwrap();
    assert!(!version.is_empty());
}

#[test]
fn the_ptx_isa_version_is_accepted_for_both_targets() {
    let Some(ptxas) = require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    for target in [Target::Sm90a, Target::Sm100a] {
        let mut b = Builder::new("k", target).unwrap();
        b.ret().unwrap();
        let k = b.finish().unwrap();
        assert!(k.to_string().starts_with(".version 8.7\n"));
        assemble_with(&ptxas, &k.to_string(), target.arch()).unwrap();
    }
}

/// Triton 3.9's benchmark kernels, read by our parser and printed again (LLVM's pointer
/// parameters, `%rs`, `mad.wide`, `bfe.s32`, `neg` as `sub`, `mov.b32` packing): ptxas accepts
/// every printed kernel, as it accepts Triton's own text.
#[test]
fn triton_kernels_printed_again_assemble() {
    let Some(ptxas) = require_ptxas()
        .expect("REQUIRE_PTXAS=1 but no ptxas was found (set PTXAS or install nvidia-cuda-nvcc)")
    else {
        return;
    };
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../benches/data/triton_ptx");
    let mut n = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let kernel = codegen::ptx::parse(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let text = kernel.to_string();
        if let Err(e) = assemble_with(&ptxas, &text, "sm_90a") {
            panic!("{}: {e}\n{text}", path.display());
        }
        n += 1;
    }
    assert_eq!(n, 48);
}
