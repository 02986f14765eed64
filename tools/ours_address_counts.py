#!/usr/bin/env python3
"""Benchmark (1) of issue 5, our side: shared-address instruction counts of the
PTX ``linalias ptx`` emits for the same (register layout, shared layout) pairs
that ``tools/triton_address_counts.py`` compiled with Triton 3.9, counted with
the same counter (``tools/ptx_address_count.py``), side by side with Triton's.

How to run (no Triton, no GPU; Python 3.8+ and a built ``linalias``)::

    cargo build --release --bin linalias
    python3 tools/ours_address_counts.py [--linalias PATH] [--markdown] [--only NAME,...]

``--linalias`` defaults to ``$CARGO_TARGET_DIR`` (else ``target``) ``/release/linalias``.

Reads ``benches/data/triton_address_counts.json`` and writes

* ``benches/data/ours_ptx/<pair>.ptx`` -- our kernel for the pair, exactly what
  the recorded ``linalias`` command prints (``tests/ptx_cli.rs`` re-runs every
  command, compares with these files, assembles them with ptxas for sm_90a and
  checks every address in the interpreter);
* ``benches/data/ours_address_counts.json`` -- per pair: the command, the
  layouts, our counts (the counter's full result) and Triton's.

Each pair is built from the pair's own MLIR attribute text, shape, dtype and
``num_warps``, in the pair's direction:

* ``store``     -- ``linalias ptx --regs SRC --mem SHARED --store``
* ``load``      -- ``linalias ptx --regs DST --mem SHARED --load``
* ``roundtrip`` -- ``linalias ptx --regs SRC --mem SHARED --round-trip DST``
* ``convert``   -- ``linalias ptx --regs SRC --mem auto --round-trip DST``: the
  scratch layout ``codegen::smem::optimal_scratch`` chooses (Triton's
  ``optimalSwizzling``), in its rounds.

Every command has ``--global``: like Triton's kernels, ours read the tile from
``in_ptr`` and write it to ``out_ptr`` (row-major tensors in global memory, the
same four ``.u64`` parameters, the same vector widths of global access) and keep
the data packed as loaded, so whole-kernel figures (SASS counts, instructions
executed on a GPU) compare the shared addressing and nothing else.  Constant
buffer index 0, one buffer, explicit lowering (no buffer arithmetic: Triton's
kernels have none either).  The kernels keep Triton's names (``store_kernel``...).
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import ptx_address_count  # noqa: E402

ROOT = os.path.dirname(HERE)
GENERATOR = "tools/ours_address_counts.py"
TRITON_JSON = os.path.join(ROOT, "benches", "data", "triton_address_counts.json")
OUT_JSON = os.path.join(ROOT, "benches", "data", "ours_address_counts.json")
OUT_PTX = os.path.join(ROOT, "benches", "data", "ours_ptx")

def command(p):
    """The ``linalias`` argv (without the program) for pair ``p``."""
    lay = p["layouts"]
    shape = "x".join(str(d) for d in p["shape"])
    args = ["ptx", "--shape", shape, "--dtype", p["dtype"], "--name", p["kernel_name"], "--global"]
    group = p["group"]
    if group == "store":
        args += ["--regs", lay["src"]["mlir"], "--mem", lay["shared"]["mlir"], "--store"]
    elif group == "load":
        args += ["--regs", lay["dst"]["mlir"], "--mem", lay["shared"]["mlir"], "--load"]
    elif group in ("transpose", "convert"):
        mem = "auto" if group == "convert" else lay["shared"]["mlir"]
        args += ["--regs", lay["src"]["mlir"], "--mem", mem, "--round-trip", lay["dst"]["mlir"]]
    else:
        raise ValueError("%s: unknown group %r" % (p["name"], group))
    return args


def _short_counts(c):
    return {k: c[k] for k in ("accesses", "accesses_by_opcode", "instructions", "per_access", "alu",
                              "by_opcode")}


def markdown(data):
    rows = ["| pair | Triton address instrs | ours | Triton shared accesses | ours | Δ address instrs | "
            "Triton shared bytes | ours |",
            "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for p in data["pairs"]:
        t, o = p["triton"], p["counts"]
        d = o["instructions"] - t["instructions"]
        rows.append("| `%s` | %d | %d | %d | %d | %+d (%+.0f %%) | %s | %d |" % (
            p["name"], t["instructions"], o["instructions"], t["accesses"], o["accesses"], d,
            100.0 * d / t["instructions"], p.get("triton_shared_bytes"), p["shared_bytes"]))
    tt = sum(p["triton"]["instructions"] for p in data["pairs"])
    to = sum(p["counts"]["instructions"] for p in data["pairs"])
    rows.append("| **total** | **%d** | **%d** | | | **%+d (%+.0f %%)** | | |" % (tt, to, to - tt, 100.0 * (to - tt) / tt))
    return "\n".join(rows)


def _default_linalias():
    target = os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target")
    return os.path.join(target, "release", "linalias")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--linalias", default=_default_linalias(), help="the linalias binary")
    ap.add_argument("--only", default=None, help="comma-separated pair names")
    ap.add_argument("--markdown", action="store_true", help="print the comparison table as Markdown")
    args = ap.parse_args()
    with open(TRITON_JSON) as f:
        triton = json.load(f)
    only = set(args.only.split(",")) if args.only else None
    os.makedirs(OUT_PTX, exist_ok=True)
    old = {}
    if only and os.path.exists(OUT_JSON):
        with open(OUT_JSON) as f:
            old = {p["name"]: p for p in json.load(f)["pairs"]}
    pairs = []
    for p in triton["pairs"]:
        if only and p["name"] not in only:
            if p["name"] in old:
                pairs.append(old[p["name"]])
            continue
        argv = command(p)
        run = subprocess.run([args.linalias] + argv, capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit("%s: linalias failed (%d): %s" % (p["name"], run.returncode, run.stderr.strip()))
        ptx_rel = os.path.relpath(os.path.join(OUT_PTX, p["name"] + ".ptx"), ROOT)
        with open(os.path.join(ROOT, ptx_rel), "w") as f:
            f.write(run.stdout)
        counts = ptx_address_count.count_ptx(run.stdout, list_slice=True)
        stats = subprocess.run([args.linalias] + argv + ["--stats"], capture_output=True, text=True)
        shared = re.search(r"(\d+) shared bytes", stats.stdout)
        if stats.returncode != 0 or not shared:
            raise SystemExit("%s: linalias --stats failed: %s" % (p["name"], stats.stderr.strip()))
        if len(counts) != 1:
            raise SystemExit("%s: expected one kernel, got %s" % (p["name"], list(counts)))
        (_, c), = counts.items()
        entry = {"name": p["name"], "group": p["group"], "note": p["note"], "shape": p["shape"],
                 "dtype": p["dtype"], "num_warps": p["num_warps"], "command": argv, "ptx": ptx_rel,
                 "counts": c, "triton": _short_counts(p["counts"]), "shared_bytes": int(shared.group(1)),
                 "triton_shared_bytes": p.get("shared_bytes")}
        scratch = re.search(r"// scratch: auto.*", stats.stdout)
        if scratch:
            entry["scratch"] = scratch.group(0)[3:]
        pairs.append(entry)
        t = p["counts"]
        flag = "  MORE THAN TRITON" if c["instructions"] > t["instructions"] else ""
        print("%-34s ours %3d instrs / %2d accesses   Triton %3d / %2d%s" % (
            p["name"], c["instructions"], c["accesses"], t["instructions"], t["accesses"], flag), file=sys.stderr)
    data = {"generator": GENERATOR, "counter": "tools/ptx_address_count.py",
            "emitter": "linalias ptx --global (codegen::smem::kernels::tile_store / tile_load / "
                       "tile_round_trip / tile_round_trip_in_rounds)",
            "target": "sm_90a", "triton": os.path.relpath(TRITON_JSON, ROOT),
            "counting_rules": "see the module docstring of tools/ptx_address_count.py", "pairs": pairs}
    with open(OUT_JSON, "w") as f:
        json.dump(data, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print("wrote %s (%d pairs) and %s/" % (os.path.relpath(OUT_JSON, ROOT), len(pairs),
                                          os.path.relpath(OUT_PTX, ROOT)), file=sys.stderr)
    if args.markdown:
        print(markdown(data))


if __name__ == "__main__":
    main()
