#!/usr/bin/env python3
"""The real compiler continues from what linalias prints.

For each kernel of ``gen_tlx_kernel_dumps.KERNELS`` (its dumps in
``alias-alloc/tests/data/tlx_kernels/<kernel>/``), on CPU, with fbtriton 3.7.4:

1. **The fork alone**: the kernel compiled as the TLX tutorial writes it, for
   ``cuda:100`` — its PTX and cubin (the wheel's ptxas, ``sm_100a``).
2. **linalias**: ``linalias plan before.mlir --mode tlx --emit mlir`` and
   ``linalias plan before.mlir --emit mlir`` (Intended mode) print the module after
   the storage-alias lowering.
3. **The fork continues from ours**: the same compile, but the module that reaches
   ``tlx-storage-alias-lowering`` is ours — ``make_ttir`` returns our module (parsed
   by the fork's own parser in the compile's context) and the passes up to and
   including the lowering (``convert-to-ttgpuir``, ``check-matmul-two-cta``,
   ``coalesce``, ``tlx-propagate-layout``, ``tlx-storage-alias-lowering``) are
   skipped — then the rest of ``make_ttgir`` (``tlx-resolve-placeholder-layouts``,
   ``tlx-rewrite-local-alias``, …), ``make_llir``, ``make_ptx`` and ``make_cubin``.

Checked per kernel: the fork parses both modules; in TLX mode its PTX is byte for byte
the fork's own; in Intended mode the cubin assembles. Reported: the kernel's shared
memory (``metadata.shared``, bytes), its tensor-memory columns (the ``tcgen05.alloc`` of
its PTX), the PTX instruction count, and how many PTX lines differ from the fork's.

How to run (after ``cargo build --release``)::

    python -m venv /root/fbvenv && /root/fbvenv/bin/pip install fbtriton==3.7.4
    /root/fbvenv/bin/python tools/fork_pipeline.py [--only NAME] [--json OUT] [--markdown] \\
        [--repo GIT_DIR]   # a facebookexperimental/triton mirror, for the sched2tlx kernel

Every compile runs in its own subprocess (``--worker``), so one crash cannot hide another.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import gen_tlx_kernel_dumps as gen  # noqa: E402

DATA = os.path.join(ROOT, "alias-alloc", "tests", "data", "tlx_kernels")
LINALIAS = os.path.join(ROOT, "target", "release", "linalias")

# The passes before the storage-alias lowering, and the lowering itself: skipped when the
# compile starts from our module.
SKIPPED = [
    ("passes.ttir", "add_convert_to_ttgpuir"),
    ("nvidia.passes.ttnvgpuir", "add_check_matmul_two_cta"),
    ("passes.ttgpuir", "add_coalesce"),
    ("tlx.tlx_passes", "add_tlx_propagate_layout"),
    ("tlx.tlx_passes", "add_tlx_storage_alias_lowering"),
]


def worker(name, module_path, out_path, repo):
    """Compiles kernel `name` (from our module at `module_path` when given); writes JSON."""
    gen.install_stub_torch()
    import triton
    from triton.backends.compiler import GPUTarget
    gen.install_stub_driver()
    entry = gen.KERNELS[name]
    if module_path:
        from triton._C.libtriton import ir, passes, nvidia, tlx  # noqa: F401
        from triton.backends.nvidia import compiler as cuda
        scope = {"passes": passes, "nvidia": nvidia, "tlx": tlx}
        for owner, fn in SKIPPED:
            obj = eval(owner, scope)  # the pybind submodule the backend calls through
            setattr(obj, fn, lambda *args, **kwargs: None)

        def make_ttir(mod, metadata, opt, capability):
            ours = ir.parse_mlir_module(module_path, mod.context)
            ours.context = mod.context
            return ours

        cuda.CUDABackend.make_ttir = staticmethod(make_ttir)
    src, options = gen.kernel_source_for_compile(entry, source_path(entry, repo))
    k = triton.compile(src, target=GPUTarget("cuda", 100, 32), options=options)
    ptx = k.asm["ptx"]
    ttgir = k.asm["ttgir"]
    with open(out_path + ".ptx", "w") as f:
        f.write(ptx)
    with open(out_path + ".ttgir", "w") as f:
        f.write(ttgir)
    with open(out_path + ".meta", "w") as f:
        f.write(repr(k.metadata))
    result = {
        "ptx": ptx,
        "cubin_bytes": len(k.asm.get("cubin", b"")),
        "shared": k.metadata.shared,
        "tmem_columns": tmem_columns(ptx),
        "instructions": instruction_count(ptx),
    }
    with open(out_path, "w") as f:
        json.dump(result, f)


def source_path(entry, repo):
    """The kernel's Python file: the wheel's tutorial, or a repository file written to a fixed
    path (the PTX's debug info names it, so both compiles must see the same path)."""
    if "file" in entry:
        return gen.kernel_source(entry, repo)
    text = subprocess.run(["git", f"--git-dir={repo}", "show", f"{gen.REPO_COMMIT}:{entry['repo_file']}"],
                          check=True, capture_output=True, text=True).stdout
    folder = os.path.join(tempfile.gettempdir(), "linalias_fork_pipeline")
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, os.path.basename(entry["repo_file"]))
    with open(path, "w") as f:
        f.write(text)
    return path


