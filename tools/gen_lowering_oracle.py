#!/usr/bin/env python3
"""Golden-data generator: where Triton 3.9's own lowering puts each element of a shared layout.

For layouts Gluon cannot hand back (``#ttg.amd_rotating_shared`` has no Python view) and for
padding (``#ttg.padded_shared`` has no linear layout at all), the only Triton answer is its
compiler. This script writes a one-warp TTGIR kernel that ``ttg.local_alloc``s a tensor whose
element ``(r, c)`` holds the value ``r·C + c`` from a register layout where every thread holds
every element (lanes broadcast), has Triton 3.9 compile it for an AMD target (no GPU needed),
and reads the LLVM IR: the stores into shared memory are constants, ``store <n x i16> <values>,
@global_smem + byte offset``, so each element's slot is read off directly.

How to run::

    /root/tritonvenv/bin/python tools/gen_lowering_oracle.py [--out linear-layout/tests/data/families/lowering_oracle.json]

Output: ``{"generator", "triton_version", "cases": [{"id", "attr", "shape", "target",
"expect": {"ok": {"slots": [slot of element r·C + c, …]}} | {"error": LINE}}]}``; slots count
16-bit elements from the start of the allocation (padding included).
"""

import argparse
import json
import os
import random
import re
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

TRITON_VERSION = "3.9.0"
GENERATOR = "tools/gen_lowering_oracle.py"
SEED = 20261126

STORE = re.compile(r"store (<(\d+) x i16> (?:<[^>]*>|zeroinitializer|splat \(i16 -?\d+\))|i16 -?\d+), "
                   r"ptr addrspace\(3\) (?:@global_smem|getelementptr inbounds(?: nuw)? \(i8, ptr addrspace\(3\) "
                   r"@global_smem, i32 (\d+)\))")


def stored_values(text, lanes):
    """The i16 values of a store's operand: `<n x i16> <…>`, `zeroinitializer`, `splat (…)`."""
    if lanes is None:
        return [int(text.split()[1])]
    body = text.split("> ", 1)[1]
    if body == "zeroinitializer":
        return [0] * lanes
    if body.startswith("splat"):
        return [int(body.split()[-1].rstrip(")"))] * lanes
    return [int(x.split()[1]) for x in body.strip("<>").split(",")]


def kernel(attr, shape, target, lanes):
    rows, cols = shape
    reg = [[0, 1 << i] for i in range(cols.bit_length() - 1)] + [[1 << i, 0] for i in range(rows.bit_length() - 1)]
    lane = [[0, 0]] * (lanes.bit_length() - 1)
    lin = "#ttg.linear<{register = %s, lane = %s, warp = [], block = []}>" % (json.dumps(reg), json.dumps(lane))
    t = lambda s: "tensor<%s, #lin>" % s  # noqa: E731
    return f"""#lin = {lin}
#blk = #ttg.blocked<{{sizePerThread = [1, 1], threadsPerWarp = [1, {lanes}], warpsPerCTA = [1, 1], order = [1, 0]}}>
#sh = {attr}
#smem = #ttg.shared_memory
module attributes {{"ttg.num-ctas" = 1 : i32, "ttg.num-warps" = 1 : i32, ttg.target = "hip:{target}", "ttg.threads-per-warp" = {lanes} : i32}} {{
  tt.func public @k(%out: !tt.ptr<i16>) {{
    %r = tt.make_range {{end = {rows} : i32, start = 0 : i32}} : tensor<{rows}xi32, #ttg.slice<{{dim = 1, parent = #lin}}>>
    %c = tt.make_range {{end = {cols} : i32, start = 0 : i32}} : tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = #lin}}>>
    %r2 = tt.expand_dims %r {{axis = 1 : i32}} : tensor<{rows}xi32, #ttg.slice<{{dim = 1, parent = #lin}}>> -> {t(f"{rows}x1xi32")}
    %c2 = tt.expand_dims %c {{axis = 0 : i32}} : tensor<{cols}xi32, #ttg.slice<{{dim = 0, parent = #lin}}>> -> {t(f"1x{cols}xi32")}
    %k = arith.constant dense<{cols}> : {t(f"{rows}x1xi32")}
    %rk = arith.muli %r2, %k : {t(f"{rows}x1xi32")}
    %rb = tt.broadcast %rk : {t(f"{rows}x1xi32")} -> {t(f"{rows}x{cols}xi32")}
    %cb = tt.broadcast %c2 : {t(f"1x{cols}xi32")} -> {t(f"{rows}x{cols}xi32")}
    %v = arith.addi %rb, %cb : {t(f"{rows}x{cols}xi32")}
    %v16 = arith.trunci %v : {t(f"{rows}x{cols}xi32")} to {t(f"{rows}x{cols}xi16")}
    %m = ttg.local_alloc %v16 : ({t(f"{rows}x{cols}xi16")}) -> !ttg.memdesc<{rows}x{cols}xi16, #sh, #smem, mutable>
    %l = ttg.local_load %m : !ttg.memdesc<{rows}x{cols}xi16, #sh, #smem, mutable> -> tensor<{rows}x{cols}xi16, #blk>
    %p = tt.splat %out : !tt.ptr<i16> -> tensor<{rows}x{cols}x!tt.ptr<i16>, #blk>
    tt.store %p, %l : tensor<{rows}x{cols}x!tt.ptr<i16>, #blk>
    tt.return
  }}
}}
"""


