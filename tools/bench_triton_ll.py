#!/usr/bin/env python3
"""Benchmark Triton 3.9's LinearLayout on the layouts of ``benches/algebra.rs``.

The Rust benchmark (``cargo bench --bench algebra``) and this script time the
same operations on *the same* layouts: this script generates them
deterministically (own xorshift64* PRNG, fixed ``SEED``) and writes them, with
Triton's results for each operation, to ``benches/data/bench_layouts.json``;
the Rust benchmark embeds that file (``include_str!``), rebuilds the layouts
and checks its own results against Triton's before timing anything.

How to run (no GPU needed; Triton 3.9.0 in ``/root/tritonvenv``)::

    # (re)write benches/data/bench_layouts.json -- only when the layouts change
    /root/tritonvenv/bin/python tools/bench_triton_ll.py --write-layouts

    # time Triton on the committed layouts (default)
    /root/tritonvenv/bin/python tools/bench_triton_ll.py [--repeat 7] [--markdown]

Layouts, for N in 10, 20, 30 (and 32, 96 for the Rust-only cases):

* ``dist``   -- register/lane/warp(/block) -> (dim0, dim1): a random invertible
  GF(2) matrix (every column a random N-bit vector, redrawn while dependent
  on the previous ones); dim0 gets the low N//2 output bits, dim1 the rest.
* ``shared`` -- offset -> (dim0, dim1), same out sizes, another random
  invertible matrix (a dense "swizzle"); at 96 bits the input is split into
  offset (48 bits) and buffer (48 bits) since one dim holds at most 63 bits.
* ``outer``  -- (dim0, dim1) -> (dim0, dim1), random invertible, so that
  ``shared.compose(outer)`` is valid.

Timed operations (the Rust bench times the same calls):

* ``compose``            -- ``shared.compose(outer)``
* ``invert_and_compose`` -- ``dist.invert_and_compose(shared)``
* ``pseudoinvert``       -- ``shared.pseudoinvert()``
* ``apply``              -- ``cvt.apply({register: r, lane: l, ...})`` with
  ``cvt = dist.invert_and_compose(shared)``, one call with a fixed input.

Triton aborts on layouts wider than 30 input bits for ``invert_and_compose``
(its bases are ``int32``), so N = 32 and N = 96 are generated for the Rust
benchmark only and carry no Triton results.

Each op is timed with ``timeit`` (``autorange`` picks the loop count, >= 0.2 s
per run; best of ``--repeat`` runs).  Python-to-C++ binding overhead is
estimated with no-op calls of the same shape -- ``a == o`` (one layout
argument, layouts with different in-dims, so the C++ comparison stops at
once) for the one-argument ops, ``a.is_surjective()`` (a cached flag) for
``pseudoinvert`` -- and subtracted to give the *net* time.  Wrapping the
returned layout in a new Python object is *not* subtracted (it is part of
the net figure); ``LL.identity_1d(1, ...)`` is printed as a rough bound on it.
"""

import argparse
import json
import os
import platform
import sys
import timeit

SEED = 0x9E3779B97F4A7C15
GENERATOR = "tools/bench_triton_ll.py"
TRITON_VERSION = "3.9.0"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LAYOUTS = os.path.join(ROOT, "benches", "data", "bench_layouts.json")

# N -> in-dims of the distributed layout (name, bits); bits sum to N.
DIST_DIMS = {
    10: [("register", 3), ("lane", 5), ("warp", 2)],
    20: [("register", 8), ("lane", 5), ("warp", 3), ("block", 4)],
    30: [("register", 16), ("lane", 5), ("warp", 5), ("block", 4)],
    32: [("register", 18), ("lane", 5), ("warp", 5), ("block", 4)],
    96: [("register", 40), ("lane", 5), ("warp", 5), ("block", 46)],
}
SHARED_DIMS = {n: [("offset", n)] for n in (10, 20, 30, 32)}
SHARED_DIMS[96] = [("offset", 48), ("buffer", 48)]
TRITON_SIZES = (10, 20, 30)  # Triton's invert_and_compose aborts above 30 bits
OPS = ("compose", "invert_and_compose", "pseudoinvert")


