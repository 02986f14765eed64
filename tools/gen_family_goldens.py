#!/usr/bin/env python3
"""Golden-data generator: Triton 3.9.0 layout families (via Gluon) -> JSON.

The Rust layout families in ``linear-layout/src/families/`` are checked
against the files this script writes under ``linear-layout/tests/data/families/``.

How to run (no GPU needed)::

    python -m venv venv && venv/bin/pip install triton==3.9.0
    venv/bin/python tools/gen_family_goldens.py [--out linear-layout/tests/data/families]

Deterministic (fixed ``SEED``).  Every case runs in a worker subprocess
(``tools/triton_worker.py``) because Triton aborts on bad input.

What is asked of Triton
-----------------------
* ``to_linear_layout``: ``GluonOpBuilder.to_linear_layout(layout._to_ir(b), shape)``
  plus the MLIR text of the attribute (printed inside a memdesc / tensor type)
  and, for shared layouts, Gluon's alignment.
* ``mlir``: only the MLIR text of the attribute (padded layouts, which have no
  linear layout in Triton).
* ``tmem_reg_layout``: ``gluon_ir.compute_tmem_reg_layout(dtype, shape,
  alloc_shape, tmem_layout, num_warps, atom)``.
* ``bank_conflicts``: ``ttgl.bank_conflicts(distributed_type, memdesc_type)``
  evaluated by compiling a tiny Gluon kernel for sm_90 (the direct binding
  crashes outside a module).
* ``view``: ``gluon_ir.get_layout_view(layout, shape, use_hw_view)``.

Output format
-------------
One file per family, ``linear-layout/tests/data/families/<family>.json``::

    {"generator": ..., "triton_version": "3.9.0", "seed": ..., "family": ...,
     "cases": [{"id", "op", "args", "expect": {"ok": RESULT} | {"error": LINE}}]}

LAYOUT SPEC (``args.layout``) = ``{"kind": K, ...Gluon constructor arguments}``:
``swizzled_shared {vec, per_phase, max_phase, order, cga_layout}``,
``nvmma_shared {swizzle_byte_width, element_bitwidth, rank, transposed,
fp4_padded, cga_layout}``, ``blocked {size_per_thread, threads_per_warp,
warps_per_cta, order, cga_layout}``, ``slice {dim, parent}``, ``nvidia_mma
{version, warps_per_cta, instr_shape, cga_layout}``, ``dot_operand
{operand_index, parent, k_width}``, ``tensor_memory {block, col_stride,
cga_layout, two_ctas}``, ``tensor_memory_scales {cga_layout}``, ``amd_mfma
{version, instr_shape, transposed, warps_per_cta, element_bitwidth,
tiles_per_warp, cga_layout}``, ``amd_wmma {version, transposed, warp_bases,
reg_bases, instr_shape, cga_layout, rank}``.

RESULT of ``to_linear_layout`` = ``{"layout": LAYOUT, "mlir": "#ttg...",
"alignment": int (shared only)}`` where LAYOUT is the ``from_bases`` JSON
shape used everywhere in this repo: in-dims ``offset, block`` (shared),
``register, lane, warp, block`` (distributed), ``row, col`` (tensor memory),
out-dims ``dim0..`` sized by the shape.
"""

import argparse
import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

SEED = 20261121
TRITON_VERSION = "3.9.0"
GENERATOR = "tools/gen_family_goldens.py"

# --------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------

_B = None


def _builder():
    global _B
    if _B is None:
        from triton._C.libtriton import ir, gluon_ir
        ctx = ir.context()
        ir.load_dialects(ctx)
        _B = (ctx, gluon_ir.GluonOpBuilder(ctx, "cuda:100"))
    return _B[1]


def _gluon_layout(spec):
    from triton.experimental.gluon import language as ttgl
    from triton.experimental.gluon.language.nvidia.blackwell import (
        TensorMemoryLayout, TensorMemoryScalesLayout)
    k = spec["kind"]
    cga = spec.get("cga_layout", [])
    if k == "swizzled_shared":
        return ttgl.SwizzledSharedLayout(spec["vec"], spec["per_phase"], spec["max_phase"], spec["order"],
                                         cga_layout=cga)
    if k == "nvmma_shared":
        return ttgl.NVMMASharedLayout(swizzle_byte_width=spec["swizzle_byte_width"],
                                      element_bitwidth=spec["element_bitwidth"], rank=spec["rank"],
                                      transposed=spec["transposed"], fp4_padded=spec["fp4_padded"],
                                      cga_layout=cga)
    if k == "blocked":
        return ttgl.BlockedLayout(spec["size_per_thread"], spec["threads_per_warp"], spec["warps_per_cta"],
                                  spec["order"], cga_layout=cga)
    if k == "slice":
        return ttgl.SliceLayout(spec["dim"], _gluon_layout(spec["parent"]))
    if k == "nvidia_mma":
        return ttgl.NVMMADistributedLayout(version=spec["version"], warps_per_cta=spec["warps_per_cta"],
                                           instr_shape=spec["instr_shape"], cga_layout=cga)
    if k == "dot_operand":
        return ttgl.DotOperandLayout(spec["operand_index"], _gluon_layout(spec["parent"]), spec["k_width"])
    if k == "tensor_memory":
        return TensorMemoryLayout(tuple(spec["block"]), col_stride=spec["col_stride"], cga_layout=cga,
                                  two_ctas=spec.get("two_ctas", False), fp4_padded=spec.get("fp4_padded", False))
    if k == "tensor_memory_scales":
        return TensorMemoryScalesLayout(cga_layout=cga)
    if k == "linear":
        return ttgl.DistributedLinearLayout(spec["register"], spec["lane"], spec["warp"], spec["block"],
                                            spec["shape"])
    if k == "shared_linear":
        return ttgl.SharedLinearLayout(spec["offset"], spec["block"], spec["alignment"])
    if k == "padded_shared":
        return ttgl.PaddedSharedLayout(spec["interval_padding_pairs"], spec["offset_bases"], spec["cga_layout"],
                                       spec["shape"])
    if k == "partitioned_shared":
        from triton.experimental.gluon.language.amd.cdna5 import PartitionedSharedLayout
        return PartitionedSharedLayout(spec["num_partitions"], spec["num_groups"], spec["partition_dim"],
                                       _gluon_layout(spec["partition_layout"]))
    if k == "amd_mfma":
        from triton.experimental.gluon.language.amd import AMDMFMALayout
        return AMDMFMALayout(spec["version"], spec["instr_shape"], spec["transposed"], spec["warps_per_cta"],
                             element_bitwidth=spec["element_bitwidth"], tiles_per_warp=spec["tiles_per_warp"],
                             cga_layout=cga)
    if k == "amd_wmma":
        from triton.experimental.gluon.language.amd import AMDWMMALayout
        return AMDWMMALayout(spec["version"], spec["transposed"], spec["warp_bases"], spec["reg_bases"],
                             spec["instr_shape"], cga_layout=cga, rank=spec["rank"])
    raise ValueError("unknown layout kind %r" % k)


