#!/usr/bin/env python3
"""Benchmark (1) of issue 5, Triton side: shared-address instruction counts of
the PTX Triton 3.9 compiles (Gluon, sm_90, no GPU needed) for named
(register layout, shared layout) pairs.

How to run (Triton 3.9.0 with Gluon in ``/root/tritonvenv``)::

    /root/tritonvenv/bin/python tools/triton_address_counts.py [--only NAME,...] [--markdown]

Writes

* ``benches/data/triton_ptx/<name>.ptx``   -- the PTX Triton compiled, one file per pair;
* ``benches/data/triton_address_counts.json`` -- per pair: the layouts (Gluon repr, MLIR
  attribute text that ``linear_layout::families::Encoding::from_mlir`` parses, and Triton's
  linear layouts), shape, dtype, num_warps, the TTGIR (``loc(...)`` stripped), and the
  counts of ``tools/ptx_address_count.py`` (its module docstring has the counting rules).

Each pair is one tiny Gluon kernel compiled with
``triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": 4})``;
the tensor moves global -> registers -> shared (and back) so that the only shared
accesses in the PTX are the ones of the pair:

* ``store``     -- ``x = gl.load(in + offs(src))``; ``smem.store(x)``  (no shared loads)
* ``load``      -- ``y = smem.load(dst)`` from an allocation that is never written (the
  compiler cannot know: it is the extern ``global_smem``); ``gl.store(out + offs(dst), y)``
* ``roundtrip`` -- store ``src`` into ``smem``, load it back as ``dst`` (transposing
  conversions: ``src`` row-major blocked, ``dst`` column-major blocked)
* ``convert``   -- ``gl.convert_layout(x, dst)``; Triton picks the scratch shared layout
  itself (``shared`` is ``null`` in the JSON), the PTX holds its stores and loads.

Global pointers carry ``tt.divisibility = 16``.  Every compile runs in a worker
subprocess (``tools/triton_worker.py``; Triton aborts on bad input), with a fresh
``TRITON_CACHE_DIR`` and ``TRITON_DISABLE_LINE_INFO=1`` (no ``.loc``/DWARF in the PTX;
the instructions are the same).
"""

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from triton_worker import Worker, serve  # noqa: E402
import ptx_address_count  # noqa: E402

ROOT = os.path.dirname(HERE)
GENERATOR = "tools/triton_address_counts.py"
TRITON_VERSION = "3.9.0"
DEFAULT_PYTHON = "/root/tritonvenv/bin/python"
OUT_JSON = os.path.join(ROOT, "benches", "data", "triton_address_counts.json")
OUT_PTX = os.path.join(ROOT, "benches", "data", "triton_ptx")
NUM_WARPS = 4

# --------------------------------------------------------------------------
# The pairs.  Layout specs use the format of tools/gen_family_goldens.py
# ({"kind": ..., Gluon constructor arguments}).
# --------------------------------------------------------------------------


def blocked(spt, tpw, wpc, order):
    return {"kind": "blocked", "size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc,
            "order": order, "cga_layout": []}


def nvmma(swizzle, bits=16, transposed=False):
    return {"kind": "nvmma_shared", "swizzle_byte_width": swizzle, "element_bitwidth": bits, "rank": 2,
            "transposed": transposed, "fp4_padded": False, "cga_layout": []}


def swizzled(vec, per_phase, max_phase, order):
    return {"kind": "swizzled_shared", "vec": vec, "per_phase": per_phase, "max_phase": max_phase,
            "order": order, "cga_layout": []}


def mma(version, wpc, instr):
    return {"kind": "nvidia_mma", "version": version, "warps_per_cta": wpc, "instr_shape": instr,
            "cga_layout": []}


def dot(idx, parent, k_width=2):
    return {"kind": "dot_operand", "operand_index": idx, "parent": parent, "k_width": k_width}