class XorShift64:
    """xorshift64* (Marsaglia's xorshift64 (13, 7, 17) state, Vigna's multiplicative output).

    The multiply matters: plain xorshift output is GF(2)-linear in its 64-bit state, so any
    number of its 96-bit draws spans at most 64 dimensions and no 96-bit invertible matrix
    could ever be drawn from it.
    """

    MASK = (1 << 64) - 1
    MUL = 0x2545F4914F6CDD1D

    def __init__(self, seed):
        self.s = seed & self.MASK or 1

    def next(self):
        s = self.s
        s ^= (s << 13) & self.MASK
        s ^= s >> 7
        s ^= (s << 17) & self.MASK
        self.s = s
        return (s * self.MUL) & self.MASK

    def bits(self, n):
        """A uniformly random n-bit integer (n may exceed 64)."""
        v, have = 0, 0
        while have < n:
            v |= self.next() << have
            have += 64
        return v & ((1 << n) - 1)


def random_invertible(rng, n):
    """n random n-bit columns, linearly independent over GF(2)."""
    pivots = {}  # lowest set bit -> reduced vector
    cols = []
    while len(cols) < n:
        v = rng.bits(n)
        w = v
        while w and (w & -w) in pivots:
            w ^= pivots[w & -w]
        if w:
            pivots[w & -w] = w
            cols.append(v)
    return cols


def layout_json(in_dims, out_dims, cols):
    """Columns (flattened out bits, LSB = first out-dim) -> Triton's from_bases JSON shape."""
    bases, i = [], 0
    for name, bits in in_dims:
        lst = []
        for c in cols[i:i + bits]:
            comps, sh = [], 0
            for _, ob in out_dims:
                comps.append((c >> sh) & ((1 << ob) - 1))
                sh += ob
            lst.append(comps)
        bases.append([name, lst])
        i += bits
    return {"bases": bases, "out_dims": [[name, 1 << b] for name, b in out_dims]}


