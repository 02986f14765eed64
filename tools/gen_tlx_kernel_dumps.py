#!/usr/bin/env python3
"""Golden-data generator: real TLX tutorial kernels -> TTGIR around the storage-alias passes.

Compiles the TLX tutorial kernels that ship inside the ``fbtriton`` 3.7.4 wheel
(``triton/language/extra/tlx/tutorials/``: Blackwell Flash-Attention forward and
backward, 1-CTA and 2-CTA, the mxfp8 variant, the legacy ``reuse=<buffer>`` kernels,
HSTU cross-attention; several of them under more than one autotune config)
for ``cuda:100`` on a machine WITHOUT a GPU, and keeps, per kernel, the module

* ``before.mlir``  — as ``tlx-storage-alias-lowering`` receives it,
* ``lowered.mlir`` — as that pass leaves it (the input of the next pass),
* ``rewritten.mlir`` — as ``tlx-rewrite-local-alias`` leaves it,

in ``alias-alloc/tests/data/tlx_kernels/<kernel>/``.  Locations are stripped
(``mlir-print-debuginfo`` is off), so the files are what ``MLIR_ENABLE_DUMP=1``
prints for a user.

How it reaches the TTGIR passes without a GPU:

* ``torch`` (and ``pytest``, ``triton._internal_testing``) is replaced by a stub module
  (the tutorials import it at module level and use it only on the host path we never run);
* the active Triton driver is a stub that answers ``cuda:100``;
* each kernel is compiled with ``triton.compile(ASTSource(...), target=...)`` for
  ONE fixed autotune config (the first ``triton.Config`` of the tutorial whose kwargs
  match the entry's ``config``), with tensor descriptors typed by hand;
* ``MLIR_ENABLE_DUMP=1`` makes the pass manager print the module before every
  pass; the run is stopped after ``tlx-rewrite-local-alias`` by raising from a
  pass-manager hook is not possible, so compilation goes on until it fails or
  ends (ptxas, if reached, runs on the bundled binary; its result is ignored).

How to run::

    python -m venv /root/fbvenv && /root/fbvenv/bin/pip install fbtriton==3.7.4
    /root/fbvenv/bin/python tools/gen_tlx_kernel_dumps.py [--out DIR] [--only NAME]

Every kernel runs in its own subprocess (``--worker NAME``), so a crash in one
cannot hide another's result.
"""

import argparse
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_OUT = os.path.join(HERE, "..", "alias-alloc", "tests", "data", "tlx_kernels")

# The passes around which the module is kept (MLIR's pass names in the dump
# headers: "// -----// IR Dump Before <Class> (<arg>) ('builtin.module' ...".
BEFORE = "tlx-storage-alias-lowering"
AFTER_LOWERING = "tlx-resolve-placeholder-layouts"
REWRITE = "tlx-rewrite-local-alias"

# One entry per kernel: tutorial file, kernel, the autotune config to compile
# (the first one whose kwargs match ``config``), extra constexprs, and the types
# of the runtime arguments as a function of the config (TMA descriptors get the
# block shape the tutorial's pre-hook would set).  ``file`` is relative to the
# wheel's tutorials folder; ``repo_file`` is read from a facebookexperimental/triton
# mirror at ``REPO_COMMIT`` (``--repo GIT_DIR``).
REPO_COMMIT = "db4666f22"


def desc(dtype, shape):
    return f"tensordesc<{dtype}[{','.join(str(d) for d in shape)}]>"


def fa_fwd_sig(c, q="bf16", o="bf16", hd=None):
    hd = hd or c.get("HEAD_DIM", 128)
    split = c["BLOCK_M"] // c["NUM_MMA_GROUPS"]
    v_block = [c["BLOCK_N"], hd]
    if c.get("FP8_OUTPUT"):
        # q.dtype == float8_e5m2: o = empty_like(q), and V is passed transposed.
        q = o = "fp8e5"
        v_block = [hd, c["BLOCK_N"]]
    return {
        "sm_scale": "fp32", "M": "*fp32", "Z": "i32", "H": "i32", "N_CTX": "i32",
        "desc_q": desc(q, [split, hd]), "desc_k": desc(q, [c["BLOCK_N"], hd]),
        "desc_v": desc(q, v_block), "desc_o": desc(o, [split, hd]),
    }