ROW_64 = blocked([1, 8], [4, 8], [4, 1], [1, 0])     # 8 x f16 = 16 B per thread, 128 B per row of lanes
ROW_32 = blocked([1, 8], [8, 4], [4, 1], [1, 0])     # 64 B rows
ROW_16 = blocked([1, 8], [16, 2], [4, 1], [1, 0])    # 32 B rows
COL_64 = blocked([8, 1], [8, 4], [1, 4], [0, 1])     # column-major: 8 consecutive rows per thread
MMA_V2 = mma([2, 0], [2, 2], [16, 8])
MMA_V3 = mma([3, 0], [4, 1], [16, 64, 16])

PAIRS = [
    # (a) Blocked -> NVMMA / swizzled stores
    dict(name="store_blocked_nvmma128_64x64", group="store", kernel="store", shape=[64, 64],
         src=ROW_64, shared=nvmma(128), dst=None,
         note="Blocked row-major, 16 B per thread, into NVMMA 128B swizzle (rows of 64 f16)"),
    dict(name="store_blocked_nvmma128_128x64", group="store", kernel="store", shape=[128, 64],
         src=ROW_64, shared=nvmma(128), dst=None, note="as above, 128 rows (8 stores per thread)"),
    dict(name="store_blocked_nvmma64_64x32", group="store", kernel="store", shape=[64, 32],
         src=ROW_32, shared=nvmma(64), dst=None, note="NVMMA 64B swizzle (rows of 32 f16)"),
    dict(name="store_blocked_nvmma32_64x16", group="store", kernel="store", shape=[64, 16],
         src=ROW_16, shared=nvmma(32), dst=None, note="NVMMA 32B swizzle (rows of 16 f16)"),
    dict(name="store_blocked_swizzled_64x64", group="store", kernel="store", shape=[64, 64],
         src=ROW_64, shared=swizzled(4, 2, 4, [1, 0]), dst=None,
         note="swizzled_shared vec 4, perPhase 2, maxPhase 4 (not an NVMMA layout; "
              "vec 8/perPhase 1/maxPhase 8 would be the same layout as NVMMA 128B here)"),
    dict(name="store_blocked_nvmma128t_64x64", group="store", kernel="store", shape=[64, 64],
         src=ROW_64, shared=nvmma(128, transposed=True), dst=None,
         note="transposing store: row-major registers into a transposed (column-major) NVMMA 128B buffer"),
    # (b) NVMMA -> MMA operand loads
    dict(name="load_nvmma128_dot_a_v2_64x64", group="load", kernel="load", shape=[64, 64],
         src=None, shared=nvmma(128), dst=dot(0, MMA_V2), note="MMA v2 operand A (M x K = 64 x 64)"),
    dict(name="load_nvmma128_dot_b_v2_64x64", group="load", kernel="load", shape=[64, 64],
         src=None, shared=nvmma(128), dst=dot(1, MMA_V2),
         note="MMA v2 operand B (K x N = 64 x 64) from a row-major (N-contiguous) buffer"),
    dict(name="load_nvmma128t_dot_b_v2_64x64", group="load", kernel="load", shape=[64, 64],
         src=None, shared=nvmma(128, transposed=True), dst=dot(1, MMA_V2),
         note="MMA v2 operand B from a transposed (K-contiguous) buffer"),
    dict(name="load_nvmma64_dot_a_v2_64x32", group="load", kernel="load", shape=[64, 32],
         src=None, shared=nvmma(64), dst=dot(0, MMA_V2), note="MMA v2 operand A, K = 32, 64B swizzle"),
    dict(name="load_nvmma32_dot_a_v2_64x16", group="load", kernel="load", shape=[64, 16],
         src=None, shared=nvmma(32), dst=dot(0, MMA_V2), note="MMA v2 operand A, K = 16, 32B swizzle"),
    dict(name="load_nvmma128_dot_a_v3_64x64", group="load", kernel="load", shape=[64, 64],
         src=None, shared=nvmma(128), dst=dot(0, MMA_V3),
         note="MMA v3 (wgmma) operand A in registers, M x K = 64 x 64"),
    # (c) transposing conversions through an explicit buffer
    dict(name="transpose_swizzled_64x64", group="transpose", kernel="roundtrip", shape=[64, 64],
         src=ROW_64, shared=swizzled(8, 1, 8, [0, 1]), dst=COL_64,
         note="store row-major blocked, load column-major blocked, column-major swizzled_shared buffer "
              "(vec 8, perPhase 1, maxPhase 8, order [0, 1])"),
    dict(name="transpose_nvmma128_64x64", group="transpose", kernel="roundtrip", shape=[64, 64],
         src=ROW_64, shared=nvmma(128), dst=COL_64,
         note="store row-major blocked, load column-major blocked, NVMMA 128B buffer"),
    # (d) convert_layout through shared memory (Triton's own scratch layout)
    dict(name="convert_mma_v2_to_blocked_64x64", group="convert", kernel="convert", shape=[64, 64],
         src=MMA_V2, shared=None, dst=ROW_64, note="MMA v2 accumulator layout -> blocked (epilogue)"),
    dict(name="convert_blocked_transpose_64x64", group="convert", kernel="convert", shape=[64, 64],
         src=ROW_64, shared=None, dst=COL_64, note="row-major blocked -> column-major blocked"),
]

