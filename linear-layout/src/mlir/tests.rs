//! Unit tests of the module model, compiled only under `#[cfg(test)]` (`mod.rs`): reading,
//! printing, editing and refusing, on a small module that holds every construct of a real dump.

use super::*;

const KERNEL: &str = r#"#loc = loc("k.py":1:1)
#shared = #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {
  tt.func public @k(%n: i32 loc("n"(#loc)), %x: f32 loc(unknown)) attributes {noinline = false} {
    %c0_i32 = arith.constant 0 : i32 loc(#loc)
    %bars = ttg.local_alloc : () -> !ttg.memdesc<2xi64, #shared, #smem, mutable> loc(#loc)
    // a comment
    %r:2 = scf.for %i = %c0_i32 to %n step %c0_i32 iter_args(%a = %c0_i32, %b = %x) -> (i32, f32)  : i32 {
      %bar = ttg.memdesc_index %bars[%a] : !ttg.memdesc<2xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable> loc(#loc)
      ttng.wait_barrier %bar, %a : !ttg.memdesc<1xi64, #shared, #smem, mutable> loc(#loc)
      %s = "tt.reduce"(%b) <{axis = 0 : i32}> ({
      ^bb0(%p: f32 loc(unknown), %q: f32 loc(unknown)):
        %t = arith.addf %p, %q : f32 loc(#loc)
        tt.reduce.return %t : f32 loc(#loc)
      }) : (f32) -> f32 loc(#loc)
      scf.yield %a, %s : i32, f32 loc(#loc)
    } loc(#loc)
    ttg.warp_specialize(%bars, %r#1) attributes {requestedRegisters = array<i32: 24>}
    default {
      ttg.warp_yield loc(#loc)
    }
    partition0(%arg0: !ttg.memdesc<2xi64, #shared, #smem, mutable> loc(unknown), %arg1: f32 loc(unknown)) num_warps(1) {
      %c1_i32 = arith.constant 1 : i32 loc(#loc)
      %0 = ttg.memdesc_index %arg0[%c1_i32] : !ttg.memdesc<2xi64, #shared, #smem, mutable> -> !ttg.memdesc<1xi64, #shared, #smem, mutable> loc(#loc)
      ttg.warp_return loc(#loc)
    } : (!ttg.memdesc<2xi64, #shared, #smem, mutable>, f32) -> () loc(#loc)
    tt.return loc(#loc)
  } loc(#loc)
} loc(#loc)
"#;

fn find(m: &Module, kind: OpKind) -> Vec<OpId> {
    m.walk()
        .into_iter()
        .filter(|&o| m.op(o).and_then(|o| o.kind()) == Some(kind))
        .collect()
}

#[test]
fn read_print_is_the_identity() {
    let m = Module::parse(KERNEL).unwrap();
    assert_eq!(m.to_string(), KERNEL);
}

#[test]
fn ops_values_regions_and_blocks() {
    let m = Module::parse(KERNEL).unwrap();
    let for_op = m.op(find(&m, OpKind::For)[0]).unwrap();
    assert_eq!(for_op.results().len(), 2);
    assert_eq!(m.value(for_op.results()[1]).unwrap().use_name(), "%r#1");
    // %c0_i32, %n, %c0_i32 (bounds and step), %c0_i32 and %x (inits).
    assert_eq!(for_op.operands().len(), 5);
    let body = m.region(for_op.regions()[0]).unwrap();
    let entry = m.block(body.blocks()[0]).unwrap();
    let args: Vec<&str> = entry
        .arguments()
        .iter()
        .map(|&v| m.value(v).unwrap().name())
        .collect();
    assert_eq!(args, ["i", "a", "b"]);
    let ws = m.op(find(&m, OpKind::WarpSpecialize)[0]).unwrap();
    assert_eq!(ws.regions().len(), 2);
    assert_eq!(ws.attribute("requestedRegisters"), Some("array<i32: 24>"));
    let part = m
        .block(m.region(ws.regions()[1]).unwrap().blocks()[0])
        .unwrap();
    let arg0 = m.value(part.arguments()[0]).unwrap();
    assert_eq!(
        arg0.ty(),
        Some("!ttg.memdesc<2xi64, #shared, #smem, mutable>")
    );
    // The generic op: its region's block is labelled, with two arguments.
    let reduce = m
        .walk()
        .into_iter()
        .find(|&o| m.op(o).unwrap().name() == "tt.reduce")
        .unwrap();
    let reduce = m.op(reduce).unwrap();
    assert!(reduce.is_generic() && reduce.attribute("axis") == Some("0 : i32"));
    let combine = m
        .block(m.region(reduce.regions()[0]).unwrap().blocks()[0])
        .unwrap();
    assert_eq!(combine.arguments().len(), 2);
    let c1 = m
        .walk()
        .into_iter()
        .filter(|&o| m.op(o).unwrap().kind() == Some(OpKind::Constant))
        .map(|o| m.op(o).unwrap().attribute("value").unwrap().to_string())
        .collect::<Vec<_>>();
    assert_eq!(c1, ["0", "1"]);
    let module = m.op(m.top_ops()[0]).unwrap();
    assert_eq!(module.attribute("ttg.num-warps"), Some("4 : i32"));
    assert_eq!(module.location(), Some("loc(#loc)"));
}

#[test]
fn a_new_type_reaches_every_printed_use() {
    let mut m = Module::parse(KERNEL).unwrap();
    let alloc = m.op(find(&m, OpKind::LocalAlloc)[0]).unwrap().results()[0];
    // The barrier array is used by a memdesc_index (linked) and captured by warp_specialize,
    // whose partition argument holds it: its type is that argument's, changed separately.
    let new = "!ttg.memdesc<4xi64, #shared, #smem, mutable>";
    m.set_type(alloc, new).unwrap();
    let ws = m.op(find(&m, OpKind::WarpSpecialize)[0]).unwrap();
    let part = m
        .block(m.region(ws.regions()[1]).unwrap().blocks()[0])
        .unwrap();
    let arg = part.arguments()[0];
    m.set_type(arg, new).unwrap();
    let text = m.to_string();
    assert_eq!(text.matches("4xi64").count(), 5, "{text}");
    assert!(Module::parse(&text).is_ok());
    // An op whose types the model cannot place refuses a new type of its operand.
    let bar = m.op(find(&m, OpKind::MemdescIndex)[0]).unwrap().results()[0];
    let e = m
        .set_type(bar, "!ttg.memdesc<2xi64, #shared, #smem, mutable>")
        .unwrap_err();
    assert!(
        matches!(e.kind, MlirErrorKind::StaleType { ref op, .. } if op == "ttng.wait_barrier"),
        "{e}"
    );
}

#[test]
fn ops_are_inserted_rewritten_and_erased() {
    let mut m = Module::parse(KERNEL).unwrap();
    let index = find(&m, OpKind::MemdescIndex)[0];
    let a = m.op(index).unwrap().operands()[1];
    let c = m
        .insert_before(
            index,
            NewOp {
                name: "arith.constant".into(),
                template: "$r0 = arith.constant 2 : i32$loc".into(),
                operands: vec![],
                results: vec![("tlx_idx".into(), "i32".into())],
                attributes: vec![("value".into(), "2 : i32".into())],
            },
        )
        .unwrap();
    let c = m.op(c).unwrap().results()[0];
    let mul = m
        .insert_before(
            index,
            NewOp {
                name: "arith.muli".into(),
                template: "$r0 = arith.muli $o0, $o1 : i32$loc".into(),
                operands: vec![a, c],
                results: vec![("tlx_idx".into(), "i32".into())],
                attributes: vec![],
            },
        )
        .unwrap();
    let mul = m.op(mul).unwrap().results()[0];
    m.set_operand(index, 1, mul).unwrap();
    let text = m.to_string();
    assert!(text.contains(
        "      %tlx_idx = arith.constant 2 : i32 loc(#loc)\n      %tlx_idx_1 = arith.muli %a, %tlx_idx : i32 loc(#loc)\n      %bar = ttg.memdesc_index %bars[%tlx_idx_1]"
    ), "{text}");
    assert!(Module::parse(&text).is_ok());
    // An op still used cannot go.
    let alloc = find(&m, OpKind::LocalAlloc)[0];
    assert!(matches!(
        m.erase(alloc).unwrap_err().kind,
        MlirErrorKind::UndefinedValue(_)
    ));
}

#[test]
fn structure_ignores_names_aliases_and_locations() {
    let a = Module::parse(KERNEL).unwrap();
    let renamed = KERNEL
        .replace("%bars", "%barriers")
        .replace("#shared, #smem", "#ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory")
        .replace("loc(#loc)", "loc(unknown)");
    let b = Module::parse(&renamed).unwrap();
    assert_eq!(a.structure(), b.structure());
    let changed =
        Module::parse(&KERNEL.replace("arith.constant 1 :", "arith.constant 2 :")).unwrap();
    assert_ne!(a.structure(), changed.structure());
}

#[test]
fn bad_text_is_refused_at_its_place() {
    let cut = &KERNEL[..KERNEL.find("tt.return").unwrap()];
    let e = Module::parse(cut).unwrap_err();
    assert!(
        matches!(e.kind, MlirErrorKind::Unclosed { open: '{', .. }),
        "{e}"
    );
    let e = Module::parse("module {\n  %a = arith.addi %b, %b : i32\n}\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 19));
    assert_eq!(e.kind, MlirErrorKind::UndefinedValue("b".into()));
    let e = Module::parse("module {\n  %a = x.y : (i32]\n}\n").unwrap_err();
    assert!(
        matches!(e.kind, MlirErrorKind::Unclosed { open: '(', .. }),
        "{e}"
    );
    let e = Module::parse("module {\n  %a = x.y\n  %a = x.y\n}\n").unwrap_err();
    assert_eq!((e.line, e.kind), (3, MlirErrorKind::Redefined("a".into())));
}

#[test]
fn words_are_the_literals_between_name_and_signature() {
    let text = "module {\n  tt.func @k(%a: i32, %b: !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>) {\n    %c = arith.constant 128 : i32\n    %t = arith.constant true\n    %x = arith.cmpi slt, %a, %c : i32\n    ttng.init_barrier %b, 1 : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n    ttng.barrier_expect %b, 32768, %t : !ttg.memdesc<1xi64, #ttg.swizzled_shared<{vec = 1, perPhase = 1, maxPhase = 1, order = [0]}>, #ttg.shared_memory, mutable>\n    tt.return\n  }\n}\n";
    let m = Module::parse(text).unwrap();
    let words: Vec<Vec<String>> = m
        .walk()
        .into_iter()
        .map(|o| m.op(o).unwrap().words())
        .collect();
    let w = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(words.contains(&w(&["128"])));
    assert!(words.contains(&w(&["true"])));
    assert!(words.contains(&w(&["slt"])));
    assert!(words.contains(&w(&["1"])));
    assert!(words.contains(&w(&["32768"])));
}
