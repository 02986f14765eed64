#!/usr/bin/env python3
"""Golden-data generator: TLX storage-alias lowering (fbtriton 3.7.4) -> JSON.

Runs the REAL ``tlx-storage-alias-lowering`` pass shipped in the ``fbtriton``
3.7.4 wheel (Meta's build of facebookexperimental/triton, module name
``triton``, ``__version__ == "3.7.4+fb"``) on a few hundred generated MLIR
modules and records what it did in ``alias-alloc/tests/data/tlx_alias/cases.json``.
See ``/work/shared/reference/tlx-storage-alias.md`` (section 11) for the
API used.  No GPU is needed.

How to run::

    python -m venv /root/fbvenv && /root/fbvenv/bin/pip install fbtriton==3.7.4
    /root/fbvenv/bin/python tools/gen_tlx_alias_goldens.py [--out PATH]

Deterministic (fixed ``SEED``; case names are stable).  Every module is fed to
a worker subprocess (this script started with ``--worker``) that parses it,
runs the pass and sends back the printed module plus everything MLIR wrote
to stderr during that case (warnings and errors are printed by C++, so they
can only be collected from fd 2).  A worker that dies (C++ assertion, abort)
is restarted; such cases are dropped and counted.

Output format
-------------
``{"generator", "fbtriton_version", "seed", "counts", "dtypes", "cases": [CASE, ...]}``
with one case per line.  CASE::

    {"name": str,
     "specs":  [{"name", "storage": "smem"|"tmem", "size": null|int}],
     "allocs": [{"name", "spec", "shape": [int], "dtype": str,
                 "layout": null|LAYOUT, "memory": "smem"|"tmem"}],   # program order
     "overlaps": [{"spec": str, "tree": NODE}],                      # program order
     "mlir": str,                                                    # module fed to the pass
     "expected": {"ok": true,
                  "specs":  [{"name", "backing_shape": [int], "buffer_size_bytes": null|int}],
                  "allocs": [{"name", "alias_shape": [int], "indices": [int]}],
                  "warnings": [str]}
               | {"ok": false, "error": str, "warnings": [str]}}

NODE = "alloc_name" | {"kind": "shared"|"distinct", "group_size": int, "children": [NODE]}.
LAYOUT = {"kind": "swizzled_shared", "vec", "per_phase", "max_phase", "order"}
       | {"kind": "nvmma_shared", "swizzle_bytes", "element_bits", "transposed", "fp4_padded"}
       | {"kind": "tmem", "block_m", "block_n", "col_stride", "two_ctas",
          "cta_mode": "default"|"two_cta_lhs"|"two_cta_rhs"}
       | {"kind": "dummy_tmem"}.
A null layout is the TLX default: SMEM -> unswizzled ``swizzled_shared`` (vec 1,
perPhase 1, maxPhase 1, order = [tile_rank-1 .. 0]); TMEM ->
``tensor_memory_encoding<blockM = tile[0], blockN = tile[1], colStride = 1>``
(tile = shape[1:], or the whole shape for a rank-2 TMEM allocation).

``indices[i]`` is the physical index the rewritten ``ttg.memdesc_index`` feeds
for logical index ``i`` (identity when the pass did not rewrite it); the
module holds one ``memdesc_index`` per ``i in 0..shape[0]`` for every
allocation except rank-2 TMEM ones (no buffer dimension; ``indices`` = []).
``backing_shape`` is the shape of the backing ``ttg.local_alloc`` (``[bytes]``)
or ``ttng.tmem_alloc`` (``[BM, BN]``).  ``buffer_size_bytes`` is read from the
spec op when it survives the pass; it never does on success, so it is null
(derive it on the Rust side).  Error texts are the diagnostic message only
(location stripped, op prefix such as ``'tlx.set_buffer_overlap' op `` kept);
``warnings`` likewise.
"""

import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

SEED = 20260822
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(ROOT, "alias-alloc", "tests", "data", "tlx_alias", "cases.json")

# ----------------------------------------------------------------------------
# dtypes and encodings
# ----------------------------------------------------------------------------

# schema dtype name -> (MLIR element type accepted by fbtriton 3.7.4, bit width)
DTYPES = {
    "f32": ("f32", 32),
    "f16": ("f16", 16),
    "bf16": ("bf16", 16),
    "f8e4m3": ("f8E4M3FN", 8),
    "f8e5m2": ("f8E5M2", 8),
    "i8": ("i8", 8),
    "i16": ("i16", 16),
    "i32": ("i32", 32),
    "i64": ("i64", 64),
    "f64": ("f64", 64),
    "i4": ("i4", 4),
    "f4": ("f4E2M1FN", 4),
    "i1": ("i1", 1),
    "ptr": ("!tt.ptr<f16>", 64),
}

CTA_MODES = {"default": None, "two_cta_lhs": "twocta_lhs", "two_cta_rhs": "twocta_rhs"}


def tile_of(alloc):
    """Per-buffer tile: shape[1:], except rank-2 TMEM allocations (no buffer dim)."""
    shape = alloc["shape"]
    if alloc["memory"] == "tmem" and len(shape) == 2:
        return shape
    return shape[1:]


def has_buffer_dim(alloc):
    return not (alloc["memory"] == "tmem" and len(alloc["shape"]) == 2)


def encoding_text(alloc):
    lay = alloc["layout"]
    tile = tile_of(alloc)
    if lay is None:
        if alloc["memory"] == "smem":
            lay = {"kind": "swizzled_shared", "vec": 1, "per_phase": 1, "max_phase": 1,
                   "order": list(range(len(tile) - 1, -1, -1))}
        else:
            lay = {"kind": "tmem", "block_m": tile[0], "block_n": tile[1], "col_stride": 1,
                   "two_ctas": False, "cta_mode": "default"}
    k = lay["kind"]
    if k == "swizzled_shared":
        return "#ttg.swizzled_shared<{vec = %d, perPhase = %d, maxPhase = %d, order = [%s]}>" % (
            lay["vec"], lay["per_phase"], lay["max_phase"], ", ".join(map(str, lay["order"])))
    if k == "nvmma_shared":
        s = "#ttg.nvmma_shared<{swizzlingByteWidth = %d, transposed = %s, elementBitWidth = %d" % (
            lay["swizzle_bytes"], "true" if lay["transposed"] else "false", lay["element_bits"])
        if lay["fp4_padded"]:
            s += ", fp4Padded = true"
        return s + "}>"
    if k == "tmem":
        s = "#ttng.tensor_memory_encoding<blockM = %d, blockN = %d, colStride = %d" % (
            lay["block_m"], lay["block_n"], lay["col_stride"])
        if lay["two_ctas"]:
            s += ", twoCTAs = true"
        if CTA_MODES[lay["cta_mode"]]:
            s += ", ctaMode = " + CTA_MODES[lay["cta_mode"]]
        return s + ">"
    if k == "dummy_tmem":
        return "#tlx.dummy_tmem_layout<>"
    raise ValueError(k)


# ----------------------------------------------------------------------------
# schema -> MLIR
# ----------------------------------------------------------------------------

def tree_leaves(node):
    if isinstance(node, str):
        return [node]
    out = []
    for c in node["children"]:
        out += tree_leaves(c)
    return out