# Element types: our name (linalias --dtype) -> (Triton's, bits). A pair without one is f16.
DTYPES = {"f16": ("fp16", 16), "bf16": ("bf16", 16), "f32": ("fp32", 32), "f8e4m3": ("fp8e4nv", 8),
          "i8": ("i8", 8)}

ROW_BF16 = ROW_64
ROW_F32_32 = blocked([1, 4], [4, 8], [4, 1], [1, 0])    # 4 x f32 = 16 B per thread, 128 B rows of 32
ROW_F32_16 = blocked([1, 4], [8, 4], [4, 1], [1, 0])    # 64 B rows of 16 f32
ROW_8_128 = blocked([1, 16], [4, 8], [4, 1], [1, 0])    # 16 x 8-bit = 16 B per thread, 128 B rows
ROW_8_64 = blocked([1, 16], [8, 4], [4, 1], [1, 0])     # 64 B rows
COL_F32 = blocked([4, 1], [8, 4], [1, 4], [0, 1])       # column-major f32
COL_8 = blocked([16, 1], [4, 8], [1, 4], [0, 1])        # column-major 8-bit
SCALAR_ROWS = blocked([1, 1], [1, 32], [4, 1], [1, 0])  # one element per thread per row
ROW_64_W8 = blocked([1, 8], [4, 8], [8, 1], [1, 0])     # 8 warps
MMA_V2_W8 = mma([2, 0], [4, 2], [16, 8])
MMA_V3_N32 = mma([3, 0], [4, 1], [16, 32, 16])

