#!/usr/bin/env python3
"""Golden-data generator: layout attributes harvested from real TTGIR, evaluated by Triton 3.9.0.

Reads every ``.mlir`` file of a repository checkout (a bare git directory is enough: files are
read with ``git show``) and every extra file given with ``--file``. In each ``// -----`` chunk it
finds the attribute aliases (``#blocked = #ttg.blocked<{...}>``) and every type that uses a layout:
``tensor<SHAPExELT, #enc>`` and ``!ttg.memdesc<SHAPExELT, #enc, #space[, mutable][, ALLOC]>``.
Each distinct (attribute, shape) pair becomes one case, where the attribute text has its aliases
resolved textually, as a user would paste it. The shape is the tensor's, or a memdesc's
allocation shape when it has one (what a shared layout is sized by).

Triton 3.9.0 evaluates each case in a worker subprocess, because Triton aborts on bad input. It
parses a module holding just the aliases and one function taking that type, reads the layout
back with Gluon (``get_gluon_layout_from_tensor`` / ``_memdesc``), and asks for
``to_linear_layout`` on the shape. The answer is the layout, or the error line.

How to run (no GPU needed)::

    /root/tritonvenv/bin/python tools/gen_harvested_layouts.py \\
        --repo /work/.mirror/facebookexperimental+triton/repo \\
        --file alias-alloc/tests/data/tlx_kernels/*/before.mlir \\
        [--out linear-layout/tests/data/harvest/layouts.json]

Output: ``{"generator", "triton_version", "repo", "repo_commit", "cases": [{"id", "source":
"path:line", "attr", "shape", "space": "tensor" | "memdesc", "expect": {"ok": LAYOUT} |
{"error": LINE}, "padded_linear": {"ok": {"pairs", "offset", "block", "shape"}} for padded
layouts (Gluon's view of their linear component)}]}``, where LAYOUT is the ``from_bases`` JSON used by every golden in this repo.
Attributes of dialects with no layout (``#ttg.shared_memory``, debug info) are not cases.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from triton_worker import Worker, serve  # noqa: E402

TRITON_VERSION = "3.9.0"
GENERATOR = "tools/gen_harvested_layouts.py"

# Alias definitions at the start of a line: `#name = <attribute>`.
ALIAS = re.compile(r"^(#[A-Za-z0-9_.$-]+)\s*=\s*(#.*)$")
# Layout dialects we evaluate (others have no linear layout).
LAYOUT_PREFIXES = ("#ttg.", "#ttng.")
NOT_LAYOUTS = ("#ttg.shared_memory", "#ttng.tensor_memory>", "#ttng.tensor_memory,", "#ttg.generic_linear")
TYPE_START = re.compile(r"(tensor<|!ttg\.memdesc<)")


def balanced(text, start):
    """Index just past the bracket group opening at `start` (one of <{[( )."""
    depth = 0
    for i in range(start, len(text)):
        c = text[i]
        if c in "<{[(":
            depth += 1
        elif c in ">}])":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def attr_end(text, start):
    """Index just past the attribute `#name<...>` (or bare `#name`) starting at `start`."""
    i = start + 1
    while i < len(text) and (text[i].isalnum() or text[i] in "_.$-"):
        i += 1
    if i < len(text) and text[i] == "<":
        return balanced(text, i)
    return i


def resolve(text, aliases):
    out = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == "#":
            j = i + 1
            while j < len(text) and (text[j].isalnum() or text[j] in "_.$-"):
                j += 1
            name = text[i:j]
            out.append(aliases.get(name, name))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


def split_top(text):
    """`text` split at commas outside brackets."""
    parts, depth, cur = [], 0, []
    for c in text:
        if c in "<{[(":
            depth += 1
        elif c in ">}])":
            depth -= 1
        if c == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
    parts.append("".join(cur).strip())
    return parts


def dims(text):
    """`128x64xf16` -> ([128, 64], 'f16'); None when a dim is dynamic."""
    bits = text.split("x")
    try:
        shape = [int(b) for b in bits[:-1]]
    except ValueError:
        return None
    return shape, bits[-1]


def uses(chunk):
    """(line offset, type kind, shape, alloc shape, element, encoding text) of each typed use."""
    for lineno, line in enumerate(chunk.split("\n")):
        if line.lstrip().startswith("//"):
            continue  # comments and FileCheck lines
        for m in TYPE_START.finditer(line):
            end = balanced(line, m.end() - 1)
            if end is None:
                continue
            body = line[m.end():end - 1]
            parts = split_top(body)
            if len(parts) < 2 or not parts[1].startswith("#"):
                continue
            d = dims(parts[0])
            if d is None:
                continue
            shape, elem = d
            kind = "tensor" if m.group(1) == "tensor<" else "memdesc"
            alloc = None
            if kind == "memdesc":
                for p in parts[2:]:
                    dd = dims(p + "xi8") if re.fullmatch(r"[0-9x]+", p) else None
                    if dd is not None:
                        alloc = dd[0]
            yield lineno, kind, shape, alloc, elem, parts[1]


def harvest(path, text):
    """Cases of one file: every distinct (resolved attribute, shape, kind)."""
    seen = set()
    line0 = 0
    for chunk in re.split(r"\n// -----[^\n]*", text):
        aliases = {}
        for line in chunk.split("\n"):
            m = ALIAS.match(line.strip())
            if m:
                value = m.group(2)
                end = attr_end(value, 0)
                aliases[m.group(1)] = resolve(value[:end], aliases)
        module = {"warps": 4, "threads": 32, "target": "cuda:100"}
        for key, pat in (("warps", r'"?ttg\.num-warps"?\s*=\s*(\d+)'),
                         ("threads", r'"?ttg\.threads-per-warp"?\s*=\s*(\d+)'),
                         ("target", r'ttg\.target\s*=\s*"([^"]+)"')):
            m = re.search(pat, chunk)
            if m:
                module[key] = int(m.group(1)) if key != "target" else m.group(1)
        for lineno, kind, shape, alloc, elem, enc in uses(chunk):
            attr = resolve(enc, aliases)
            if "{{" in attr or re.search(r"\[\[[A-Za-z_]", attr):
                continue  # FileCheck patterns
            if attr_end(attr, 0) != len(attr) or not shape:
                continue  # an attribute cut at the end of its line, or a rank-0 type
            if not attr.startswith(LAYOUT_PREFIXES) or attr.startswith(NOT_LAYOUTS):
                continue
            if attr.startswith("#ttng.tensor_memory") and not attr.startswith(
                    ("#ttng.tensor_memory_encoding", "#ttng.tensor_memory_scales_encoding")):
                continue
            size = alloc if (kind == "memdesc" and alloc) else shape
            key = (attr, tuple(size), kind)
            if key in seen:
                continue
            seen.add(key)
            yield dict({"source": "%s:%d" % (path, line0 + lineno + 1), "attr": attr, "shape": size,
                        "space": kind, "elem": elem, "type_shape": shape}, **module)
        line0 += chunk.count("\n") + 1


# --------------------------------------------------------------------------
# Worker side
# --------------------------------------------------------------------------

_CTX = None


def _ll_json(ll):
    from triton.experimental.gluon.language._layouts import DistributedLinearLayout, SharedLinearLayout

    def bases(bs):
        return [list(map(int, v)) for v in bs]

    def outs(shape):
        return [["dim%d" % i, int(s)] for i, s in enumerate(shape)]

    if isinstance(ll, SharedLinearLayout):
        rank = len(ll.offset_bases[0]) if ll.offset_bases else 0
        return {"bases": [["offset", bases(ll.offset_bases)], ["block", bases(ll.block_bases)]],
                "out_dims": outs(getattr(ll, "shape", None) or [0] * rank)}
    if isinstance(ll, DistributedLinearLayout):
        return {"bases": [["register", bases(ll.reg_bases)], ["lane", bases(ll.lane_bases)],
                          ["warp", bases(ll.warp_bases)], ["block", bases(ll.block_bases)]],
                "out_dims": outs(ll.shape)}
    if type(ll).__name__ == "_TensorMemoryLinearLayout":
        return {"bases": [["row", bases(ll.rows)], ["col", bases(ll.cols)]], "out_dims": outs(ll.shape)}
    raise ValueError("unexpected result type %s" % type(ll).__name__)


def run_case(op, a):
    b, layout = _gluon_layout(a)
    if op == "padded_linear":
        # Padded layouts have no linear layout; Gluon's view holds their linear component.
        if type(layout).__name__ == "PartitionedSharedLayout":
            layout = layout.partition_layout
        return {"pairs": [list(map(int, p)) for p in layout.interval_padding_pairs],
                "offset": [list(map(int, v)) for v in layout.offset_bases],
                "block": [list(map(int, v)) for v in layout.cga_layout],
                "shape": list(map(int, layout.shape))}
    ll = b.to_linear_layout(layout._to_ir(b), list(a["shape"]))
    return {"layout": _ll_json(ll)}


def _gluon_layout(a):
    """Parse a module holding the case's type; Gluon's layout object for it and a builder."""
    from triton._C.libtriton import ir, gluon_ir
    global _CTX
    if _CTX is None:
        _CTX = ir.context()
        ir.load_dialects(_CTX)
    ctx = _CTX
    shape_text = "x".join(str(s) for s in a["type_shape"])
    if a["space"] == "tensor":
        ty = "tensor<%sx%s, %s>" % (shape_text, a["elem"], a["attr"])
    else:
        space = "#ttng.tensor_memory" if a["attr"].startswith("#ttng.") else "#ttg.shared_memory"
        alloc = ""
        if a["shape"] != a["type_shape"]:
            alloc = ", " + "x".join(str(s) for s in a["shape"])
        ty = "!ttg.memdesc<%sx%s, %s, %s, mutable%s>" % (shape_text, a["elem"], a["attr"], space, alloc)
    text = ('module attributes {"ttg.num-warps" = %d : i32, "ttg.num-ctas" = 1 : i32, '
            '"ttg.threads-per-warp" = %d : i32, ttg.target = "%s"} {\n'
            '  tt.func @f(%%a: %s) {\n    tt.return\n  }\n}\n') % (a["warps"], a["threads"], a["target"], ty)
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write(text)
        path = f.name
    saved = os.dup(2)
    with tempfile.TemporaryFile("w+") as err:
        os.dup2(err.fileno(), 2)
        try:
            m = ir.parse_mlir_module(path, ctx)
        except RuntimeError:
            os.dup2(saved, 2)
            err.seek(0)
            lines = [ln.split("error: ", 1)[1] for ln in err.read().splitlines() if "error: " in ln]
            raise RuntimeError("MLIR parse: " + (lines[0] if lines else "failed"))
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            os.unlink(path)
    arg = m.get_function("f").args(0)
    b = gluon_ir.GluonOpBuilder(ctx, a["target"])
    if a["space"] == "tensor":
        return b, b.get_gluon_layout_from_tensor(arg)
    return b, b.get_gluon_layout_from_memdesc(arg)


# --------------------------------------------------------------------------
# Parent side
# --------------------------------------------------------------------------


def repo_files(git_dir):
    names = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "--name-only", "HEAD"],
                           check=True, capture_output=True, text=True).stdout.split("\n")
    for name in sorted(n for n in names if n.endswith(".mlir")):
        text = subprocess.run(["git", "--git-dir", git_dir, "show", "HEAD:" + name], check=True,
                              capture_output=True, text=True, errors="replace").stdout
        yield name, text


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--repo", help="a git directory (bare is fine)")
    ap.add_argument("--file", nargs="*", default=[], help="more TTGIR files")
    ap.add_argument("--out", default="linear-layout/tests/data/harvest/layouts.json")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--worker", action="store_true")
    args = ap.parse_args()
    if args.worker:
        serve(run_case)
        return
    sources = []
    commit = None
    if args.repo:
        commit = subprocess.run(["git", "--git-dir", args.repo, "rev-parse", "HEAD"], check=True,
                                capture_output=True, text=True).stdout.strip()
        sources.extend(repo_files(args.repo))
    for path in args.file:
        with open(path) as f:
            sources.append((path, f.read()))
    cases, seen = [], set()
    for name, text in sources:
        for c in harvest(name, text):
            key = (c["attr"], tuple(c["shape"]), c["space"])
            if key in seen:
                continue
            seen.add(key)
            cases.append(c)
    w = Worker(args.python, __file__)
    out = []
    n_err = 0
    for i, c in enumerate(cases):
        res = w.run("to_linear_layout", c)
        n_err += "error" in res
        case = {"id": "harvest/%05d" % i, "source": c["source"], "attr": c["attr"], "shape": c["shape"],
                "space": c["space"], "threads_per_warp": c["threads"], "expect": res}
        if "#ttg.padded_shared" in c["attr"]:
            case["padded_linear"] = w.run("padded_linear", c)
        out.append(case)
    w.close()
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"generator": GENERATOR, "triton_version": TRITON_VERSION,
                   "repo": "facebookexperimental/triton" if args.repo else None, "repo_commit": commit,
                   "cases": out}, f, indent=0, separators=(",", ":"))
        f.write("\n")
    print("%d cases, %d errors -> %s" % (len(out), n_err, args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
