#!/usr/bin/env python3
"""Golden-data generator: Triton's GF(2) ``LinearLayout`` -> JSON test vectors.

The Rust re-implementation of Triton's LinearLayout is checked against the
files this script writes under ``linear-layout/tests/data/triton_ll/``.

How to run
----------
    python -m venv venv && venv/bin/pip install triton==3.9.0
    venv/bin/python tools/gen_triton_ll_goldens.py [--out linear-layout/tests/data/triton_ll]

(no GPU needed; in the dev container the venv is ``/root/tritonvenv``:
``/root/tritonvenv/bin/python tools/gen_triton_ll_goldens.py``).  The script
is deterministic (fixed seed ``SEED``) and takes well under a minute.

Triton aborts the whole process (``LLVM ERROR: ...`` fatal error or a C
``assert``, SIGABRT) on bad input instead of raising.  Every case therefore
runs in a long-lived worker subprocess (this same file run with
``--worker``) that reads one JSON request per line on stdin and answers one
JSON line on stdout.  When the worker dies mid-case, the case is recorded as
an error carrying the first relevant stderr line, and a fresh worker is
started for the next case.

Output format
-------------
One file per op, ``linear-layout/tests/data/triton_ll/<op>.json``::

    {"generator": "tools/gen_triton_ll_goldens.py", "triton_version": "3.9.0",
     "seed": <int>, "op": "<op>", "cases": [CASE, ...]}

LAYOUT = ``{"bases": [["in_dim", [[c0, c1, ...], ...]], ...],
"out_dims": [["out_dim", size], ...]}`` -- in-dim and out-dim order exactly as
Triton reports them (``.bases`` / ``.out_dims``); an in-dim without bases is
``["lane", []]``.  Layout arguments are built in Triton with
``LinearLayout.from_bases(bases, names, sizes, require_surjective=False)``.

CASE = ``{"id": "<op>/<5-digit index>", "args": {...}, "expect": EXPECT}``,
EXPECT = ``{"error": "<line>"}`` or ``{"ok": RESULT}``.

The error line is the first stderr line containing ``LLVM ERROR:`` (text from
``LLVM ERROR:`` on) or ``Assertion`` (with the leading ``<program>: `` prefix
removed, so it starts with the source path); if Triton raised a Python
exception instead of aborting (e.g. ``from_bases`` with ``out_dim_sizes=None``
and ``require_surjective=False``) it is ``"<ExceptionType>: <message>"``.

Ops (args -> RESULT):

* ``from_bases``: ``{"bases", "out_dim_names", "out_dim_sizes" (list|null),
  "require_surjective"}`` -> ``{"layout", "str", "matrix"
  (get_matrix_view()), "surjective", "injective", "invertible"}``
* ``identity_1d`` ``{"size","in","out"}``, ``strided_1d``
  ``{"size","stride","in","out"}``, ``zeros_1d`` ``{"size","in","out",
  "out_size"}`` -> ``{"layout"}``
* ``product`` ``{"lhs","rhs"}`` -> ``{"layout": lhs * rhs}``
* ``compose`` ``{"lhs","rhs"}`` -> ``{"layout": lhs.compose(rhs)}``
* ``invert_and_compose`` ``{"lhs","rhs"}`` ->
  ``{"layout": lhs.invert_and_compose(rhs)}``
* ``invert`` ``{"layout"}`` -> ``{"layout": L.invert()}``
* ``pseudoinvert`` ``{"layout"}`` -> ``{"layout": L.pseudoinvert()}``
* ``apply`` ``{"layout", "inputs": [[in_dim, value], ...]}`` ->
  ``{"outputs": [[out_dim, value], ...]}`` (Triton's out-dim order)

Some cases carry an extra informational ``"note"`` string (ignored by tests).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

SEED = 20240917
TRITON_VERSION = "3.9.0"
GENERATOR = "tools/gen_triton_ll_goldens.py"

IN_ORDER = ["register", "lane", "warp", "block"]
OUT_ORDER = ["dim0", "dim1", "dim2"]

# --------------------------------------------------------------------------
# Worker side (runs inside the subprocess that imports Triton)
# --------------------------------------------------------------------------


def _layout_json(L):
    return {
        "bases": [[name, [list(map(int, b)) for b in bs]] for name, bs in L.bases],
        "out_dims": [[name, int(size)] for name, size in L.out_dims],
    }


def _build(LL, lay):
    return LL.from_bases(
        [(name, [list(b) for b in bs]) for name, bs in lay["bases"]],
        [name for name, _ in lay["out_dims"]],
        [size for _, size in lay["out_dims"]],
        False,
    )


def _run_case(LL, op, a):
    if op == "from_bases":
        L = LL.from_bases(
            [(name, bs) for name, bs in a["bases"]],
            a["out_dim_names"],
            a["out_dim_sizes"],
            a["require_surjective"],
        )
        return {
            "layout": _layout_json(L),
            "str": str(L),
            "matrix": [list(map(int, r)) for r in L.get_matrix_view()],
            "surjective": bool(L.is_surjective()),
            "injective": bool(L.is_injective()),
            "invertible": bool(L.is_invertible()),
        }
    if op == "identity_1d":
        return {"layout": _layout_json(LL.identity_1d(a["size"], a["in"], a["out"]))}
    if op == "strided_1d":
        return {"layout": _layout_json(
            LL.strided_1d(a["size"], a["stride"], a["in"], a["out"]))}
    if op == "zeros_1d":
        return {"layout": _layout_json(
            LL.zeros_1d(a["size"], a["in"], a["out"], a["out_size"]))}
    if op == "product":
        return {"layout": _layout_json(_build(LL, a["lhs"]) * _build(LL, a["rhs"]))}
    if op == "compose":
        return {"layout": _layout_json(_build(LL, a["lhs"]).compose(_build(LL, a["rhs"])))}
    if op == "invert_and_compose":
        return {"layout": _layout_json(
            _build(LL, a["lhs"]).invert_and_compose(_build(LL, a["rhs"])))}
    if op == "invert":
        return {"layout": _layout_json(_build(LL, a["layout"]).invert())}
    if op == "pseudoinvert":
        return {"layout": _layout_json(_build(LL, a["layout"]).pseudoinvert())}
    if op == "apply":
        L = _build(LL, a["layout"])
        res = L.apply({name: v for name, v in a["inputs"]})
        order = [name for name, _ in L.out_dims]
        if sorted(res.keys()) != sorted(order):
            raise RuntimeError("apply returned unexpected keys %r" % (sorted(res.keys()),))
        return {"outputs": [[name, int(res[name])] for name in order]}
    raise ValueError("unknown op %r" % op)


def worker_main():
    from triton._C.libtriton.linear_layout import LinearLayout as LL
    serve(lambda op, args: _run_case(LL, op, args))


# --------------------------------------------------------------------------
# GF(2) helpers on flattened vectors (out dims concatenated, first dim = LSBs)
# --------------------------------------------------------------------------


def lg(n):
    return n.bit_length() - 1


def offsets(out_spec):
    offs, o = [], 0
    for _, size in out_spec:
        offs.append(o)
        o += lg(size)
    return offs, o


def unflat(v, out_spec):
    """flat int -> dict name -> value"""
    offs, _ = offsets(out_spec)
    return {name: (v >> off) & (size - 1) for (name, size), off in zip(out_spec, offs)}


def flat(vec_by_name, out_spec):
    offs, _ = offsets(out_spec)
    return sum(vec_by_name[name] << off for (name, _), off in zip(out_spec, offs))


def make_layout(in_spec, out_spec, flats, order=None):
    """in_spec: [(name, nbits)], out_spec: [(name, size)] (flat packing order),
    order: out-dim order of the produced layout (default = out_spec)."""
    order = order if order is not None else [n for n, _ in out_spec]
    sizes = dict(out_spec)
    bases, i = [], 0
    for name, nb in in_spec:
        vecs = []
        for f in flats[i:i + nb]:
            d = unflat(f, out_spec)
            vecs.append([d[o] for o in order])
        bases.append([name, vecs])
        i += nb
    assert i == len(flats), (i, len(flats))
    return {"bases": bases, "out_dims": [[o, sizes[o]] for o in order]}


def layout_flats(lay, out_spec=None):
    out_spec = out_spec or [tuple(x) for x in lay["out_dims"]]
    names = [n for n, _ in lay["out_dims"]]
    res = []
    for _, bs in lay["bases"]:
        for b in bs:
            res.append(flat(dict(zip(names, b)), out_spec))
    return res


def echelon(vecs):
    """dict pivot(highest bit) -> vector, fully inter-reduced not needed."""
    piv = {}
    for v in vecs:
        while v:
            h = v.bit_length() - 1
            if h in piv:
                v ^= piv[h]
            else:
                piv[h] = v
                break
    return piv


def rank(vecs):
    return len(echelon(vecs))


def in_span(v, piv):
    while v:
        h = v.bit_length() - 1
        if h not in piv:
            return False
        v ^= piv[h]
    return True


def restricted_basis(vecs, forbidden_bits):
    """Basis of span(vecs) intersected with {v : v has no forbidden bit}."""
    work = [v for v in vecs if v]
    for b in forbidden_bits:
        m = 1 << b
        idx = next((i for i, v in enumerate(work) if v & m), None)
        if idx is None:
            continue
        p = work.pop(idx)
        work = [v ^ p if v & m else v for v in work]
        work = [v for v in work if v]
    # reduce to an independent set
    return list(echelon(work).values())


def apply_layout(lay, inputs):
    """Python reference apply: XOR of bases of set bits (high bits ignored)."""
    names = [n for n, _ in lay["out_dims"]]
    out = [0] * len(names)
    inp = dict(inputs)
    for name, bs in lay["bases"]:
        x = inp.get(name, 0)
        for i, b in enumerate(bs):
            if (x >> i) & 1:
                out = [o ^ c for o, c in zip(out, b)]
    return dict(zip(names, out))


def in_bits(lay):
    return sum(len(bs) for _, bs in lay["bases"])


# --------------------------------------------------------------------------
# Random generators
# --------------------------------------------------------------------------


def gen_flats(rng, n, avail, surj_p=0.75, zero_p=0.12, dup_p=0.1,
              combo_p=0.3, mix_p=0.35, shuffle_p=0.7):
    """n random flat vectors using only bits in `avail`.  A core of independent
    unit vectors (optionally XOR-mixed: swizzle-like patterns) plus filler:
    zeros, duplicates, combinations, random vectors."""
    m = len(avail)
    k = min(n, m)
    if rng.random() > surj_p:
        k = rng.randint(0, k)
    units = [1 << b for b in rng.sample(avail, k)]
    if rng.random() < 0.3:
        units.sort()
    if k >= 2 and rng.random() < mix_p:
        for _ in range(rng.randint(1, k)):
            i, j = rng.sample(range(k), 2)
            units[i] ^= units[j]
    vecs = list(units)
    mask = sum(1 << b for b in avail)
    while len(vecs) < n:
        r = rng.random()
        if r < zero_p or not vecs:
            if rng.random() < 0.5 or not m:
                vecs.append(0)
            else:
                vecs.append(rng.getrandbits(max(mask.bit_length(), 1)) & mask)
        elif r < zero_p + dup_p:
            vecs.append(rng.choice(vecs))
        elif r < zero_p + dup_p + combo_p:
            v = 0
            for u in vecs:
                if rng.random() < 0.5:
                    v ^= u
            vecs.append(v)
        else:
            vecs.append(rng.getrandbits(max(mask.bit_length(), 1)) & mask)
    if rng.random() < shuffle_p:
        rng.shuffle(vecs)
    return vecs


def gen_swizzle_flats(rng, out_spec, n):
    """Shared-memory-like offsets: row-major units (last out dim fastest) with
    XOR swizzle of the fastest dim by the slower dims' bits."""
    offs, T = offsets(out_spec)
    order = []
    for k in reversed(range(len(out_spec))):
        order += [offs[k] + i for i in range(lg(out_spec[k][1]))]
    fast = [offs[-1] + i for i in range(lg(out_spec[-1][1]))]
    vecs = [1 << b for b in order]
    vec_shift = rng.randint(0, 3)
    phase = rng.randint(1, 4)
    for j in range(len(fast), len(vecs)):
        t = j - len(fast)
        if t < phase and vec_shift + t < len(fast):
            vecs[j] ^= 1 << fast[vec_shift + t]
    if rng.random() < 0.3 and len(vecs) >= 2:  # extra random XOR
        i, j = rng.sample(range(len(vecs)), 2)
        vecs[i] ^= vecs[j]
    # adjust to n bases: drop high ones (non-surjective) or add zeros/dups
    vecs = vecs[:n]
    while len(vecs) < n:
        vecs.insert(rng.randint(0, len(vecs)),
                    0 if rng.random() < 0.6 or not vecs else rng.choice(vecs))
    return vecs