PAIRS += [
    # (e) other element widths and 8 warps (issue 14)
    dict(name="store_blocked_swz111_f32_32x128", group="store", kernel="store", shape=[32, 128], dtype="f32",
         src=SCALAR_ROWS, shared=swizzled(1, 1, 1, [1, 0]), dst=None,
         note="f32, one element per thread per row, into an unswizzled row-major buffer (Triton: stmatrix "
              "of 32-bit elements as two halves)"),
    dict(name="store_blocked_swz111_f32_32x128_w8", group="store", kernel="store", shape=[32, 128], dtype="f32",
         num_warps=8, src=blocked([1, 1], [1, 32], [8, 1], [1, 0]), shared=swizzled(1, 1, 1, [1, 0]), dst=None,
         note="as above, 8 warps"),
    dict(name="store_blocked_nvmma128_f32_64x32", group="store", kernel="store", shape=[64, 32], dtype="f32",
         src=ROW_F32_32, shared=nvmma(128, 32), dst=None, note="f32 rows of 128 B into NVMMA 128B"),
    dict(name="store_blocked_nvmma64_f32_64x16", group="store", kernel="store", shape=[64, 16], dtype="f32",
         src=ROW_F32_16, shared=nvmma(64, 32), dst=None, note="f32 rows of 64 B into NVMMA 64B"),
    dict(name="store_blocked_nvmma128_bf16_64x64", group="store", kernel="store", shape=[64, 64], dtype="bf16",
         src=ROW_BF16, shared=nvmma(128), dst=None, note="bf16 into NVMMA 128B"),
    dict(name="store_blocked_nvmma128_f8_64x128", group="store", kernel="store", shape=[64, 128], dtype="f8e4m3",
         src=ROW_8_128, shared=nvmma(128, 8), dst=None, note="fp8 rows of 128 B into NVMMA 128B"),
    dict(name="store_blocked_nvmma64_i8_64x64", group="store", kernel="store", shape=[64, 64], dtype="i8",
         src=ROW_8_64, shared=nvmma(64, 8), dst=None, note="i8 rows of 64 B into NVMMA 64B"),
    dict(name="store_blocked_nvmma128_64x64_w8", group="store", kernel="store", shape=[64, 64], num_warps=8,
         src=ROW_64_W8, shared=nvmma(128), dst=None, note="f16 into NVMMA 128B, 8 warps"),
    dict(name="store_mma_v2_nvmma128_f32_64x32", group="store", kernel="store", shape=[64, 32], dtype="f32",
         src=MMA_V2, shared=nvmma(128, 32), dst=None, note="MMA v2 f32 accumulator into NVMMA 128B (epilogue)"),
    dict(name="store_mma_v3_nvmma128_64x64", group="store", kernel="store", shape=[64, 64],
         src=MMA_V3, shared=nvmma(128), dst=None, note="wgmma accumulator (as f16) into NVMMA 128B (epilogue)"),
    dict(name="store_mma_v3_nvmma128_f32_64x32", group="store", kernel="store", shape=[64, 32], dtype="f32",
         src=MMA_V3_N32, shared=nvmma(128, 32), dst=None, note="wgmma f32 accumulator into NVMMA 128B"),
    dict(name="load_nvmma128_dot_a_v2_i8_64x128", group="load", kernel="load", shape=[64, 128], dtype="i8",
         src=None, shared=nvmma(128, 8), dst=dot(0, MMA_V2, 4),
         note="i8 MMA v2 operand A, kWidth 4 (Triton: ldmatrix of 8-bit pairs)"),
    dict(name="load_nvmma64_dot_a_v2_i8_64x64", group="load", kernel="load", shape=[64, 64], dtype="i8",
         src=None, shared=nvmma(64, 8), dst=dot(0, MMA_V2, 4), note="i8 operand A, 64B swizzle"),
    dict(name="load_nvmma128t_dot_b_v2_i8_128x64", group="load", kernel="load", shape=[128, 64], dtype="i8",
         src=None, shared=nvmma(128, 8, transposed=True), dst=dot(1, MMA_V2, 4),
         note="i8 operand B from a K-contiguous buffer, kWidth 4"),
    dict(name="load_nvmma128_dot_a_v2_bf16_64x64", group="load", kernel="load", shape=[64, 64], dtype="bf16",
         src=None, shared=nvmma(128), dst=dot(0, MMA_V2), note="bf16 operand A"),
    dict(name="load_nvmma128_dot_a_v3_f8_64x128", group="load", kernel="load", shape=[64, 128], dtype="f8e4m3",
         src=None, shared=nvmma(128, 8), dst=dot(0, MMA_V3, 4), note="fp8 wgmma operand A in registers, kWidth 4"),
    dict(name="load_nvmma128_dot_a_v2_64x64_w8", group="load", kernel="load", shape=[64, 64], num_warps=8,
         src=None, shared=nvmma(128), dst=dot(0, MMA_V2_W8), note="operand A, 8 warps"),
    dict(name="load_nvmma128_blocked_f32_64x32", group="load", kernel="load", shape=[64, 32], dtype="f32",
         src=None, shared=nvmma(128, 32), dst=ROW_F32_32, note="f32 NVMMA 128B into row-major blocked"),
    dict(name="load_swizzled_blocked_f32_32x128", group="load", kernel="load", shape=[32, 128], dtype="f32",
         src=None, shared=swizzled(1, 1, 1, [1, 0]), dst=SCALAR_ROWS,
         note="f32, unswizzled buffer into one element per thread per row (ldmatrix of halves)"),
    dict(name="load_nvmma128_blocked_f8_64x128", group="load", kernel="load", shape=[64, 128], dtype="f8e4m3",
         src=None, shared=nvmma(128, 8), dst=ROW_8_128, note="fp8 NVMMA 128B into row-major blocked"),
    dict(name="transpose_swizzled_f32_64x64", group="transpose", kernel="roundtrip", shape=[64, 64], dtype="f32",
         src=blocked([1, 4], [2, 16], [4, 1], [1, 0]), shared=swizzled(4, 1, 8, [0, 1]),
         dst=blocked([4, 1], [16, 2], [1, 4], [0, 1]), note="f32 row-major to column-major through swizzled"),
    dict(name="transpose_swizzled_i8_64x64", group="transpose", kernel="roundtrip", shape=[64, 64], dtype="i8",
         src=ROW_8_64, shared=swizzled(16, 1, 4, [0, 1]), dst=blocked([16, 1], [4, 8], [1, 4], [0, 1]),
         note="i8 row-major to column-major through swizzled"),
    dict(name="transpose_nvmma128_bf16_64x64_w8", group="transpose", kernel="roundtrip", shape=[64, 64],
         dtype="bf16", num_warps=8, src=ROW_64_W8, shared=nvmma(128), dst=blocked([8, 1], [8, 4], [1, 8], [0, 1]),
         note="bf16 transpose through NVMMA 128B, 8 warps"),
    dict(name="roundtrip_nvmma128_f8_64x128", group="transpose", kernel="roundtrip", shape=[64, 128],
         dtype="f8e4m3", src=ROW_8_128, shared=nvmma(128, 8), dst=dot(0, MMA_V2, 4),
         note="fp8 store of blocked rows, load as MMA v2 operand A"),
    # (f) more convert_layout pairs: the scratch chooser (linalias ptx --mem auto) against Triton's
    dict(name="convert_mma_v2_to_blocked_f32_64x32", group="convert", kernel="convert", shape=[64, 32],
         dtype="f32", src=MMA_V2, shared=None, dst=ROW_F32_32, note="MMA v2 f32 accumulator -> blocked"),
    dict(name="convert_mma_v3_to_blocked_64x64", group="convert", kernel="convert", shape=[64, 64],
         src=MMA_V3, shared=None, dst=ROW_64, note="wgmma accumulator (as f16) -> blocked"),
    dict(name="convert_mma_v3_to_blocked_f32_64x32", group="convert", kernel="convert", shape=[64, 32],
         dtype="f32", src=MMA_V3_N32, shared=None, dst=ROW_F32_32, note="wgmma f32 accumulator -> blocked"),
    dict(name="convert_blocked_transpose_f32_64x64", group="convert", kernel="convert", shape=[64, 64],
         dtype="f32", src=blocked([1, 4], [2, 16], [4, 1], [1, 0]), shared=None,
         dst=blocked([4, 1], [16, 2], [1, 4], [0, 1]), note="f32 row-major -> column-major blocked"),
    dict(name="convert_blocked_transpose_i8_64x64", group="convert", kernel="convert", shape=[64, 64],
         dtype="i8", src=ROW_8_64, shared=None, dst=blocked([16, 1], [4, 8], [1, 4], [0, 1]),
         note="i8 row-major -> column-major blocked"),
    dict(name="convert_blocked_to_dot_a_v2_64x64", group="convert", kernel="convert", shape=[64, 64],
         src=ROW_64, shared=None, dst=dot(0, MMA_V2), note="blocked rows -> MMA v2 operand A in registers"),
    dict(name="convert_mma_v2_to_blocked_64x64_w8", group="convert", kernel="convert", shape=[64, 64],
         num_warps=8, src=MMA_V2_W8, shared=None, dst=ROW_64_W8, note="MMA v2 accumulator -> blocked, 8 warps"),
    dict(name="convert_blocked_transpose_bf16_128x128", group="convert", kernel="convert", shape=[128, 128],
         dtype="bf16", src=ROW_64, shared=None, dst=COL_64,
         note="a 128 x 128 bf16 conversion between two blocked layouts (in rounds)"),
]

