"""TLX's storage aliasing from Python: the calls TLX uses build the same program as the plan
files, and every plan equals what the CLI (``linalias plan --json``) prints for the same input —
the examples' plan files and the real TLX kernels' TTGIR dumps, in both modes; TLX's refusals
are ``AllocError``s in TLX's words; warnings are Python warnings."""

import doctest
import json
import os
import pathlib
import subprocess
import warnings

import pytest

import linalias
from linalias import tlx

from conftest import REPO

EXAMPLES = sorted((REPO / "examples").glob("*.toml"))
KERNELS = sorted((REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels").glob("*/before.mlir"))


def cli():
    """The ``linalias`` binary (``LINALIAS_BIN``, else the workspace's target folder)."""
    for path in [os.environ.get("LINALIAS_BIN"), REPO / "target" / "release" / "linalias",
                 REPO / "target" / "debug" / "linalias"]:
        if path and pathlib.Path(path).is_file():
            return str(path)
    pytest.fail("no linalias binary: build it (cargo build --bin linalias) or set LINALIAS_BIN")


def cli_json(path, mode):
    out = subprocess.run([cli(), "plan", str(path), "--json", "--mode", mode], capture_output=True, text=True,
                         cwd=REPO)
    assert out.returncode in (0, 1), out.stderr
    report = json.loads(out.stdout)
    report.pop("file")
    return report


def python_json(kernel, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = dict(kernel.plan(mode=mode).report)
    report.pop("file")
    return report


def flash_attention():
    """The TLX tutorial's TMEM sharing (examples/flash_attention.toml), by TLX's calls."""
    tmem = tlx.storage_kind.tmem
    with tlx.Kernel(target="sm_100") as k:
        s = tlx.storage_alias_spec(storage=tmem, name="qk_storage")
        qk = tlx.local_alloc((128, 128), "f32", 2, storage=tmem, reuse=s, name="qk")
        p = tlx.local_alloc((128, 64), "bf16", 4, storage=tmem, reuse=s, name="p")
        alpha, l, m = (tlx.local_alloc((128, 1), "f32", 2, storage=tmem, reuse=s, name=n) for n in "alpha l m".split())
        s.set_buffer_overlap(
            tlx.reuse_group(qk, tlx.reuse_group(tlx.reuse_group(p, group_size=2), alpha, l, m,
                                                group_type=tlx.reuse_group_type.distinct)))
    return k


@pytest.mark.parametrize("mode", ["tlx", "intended"])
def test_tlx_calls_plan_as_the_example_file(mode):
    k = flash_attention()
    ours = python_json(k, mode)
    assert ours == cli_json(REPO / "examples" / "flash_attention.toml", mode)
    plan = k.plan(mode=mode) if mode == "intended" else None
    if plan is not None:
        assert [plan.buffer_start("p", i) for i in range(4)] == [0, 32, 128, 160]
        assert plan.checker_ok and plan._repr_svg_().startswith("<svg")
        assert "TMEM 256 of 512 columns" in plan.summary


@pytest.mark.parametrize("mode", ["tlx", "intended"])
@pytest.mark.parametrize("path", EXAMPLES + KERNELS, ids=lambda p: str(p.relative_to(REPO)))
def test_every_example_and_real_kernel_plans_as_the_cli(path, mode):
    text = path.read_text()
    k = tlx.Kernel.from_ttgir(text) if path.suffix == ".mlir" else tlx.Kernel.from_toml(text)
    assert python_json(k, mode) == cli_json(path, mode)


def test_tlx_warnings_are_python_warnings():
    with pytest.warns(tlx.LinaliasWarning, match="TLX places it at 96 columns"):
        flash_attention().plan(mode="tlx")


def test_tlx_refusals_in_tlx_words():
    with tlx.Kernel() as k:
        s = tlx.storage_alias_spec(storage=tlx.storage_kind.tmem)
        tlx.local_alloc((128, 64), "f32", 2, reuse=s, name="acc")  # smem, as TLX defaults
    with pytest.raises(linalias.AllocError) as e:
        k.plan(mode="tlx")
    assert "storage_alias_spec storage (tmem) doesn't match local_alloc storage (smem)" in str(e.value)
    assert e.value.variant == "StorageMismatch"
    with pytest.raises(linalias.ParseError, match="need a kernel"):
        tlx.storage_alias_spec()
    with pytest.raises(linalias.ParseError, match="reuse_group"):
        tlx.reuse_group("a")
    with pytest.raises(linalias.ParseError, match="mode must be"):
        flash_attention().plan(mode="fast")
    with pytest.raises(linalias.ParseError, match="dtype"):
        with tlx.Kernel() as k:
            tlx.local_alloc((64, 64), "f33", 1, name="x")
        k.plan()


def test_module_docstrings_run():
    for module in (linalias, tlx, linalias.packing, linalias.ptx):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0, module.__name__


CHECKED = [REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels" / k / "before.mlir"
           for k in ("fa_ws_pipelined", "fa_ws_pipelined_fp8")]


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.parent.name)
def test_the_hazard_check_is_the_clis(path):
    out = subprocess.run([cli(), "check", str(path), "--json"], capture_output=True, text=True, cwd=REPO)
    want = json.loads(out.stdout)
    want.pop("kernel")
    check = tlx.Kernel.from_ttgir(path.read_text()).check()
    got = dict(check.report)
    got.pop("kernel")
    assert got == want
    assert check.exit_code == out.returncode
    assert check.verified == (out.returncode == 0)
    assert check._repr_svg_().startswith("<svg")
    if not check.verified:
        assert check.hazards or check.protocol


@pytest.mark.parametrize("path", CHECKED, ids=lambda p: p.parent.name)
def test_the_sweep_is_the_clis(path):
    out = subprocess.run([cli(), "check", str(path), "--sweep", "--json"], capture_output=True, text=True,
                         cwd=REPO)
    want = json.loads(out.stdout)
    sweep = tlx.Kernel.from_ttgir(path.read_text()).sweep()
    got = dict(sweep.report)
    for d in [want, got] + want["runs"] + got["runs"]:
        d.pop("kernel")
    assert got == want
    assert (sweep.period, sweep.first, sweep.swept) == (6, 4, {"N_CTX": {"shortest": 128, "longest": 128}})
    assert [r["params"]["N_CTX"] for r in sweep.runs] == [512, 640, 768, 896, 1024, 1152]
    assert sweep.exit_code == out.returncode and sweep.verified == (out.returncode == 0)
    assert sweep._repr_svg_().startswith("<svg")
    pinned = tlx.Kernel.from_ttgir(path.read_text()).sweep(params={"N_CTX": 640})
    assert pinned.swept == {} and len(pinned.runs) == 1 and pinned.runs[0]["params"]["N_CTX"] == 640


def test_the_cu_seqlens_stride_is_the_clis():
    path = REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels" / "cross_attention" / "before.mlir"
    kernel = tlx.Kernel.from_ttgir(path.read_text())
    assert kernel.check().report["seq_stride"] == 1024  # 4 laps of its step-256 loops
    out = subprocess.run([cli(), "check", str(path), "--json", "--seq-stride", "512"], capture_output=True,
                         text=True, cwd=REPO)
    want, got = json.loads(out.stdout), dict(kernel.check(seq_stride=512).report)
    want.pop("kernel"), got.pop("kernel")
    assert got == want and got["seq_stride"] == 512
    sweep = kernel.sweep()
    assert sweep.report["seq"] == {"shortest": 128, "longest": 256} and len(sweep.runs) == 24
    assert kernel.sweep(seq_stride=512).report["seq"] is None
    with pytest.raises(linalias.ParseError, match="seq_stride must be positive"):
        kernel.check(seq_stride=0)


def test_the_tile_position_is_the_clis():
    # A causal kernel's loops run 2 · (start_m + 1) laps for its tile: at N_CTX = 2048 (8 row
    # tiles) the first tile 3 and CLC tiles from 6 on lie in the launch.
    path = REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels" / "fa_clc_rescale" / "before.mlir"
    kernel = tlx.Kernel.from_ttgir(path.read_text())
    out = subprocess.run([cli(), "check", str(path), "--json", "--param", "N_CTX=2048", "--program-id", "3",
                          "--num-programs", "6"], capture_output=True, text=True, cwd=REPO)
    want = json.loads(out.stdout)
    got = dict(kernel.check(params={"N_CTX": 2048}, program_id=3, num_programs=6).report)
    want.pop("kernel"), got.pop("kernel")
    assert got == want and out.returncode == 0
    assert (got["program_id"], got["num_programs"], got["events"]) == (3, 6, 3092)
    assert kernel.check().report["events"] == 1116
    with pytest.raises(linalias.ParseError, match="num_programs at least 1"):
        kernel.check(num_programs=0)
    # Six tiles a CTA: the CLI's --clc-tiles.
    out = subprocess.run([cli(), "check", str(path), "--json", "--clc-tiles", "5"], capture_output=True,
                         text=True, cwd=REPO)
    want, got = json.loads(out.stdout), dict(kernel.check(clc_tiles=5).report)
    want.pop("kernel"), got.pop("kernel")
    assert got == want and got["clc_tiles"] == 5 and out.returncode == 0


def every_trip_count_as_the_cli(path):
    """``Kernel.every_trip_count`` on ``path``, asserted to report what ``linalias check
    --every-trip-count --json`` does (but the kernel's name); the proof and the CLI's exit
    code."""
    out = subprocess.run([cli(), "check", str(path), "--every-trip-count", "--json"], capture_output=True,
                         text=True, cwd=REPO)
    want = json.loads(out.stdout)
    proof = tlx.Kernel.from_ttgir(path.read_text()).every_trip_count()
    got = dict(proof.report)
    want.pop("kernel"), got.pop("kernel")
    assert got == want
    return proof, out.returncode


def test_every_trip_count_is_the_clis():
    """``Kernel.every_trip_count`` reports what ``linalias check --every-trip-count --json`` does:
    ``fa_ws_pipelined_fp8`` hangs at every trip count (its kv_fulls waits named);
    ``cross_attention_pipeline`` is verified at every trip count from 4 laps (1 … 3 alone); a
    parameter fixing the loops' bound is a ParseError, a kernel outside the model an
    AllocError."""
    kernels = REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels"
    path = kernels / "fa_ws_pipelined_fp8" / "before.mlir"
    proof, code = every_trip_count_as_the_cli(path)
    assert proof.exit_code == code == 1 and proof.decided and not proof.verified
    assert (proof.period, proof.head, proof.least, proof.every["stuck_at"]) == (6, 2, 4, 4)
    assert "hang: ttng.wait_barrier line 410 kv_fulls[0] waits forever" in proof.findings
    assert proof.summary == "some trip count races, hangs, arrives past a phase or leaves one open"
    pipeline = kernels / "cross_attention_pipeline" / "before.mlir"
    proof = tlx.Kernel.from_ttgir(pipeline.read_text()).every_trip_count()
    assert proof.verified and proof.least == 4 and proof.every["states"] == 1366
    assert [b["states"] for b in proof.below] == [26, 44, 62]
    with pytest.raises(linalias.ParseError, match="N_CTX"):
        tlx.Kernel.from_ttgir(path.read_text()).every_trip_count(params={"N_CTX": 512})
    with pytest.raises(linalias.AllocError, match="a loop in a loop"):
        tlx.Kernel.from_ttgir((kernels / "fa_clc" / "before.mlir").read_text()).every_trip_count()


def test_loops_one_after_another_are_proved_phase_by_phase():
    """``triple_gemm_multiphase``'s partitions run three GEMM loops one after another, joined
    by ``mp_join_0`` and ``mp_join_1``: ``every_trip_count`` proves each phase at every trip
    count of its own loop (``K = 128 · laps``, ``128 · laps``, ``64 · laps``), as the CLI does."""
    kernels = REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels"
    path = kernels / "triple_gemm_multiphase" / "before.mlir"
    proof, code = every_trip_count_as_the_cli(path)
    assert proof.verified and code == 0
    assert proof.joins == ["mp_join_0[0]", "mp_join_1[0]"]
    assert [p.bounds[0]["step"] for p in proof.phases] == [128, 128, 64]
    assert [p.every["states"] for p in proof.phases] == [1510, 1510, 1889]
    assert all(p.verified and p.open is None for p in proof.phases)
    assert proof.summary == "verified at every trip count of every phase"


def test_every_tile_count_is_the_clis():
    """``Kernel.every_tile_count`` reports what ``linalias check --every-tile-count --json``
    does: ``fa_ws_persistent`` at one K lap a tile, ``H`` tiles a CTA, verified at every tile
    count; a kernel without a tile loop, or a read past ``max_events``, is an AllocError."""
    kernels = REPO / "alias-alloc" / "tests" / "data" / "tlx_kernels"
    path = kernels / "fa_ws_persistent" / "before.mlir"
    out = subprocess.run([cli(), "check", str(path), "--every-tile-count", "--param", "N_CTX=128", "--json"],
                         capture_output=True, text=True, cwd=REPO)
    want = json.loads(out.stdout)
    proof = tlx.Kernel.from_ttgir(path.read_text()).every_tile_count(params={"N_CTX": 128})
    got = dict(proof.report)
    want.pop("kernel"), got.pop("kernel")
    assert got == want
    assert proof.exit_code == out.returncode == 0 and proof.verified
    assert proof.counts == "tiles" and proof.bounds == [{"name": "H", "step": 1}]
    assert proof.fixed == [{"name": "N_CTX", "value": 128}]
    assert (proof.period, proof.least, proof.every["states"]) == (6, 3, 1427)
    assert proof.summary == "verified at every tile count"
    with pytest.raises(linalias.AllocError, match="no tile loop"):
        tlx.Kernel.from_ttgir((kernels / "fa_ws_pipelined" / "before.mlir").read_text()).every_tile_count()
    # A read past max_events is not decided (--max-events); at least 1.
    with pytest.raises(linalias.AllocError, match="passed 1000 events"):
        tlx.Kernel.from_ttgir(path.read_text()).every_tile_count(params={"N_CTX": 128}, max_events=1000)
    with pytest.raises(linalias.ParseError, match="max_events"):
        tlx.Kernel.from_ttgir(path.read_text()).every_tile_count(params={"N_CTX": 128}, max_events=0)


def test_the_hazard_check_needs_ttgir():
    with pytest.raises(linalias.ParseError, match="TTGIR"):
        flash_attention().check()
    with pytest.raises(linalias.ParseError, match="TTGIR"):
        flash_attention().sweep()
    with pytest.raises(linalias.ParseError, match="TTGIR"):
        flash_attention().every_trip_count()
    with pytest.raises(linalias.ParseError):
        tlx.Kernel.from_ttgir("module {").check()