def _dtype(bits):
    from triton.experimental.gluon import language as ttgl
    return {8: ttgl.int8, 16: ttgl.float16, 32: ttgl.float32, 64: ttgl.float64}[bits]


def _ir_elem(b, bits):
    return {8: b.get_int8_ty, 16: b.get_half_ty, 32: b.get_float_ty, 64: b.get_double_ty}[bits]()


def _attr_text(type_text):
    """The encoding attribute inside a printed tensor / memdesc type."""
    start = type_text.index("#")
    depth = 0
    for i in range(start, len(type_text)):
        c = type_text[i]
        if c in "<{[(":
            depth += 1
        elif c in ">}])":
            depth -= 1
            if depth == 0:
                return type_text[start:i + 1]
    raise ValueError("unbalanced type text %r" % type_text)


def _bases(bs):
    return [list(map(int, v)) for v in bs]


def _out_dims(shape):
    return [["dim%d" % i, int(s)] for i, s in enumerate(shape)]


def _ll_json(ll, shape):
    from triton.experimental.gluon.language._layouts import DistributedLinearLayout, SharedLinearLayout
    name = type(ll).__name__
    if isinstance(ll, SharedLinearLayout):
        return {"bases": [["offset", _bases(ll.offset_bases)], ["block", _bases(ll.block_bases)]],
                "out_dims": _out_dims(shape)}, int(ll.alignment)
    if isinstance(ll, DistributedLinearLayout):
        return {"bases": [["register", _bases(ll.reg_bases)], ["lane", _bases(ll.lane_bases)],
                          ["warp", _bases(ll.warp_bases)], ["block", _bases(ll.block_bases)]],
                "out_dims": _out_dims(ll.shape)}, None
    if name == "_TensorMemoryLinearLayout":
        return {"bases": [["row", _bases(ll.rows)], ["col", _bases(ll.cols)]],
                "out_dims": _out_dims(ll.shape)}, None
    raise ValueError("unexpected result type %s" % name)


def _mlir(b, spec, attr, shape):
    k = spec["kind"]
    if k == "tensor_memory":
        bits = 32 // spec["col_stride"] if spec["col_stride"] in (1, 2, 4) else 32
    elif k == "tensor_memory_scales":
        bits = 8
    else:
        bits = spec.get("element_bitwidth", 16)
    elem = _ir_elem(b, bits)
    if k in ("swizzled_shared", "nvmma_shared", "shared_linear", "padded_shared", "partitioned_shared"):
        t = b.get_shared_mem_desc_ty(elem, list(shape), attr, list(shape))
    elif k in ("tensor_memory", "tensor_memory_scales"):
        t = b.get_tensor_mem_desc_ty(elem, list(shape), attr, list(shape))
    else:
        t = b.get_distributed_ty(elem, list(shape), attr)
    return _attr_text(str(t))


def _bank_conflicts(a):
    import triton
    from triton.backends.compiler import GPUTarget
    from triton.experimental import gluon
    from triton.experimental.gluon import language as ttgl

    @gluon.jit
    def kernel(reg_type: ttgl.constexpr, shared_type: ttgl.constexpr):
        conflicts: ttgl.constexpr = ttgl.bank_conflicts(reg_type, shared_type)
        ttgl.static_print("BANK_CONFLICTS=", conflicts)

    shape = a["shape"]
    dt = _dtype(a["bitwidth"])
    reg_t = ttgl.distributed_type(dt, shape, _gluon_layout(a["reg"]))
    sh_t = ttgl.shared_memory_descriptor_type(dt, shape, _gluon_layout(a["shared"]), shape)
    src = gluon.GluonASTSource(kernel, signature={"reg_type": "constexpr", "shared_type": "constexpr"},
                               constexprs={(0,): reg_t, (1,): sh_t})
    import io
    import contextlib
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": a["num_warps"]})
    for line in buf.getvalue().splitlines():
        if "BANK_CONFLICTS=" in line:
            b = _builder()
            reg = _ll_json(b.to_linear_layout(_gluon_layout(a["reg"])._to_ir(b), shape), shape)[0]
            sh = _ll_json(b.to_linear_layout(_gluon_layout(a["shared"])._to_ir(b), shape), shape)[0]
            return {"conflicts": int(line.split("BANK_CONFLICTS=")[1].strip()), "reg_layout": reg,
                    "shared_layout": sh}
    raise RuntimeError("no conflict count printed: %r" % buf.getvalue())


def run_case(op, a):
    if op == "to_linear_layout":
        b = _builder()
        attr = _gluon_layout(a["layout"])._to_ir(b)
        ll = b.to_linear_layout(attr, list(a["shape"]))
        lay, align = _ll_json(ll, a["shape"])
        out = {"layout": lay, "mlir": _mlir(b, a["layout"], attr, a["shape"])}
        if align is not None:
            out["alignment"] = align
        return out
    if op == "mlir":
        b = _builder()
        attr = _gluon_layout(a["layout"])._to_ir(b)
        return {"mlir": _mlir(b, a["layout"], attr, a["shape"])}
    if op == "tmem_reg_layout":
        from triton._C.libtriton import gluon_ir
        r = gluon_ir.compute_tmem_reg_layout(_dtype(a["element_bits"]), a["shape"], a["alloc_shape"],
                                             _gluon_layout(a["layout"]), a["num_warps"], a["atom"])
        if r is None:
            return {"layout": None}
        return {"layout": _ll_json(r, a["shape"])[0]}
    if op == "bank_conflicts":
        return _bank_conflicts(a)
    if op == "view":
        from triton._C.libtriton import gluon_ir
        b = _builder()
        lay = _ll_json(b.to_linear_layout(_gluon_layout(a["layout"])._to_ir(b), a["shape"]), a["shape"])[0]
        return {"text": gluon_ir.get_layout_view(_gluon_layout(a["layout"]), a["shape"], a["hw"]), "layout": lay}
    raise ValueError("unknown op %r" % op)


# --------------------------------------------------------------------------
# Parent side: parameter sweeps
# --------------------------------------------------------------------------

P2 = [1, 2, 4, 8, 16, 32, 64, 128, 256]


def perm(rng, n):
    p = list(range(n))
    rng.shuffle(p)
    return p