# --------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------

if "--worker" in sys.argv:  # Gluon kernels: module level (the JIT reads their source and globals)
    from triton.experimental import gluon
    from triton.experimental.gluon import language as gl

    @gluon.jit
    def store_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, src: gl.constexpr,
                     sh: gl.constexpr, dst: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, src))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
        x = gl.load(in_ptr + rows[:, None] * N + cols[None, :])
        smem = gl.allocate_shared_memory(in_ptr.dtype.element_ty, [M, N], sh)
        smem.store(x)

    @gluon.jit
    def load_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, src: gl.constexpr,
                    sh: gl.constexpr, dst: gl.constexpr):
        smem = gl.allocate_shared_memory(out_ptr.dtype.element_ty, [M, N], sh)
        y = smem.load(dst)
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, dst))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
        gl.store(out_ptr + rows[:, None] * N + cols[None, :], y)

    @gluon.jit
    def roundtrip_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, src: gl.constexpr,
                         sh: gl.constexpr, dst: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, src))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
        x = gl.load(in_ptr + rows[:, None] * N + cols[None, :])
        smem = gl.allocate_shared_memory(in_ptr.dtype.element_ty, [M, N], sh, x)
        y = smem.load(dst)
        rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, dst))
        cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
        gl.store(out_ptr + rows2[:, None] * N + cols2[None, :], y)

    @gluon.jit
    def convert_kernel(in_ptr, out_ptr, M: gl.constexpr, N: gl.constexpr, src: gl.constexpr,
                       sh: gl.constexpr, dst: gl.constexpr):
        rows = gl.arange(0, M, layout=gl.SliceLayout(1, src))
        cols = gl.arange(0, N, layout=gl.SliceLayout(0, src))
        x = gl.load(in_ptr + rows[:, None] * N + cols[None, :])
        y = gl.convert_layout(x, dst)
        rows2 = gl.arange(0, M, layout=gl.SliceLayout(1, dst))
        cols2 = gl.arange(0, N, layout=gl.SliceLayout(0, dst))
        gl.store(out_ptr + rows2[:, None] * N + cols2[None, :], y)

    KERNELS = {"store": store_kernel, "load": load_kernel, "roundtrip": roundtrip_kernel,
               "convert": convert_kernel}


