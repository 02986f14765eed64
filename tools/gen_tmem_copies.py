#!/usr/bin/env python3
"""Golden-data generator: the tcgen05.cp copies Triton 3.9 emits for a scales tmem_copy.

For each case (a shared scales buffer of some shape and layout, a TMEM scales tensor [M, K]),
a Gluon kernel allocates both, `tcgen05_copy`s, commits and waits; Triton 3.9 compiles it for
sm_100 (no GPU needed), and the script reads every `tcgen05.cp` call of the LLVM IR:
its opcode, the TMEM address's constant column offset (`add i32 %base, C`), and its shared
descriptor (the `<2 x i32>` pair: the low word's constant start offset, in 16-byte units, over
the first copy's; the high word: stride byte offset and fixed bits). The shared layout's linear
bases come from Gluon's `to_linear_layout`, so the Rust side rebuilds the same map.

How to run::

    /root/tritonvenv/bin/python tools/gen_tmem_copies.py [--out codegen/tests/data/tmem_copies.json]

Output: ``{"generator", "triton_version", "cases": [{"id", "smem_shape", "tmem_shape",
"peer": "triton" | "fbtriton", "smem_layout": {"kind", ...}, "expect": {"ok": {"smem_bases":
[[...]], "copies": [{"opcode", "column", "start", "high"}]}} | {"error": LINE}}]}`` (`start`:
the copy's first byte from the shared buffer's start; `high`: the descriptor's bits 32-63).

Two peers: Triton 3.9 (`--python`) copies a shared tensor of the TMEM tensor's shape (its
general `tmem_copy` lowering); the TLX fork, fbtriton 3.7.4 (`--fb-python`, default
`/root/fbvenv/bin/python`), also takes the blocked 4-D/5-D scale buffers TMA loads (its
`copyScales`).
"""

import argparse
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

TRITON_VERSION = "3.9.0"
FBTRITON_VERSION = "3.7.4"
GENERATOR = "tools/gen_tmem_copies.py"

if "--worker" in sys.argv:
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language.nvidia.blackwell import (TensorMemoryScalesLayout,
                                                                       allocate_tensor_memory, tcgen05_copy,
                                                                       tcgen05_commit, mbarrier)

    @gluon.jit
    def copy(SMEM_SHAPE: ttgl.constexpr, TMEM_SHAPE: ttgl.constexpr, layout: ttgl.constexpr):
        smem = ttgl.allocate_shared_memory(ttgl.int8, SMEM_SHAPE, layout=layout)
        tmem = allocate_tensor_memory(ttgl.int8, TMEM_SHAPE, layout=TensorMemoryScalesLayout())
        bar = ttgl.allocate_shared_memory(ttgl.int64, [1], ttgl.constexpr(mbarrier.MBarrierLayout()))
        mbarrier.init(bar, count=1)
        tcgen05_copy(smem, tmem)
        tcgen05_commit(bar)
        mbarrier.wait(bar, phase=0)


CP = re.compile(r'"@\$2 (tcgen05\.cp\.[\w:.]+) \[ \$0 \+ 0 \], \$1;", "r,l,b"\(i32 (%\d+), i64 (%\d+), i1')


def _layout(spec):
    if spec["kind"] == "nvmma":
        return ttgl.NVMMASharedLayout(swizzle_byte_width=0, element_bitwidth=8, rank=spec["rank"])
    if spec["kind"] == "linear":
        return ttgl.SharedLinearLayout(offset_bases=spec["offset_bases"])
    raise ValueError(spec["kind"])


def _defs(llir):
    return {m.group(1): m.group(2) for m in re.finditer(r"^\s*(%\d+) = (.*?)(?:, !dbg.*)?$", llir, re.M)}