def split_pow2(rng, total_lg, rank):
    """Random powers of two over `rank` dims whose product is 2**total_lg."""
    parts = [0] * rank
    for _ in range(total_lg):
        parts[rng.randrange(rank)] += 1
    return [1 << p for p in parts]


def rand_shape(rng, rank, lo=0, hi=7):
    return [1 << rng.randint(lo, hi) for _ in range(rank)]


def rand_cga(rng, rank, max_lg=2):
    """Gluon 3.9 cga_layout: block bases in units of CTA tiles (or zero = broadcast)."""
    n = rng.randint(0, max_lg)
    out = []
    used = [0] * rank
    for _ in range(n):
        if rng.random() < 0.2:
            out.append([0] * rank)
            continue
        d = rng.randrange(rank)
        v = [0] * rank
        v[d] = 1 << used[d]
        used[d] += 1
        out.append(v)
    return out


class Cases:
    def __init__(self):
        self.items = []

    def add(self, op, args, note=None):
        c = {"op": op, "args": args}
        if note:
            c["note"] = note
        self.items.append(c)


def swizzled(vec, pp, mp, order, cga=None):
    return {"kind": "swizzled_shared", "vec": vec, "per_phase": pp, "max_phase": mp, "order": order,
            "cga_layout": cga or []}


def nvmma(sw, bw, rank=2, transposed=False, fp4=False, cga=None):
    return {"kind": "nvmma_shared", "swizzle_byte_width": sw, "element_bitwidth": bw, "rank": rank,
            "transposed": transposed, "fp4_padded": fp4, "cga_layout": cga or []}


def blocked(spt, tpw, wpc, order, cga=None):
    return {"kind": "blocked", "size_per_thread": spt, "threads_per_warp": tpw, "warps_per_cta": wpc,
            "order": order, "cga_layout": cga or []}


def mma(version, wpc, instr, cga=None):
    return {"kind": "nvidia_mma", "version": version, "warps_per_cta": wpc, "instr_shape": instr,
            "cga_layout": cga or []}


def dot(op_idx, parent, k_width):
    return {"kind": "dot_operand", "operand_index": op_idx, "parent": parent, "k_width": k_width}


def mfma(version, instr, transposed, wpc, bits=32, tpw=None, cga=None):
    return {"kind": "amd_mfma", "version": version, "instr_shape": instr, "transposed": transposed,
            "warps_per_cta": wpc, "element_bitwidth": bits, "tiles_per_warp": tpw or [1] * len(wpc),
            "cga_layout": cga or []}


def wmma(version, transposed, warp_bases, reg_bases=None, instr=None, cga=None, rank=2):
    return {"kind": "amd_wmma", "version": version, "transposed": transposed, "warp_bases": warp_bases,
            "reg_bases": reg_bases or [], "instr_shape": instr or [16, 16, 16], "cga_layout": cga or [],
            "rank": rank}


def tmem(bm, bn, cs, cga=None, two_ctas=False, fp4_padded=False):
    return {"kind": "tensor_memory", "block": [bm, bn], "col_stride": cs, "cga_layout": cga or [],
            "two_ctas": two_ctas, "fp4_padded": fp4_padded}


def gen_swizzled(rng):
    C = Cases()
    # Reference examples and hand-picked edge cases.
    C.add("to_linear_layout", {"layout": swizzled(2, 2, 4, [1, 0]), "shape": [32, 16]})
    C.add("to_linear_layout", {"layout": swizzled(4, 1, 8, [0, 1]), "shape": [16, 16]})
    C.add("to_linear_layout", {"layout": swizzled(8, 1, 8, [1, 0]), "shape": [64, 16]}, "swizzle wider than the tensor")
    C.add("to_linear_layout", {"layout": swizzled(1, 1, 1, [0]), "shape": [128]})
    for bad in [(3, 1, 4), (2, 3, 4), (2, 1, 3), (6, 2, 2), (0, 1, 1), (1, 0, 1), (1, 1, 0)]:
        C.add("to_linear_layout", {"layout": swizzled(bad[0], bad[1], bad[2], [1, 0]), "shape": [32, 32]},
              "non power-of-two parameter")
    for _ in range(150):
        rank = rng.choice([1, 2, 2, 2, 3])
        vec = rng.choice([1, 2, 4, 8, 16])
        pp = rng.choice([1, 2, 4, 8])
        mp = rng.choice([1, 2, 4, 8, 16])
        shape = rand_shape(rng, rank, 0, 7 if rank < 3 else 5)
        cga = rand_cga(rng, rank) if rng.random() < 0.2 else []
        C.add("to_linear_layout", {"layout": swizzled(vec, pp, mp, perm(rng, rank), cga), "shape": shape})
    return C


