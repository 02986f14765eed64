#!/usr/bin/env python3
"""Golden-data generator: the TLX fork's own lit tests of the storage-alias passes -> JSON.

Takes every ``// -----`` case of the ``test/TLX/*.mlir`` files that use
``storage_alias_spec`` in facebookexperimental/triton (a git dir from the search
tool's ``fetch``, at ``REPO_COMMIT``), runs the REAL ``tlx-storage-alias-lowering``
pass of the ``fbtriton`` 3.7.4 wheel on it (the worker of
``gen_tlx_alias_goldens.py``), and writes what the pass did to
``alias-alloc/tests/data/tlx_lit/cases.json``:

    {"generator", "repo_commit", "fbtriton_version", "cases": [
        {"file", "index", "mlir",
         "expected": {"parsed": bool, "ok": bool, "lowered": str | null,
                      "errors": [str], "warnings": [str]}}]}

The lit files are the fork's HEAD, newer than the 3.7.4 wheel: a case the wheel
cannot parse is kept with ``parsed: false`` (the Rust test counts, and skips, them).

How to run::

    /root/fbvenv/bin/python tools/gen_tlx_lit_goldens.py --repo /work/.mirror/facebookexperimental+triton/repo
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from gen_tlx_alias_goldens import Worker, pass_result, write_goldens  # noqa: E402

REPO_COMMIT = "db4666f22"
DEFAULT_OUT = os.path.join(HERE, "..", "alias-alloc", "tests", "data", "tlx_lit", "cases.json")
FILES = [
    "test/TLX/buffer-layout-attrs-errors.mlir",
    "test/TLX/buffer-offset-alignment.mlir",
    "test/TLX/buffer-offset-calculation-errors.mlir",
    "test/TLX/buffer-offset-calculation.mlir",
    "test/TLX/set-buffer-overlap-errors.mlir",
    "test/TLX/storage-alias-allocation.mlir",
    "test/TLX/storage-alias-spec.mlir",
]


def cases(repo, path):
    text = subprocess.run(["git", f"--git-dir={repo}", "show", f"{REPO_COMMIT}:{path}"], check=True,
                          capture_output=True, text=True).stdout
    parts, cur = [], []
    for line in text.splitlines(keepends=True):
        if line.strip() == "// -----":
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(line)
    parts.append("".join(cur))
    return [p for p in parts if "module" in p]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", required=True)
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args()
    worker = Worker(sys.executable)
    out = []
    try:
        for path in FILES:
            for i, mlir in enumerate(cases(args.repo, path)):
                exp = pass_result(worker, mlir)
                errors = exp["errors"]
                out.append({"file": path, "index": i, "mlir": mlir, "expected": exp})
                print(f"{path}#{i}: parsed={exp['parsed']} ok={exp['ok']} errors={len(errors)}")
    finally:
        worker.close()
    write_goldens(args.out, "tools/gen_tlx_lit_goldens.py", out, repo_commit=REPO_COMMIT)


if __name__ == "__main__":
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        from gen_tlx_alias_goldens import worker_main
        worker_main(sys.argv[2])
    else:
        main()