def _strip_locs(text):
    """TTGIR without ``loc(...)`` annotations and ``#locN = ...`` lines (they hold file paths)."""
    out, i = [], 0
    while True:
        j = text.find(" loc(", i)
        if j < 0:
            out.append(text[i:])
            break
        out.append(text[i:j])
        depth, k = 0, j + 4
        while k < len(text):
            if text[k] == "(":
                depth += 1
            elif text[k] == ")":
                depth -= 1
                if depth == 0:
                    break
            k += 1
        i = k + 1
    lines = [ln for ln in "".join(out).splitlines() if not re.match(r"^#loc\d*\s*=", ln)]
    return "\n".join(lines) + "\n"


def _compile(p):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    import gen_family_goldens as fam

    kern = KERNELS[p["kernel"]]
    lay = {k: (fam._gluon_layout(p[k]) if p.get(k) else None) for k in ("src", "shared", "dst")}
    M, N = p["shape"]
    tdtype = DTYPES[p.get("dtype", "f16")][0]
    sig = {"in_ptr": "*" + tdtype, "out_ptr": "*" + tdtype, "M": "constexpr", "N": "constexpr",
           "src": "constexpr", "sh": "constexpr", "dst": "constexpr"}
    src = gluon.GluonASTSource(kern, signature=sig,
                               constexprs={(2,): M, (3,): N, (4,): lay["src"], (5,): lay["shared"],
                                           (6,): lay["dst"]},
                               attrs={(0,): [["tt.divisibility", 16]], (1,): [["tt.divisibility", 16]]})
    k = triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": p["num_warps"]})
    b = fam._builder()
    layouts = {}
    for role in ("src", "shared", "dst"):
        spec = p.get(role)
        if not spec:
            layouts[role] = None
            continue
        attr = lay[role]._to_ir(b)
        ll, _align = fam._ll_json(b.to_linear_layout(attr, list(p["shape"])), p["shape"])
        layouts[role] = {"mlir": fam._mlir(b, spec, attr, p["shape"]), "gluon": str(lay[role]), "spec": spec,
                         "linear_layout": ll}
    return {"ptx": k.asm["ptx"], "ttgir": _strip_locs(k.asm["ttgir"]), "layouts": layouts,
            "shared_bytes": int(k.metadata.shared),
            "triton_version": triton.__version__}


