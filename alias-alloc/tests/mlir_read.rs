//! The TTGIR reader: errors with their place, and the odd forms a real dump holds.
#![allow(clippy::restriction)] // test code: a failed check panics

use alias_alloc::mlir::{read_module, AllocOp};
use alias_alloc::AllocError;

fn err(text: &str) -> (usize, usize, String) {
    match read_module(text) {
        Err(AllocError::Mlir {
            line,
            column,
            message,
        }) => (line, column, message),
        Err(AllocError::Syntax(e)) => (e.line, e.column, e.kind.to_string()),
        Err(AllocError::Located {
            line,
            column,
            error,
        }) => (line, column, error.to_string()),
        other => panic!("expected an MLIR error, got {other:?}"),
    }
}

const TMEM: &str =
    "#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 128, colStride = 1>\n";

#[test]
fn unknown_operand_is_placed() {
    let (line, column, message) = err(&format!(
        "{TMEM}module {{\n  %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>\n}}\n"
    ));
    assert_eq!((line, column), (3, 38));
    assert_eq!(message, "%s is not defined");
    // Defined, but not a spec.
    let (line, column, message) = err(&format!(
        "{TMEM}module {{\n  %s = arith.constant 0 : i32\n  %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> !ttg.memdesc<2x128x128xf32, #tmem, #ttng.tensor_memory, mutable>\n}}\n"
    ));
    assert_eq!((line, column), (4, 8));
    assert!(message.contains("%s is not a spec"), "{message}");
}

#[test]
fn generic_form_of_an_aliasing_op_is_refused() {
    let (line, column, message) = err(
        "module {\n  %a = arith.constant 0 : i32\n  %0 = \"tlx.reuse_group\"(%a) <{group_kind = 0 : i32}> : (i32) -> i32\n}\n",
    );
    assert_eq!((line, column), (3, 8));
    assert!(message.contains("generic form"), "{message}");
}

#[test]
fn other_generic_ops_and_regions_are_skipped() -> Result<(), AllocError> {
    let m = read_module(&format!(
        "{TMEM}module attributes {{\"ttg.num-warps\" = 8 : i32, \"ttng.two-ctas\", \"ttg.cluster-dim-x\" = 2 : i32}} {{\n  %x = arith.constant dense<0.0> : tensor<4xf32>\n  %0 = \"tt.reduce\"(%x) <{{axis = 0 : i32}}> ({{\n  ^bb0(%a: f32, %b: f32):\n    tt.reduce.return %a : f32\n  }}) : (tensor<4xf32>) -> f32\n  %acc = ttng.tmem_alloc : () -> !ttg.memdesc<128x128xf32, #tmem, #ttng.tensor_memory, mutable> loc(#loc3)\n}}\n"
    ))?;
    assert_eq!(m.attributes.num_warps, Some(8));
    assert!(m.attributes.two_ctas);
    assert_eq!(m.attributes.cluster_dims, [2, 1, 1]);
    let acc = m
        .alloc_by_ssa("acc")
        .map(|a| (a.op, a.memdesc.has_buffer_dim(), a.line));
    assert_eq!(acc, Some((AllocOp::TmemAlloc, false, 8)));
    Ok(())
}

#[test]
fn bad_types_and_layouts_are_placed() {
    let (line, _, message) = err("module {\n  %a = ttg.local_alloc : () -> !ttg.memdesc<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>, #ttg.shared_memory, mutable>\n}\n");
    assert_eq!(line, 2);
    assert!(message.contains("register layout"), "{message}");
    // The layout's own error keeps its type across the crate border.
    match read_module("module {\n  %a = ttg.local_alloc : () -> !ttg.memdesc<4xf32, #ttg.blocked<{sizePerThread = [1], threadsPerWarp = [32], warpsPerCTA = [4], order = [0]}>, #ttg.shared_memory, mutable>\n}\n") {
        Err(AllocError::Located { error, .. }) => match *error {
            AllocError::InvalidLayout { alloc, source } => {
                assert_eq!(alloc, "a");
                assert!(matches!(*source, linear_layout::LayoutError::InvalidParameter { param: "encoding", .. }), "{source}");
            }
            other => panic!("{other:?}"),
        },
        other => panic!("{other:?}"),
    }
    let (_, _, message) = err("module {\n  %a = ttg.local_alloc : () -> !ttg.memdesc<4xq7, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n}\n");
    assert!(message.contains("unknown dtype 'q7'"), "{message}");
    let (line, column, message) = err(
        "module {\n  %a = ttg.local_alloc : () -> !ttg.memdesc<4xf32, #x, #ttg.shared_memory\n",
    );
    assert_eq!((line, column), (2, 44));
    assert!(message.contains("not closed"), "{message}");
    let (_, _, message) = err("#a 5\n");
    assert!(
        message.contains("expected '=' after an alias name"),
        "{message}"
    );
}

#[test]
fn names_repeat_across_regions() -> Result<(), AllocError> {
    let line = "%b = ttg.local_alloc : () -> !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>";
    let m = read_module(&format!(
        "module {{\n  {line}\n  tt.func @k() {{\n    {line}\n    tt.return\n  }}\n}}\n"
    ))?;
    let names: Vec<&str> = m
        .program
        .allocations()
        .map(|(_, a)| a.name.as_str())
        .collect();
    assert_eq!(names, vec!["b", "b@4"]);
    // In one region a name is defined once.
    let (line, _, message) = err(&format!("module {{\n  {line}\n  {line}\n}}\n"));
    assert_eq!((line, message.as_str()), (3, "%b is defined twice"));
    Ok(())
}

#[test]
fn spec_sizes_and_bad_spec_attributes() -> Result<(), AllocError> {
    let m = read_module("module {\n  %s = tlx.storage_alias_spec storage = smem, size = 16384 : !tlx.storage_alias_spec<smem, 16384>\n}\n")?;
    let sizes: Vec<Option<u64>> = m.program.specs().map(|(_, s)| s.size).collect();
    assert_eq!(sizes, vec![Some(16384)]);
    let (_, _, message) =
        err("module {\n  %s = tlx.storage_alias_spec storage = smem, colour = 3 : !x\n}\n");
    assert!(message.contains("unknown attribute 'colour'"), "{message}");
    let (_, _, message) = err("module {\n  tlx.storage_alias_spec storage = smem : !x\n}\n");
    assert!(message.contains("needs a result"), "{message}");
    Ok(())
}