def _start(defs, name):
    """The byte offset from the shared base that a descriptor's start field holds."""
    d = defs.get(name, "")
    m = re.match(r"add (?:nuw )?(?:nsw )?i(?:32|64) (%\d+), (-?\d+)$", d)
    if m:
        return _start(defs, m.group(1)) + 16 * int(m.group(2))
    m = re.match(r"and i(?:32|64) (%\d+), \d+$", d)
    if m:
        return _start(defs, m.group(1))
    m = re.match(r"lshr (?:exact )?i(?:32|64) ptrtoint \(ptr addrspace\(3\) getelementptr \(i8, ptr addrspace\(3\) "
                 r"@global_smem, i32 (\d+)\) to i(?:32|64)\), 4$", d)
    if m:
        return int(m.group(1))
    if re.match(r"lshr (?:exact )?i(?:32|64) ptrtoint \(ptr addrspace\(3\) @global_smem to i(?:32|64)\), 4$", d):
        return 0
    raise ValueError("unrecognised start address %s = %s" % (name, d))


def _descriptor(defs, name):
    """(start byte offset, high word) of a descriptor value, in either Triton's or TLX's form."""
    d = defs.get(name, "")
    m = re.match(r"or disjoint i64 (%\d+), (\d+)$", d)
    if m:
        return _start(defs, m.group(1)), int(m.group(2)) >> 32
    m = re.match(r"bitcast <2 x i32> (%\d+) to i64$", d)
    ins = re.match(r"insertelement <2 x i32> <i32 poison, i32 (-?\d+)>, i32 (%\d+), i64 0$",
                   defs.get(m.group(1), "") if m else "")
    if ins:
        return _start(defs, ins.group(2)), int(ins.group(1)) & 0xFFFFFFFF
    raise ValueError("unrecognised descriptor %s = %s" % (name, d))


def _column(defs, name):
    m = re.match(r"add i32 %\d+, (\d+)$", defs.get(name, ""))
    return int(m.group(1)) if m else 0


def parse(llir):
    defs = _defs(llir)
    copies = []
    for m in CP.finditer(llir):
        opcode, taddr, desc = m.groups()
        start, high = _descriptor(defs, desc)
        copies.append({"opcode": opcode, "column": _column(defs, taddr), "start": start, "high": high})
    return copies


def run_case(op, a):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton._C.libtriton import ir, gluon_ir
    ctx = ir.context()
    ir.load_dialects(ctx)
    try:
        b = gluon_ir.GluonOpBuilder(ctx, "cuda:100")
    except TypeError:  # fbtriton 3.7.4's builder takes no target
        b = gluon_ir.GluonOpBuilder(ctx)
    layout = _layout(a["smem_layout"])
    ll = b.to_linear_layout(layout._to_ir(b), a["smem_shape"])
    from triton.experimental.gluon._runtime import GluonASTSource
    src = GluonASTSource(copy, signature={"SMEM_SHAPE": "constexpr", "TMEM_SHAPE": "constexpr",
                                                "layout": "constexpr"},
                               constexprs={(0,): ttgl.constexpr(a["smem_shape"]),
                                           (1,): ttgl.constexpr(a["tmem_shape"]), (2,): layout})
    k = triton.compile(src, target=GPUTarget("cuda", 100, 32), options={"num_warps": 4})
    return {"smem_bases": [list(v) for v in ll.offset_bases], "copies": parse(k.asm["llir"])}


def _row_major(shape):
    return [[1 << b if i == d else 0 for i in range(len(shape))]
            for d in reversed(range(len(shape))) for b in range(shape[d].bit_length() - 1)]


def _tmem_order(m, k, blocks_m_first=True, split=5):
    """Offset bases of an [m, k] scales buffer whose 16-byte rows hold what TMEM wants: scale
    (128i + 32c + r, 4j + kk) at row r, byte 4c + kk of block (i, j); the blocks sit between
    row bit `split` - 1 and row bit `split` (5: after all 32 rows; 3: after each 8-row core
    matrix, so 8-row groups are 128 · blocks bytes apart; 2: rows 4-7 of a core matrix away
    from rows 0-3, which no descriptor can read)."""
    bits = lambda n: n.bit_length() - 1  # noqa: E731
    inner = [[0, 1], [0, 2]][:bits(min(k, 4))] + [[32, 0], [64, 0]][:max(0, bits(min(m, 128)) - 5)]
    rows = [[1 << b, 0] for b in range(5)]
    mblocks = [[128 << b, 0] for b in range(max(0, bits(m) - 7))]
    kblocks = [[0, 4 << b] for b in range(max(0, bits(k) - 2))]
    blocks = mblocks + kblocks if blocks_m_first else kblocks + mblocks
    return inner + rows[:split] + blocks + rows[split:]