def run_case(op, args):
    if op == "compile":
        return _compile(args)
    raise ValueError("unknown op %r" % op)


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------

def _resolve_aliases(ttgir):
    """``{#alias: definition}`` from the TTGIR header, definitions fully expanded."""
    defs = {}
    for m in re.finditer(r"^(#\w+) = (#[^\n]*)$", ttgir, re.M):
        defs[m.group(1)] = m.group(2)
    for _ in range(8):
        for a in defs:
            defs[a] = re.sub(r"#\w+(?![\w.<])", lambda mm: defs.get(mm.group(0), mm.group(0)), defs[a])
    return defs


def _check_ttgir(ttgir, layouts):
    """The MLIR text of each layout appears in the TTGIR (aliases expanded); else a note."""
    defs = _resolve_aliases(ttgir)
    expanded = re.sub(r"#\w+(?![\w.<])", lambda m: defs.get(m.group(0), m.group(0)), ttgir)
    missing = [r for r, l in layouts.items() if l and l["mlir"] not in expanded]
    return missing


def markdown(data):
    rows = ["| pair | src -> shared -> dst | accesses (ld/st) | address instrs | per access | alu | by opcode |",
            "|---|---|---|---|---|---|---|"]
    for p in data["pairs"]:
        if "error" in p:
            rows.append("| `%s` | | compile failed: %s | | | | |" % (p["name"], p["error"]))
            continue
        c = p["counts"]
        kinds = c["accesses_by_kind"]
        acc = "%d (%d/%d)" % (c["accesses"], kinds.get("load", 0), kinds.get("store", 0))
        ops = ", ".join("%s %d" % kv for kv in c["by_opcode"].items())
        rows.append("| `%s` | %s | %s | %d | %.2f | %d | %s |" % (
            p["name"], p["summary"], acc, c["instructions"], c["per_access"], c["alu"], ops))
    return "\n".join(rows)


