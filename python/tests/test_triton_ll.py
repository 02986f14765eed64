"""Every case recorded from Triton 3.9.0's ``triton.tools.LinearLayout`` (the goldens of
``tools/gen_triton_ll_goldens.py``) replayed through ``linalias.LinearLayout``: the same layout
(and printed text) where Triton succeeded, a ``LinaliasError`` where it aborted the process —
but for the deliberate departures ``linear-layout/tests/triton_goldens.rs`` lists (we compute
past Triton's width limits; ``apply`` refuses an input out of range, which Triton truncates;
``from_bases`` infers sizes without requiring surjectivity where asked to)."""

import pytest

from linalias import LinearLayout

from conftest import from_json, layout_json, load, replay

OPS = ["apply", "compose", "from_bases", "identity_1d", "invert", "invert_and_compose", "product",
       "pseudoinvert", "strided_1d", "zeros_1d"]


def run(op, a):
    if op == "apply":
        return from_json(a["layout"]).apply(dict(a["inputs"]))
    if op == "compose":
        return from_json(a["lhs"]).compose(from_json(a["rhs"]))
    if op == "invert_and_compose":
        return from_json(a["lhs"]).invert_and_compose(from_json(a["rhs"]))
    if op == "product":
        return from_json(a["lhs"]) * from_json(a["rhs"])
    if op == "invert":
        return from_json(a["layout"]).invert()
    if op == "pseudoinvert":
        return from_json(a["layout"]).pseudoinvert()
    if op == "from_bases":
        return LinearLayout.from_bases([(d, b) for d, b in a["bases"]], a["out_dim_names"], a["out_dim_sizes"],
                                       a["require_surjective"])
    if op == "identity_1d":
        return LinearLayout.identity_1d(a["size"], a["in"], a["out"])
    if op == "strided_1d":
        return LinearLayout.strided_1d(a["size"], a["stride"], a["in"], a["out"])
    if op == "zeros_1d":
        return LinearLayout.zeros_1d(a["size"], a["in"], a["out"], a["out_size"])
    raise AssertionError(op)


# op -> departures (cases where exactly one of Triton and linalias refuses), each kind named
# in linear-layout/tests/triton_goldens.rs: we compute past Triton's width limits (64 bits; 30
# bits of an outer layout in invert_and_compose); we refuse an `apply` input out of range (or
# negative), which Triton truncates; `from_bases` with one in-dim twice (Triton keeps the last
# list); a product whose common in-dims are ordered differently (Triton follows the first);
# `from_bases` with inferred sizes and require_surjective=False (Triton's wrapper refuses it).
DEPARTURES = {op: 0 for op in OPS} | {"apply": 37, "from_bases": 4, "invert_and_compose": 7, "product": 24}


@pytest.mark.parametrize("op", OPS)
def test_every_triton_case_agrees(op):
    cases = load("triton_ll", op)
    assert cases
    departures = []
    for case, ok, got in replay(cases, lambda c: run(op, c["args"]), departures):
        if op == "apply":
            assert list(got.items()) == [tuple(x) for x in ok["outputs"]], case["id"]
        else:
            assert layout_json(got) == ok["layout"], case["id"]
            if "str" in ok:
                assert str(got) == ok["str"], case["id"]
            for key, method in [("matrix", "get_matrix_view"), ("surjective", "is_surjective"),
                                ("injective", "is_injective"), ("invertible", "is_invertible")]:
                if key in ok:
                    assert getattr(got, method)() == ok[key], (case["id"], key)
    assert len(departures) == DEPARTURES[op], "\n".join(departures)