def render_mlir(case):
    specs = {s["name"]: s for s in case["specs"]}
    allocs = {a["name"]: a for a in case["allocs"]}
    encs = {}  # encoding text -> alias name

    def enc_alias(text):
        if text not in encs:
            encs[text] = "#enc%d" % len(encs)
        return encs[text]

    def memdesc(a, shape=None):
        shape = a["shape"] if shape is None else shape
        mem = "#smem" if a["memory"] == "smem" else "#tmem"
        return "!ttg.memdesc<%sx%s, %s, %s, mutable>" % (
            "x".join(map(str, shape)), DTYPES[a["dtype"]][0], enc_alias(encoding_text(a)), mem)

    def spec_type(s):
        if s["size"] is None:
            return "!tlx.storage_alias_spec<%s>" % s["storage"]
        return "!tlx.storage_alias_spec<%s, %d>" % (s["storage"], s["size"])

    body = []
    for s in case["specs"]:
        attrs = "storage = %s" % s["storage"]
        if s["size"] is not None:
            attrs += ", size = %d" % s["size"]
        body.append("%%%s = tlx.storage_alias_spec %s : %s" % (s["name"], attrs, spec_type(s)))
    for a in case["allocs"]:
        s = specs[a["spec"]]
        body.append("%%%s = tlx.storage_alias_local_alloc %%%s : %s -> %s" % (
            a["name"], s["name"], spec_type(s), memdesc(a)))

    counter = [0]

    def emit_group(node):
        """Emit reuse_group ops bottom-up; return (ssa name, type text)."""
        if isinstance(node, str):
            return "%" + node, memdesc(allocs[node])
        kids = [emit_group(c) for c in node["children"]]
        name = "%%g%d" % counter[0]
        counter[0] += 1
        ty = "!tlx.reuse_group<%s>" % node["kind"]
        attrs = "group_kind = %s" % node["kind"]
        if node["group_size"] != 1:
            attrs += ", group_size = %d" % node["group_size"]
        body.append("%s = tlx.reuse_group(%s) %s : (%s) -> %s" % (
            name, ", ".join(k[0] for k in kids), attrs, ", ".join(k[1] for k in kids), ty))
        return name, ty

    for ov in case["overlaps"]:
        g, gty = emit_group(ov["tree"])
        s = specs[ov["spec"]]
        body.append("tlx.set_buffer_overlap(%%%s, %s) : (%s, %s) -> ()" % (s["name"], g, spec_type(s), gty))

    nmax = max([a["shape"][0] for a in case["allocs"] if has_buffer_dim(a)] + [0])
    for i in range(nmax):
        body.append("%%c%d = arith.constant %d : i32" % (i, i))
    for a in case["allocs"]:
        if not has_buffer_dim(a):
            continue
        for i in range(a["shape"][0]):
            body.append("%%%s_%d = ttg.memdesc_index %%%s[%%c%d] : %s -> %s" % (
                a["name"], i, a["name"], i, memdesc(a), memdesc(a, a["shape"][1:])))
    body.append("tt.return")

    head = ["%s = %s" % (alias, text) for text, alias in encs.items()]
    head += ["#smem = #ttg.shared_memory", "#tmem = #ttng.tensor_memory"]
    lines = head + ['module attributes {"ttg.num-warps" = 4 : i32, ttg.target = "cuda:100"} {',
                    "  tt.func @%s() {" % case["name"]]
    lines += ["    " + b for b in body]
    lines += ["  }", "}", ""]
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# worker (runs inside /root/fbvenv)
# ----------------------------------------------------------------------------

def worker_main(workdir):
    from triton._C.libtriton import ir, tlx, nvidia
    proto = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)  # anything printed on fd 1 by C++ goes to stderr
    orig_err = os.dup(2)
    mlir_path = os.path.join(workdir, "case.mlir")
    err_path = os.path.join(workdir, "stderr.txt")
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        with open(mlir_path, "w") as f:
            f.write(req["mlir"])
        errf = open(err_path, "w+b")
        sys.stderr.flush()
        os.dup2(errf.fileno(), 2)
        res = {"parsed": False, "ran": False, "exc": None, "out": None}
        try:
            ctx = ir.context()
            ir.load_dialects(ctx)
            nvidia.load_dialects(ctx)
            mod = ir.parse_mlir_module(mlir_path, ctx)
            mod.context = ctx
            res["parsed"] = True
            pm = ir.pass_manager(ctx)
            tlx.tlx_passes.add_tlx_storage_alias_lowering(pm)
            pm.run(mod, "make_ttgir")
            res["ran"] = True
            res["out"] = str(mod)
        except Exception as e:  # parse failure or pass failure
            res["exc"] = "%s: %s" % (type(e).__name__, e)
        sys.stderr.flush()
        os.dup2(orig_err, 2)
        errf.seek(0)
        res["stderr"] = errf.read().decode("utf-8", "replace")
        errf.close()
        proto.write(json.dumps(res) + "\n")
        proto.flush()


class Worker:
    TIMEOUT_S = 120

    def __init__(self, python):
        self.python = python
        self.workdir = tempfile.mkdtemp(prefix="tlx_alias_gold_")
        self.proc = None
        self.restarts = 0

    def _start(self):
        self.errlog = open(os.path.join(self.workdir, "worker.log"), "ab")
        env = dict(os.environ)
        # Triton's diagnostic handler drops warnings unless asked for them.
        env["MLIR_ENABLE_DIAGNOSTICS"] = "warnings"
        self.proc = subprocess.Popen(
            [self.python, os.path.abspath(__file__), "--worker", self.workdir],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.errlog, bufsize=0, env=env)

    def run(self, mlir):
        if self.proc is None:
            self._start()
        timer = threading.Timer(self.TIMEOUT_S, self.proc.kill)
        timer.start()
        try:
            try:
                self.proc.stdin.write((json.dumps({"mlir": mlir}) + "\n").encode())
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except BrokenPipeError:
                line = b""
        finally:
            timer.cancel()
        if line:
            return json.loads(line)
        rc = self.proc.wait()
        self.proc = None
        self.errlog.close()
        self.restarts += 1
        try:
            with open(os.path.join(self.workdir, "stderr.txt"), "rb") as f:
                text = f.read().decode("utf-8", "replace")
        except OSError:
            text = ""
        crash = [ln for ln in text.splitlines() if ln.strip()]
        return {"crash": "rc=%s: %s" % (rc, crash[-1] if crash else "")}

    def close(self):
        if self.proc is not None:
            self.proc.stdin.close()
            self.proc.wait()
            self.errlog.close()
            self.proc = None
        shutil.rmtree(self.workdir, ignore_errors=True)


# ----------------------------------------------------------------------------
# interpreting the worker's answer
# ----------------------------------------------------------------------------

_DIAG = re.compile(r"^(?:(?:loc\(.*?\)|<unknown>:0|[^\s:][^:]*:\d+:\d+): )?(error|warning): (.*)$")
_PIPELINE_NOISE = "Failures have been detected while processing an MLIR pass pipeline"


def diagnostics(stderr):
    errors, warnings = [], []
    for ln in stderr.splitlines():
        m = _DIAG.match(ln.rstrip())
        if not m:
            continue
        kind, msg = m.groups()
        if _PIPELINE_NOISE in msg:
            continue
        (errors if kind == "error" else warnings).append(msg)
    return errors, warnings


def pass_result(worker, mlir):
    """What the pass did with `mlir`, in the schema of the lit and sub-byte goldens."""
    res = worker.run(mlir)
    errors, warnings = diagnostics(res.get("stderr", ""))
    exp = {"parsed": bool(res.get("parsed")), "ok": bool(res.get("ran")), "lowered": res.get("out"),
           "errors": errors, "warnings": warnings}
    if "crash" in res:
        exp["crash"] = res["crash"]
    return exp


