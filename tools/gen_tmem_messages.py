#!/usr/bin/env python3
"""Golden-data generator: the tcgen05.ld/st messages Triton 3.9 emits for a TMEM round trip.

For each case (tile M × N, TMEM layout blockM × N with colStride, element type, 4 warps, tcgen05
atom), Gluon's `compute_tmem_reg_layout` gives the register layout, a Gluon kernel stores a
tensor of that layout to tensor memory and loads it back, Triton 3.9 compiles it for sm_100
(no GPU needed), and the script keeps every `tcgen05.st` / `tcgen05.ld` line of the PTX: shape,
`.xN`, `.pack::16b` / `.unpack::16b`, the address immediate and the `.16x32bx2` split offset.

How to run::

    /root/tritonvenv/bin/python tools/gen_tmem_messages.py [--out codegen/tests/data/tmem_messages.json]

Output: ``{"generator", "triton_version", "cases": [{"id", "shape", "block_m", "col_stride",
"dtype", "atom", "expect": {"ok": {"st": [MSG], "ld": [MSG]}} | {"error": LINE}}]}`` with MSG
``{"shape", "num", "halves", "offset", "split"}`` (`offset`: the `[taddr + imm]` immediate,
`split`: the 16x32bx2 operand or null).
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

TRITON_VERSION = "3.9.0"
GENERATOR = "tools/gen_tmem_messages.py"
MSG = re.compile(r"tcgen05\.(ld|st)\.sync\.aligned\.(\w+)\.x(\d+)(\.pack::16b|\.unpack::16b)?\.b32 (.*)$")

if "--worker" in sys.argv:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon.language.nvidia.blackwell import TensorMemoryLayout, allocate_tensor_memory

    @gluon.jit
    def roundtrip(out_ptr, M: gl.constexpr, N: gl.constexpr, BM: gl.constexpr, CS: gl.constexpr,
                  reg: gl.constexpr):
        tl: gl.constexpr = TensorMemoryLayout((BM, N), col_stride=CS)
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, reg))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, reg))
        x = (rows[:, None] * N + cols[None, :]).to(out_ptr.dtype.element_ty)
        t = allocate_tensor_memory(out_ptr.dtype.element_ty, [M, N], tl)
        t.store(x)
        y = t.load(reg)
        gl.store(out_ptr + rows[:, None] * N + cols[None, :], y)


def parse(ptx):
    out = {"st": [], "ld": []}
    for line in ptx.splitlines():
        m = MSG.search(line)
        if not m:
            continue
        op, shape, num, halves, operands = m.groups()
        imm = re.search(r"\[%r\d+ \+ (\d+)\]", operands)
        split = None
        if shape == "16x32bx2":
            # ld: `{…}, [taddr], SPLIT;`  st: `[taddr], SPLIT, {…};`
            nums = re.findall(r"(?:\], |, )(\d+)[;,]", operands)
            split = int(nums[0]) if nums else None
        out[op].append({"shape": shape, "num": int(num), "halves": bool(halves),
                        "offset": int(imm.group(1)) if imm else 0, "split": split})
    return out


def run_case(op, a):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton._C.libtriton import gluon_ir
    dty = {"f32": gl.float32, "bf16": gl.bfloat16, "f16": gl.float16}[a["dtype"]]
    M, N = a["shape"]
    tl = TensorMemoryLayout((a["block_m"], N), col_stride=a["col_stride"])
    reg = gluon_ir.compute_tmem_reg_layout(dty, [M, N], [M, N], tl, 4, a["atom"])
    if reg is None:
        raise ValueError("no register layout for this atom")
    tname = {"f32": "fp32", "bf16": "bf16", "f16": "fp16"}[a["dtype"]]
    src = gluon.GluonASTSource(roundtrip, signature={"out_ptr": "*" + tname, "M": "constexpr", "N": "constexpr",
                                                     "BM": "constexpr", "CS": "constexpr", "reg": "constexpr"},
                               constexprs={(1,): M, (2,): N, (3,): a["block_m"], (4,): a["col_stride"], (5,): reg})
    k = triton.compile(src, target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
    return parse(k.asm["ptx"])


def cases():
    out = []
    for atom in ["32x32b", "16x64b", "16x128b", "16x256b"]:
        for (m, n, bm) in [(128, 64, 128), (128, 128, 128), (64, 32, 64), (64, 64, 64), (128, 32, 64)]:
            out.append({"shape": [m, n], "block_m": bm, "col_stride": 1, "dtype": "f32", "atom": atom})
            out.append({"shape": [m, n], "block_m": bm, "col_stride": 2, "dtype": "bf16", "atom": atom})
            out.append({"shape": [m, n], "block_m": bm, "col_stride": 1, "dtype": "bf16", "atom": atom})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="codegen/tests/data/tmem_messages.json")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return
    w = Worker(args.python, __file__)
    out = []
    for i, c in enumerate(cases()):
        out.append(dict(c, id="tmem_messages/%03d" % i, expect=w.run("messages", c)))
    w.close()
    with open(args.out, "w") as f:
        json.dump({"generator": GENERATOR, "triton_version": TRITON_VERSION, "cases": out}, f, indent=0)
        f.write("\n")
    print("%d cases, %d errors -> %s" % (len(out), sum("error" in c["expect"] for c in out), args.out),
          file=sys.stderr)


if __name__ == "__main__":
    main()