def split_bits(rng, total, k, max_each=None):
    """split `total` into k non-negative parts."""
    if k == 0:
        return []
    for _ in range(1000):
        cuts = sorted(rng.randint(0, total) for _ in range(k - 1))
        parts = [b - a for a, b in zip([0] + cuts, cuts + [total])]
        if max_each is None or max(parts) <= max_each:
            return parts
    return [total // k + (1 if i < total % k else 0) for i in range(k)]


def ordered_subset(rng, items, min_k=1, max_k=None):
    max_k = len(items) if max_k is None else max_k
    k = rng.randint(min_k, max_k)
    idx = sorted(rng.sample(range(len(items)), k))
    return [items[i] for i in idx]


def rand_out_spec(rng, names=None, max_lg=6, min_k=1, max_k=3):
    names = names if names is not None else ordered_subset(rng, OUT_ORDER, min_k, max_k)
    return [(n, 1 << rng.randint(0, max_lg)) for n in names]


def rand_layout(rng, in_spec, out_spec, **kw):
    n = sum(nb for _, nb in in_spec)
    _, T = offsets(out_spec)
    return make_layout(in_spec, out_spec, gen_flats(rng, n, list(range(T)), **kw))


def spec_of(lay):
    return [(n, len(bs)) for n, bs in lay["bases"]]


# --------------------------------------------------------------------------
# Case generators per op
# --------------------------------------------------------------------------


class Cases:
    def __init__(self, op):
        self.op = op
        self.items = []

    def add(self, args, note=None):
        self.items.append((args, note))


def gen_from_bases(rng):
    C = Cases("from_bases")
    names_pool = ["register", "lane", "warp", "block", "offset", "i", "j"]
    outs_pool = [["dim0"], ["dim0", "dim1"], ["dim0", "dim1", "dim2"], ["x", "y"],
                 ["o"], ["dim1", "dim0"], ["offset"]]

    def lay_args(lay, sizes_mode, req):
        return {"bases": lay["bases"],
                "out_dim_names": [n for n, _ in lay["out_dims"]],
                "out_dim_sizes": None if sizes_mode == "inferred"
                else [s for _, s in lay["out_dims"]],
                "require_surjective": req}

    # fixed examples
    C.add({"bases": [["i", [[1, 0], [0, 1], [1, 1]]]], "out_dim_names": ["a", "b"],
           "out_dim_sizes": None, "require_surjective": True}, "reference example 15")
    C.add({"bases": [["i", [[1], [4]]]], "out_dim_names": ["o"], "out_dim_sizes": None,
           "require_surjective": True}, "not surjective (inferred size 8)")
    C.add({"bases": [["i", [[8]]]], "out_dim_names": ["o"], "out_dim_sizes": [8],
           "require_surjective": False}, "basis == size")
    C.add({"bases": [["i", [[-1]]]], "out_dim_names": ["o"], "out_dim_sizes": None,
           "require_surjective": True}, "negative basis")
    C.add({"bases": [["i", [[1, 2]]]], "out_dim_names": ["o"], "out_dim_sizes": None,
           "require_surjective": True}, "tuple too long")
    C.add({"bases": [["i", [[1]]]], "out_dim_names": ["o", "p"], "out_dim_sizes": None,
           "require_surjective": True}, "tuple too short")
    C.add({"bases": [["i", [[1]]]], "out_dim_names": ["o"], "out_dim_sizes": [3],
           "require_surjective": False}, "non-pow2 size")
    C.add({"bases": [["i", [[0]]]], "out_dim_names": ["o"], "out_dim_sizes": [0],
           "require_surjective": False}, "size 0")
    C.add({"bases": [], "out_dim_names": [], "out_dim_sizes": None,
           "require_surjective": True}, "empty layout")
    C.add({"bases": [], "out_dim_names": [], "out_dim_sizes": [],
           "require_surjective": False}, "empty layout, explicit")
    C.add({"bases": [["a", [[], []]]], "out_dim_names": [], "out_dim_sizes": None,
           "require_surjective": True}, "in-dim bits but no out dims")
    C.add({"bases": [["a", []], ["b", []]], "out_dim_names": ["x"], "out_dim_sizes": None,
           "require_surjective": True}, "only size-1 in dims")
    C.add({"bases": [["a", []]], "out_dim_names": ["x"], "out_dim_sizes": [4],
           "require_surjective": False}, "size-1 in dim, non-surjective codomain")
    C.add({"bases": [["a", [[1]]], ["a", [[2]]]], "out_dim_names": ["x"],
           "out_dim_sizes": None, "require_surjective": True}, "duplicate in-dim name")
    C.add({"bases": [["a", [[1]]], ["a", [[2]]]], "out_dim_names": ["x"],
           "out_dim_sizes": [4], "require_surjective": False}, "duplicate in-dim name")
    C.add({"bases": [["a", [[1]]]], "out_dim_names": ["x"], "out_dim_sizes": None,
           "require_surjective": False}, "null sizes with require_surjective false")
    C.add({"bases": [["a", [[1, 0], [0, 1]]]], "out_dim_names": ["x", "x"],
           "out_dim_sizes": None, "require_surjective": True}, "duplicate out-dim name")
    C.add({"bases": [["a", [[1 << 29]]]], "out_dim_names": ["x"], "out_dim_sizes": [1 << 30],
           "require_surjective": False}, "largest size 2^30")
    C.add({"bases": [["a", [[1 << b] for b in range(30)]]], "out_dim_names": ["x"],
           "out_dim_sizes": None, "require_surjective": True}, "identity 2^30 inferred")
    C.add({"bases": [["a", [[1 << 29]]]], "out_dim_names": ["x"], "out_dim_sizes": None,
           "require_surjective": True}, "inferred 2^30, not surjective")
    C.add({"bases": [["a", [[1 << (b % 20)] for b in range(65)]]], "out_dim_names": ["x"],
           "out_dim_sizes": None, "require_surjective": True}, "65 input bits")
    C.add({"bases": [["a", [[1 << (b % 30), (1 << (b % 30)), 1 << (b % 30)] for b in range(30)]]],
           "out_dim_names": ["x", "y", "z"], "out_dim_sizes": [1 << 30] * 3,
           "require_surjective": False}, "90 output bits")
    C.add({"bases": [["a", [[1 << (b % 22), 0, 0] for b in range(22)]]],
           "out_dim_names": ["x", "y", "z"], "out_dim_sizes": [1 << 22] * 3,
           "require_surjective": False}, "66 output bits")

    # random cases
    for _ in range(340):
        ins = ordered_subset(rng, names_pool, 0 if rng.random() < 0.05 else 1, 3)
        outs = rng.choice(outs_pool)
        out_spec = [(o, 1 << rng.randint(0, 7 if len(outs) > 1 else 12)) for o in outs]
        if rng.random() < 0.05:
            out_spec = [(o, 1 << rng.randint(18, 29)) for o in outs[:1]]
        _, T = offsets(out_spec)
        r = rng.random()
        if r < 0.35:  # surjective, inferred sizes
            extra = rng.randint(0, 3)
            nb = split_bits(rng, T + extra, len(ins), 30) if ins else []
            if not ins:
                out_spec = [(o, 1) for o in outs]
            lay = make_layout(list(zip(ins, nb)), out_spec,
                              gen_flats(rng, sum(nb), list(range(T)), surj_p=1.0))
            # inferred size may be smaller if a top bit ended up only in XOR-free form
            C.add(lay_args(lay, "inferred", True))
        elif r < 0.55:  # explicit sizes, surjective required (sometimes fails)
            n = rng.randint(0, T + 2)
            nb = split_bits(rng, n, len(ins)) if ins else []
            if not ins:
                n = 0
            lay = make_layout(list(zip(ins, nb)), out_spec,
                              gen_flats(rng, n, list(range(T)), surj_p=0.6))
            C.add(lay_args(lay, "explicit", True))
        elif r < 0.8:  # explicit sizes, non-surjective allowed
            n = rng.randint(0, T + 3)
            nb = split_bits(rng, n, len(ins)) if ins else []
            if not ins:
                n = 0
            lay = make_layout(list(zip(ins, nb)), out_spec,
                              gen_flats(rng, n, list(range(T)), surj_p=0.3, zero_p=0.25,
                                        dup_p=0.2))
            C.add(lay_args(lay, "explicit", False))
        elif r < 0.86:  # inferred, possibly not surjective (random values)
            n = rng.randint(1, 6)
            ins = ins or ["i"]
            nb = split_bits(rng, n, len(ins))
            lay = make_layout(list(zip(ins, nb)), out_spec,
                              [rng.getrandbits(T) if T else 0 for _ in range(n)])
            C.add(lay_args(lay, "inferred", True))
        else:  # error injection on a valid layout
            ins = ins or ["i"]
            n = rng.randint(1, max(1, min(T + 1, 8)))
            nb = split_bits(rng, n, len(ins))
            lay = make_layout(list(zip(ins, nb)), out_spec,
                              gen_flats(rng, n, list(range(T)), surj_p=1.0))
            args = lay_args(lay, rng.choice(["explicit", "inferred"]), rng.random() < 0.5)
            if args["out_dim_sizes"] is None:
                args["require_surjective"] = True
            dims = [i for i, (_, bs) in enumerate(args["bases"]) if bs]
            di = rng.choice(dims)
            bi = rng.randrange(len(args["bases"][di][1]))
            b = list(args["bases"][di][1][bi])
            kind = rng.choice(["negative", "too_long", "too_short", "ge_size", "non_pow2"])
            if kind == "negative":
                b[rng.randrange(len(b))] = -rng.choice([1, 2, 5, 1 << 20])
            elif kind == "too_long":
                b = b + [rng.randint(0, 3)]
            elif kind == "too_short":
                b = b[:-1]
            elif kind == "ge_size":
                if args["out_dim_sizes"] is None:
                    args["out_dim_sizes"] = [s for _, s in out_spec]
                k = rng.randrange(len(b))
                b[k] = out_spec[k][1] * rng.choice([1, 1, 2, 3])
            else:
                k = rng.randrange(len(out_spec))
                sizes = [s for _, s in out_spec]
                sizes[k] = rng.choice([3, 5, 6, 12, 24, 100, sizes[k] * 3])
                args["out_dim_sizes"] = sizes
            args["bases"][di][1][bi] = b
            C.add(args, "error injection: " + kind)
    return C


def gen_1d(rng, op):
    C = Cases(op)
    name_pairs = [("i", "o"), ("register", "dim0"), ("offset", "dim1"), ("lane", "lane"),
                  ("dim0", "dim0"), ("block", "dim2")]
    sizes = [0] + [1 << k for k in range(21)]
    bad = [3, 5, 6, 7, 12, 100, 1000, -4, -1, (1 << 20) + 1]
    for s in sizes:
        i, o = rng.choice(name_pairs)
        if op == "identity_1d":
            C.add({"size": s, "in": i, "out": o})
        elif op == "strided_1d":
            for stride in ([1, 2] + [1 << rng.randint(2, 9)]):
                if s * stride > (1 << 30):
                    continue
                C.add({"size": s, "stride": stride, "in": i, "out": o})
        else:
            for osz in (1, 1 << rng.randint(1, 10)):
                C.add({"size": s, "in": i, "out": o, "out_size": osz})
    for s in bad:
        i, o = rng.choice(name_pairs)
        if op == "identity_1d":
            C.add({"size": s, "in": i, "out": o}, "non-pow2 size")
        elif op == "strided_1d":
            C.add({"size": s, "stride": 2, "in": i, "out": o}, "non-pow2 size")
        else:
            C.add({"size": s, "in": i, "out": o, "out_size": 1}, "non-pow2 size")
    if op == "identity_1d":
        for s in [1 << rng.randint(0, 12) for _ in range(30)]:
            i, o = rng.choice(name_pairs)
            C.add({"size": s, "in": i, "out": o})
    elif op == "strided_1d":
        for s, st in [(4, 3), (1, 3), (0, 3), (2, 5), (8, 6), (4, 0), (1, 0), (0, 0),
                      (16, 12), (1, 7), (2, -2)]:
            C.add({"size": s, "stride": st, "in": "i", "out": "o"}, "odd stride")
        for _ in range(10):
            s = 1 << rng.randint(0, 10)
            st = 1 << rng.randint(0, 10)
            C.add({"size": s, "stride": st, "in": "i", "out": "o"})
    else:
        for s, osz in [(4, 3), (4, 0), (0, 0), (1, 6), (2, 1 << 30), (8, -2), (0, 5)]:
            C.add({"size": s, "in": "i", "out": "o", "out_size": osz}, "odd out size")
        for _ in range(10):
            C.add({"size": 1 << rng.randint(0, 10), "in": "i", "out": "o",
                   "out_size": 1 << rng.randint(0, 10)})
    return C


def lay_identity(n, i, o):
    return {"bases": [[i, [[1 << k] for k in range(lg(n))]]], "out_dims": [[o, n]]}


def lay_zeros(n, i, o, osz=1):
    return {"bases": [[i, [[0] for _ in range(lg(n))]]], "out_dims": [[o, osz]]}


EMPTY = {"bases": [], "out_dims": []}


def rand_small_layout(rng, ins, outs, max_in=4, max_out_lg=5, surj=None):
    out_spec = [(o, 1 << rng.randint(0, max_out_lg)) for o in outs]
    in_spec = [(i, rng.randint(0, max_in)) for i in ins]
    kw = {}
    if surj is not None:
        kw["surj_p"] = surj
    return rand_layout(rng, in_spec, out_spec, **kw)


def gen_product(rng):
    C = Cases("product")
    C.add({"lhs": lay_identity(4, "i", "o"), "rhs": lay_identity(2, "i", "o")}, "ref ex 1")
    C.add({"lhs": lay_identity(4, "i", "o"), "rhs": lay_zeros(2, "i", "o")}, "ref ex 1")
    C.add({"lhs": lay_zeros(2, "i", "o"), "rhs": lay_identity(4, "i", "o")}, "ref ex 1")
    C.add({"lhs": lay_identity(4, "i", "o1"), "rhs": lay_identity(8, "i", "o2")}, "ref ex 2")
    C.add({"lhs": {"bases": [["reg", [[1, 0], [0, 1]]]], "out_dims": [["x", 2], ["y", 2]]},
           "rhs": {"bases": [["reg", [[1, 0]]], ["lane", [[0, 1], [1, 1]]]],
                   "out_dims": [["x", 2], ["y", 2]]}}, "ref ex 2 shared in and out")
    C.add({"lhs": EMPTY, "rhs": EMPTY}, "empty * empty")
    C.add({"lhs": EMPTY, "rhs": lay_identity(4, "i", "o")}, "empty * L")
    C.add({"lhs": lay_identity(4, "i", "o"), "rhs": EMPTY}, "L * empty")
    C.add({"lhs": lay_identity(4, "i", "o"), "rhs": lay_identity(4, "j", "p")}, "disjoint")
    C.add({"lhs": lay_identity(4, "i", "o"), "rhs": lay_zeros(4, "i", "o", 4)},
          "non-surjective rhs shares out")
    C.add({"lhs": lay_zeros(4, "i", "o", 8), "rhs": lay_identity(4, "i", "o")},
          "non-surjective lhs shares out")
    C.add({"lhs": lay_identity(1, "i", "o"), "rhs": lay_identity(8, "i", "o")},
          "size-1 dim")
    # random compatible
    for _ in range(320):
        lins = ordered_subset(rng, IN_ORDER, 0 if rng.random() < 0.05 else 1)
        rins = ordered_subset(rng, IN_ORDER, 0 if rng.random() < 0.05 else 1)
        louts = ordered_subset(rng, OUT_ORDER, 0 if rng.random() < 0.05 else 1)
        routs = ordered_subset(rng, OUT_ORDER, 0 if rng.random() < 0.05 else 1)
        lhs = rand_small_layout(rng, lins, louts)
        rhs = rand_small_layout(rng, rins, routs)
        C.add({"lhs": lhs, "rhs": rhs})
    # conflicting relative orders
    for t in range(24):
        kind = t % 3
        if kind in (0, 2):
            a, b = rng.sample(IN_ORDER, 2)
            lins, rins = [a, b], [b, a]
            if rng.random() < 0.5:
                lins = lins + [x for x in IN_ORDER if x not in (a, b)][:1]
        else:
            lins = ordered_subset(rng, IN_ORDER, 1, 2)
            rins = ordered_subset(rng, IN_ORDER, 1, 2)
        if kind in (1, 2):
            a, b = rng.sample(OUT_ORDER, 2)
            louts, routs = [a, b], [b, a]
        else:
            louts = ordered_subset(rng, OUT_ORDER, 1, 2)
            routs = ordered_subset(rng, OUT_ORDER, 1, 2)
        lhs = rand_small_layout(rng, lins, louts, max_in=3, max_out_lg=4)
        rhs = rand_small_layout(rng, rins, routs, max_in=3, max_out_lg=4)
        C.add({"lhs": lhs, "rhs": rhs}, "conflicting dim order")
    return C


def gen_compose(rng):
    C = Cases("compose")
    C.add({"lhs": {"bases": [["i", [[4], [8], [1], [2]]]], "out_dims": [["o", 16]]},
           "rhs": {"bases": [["o", [[3], [2], [4], [8]]]], "out_dims": [["p", 16]]}},
          "ref ex 8 swizzle")
    C.add({"lhs": lay_identity(4, "a", "x"), "rhs": lay_identity(2, "x", "y")},
          "rhs smaller than lhs out")
    C.add({"lhs": lay_identity(4, "a", "x"), "rhs": lay_identity(4, "b", "y")},
          "mismatched names")
    C.add({"lhs": lay_identity(4, "a", "x"), "rhs": lay_identity(8, "x", "y")},
          "rhs larger")
    C.add({"lhs": EMPTY, "rhs": EMPTY}, "empty")
    for t in range(330):
        names = ordered_subset(rng, OUT_ORDER if rng.random() < 0.7 else ["x", "y", "offset"])
        lins = ordered_subset(rng, IN_ORDER if rng.random() < 0.8 else ["i"])
        l_out = [(n, 1 << rng.randint(0, 6)) for n in names]
        rin_names = list(names)
        if rng.random() < 0.4:
            rng.shuffle(rin_names)
        grow = {n: (rng.randint(0, 2) if rng.random() < 0.3 else 0) for n in names}
        r_in = [(n, lg(dict(l_out)[n]) + grow[n]) for n in rin_names]
        routs = ordered_subset(rng, ["dim0", "dim1", "offset", "p"], 0 if rng.random() < 0.03 else 1)
        r_out = [(o, 1 << rng.randint(0, 7)) for o in routs]
        note = None
        if rng.random() < 0.25:
            # swizzle-like rhs over its in-dims
            rhs = make_layout(r_in, r_out, gen_swizzle_flats(rng, r_out, sum(nb for _, nb in r_in)))
            note = "swizzle rhs"
        else:
            rhs = rand_layout(rng, r_in, r_out)
        lhs_in = [(n, rng.randint(0, 4)) for n in lins]
        # lhs may be non-surjective (larger explicit codomain relative to bases)
        lhs = rand_layout(rng, lhs_in, l_out, surj_p=0.6)
        r = rng.random()
        if r < 0.04:
            # rhs smaller than lhs out size
            big = [n for n, s in l_out if s > 1]
            if big:
                n = rng.choice(big)
                r_in = [(m, nb - 1 - grow[m] if m == n else nb) for m, nb in r_in]
                rhs = rand_layout(rng, r_in, r_out)
                note = "rhs in size smaller than lhs out size"
        elif r < 0.07:
            # mismatched names
            r_in2 = list(r_in)
            k = rng.randrange(len(r_in2))
            if rng.random() < 0.5:
                r_in2[k] = ("zz", r_in2[k][1])
            else:
                r_in2.append(("extra", rng.randint(0, 2)))
            rhs = rand_layout(rng, r_in2, r_out)
            note = "mismatched names"
        C.add({"lhs": lhs, "rhs": rhs}, note)
    return C


# ---------------------------- invert_and_compose ---------------------------


def iac_reference_cases(C):
    R = {"bases": [["lane", [[1], [2]]], ["warp", [[4]]]], "out_dims": [["x", 8]]}
    C.add({"lhs": R, "rhs": {"bases": [["offset", [[0], [1], [2], [0], [4]]]],
                             "out_dims": [["x", 8]]}}, "ref ex 3")
    C.add({"lhs": R, "rhs": {"bases": [["offset", [[1], [3], [2], [4], [4]]]],
                             "out_dims": [["x", 8]]}}, "ref ex 4")
    C.add({"lhs": {"bases": [["lane", [[1], [2]]], ["warp", [[0]]]], "out_dims": [["x", 4]]},
           "rhs": {"bases": [["lane", [[2], [1]]], ["warp", [[0]]]], "out_dims": [["x", 4]]}},
          "ref ex 6 identity-dims heuristic")
    C.add({"lhs": lay_identity(4, "i", "x"), "rhs": lay_identity(8, "j", "x")},
          "ref ex 7 outer larger")
    C.add({"lhs": lay_identity(8, "j", "x"), "rhs": lay_identity(4, "i", "x")},
          "ref ex 7 reversed: incompatible shapes")
    # reference example 5 as invert_and_compose (pseudoinvert definition)
    C.add({"lhs": lay_identity(4, "o", "o"),
           "rhs": {"bases": [["i", [[0], [1], [1], [2]]]], "out_dims": [["o", 4]]}},
          "ref ex 5 via identity.invert_and_compose")
    C.add({"lhs": {"bases": [["a", [[1]]], ["b", [[0]]]], "out_dims": [["x", 2]]},
           "rhs": {"bases": [["b", [[0]]], ["a", [[1]]]], "out_dims": [["x", 2]]}},
          "shared dims in different in-order")
    C.add({"lhs": EMPTY, "rhs": EMPTY}, "empty")


def pick_out_spec_iac(rng):
    nout = rng.choices([1, 2, 3], [0.35, 0.45, 0.2])[0]
    if rng.random() < 0.85:
        names = OUT_ORDER[:nout] if rng.random() < 0.7 else ordered_subset(rng, OUT_ORDER, nout, nout)
    else:
        names = ["x", "y", "z"][:nout]
    return [(n, 1 << rng.choices(range(11), [1, 2, 3, 4, 4, 4, 4, 3, 2, 2, 2])[0]) for n in names]


def gen_iac_random(rng, big=False):
    """One covered invert_and_compose case (Im(lhs) within Im(rhs))."""
    out_spec = pick_out_spec_iac(rng)
    if big:
        out_spec = [(n, 1 << rng.randint(7, 10)) for n, _ in out_spec]
    offs, T = offsets(out_spec)
    lhs_lg = {n: lg(s) for n, s in out_spec}
    if rng.random() < 0.25:
        for n in lhs_lg:
            if rng.random() < 0.6:
                lhs_lg[n] = rng.randint(0, lhs_lg[n])
    forbidden = [offs[k] + i for k, (n, s) in enumerate(out_spec)
                 for i in range(lhs_lg[n], lg(s))]
    allowed = [b for b in range(T) if b not in forbidden]
    lhs_out_spec = [(n, 1 << lhs_lg[n]) for n, _ in out_spec]
    lhs_order = [n for n, _ in out_spec]
    rhs_order = list(lhs_order)
    if rng.random() < 0.3:
        rng.shuffle(lhs_order)
    if rng.random() < 0.15:
        rng.shuffle(rhs_order)

    # rhs in-dims
    mode = rng.choices(["offset", "offset_block", "dist"], [0.45, 0.15, 0.4])[0]
    identity = rng.random() < 0.4
    if identity and mode == "offset":
        mode = rng.choice(["offset_block", "dist"])
    if big:
        R = rng.randint(max(T - 2, 20), 30)
    else:
        R = max(0, min(30, T + rng.choice([-3, -2, -1, 0, 0, 0, 0, 1, 1, 2, 3, 5])))
    if mode == "offset":
        rhs_ins = ["offset"]
    elif mode == "offset_block":
        rhs_ins = ["offset", "block"]
    else:
        rhs_ins = ordered_subset(rng, IN_ORDER, 1, 4)
    d = None
    if identity:
        if mode == "offset_block":
            d = "block"
        else:
            d = rng.choices(["warp", "block", "lane", "register"], [0.45, 0.3, 0.15, 0.1])[0]
            if d not in rhs_ins:
                rhs_ins = [x for x in IN_ORDER if x in rhs_ins or x == d]
            if rhs_ins == [d]:  # need at least one other rhs in-dim
                extra = rng.choice([x for x in IN_ORDER if x != d])
                rhs_ins = [x for x in IN_ORDER if x in (d, extra)]

    # identity dim bases (shared, equal in both)
    d_vecs, d_kind, reserved = [], None, []
    if d is not None:
        nd = rng.choices([0, 1, 2, 3], [0.1, 0.35, 0.35, 0.2])[0]
        nd = min(nd, R)
        d_kind = rng.choices(["zero", "excl", "rand", "mixed"], [0.4, 0.35, 0.15, 0.1])[0]
        if d_kind == "zero":
            d_vecs = [0] * nd
        elif d_kind == "excl":
            nd = min(nd, len(allowed))
            reserved = rng.sample(allowed, nd)
            d_vecs = [1 << b for b in reserved]
        elif d_kind == "rand":
            d_vecs = [sum(1 << b for b in allowed if rng.random() < 0.3) for _ in range(nd)]
        else:
            nd = min(nd, len(allowed))
            reserved = rng.sample(allowed, nd)
            d_vecs = [1 << b for b in reserved]
            if nd:
                d_vecs[rng.randrange(nd)] = 0
    R_other = R - len(d_vecs)
    avail = [b for b in range(T) if b not in reserved]
    if rng.random() < 0.2 and mode != "dist":
        # shared-memory swizzle over the remaining dims
        other_flats = gen_swizzle_flats(rng, out_spec, R_other)
        if reserved:
            mask = ~sum(1 << b for b in reserved)
            other_flats = [v & mask for v in other_flats]
        rhs_note = "swizzle"
    else:
        other_flats = gen_flats(rng, R_other, avail, surj_p=0.8)
        rhs_note = None
    declined_rhs = False
    if d_kind in ("excl", "mixed") and reserved and other_flats and rng.random() < 0.2:
        # make another rhs dim share a bit with d -> heuristic declined
        i = rng.randrange(len(other_flats))
        other_flats[i] ^= 1 << rng.choice(reserved)
        declined_rhs = True

    # split rhs bits among rhs in-dims
    others = [x for x in rhs_ins if x != d]
    parts = split_bits(rng, R_other, len(others)) if others else []
    rhs_spec, rhs_flats, pos = [], [], 0
    pmap = dict(zip(others, parts))
    for x in rhs_ins:
        if x == d:
            rhs_spec.append((x, len(d_vecs)))
            rhs_flats += d_vecs
        else:
            rhs_spec.append((x, pmap[x]))
            rhs_flats += other_flats[pos:pos + pmap[x]]
            pos += pmap[x]
    rhs = make_layout(rhs_spec, out_spec, rhs_flats, rhs_order)

    # lhs: combinations of the restricted rhs image
    rhs_other_vecs = [v for v in other_flats]
    src = rhs_other_vecs if (d_kind in ("excl", "mixed") and not declined_rhs) else rhs_flats
    basis = restricted_basis(src, forbidden)
    basis_full = restricted_basis(rhs_flats, forbidden)
    lhs_ins = ordered_subset(rng, IN_ORDER, 1, 4)
    if d is not None and d not in lhs_ins:
        lhs_ins = [x for x in IN_ORDER if x in lhs_ins or x == d]
    max_lhs = min(30, 64 - R)
    budget = max(0, min(max_lhs, len(basis) + rng.choice([-2, -1, 0, 0, 1, 2, 3]))) if not big \
        else rng.randint(10, max_lhs)
    lothers = [x for x in lhs_ins if x != d]
    budget = min(budget, 8 * len(lothers) + len(d_vecs))
    lparts = split_bits(rng, max(0, budget - len(d_vecs)), len(lothers), 8) if lothers else []
    lmap = dict(zip(lothers, lparts))
    declined_lhs = False
    style = rng.choices(["combo", "single", "perm"], [0.4, 0.3, 0.3])[0]
    perm_pool = list(basis)
    rng.shuffle(perm_pool)
    lhs_flats, lhs_spec = [], []
    for x in lhs_ins:
        if x == d:
            lhs_spec.append((x, len(d_vecs)))
            lhs_flats += list(d_vecs)
            continue
        lhs_spec.append((x, lmap[x]))
        for _ in range(lmap[x]):
            r = rng.random()
            if r < 0.1 or not basis:
                v = 0
            elif r < 0.18 and lhs_flats:
                v = rng.choice(lhs_flats)
            elif style == "perm" and perm_pool:
                v = perm_pool.pop()
            elif style == "single" or (style == "perm" and rng.random() < 0.5):
                v = rng.choice(basis)
            else:
                v = 0
                for u in basis:
                    if rng.random() < 0.5:
                        v ^= u
            lhs_flats.append(v)
    if d_kind in ("excl", "mixed") and not declined_rhs and any(d_vecs) and lhs_flats \
            and rng.random() < 0.25:
        # another lhs dim shares a set bit with d's bases -> heuristic declined
        cand = [i for i, v in enumerate(lhs_flats) if i >= 0]
        dpos = []
        p = 0
        for x, nb in lhs_spec:
            if x == d:
                dpos = list(range(p, p + nb))
            p += nb
        cand = [i for i in range(len(lhs_flats)) if i not in dpos]
        if cand:
            i = rng.choice(cand)
            lhs_flats[i] ^= rng.choice([v for v in d_vecs if v])
            if rng.random() < 0.5 and basis_full:
                lhs_flats[i] ^= rng.choice(basis_full)
            declined_lhs = True
    lhs = make_layout(lhs_spec, out_spec, lhs_flats, lhs_order)
    # lhs codomain (possibly smaller)
    sizes = dict(lhs_out_spec)
    lhs["out_dims"] = [[n, sizes[n]] for n in lhs_order]
    notes = []
    if rhs_note:
        notes.append(rhs_note)
    if d is not None:
        notes.append("identity-dim candidate %s (%s%s)" % (
            d, d_kind, ", shares bits" if (declined_lhs or declined_rhs) else ""))
    return {"lhs": lhs, "rhs": rhs}, "; ".join(notes) or None, d


def gen_iac_tiny(rng):
    """Small exhaustive-style cases: 1 out dim, tiny sizes, lots of ties."""
    s = 1 << rng.randint(0, 4)
    T = lg(s)
    out_spec = [("x", s)]
    R = rng.randint(0, 6)
    rhs_ins = rng.choice([["offset"], ["lane", "warp"], ["register", "lane"], ["offset", "block"]])
    parts = split_bits(rng, R, len(rhs_ins))
    rflats = gen_flats(rng, R, list(range(T)), surj_p=0.9, zero_p=0.25, dup_p=0.25)
    rhs = make_layout(list(zip(rhs_ins, parts)), out_spec, rflats)
    basis = restricted_basis(rflats, [])
    lhs_ins = rng.choice([["register"], ["lane", "warp"], ["register", "lane", "warp"],
                          ["lane"], ["block"]])
    nl = rng.randint(0, 4)
    lparts = split_bits(rng, nl, len(lhs_ins))
    lflats = []
    for _ in range(nl):
        v = 0
        for u in basis:
            if rng.random() < 0.5:
                v ^= u
        lflats.append(v)
    lhs = make_layout(list(zip(lhs_ins, lparts)), out_spec, lflats)
    return {"lhs": lhs, "rhs": rhs}


def gen_iac_errors(rng, C):
    # image not covered
    for _ in range(45):
        out_spec = pick_out_spec_iac(rng)
        _, T = offsets(out_spec)
        if T == 0:
            out_spec = [(out_spec[0][0], 8)]
            T = 3
        R = rng.randint(1, T + 2)
        rflats = gen_flats(rng, R, list(range(T)), surj_p=0.0)
        piv = echelon(rflats)
        if len(piv) == T:  # surjective: drop a random unit
            rflats = [v & ~(1 << rng.randrange(T)) for v in rflats]
            piv = echelon(rflats)
        outside = None
        for _ in range(100):
            v = rng.getrandbits(T)
            if not in_span(v, piv):
                outside = v
                break
        if outside is None:
            continue
        rhs = make_layout([("offset", R)], out_spec, rflats)
        lins = ordered_subset(rng, IN_ORDER, 1, 3)
        nl = rng.randint(1, 5)
        lflats = [0] * nl
        basis = list(piv.values())
        for i in range(nl):
            for u in basis:
                if rng.random() < 0.5:
                    lflats[i] ^= u
        lflats[rng.randrange(nl)] ^= outside if rng.random() < 0.5 else 0
        if all(in_span(v, piv) for v in lflats):
            lflats[rng.randrange(nl)] = outside
        lhs = make_layout(list(zip(lins, split_bits(rng, nl, len(lins)))), out_spec, lflats)
        C.add({"lhs": lhs, "rhs": rhs}, "error: lhs image not covered")
    # lhs codomain larger than rhs
    for _ in range(20):
        out_spec = pick_out_spec_iac(rng)
        k = rng.randrange(len(out_spec))
        big = [(n, s * (2 ** rng.randint(1, 2)) if i == k else s)
               for i, (n, s) in enumerate(out_spec)]
        _, T = offsets(out_spec)
        rhs = make_layout([("offset", T)], out_spec, gen_flats(rng, T, list(range(T)), surj_p=1))
        _, TB = offsets(big)
        lhs = make_layout([("register", min(TB, 6))], big,
                          gen_flats(rng, min(TB, 6), list(range(TB))))
        C.add({"lhs": lhs, "rhs": rhs}, "error: lhs codomain larger")
    # mismatched out-dim names
    for t in range(12):
        out_spec = pick_out_spec_iac(rng)
        _, T = offsets(out_spec)
        rhs = make_layout([("offset", T)], out_spec, gen_flats(rng, T, list(range(T)), surj_p=1))
        if t % 3 == 0:
            lo = [("q" if i == 0 else n, s) for i, (n, s) in enumerate(out_spec)]
        elif t % 3 == 1:
            lo = out_spec + [("extra", 4)]
        else:
            lo = out_spec[:-1] if len(out_spec) > 1 else [("other", out_spec[0][1])]
        _, TL = offsets(lo)
        lhs = make_layout([("register", min(TL, 4))], lo, gen_flats(rng, min(TL, 4), list(range(TL))))
        C.add({"lhs": lhs, "rhs": rhs}, "error: mismatched out-dim names")
    # rhs with 29..33 input bits (31+ hits Triton's int32 flattening limit)
    for nb, split in [(n, s) for n in (29, 30, 31, 32, 33) for s in (False, True)]:
        out_spec = [("dim0", 1 << 10), ("dim1", 1 << 10), ("dim2", 1 << 10)]
        T = 30
        rflats = gen_flats(rng, nb, list(range(T)), surj_p=1)
        ins = [("offset", nb - 2), ("block", 2)] if split else [("offset", nb)]
        rhs = make_layout(ins, out_spec, rflats)
        basis = restricted_basis(rflats, [])
        lflats = [rng.choice(basis) for _ in range(8)]
        lhs = make_layout([("register", 4), ("lane", 4)], out_spec, lflats)
        C.add({"lhs": lhs, "rhs": rhs}, "rhs with %d input bits" % nb)
    # identity heuristic removes dims from a >30-bit rhs
    out_spec = [("dim0", 1 << 10), ("dim1", 1 << 10), ("dim2", 1 << 10)]
    rflats = gen_flats(rng, 28, list(range(30)), surj_p=1)
    blk = [0, 0, 0, 0]
    rhs = make_layout([("offset", 28), ("block", 4)], out_spec, rflats + blk)
    basis = restricted_basis(rflats, [])
    lhs = make_layout([("register", 6), ("block", 4)], out_spec,
                      [rng.choice(basis) for _ in range(6)] + blk)
    C.add({"lhs": lhs, "rhs": rhs}, "32-bit rhs, 4 of them an equal broadcast block dim")
    # augmented matrix wider than 64 columns
    for nb, nl in [(33, 33), (30, 35), (32, 33)]:
        rflats = gen_flats(rng, nb, list(range(30)), surj_p=1)
        rhs = make_layout([("offset", nb)], out_spec, rflats)
        basis = restricted_basis(rflats, [])
        lhs = make_layout([("register", nl)], out_spec, [rng.choice(basis) for _ in range(nl)])
        C.add({"lhs": lhs, "rhs": rhs}, "%d+%d columns" % (nb, nl))


def gen_invert_and_compose(rng):
    C = Cases("invert_and_compose")
    iac_reference_cases(C)
    for _ in range(1300):
        args, note, _ = gen_iac_random(rng)
        C.add(args, note)
    for _ in range(60):
        args, note, _ = gen_iac_random(rng, big=True)
        C.add(args, ("large; " + note) if note else "large")
    for _ in range(180):
        C.add(gen_iac_tiny(rng), "tiny")
    # pseudoinvert-style: lhs = identity over rhs out dims
    for _ in range(40):
        out_spec = pick_out_spec_iac(rng)
        _, T = offsets(out_spec)
        R = min(30, T + rng.randint(0, 3))
        rhs = make_layout([("offset", R)], out_spec, gen_flats(rng, R, list(range(T)), surj_p=1))
        lhs = {"bases": [[n, [[(1 << i) if m == n else 0 for m, _ in out_spec]
                              for i in range(lg(s))]] for n, s in out_spec],
               "out_dims": [[n, s] for n, s in out_spec]}
        C.add({"lhs": lhs, "rhs": rhs}, "identity lhs (pseudoinverse)")
    gen_iac_errors(rng, C)
    return C


# ---------------------------- invert / pseudoinvert ------------------------


def gen_invert(rng):
    C = Cases("invert")
    C.add({"layout": EMPTY}, "empty")
    C.add({"layout": lay_identity(8, "i", "o")}, "identity")
    C.add({"layout": {"bases": [["i", [[3], [2], [4], [8]]]], "out_dims": [["o", 16]]}},
          "swizzle")
    for t in range(110):
        outs = ordered_subset(rng, OUT_ORDER if rng.random() < 0.7 else ["offset"])
        out_spec = [(o, 1 << rng.randint(0, 5)) for o in outs]
        _, T = offsets(out_spec)
        ins = rng.choice([["offset"], ["register", "lane", "warp"], ["register", "lane"],
                          ["offset", "block"], ["i"]])
        parts = split_bits(rng, T, len(ins))
        flats = [1 << b for b in range(T)]
        rng.shuffle(flats)
        for _ in range(rng.randint(0, 2 * T)):
            if T >= 2:
                i, j = rng.sample(range(T), 2)
                flats[i] ^= flats[j]
        C.add({"layout": make_layout(list(zip(ins, parts)), out_spec, flats)})
    for t in range(20):
        out_spec = [(o, 1 << rng.randint(1, 4)) for o in ordered_subset(rng, OUT_ORDER)]
        _, T = offsets(out_spec)
        kind = t % 3
        if kind == 0:  # square, singular
            flats = gen_flats(rng, T, list(range(T)), surj_p=0.0)
            if rank(flats) == T:
                flats[0] = 0
            note = "singular"
        elif kind == 1:  # more inputs than outputs (surjective)
            flats = gen_flats(rng, T + rng.randint(1, 2), list(range(T)), surj_p=1)
            note = "non-square (surjective, not injective)"
        else:
            flats = gen_flats(rng, max(0, T - rng.randint(1, 2)), list(range(T)), surj_p=1)
            note = "non-square (injective, not surjective)"
        C.add({"layout": make_layout([("offset", len(flats))], out_spec, flats)}, note)
    return C


def gen_pseudoinvert(rng):
    C = Cases("pseudoinvert")
    C.add({"layout": {"bases": [["i", [[0], [1], [1], [2]]]], "out_dims": [["o", 4]]}},
          "ref ex 5")
    C.add({"layout": lay_zeros(4, "i", "o")}, "ref ex 5: zeros1D(4)")
    C.add({"layout": EMPTY}, "empty")
    C.add({"layout": {"bases": [["i", [[1]]]], "out_dims": [["i", 2]]}}, "same names")
    for t in range(330):
        outs = ordered_subset(rng, OUT_ORDER if rng.random() < 0.8 else ["x", "offset"])
        out_spec = [(o, 1 << rng.randint(0, 7)) for o in outs]
        _, T = offsets(out_spec)
        R = min(30, T + rng.choice([0, 0, 1, 2, 3, 5]))
        ins = rng.choice([["offset"], ["register", "lane", "warp"], ["register", "lane", "warp", "block"],
                          ["offset", "block"], ["i"]])
        parts = split_bits(rng, R, len(ins))
        if rng.random() < 0.15:
            flats = gen_swizzle_flats(rng, out_spec, R)
            note = "swizzle"
        else:
            flats = gen_flats(rng, R, list(range(T)), surj_p=1.0)
            note = None
        C.add({"layout": make_layout(list(zip(ins, parts)), out_spec, flats)}, note)
    for t in range(25):
        out_spec = [(o, 1 << rng.randint(1, 5)) for o in ordered_subset(rng, OUT_ORDER)]
        _, T = offsets(out_spec)
        flats = gen_flats(rng, rng.randint(0, T + 2), list(range(T)), surj_p=0.0)
        if rank(flats) == T:
            flats = [v & ~1 for v in flats]
        C.add({"layout": make_layout([("offset", len(flats))], out_spec, flats)},
              "error: not surjective")
    return C


# ---------------------------------- apply ----------------------------------


def gen_apply(rng):
    C = Cases("apply")
    C.add({"layout": lay_identity(4, "i", "o"), "inputs": [["i", 5]]}, "high bits ignored")
    C.add({"layout": lay_identity(4, "i", "o"), "inputs": [["j", 1]]}, "wrong name")
    C.add({"layout": {"bases": [["reg", [[1, 0], [0, 1], [2, 0]]], ["lane", [[0, 2], [2, 2]]]],
                      "out_dims": [["x", 4], ["y", 4]]},
           "inputs": [["reg", 7], ["lane", 3]]}, "ref ex 2")
    C.add({"layout": EMPTY, "inputs": []}, "empty")
    for t in range(230):
        ins = ordered_subset(rng, IN_ORDER if rng.random() < 0.8 else ["offset", "block"])
        out_spec = rand_out_spec(rng, max_lg=8 if rng.random() < 0.8 else 12)
        in_spec = [(i, rng.randint(0, 6)) for i in ins]
        lay = rand_layout(rng, in_spec, out_spec, surj_p=0.6)
        inputs = [[n, rng.randrange(1 << nb)] for n, nb in in_spec]
        note = None
        r = rng.random()
        if r < 0.07:
            k = rng.randrange(len(inputs))
            inputs[k][1] = (1 << in_spec[k][1]) * rng.randint(1, 1000) + inputs[k][1]
            note = "value above in-dim size"
        elif r < 0.1:
            k = rng.randrange(len(inputs))
            inputs[k][1] = (1 << 31) - 1 - rng.randrange(1 << 10)
            note = "value near 2^31"
        elif r < 0.12:
            k = rng.randrange(len(inputs))
            inputs[k][1] = -rng.randint(1, 100)
            note = "negative value"
        elif r < 0.16:
            inputs.pop(rng.randrange(len(inputs)))
            note = "missing in-dim"
        elif r < 0.2:
            inputs.insert(rng.randint(0, len(inputs)), ["bogus", rng.randint(0, 3)])
            note = "extra in-dim"
        if rng.random() < 0.3:
            rng.shuffle(inputs)
        C.add({"layout": lay, "inputs": inputs}, note)
    return C


# --------------------------------------------------------------------------
# Python-side sanity checks of Triton's answers (informational)
# --------------------------------------------------------------------------


def check_case(op, args, res):
    """Return None if consistent, else a description."""
    if op == "invert_and_compose":
        Bl, Al, Cl = args["lhs"], args["rhs"], res["layout"]
        for name, bs in Bl["bases"]:
            for i, b in enumerate(bs):
                c = apply_layout(Cl, [[name, 1 << i]])
                a = apply_layout(Al, list(c.items()))
                bb = dict(zip([n for n, _ in Bl["out_dims"]], b))
                if any(a[n] != bb[n] for n in bb):
                    return "A(C(%s=%d)) = %r != B = %r" % (name, 1 << i, a, bb)
    elif op == "compose":
        L, O, R = args["lhs"], args["rhs"], res["layout"]
        for (name, bs), (name2, rbs) in zip(L["bases"], R["bases"]):
            for b, rb in zip(bs, rbs):
                o = apply_layout(O, list(zip([n for n, _ in L["out_dims"]], b)))
                if [o[n] for n, _ in R["out_dims"]] != rb:
                    return "compose mismatch"
    elif op in ("pseudoinvert", "invert"):
        L, P = args["layout"], res["layout"]
        for name, bs in P["bases"]:
            for i in range(len(bs)):
                p = apply_layout(P, [[name, 1 << i]])
                y = apply_layout(L, list(p.items()))
                want = {n: (1 << i if n == name else 0) for n, _ in L["out_dims"]}
                if y != want:
                    return "L(P(y)) != y"
    elif op == "product":
        Lh, Rh, P = args["lhs"], args["rhs"], res["layout"]
        lsz, rsz = dict(Lh["out_dims"]), dict(Rh["out_dims"])
        outs = [n for n, _ in P["out_dims"]]
        want_sizes = {n: lsz.get(n, 1) * rsz.get(n, 1) for n in outs}
        if dict(P["out_dims"]) != want_sizes or sorted(outs) != sorted(set(lsz) | set(rsz)):
            return "product out dims"
        want = {}
        for lay, shift in ((Lh, False), (Rh, True)):
            names = [n for n, _ in lay["out_dims"]]
            for d, bs in lay["bases"]:
                want.setdefault(d, [])
                for b in bs:
                    v = dict(zip(names, b))
                    want.setdefault(d, []).append(
                        [(v.get(n, 0) * (lsz.get(n, 1) if shift else 1)) for n in outs])
        if {d: bs for d, bs in P["bases"]} != want:
            return "product bases"
    elif op == "apply":
        L = args["layout"]
        got = dict(res["outputs"])
        inp = [[n, v & ((1 << len(bs)) - 1)] for (n, v) in args["inputs"]
               for (m, bs) in L["bases"] if m == n]
        if apply_layout(L, inp) != got:
            return "apply differs from masked python apply"
    return None


# --------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------


def write_file(path, op, cases):
    head = {"generator": GENERATOR, "triton_version": TRITON_VERSION, "seed": SEED, "op": op}
    text = json.dumps(head, separators=(", ", ": "))[:-1] + ', "cases": [\n'
    text += ",\n".join(json.dumps(c, separators=(",", ":")) for c in cases)
    text += "\n]}\n"
    json.loads(text)  # self-check
    with open(path, "w") as f:
        f.write(text)
    return len(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=os.path.join(
        os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "linear-layout", "tests", "data", "triton_ll"))
    ap.add_argument("--python", default=sys.executable,
                    help="interpreter with triton==3.9.0 installed (for the worker)")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    opts = ap.parse_args()
    if opts.worker:
        worker_main()
        return

    t0 = time.time()
    gens = [
        ("from_bases", gen_from_bases),
        ("identity_1d", lambda r: gen_1d(r, "identity_1d")),
        ("strided_1d", lambda r: gen_1d(r, "strided_1d")),
        ("zeros_1d", lambda r: gen_1d(r, "zeros_1d")),
        ("product", gen_product),
        ("compose", gen_compose),
        ("invert_and_compose", gen_invert_and_compose),
        ("invert", gen_invert),
        ("pseudoinvert", gen_pseudoinvert),
        ("apply", gen_apply),
    ]
    os.makedirs(opts.out, exist_ok=True)
    worker = Worker(opts.python, __file__)
    # check the Triton version once
    ver = subprocess.run([opts.python, "-c", "import triton; print(triton.__version__)"],
                         capture_output=True, text=True).stdout.strip()
    if ver != TRITON_VERSION:
        print("WARNING: triton version is %r, expected %s" % (ver, TRITON_VERSION))
    summary = []
    try:
        for op, gen in gens:
            rng = random.Random("%d:%s" % (SEED, op))
            cases_in = gen(rng)
            cases, nerr, nbad, pyerr = [], 0, [], 0
            for idx, (args, note) in enumerate(cases_in.items):
                res = worker.run(op, args)
                case = {"id": "%s/%05d" % (op, idx), "args": args, "expect": res}
                if note:
                    case["note"] = note
                if "error" in res:
                    nerr += 1
                    if not res["error"].startswith(("LLVM ERROR", "/")):
                        pyerr += 1
                else:
                    bad = check_case(op, args, res["ok"])
                    if bad:
                        nbad.append((case["id"], bad))
                cases.append(case)
            size = write_file(os.path.join(opts.out, op + ".json"), op, cases)
            summary.append((op, len(cases), nerr, pyerr, len(nbad), size))
            for cid, bad in nbad[:5]:
                print("  check mismatch %s: %s" % (cid, bad))
    finally:
        worker.close()
    print("%-20s %6s %6s %8s %8s %9s" % ("op", "cases", "errors", "py-exc", "mismatch", "bytes"))
    for op, n, e, pe, b, s in summary:
        print("%-20s %6d %6d %8d %8d %9d" % (op, n, e, pe, b, s))
    print("total cases %d, errors %d, worker restarts %d, %.1fs" % (
        sum(x[1] for x in summary), sum(x[2] for x in summary), worker.restarts,
        time.time() - t0))


if __name__ == "__main__":
    main()