def cases():
    out = []
    # Triton 3.9: same shape. test_tmem_copy_2d's 64 x 16 buffer, then buffers in TMEM's order.
    out.append({"peer": "triton", "smem_shape": [64, 16], "tmem_shape": [64, 16],
                "smem_layout": {"kind": "linear", "offset_bases": [[0, 1], [0, 2], [32, 0], [0, 4], [1, 0], [2, 0],
                                                                 [4, 0], [8, 0], [16, 0], [0, 8]]}})
    for (m, k) in [(128, 4), (128, 16), (256, 8), (256, 32), (512, 4)]:
        for mfirst in (True, False):
            out.append({"peer": "triton", "smem_shape": [m, k], "tmem_shape": [m, k],
                        "smem_layout": {"kind": "linear", "offset_bases": _tmem_order(m, k, mfirst)}})
    for (m, k, split) in [(128, 8, 3), (256, 16, 3), (128, 8, 2)]:
        out.append({"peer": "triton", "smem_shape": [m, k], "tmem_shape": [m, k],
                    "smem_layout": {"kind": "linear", "offset_bases": _tmem_order(m, k, True, split)}})
    # Plain row-major buffers: scale (32, 0) is not where a copy reads it.
    for shape in ([128, 16], [256, 8]):
        out.append({"peer": "triton", "smem_shape": shape, "tmem_shape": shape,
                    "smem_layout": {"kind": "linear", "offset_bases": _row_major(shape)}})
    # TLX: TMA's 5-D blocked buffers (1, M/128, K/4, 2, 256), NVMMA without swizzle (its lit
    # tests), 4-D (M/128, K/4, 32, 16) and cp.async's 5-D (M/128, K/4, 32, 4, 4), row-major.
    for (rm, rk) in [(1, 8), (2, 1), (1, 1), (2, 4), (4, 2)]:
        out.append({"peer": "fbtriton", "smem_shape": [1, rm, rk, 2, 256], "tmem_shape": [128 * rm, 4 * rk],
                    "smem_layout": {"kind": "nvmma", "rank": 5}})
    for (rm, rk) in [(1, 2), (2, 2), (2, 4)]:
        for shape in ([rm, rk, 32, 16], [rm, rk, 32, 4, 4]):
            out.append({"peer": "fbtriton", "smem_shape": shape, "tmem_shape": [128 * rm, 4 * rk],
                        "smem_layout": {"kind": "linear", "offset_bases": _row_major(shape)}})
    out.append({"peer": "fbtriton", "smem_shape": [64, 16], "tmem_shape": [64, 16],
                "smem_layout": {"kind": "linear", "offset_bases": [[0, 1], [0, 2], [32, 0], [0, 4], [1, 0], [2, 0],
                                                                 [4, 0], [8, 0], [16, 0], [0, 8]]}})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="codegen/tests/data/tmem_copies.json")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--fb-python", default="/root/fbvenv/bin/python")
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return
    workers = {"triton": Worker(args.python, __file__), "fbtriton": Worker(args.fb_python, __file__)}
    out = []
    for i, c in enumerate(cases()):
        out.append(dict(c, id="tmem_copies/%02d" % i, expect=workers[c["peer"]].run("copies", c)))
    for w in workers.values():
        w.close()
    with open(args.out, "w") as f:
        json.dump({"generator": GENERATOR, "triton_version": TRITON_VERSION,
                   "fbtriton_version": FBTRITON_VERSION, "cases": out}, f, indent=0)
        f.write("\n")
    print("%d cases, %d errors -> %s" % (len(out), sum("error" in c["expect"] for c in out), args.out),
          file=sys.stderr)


if __name__ == "__main__":
    main()
