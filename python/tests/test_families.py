"""Every layout-family case recorded from Triton 3.9.0 through Gluon (the goldens of
``tools/gen_family_goldens.py``) replayed through the Python API: our class built with Gluon's
constructor arguments prints Triton's MLIR attribute, and ``to_linear_layout`` gives Triton's
layout — or raises a ``LinaliasError`` where Triton refused.

Where both succeed they must agree, with two documented differences of view (as in the Rust
tests ``linear-layout/tests/families_*.rs``): our tensor-memory and partitioned layouts carry a
``block`` / ``partition`` in-dim that Gluon's view drops, and a rank-3 ``#ttg.amd_wmma`` with no
bases keeps ``, rank = N`` (Triton's text loses the rank). Where one side refuses and the other
does not, the case is one of the deliberate departures the Rust tests name one by one (a
parameter Triton accepts and miscomputes, such as a swizzle ``vec`` that is not a power of two,
or a wgmma ``instr_shape`` of two numbers); their number per family is pinned here, so that a
change in what the bindings accept shows."""

import re

import pytest

import linalias
from linalias import LinaliasError
from linalias.layouts import mlir

from conftest import build, layout_json, load, replay

# family -> departures (cases where exactly one of Triton and linalias refuses).
DEPARTURES = {
    "amd_dot_operand": 0,
    "amd_mfma": 0,
    "amd_slice": 0,
    "amd_wmma": 0,
    "blocked": 0,
    "dot_operand": 20,
    "linear": 6,
    "nvidia_mma": 0,
    "nvmma_shared": 0,
    "padded_shared": 0,
    "partitioned_shared": 0,
    "shared_linear": 0,
    "slice": 0,
    "swizzled_shared": 5,
    "tensor_memory": 0,
}

EXTRA_IN_DIMS = {"block", "partition"}


def wmma_rank_dropped(ours, triton):
    """Our text with the ``, rank = N`` that Triton's ``ctaLayout = {}`` loses taken out."""
    if "#ttg.amd_wmma" in triton and "ctaLayout = {}" in triton:
        return re.sub(r", rank = \d+", "", ours, count=1)
    return ours


def same_layout(got, want):
    """Our layout equals Triton's on Triton's in-dims; ours may add only a ``block`` or
    ``partition`` in-dim."""
    ours = dict(got["bases"])
    theirs = dict(want["bases"])
    if not set(ours) - set(theirs) <= EXTRA_IN_DIMS:
        return False
    return [[d, ours.get(d)] for d, _ in want["bases"]] == want["bases"] and got["out_dims"] == want["out_dims"]


@pytest.mark.parametrize("family", sorted(DEPARTURES))
def test_every_family_case_agrees(family):
    cases = [c for c in load("families", family) if c["op"] in ("to_linear_layout", "mlir")]
    assert cases
    departures = []

    def run(case):
        a = case["args"]
        layout = build(a["layout"])
        got = linalias.to_linear_layout(layout, a["shape"]) if case["op"] == "to_linear_layout" else None
        return str(layout), got

    for case, ok, (text, got) in replay(cases, run, departures):
        a = case["args"]
        assert wmma_rank_dropped(text, ok["mlir"]) == ok["mlir"], case["id"]
        # The MLIR text reads back to the same attribute and the same layout.
        assert mlir(text) == text, case["id"]
        if got is not None:
            assert same_layout(layout_json(got), ok["layout"]), case["id"]
            assert linalias.to_linear_layout(text, a["shape"]) == got, case["id"]
    assert len(departures) == DEPARTURES[family], "\n".join(departures)


def test_every_bank_conflict_case_agrees():
    """``bank_conflicts`` of each recorded pair equals Gluon's ``ttgl.bank_conflicts``."""
    cases = load("families", "bank_conflicts")
    assert cases
    for case in cases:
        a, ok = case["args"], case["expect"]["ok"]
        got = linalias.bank_conflicts(build(a["reg"]), build(a["shared"]), a["shape"], a["bitwidth"])
        assert int(got) == got.conflicts == ok["conflicts"], case["id"]


def test_every_tmem_register_layout_agrees():
    """``get_tmem_reg_layout`` of each recorded case equals Gluon's
    ``compute_tmem_reg_layout``, or raises where it refused or found no layout (``None``)."""
    from linalias.layouts.nvidia.blackwell import get_tmem_reg_layout
    cases = load("families", "tmem_reg_layout")
    assert cases
    for case in cases:
        a, want = case["args"], case["expect"]
        try:
            got = get_tmem_reg_layout(a["element_bits"], a["shape"], build(a["layout"]), a["num_warps"], a["atom"],
                                      a["alloc_shape"])
        except LinaliasError as e:
            assert "error" in want or want["ok"]["layout"] is None, f"{case['id']}: we refused ({e}), Triton gave {want}"
            continue
        assert "error" not in want and want["ok"]["layout"] is not None, case["id"]
        ll = linalias.to_linear_layout(got, a["shape"])
        assert same_layout(layout_json(ll), want["ok"]["layout"]), case["id"]


def test_every_layout_view_agrees():
    """The text views of each recorded case equal Gluon's ``get_layout_view`` (tensor and
    hardware views): ``get_distributed_view`` / ``get_shared_view`` of the linear layout, and
    ``format_tensor_view`` / ``format_hardware_view`` of a distributed layout."""
    cases = load("families", "views")
    assert cases
    for case in cases:
        a, want = case["args"], case["expect"]["ok"]["text"]
        layout = build(a["layout"])
        ll = linalias.to_linear_layout(layout, a["shape"])
        if isinstance(layout, linalias.layouts.SharedLayout):
            assert ll.get_shared_view(a["hw"]) == want, case["id"]
        else:
            assert ll.get_distributed_view(a["hw"]) == want, case["id"]
            view = layout.format_hardware_view if a["hw"] else layout.format_tensor_view
            assert view(a["shape"]) == want, case["id"]
