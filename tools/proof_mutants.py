#!/usr/bin/env python3
"""The every-trip-count proof against the sweep, on seeded bugs in real TLX kernels.

Two independent judgements of one mutant: ``linalias check M --sweep`` (the static check at one
trip count per residue of the period) and ``linalias check M --every-trip-count`` (the explorer
on the loop run forever). The mutants are ``tools/hazard_mutants.py``'s, of the kernels named
(by default the real kernels the proof verifies unmutated). Each mutant is counted by the
proof's exit code — 0 verified at every trip count, 1 some trip count goes wrong, 3 not decided
(the model refused, or the explorer stopped) — and compared with the sweep:

* **disagreement**: the sweep flags a hazard or protocol fault and the proof verifies every
  trip count — one of the two is wrong; the tool lists it and exits 1;
* **proof only**: the proof finds a trip count that goes wrong and the sweep flags nothing
  (a hang or race past the swept trip counts, or one the static check does not model) —
  listed for review.

Usage:
  tools/proof_mutants.py [--linalias target/release/linalias] [--stride N] [--timeout S]
                         [--tiles NAME=V[,V...]] [--baseline OTHER_LINALIAS] [KERNEL ...]

``--stride N`` keeps every N-th mutant of each operator (all by default); ``--timeout S`` is
the seconds one command may take (90 by default). ``--tiles N_CTX=256,512`` judges persistent
kernels (by default the one the tile proof verifies unmutated) by ``--every-tile-count`` at
each K-loop bound given instead (wrong where one of them is): every tile count at those K,
where the sweep runs tiles and K together — a mutant wrong only at another K is flagged by
the sweep alone, not a contradiction; the disagreements are listed for review all the same.
``--baseline OTHER`` judges each mutant by the same proof run by another build (the binary
before a change to the explorer) instead of the sweep: the columns "sweep" then read
"baseline", and a disagreement is any mutant both decide differently (0 against 1).
"""

import argparse
import concurrent.futures
import os
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import hazard_mutants as hm  # noqa: E402

PROVED = ["cross_attention", "cross_attention_m64", "cross_attention_pipeline",
          "cross_attention_pipeline_n64", "fa_ws_legacy_reuse", "fa_ws_pipelined",
          "fa_bwd_1cta", "fa_bwd_1cta_hd64", "fa_bwd_1cta_warp_barrier", "triple_gemm_multiphase"]
TILED = ["fa_ws_persistent"]
TIMEOUT = 90  # seconds a command may take (--timeout) before its mutant counts as not decided


def code(linalias, path, timeout, *extra):
    try:
        r = subprocess.run([linalias, "check", str(path), *extra], capture_output=True,
                           text=True, timeout=timeout)
        return r.returncode
    except subprocess.TimeoutExpired:
        return "timeout"


def prove(linalias, name, timeout, proof):
    # Several proofs (--tiles at several K): wrong if one is, else undecided if one is.
    codes = [code(linalias, name, timeout, *p) for p in proof]
    return 1 if 1 in codes else next((c for c in codes if c != 0), 0)


def judge(linalias, mutated, tmp, timeout, proof, baseline):
    fd, name = tempfile.mkstemp(suffix=".mlir", dir=tmp)
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(mutated))
    if baseline:
        swept = prove(baseline, name, timeout, proof)
    else:
        swept = code(linalias, name, timeout, "--sweep")
    proved = 2
    if swept != 2:
        proved = prove(linalias, name, timeout, proof)
    os.unlink(name)
    return swept, proved


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linalias", default=str(hm.ROOT / "target/release/linalias"))
    ap.add_argument("--stride", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=TIMEOUT,
                    help="seconds a command may take (default %(default)s)")
    ap.add_argument("--tiles", metavar="NAME=V[,V...]",
                    help="judge by --every-tile-count --param NAME=V at each V (persistent kernels)")
    ap.add_argument("--baseline", metavar="OTHER_LINALIAS",
                    help="judge by the same proof run by this build instead of the sweep")
    ap.add_argument("kernels", nargs="*")
    a = ap.parse_args()
    kernels = a.kernels or (TILED if a.tiles else PROVED)
    if a.tiles:
        name, values = a.tiles.split("=", 1)
        proof = [["--every-tile-count", "--param", f"{name}={v}"] for v in values.split(",")]
    else:
        proof = [["--every-trip-count"]]
    rows = defaultdict(Counter)
    disagree, only = [], []
    jobs = []
    with tempfile.TemporaryDirectory() as tmp, \
            concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for kernel in kernels:
            lines = (hm.KERNELS / kernel / "before.mlir").read_text().split("\n")
            seen = Counter()
            for opname, j, mutated in hm.mutants(lines):
                if hm.equivalent(opname, lines[j]):
                    continue
                seen[opname] += 1
                if (seen[opname] - 1) % a.stride:
                    continue
                site = (opname, kernel, j + 1, lines[j].strip().split(" loc(")[0][:100])
                jobs.append((site, pool.submit(judge, a.linalias, mutated, tmp, a.timeout, proof,
                                                    a.baseline)))
        for k, (site, future) in enumerate(jobs):
            swept, proved = future.result()
            judged = "baseline" if a.baseline else "sweep"
            print(f"[{k + 1}/{len(jobs)}] {site[0]} {site[1]}:{site[2]}: {judged} {swept}, proof {proved}",
                  file=sys.stderr, flush=True)
            row = rows[site[0]]
            if swept == 2:
                row["invalid"] += 1
                continue
            row["mutants"] += 1
            row[f"sweep {swept}"] += 1
            row[f"proof {proved}"] += 1
            if (swept == 1 and proved == 0) or (a.baseline and swept == 0 and proved == 1):
                disagree.append(site)
            if proved == 1 and swept != 1:
                only.append(site + (swept,))
    judge_by = "baseline: goes wrong (1)" if a.baseline else "sweep flags (1)"
    out = [f"| operator | mutants | {judge_by} | proof: goes wrong (1) | proof: verified (0) "
           "| proof: not decided (3) | disagreements |", "|---|---|---|---|---|---|---|"]
    total = Counter()
    for op in hm.OPERATORS:
        r = rows.get(op)
        if not r:
            continue
        total.update(r)
        d = sum(1 for s in disagree if s[0] == op)
        out.append(f"| {op} | {r['mutants']} | {r['sweep 1']} | {r['proof 1']} | {r['proof 0']} | "
                   f"{r['proof 3'] + r['proof timeout']} | {d} |")
    out.append(f"| all | {total['mutants']} | {total['sweep 1']} | {total['proof 1']} | "
               f"{total['proof 0']} | {total['proof 3'] + total['proof timeout']} | {len(disagree)} |")
    titles = (("Disagreements (the baseline decides otherwise)", "Refuted by this build alone")
              if a.baseline else
              ("Disagreements (the sweep flags, the proof verifies)", "Found by the proof alone"))
    for title, items in zip(titles, (disagree, only)):
        if items:
            out += ["", f"{title}:", ""]
            out += [f"- {s[0]}, {s[1]} line {s[2]}: `{s[3]}`" + (f" (sweep exit {s[4]})" if len(s) > 4 else "")
                    for s in items]
    print("\n".join(out))
    return 1 if disagree else 0


if __name__ == "__main__":
    sys.exit(main())
