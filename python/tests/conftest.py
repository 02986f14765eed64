"""Shared helpers: the repository's golden data, and our layout classes built from the
generators' specs (``{"kind": …, Gluon's constructor arguments}``)."""

import json
import os
import pathlib

import pytest

import linalias
from linalias import layouts
from linalias.layouts import amd, nvidia  # noqa: F401
from linalias.layouts.amd import cdna5
from linalias.layouts.nvidia import blackwell

REPO = pathlib.Path(__file__).resolve().parents[2]
DATA = REPO / "linear-layout" / "tests" / "data"

CLASSES = {
    "blocked": layouts.BlockedLayout,
    "slice": layouts.SliceLayout,
    "nvidia_mma": layouts.NVMMADistributedLayout,
    "dot_operand": layouts.DotOperandLayout,
    "linear": layouts.DistributedLinearLayout,
    "swizzled_shared": layouts.SwizzledSharedLayout,
    "nvmma_shared": layouts.NVMMASharedLayout,
    "shared_linear": layouts.SharedLinearLayout,
    "padded_shared": layouts.PaddedSharedLayout,
    "partitioned_shared": cdna5.PartitionedSharedLayout,
    "tensor_memory": blackwell.TensorMemoryLayout,
    "tensor_memory_scales": blackwell.TensorMemoryScalesLayout,
    "amd_mfma": amd.AMDMFMALayout,
    "amd_wmma": amd.AMDWMMALayout,
}

# The generators' short names for a few of Gluon's fields.
RENAMED = {
    "linear": {"register": "reg_bases", "lane": "lane_bases", "warp": "warp_bases", "block": "block_bases"},
    "shared_linear": {"offset": "offset_bases", "block": "block_bases"},
}


def build(spec):
    """Our layout object for a generator's spec (nested parents too)."""
    kind = spec["kind"]
    args = {}
    for k, v in spec.items():
        if k == "kind":
            continue
        if isinstance(v, dict) and "kind" in v:
            v = build(v)
        args[RENAMED.get(kind, {}).get(k, k)] = v
    return CLASSES[kind](**args)


def replay(cases, run, departures):
    """Runs each golden case (``run(case)``): a case where exactly one of Triton and linalias
    refuses is appended to ``departures``; yields ``(case, Triton's answer, ours)`` for the
    cases where both succeed."""
    for case in cases:
        want = case["expect"]
        try:
            got = run(case)
        except linalias.LinaliasError as e:
            if "error" not in want:
                departures.append(f"{case['id']}: we refuse ({e})")
            continue
        if "error" in want:
            departures.append(f"{case['id']}: Triton refuses ({want['error'][:100]})")
            continue
        yield case, want["ok"], got


def load(group, name):
    doc = json.loads((DATA / group / f"{name}.json").read_text())
    assert doc["triton_version"] == "3.9.0"
    return doc["cases"]


def layout_json(ll):
    """A ``LinearLayout`` in the goldens' ``from_bases`` JSON shape."""
    return {"bases": [[d, b] for d, b in ll.bases], "out_dims": [[d, s] for d, s in ll.out_dims]}


def from_json(v):
    names = [d for d, _ in v["out_dims"]]
    sizes = [s for _, s in v["out_dims"]]
    return linalias.LinearLayout.from_bases([(d, b) for d, b in v["bases"]], names, sizes, False)


@pytest.fixture(scope="session")
def triton_gluon():
    """Triton 3.9.0's Gluon, or a skip (a failure where ``REQUIRE_TRITON=1``: CI)."""
    try:
        from triton.experimental.gluon import language as ttgl
    except ImportError as e:
        if os.environ.get("REQUIRE_TRITON") == "1":
            raise
        pytest.skip(f"triton is not installed: {e}")
    return ttgl