def write_goldens(path, generator, cases, **meta):
    """The lit and construct goldens' file: generator, fbtriton version, `meta`, the cases."""
    import triton
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump({"generator": generator, **meta, "fbtriton_version": triton.__version__, "cases": cases},
                  f, indent=1)
        f.write("\n")


def strip_loc(line):
    i = line.find(" loc(")
    return line[:i] if i >= 0 else line


def memdesc_shape(ty):
    m = re.match(r"!ttg\.memdesc<((?:\d+x)+)", ty)
    return [int(x) for x in m.group(1).split("x")[:-1]]


def memdesc_elem(ty):
    return re.match(r"!ttg\.memdesc<(?:\d+x)+([^,]+),", ty).group(1)


_SSA = re.compile(r"^\s*(%[\w.$-]+) = (\S+)(.*)$")


def parse_output(text):
    """Return (ops by result name, ordered list of (name, opname, rest))."""
    ops = {}
    order = []
    for ln in text.splitlines():
        ln = strip_loc(ln)
        m = _SSA.match(ln)
        if not m:
            continue
        name, opname, rest = m.groups()
        ops[name] = (opname, rest)
        order.append((name, opname, rest))
    return ops, order


def eval_index(ops, name, depth=0):
    if depth > 50:
        raise ValueError("index chain too deep")
    opname, rest = ops[name]
    if opname == "arith.constant":
        m = re.match(r"^\s*(-?\d+) : i32$", rest)
        if not m:
            raise ValueError("unexpected constant: " + rest)
        return int(m.group(1))
    m = re.match(r"^\s*(%[\w.$-]+), (%[\w.$-]+) : i32$", rest)
    if not m:
        raise ValueError("unexpected index op %s %s" % (opname, rest))
    a = eval_index(ops, m.group(1), depth + 1)
    b = eval_index(ops, m.group(2), depth + 1)
    if opname == "arith.muli":
        return a * b
    if opname == "arith.addi":
        return a + b
    if opname == "arith.remsi":
        return int(a - b * int(a / b))  # truncating remainder
    raise ValueError("unexpected index op " + opname)


def extract_ok(case, out):
    ops, order = parse_output(out)
    backings = {}  # ssa -> shape
    aliases = []  # (ssa, src, result type)
    index_ops = []  # (src, idx ssa)
    for name, opname, rest in order:
        if opname in ("ttg.local_alloc", "ttng.tmem_alloc"):
            backings[name] = memdesc_shape(rest.split("-> ", 1)[1])
        elif opname == "tlx.local_alias":
            m = re.match(r"^\s*(%[\w.$-]+) : .* -> (!ttg\.memdesc<.*)$", rest)
            aliases.append((name, m.group(1), m.group(2)))
        elif opname == "ttg.memdesc_index":
            m = re.match(r"^\s*(%[\w.$-]+)\[(%[\w.$-]+)\]", rest)
            index_ops.append((m.group(1), m.group(2)))
    if any(op in out for op in ("tlx.storage_alias_local_alloc", "tlx.reuse_group", "tlx.set_buffer_overlap")):
        raise ValueError("pass left storage-alias ops behind")
    if len(aliases) != len(case["allocs"]):
        raise ValueError("%d aliases for %d allocs" % (len(aliases), len(case["allocs"])))
    # Map allocation j -> its alias.  Primary: by program order; checked
    # against the memdesc_index ops, which keep their order.
    alias_of = {}
    k = 0
    for j, a in enumerate(case["allocs"]):
        alias_of[a["name"]] = aliases[j]
        if has_buffer_dim(a):
            for i in range(a["shape"][0]):
                src, _ = index_ops[k + i]
                if src != aliases[j][0]:
                    raise ValueError("memdesc_index of %s does not use alias #%d" % (a["name"], j))
            k += a["shape"][0]
    if k != len(index_ops):
        raise ValueError("unexpected memdesc_index count")
    res_allocs = []
    k = 0
    backing_of_spec = {}
    for a in case["allocs"]:
        ssa, src, ty = alias_of[a["name"]]
        shape = memdesc_shape(ty)
        if shape[1:] != a["shape"][1:] or memdesc_elem(ty) != DTYPES[a["dtype"]][0]:
            raise ValueError("alias type %s does not match alloc %s" % (ty, a["name"]))
        if src not in backings:
            raise ValueError("alias of %s is not fed by a backing" % a["name"])
        prev = backing_of_spec.setdefault(a["spec"], src)
        if prev != src:
            raise ValueError("spec %s has two backings" % a["spec"])
        idx = []
        if has_buffer_dim(a):
            for i in range(a["shape"][0]):
                idx.append(eval_index(ops, index_ops[k + i][1]))
            k += a["shape"][0]
        res_allocs.append({"name": a["name"], "alias_shape": shape, "indices": idx})
    res_specs = []
    for s in case["specs"]:
        if s["name"] not in backing_of_spec:
            raise ValueError("spec %s has no backing" % s["name"])
        m = re.search(r"tlx\.storage_alias_spec storage = \w+, size = (\d+)", out)
        res_specs.append({"name": s["name"], "backing_shape": backings[backing_of_spec[s["name"]]],
                          "buffer_size_bytes": None if m is None else int(m.group(1))})
    if len(set(backing_of_spec.values())) != len(backings):
        raise ValueError("unclaimed backing allocation")
    return {"ok": True, "specs": res_specs, "allocs": res_allocs}


def interpret(case, res):
    """Worker answer -> (expected dict, None) or (None, reason to drop)."""
    if "crash" in res:
        return None, "crash: " + res["crash"]
    errors, warnings = diagnostics(res["stderr"])
    if res["ran"]:
        if errors:
            return None, "pass succeeded but printed errors: %r" % errors
        exp = extract_ok(case, res["out"])
        exp["warnings"] = warnings
        return exp, None
    if not errors:
        return None, "failure without diagnostic: %s" % res["exc"]
    exc = res["exc"] or ""
    if res["parsed"]:
        pref = "RuntimeError: PassManager::run failed: "
        if not exc.startswith(pref) or errors[0] not in exc:
            return None, "pass error text mismatch: %r vs %r" % (exc, errors[0])
    return {"ok": False, "error": errors[0], "warnings": warnings}, None


# ----------------------------------------------------------------------------
# case construction helpers
# ----------------------------------------------------------------------------

def S(*children, gs=1):
    return {"kind": "shared", "group_size": gs, "children": list(children)}


def D(*children, gs=1):
    return {"kind": "distinct", "group_size": gs, "children": list(children)}


def spec(name="s0", storage="smem", size=None):
    return {"name": name, "storage": storage, "size": size}


def alloc(name, shape, dtype, spec="s0", layout=None, memory=None, storage=None):
    return {"name": name, "spec": spec, "shape": list(shape), "dtype": dtype, "layout": layout,
            "memory": memory or storage or "smem"}


def tmem_alloc(name, shape, dtype, spec="s0", layout=None, memory="tmem"):
    return alloc(name, shape, dtype, spec, layout, memory)


def swz(order, vec=1, per_phase=1, max_phase=1):
    return {"kind": "swizzled_shared", "vec": vec, "per_phase": per_phase, "max_phase": max_phase,
            "order": list(order)}


