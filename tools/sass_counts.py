#!/usr/bin/env python3
"""SASS instruction counts of the 48 benchmark pairs' kernels, ours and Triton 3.9's: each PTX
file assembled by ptxas for sm_90a and disassembled by nvdisasm, then counted. PTX counts can
hide what ptxas folds; these are the instructions the GPU runs (once each: the kernels are
straight-line).

    python3 tools/sass_counts.py [--ptxas PATH] [--nvdisasm PATH] [--check]

ptxas and nvdisasm default to the `nvidia` wheels of the Python running the script
(`pip install nvidia-cuda-nvcc==13.5.37 nvidia-cuda-nvdisasm==13.5.37`), else `$PTXAS` /
`$NVDISASM`, else PATH. Writes benches/data/sass_counts.json (`--check`: compares instead and
exits 1 on a difference). Counted per kernel: every instruction but the `NOP` padding and the
`BRA` to itself that ends the code (`total`), the shared-memory ones (`LDS`, `STS`, `LDSM`,
`STSM`, `ATOMS`: `shared`), the global-memory ones (`LDG`, `STG`: `global`) and the opcodes.
"""

import argparse
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "benches", "data", "sass_counts.json")
SHARED = {"LDS", "STS", "LDSM", "STSM", "ATOMS"}
GLOBAL = {"LDG", "STG"}
INST = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(?:@!?U?P[T0-9]+\s+)?([A-Z][A-Z0-9_]*)((?:\.[A-Z0-9_]+)*)([^;]*);")


def tool(name, given):
    if given:
        return given
    try:
        import nvidia  # noqa: F401  (the CUDA wheels' namespace package)
        for base in nvidia.__path__:
            path = os.path.join(base, "cu13", "bin", name)
            if os.path.exists(path):
                return path
    except ImportError:
        pass
    return os.environ.get(name.upper()) or shutil.which(name) or sys.exit(f"no {name}: see --help")


def version(path):
    out = subprocess.run([path, "--version"], capture_output=True, text=True).stdout
    m = re.search(r"release (\d+\.\d+)", out)
    return m.group(1) if m else out.strip().splitlines()[-1]


def count(ptxas, nvdisasm, path, tmp):
    cubin = os.path.join(tmp, "k.cubin")
    subprocess.run([ptxas, "-arch=sm_90a", path, "-o", cubin], check=True, capture_output=True)
    sass = subprocess.run([nvdisasm, "-c", cubin], check=True, capture_output=True, text=True).stdout
    ops, label = [], None
    for line in sass.splitlines():
        at = re.match(r"^(\.L_x_\d+):", line)
        if at:
            label = at.group(1)
            continue
        m = INST.search(line)
        if not m:
            continue
        op, operands = m.group(2), m.group(4)
        # The padding, and the branch to itself that ends the code after EXIT.
        if op == "NOP" or (op == "BRA" and label is not None and f"({label})" in operands):
            label = None
            continue
        label = None
        if op in ("BRA", "BRX", "JMP", "CALL", "RET"):
            sys.exit(f"{path}: {op} inside the code: the kernels are counted as straight-line")
        ops.append(op)
    by = {}
    for op in ops:
        by[op] = by.get(op, 0) + 1
    return {
        "total": len(ops),
        "shared": sum(v for k, v in by.items() if k in SHARED),
        "global": sum(v for k, v in by.items() if k in GLOBAL),
        "by_opcode": dict(sorted(by.items())),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ptxas")
    ap.add_argument("--nvdisasm")
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()
    ptxas, nvdisasm = tool("ptxas", args.ptxas), tool("nvdisasm", args.nvdisasm)
    pairs = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side in ("ours", "triton"):
            for path in sorted(glob.glob(os.path.join(ROOT, "benches", "data", f"{side}_ptx", "*.ptx"))):
                name = os.path.basename(path)[: -len(".ptx")]
                pairs.setdefault(name, {})[side] = count(ptxas, nvdisasm, path, tmp)
    doc = {
        "generator": "tools/sass_counts.py",
        "ptxas": version(ptxas),
        "nvdisasm": version(nvdisasm),
        "arch": "sm_90a",
        "pairs": pairs,
    }
    text = json.dumps(doc, indent=1, sort_keys=True) + "\n"
    if args.check:
        old = open(OUT).read() if os.path.exists(OUT) else ""
        if old != text:
            sys.exit(f"{OUT} is out of date: run python3 tools/sass_counts.py")
        print(f"{OUT}: up to date ({len(pairs)} pairs)")
        return
    with open(OUT, "w") as f:
        f.write(text)
    print(f"wrote {OUT}: {len(pairs)} pairs")


if __name__ == "__main__":
    main()