def gen_nvmma(rng):
    C = Cases()
    for sw in [0, 32, 64, 128]:
        for bw in [8, 16, 32, 64]:
            for transposed in [False, True]:
                for rank in [2, 3]:
                    atom_cols = 8 * max(16, sw) // bw
                    shapes = []
                    if rank == 2:
                        base = [8, atom_cols] if not transposed else [atom_cols, 8]
                        shapes = [base, [2 * base[0], 2 * base[1]], [64, 128], [128, 64], [256, 256], [4, 4],
                                  [base[0] // 2 or 1, base[1]], [base[0], base[1] // 2 or 1]]
                    else:
                        shapes = [[2, 8, atom_cols] if not transposed else [2, atom_cols, 8], [2, 4, 128], [4, 16, 64],
                                  [2, 64, 64], [1, 8, 256]]
                    for shape in shapes:
                        C.add("to_linear_layout", {"layout": nvmma(sw, bw, rank, transposed), "shape": shape})
    for shape in [[16, 64], [16, 128], [64, 64], [8, 128], [128, 256], [2, 16, 64]]:
        for transposed in [False, True]:
            C.add("to_linear_layout", {"layout": nvmma(128, 8, len(shape), transposed, fp4=True), "shape": shape},
                  "fp4 padded")
    C.add("to_linear_layout", {"layout": nvmma(64, 8, 2, False, fp4=True), "shape": [16, 64]}, "fp4 padded 64B")
    C.add("to_linear_layout", {"layout": nvmma(128, 16, 2, False, fp4=True), "shape": [16, 64]}, "fp4 padded 16b")
    C.add("to_linear_layout", {"layout": nvmma(48, 16), "shape": [16, 64]}, "bad swizzle")
    C.add("to_linear_layout", {"layout": nvmma(128, 12), "shape": [16, 64]}, "bad element width")
    C.add("to_linear_layout", {"layout": nvmma(128, 16), "shape": [24, 64]}, "non power-of-two shape")
    for _ in range(60):
        sw = rng.choice([0, 32, 64, 128])
        bw = rng.choice([8, 16, 32])
        rank = rng.choice([2, 2, 3])
        shape = rand_shape(rng, rank, 3, 8 if rank == 2 else 6)
        cga = rand_cga(rng, rank, 2) if rng.random() < 0.5 else []
        C.add("to_linear_layout", {"layout": nvmma(sw, bw, rank, rng.random() < 0.3, cga=cga), "shape": shape})
    return C


def rand_blocked(rng, rank, num_warps=None):
    spt = split_pow2(rng, rng.randint(0, 4), rank)
    tpw = split_pow2(rng, 5, rank)
    wpc = split_pow2(rng, num_warps if num_warps is not None else rng.randint(0, 3), rank)
    return blocked(spt, tpw, wpc, perm(rng, rank))


def gen_blocked(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": blocked([1, 4], [8, 4], [2, 2], [1, 0]), "shape": [64, 64]})
    C.add("to_linear_layout", {"layout": blocked([1, 4], [8, 4], [2, 2], [1, 0]), "shape": [8, 8]})
    C.add("to_linear_layout", {"layout": blocked([1, 8], [4, 8], [4, 1], [1, 0]), "shape": [64, 64]})
    C.add("to_linear_layout", {"layout": blocked([2], [32], [4], [0]), "shape": [32]})
    C.add("to_linear_layout", {"layout": blocked([8, 1], [8, 4], [1, 4], [0, 1], [[0, 1]]), "shape": [64, 128]})
    C.add("to_linear_layout", {"layout": blocked([1, 4], [8, 8], [2, 2], [1, 0]), "shape": [64, 64]},
          "threads_per_warp product 64")
    C.add("to_linear_layout", {"layout": blocked([2, 1], [4, 16], [1, 4], [0, 1]), "shape": [128, 64]},
          "threads_per_warp product 64 (AMD wavefront), dim0 fastest")
    C.add("to_linear_layout", {"layout": blocked([1, 4], [4, 4], [2, 2], [1, 0]), "shape": [64, 64]},
          "threads_per_warp product 16")
    C.add("to_linear_layout", {"layout": blocked([1, 3], [8, 4], [2, 2], [1, 0]), "shape": [64, 64]},
          "non power-of-two size_per_thread")
    for _ in range(200):
        rank = rng.choice([1, 2, 2, 2, 3])
        lay = rand_blocked(rng, rank)
        if rng.random() < 0.15:
            lay["cga_layout"] = rand_cga(rng, rank)
        shape = rand_shape(rng, rank, 0, 8 if rank < 3 else 5)
        C.add("to_linear_layout", {"layout": lay, "shape": shape})
    return C


def rand_mma(rng, rank=2):
    version = rng.choice([[2, 0], [3, 0]])
    if version[0] == 2:
        wpc = split_pow2(rng, rng.randint(0, 3), rank)
        instr = [16, 8] if rank == 2 else [1, 16, 8]
    else:
        nw = rng.choice([2, 3])
        wpc = split_pow2(rng, nw, 2)
        if wpc[0] < 4:
            wpc = [4, max(1, wpc[0] * wpc[1] // 4)] if wpc[0] * wpc[1] >= 4 else [4, 1]
        instr = [16, rng.choice([8, 16, 32, 64, 128, 256]), 16]
    return mma(version, wpc, instr)


def gen_mma(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": mma([2, 0], [2, 2], [16, 8]), "shape": [32, 16]})
    C.add("to_linear_layout", {"layout": mma([3, 0], [4, 1], [16, 64, 16]), "shape": [64, 64]})
    C.add("to_linear_layout", {"layout": mma([3, 0], [4, 1], [16, 32, 16]), "shape": [128, 64]})
    for _ in range(120):
        lay = rand_mma(rng, rng.choice([2, 2, 2, 3]) if False else 2)
        shape = rand_shape(rng, 2, 2, 8)
        C.add("to_linear_layout", {"layout": lay, "shape": shape})
    for _ in range(20):
        wpc = split_pow2(rng, rng.randint(0, 3), 3)
        C.add("to_linear_layout", {"layout": mma([2, 0], wpc, [1, 16, 8]), "shape": rand_shape(rng, 3, 0, 6)})
    # fp64 mma.sync.m8n8k4: instrShape [8, 8] (and a rank-3 [1, 8, 8]).
    for _ in range(24):
        wpc = split_pow2(rng, rng.randint(0, 3), 2)
        C.add("to_linear_layout", {"layout": mma([2, 0], wpc, [8, 8]), "shape": rand_shape(rng, 2, 2, 7)})
    C.add("to_linear_layout", {"layout": mma([2, 0], [1, 2, 2], [1, 8, 8]), "shape": [2, 32, 32]})
    # A v2 instrShape N other than 8: Triton reads only M.
    C.add("to_linear_layout", {"layout": mma([2, 0], [4, 1], [16, 16]), "shape": [128, 64]})
    C.add("to_linear_layout", {"layout": mma([2, 0], [4, 1], [8, 16]), "shape": [128, 64]})
    return C


def gen_slice(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": {"kind": "slice", "dim": 1, "parent": blocked([1, 4], [8, 4], [2, 2], [1, 0])},
                               "shape": [64]})
    for _ in range(100):
        rank = rng.choice([2, 2, 3])
        parent = rand_blocked(rng, rank) if rng.random() < 0.6 or rank == 3 else rand_mma(rng)
        dim = rng.randrange(rank)
        shape = rand_shape(rng, rank - 1, 0, 7)
        C.add("to_linear_layout", {"layout": {"kind": "slice", "dim": dim, "parent": parent}, "shape": shape})
    return C


def gen_dot(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": dot(0, mma([2, 0], [2, 2], [16, 8]), 2), "shape": [32, 16]})
    C.add("to_linear_layout", {"layout": dot(1, mma([2, 0], [2, 2], [16, 8]), 2), "shape": [16, 32]})
    for _ in range(120):
        r = rng.random()
        if r < 0.5:
            parent = mma([2, 0], split_pow2(rng, rng.randint(0, 3), 2), [16, 8])
            op_idx = rng.choice([0, 1])
        elif r < 0.8:
            parent = rand_mma(rng)
            parent["version"] = [3, 0]
            op_idx = 0
        else:
            parent = rand_blocked(rng, 2)
            op_idx = rng.choice([0, 1])
        kw = rng.choice([1, 2, 4, 8]) if parent["kind"] == "nvidia_mma" else 0
        shape = rand_shape(rng, 2, 2, 8)
        C.add("to_linear_layout", {"layout": dot(op_idx, parent, kw), "shape": shape})
    # Operands of fp64 mma.sync.m8n8k4 (instrShape [8, 8]).
    for _ in range(30):
        parent = mma([2, 0], split_pow2(rng, rng.randint(0, 3), 2), [8, 8])
        C.add("to_linear_layout", {"layout": dot(rng.choice([0, 1]), parent, rng.choice([1, 2])),
                                   "shape": rand_shape(rng, 2, 2, 7)})
    return C


MFMA_MN = [[32, 32], [16, 16], [64, 4], [4, 64]]
WMMA_INSTR = {1: [[16, 16, 16]], 2: [[16, 16, 16], [16, 16, 32]],
              3: [[16, 16, 4], [16, 16, 32], [16, 16, 64], [16, 16, 128], [32, 16, 64], [32, 16, 128]]}


def rand_mfma(rng, rank=2):
    mn = rng.choice(MFMA_MN)
    transposed = True if mn == [64, 4] else rng.random() < 0.6
    wpc = split_pow2(rng, rng.randint(0, 3), rank)
    tpw = [1] * rank
    if rng.random() < 0.3:
        tpw = split_pow2(rng, rng.randint(1, 2), rank)
        if rank == 3:
            tpw[0] = 1
    bits = 64 if rng.random() < 0.15 else 32
    cga = rand_cga(rng, rank) if rng.random() < 0.15 else []
    return mfma(rng.randint(1, 4), mn + [rng.choice([4, 8, 16, 32, 64, 128])], transposed, wpc, bits, tpw, cga)


def rand_warp_bases(rng, rank, n):
    """`n` warp bases: a permuted identity over the last two dims, sometimes with a zero basis."""
    bases, used = [], [0] * rank
    for _ in range(n):
        if rng.random() < 0.15:
            bases.append([0] * rank)
            continue
        d = rng.choice(range(rank)) if rank == 3 and rng.random() < 0.3 else rng.choice([rank - 2, rank - 1])
        v = [0] * rank
        v[d] = 1 << used[d]
        used[d] += 1
        bases.append(v)
    return bases


def rand_wmma(rng, rank=2):
    version = rng.randint(1, 3)
    instr = rng.choice(WMMA_INSTR[version])
    warps = rand_warp_bases(rng, rank, rng.randint(0, 3))
    regs = rand_warp_bases(rng, rank, rng.randint(1, 2)) if rng.random() < 0.3 else []
    cga = rand_cga(rng, rank) if rng.random() < 0.15 else []
    return wmma(version, rng.random() < 0.5, warps, regs, instr, cga, rank)


def padded(pairs, offset, shape, cga=None):
    return {"kind": "padded_shared", "interval_padding_pairs": pairs, "offset_bases": offset,
            "cga_layout": cga or [], "shape": shape}


def identity_bases(shape, order):
    rank = len(shape)
    out = []
    for d in order:
        for b in range(shape[d].bit_length() - 1):
            out.append([1 << b if i == d else 0 for i in range(rank)])
    return out


def rand_padded(rng, rank, lo=1, hi=6):
    shape = rand_shape(rng, rank, lo, hi)
    pairs, used = [], set()
    for _ in range(rng.randint(1, 2)):
        i = 1 << rng.randint(2, 9)
        if i not in used:
            used.add(i)
            pairs.append([i, 1 << rng.randint(0, 4)])
    bases = identity_bases(shape, perm(rng, rank))
    if rng.random() < 0.5:
        rng.shuffle(bases)  # a row permutation: still one dim per basis
    return padded(pairs, bases, shape)


def gen_padded_shared(rng):
    C = Cases()
    # Gluon's docstring example and the with_identity_for form (printed short).
    C.add("mlir", {"layout": padded([[8, 1]], [[0, 1], [0, 2], [2, 0], [4, 0], [1, 0]], [8, 4]), "shape": [8, 4]})
    C.add("mlir", {"layout": padded([[256, 8]], identity_bases([16, 32], [1, 0]), [16, 32]), "shape": [16, 32]})
    C.add("mlir", {"layout": padded([[2, 1], [4, 2]], identity_bases([8, 8], [0, 1]), [8, 8]), "shape": [8, 8]})
    C.add("to_linear_layout", {"layout": padded([[256, 8]], identity_bases([16, 32], [1, 0]), [16, 32]),
                               "shape": [16, 32]}, "Triton: no linear layout")
    for _ in range(60):
        rank = rng.choice([1, 2, 2, 3])
        lay = rand_padded(rng, rank)
        C.add("mlir", {"layout": lay, "shape": lay["shape"]})
    # Refused by the verifier: a basis moving two dims, a repeated offset.
    C.add("mlir", {"layout": padded([[8, 1]], [[1, 1], [2, 0], [0, 2]], [4, 4]), "shape": [4, 4]})
    C.add("mlir", {"layout": padded([[8, 1]], [[1, 0], [1, 0], [0, 1]], [4, 2]), "shape": [4, 2]})
    return C


def gen_partitioned_shared(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": {"kind": "partitioned_shared", "num_partitions": 2, "num_groups": 4,
                                          "partition_dim": 0, "partition_layout": swizzled(2, 2, 4, [1, 0])},
                               "shape": [64, 32]})
    for _ in range(80):
        rank = rng.choice([2, 2, 3])
        r = rng.random()
        if r < 0.6:
            inner = swizzled(1 << rng.randint(0, 3), 1 << rng.randint(0, 2), 1 << rng.randint(0, 3), perm(rng, rank))
        elif r < 0.8:
            inner = nvmma(rng.choice([0, 32, 64, 128]), rng.choice([8, 16, 32]), rank)
        else:
            inner = rand_padded(rng, rank)
        lay = {"kind": "partitioned_shared", "num_partitions": 1 << rng.randint(1, 2),
               "num_groups": 1 << rng.randint(0, 2), "partition_dim": rng.randrange(rank),
               "partition_layout": inner}
        shape = rand_shape(rng, rank, 2, 7)
        if inner["kind"] == "padded_shared":
            C.add("mlir", {"layout": lay, "shape": inner["shape"]})
        else:
            C.add("to_linear_layout", {"layout": lay, "shape": shape})
    return C


def gen_amd_mfma(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": mfma(3, [32, 32, 8], True, [2, 2]), "shape": [64, 64]})
    C.add("to_linear_layout", {"layout": mfma(3, [16, 16, 16], False, [1, 1]), "shape": [16, 32]})
    C.add("to_linear_layout", {"layout": mfma(4, [16, 16, 32], True, [1, 4], tpw=[2, 2]), "shape": [128, 128]})
    C.add("to_linear_layout", {"layout": mfma(4, [64, 4, 16], True, [4, 1]), "shape": [256, 16]})
    C.add("to_linear_layout", {"layout": mfma(4, [64, 4, 16], False, [4, 1]), "shape": [256, 16]},
          "64x4 must be transposed")
    C.add("to_linear_layout", {"layout": mfma(4, [32, 32, 16], False, [4, 1]), "shape": [128, 96]},
          "non-power-of-two N")
    for _ in range(200):
        lay = rand_mfma(rng)
        C.add("to_linear_layout", {"layout": lay, "shape": rand_shape(rng, 2, 1, 9)})
    for _ in range(30):
        lay = rand_mfma(rng, 3)
        C.add("to_linear_layout", {"layout": lay, "shape": rand_shape(rng, 3, 0, 7)})
    return C


def gen_amd_wmma(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": wmma(2, False, [[0, 1], [1, 0]]), "shape": [32, 32]})
    C.add("to_linear_layout", {"layout": wmma(1, False, [[1, 0]]), "shape": [32, 16]})
    C.add("to_linear_layout", {"layout": wmma(3, True, [[0, 1], [1, 0]], instr=[32, 16, 64]), "shape": [64, 64]})
    C.add("to_linear_layout", {"layout": wmma(1, False, [[0, 0, 1], [0, 0, 2], [1, 0, 0]], rank=3),
                               "shape": [4, 32, 64]})
    C.add("to_linear_layout", {"layout": wmma(1, False, [], rank=3), "shape": [2, 16, 16]})
    for _ in range(160):
        C.add("to_linear_layout", {"layout": rand_wmma(rng), "shape": rand_shape(rng, 2, 1, 8)})
    for _ in range(30):
        C.add("to_linear_layout", {"layout": rand_wmma(rng, 3), "shape": rand_shape(rng, 3, 0, 6)})
    # Non-power-of-two shapes.
    for shape in [[48, 32], [64, 96], [24, 16]]:
        C.add("to_linear_layout", {"layout": wmma(3, True, [[0, 1], [1, 0]], instr=[16, 16, 32]), "shape": shape})
    return C


def gen_amd_dot(rng):
    C = Cases()
    C.add("to_linear_layout", {"layout": dot(0, mfma(3, [32, 32, 8], True, [2, 2]), 4), "shape": [64, 32]})
    C.add("to_linear_layout", {"layout": dot(1, mfma(3, [32, 32, 8], True, [2, 2]), 4), "shape": [32, 64]})
    C.add("to_linear_layout", {"layout": dot(0, mfma(4, [64, 4, 16], True, [4, 1]), 4), "shape": [256, 64]})
    C.add("to_linear_layout", {"layout": dot(1, mfma(4, [4, 64, 16], False, [1, 4]), 4), "shape": [64, 256]})
    C.add("to_linear_layout", {"layout": dot(0, wmma(1, False, [[0, 1], [1, 0]]), 16), "shape": [32, 16]})
    C.add("to_linear_layout", {"layout": dot(1, wmma(3, True, [[0, 1], [1, 0]], instr=[32, 16, 64]), 8),
                               "shape": [64, 64]})
    for _ in range(160):
        rank = 3 if rng.random() < 0.15 else 2
        op = rng.choice([0, 1])
        kw = rng.choice([1, 2, 4, 8, 16])
        C.add("to_linear_layout", {"layout": dot(op, rand_mfma(rng, rank), kw), "shape": rand_shape(rng, rank, 1, 8)})
    for _ in range(140):
        rank = 3 if rng.random() < 0.15 else 2
        op = rng.choice([0, 1])
        lay = rand_wmma(rng, rank)
        kw = rng.choice({1: [8, 16], 2: [4, 8, 16]}.get(lay["version"], [2, 4, 8, 16, 32]))
        C.add("to_linear_layout", {"layout": dot(op, lay, kw), "shape": rand_shape(rng, rank, 1, 8)})
    # Non-power-of-two shapes.
    for shape in [[96, 64], [64, 48]]:
        C.add("to_linear_layout", {"layout": dot(0, mfma(4, [16, 16, 32], True, [2, 2]), 8), "shape": shape})
        C.add("to_linear_layout", {"layout": dot(1, wmma(3, True, [[0, 1], [1, 0]], instr=[16, 16, 32]), 8),
                                   "shape": shape})
    # k_width refused by Triton's verifier.
    C.add("to_linear_layout", {"layout": dot(0, wmma(1, False, [[1, 0]]), 4), "shape": [32, 32]})
    C.add("to_linear_layout", {"layout": dot(0, wmma(2, False, [[1, 0]]), 2), "shape": [32, 32]})
    return C


def gen_amd_slice(rng):
    C = Cases()
    for _ in range(80):
        rank = 3 if rng.random() < 0.2 else 2
        parent = rand_mfma(rng, rank) if rng.random() < 0.5 else rand_wmma(rng, rank)
        if rng.random() < 0.3:
            parent = dot(rng.choice([0, 1]), parent, 8 if parent["kind"] == "amd_wmma" else 4)
        dim = rng.randrange(rank)
        C.add("to_linear_layout", {"layout": {"kind": "slice", "dim": dim, "parent": parent},
                                   "shape": rand_shape(rng, rank - 1, 0, 8)})
    return C


def rand_linear_bases(rng, sizes_lg, in_dims, zeros):
    """Every unit basis of a power-of-two shape (so the layout is surjective), shuffled over
    `in_dims` (each a list to fill), plus `zeros` broadcast (all-zero) bases in random dims."""
    rank = len(sizes_lg)
    units = [[(1 << b) if d == dim else 0 for d in range(rank)] for dim in range(rank) for b in range(sizes_lg[dim])]
    rng.shuffle(units)
    dims = {name: [] for name in in_dims}
    for u in units:
        dims[rng.choice(in_dims)].append(u)
    for _ in range(zeros):
        dims[rng.choice(in_dims)].append([0] * rank)
    return dims


def linear(rng, rank, total_lg, block_lg=0, zeros=0):
    """A random #ttg.linear layout: 32 lanes (5 lane bases), up to 8 warps, `block_lg` CTAs."""
    sizes = [0] * rank
    for _ in range(total_lg):
        sizes[rng.randrange(rank)] += 1
    dims = rand_linear_bases(rng, sizes, ["register", "lane", "warp", "block"], 0)
    # Triton's in-dim sizes are what the bases say; keep lanes at 32 (5 bases) by moving bases.
    pool = dims["register"] + dims["lane"] + dims["warp"] + dims["block"]
    rng.shuffle(pool)
    lane = pool[:5]
    rest = pool[5:]
    nb = min(block_lg, len(rest))
    block = rest[:nb]
    rest = rest[nb:]
    nw = min(rng.randint(0, 3), len(rest))
    warp = rest[:nw]
    reg = rest[nw:]
    for _ in range(zeros):
        target = rng.choice([reg, warp, block])
        target.insert(rng.randrange(len(target) + 1), [0] * rank)
    while len(lane) < 5:
        lane.append([0] * rank)
    return {"kind": "linear", "register": reg, "lane": lane, "warp": warp, "block": block,
            "shape": [1 << s for s in sizes]}


def scale(size, lg):
    """`size * 2**lg`, at least 1."""
    return max(1, size << lg if lg >= 0 else size >> -lg)


def gen_linear(rng):
    C = Cases()
    # The example: a 32 x 16 map asked for a 64 x 16 tensor.
    base = {"kind": "linear", "register": [[0, 1], [8, 0]], "lane": [[0, 2], [0, 4], [1, 0], [2, 0], [4, 0]],
            "warp": [[0, 8], [16, 0]], "block": [], "shape": [32, 16]}
    for shape in ([32, 16], [64, 16], [128, 64], [8, 16], [32, 4], [1, 1], [16, 32], [48, 16], [32]):
        C.add("to_linear_layout", {"layout": base, "shape": shape})
    for _ in range(150):
        rank = rng.choice([1, 2, 2, 2, 3])
        lay = linear(rng, rank, rng.randint(5, 10), rng.choice([0, 0, 1]), rng.choice([0, 0, 1]))
        own = lay["shape"]
        r = rng.random()
        if r < 0.2:
            shape = list(own)
        elif r < 0.9:
            shape = [scale(s, rng.randint(-3, 2)) if rng.random() < 0.7 else s for s in own]
        elif r < 0.95:
            shape = [s * 3 for s in own]
        else:
            shape = own + [2]
        C.add("to_linear_layout", {"layout": lay, "shape": shape})
    # A slice of a linear parent.
    for _ in range(40):
        lay = linear(rng, rng.choice([2, 3]), rng.randint(5, 9))
        dim = rng.randrange(len(lay["shape"]))
        own = [s for i, s in enumerate(lay["shape"]) if i != dim]
        shape = [scale(s, rng.randint(-2, 2)) for s in own]
        C.add("to_linear_layout", {"layout": {"kind": "slice", "dim": dim, "parent": lay}, "shape": shape})
    return C


def gen_shared_linear(rng):
    C = Cases()
    for _ in range(60):
        rank = rng.choice([1, 2, 2, 3])
        sizes = [0] * rank
        for _ in range(rng.randint(2, 9)):
            sizes[rng.randrange(rank)] += 1
        dims = rand_linear_bases(rng, sizes, ["offset"], 0)
        offset = dims["offset"]
        # An XOR swizzle: mix a lower basis into some of the higher ones (stays invertible).
        for i in range(1, len(offset)):
            if rng.random() < 0.3:
                j = rng.randrange(i)
                offset[i] = [a ^ b for a, b in zip(offset[i], offset[j])]
        block = []
        if rng.random() < 0.2:
            block = [[0] * rank]
        lay = {"kind": "shared_linear", "offset": offset, "block": block,
               "alignment": rng.choice([16, 128, 1024])}
        own = [1 << s for s in sizes]
        shape = own if rng.random() < 0.7 else [s * 2 for s in own]
        C.add("to_linear_layout", {"layout": lay, "shape": shape, "element_bitwidth": 16})
    return C


def gen_tmem(rng):
    C = Cases()
    for bm in [64, 128]:
        for bn in [8, 16, 32, 64, 128, 256]:
            for cs in [1, 2, 4]:
                for shape in [[bm, bn], [128, bn], [256, 2 * bn], [64, 64], [128, 256], [bm, 4 * bn]]:
                    C.add("to_linear_layout", {"layout": tmem(bm, bn, cs), "shape": shape})
    C.add("to_linear_layout", {"layout": tmem(96, 64, 1), "shape": [128, 64]}, "block_m not 64/128")
    C.add("to_linear_layout", {"layout": tmem(128, 64, 3), "shape": [128, 64]}, "col_stride 3")
    C.add("to_linear_layout", {"layout": tmem(128, 48, 1), "shape": [128, 64]}, "block_n not pow2")
    for _ in range(30):
        bm = rng.choice([64, 128])
        bn = rng.choice([16, 32, 64, 128])
        cga = rand_cga(rng, 2, 2)
        shape = [rng.choice([64, 128, 256, 512]), rng.choice([32, 64, 128, 256])]
        C.add("to_linear_layout", {"layout": tmem(bm, bn, rng.choice([1, 2]), cga), "shape": shape})
    for shape in [[128, 4], [128, 8], [128, 16], [128, 32], [256, 4], [256, 8], [64, 4], [128, 2], [512, 16]]:
        C.add("to_linear_layout", {"layout": {"kind": "tensor_memory_scales", "cga_layout": []}, "shape": shape})
    # fp4Padded: every element slot doubled (colStride 1 only).
    for bm in [64, 128]:
        for bn in [32, 64, 128]:
            for shape in [[bm, bn], [128, 2 * bn], [256, bn]]:
                C.add("to_linear_layout", {"layout": tmem(bm, bn, 1, fp4_padded=True), "shape": shape})
    C.add("to_linear_layout", {"layout": tmem(128, 64, 1, [[1, 0]], fp4_padded=True), "shape": [256, 64]})
    C.add("to_linear_layout", {"layout": tmem(128, 64, 2, fp4_padded=True), "shape": [128, 64]},
          "fp4Padded needs colStride 1")
    return C


def gen_tmem_reg(rng):
    C = Cases()
    atoms = ["32x32b", "16x64b", "16x128b", "16x256b"]
    for atom in atoms:
        for bits in [16, 32]:
            for nw in [4, 8]:
                for (bm, bn, shape) in [(128, 64, [128, 64]), (128, 128, [128, 128]), (64, 64, [64, 64]),
                                        (64, 64, [128, 64]), (128, 256, [128, 256]), (64, 128, [64, 128]),
                                        (128, 32, [256, 32]), (128, 16, [128, 16])]:
                    cs = 32 // bits if bits < 32 and rng.random() < 0.5 else 1
                    C.add("tmem_reg_layout", {"element_bits": bits, "shape": shape, "alloc_shape": shape,
                                              "layout": tmem(bm, bn, cs), "num_warps": nw, "atom": atom})
    for _ in range(40):
        bits = rng.choice([8, 16, 32])
        bm = rng.choice([64, 128])
        bn = rng.choice([16, 32, 64, 128, 256])
        shape = [bm * rng.choice([1, 2]), bn * rng.choice([1, 2])]
        C.add("tmem_reg_layout", {"element_bits": bits, "shape": shape, "alloc_shape": shape,
                                  "layout": tmem(bm, bn, rng.choice([1, 32 // bits])),
                                  "num_warps": rng.choice([4, 8, 16]), "atom": rng.choice(atoms)})
    # Block scales (uint8) in a tensor_memory_scales layout.
    scales = {"kind": "tensor_memory_scales", "cga_layout": []}
    for atom in atoms:
        for nw in [4, 8, 16]:
            for shape in [[128, 4], [128, 8], [128, 16], [256, 4], [64, 4], [128, 2], [256, 32]]:
                C.add("tmem_reg_layout", {"element_bits": 8, "shape": shape, "alloc_shape": shape, "layout": scales,
                                          "num_warps": nw, "atom": atom})
    for cga in [[[1, 0]], [[0, 1]], [[1, 0], [0, 1]]]:
        C.add("tmem_reg_layout", {"element_bits": 8, "shape": [256, 8], "alloc_shape": [256, 8],
                                  "layout": {"kind": "tensor_memory_scales", "cga_layout": cga}, "num_warps": 4,
                                  "atom": "32x32b"})
    C.add("tmem_reg_layout", {"element_bits": 16, "shape": [128, 4], "alloc_shape": [128, 4], "layout": scales,
                              "num_warps": 4, "atom": "32x32b"}, "16-bit scales")
    return C


def gen_bank_conflicts(rng):
    C = Cases()
    fixed = [
        (blocked([1, 4], [8, 4], [2, 2], [1, 0]), nvmma(128, 16), [64, 64], 16, 4),
        (blocked([1, 8], [4, 8], [4, 1], [1, 0]), nvmma(128, 16), [64, 64], 16, 4),
        (blocked([1, 1], [1, 32], [4, 1], [1, 0]), swizzled(1, 1, 1, [1, 0]), [64, 64], 32, 4),
        (blocked([1, 1], [32, 1], [1, 4], [0, 1]), swizzled(1, 1, 1, [1, 0]), [64, 64], 32, 4),
        (blocked([1, 1], [32, 1], [1, 4], [0, 1]), swizzled(1, 1, 32, [1, 0]), [64, 64], 32, 4),
        (mma([2, 0], [2, 4], [16, 8]), nvmma(0, 16), [4, 64], 16, 8),
        (mma([3, 0], [4, 1], [16, 32, 16]), nvmma(128, 32), [128, 64], 32, 4),
        (mma([3, 0], [2, 2], [16, 32, 16]), nvmma(64, 16), [64, 32], 16, 4),
        (mma([2, 0], [4, 1], [16, 8]), nvmma(32, 8), [32, 32], 8, 4),
    ]
    for reg, sh, shape, bits, nw in fixed:
        C.add("bank_conflicts", {"reg": reg, "shared": sh, "shape": shape, "bitwidth": bits, "num_warps": nw})
    for _ in range(90):
        bits = rng.choice([8, 16, 32])
        shape = [1 << rng.randint(3, 7), 1 << rng.randint(3, 7)]
        nw = rng.choice([1, 2, 4, 8])
        nlg = nw.bit_length() - 1
        r = rng.random()
        if r < 0.7:
            reg = rand_blocked(rng, 2, nlg)
        else:
            reg = mma([2, 0], split_pow2(rng, nlg, 2), [16, 8])
        if rng.random() < 0.5:
            sh = swizzled(rng.choice([1, 2, 4, 8]), rng.choice([1, 2, 4]), rng.choice([1, 2, 4, 8]), perm(rng, 2))
        else:
            sh = nvmma(rng.choice([0, 32, 64, 128]), bits, 2, rng.random() < 0.3)
            atom = 8 * max(16, sh["swizzle_byte_width"]) // bits
            if sh["transposed"]:
                shape = [max(shape[0], atom), max(shape[1], 8)]
            else:
                shape = [max(shape[0], 8), max(shape[1], atom)]
        C.add("bank_conflicts", {"reg": reg, "shared": sh, "shape": shape, "bitwidth": bits, "num_warps": nw})
    return C


def gen_views(rng):
    C = Cases()
    for lay, shape in [(blocked([1, 4], [8, 4], [2, 2], [1, 0]), [16, 16]),
                       (blocked([2], [32], [4], [0]), [64]),
                       (mma([2, 0], [2, 2], [16, 8]), [32, 16]),
                       (swizzled(2, 2, 4, [1, 0]), [8, 8]),
                       (swizzled(1, 1, 1, [0]), [16]),
                       (nvmma(128, 16), [8, 64]),
                       (nvmma(32, 16, 2, True), [16, 8])]:
        for hw in [False, True]:
            C.add("view", {"layout": lay, "shape": shape, "hw": hw})
    return C


FAMILIES = [
    ("swizzled_shared", gen_swizzled),
    ("nvmma_shared", gen_nvmma),
    ("blocked", gen_blocked),
    ("slice", gen_slice),
    ("nvidia_mma", gen_mma),
    ("dot_operand", gen_dot),
    ("tensor_memory", gen_tmem),
    ("linear", gen_linear),
    ("shared_linear", gen_shared_linear),
    ("tmem_reg_layout", gen_tmem_reg),
    ("padded_shared", gen_padded_shared),
    ("partitioned_shared", gen_partitioned_shared),
    ("amd_mfma", gen_amd_mfma),
    ("amd_wmma", gen_amd_wmma),
    ("amd_dot_operand", gen_amd_dot),
    ("amd_slice", gen_amd_slice),
    ("bank_conflicts", gen_bank_conflicts),
    ("views", gen_views),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="linear-layout/tests/data/families")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--only", default=None, help="comma-separated family names")
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return
    os.makedirs(args.out, exist_ok=True)
    only = set(args.only.split(",")) if args.only else None
    w = Worker(args.python, __file__)
    for fam, gen in FAMILIES:
        if only and fam not in only:
            continue
        rng = random.Random("%d/%s" % (SEED, fam))
        cases = gen(rng).items
        out = []
        n_err = 0
        for i, c in enumerate(cases):
            res = w.run(c["op"], c["args"])
            n_err += "error" in res
            case = {"id": "%s/%04d" % (fam, i), "op": c["op"], "args": c["args"], "expect": res}
            if "note" in c:
                case["note"] = c["note"]
            out.append(case)
        path = os.path.join(args.out, fam + ".json")
        with open(path, "w") as f:
            json.dump({"generator": GENERATOR, "triton_version": TRITON_VERSION, "seed": SEED, "family": fam,
                       "cases": out}, f, separators=(",", ":"))
            f.write("\n")
        print("%-18s %4d cases, %3d errors -> %s" % (fam, len(out), n_err, path), file=sys.stderr)
    w.close()


if __name__ == "__main__":
    main()
