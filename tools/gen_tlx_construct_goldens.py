#!/usr/bin/env python3
"""Golden-data generator: constructs the fork's lit tests do not cover, through the REAL pass.

**Sub-byte element types** (i4, f4E2M1FN) in storage-alias specs.

TLX's ``local_alloc`` of a sub-byte type in shared memory takes the default NVMMA
layout that Triton's ``NVMMASharedEncodingAttr`` builder gives it — ``elementBitWidth
= 4``, the widest swizzle (128, 64, 32 B) that divides the contiguous row, none below 8
rows (``include/triton/Dialect/TritonGPU/IR/TritonGPUAttrDefs.td`` of the fork,
transcribed in ``nvmma_default`` below). Triton 3.9's Gluon has no such layout
(``NVMMASharedLayout(element_bitwidth=4)`` fails its assertion), but fbtriton 3.7.4
verifies and plans it. Each case here is a TTGIR module with such allocations in a
``tlx.storage_alias_spec``, run through the REAL ``tlx-storage-alias-lowering`` of the
``fbtriton`` 3.7.4 wheel (the worker of ``gen_tlx_alias_goldens.py``); what the pass
did goes to ``alias-alloc/tests/data/tlx_constructs/cases.json`` in the schema of the lit
goldens (``gen_tlx_lit_goldens.py``).

**An alias carried by an ``scf.for``** (``iter_args``): the pass re-types the alias but not
the loop's arguments, and the fork's verifier refuses what it leaves; **a view of a whole
alias** (``ttg.memdesc_subslice``): the pass re-types the view's operand and keeps its result
(``LOOP_CASES``).

How to run::

    /root/fbvenv/bin/python tools/gen_tlx_construct_goldens.py
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen_tlx_alias_goldens import Worker, pass_result, write_goldens  # noqa: E402

DEFAULT_OUT = os.path.join(HERE, "..", "alias-alloc", "tests", "data", "tlx_constructs", "cases.json")
BITS = {"i4": 4, "f4E2M1FN": 4, "i8": 8, "bf16": 16, "f16": 16, "f32": 32}


def nvmma_default(shape, elem):
    """The attribute Triton's NVMMASharedEncodingAttr builder makes for a row-major tile."""
    bits = BITS[elem]
    contig = shape[-1] * bits // 8
    swizzle = 0
    for w in (128, 64, 32):
        if contig >= w and contig % w == 0:
            swizzle = w
            break
    outer = 1
    for d in shape[:-1]:
        outer *= d
    if len(shape) < 2 or outer < 8:
        swizzle = 0
    return f"#ttg.nvmma_shared<{{swizzlingByteWidth = {swizzle}, transposed = false, elementBitWidth = {bits}}}>"


def memdesc(num, shape, elem):
    dims = "x".join(str(d) for d in [num] + shape)
    return f"!ttg.memdesc<{dims}x{elem}, {nvmma_default(shape, elem)}, #smem, mutable>"


def one(shape, elem):
    dims = "x".join(str(d) for d in shape)
    return f"!ttg.memdesc<{dims}x{elem}, {nvmma_default(shape, elem)}, #smem, mutable>"


# (name, [(alloc, num, shape, elem)], tree) where tree names allocations and nests
# ("shared"|"distinct", [members], group_size).
CASES = [
    ("i4_shared_with_bf16", [("a", 2, [64, 64], "i4"), ("b", 2, [64, 64], "bf16")],
     ("shared", ["a", "b"], 1)),
    ("f4_distinct_with_i4", [("a", 2, [128, 128], "f4E2M1FN"), ("b", 2, [128, 256], "i4")],
     ("distinct", ["a", "b"], 1)),
    ("i4_narrow_rows_unswizzled", [("a", 4, [8, 16], "i4"), ("b", 4, [8, 16], "f16")],
     ("distinct", ["a", "b"], 1)),
    ("f4_subtiles_in_a_shared_group",
     [("a", 2, [128, 64], "bf16"), ("b", 4, [128, 64], "f4E2M1FN"), ("c", 2, [128, 1], "f32")],
     ("shared", ["a", ("distinct", [("shared", ["b"], 2), "c"], 1)], 1)),
]


