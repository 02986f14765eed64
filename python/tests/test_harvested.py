"""Layout attributes harvested from real TTGIR (the TLX fork's lit tests and our TLX kernel
dumps), each with the shape it is used with, evaluated by Triton 3.9.0
(``linear-layout/tests/data/harvest/layouts.json``), replayed as MLIR text through
``linalias.to_linear_layout``: the same layout where both build one, no layout Triton refuses,
and Triton's layouts we refuse only as ``linear-layout/tests/harvested.rs`` allows — on purpose,
with the error text its ``DEPARTURES`` name."""

import linalias

from conftest import layout_json, load
from test_families import same_layout

DEPARTURES = [
    "unknown key 'isTransposed' (expected one of version, rank, ctaLayout, isTranspose",
    "describe more than one CTA, but Triton 3.9 ignores these keys",
    "mma.sync (v2) at rank 2 needs [M, N] (rank 2) or [1, M, N] (rank 3), M 16 or fp64's 8",
]


def not_about_the_layout(error):
    """Triton's refusals of the element type, not of the layout (skipped, as in the Rust test)."""
    return "element type bit width" in error or "Unhandled encoding encountered" in error


def same(got, want):
    """``same_layout``; a partitioned layout's out-dims in Gluon's view are sized by the bases
    left once its ``partition`` in-dim is dropped, so only its bases are compared."""
    if "partition" in dict(got["bases"]):
        return [[d, dict(got["bases"]).get(d)] for d, _ in want["bases"]] == want["bases"]
    return same_layout(got, want)


def test_every_harvested_attribute_agrees():
    cases = load("harvest", "layouts")
    assert len(cases) > 3000
    agree, departures, wrong = 0, {d: 0 for d in DEPARTURES}, []
    skipped = 0
    for case in cases:
        want = case["expect"]
        if not_about_the_layout(want.get("error", "")):
            skipped += 1
            continue
        try:
            got = linalias.to_linear_layout(case["attr"], case["shape"])
        except linalias.LinaliasError as e:
            if "error" in want or "padded_linear" in case:
                agree += 1
                continue
            rule = next((d for d in DEPARTURES if d in str(e)), None)
            if rule is None:
                wrong.append(f"{case['id']} {case['source']}: we refuse ({e})")
            else:
                departures[rule] += 1
            continue
        if "error" in want:
            wrong.append(f"{case['id']} {case['source']}: Triton refuses, we build a layout")
        elif not same(layout_json(got), want["ok"]["layout"]):
            wrong.append(f"{case['id']} {case['source']}: a different layout")
        else:
            agree += 1
    assert not wrong, "\n".join(wrong[:20])
    assert all(n > 0 for n in departures.values()), departures
    assert agree + sum(departures.values()) + skipped == len(cases)