def nvmma(swizzle, bits, transposed=False, fp4_padded=False):
    return {"kind": "nvmma_shared", "swizzle_bytes": swizzle, "element_bits": bits,
            "transposed": transposed, "fp4_padded": fp4_padded}


def tmem_lay(bm, bn, col_stride=1, two_ctas=False, cta_mode="default"):
    return {"kind": "tmem", "block_m": bm, "block_n": bn, "col_stride": col_stride,
            "two_ctas": two_ctas, "cta_mode": cta_mode}


DUMMY = {"kind": "dummy_tmem"}


def case(name, specs, allocs, overlaps=()):
    ovs = []
    for ov in overlaps:
        if isinstance(ov, tuple):
            ovs.append({"spec": ov[0], "tree": ov[1]})
        else:
            ovs.append({"spec": "s0", "tree": ov})
    return {"name": name, "specs": specs, "allocs": allocs, "overlaps": ovs}


# ----------------------------------------------------------------------------
# hand-written cases
# ----------------------------------------------------------------------------

def named_cases():
    C = []
    T = "tmem"
    sm, tm = [spec()], [spec(storage=T)]

    # --- reference section 11 -------------------------------------------------
    C.append(case("ref11_distinct_bf16", sm,
                  [alloc("a", [2, 64, 64], "bf16"), alloc("b", [2, 64, 64], "bf16")], [D("a", "b")]))
    C.append(case("ref11_distinct_f32_bf16_not_divisible", sm,
                  [alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "bf16")], [D("a", "b")]))

    # --- FA forward (reference section 9) --------------------------------------
    def fa_fwd(name, bms, bn, slices, scalar_n, groups=2):
        allocs = [tmem_alloc("qk", [groups, bms, bn], "f32"),
                  tmem_alloc("p", [groups * slices, bms, bn // slices], "bf16")]
        allocs += [tmem_alloc(x, [groups, bms, scalar_n], "f32") for x in ("alpha", "l", "m")]
        return case(name, tm, allocs, [S("qk", D(S("p", gs=slices), "alpha", "l", "m"))])

    C.append(fa_fwd("fa_fwd_tmem", 128, 128, 2, 1))
    C.append(fa_fwd("fa_fwd_tmem_block_m_split_64", 64, 128, 2, 2))
    C.append(fa_fwd("fa_fwd_tmem_mma_slices_4", 128, 128, 4, 1))
    C.append(fa_fwd("fa_fwd_tmem_mma_slices_1", 128, 128, 1, 1))
    C.append(fa_fwd("fa_fwd_tmem_block_n_64", 128, 64, 2, 1))
    # FA forward with P in colStride 2 (unpacked 16-bit)
    allocs = [tmem_alloc("qk", [2, 128, 128], "f32"),
              tmem_alloc("p", [4, 128, 64], "bf16", layout=tmem_lay(128, 64, 2))]
    allocs += [tmem_alloc(x, [2, 128, 1], "f32") for x in ("alpha", "l", "m")]
    C.append(case("fa_fwd_tmem_p_col_stride_2", tm, allocs, [S("qk", D(S("p", gs=2), "alpha", "l", "m"))]))

    # --- FA backward 2-CTA (reference section 9) --------------------------------
    rhs = tmem_lay(64, 128, 1, True, "two_cta_rhs")
    for nm, two in (("fa_bwd_2cta_tmem", False), ("fa_bwd_2cta_tmem_two_ctas", True)):
        C.append(case(nm, tm, [
            tmem_alloc("qk", [1, 128, 128], "f32", layout=tmem_lay(128, 128, 1, two)),
            tmem_alloc("p", [1, 128, 128], "f16", layout=tmem_lay(128, 128, 1, two)),
            tmem_alloc("dq", [1, 64, 128], "f32", layout=rhs),
            tmem_alloc("dq_phys", [1, 128, 64], "f32", layout=tmem_lay(128, 64, 1, two))],
            [S("qk", D("p", S("dq", "dq_phys")))]))
    C.append(case("fa_bwd_2cta_tmem_rhs_no_two_ctas_flag", tm, [
        tmem_alloc("qk", [1, 128, 128], "f32"), tmem_alloc("p", [1, 128, 128], "f16"),
        tmem_alloc("dq", [1, 64, 128], "f32", layout=tmem_lay(64, 128, 1, False, "two_cta_rhs")),
        tmem_alloc("dq_phys", [1, 128, 64], "f32")],
        [S("qk", D("p", S("dq", "dq_phys")))]))
    # python test_gemm_64x128_2cta (use_alias=True): a single TwoCTA_RHS accumulator
    C.append(case("gemm_2cta_acc_rhs_single", tm, [tmem_alloc("acc", [1, 64, 128], "f32", layout=rhs)]))
    C.append(case("two_cta_rhs_in_distinct", tm, [
        tmem_alloc("a", [2, 64, 128], "f32", layout=rhs), tmem_alloc("b", [2, 128, 64], "f32")],
        [D("a", "b")]))
    C.append(case("two_cta_lhs_in_shared", tm, [
        tmem_alloc("a", [2, 128, 128], "f32", layout=tmem_lay(128, 128, 1, True, "two_cta_lhs")),
        tmem_alloc("b", [2, 128, 64], "f32")], [S("a", "b")]))
    C.append(case("two_cta_lhs_blockm64_in_distinct", tm, [
        tmem_alloc("a", [2, 64, 64], "f32", layout=tmem_lay(64, 64, 1, True, "two_cta_lhs")),
        tmem_alloc("b", [2, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("two_ctas_blockm64_default_mode", tm, [
        tmem_alloc("a", [2, 64, 128], "f32", layout=tmem_lay(64, 128, 1, True)),
        tmem_alloc("b", [2, 64, 128], "f32")], [D("a", "b")]))
    C.append(case("two_ctas_blockm64_default_mode_shared", tm, [
        tmem_alloc("a", [2, 64, 128], "f32", layout=tmem_lay(64, 128, 1, True)),
        tmem_alloc("b", [2, 64, 64], "f32")], [S("a", "b")]))

    # --- SMEM probes from the reference -----------------------------------------
    C.append(case("smem_probe_shared_a_distinct_x_shared_p_gs2", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("x", [2, 64, 64], "bf16"), alloc("p", [4, 64, 32], "bf16")],
        [S("a", D("x", S("p", gs=2)))]))
    C.append(case("shared_f32_f4", sm, [alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f4")],
                  [S("a", "b")]))
    C.append(case("shared_f32_i4", sm, [alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "i4")],
                  [S("a", "b")]))
    C.append(case("shared_f32_i1", sm, [alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "i1")],
                  [S("a", "b")]))
    C.append(case("distinct_f32_f4", sm, [alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f4")],
                  [D("a", "b")]))
    C.append(case("first_user_p4_before_qk2_smem", sm, [
        alloc("p", [4, 64, 64], "bf16"), alloc("qk", [2, 64, 64], "f32")], [S("qk", S("p", gs=2))]))
    C.append(case("first_user_qk2_before_p4_smem", sm, [
        alloc("qk", [2, 64, 64], "f32"), alloc("p", [4, 64, 64], "bf16")], [S("qk", S("p", gs=2))]))
    C.append(case("first_user_not_in_tree_smem", sm, [
        alloc("z", [8, 16, 16], "f32"), alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f16")],
        [S("a", "b")]))
    C.append(case("first_user_p4_before_qk2_tmem", tm, [
        tmem_alloc("p", [4, 128, 64], "bf16"), tmem_alloc("qk", [2, 128, 128], "f32")],
        [S("qk", S("p", gs=2))]))
    C.append(case("shared_root_gs2_a4", sm, [alloc("a", [4, 64, 64], "f32")], [S("a", gs=2)]))
    C.append(case("shared_root_gs2_a4_bf16", sm, [alloc("a", [4, 64, 64], "bf16")], [S("a", gs=2)]))
    C.append(case("shared_root_gs2_a4_tmem", tm, [tmem_alloc("a", [4, 128, 64], "f32")], [S("a", gs=2)]))
    C.append(case("python_group_size_identity", sm, [
        alloc("qk", [2, 64, 64], "f32"), alloc("p", [4, 64, 64], "f16")], [S("qk", S("p", gs=2))]))

    # --- lit: buffer-offset-alignment.mlir ------------------------------------
    # (the lit file uses a rank-2 order on these 2-D allocations; a memdesc_index
    # result would then need a rank-1 encoding, so the default rank-1 order is used)
    C.append(case("lit_smem_distinct_shared_distinct_alignment", sm, [
        alloc("A", [4, 2], "f32"), alloc("B", [4, 2], "f32"), alloc("C", [1, 1], "bf16"),
        alloc("D", [4, 2], "f32")], [D(S("A", D("B", "C")), "D")]))
    C.append(case("lit_tmem_distinct_shared_distinct_alignment", tm, [
        tmem_alloc("A", [4, 32, 8], "f32", layout=DUMMY), tmem_alloc("B", [4, 32, 8], "f32", layout=DUMMY),
        tmem_alloc("C", [1, 32, 4], "bf16", layout=DUMMY), tmem_alloc("D", [4, 32, 8], "f32", layout=DUMMY)],
        [D(S("A", D("B", "C")), "D")]))
    C.append(case("lit_tmem_distinct_f32_i8", tm, [
        tmem_alloc("A", [4, 32, 8], "f32", layout=DUMMY), tmem_alloc("B", [4, 32, 4], "i8", layout=DUMMY)],
        [D("A", "B")]))

    # --- lit: buffer-offset-calculation.mlir ----------------------------------
    C.append(case("lit_shared_reuse_group_basic", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f16")], [S("a", "b")]))
    C.append(case("lit_distinct_reuse_group_basic", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("lit_nested_shared_distinct", sm, [
        alloc("qk", [2, 64, 64], "f32"), alloc("p", [2, 64, 64], "f16"), alloc("alpha", [2, 64], "f32")],
        [S("qk", D("p", "alpha"))]))
    C.append(case("lit_nested_distinct_shared", sm, [
        alloc("a", [2, 32, 32], "f32"), alloc("b", [2, 32, 32], "f32"), alloc("c", [2, 32, 32], "f16")],
        [D("a", S("b", "c"))]))
    C.append(case("lit_no_set_buffer_overlap", sm, [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("lit_single_allocation_reuse_group", sm, [alloc("a", [2, 64, 64], "f32")], [S("a")]))
    C.append(case("lit_shared_different_sizes_same_type", sm, [
        alloc("a", [2, 64, 64], "f16"), alloc("b", [2, 32, 32], "f16")], [S("a", "b")]))
    C.append(case("lit_shared_reuse_group_three_elements", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 32, 32], "f32"), alloc("c", [2, 16, 16], "f32")],
        [S("a", "b", "c")]))
    C.append(case("lit_distinct_reuse_group_three_elements", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32"), alloc("c", [2, 64, 64], "f32")],
        [D("a", "b", "c")]))
    # --- lit: buffer-layout errors / offset errors --------------------------------
    C.append(case("lit_bytes_between_not_divisible_error", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 32], "f32")], [D("a", "b")]))
    C.append(case("lit_bytes_between_not_divisible_error_2", sm, [
        alloc("a", [2, 128, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("lit_duplicate_set_buffer_overlap", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f16")], [S("a", "b"), D("a", "b")]))
    # --- lit: storage-alias allocation sizes --------------------------------------
    for dt, shape in (("f32", [2, 64, 64]), ("f16", [2, 64, 64]), ("bf16", [4, 128, 32]), ("i8", [8, 16, 16]),
                      ("ptr", [2, 8, 8]), ("f8e5m2", [4, 128, 64]), ("f8e4m3", [4, 128, 64]),
                      ("i32", [2, 32, 32]), ("i64", [2, 16, 16]), ("f64", [1, 32, 32]), ("i16", [2, 32, 32]),
                      ("i4", [2, 64, 64]), ("f4", [2, 64, 64]), ("i1", [2, 64, 64]), ("i1", [2, 8, 4])):
        C.append(case("lit_alloc_single_%s_%s" % (dt, "x".join(map(str, shape))), sm, [alloc("a", shape, dt)]))
    C.append(case("lit_alloc_multiple_users_picks_max", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "bf16")]))
    C.append(case("lit_alloc_independent_specs", [spec("s0"), spec("s1")], [
        alloc("a", [2, 64, 64], "f32", "s0"), alloc("b", [4, 32, 32], "f16", "s1")]))
    C.append(case("lit_alloc_explicit_size_larger", [spec(size=65536)], [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("lit_alloc_tmem_buffer_2d", tm, [tmem_alloc("a", [128, 64], "f16", layout=tmem_lay(128, 64, 2))]))
    C.append(case("lit_alloc_tmem_explicit_size_larger", [spec(storage=T, size=65536)],
                  [tmem_alloc("a", [128, 64], "f16", layout=tmem_lay(128, 64, 2))]))

    # --- python-test trees ------------------------------------------------------
    C.append(case("py_shared_different_sizes_f32_bf16", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "bf16")], [S("a", "b")]))
    C.append(case("py_nested_shared_distinct", sm, [
        alloc("qk", [2, 64, 64], "f32"), alloc("p", [2, 64, 64], "bf16"), alloc("alpha", [2, 64, 32], "f32")],
        [S("qk", D("p", "alpha"))]))
    C.append(case("py_reuse_group_with_group_size", sm, [
        alloc("qk", [2, 64, 64], "f32"), alloc("p", [4, 64, 64], "f16")], [S("qk", S("p", gs=2))]))
    C.append(case("py_basic_shared_f16", sm, [
        alloc("a", [2, 64, 64], "f16"), alloc("b", [2, 64, 64], "f16")], [S("a", "b")]))
    C.append(case("py_distinct_f16", sm, [
        alloc("a", [2, 64, 64], "f16"), alloc("b", [2, 64, 64], "f16")], [D("a", "b")]))
    C.append(case("py_shared_different_element_sizes_f32_f16", sm, [
        alloc("a_f32", [2, 64, 64], "f32"), alloc("b_f16", [2, 64, 64], "f16")], [S("a_f32", "b_f16")]))
    C.append(case("py_gemm_2cta_alias_acc", tm, [tmem_alloc("buffers", [1, 64, 128], "f32", layout=rhs)]))

    # --- explicit sizes -----------------------------------------------------------
    C.append(case("explicit_size_smem_too_small", [spec(size=1024)], [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("explicit_size_smem_exact", [spec(size=32768)], [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("explicit_size_smem_larger_tree", [spec(size=131072)], [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("explicit_size_smem_too_small_tree", [spec(size=32768)], [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("explicit_size_smem_non_pow2", [spec(size=40000)], [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("explicit_size_tmem_20000", [spec(storage=T, size=20000)],
                  [tmem_alloc("a", [1, 128, 16], "f32")]))
    C.append(case("explicit_size_tmem_too_small", [spec(storage=T, size=4096)],
                  [tmem_alloc("a", [2, 128, 128], "f32")]))
    C.append(case("explicit_size_tmem_larger_pow2", [spec(storage=T, size=262144)],
                  [tmem_alloc("a", [2, 128, 128], "f32"), tmem_alloc("b", [2, 128, 128], "f32")], [S("a", "b")]))
    C.append(case("explicit_size_tmem_exact", [spec(storage=T, size=131072)],
                  [tmem_alloc("a", [2, 128, 128], "f32")]))

    # --- unused spec, no overlap, multiple overlaps, verifier errors ---------------------
    C.append(case("unused_spec_only", sm, []))
    C.append(case("unused_spec_with_used_spec", [spec("s0"), spec("s1")], [alloc("a", [2, 64, 64], "f32", "s1")]))
    C.append(case("unused_spec_tmem", [spec("s0", T)], []))
    C.append(case("no_overlap_max_of_users_smem", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [4, 64, 64], "bf16"), alloc("c", [1, 128, 128], "f32")]))
    C.append(case("no_overlap_max_of_users_tmem", tm, [
        tmem_alloc("a", [2, 128, 128], "f32"), tmem_alloc("b", [4, 128, 64], "bf16"),
        tmem_alloc("c", [1, 64, 256], "f32")]))
    C.append(case("two_overlaps_same_spec_error", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [S("a"), S("b")]))
    C.append(case("two_overlaps_two_specs_ok", [spec("s0"), spec("s1")], [
        alloc("a", [2, 64, 64], "f32", "s0"), alloc("b", [2, 64, 64], "f16", "s0"),
        alloc("c", [2, 32, 32], "f32", "s1"), alloc("d", [2, 32, 32], "f32", "s1")],
        [("s0", S("a", "b")), ("s1", D("c", "d"))]))
    C.append(case("two_specs_interleaved_smem_tmem", [spec("s0"), spec("s1", T)], [
        tmem_alloc("t0", [2, 128, 64], "f32", "s1"), alloc("a", [2, 64, 64], "f32", "s0"),
        tmem_alloc("t1", [2, 128, 64], "bf16", "s1"), alloc("b", [2, 64, 64], "f32", "s0")],
        [("s1", D("t0", "t1")), ("s0", D("a", "b"))]))
    C.append(case("duplicate_elements_error", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "a")]))
    C.append(case("duplicate_elements_nested_error", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [S("a", D("b", "a"))]))
    C.append(case("element_from_other_spec_error", [spec("s0"), spec("s1")], [
        alloc("a", [2, 64, 64], "f32", "s0"), alloc("b", [2, 64, 64], "f32", "s1")], [("s0", D("a", "b"))]))
    C.append(case("storage_mismatch_smem_spec_tmem_alloc", sm, [tmem_alloc("a", [2, 128, 64], "f32")]))
    C.append(case("storage_mismatch_tmem_spec_smem_alloc", tm, [alloc("a", [2, 64, 64], "f32")]))
    C.append(case("alloc_not_in_tree_smem", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32"), alloc("c", [2, 32, 32], "f16")],
        [D("a", "b")]))
    C.append(case("alloc_not_in_tree_larger_smem", sm, [
        alloc("a", [2, 32, 32], "f32"), alloc("b", [2, 32, 32], "f32"), alloc("c", [4, 64, 64], "f32")],
        [S("a", "b")]))
    C.append(case("alloc_not_in_tree_tmem", tm, [
        tmem_alloc("a", [2, 128, 64], "f32"), tmem_alloc("b", [2, 128, 64], "f32"),
        tmem_alloc("c", [2, 128, 32], "f32")], [D("a", "b")]))
    C.append(case("nested_groups_with_sizes_smem", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [4, 32, 64], "f32"), alloc("c", [8, 32, 32], "f32"),
        alloc("d", [4, 32, 32], "f32")], [S("a", D(S("b", gs=2), S(S("c", gs=2), "d", gs=2)))]))
    C.append(case("nested_groups_with_sizes_tmem", tm, [
        tmem_alloc("a", [2, 128, 128], "f32"), tmem_alloc("b", [4, 128, 32], "f32"),
        tmem_alloc("c", [8, 128, 16], "f32"), tmem_alloc("d", [4, 128, 16], "f32")],
        [S("a", D(S("b", gs=2), S(S("c", gs=2), "d", gs=2)))]))
    C.append(case("distinct_group_size_ignored_smem", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f32")], [D("a", "b", gs=2)]))
    C.append(case("distinct_group_size_ignored_tmem", tm, [
        tmem_alloc("a", [2, 128, 64], "f32"), tmem_alloc("b", [2, 128, 64], "f32")], [D("a", "b", gs=4)]))
    C.append(case("shared_gs4_subtiles_smem", sm, [
        alloc("a", [2, 128, 128], "f32"), alloc("p", [8, 128, 32], "f32")], [S("a", S("p", gs=4))]))
    C.append(case("shared_gs2_scale_gt1_smem", sm, [
        alloc("a", [2, 128, 128], "f32"), alloc("p", [4, 64, 64], "f32")], [S("a", S("p", gs=2))]))
    C.append(case("tmem_overflow_distinct_single_buffer", tm, [
        tmem_alloc("a", [1, 128, 128], "f32"), tmem_alloc("b", [1, 128, 128], "f32")], [D("a", "b")]))
    C.append(case("smem_mixed_buffer_counts_distinct", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [4, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("smem_single_buffer_scale_gt1", sm, [
        alloc("a", [1, 64, 64], "f32"), alloc("b", [1, 64, 64], "f32")], [D("a", "b")]))
    C.append(case("smem_buffer_offset_not_divisible", sm, [
        alloc("a", [2, 32], "f32"), alloc("b", [2, 64], "f32"), alloc("c", [2, 32], "f32")], [D("a", "b", "c")]))
    C.append(case("tmem_gs_split_not_divisible", tm, [
        tmem_alloc("a", [2, 128, 32], "f32"), tmem_alloc("c", [4, 128, 32], "f32")], [D("a", S("c", gs=2))]))
    C.append(case("tmem_distinct_three_equal_columns", tm, [
        tmem_alloc("a", [2, 128, 32], "f32"), tmem_alloc("b", [2, 128, 32], "f32"),
        tmem_alloc("c", [2, 128, 32], "f32")], [D("a", "b", "c")]))
    C.append(case("smem_ptr_outside_tree", sm, [
        alloc("a", [2, 64, 64], "f32"), alloc("b", [2, 64, 64], "f16"), alloc("p", [2, 16, 16], "ptr")],
        [S("a", "b")]))
    C.append(case("smem_ptr_no_tree_max", sm, [
        alloc("a", [2, 16, 16], "f32"), alloc("p", [2, 16, 16], "ptr")]))
    # --- layouts that do not matter to the pass ----------------------------------
    C.append(case("smem_nvmma_layouts_shared", sm, [
        alloc("a", [2, 128, 64], "bf16", layout=nvmma(128, 16)),
        alloc("b", [2, 64, 64], "f8e4m3", layout=nvmma(64, 8, True)),
        alloc("c", [2, 64, 64], "f4", layout=nvmma(128, 8, False, True))], [S("a", "b", "c")]))
    C.append(case("smem_swizzled_layouts_distinct", sm, [
        alloc("a", [2, 64, 64], "f16", layout=swz([1, 0], 8, 1, 8)),
        alloc("b", [2, 64, 64], "f16", layout=swz([0, 1], 4, 2, 4))], [D("a", "b")]))
    # --- TMEM dtypes / encodings ----------------------------------------------------
    C.append(case("tmem_dummy_sub16_shared", tm, [
        tmem_alloc("a", [2, 128, 128], "f32"), tmem_alloc("b", [2, 128, 128], "i8", layout=DUMMY),
        tmem_alloc("c", [2, 128, 128], "f4", layout=DUMMY), tmem_alloc("d", [2, 128, 64], "i1", layout=DUMMY)],
        [S("a", "b", "c", "d")]))
    C.append(case("tmem_fp8_col_stride_variants", tm, [
        tmem_alloc("a", [2, 128, 128], "f8e4m3"),
        tmem_alloc("b", [2, 128, 128], "f8e5m2", layout=tmem_lay(128, 128, 2)),
        tmem_alloc("c", [2, 128, 128], "f8e4m3", layout=tmem_lay(128, 128, 4))], [D("a", "b", "c")]))
    C.append(case("tmem_blockm64_rows128", tm, [
        tmem_alloc("a", [2, 128, 64], "f32", layout=tmem_lay(64, 64)), tmem_alloc("b", [2, 128, 64], "f32")],
        [D("a", "b")]))
    C.append(case("tmem_blockn_smaller_than_n", tm, [
        tmem_alloc("a", [2, 128, 256], "f32", layout=tmem_lay(128, 128)), tmem_alloc("b", [2, 128, 128], "f32")],
        [S("a", "b")]))
    C.append(case("tmem_2d_alloc_in_tree", tm, [
        tmem_alloc("a", [128, 64], "f32"), tmem_alloc("b", [128, 64], "f32")], [D("a", "b")]))
    C.append(case("tmem_m256_clamped", tm, [tmem_alloc("a", [2, 64, 64], "f32",
                                                          layout=tmem_lay(64, 64, 1, True, "two_cta_lhs")),
                                               tmem_alloc("b", [1, 128, 128], "f32",
                                                          layout=tmem_lay(128, 128, 1, True, "two_cta_lhs"))]))
    # --- shapes the memdesc verifier rejects --------------------------------------------
    C.append(case("verifier_non_pow2_tile_48x96", sm, [alloc("a", [2, 48, 96], "bf16")]))
    C.append(case("non_pow2_buffer_count_3", sm, [alloc("a", [3, 64, 64], "bf16")]))
    C.append(case("non_pow2_buffer_count_3_distinct", sm, [
        alloc("a", [3, 64, 64], "bf16"), alloc("b", [3, 64, 64], "bf16")], [D("a", "b")]))
    C.append(case("non_pow2_buffer_count_3_tmem_shared", tm, [
        tmem_alloc("a", [3, 128, 128], "f32"), tmem_alloc("b", [3, 128, 64], "f32")], [S("a", "b")]))
    C.append(case("verifier_non_pow2_1d_tile_48", sm, [alloc("a", [2, 48], "f32")]))
    C.append(case("verifier_tmem_f64", tm, [tmem_alloc("a", [2, 128, 64], "f64")]))
    C.append(case("verifier_tmem_rows_below_blockm", tm, [
        tmem_alloc("a", [2, 64, 64], "f32", layout=tmem_lay(128, 64))]))
    return C


# ----------------------------------------------------------------------------
# random cases
# ----------------------------------------------------------------------------

SMEM_DTYPES = (["f32"] * 6 + ["f16"] * 4 + ["bf16"] * 4 + ["f8e4m3", "f8e5m2", "i8", "i16", "i32", "i64",
                                                           "f64", "i4", "f4", "i1", "ptr"])
TMEM_DTYPES = ["f32"] * 8 + ["bf16"] * 3 + ["f16"] * 3 + ["i32", "f8e4m3", "f8e5m2", "i8", "i16", "i4", "f4", "i1"]


def random_tree(rng, names, depth, max_depth=3):
    """Random reuse tree over ``names`` (all of them used once)."""
    if len(names) == 1 and (depth >= max_depth or rng.random() < 0.75):
        return names[0]
    if depth >= max_depth:
        kind = rng.choice(["shared", "distinct"])
        return {"kind": kind, "group_size": 1, "children": list(names)}
    kind = rng.choice(["shared", "distinct"])
    gs = 1
    r = rng.random()
    if kind == "shared" and r < 0.25:
        gs = rng.choice([2, 2, 4])
    elif kind == "distinct" and r < 0.06:
        gs = 2
    if len(names) == 1:
        return {"kind": kind, "group_size": gs, "children": [random_tree(rng, names, depth + 1, max_depth)]}
    k = rng.randint(1, len(names)) if rng.random() < 0.4 else len(names)
    # split names into k consecutive non-empty parts
    cuts = sorted(rng.sample(range(1, len(names)), k - 1)) if k > 1 else []
    parts, prev = [], 0
    for c in cuts + [len(names)]:
        parts.append(names[prev:c])
        prev = c
    if len(parts) == 1:
        # a single group child: make it a direct list of leaves or recurse once
        if rng.random() < 0.7:
            children = [random_tree(rng, [n], depth + 1, max_depth) for n in names]
        else:
            children = [random_tree(rng, names, depth + 1, max_depth)]
    else:
        children = [random_tree(rng, p, depth + 1, max_depth) for p in parts]
    return {"kind": kind, "group_size": gs, "children": children}


def shared_gs_factor(node, name, acc=1):
    """Product of the group sizes of the shared ancestors of leaf ``name`` (or None)."""
    if isinstance(node, str):
        return acc if node == name else None
    f = acc * node["group_size"] if node["kind"] == "shared" else acc
    for c in node["children"]:
        r = shared_gs_factor(c, name, f)
        if r is not None:
            return r
    return None


def prod(xs):
    p = 1
    for x in xs:
        p *= x
    return p


def pow2(rng, lo, hi):
    return 2 ** rng.randint(lo, hi)


def random_smem_alloc(rng, name, spec_name, n, in_tree):
    # Pointers in a tree make the pass assert (getIntOrFloatBitWidth on a
    # pointer type, caught as a signal): only allocations outside any tree.
    dt = rng.choice([d for d in SMEM_DTYPES if d != "ptr" or not in_tree])
    bits = DTYPES[dt][1]
    while True:
        r = rng.random()
        if r < 0.12:
            tile = [pow2(rng, 0, 8)]
        elif r < 0.2:
            tile = [pow2(rng, 0, 3), pow2(rng, 0, 3)]
        else:
            tile = [pow2(rng, 3, 7), pow2(rng, 3, 7)]
        # a sub-byte tile smaller than one byte has unit size 0 -> division by zero
        if not in_tree or prod(tile) * bits >= 8:
            break
    layout = None
    r = rng.random()
    if r < 0.15:
        order = list(range(len(tile) - 1, -1, -1))
        if len(tile) == 2 and rng.random() < 0.3:
            order = [0, 1]
        layout = swz(order, rng.choice([1, 2, 4, 8]), rng.choice([1, 2]), rng.choice([1, 4, 8]))
    elif r < 0.3 and len(tile) == 2 and bits in (8, 16, 32):
        transposed = rng.random() < 0.3
        contig_bytes = tile[0 if transposed else 1] * bits // 8
        layout = nvmma(rng.choice([sw for sw in (0, 32, 64, 128) if sw <= contig_bytes]), bits, transposed)
    elif r < 0.33 and len(tile) == 2 and dt == "f4" and tile[1] >= 128:
        layout = nvmma(128, 8, False, True)
    return alloc(name, [n] + tile, dt, spec_name, layout)


def random_tmem_alloc(rng, name, spec_name, n, in_tree):
    dt = rng.choice(TMEM_DTYPES)
    bits = DTYPES[dt][1]
    m = rng.choice([64, 128, 128])
    nn = pow2(rng, 0, 8)
    layout = None
    if bits < 8 or (bits == 8 and rng.random() < 0.4):
        layout = DUMMY if rng.random() < 0.8 else None
    else:
        r = rng.random()
        if bits == 16 and r < 0.4:
            layout = tmem_lay(m, nn, 2)
        elif bits == 8 and r < 0.3:
            layout = tmem_lay(m, nn, rng.choice([2, 4]))
        elif bits == 32 and r < 0.08:
            layout = tmem_lay(m, nn, 1, rng.random() < 0.5, rng.choice(["two_cta_rhs", "two_cta_lhs"]))
        elif r < 0.15 and m == 128:
            layout = tmem_lay(64, nn)
        elif r < 0.2 and nn >= 2:
            layout = tmem_lay(m, nn // 2)
    if in_tree and (layout is None or layout["kind"] == "tmem"):
        # fewer than one 32-bit column per buffer -> division by zero in the pass
        cs = 1 if layout is None else layout["col_stride"]
        while nn * bits * cs < 32 or (layout is not None and layout["cta_mode"] == "two_cta_rhs" and nn < 2):
            nn *= 2
        if layout is not None and layout["block_n"] < nn // 2:
            layout["block_n"] = nn
    return tmem_alloc(name, [n, m, nn], dt, spec_name, layout)


def random_case(rng, name, storage, two_specs=False):
    specs = [spec("s0", storage)]
    spec_storages = {"s0": storage}
    if two_specs:
        st2 = rng.choice(["smem", "tmem"])
        specs.append(spec("s1", st2))
        spec_storages["s1"] = st2
    allocs = []
    overlaps = []
    letters = "abcdefghij"
    li = 0
    for s in specs:
        na = rng.randint(1, 5) if not two_specs else rng.randint(1, 3)
        names = [letters[li + i] for i in range(na)]
        li += na
        with_tree = rng.random() < 0.9
        tree_names = list(names)
        if with_tree and na > 1 and rng.random() < 0.08:
            tree_names = tree_names[:-1]  # one allocation left out of the tree
        tree = random_tree(rng, tree_names, 0) if with_tree else None
        if isinstance(tree, str):
            tree = {"kind": rng.choice(["shared", "distinct"]), "group_size": 1, "children": [tree]}
        base = rng.choice([1, 2, 2, 2, 4])
        for nm in names:
            f = shared_gs_factor(tree, nm) if tree is not None else None
            if f is None:
                f = 1
            n = base * f if rng.random() < 0.85 else rng.choice([1, 2, 4, 8])
            n = min(n, 16)
            in_tree = tree is not None and nm in tree_names
            if spec_storages[s["name"]] == "smem":
                allocs.append(random_smem_alloc(rng, nm, s["name"], n, in_tree))
            else:
                allocs.append(random_tmem_alloc(rng, nm, s["name"], n, in_tree))
        if tree is not None:
            overlaps.append({"spec": s["name"], "tree": tree})
        if rng.random() < 0.07:
            s["size"] = rng.choice([2 ** rng.randint(8, 18), 2 ** rng.randint(12, 18) * 3])
    # program order: tree order most of the time, shuffled sometimes
    if rng.random() < 0.3 or two_specs:
        rng.shuffle(allocs)
    if two_specs and rng.random() < 0.5:
        overlaps.reverse()
    return {"name": name, "specs": specs, "allocs": allocs, "overlaps": overlaps}


def random_cases():
    rng = random.Random(SEED)
    out = []
    for i in range(160):
        out.append(random_case(rng, "rand_smem_%03d" % i, "smem"))
    for i in range(160):
        out.append(random_case(rng, "rand_tmem_%03d" % i, "tmem"))
    for i in range(40):
        out.append(random_case(rng, "rand_two_specs_%03d" % i, rng.choice(["smem", "tmem"]), two_specs=True))
    return out


# ----------------------------------------------------------------------------
# main
# ----------------------------------------------------------------------------

def is_random(name):
    return name.startswith("rand_")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--python", default=sys.executable, help="interpreter with fbtriton 3.7.4")
    ap.add_argument("--only", default=None, help="regex: run only matching case names, print results")
    args = ap.parse_args()

    t0 = time.time()
    cases = named_cases() + random_cases()
    names = [c["name"] for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    if args.only:
        cases = [c for c in cases if re.search(args.only, c["name"])]
    worker = Worker(args.python)
    kept, dropped, asserted = [], [], []
    for c in cases:
        c["mlir"] = render_mlir(c)
        res = worker.run(c["mlir"])
        try:
            exp, why = interpret(c, res)
        except Exception as e:  # extraction problem: report, drop
            exp, why = None, "extract: %s: %s" % (type(e).__name__, e)
        # Random cases whose module the type/attribute verifiers reject are
        # not interesting (the generator produced an invalid memdesc): drop.
        if exp is not None and is_random(c["name"]) and not exp["ok"] and not res.get("parsed") and \
                not exp["error"].startswith("'tlx."):
            exp, why = None, "random case rejected by a type verifier: " + exp["error"]
        if exp is None:
            dropped.append((c["name"], why))
            continue
        c["expected"] = exp
        kept.append(c)
        if "Assertion" in res.get("stderr", "") or "signal was caught" in res.get("stderr", ""):
            asserted.append(c["name"])
        if args.only:
            print(c["name"], json.dumps(exp))
    worker.close()
    if args.only:
        for n, why in dropped:
            print("DROPPED", n, why)
        return

    ok = sum(1 for c in kept if c["expected"]["ok"])
    warn = sum(1 for c in kept if c["expected"]["warnings"])
    doc = {
        "generator": "tools/gen_tlx_alias_goldens.py",
        "fbtriton_version": "3.7.4+fb",
        "seed": SEED,
        "counts": {"cases": len(kept), "ok": ok, "error": len(kept) - ok, "with_warnings": warn,
                   "dropped": len(dropped)},
        "dtypes": {k: v[0] for k, v in DTYPES.items()},
    }
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        f.write("{\n")
        for k, v in doc.items():
            f.write(" %s: %s,\n" % (json.dumps(k), json.dumps(v)))
        f.write(' "cases": [\n')
        f.write(",\n".join("  " + json.dumps(c, separators=(",", ":")) for c in kept))
        f.write("\n ]\n}\n")
    print("wrote %s: %d cases (%d ok, %d error, %d with warnings), %d dropped, %d worker restarts, %.1fs"
          % (args.out, len(kept), ok, len(kept) - ok, warn, len(dropped), worker.restarts, time.time() - t0))
    for n, why in dropped:
        print("  dropped %s: %s" % (n, why))
    if asserted:
        print("  kept despite a (recovered) C++ assertion in the pass: " + ", ".join(asserted))


if __name__ == "__main__":
    if len(sys.argv) >= 2 and sys.argv[1] == "--worker":
        worker_main(sys.argv[2])
    else:
        main()