def module(name, allocs, tree):
    lines = ["#smem = #ttg.shared_memory",
             'module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {',
             f"  tt.func @{name}(%i: i32) {{",
             "    %spec = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>"]
    types = {}
    for (a, num, shape, elem) in allocs:
        types[a] = memdesc(num, shape, elem)
        lines.append(f"    %{a} = tlx.storage_alias_local_alloc %spec : !tlx.storage_alias_spec<smem> -> {types[a]}")
    counter = [0]

    def group(t):
        kind, members, size = t
        names, tys = [], []
        for m in members:
            if isinstance(m, tuple):
                g, gt = group(m)
                names.append(g)
                tys.append(gt)
            else:
                names.append(f"%{m}")
                tys.append(types[m])
        g = f"%g{counter[0]}"
        counter[0] += 1
        attrs = f"group_kind = {kind}" + (f", group_size = {size}" if size > 1 else "")
        gt = f"!tlx.reuse_group<{kind}>"
        lines.append(f"    {g} = tlx.reuse_group({', '.join(names)}) {attrs} : ({', '.join(tys)}) -> {gt}")
        return g, gt

    g, gt = group(tree)
    lines.append(f"    tlx.set_buffer_overlap(%spec, {g}) : (!tlx.storage_alias_spec<smem>, {gt}) -> ()")
    for (a, num, shape, elem) in allocs:
        lines.append(f"    %{a}_i = ttg.memdesc_index %{a}[%i] : {types[a]} -> {one(shape, elem)}")
    lines += ["    tt.return", "  }", "}", ""]
    return "\n".join(lines)


TMEM1 = "!ttg.memdesc<2x128x1xf32, #tmem, #ttng.tensor_memory, mutable>"
LOOP_CASES = [("loop_carried_alias", """#tmem = #ttng.tensor_memory_encoding<blockM = 128, blockN = 1, colStride = 1>
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {
  tt.func @loop_carried_alias(%n: i32) {
    %c0 = arith.constant 0 : i32
    %c1 = arith.constant 1 : i32
    %s = tlx.storage_alias_spec storage = tmem : !tlx.storage_alias_spec<tmem>
    %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> T1
    %b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<tmem> -> T1
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (T1, T1) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s, %g) : (!tlx.storage_alias_spec<tmem>, !tlx.reuse_group<distinct>) -> ()
    %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%buf = %b, %k = %c0) -> (T1, i32)  : i32 {
      %x = ttg.memdesc_index %buf[%k] : T1 -> !ttg.memdesc<128x1xf32, #tmem, #ttng.tensor_memory, mutable>
      %k1 = arith.addi %k, %c1 : i32
      scf.yield %buf, %k1 : T1, i32
    }
    %y = ttg.memdesc_index %r#0[%c1] : T1 -> !ttg.memdesc<128x1xf32, #tmem, #ttng.tensor_memory, mutable>
    tt.return
  }
}
""".replace("T1", TMEM1)), ("view_of_alias", """#shared = #ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>
#smem = #ttg.shared_memory
module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {
  tt.func @view_of_alias(%n: i32) {
    %s = tlx.storage_alias_spec storage = smem : !tlx.storage_alias_spec<smem>
    %a = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<smem> -> S2
    %b = tlx.storage_alias_local_alloc %s : !tlx.storage_alias_spec<smem> -> S2
    %g = tlx.reuse_group(%a, %b) group_kind = distinct : (S2, S2) -> !tlx.reuse_group<distinct>
    tlx.set_buffer_overlap(%s, %g) : (!tlx.storage_alias_spec<smem>, !tlx.reuse_group<distinct>) -> ()
    %v = ttg.memdesc_subslice %b[0, 0, 32] : S2 -> !ttg.memdesc<2x64x32xbf16, #shared, #smem, mutable, 2x64x64>
    tt.return
  }
}
""".replace("S2", "!ttg.memdesc<2x64x64xbf16, #shared, #smem, mutable>"))]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    worker = Worker(sys.executable)
    out = []
    try:
        modules = [(name, module(name, allocs, tree)) for (name, allocs, tree) in CASES] + LOOP_CASES
        for i, (name, mlir) in enumerate(modules):
            exp = pass_result(worker, mlir)
            errors = exp["errors"]
            out.append({"file": name, "index": i, "mlir": mlir, "expected": exp})
            print(f"{name}: parsed={exp['parsed']} ok={exp['ok']} errors={errors}")
    finally:
        worker.close()
    write_goldens(args.out, "tools/gen_tlx_construct_goldens.py", out)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        from gen_tlx_alias_goldens import worker_main
        worker_main(sys.argv[2])
    else:
        main()