def run_case(op, a):
    import triton
    from triton.backends.compiler import GPUTarget
    lanes = 64 if a["target"].startswith("gfx9") else 32
    with tempfile.NamedTemporaryFile("w", suffix=".ttgir", delete=False) as f:
        f.write(kernel(a["attr"], a["shape"], a["target"], lanes))
        path = f.name
    try:
        k = triton.compile(path, target=GPUTarget("hip", a["target"], lanes))
    finally:
        os.unlink(path)
    n = a["shape"][0] * a["shape"][1]
    slots = [None] * n
    for m in STORE.finditer(k.asm["llir"]):
        values = stored_values(m.group(1), int(m.group(2)) if m.group(2) else None)
        byte = int(m.group(3) or 0)
        for i, v in enumerate(values):
            v &= 0xFFFF
            if v < n:
                slots[v] = byte // 2 + i
    if any(s is None for s in slots):
        raise RuntimeError("not every element was stored with a constant address")
    return {"slots": slots}


def cases(rng):
    out = []
    shapes = [[16, 16], [32, 32], [64, 64], [16, 64], [64, 16], [128, 32], [8, 128]]
    for _ in range(60):
        vec, pp, mp = 1 << rng.randint(0, 3), 1 << rng.randint(0, 2), 1 << rng.randint(0, 4)
        order = rng.choice([[1, 0], [0, 1]])
        attr = "#ttg.amd_rotating_shared<{vec = %d, perPhase = %d, maxPhase = %d, order = [%d, %d]}>" % (
            vec, pp, mp, order[0], order[1])
        out.append({"attr": attr, "shape": rng.choice(shapes), "target": rng.choice(["gfx942", "gfx1200"])})
    # The two real kernels' rotating layouts, on their shapes.
    out.append({"attr": "#ttg.amd_rotating_shared<{vec = 4, perPhase = 1, maxPhase = 16, order = [0, 1]}>",
                "shape": [64, 128], "target": "gfx942"})
    out.append({"attr": "#ttg.amd_rotating_shared<{vec = 8, perPhase = 1, maxPhase = 8, order = [0, 1]}>",
                "shape": [64, 128], "target": "gfx1200"})
    # Swizzled layouts: the oracle must agree with Gluon's to_linear_layout where both exist.
    for _ in range(10):
        vec, pp, mp = 1 << rng.randint(0, 3), 1 << rng.randint(0, 2), 1 << rng.randint(0, 3)
        out.append({"attr": "#ttg.swizzled_shared<{vec = %d, perPhase = %d, maxPhase = %d, order = [1, 0]}>" % (
            vec, pp, mp), "shape": rng.choice(shapes), "target": "gfx942"})
    # Padded layouts: the slots include the padding.
    for _ in range(20):
        shape = rng.choice(shapes)
        pairs = sorted({1 << rng.randint(3, 9) for _ in range(rng.randint(1, 2))})
        text = ", ".join("%d:+%d" % (i, 1 << rng.randint(0, 3)) for i in pairs)
        order = rng.choice([[1, 0], [0, 1]])
        out.append({"attr": "#ttg.padded_shared<[%s] {order = [%d, %d], shape = [%d, %d]}>" % (
            text, order[0], order[1], shape[0], shape[1]), "shape": shape, "target": "gfx1250"})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="linear-layout/tests/data/families/lowering_oracle.json")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return
    w = Worker(args.python, __file__)
    out, n_err = [], 0
    for i, c in enumerate(cases(random.Random(SEED))):
        res = w.run("slots", c)
        n_err += "error" in res
        out.append(dict(c, id="lowering_oracle/%04d" % i, expect=res))
    w.close()
    with open(args.out, "w") as f:
        json.dump({"generator": GENERATOR, "triton_version": TRITON_VERSION, "seed": SEED, "cases": out}, f,
                  separators=(",", ":"))
        f.write("\n")
    print("%d cases, %d errors -> %s" % (len(out), n_err, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