def tmem_columns(ptx):
    """Tensor-memory columns the kernel allocates: the operand of its `tcgen05.alloc`
    (Triton allocates once, the power of two at or above what its allocator placed)."""
    counts = [int(x) for x in re.findall(r"tcgen05\.alloc\.[^;]*\],\s*(\d+);", ptx)]
    return max(counts) if counts else 0


def instruction_count(ptx):
    """PTX instructions (lines ending in ';' inside function bodies, directives aside)."""
    n = 0
    for line in ptx.splitlines():
        s = line.strip()
        if s.endswith(";") and not s.startswith(".") and not s.startswith("//"):
            n += 1
    return n


def compile_in_subprocess(name, repo, module_path=None):
    out = tempfile.mktemp(suffix=".json", dir="/tmp/fk")
    env = dict(os.environ)
    env["TRITON_ALWAYS_COMPILE"] = "1"
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    env.pop("MLIR_ENABLE_DUMP", None)
    cmd = [sys.executable, __file__, "--worker", name, "--out", out]
    if module_path:
        cmd += ["--module", module_path]
    if repo:
        cmd += ["--repo", repo]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0 or not os.path.exists(out):
        tail = proc.stderr.strip().splitlines()[-6:]
        return {"error": "\n".join(tail)}
    with open(out) as f:
        return json.load(f)


def ours(name, mode, repo):
    """linalias's module after the lowering, in `mode`, as a file; or the refusal."""
    before = os.path.join(DATA, name, "before.mlir")
    proc = subprocess.run([LINALIAS, "plan", before, "--mode", mode, "--emit", "mlir"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        return None, proc.stderr.strip()
    # The committed dumps name source files relative to site-packages (gen.portable); the
    # fork's own compile names them by absolute path, which its PTX debug info prints.
    import triton
    root = os.path.dirname(os.path.dirname(triton.__file__))
    text = proc.stdout.replace('loc("site-packages/', f'loc("{root}/')
    entry = gen.KERNELS[name]
    if "repo_file" in entry:
        base = os.path.basename(entry["repo_file"])
        text = text.replace(f'loc("{base}"', f'loc("{source_path(entry, repo)}"')
    path = tempfile.mktemp(suffix=f".{mode}.mlir")
    with open(path, "w") as f:
        f.write(text)
    return path, None


def check(name, repo):
    row = {"kernel": name}
    fork = compile_in_subprocess(name, repo)
    row["fork"] = {k: v for k, v in fork.items() if k != "ptx"}
    for mode in ["tlx", "intended"]:
        path, refused = ours(name, mode, repo)
        if refused:
            row[mode] = {"refused": refused}
            continue
        got = compile_in_subprocess(name, repo, path)
        entry = {k: v for k, v in got.items() if k != "ptx"}
        if "ptx" in got and "ptx" in fork:
            entry["ptx_equal_to_fork"] = got["ptx"] == fork["ptx"]
            a, b = fork["ptx"].splitlines(), got["ptx"].splitlines()
            entry["ptx_lines_changed"] = sum(1 for x, y in zip(a, b) if x != y) + abs(len(a) - len(b))
        row[mode] = entry
    return row


def markdown(rows):
    out = ["| kernel | fork: SMEM B, TMEM cols, PTX instr | TLX mode from ours | Intended mode from ours: SMEM B, TMEM cols, PTX instr |",
           "|---|---|---|---|"]
    for r in rows:
        f = r["fork"]
        fork = "error" if "error" in f else f"{f['shared']}, {f['tmem_columns']}, {f['instructions']}"
        t = r["tlx"]
        tlx = ("refused: " + t["refused"]) if "refused" in t else (
            "error: " + t["error"].splitlines()[-1] if "error" in t else
            ("PTX identical" if t.get("ptx_equal_to_fork") else "PTX differs"))
        i = r["intended"]
        if "refused" in i:
            intended = "refused: " + i["refused"].split(": ", 1)[-1]
        elif "error" in i:
            intended = "error: " + i["error"].splitlines()[-1]
        else:
            intended = (f"{i['shared']}, {i['tmem_columns']}, {i['instructions']} "
                        f"({i['ptx_lines_changed']} PTX lines differ; assembled)")
        out.append(f"| `{r['kernel']}` | {fork} | {tlx} | {intended} |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--only")
    ap.add_argument("--worker")
    ap.add_argument("--module")
    ap.add_argument("--out")
    ap.add_argument("--json")
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("--repo", help="git dir of facebookexperimental/triton (for repo_file kernels)")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.module, args.out, args.repo)
        return
    rows = []
    for name in gen.KERNELS:
        if args.only and name != args.only:
            continue
        if "file" not in gen.KERNELS[name] and not args.repo:
            print(f"{name}: skipped (its source is read from a repository mirror: --repo)", file=sys.stderr)
            continue
        row = check(name, args.repo)
        rows.append(row)
        print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    if args.markdown:
        print(markdown(rows))


if __name__ == "__main__":
    main()