def fa_bwd_sig(c, hd=None):
    hd = hd or c.get("HEAD_DIM", 128)
    ctas = c["NUM_CTAS"]
    m1, n1 = c["BLOCK_M1"], c["BLOCK_N1"]
    dq_cols = hd // c["EPILOGUE_SUBTILE"] if ctas > 1 else c["DQ_REDUCE_NCOL"]
    return {
        "desc_q": desc("bf16", [1, 1, m1, hd // ctas]), "desc_k": desc("bf16", [1, 1, n1, hd]),
        "desc_v": desc("bf16", [1, 1, n1, hd]), "sm_scale": "fp32",
        "desc_do": desc("bf16", [1, 1, m1, hd // ctas]), "desc_dq": desc("fp32", [1, 1, m1, dq_cols]),
        "desc_dk": desc("bf16", [1, 1, n1, c["DKV_STORE_NCOL"]]),
        "desc_dv": desc("bf16", [1, 1, n1, c["DKV_STORE_NCOL"]]),
        "desc_m": desc("fp32", [m1]), "desc_delta": desc("fp32", [m1]),
        "M_ptr": "*fp32", "delta_ptr": "*fp32", "H": "i32", "Z": "i32", "N_CTX": "i32",
        "desc_kt": desc("bf16", [1, 1, n1 * ctas, hd // ctas]),
        "desc_qt": desc("bf16", [1, 1, m1 // ctas, hd]),
        "desc_dot": desc("bf16", [1, 1, m1 // ctas, hd]),
    }


def mxfp8_fwd_sig(c, hd=128):
    split = c["BLOCK_M"] // c["NUM_MMA_GROUPS"]
    rep_m = -(-split // 128)
    rep_n = -(-(-(-c["BLOCK_N"] // 32)) // 4)
    rep_h = -(-hd // 128)
    sig = fa_fwd_sig(c, q="fp8e4nv", o="bf16", hd=hd)
    del sig["M"]
    sig.update({
        "desc_m": desc("fp32", [split]),
        "desc_q_scale": desc("u8", [1, rep_m, rep_h, 2, 256]),
        "desc_k_scale": desc("u8", [1, rep_n, rep_h, 2, 256]),
        "desc_v_scale": desc("u8", [1, rep_h, rep_n, 2, 256]),
    })
    return sig


def mxfp8_bwd_sig(c, hd=128):
    m1, n1 = c["BLOCK_M1"], c["BLOCK_N1"]
    rep_m = -(-m1 // 128)
    rep_n = -(-(-(-n1 // 32)) // 4)
    rep_h = -(-(-(-hd // 32)) // 4)
    f8 = "fp8e4nv"
    sig = {
        "desc_q": desc(f8, [1, 1, m1, hd]), "desc_q_dk": desc(f8, [1, 1, m1, hd]),
        "desc_k": desc(f8, [1, 1, n1, hd]), "desc_k_dq": desc(f8, [1, 1, n1, hd]),
        "desc_v": desc(f8, [1, 1, n1, hd]), "desc_do": desc(f8, [1, 1, m1, hd]),
        "desc_do_dv": desc(f8, [1, 1, m1, hd]),
        "desc_dq": desc("fp32", [1, 1, m1, c["DQ_REDUCE_NCOL"]]),
        "desc_dk": desc("bf16", [1, 1, n1, hd // c["EPILOGUE_SUBTILE"]]),
        "desc_dv": desc("bf16", [1, 1, n1, hd // c["EPILOGUE_SUBTILE"]]),
        "sm_scale": "fp32", "desc_m": desc("fp32", [m1]), "desc_delta": desc("fp32", [m1]),
        "Z": "i32", "H": "i32", "N_CTX": "i32",
        "desc_q_scale": desc("u8", [1, rep_m, rep_h, 2, 256]),
        "desc_q_dk_scale": desc("u8", [1, rep_h, rep_m, 2, 256]),
        "desc_k_scale": desc("u8", [1, rep_n, rep_h, 2, 256]),
        "desc_k_dq_scale": desc("u8", [1, rep_h, rep_n, 2, 256]),
        "desc_v_scale": desc("u8", [1, rep_n, rep_h, 2, 256]),
        "desc_do_scale": desc("u8", [1, rep_m, rep_h, 2, 256]),
        "desc_do_dv_scale": desc("u8", [1, rep_h, rep_m, 2, 256]),
    }
    return sig


def cross_attn_sig(c, q_rows, hd=128, dv=128):
    """HSTU cross-attention (``triton_hstu_cross_attn_fwd``): bf16 q/k/v/out, int64 offsets."""
    return {
        "alpha": "fp32", "Z": "i32", "H": "i32",
        "desc_q": desc("bf16", [q_rows, hd]), "desc_k": desc("bf16", [c["BLOCK_N"], hd]),
        "desc_v": desc("bf16", [c["BLOCK_N"], dv]), "Out": "*bf16",
        "seq_offsets_q": "*i64", "seq_offsets": "*i64", "max_seq_len": "i32",
        "stride_qh": "i32", "stride_kh": "i32", "stride_vh": "i32", "stride_om": "i32", "stride_oh": "i32",
    }


def cross_attn_single_q_sig(c):
    # _host_descriptor_pre_hook_ws: Q's block is the whole BLOCK_M.
    return cross_attn_sig(c, c["BLOCK_M"])


def cross_attn_pipeline_sig(c):
    # _host_descriptor_pre_hook: Q's block is BLOCK_M / NUM_MMA_GROUPS.
    return cross_attn_sig(c, c["BLOCK_M"] // c["NUM_MMA_GROUPS"])


def triple_gemm_sig(_c):
    sig = {n: "*fp16" for n in ["A1", "B1", "C1", "A2", "B2", "C2"]}
    sig.update({n: "*bf16" for n in ["A3", "B3", "C3"]})
    sig.update({"M": "i32", "N": "i32", "K": "i32"})
    return sig


def pr739(commit):
    """The forward persistent tutorial of the fork at `commit` (facebookexperimental/triton#739)."""
    return {
        "repo_file": "third_party/tlx/tutorials/blackwell-fa-ws-pipelined-persistent_test.py",
        "commit": commit,
        "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "FP8_OUTPUT": False},
        "config": {"NUM_BUFFERS_KV": 3, "GROUP_SIZE_N": 1},
        "signature": fa_fwd_sig,
    }


def pr1992(commit):
    """The 2-CTA attention backward of the fork at `commit` (facebookexperimental/triton#1992)."""
    return {
        "repo_file": "third_party/tlx/tutorials/blackwell_fa_ws_pipelined_persistent.py",
        "commit": commit,
        "kernel": "_attn_bwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "BLK_SLICE_FACTOR": 2},
        "config": {"NUM_CTAS": 2},
        "signature": fa_bwd_sig,
    }


KERNELS = {
    # Blackwell FA forward, persistent, warp-specialised: a TMEM spec whose
    # QK tile is shared with P (sliced), alpha, l and m.
    "fa_fwd_persistent": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1},
        "config": {"NUM_BUFFERS_KV": 3, "GROUP_SIZE_N": 1, "RESCALE_OPT": False, "USE_WARP_BARRIER": False},
        "signature": fa_fwd_sig,
    },
    # Its backward pass, 1-CTA (BLOCK_M1 = 64) ...
    "fa_bwd_1cta": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_bwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "BLK_SLICE_FACTOR": 2},
        "config": {"NUM_CTAS": 1, "USE_WARP_BARRIER": False},
        "signature": fa_bwd_sig,
    },
    # ... and 2-CTA (ctas_per_cga = (2, 1, 1), TwoCTA TMEM operands).
    "fa_bwd_2cta": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_bwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "BLK_SLICE_FACTOR": 2},
        "config": {"NUM_CTAS": 2},
        "signature": fa_bwd_sig,
    },
    # The mxfp8 forward: fp8 P and E8M0 scales in TMEM.
    "fa_fwd_mxfp8": {
        "file": "blackwell_fa_ws_pipelined_persistent_mxfp8.py", "kernel": "_attn_fwd_mxf8_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1},
        "config": {},
        "signature": mxfp8_fwd_sig,
    },
    # The mxfp8 backward: one TMEM spec for S, P, dV, dP, dQ, dK, dS and six scale tiles.
    "fa_bwd_mxfp8": {
        "file": "blackwell_fa_ws_pipelined_persistent_mxfp8.py", "kernel": "_attn_bwd_mxf8_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "M_STAGE": 2, "D_STAGE": 2},
        "config": {},
        "signature": mxfp8_bwd_sig,
    },
    # FA with cluster launch control: a TMEM spec.
    "fa_clc": {
        "file": "blackwell_fa_clc.py", "kernel": "_attn_fwd_clc",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "NUM_SMS": 148, "NUM_CLC_STAGES": 1},
        "config": {"NUM_BUFFERS_KV": 3, "GROUP_SIZE_N": 1, "RESCALE_OPT": False, "USE_WARP_BARRIER": False},
        "signature": fa_fwd_sig,
    },
    # The legacy form: ``local_alloc(..., reuse=<buffered tensor>)``.
    "fa_ws_legacy_reuse": {
        "file": "blackwell_fa_ws.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "FP8_OUTPUT": False},
        "config": {},
        "signature": fa_fwd_sig,
    },
    # sched2tlx's multiphase GEMM: an SMEM spec whose shared group holds three
    # distinct groups with different buffer counts (2, 2, 3).
    "triple_gemm_multiphase": {
        "repo_file": "third_party/tlx/tools/sched2tlx/examples/case8_multiphase_gemm/generated.py",
        "kernel": "triple_gemm_nows",
        "constexprs": {},
        "config": None,
        "options": {"num_warps": 4, "num_stages": 2},
        "signature": triple_gemm_sig,
    },
    # History: facebookexperimental/triton#739 (bee3ddcb2, "Fix a potential race condition in
    # FA fwd"): the forward persistent kernel's qk_empties arrive, between the loads of l and m
    # (which share qk's TMEM) before the fix, after both loads with it. Written to
    # alias-alloc/tests/data/tlx_history/ (``--out``), read by the hazard check's tests.
    "fa_fwd_pr739_before": pr739("bee3ddcb2^"),
    "fa_fwd_pr739_after": pr739("bee3ddcb2"),
    # History: facebookexperimental/triton#1992 (fed3bd718, "Fix intra-task warp race on
    # aliased TMEM in the 2-CTA path"): before, nothing orders one warp group's qk / dp load
    # before the other's P / dsT store into the same TMEM columns; the fix adds named barriers.
    "fa_bwd_pr1992_before": pr1992("fed3bd718^"),
    "fa_bwd_pr1992_after": pr1992("fed3bd718"),
    # FA forward, pipelined (not persistent): legacy ``reuse=qk_tiles`` — bf16 P (4 buffers)
    # and alpha (256 buffers of 128x1 f32) over two f32 128x128 QK tiles (l, m are dead code);
    # the same allocations as fa_ws_legacy_reuse, pipelined code.
    "fa_ws_pipelined": {
        "file": "blackwell_fa_ws_pipelined.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "FP8_OUTPUT": False, "STAGE": 1},
        "config": {},
        "signature": fa_fwd_sig,
    },
    # The same with float8_e5m2 inputs (FP8_OUTPUT): P is an f8E5M2 view of the f32 QK tiles.
    "fa_ws_pipelined_fp8": {
        "file": "blackwell_fa_ws_pipelined.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "FP8_OUTPUT": True, "STAGE": 1},
        "config": {},
        "signature": fa_fwd_sig,
    },
    # FA forward, persistent (not pipelined): legacy ``reuse=qk_tiles`` for bf16 P and alpha.
    "fa_ws_persistent": {
        "file": "blackwell_fa_ws_persistent.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "FP8_OUTPUT": False, "STAGE": 1},
        "config": {},
        "signature": fa_fwd_sig,
    },
    # fa_fwd_persistent, causal (STAGE 3, GROUP_SIZE_N 4) with RESCALE_OPT + USE_WHERE and
    # warp barriers: the same TMEM spec and allocations; other code and barrier counts.
    "fa_fwd_persistent_rescale": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 3},
        "config": {"NUM_BUFFERS_KV": 3, "GROUP_SIZE_N": 4, "RESCALE_OPT": True, "USE_WHERE": True,
                   "USE_WARP_BARRIER": True},
        "signature": fa_fwd_sig,
    },
    # fa_fwd_persistent at HEAD_DIM 64 (the config the pruning keeps: 6 KV buffers): the same
    # TMEM spec beside a 128x64 accumulator and a deeper SMEM ring.
    "fa_fwd_persistent_hd64": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_fwd_ws",
        "constexprs": {"HEAD_DIM": 64, "STAGE": 1},
        "config": {"NUM_BUFFERS_KV": 6, "GROUP_SIZE_N": 1, "RESCALE_OPT": False, "USE_WARP_BARRIER": False},
        "signature": fa_fwd_sig,
    },
    # fa_bwd_1cta with warp barriers (the tutorial's second 1-CTA config): the same two TMEM
    # specs and legacy ``reuse=`` of the K/V tiles; only barrier arrive counts differ.
    "fa_bwd_1cta_warp_barrier": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_bwd_ws",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 1, "BLK_SLICE_FACTOR": 2},
        "config": {"NUM_CTAS": 1, "USE_WARP_BARRIER": True},
        "signature": fa_bwd_sig,
    },
    # fa_bwd_1cta at HEAD_DIM 64: two TMEM specs, and the dK/dV store buffers (128x64) cover
    # the 128x64 K/V tiles they reuse exactly.
    "fa_bwd_1cta_hd64": {
        "file": "blackwell_fa_ws_pipelined_persistent.py", "kernel": "_attn_bwd_ws",
        "constexprs": {"HEAD_DIM": 64, "STAGE": 1, "BLK_SLICE_FACTOR": 2},
        "config": {"NUM_CTAS": 1, "USE_WARP_BARRIER": False},
        "signature": fa_bwd_sig,
    },
    # fa_clc, causal with RESCALE_OPT and warp barriers: the same TMEM spec and allocations.
    "fa_clc_rescale": {
        "file": "blackwell_fa_clc.py", "kernel": "_attn_fwd_clc",
        "constexprs": {"HEAD_DIM": 128, "STAGE": 3, "NUM_SMS": 148, "NUM_CLC_STAGES": 1},
        "config": {"NUM_BUFFERS_KV": 3, "GROUP_SIZE_N": 4, "RESCALE_OPT": True, "USE_WHERE": False,
                   "USE_WARP_BARRIER": True},
        "signature": fa_fwd_sig,
    },
    # HSTU cross-attention, one Q tile: legacy ``reuse=qk_tiles``, bf16 P (4 buffers) over
    # two f32 128x128 QK tiles.
    "cross_attention": {
        "file": "blackwell-cross-attention.py", "kernel": "_attn_fwd_single_q",
        "constexprs": {"AUTOTUNE_MAX_Q_LEN": 256, "HEAD_DIM": 128, "BLOCK_D_V": 128},
        "config": {"BLOCK_M": 128, "BLOCK_N": 128, "NUM_BUFFERS_KV": 3},
        "signature": cross_attn_single_q_sig,
    },
    # The same with its smallest config (BLOCK_M = BLOCK_N = 64): P and QK are 64x64 tiles.
    "cross_attention_m64": {
        "file": "blackwell-cross-attention.py", "kernel": "_attn_fwd_single_q",
        "constexprs": {"AUTOTUNE_MAX_Q_LEN": 256, "HEAD_DIM": 128, "BLOCK_D_V": 128},
        "config": {"BLOCK_M": 64, "BLOCK_N": 64},
        "signature": cross_attn_single_q_sig,
    },
    # HSTU cross-attention, pipelined over two Q halves: legacy ``reuse=qk_tiles``, bf16 P
    # (4 buffers) over two f32 128x128 QK tiles.
    "cross_attention_pipeline": {
        "file": "blackwell-cross-attention.py", "kernel": "_attn_fwd_pipeline",
        "constexprs": {"AUTOTUNE_MAX_Q_LEN": 256, "HEAD_DIM": 128, "BLOCK_D_V": 128},
        "config": {"BLOCK_M": 256, "BLOCK_N": 128},
        "signature": cross_attn_pipeline_sig,
    },
    # The same with BLOCK_M 128, BLOCK_N 64: P and QK are 64x64 tiles.
    "cross_attention_pipeline_n64": {
        "file": "blackwell-cross-attention.py", "kernel": "_attn_fwd_pipeline",
        "constexprs": {"AUTOTUNE_MAX_Q_LEN": 256, "HEAD_DIM": 128, "BLOCK_D_V": 128},
        "config": {"BLOCK_M": 128, "BLOCK_N": 64},
        "signature": cross_attn_pipeline_sig,
    },
}


class _Anything:
    """Stands for any torch attribute: callable, indexable, comparable."""

    def __getattr__(self, name):
        return _Anything()

    def __call__(self, *args, **kwargs):
        return _Anything()

    def __getitem__(self, key):
        return _Anything()

    def __iter__(self):
        return iter(())

    def __bool__(self):
        return False

    def __hash__(self):
        return id(self)

    def __mro_entries__(self, bases):
        # A class deriving from a stub (`torch.autograd.Function`) gets a base whose class
        # attributes are stubs too (`_attention.apply` at module level).
        return (_AnythingBase, )


class _AnythingMeta(type):
    def __getattr__(cls, name):
        return _Anything()


class _AnythingBase(metaclass=_AnythingMeta):
    pass


class _StubFinder:
    """Imports ``torch``, ``torchao``, ``pytest`` and their submodules as stubs, and
    ``triton._internal_testing`` (it needs numpy; the tutorials only call its ``is_*``
    predicates at import time)."""

    ROOTS = ("torch", "torchao", "pytest")
    MODULES = ("triton._internal_testing", )

    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] not in self.ROOTS and name not in self.MODULES:
            return None
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        mod = types.ModuleType(spec.name)
        mod.__getattr__ = lambda attr: _Anything()
        mod.__path__ = []
        return mod

    def exec_module(self, module):
        pass


def install_stub_torch():
    sys.meta_path.insert(0, _StubFinder())


def install_stub_driver():
    import triton
    from triton.backends.compiler import GPUTarget

    class StubDriver:

        def get_current_target(self):
            return GPUTarget("cuda", 100, 32)

        def get_active_torch_device(self):
            return "cuda"

        def get_current_device(self):
            return 0

        def get_current_stream(self, device=None):
            return 0

        def __getattr__(self, name):
            # Device queries fail as they do on a machine without a GPU, so the
            # compiler takes its offline fallbacks (e.g. the static SMEM table).
            raise RuntimeError(f"stub driver: no GPU ({name})")

    triton.runtime.driver.set_active(StubDriver())


def load_tutorial(path):
    spec = importlib.util.spec_from_file_location("tlx_tutorial", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["tlx_tutorial"] = mod
    spec.loader.exec_module(mod)
    return mod


def jit_function(obj):
    while not hasattr(obj, "arg_names") or not hasattr(obj, "src"):
        obj = obj.fn
    return obj


def pick_config(kernel_obj, wanted):
    configs = getattr(kernel_obj, "configs", None) or []
    for c in configs:
        if all(c.kwargs.get(k) == v for k, v in wanted.items()):
            return c
    raise SystemExit(f"no autotune config matches {wanted}")


def kernel_source(entry, repo):
    """Path of the Python file that defines the kernel."""
    import triton
    if "file" in entry:
        tutorials = os.path.join(os.path.dirname(triton.__file__), "language", "extra", "tlx", "tutorials")
        return os.path.join(tutorials, entry["file"])
    if repo is None:
        raise SystemExit("this kernel needs --repo (a facebookexperimental/triton git dir)")
    commit = entry.get("commit", REPO_COMMIT)
    text = subprocess.run(["git", f"--git-dir={repo}", "show", f"{commit}:{entry['repo_file']}"],
                          check=True, capture_output=True, text=True).stdout
    path = os.path.join(tempfile.mkdtemp(), os.path.basename(entry["repo_file"]))
    with open(path, "w") as f:
        f.write(text)
    return path


def kernel_source_for_compile(entry, path):
    """(ASTSource, options) of kernel `entry` read from the Python file at `path`: the
    autotune config it names, its constexprs and defaults, the runtime signature."""
    from triton.compiler import ASTSource
    mod = load_tutorial(path)
    kobj = getattr(mod, entry["kernel"])
    fn = jit_function(kobj)
    constexprs = dict(entry["constexprs"])
    options = dict(entry.get("options", {}))
    if entry["config"] is not None:
        config = pick_config(kobj, entry["config"])
        constexprs.update(config.kwargs)
        options.update({"num_warps": config.num_warps, "num_stages": config.num_stages})
        for k in ["num_ctas", "ctas_per_cga"]:
            v = getattr(config, k, None)
            if v is not None:
                options[k] = v
    runtime = entry["signature"](constexprs)
    signature = {arg: "constexpr" if arg in constexprs else runtime[arg] for arg in fn.arg_names}
    # Parameters with defaults the config does not set keep their defaults.
    for arg, param in zip(fn.arg_names, fn.params):
        if arg not in constexprs and param.is_constexpr and param.default is not None:
            constexprs[arg] = param.default
            signature[arg] = "constexpr"
    return ASTSource(fn=fn, signature=signature, constexprs=constexprs), options


def worker(name, repo):
    entry = KERNELS[name]
    install_stub_torch()
    import triton
    from triton.backends.compiler import GPUTarget
    install_stub_driver()
    src, options = kernel_source_for_compile(entry, kernel_source(entry, repo))
    print(json.dumps({"constexprs": {str(k): str(v) for k, v in getattr(src, "constants", {}).items()},
                      "options": str(options)}), file=sys.stderr, flush=True)
    triton.compile(src, target=GPUTarget("cuda", 100, 32), options=options)


HEADER = re.compile(r"^// -----// IR Dump Before \w+: ([\w.-]+)[^\n]*$", re.M)


def split_dumps(text):
    """[(pass_arg, module_text)] from MLIR_ENABLE_DUMP output, in pass order."""
    matches = list(HEADER.finditer(text))
    out = []
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        out.append((m.group(1), text[m.end() + 1:end].rstrip("\n") + "\n"))
    return out


def portable(module, source):
    """The dump with this machine's paths replaced by stable ones."""
    import triton
    root = os.path.dirname(os.path.dirname(triton.__file__))
    module = module.replace(root + "/", "site-packages/")
    return module.replace(source, os.path.basename(source))


def run(name, out_dir, repo):
    env = dict(os.environ)
    env["MLIR_ENABLE_DUMP"] = "1"
    env["TRITON_ALWAYS_COMPILE"] = "1"
    env["TRITON_CACHE_DIR"] = tempfile.mkdtemp()
    cmd = [sys.executable, __file__, "--worker", name] + (["--repo", repo] if repo else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    dumps = split_dumps(proc.stderr)

    def module_before(pass_arg, after=False):
        for i, (n, m) in enumerate(dumps):
            if n == pass_arg:
                if not after:
                    return m
                return dumps[i + 1][1] if i + 1 < len(dumps) else None
        return None

    files = {
        "before.mlir": module_before(BEFORE),
        "lowered.mlir": module_before(BEFORE, after=True),
        "rewritten.mlir": module_before(REWRITE, after=True),
    }
    if any(v is None for v in files.values()):
        sys.stderr.write(proc.stderr[-4000:])
        raise SystemExit(f"{name}: passes seen: {[n for n, _ in dumps][:40]}")
    kdir = os.path.join(out_dir, name)
    os.makedirs(kdir, exist_ok=True)
    source = re.search(r'#loc = loc\("([^"]+)"', files["before.mlir"])
    for fname, text in files.items():
        if source:
            text = portable(text, source.group(1))
        with open(os.path.join(kdir, fname), "w") as f:
            f.write(text)
    print(f"{name}: ok ({', '.join(f'{k} {len(v.splitlines())} lines' for k, v in files.items())})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=DEFAULT_OUT)
    ap.add_argument("--only")
    ap.add_argument("--worker")
    ap.add_argument("--repo", help="git dir of facebookexperimental/triton (for repo_file kernels)")
    args = ap.parse_args()
    if args.worker:
        worker(args.worker, args.repo)
        return
    for name in KERNELS:
        if args.only and name != args.only:
            continue
        run(name, args.out, args.repo)


if __name__ == "__main__":
    main()
