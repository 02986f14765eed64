#!/usr/bin/env python3
"""The Python bindings' overhead (issue #26): ``linalias.LinearLayout`` against
``triton.tools.LinearLayout`` (Triton 3.9.0) on the layouts of ``benches/algebra.rs``
(``benches/data/bench_layouts.json``), in one process, plus the binding's fixed cost (a call
that does no work: the ``num_in_dims`` property).

How to run (the wheel and Triton in one venv, e.g. ``tools/python_tests.sh``'s)::

    .ci/pyvenv/bin/python tools/bench_python.py [--repeat 7] [--markdown]

Each figure is the best of ``--repeat`` runs of ``timeit`` (auto-ranged), in µs per call.
Both sides are checked to give the recorded result before anything is timed.
"""

import argparse
import json
import pathlib
import timeit

import linalias
from triton.tools import LinearLayout as TritonLL

DATA = pathlib.Path(__file__).resolve().parents[1] / "benches" / "data" / "bench_layouts.json"


def build(cls, v):
    return cls.from_bases([(d, b) for d, b in v["bases"]], [d for d, _ in v["out_dims"]],
                          [s for _, s in v["out_dims"]], False)


def best_us(stmt, repeat):
    timer = timeit.Timer(stmt)
    n, _ = timer.autorange()
    return min(timer.repeat(repeat=repeat, number=n)) / n * 1e6


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=7)
    ap.add_argument("--markdown", action="store_true")
    args = ap.parse_args()
    cases = json.loads(DATA.read_text())["cases"]
    rows = []
    fixed = None
    for n in ("10", "20", "30"):
        c = cases[n]
        ours = {k: build(linalias.LinearLayout, c[k]) for k in ("dist", "shared", "outer")}
        theirs = {k: build(TritonLL, c[k]) for k in ("dist", "shared", "outer")}
        ops = {
            "compose": (lambda l: l["shared"].compose(l["outer"])),
            "invert_and_compose": (lambda l: l["dist"].invert_and_compose(l["shared"])),
            "pseudoinvert": (lambda l: l["shared"].pseudoinvert()),
        }
        for op, f in ops.items():
            want = c["expect"][op]
            got = f(ours)
            assert [[d, b] for d, b in got.bases] == want["bases"], (op, n)
            assert [[d, b] for d, b in f(theirs).bases] == want["bases"], (op, n)
            t_ours = best_us(lambda: f(ours), args.repeat)
            t_theirs = best_us(lambda: f(theirs), args.repeat)
            rows.append((op, n, t_ours, t_theirs))
        if fixed is None:
            l = ours["shared"]
            fixed = best_us(lambda: l.num_in_dims, args.repeat)
    if args.markdown:
        print("| op | bits | linalias (Python) µs | Triton 3.9 (Python) µs | speedup |")
        print("|---|---:|---:|---:|---:|")
        for op, n, a, b in rows:
            print(f"| `{op}` | {n} | {a:.3f} | {b:.3f} | {b / a:.1f}× |")
        print(f"\nBinding fixed cost (`num_in_dims`, a call that does no work): {fixed:.3f} µs")
    else:
        for op, n, a, b in rows:
            print(f"{op:20s} {n:>3s}  linalias {a:8.3f} µs  triton {b:8.3f} µs  {b / a:5.1f}x")
        print(f"fixed cost {fixed:.3f} µs")


if __name__ == "__main__":
    main()