def _short(spec):
    if spec is None:
        return "-"
    k = spec["kind"]
    if k == "blocked":
        return "blocked%s%s" % ("" if spec["order"] == [1, 0] else "(col)", spec["size_per_thread"])
    if k == "nvmma_shared":
        return "nvmma%d%s" % (spec["swizzle_byte_width"], "T" if spec["transposed"] else "")
    if k == "swizzled_shared":
        return "swz(%d,%d,%d)%s" % (spec["vec"], spec["per_phase"], spec["max_phase"],
                                    "" if spec["order"] == [1, 0] else "(col)")
    if k == "nvidia_mma":
        return "mma_v%d" % spec["version"][0]
    if k == "dot_operand":
        return "dot_%s(mma_v%d)" % ("ab"[spec["operand_index"]], spec["parent"]["version"][0])
    return k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", default=DEFAULT_PYTHON if os.path.exists(DEFAULT_PYTHON) else sys.executable,
                    help="Python with Triton 3.9 (runs the compile worker)")
    ap.add_argument("--only", default=None, help="comma-separated pair names")
    ap.add_argument("--out", default=OUT_JSON)
    ap.add_argument("--ptx-dir", default=OUT_PTX)
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return

    t0 = time.time()
    cache = tempfile.mkdtemp(prefix="triton-cache-")
    os.environ["TRITON_CACHE_DIR"] = cache
    os.environ["TRITON_DISABLE_LINE_INFO"] = "1"
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    os.makedirs(args.ptx_dir, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    w = Worker(args.python, __file__)
    out, version = [], None
    try:
        for p in PAIRS:
            if only and p["name"] not in only:
                continue
            nw = p.get("num_warps", NUM_WARPS)
            dtype = p.get("dtype", "f16")
            req = dict(p, num_warps=nw)
            t = time.time()
            res = w.run("compile", req)
            entry = {"name": p["name"], "group": p["group"], "kernel": p["kernel"], "note": p["note"],
                     "summary": "%s -> %s -> %s" % (_short(p["src"]), _short(p["shared"]), _short(p["dst"])),
                     "shape": p["shape"], "dtype": dtype, "element_bits": DTYPES[dtype][1], "num_warps": nw}
            if "error" in res:
                entry["error"] = res["error"]
                print("%-34s FAILED: %s" % (p["name"], res["error"]), file=sys.stderr)
                out.append(entry)
                continue
            r = res["ok"]
            version = r["triton_version"]
            ptx_rel = os.path.relpath(os.path.join(args.ptx_dir, p["name"] + ".ptx"), ROOT)
            with open(os.path.join(ROOT, ptx_rel), "w") as f:
                f.write(r["ptx"])
            counts = ptx_address_count.count_ptx(r["ptx"], list_slice=True)
            if len(counts) != 1:
                raise RuntimeError("%s: expected one kernel, got %s" % (p["name"], list(counts)))
            (kname, c), = counts.items()
            missing = _check_ttgir(r["ttgir"], r["layouts"])
            entry.update({"layouts": r["layouts"], "ptx": ptx_rel, "kernel_name": kname, "counts": c,
                          "shared_bytes": r["shared_bytes"], "ttgir": r["ttgir"]})
            if p["shared"] is None:
                entry["shared_note"] = ("convert_layout: Triton 3.9 chooses the scratch shared layout itself while "
                                        "lowering to LLVM; it is not in the TTGIR")
            if missing:
                entry["ttgir_check"] = "layout text not found in TTGIR for: %s" % ", ".join(missing)
            out.append(entry)
            print("%-34s %3d accesses %-22s %3d instrs  %5.2f/access  alu %3d  (%.1fs)" % (
                p["name"], c["accesses"], c["accesses_by_kind"], c["instructions"], c["per_access"], c["alu"],
                time.time() - t), file=sys.stderr)
    finally:
        w.close()
        shutil.rmtree(cache, ignore_errors=True)
    data = {"generator": GENERATOR, "counter": "tools/ptx_address_count.py",
            "triton_version": version or TRITON_VERSION, "target": "cuda:90 (sm_90a PTX), 32 threads/warp",
            "compile": 'triton.compile(GluonASTSource(...), target=GPUTarget("cuda", 90, 32), '
                       'options={"num_warps": the pair\'s (4 unless said)}); TRITON_DISABLE_LINE_INFO=1',
            "counting_rules": "see the module docstring of tools/ptx_address_count.py",
            "pairs": out}
    if only and os.path.exists(args.out):  # merge into the existing file
        with open(args.out) as f:
            old = json.load(f)
        names = {p["name"] for p in out}
        order = [p["name"] for p in PAIRS]
        merged = [p for p in old.get("pairs", []) if p["name"] not in names] + out
        merged.sort(key=lambda p: order.index(p["name"]) if p["name"] in order else len(order))
        data["pairs"] = merged
    with open(args.out, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    print("wrote %s (%d pairs) and %s/ in %.1f s" % (os.path.relpath(args.out, ROOT), len(data["pairs"]),
                                                    os.path.relpath(args.ptx_dir, ROOT), time.time() - t0),
          file=sys.stderr)
    if args.markdown:
        print(markdown(data))


if __name__ == "__main__":
    main()
