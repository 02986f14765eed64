#!/usr/bin/env python3
"""Real AMD TTGIR: Triton 3.9.0 compiles small real kernels for AMD targets (no GPU needed) and
this script keeps the TTGIR stage of each, as a user's dump would be.

Kernels: a tiled fp16 matmul (``tl.dot``: MFMA / WMMA accumulators, their dot operands, the
shared layouts Triton picks, AMD rotating shared on gfx942/gfx1200, padded shared on gfx1250)
and a row softmax (reductions: slices of blocked layouts). Targets: gfx942 (CDNA3, MFMA v3),
gfx950 (CDNA4, MFMA v4), gfx1200 (RDNA4, WMMA v2), gfx1250 (WMMA v3).

How to run::

    /root/tritonvenv/bin/python tools/gen_amd_kernel_dumps.py [--out linear-layout/tests/data/amd_kernels]

Output: ``<out>/<kernel>_<arch>.ttgir``. ``tools/gen_harvested_layouts.py --file`` takes them
as harvest sources; ``tests/cli.rs`` lists one with ``layout show --module``.
"""

import argparse
import os

import triton
import triton.language as tl
from triton.backends.compiler import GPUTarget

TRITON_VERSION = "3.9.0"
TARGETS = [("gfx942", 64), ("gfx950", 64), ("gfx1200", 32), ("gfx1250", 32)]


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M, N, K, sam, sak, sbk, sbn, scm, scn, BM: tl.constexpr, BN: tl.constexpr,
           BK: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    rm = pid_m * BM + tl.arange(0, BM)
    rn = pid_n * BN + tl.arange(0, BN)
    rk = tl.arange(0, BK)
    a = a_ptr + rm[:, None] * sam + rk[None, :] * sak
    b = b_ptr + rk[:, None] * sbk + rn[None, :] * sbn
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for k in range(0, K, BK):
        acc += tl.dot(tl.load(a), tl.load(b))
        a += BK * sak
        b += BK * sbk
    c = c_ptr + rm[:, None] * scm + rn[None, :] * scn
    tl.store(c, acc.to(tl.float16))


@triton.jit
def softmax(x_ptr, y_ptr, stride, R: tl.constexpr, C: tl.constexpr):
    rows = tl.program_id(0) * R + tl.arange(0, R)
    cols = tl.arange(0, C)
    x = tl.load(x_ptr + rows[:, None] * stride + cols[None, :]).to(tl.float32)
    x = x - tl.max(x, axis=1)[:, None]
    e = tl.exp(x)
    y = e / tl.sum(e, axis=1)[:, None]
    tl.store(y_ptr + rows[:, None] * stride + cols[None, :], y.to(tl.float16))


KERNELS = {
    "matmul": (matmul, {"a_ptr": "*fp16", "b_ptr": "*fp16", "c_ptr": "*fp16", "M": "i32", "N": "i32", "K": "i32",
                        "sam": "i32", "sak": "i32", "sbk": "i32", "sbn": "i32", "scm": "i32", "scn": "i32",
                        "BM": "constexpr", "BN": "constexpr", "BK": "constexpr"},
               {"BM": 128, "BN": 128, "BK": 64}),
    "softmax": (softmax, {"x_ptr": "*fp16", "y_ptr": "*fp16", "stride": "i32", "R": "constexpr", "C": "constexpr"},
                {"R": 4, "C": 1024}),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="linear-layout/tests/data/amd_kernels")
    args = ap.parse_args()
    assert triton.__version__ == TRITON_VERSION, triton.__version__
    os.makedirs(args.out, exist_ok=True)
    for name, (fn, sig, consts) in KERNELS.items():
        for arch, warp in TARGETS:
            src = triton.compiler.ASTSource(fn, signature=sig, constexprs=consts)
            k = triton.compile(src, target=GPUTarget("hip", arch, warp), options={"num_warps": 4, "num_stages": 2})
            path = os.path.join(args.out, "%s_%s.ttgir" % (name, arch))
            with open(path, "w") as f:
                f.write(k.asm["ttgir"])
            print(path)


if __name__ == "__main__":
    main()