def generate():
    rng = XorShift64(SEED)
    cases = {}
    for n in (10, 20, 30, 32, 96):
        outs = [("dim0", n // 2), ("dim1", n - n // 2)]
        cases[str(n)] = {
            "dist": layout_json(DIST_DIMS[n], outs, random_invertible(rng, n)),
            "shared": layout_json(SHARED_DIMS[n], outs, random_invertible(rng, n)),
            "outer": layout_json(outs, outs, random_invertible(rng, n)),
        }
    return cases


# ----------------------------------------------------------------------------
# Triton side
# ----------------------------------------------------------------------------


def ll_module():
    from triton._C.libtriton.linear_layout import LinearLayout as LL
    return LL


def build(LL, lay):
    return LL.from_bases(
        [(name, [list(b) for b in bs]) for name, bs in lay["bases"]],
        [name for name, _ in lay["out_dims"]],
        [size for _, size in lay["out_dims"]],
        True,
    )


def to_json(L):
    return {
        "bases": [[name, [list(map(int, b)) for b in bs]] for name, bs in L.bases],
        "out_dims": [[name, int(size)] for name, size in L.out_dims],
    }


def triton_results(LL, case):
    d, s, o = (build(LL, case[k]) for k in ("dist", "shared", "outer"))
    return {
        "compose": to_json(s.compose(o)),
        "invert_and_compose": to_json(d.invert_and_compose(s)),
        "pseudoinvert": to_json(s.pseudoinvert()),
    }


def write_layouts(path):
    import triton
    cases = generate()
    LL = ll_module()
    for n in TRITON_SIZES:
        cases[str(n)]["expect"] = triton_results(LL, cases[str(n)])
    doc = {
        "generator": GENERATOR,
        "triton_version": triton.__version__,
        "seed": SEED,
        "note": "dist/shared/outer per input width N; 'expect' = Triton's results "
                "(N <= 30 only: Triton aborts above 30 bits).",
        "cases": cases,
    }
    os.makedirs(os.path.dirname(path), exist_ok=True)
    # One layout per line: small, diffable.
    lines = ["{"]
    for k in ("generator", "triton_version", "seed", "note"):
        lines.append(f"  {json.dumps(k)}: {json.dumps(doc[k])},")
    lines.append('  "cases": {')
    ns = list(cases)
    for i, n in enumerate(ns):
        lines.append(f"    {json.dumps(n)}: {{")
        entries = [(k, cases[n][k]) for k in ("dist", "shared", "outer")]
        if "expect" in cases[n]:
            entries.append(("expect", cases[n]["expect"]))
        for j, (k, v) in enumerate(entries):
            if k == "expect":
                inner = ",\n".join(
                    f"        {json.dumps(op)}: {json.dumps(v[op], separators=(',', ':'))}" for op in OPS
                )
                body = "{\n" + inner + "\n      }"
            else:
                body = json.dumps(v, separators=(",", ":"))
            lines.append(f"      {json.dumps(k)}: {body}" + ("," if j + 1 < len(entries) else ""))
        lines.append("    }" + ("," if i + 1 < len(ns) else ""))
    lines.append("  }")
    lines.append("}")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    json.load(open(path))  # round-trip check
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def best_time(stmt, glb, repeat):
    """Best per-call seconds of `stmt` over `repeat` timeit runs of >= 0.2 s each."""
    t = timeit.Timer(stmt, globals=glb)
    number, _ = t.autorange()
    return min(t.repeat(repeat=repeat, number=number)) / number


def run_benchmarks(path, repeat, markdown):
    import triton
    LL = ll_module()
    doc = json.load(open(path))
    stored = {n: {k: v for k, v in c.items() if k != "expect"} for n, c in doc["cases"].items()}
    if stored != generate():
        sys.exit(f"{path} does not match this script's generator; rerun with --write-layouts")
    print(f"Triton {triton.__version__}, Python {platform.python_version()}, "
          f"best of {repeat} timeit runs (>= 0.2 s each)")

    rows = []
    for n in TRITON_SIZES:
        case = doc["cases"][str(n)]
        d, s, o = (build(LL, case[k]) for k in ("dist", "shared", "outer"))
        # Same results as recorded (same layouts, same Triton).
        assert triton_results(LL, case) == case["expect"], f"N={n}: Triton results differ from {path}"
        cvt = d.invert_and_compose(s)
        inputs = {name: (1 << len(bs)) - 1 - (len(bs) > 1) for name, bs in cvt.bases}
        g = {"d": d, "s": s, "o": o, "cvt": cvt, "inputs": inputs, "LL": LL}
        one_arg = best_time("s == o", g, repeat)
        zero_arg = best_time("s.is_surjective()", g, repeat)
        new_obj = best_time("LL.identity_1d(1, 'offset', 'dim0')", g, repeat)
        timed = [
            ("compose", "s.compose(o)", one_arg),
            ("invert_and_compose", "d.invert_and_compose(s)", one_arg),
            ("pseudoinvert", "s.pseudoinvert()", zero_arg),
            ("apply", "cvt.apply(inputs)", one_arg),
        ]
        for op, stmt, overhead in timed:
            raw = best_time(stmt, g, repeat)
            rows.append((op, n, raw, overhead, raw - overhead, new_obj))

    w = max(len(r[0]) for r in rows) + 4
    print(f"{'op':<{w}}{'N':>4}{'raw us':>11}{'binding us':>12}{'net us':>11}{'new-LL us':>11}")
    for op, n, raw, ov, net, new_obj in rows:
        print(f"{op:<{w}}{n:>4}{raw * 1e6:>11.3f}{ov * 1e6:>12.3f}{net * 1e6:>11.3f}{new_obj * 1e6:>11.3f}")
    print("binding = no-op call of the same shape ('s == o' with different in-dims for one-argument ops,\n"
          "'s.is_surjective()' for pseudoinvert); net = raw - binding; new-LL = LL.identity_1d(1, ...),\n"
          "a rough bound on wrapping a returned layout (not subtracted).")
    if markdown:
        print()
        print("| op | N | Triton raw (µs) | binding (µs) | Triton net (µs) |")
        print("|---|---:|---:|---:|---:|")
        for op, n, raw, ov, net, _ in rows:
            print(f"| {op} | {n} | {raw * 1e6:.3f} | {ov * 1e6:.3f} | {net * 1e6:.3f} |")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--write-layouts", action="store_true",
                    help=f"generate the layouts and Triton's results and write {os.path.relpath(LAYOUTS, ROOT)}")
    ap.add_argument("--layouts", default=LAYOUTS, help="layouts JSON (default: %(default)s)")
    ap.add_argument("--repeat", type=int, default=7, help="timeit runs per op; the best is kept")
    ap.add_argument("--markdown", action="store_true", help="also print a Markdown table")
    args = ap.parse_args()
    if args.write_layouts:
        write_layouts(args.layouts)
    else:
        run_benchmarks(args.layouts, args.repeat, args.markdown)


if __name__ == "__main__":
    main()
