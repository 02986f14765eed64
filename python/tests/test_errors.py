"""Bad input of every kind raises a ``LinaliasError`` subclass naming the culprit (or Python's
own ``TypeError`` for an argument of the wrong type) — never a ``PanicException``, never a
crash. A seeded fuzz of every constructor and operation."""

import random

import pytest

import linalias
from linalias import LayoutError, LinaliasError, LinearLayout, ParseError
from linalias.layouts import BlockedLayout, NVMMASharedLayout, SliceLayout, SwizzledSharedLayout

from conftest import CLASSES


def test_errors_are_value_errors_with_their_variant():
    assert issubclass(LinaliasError, ValueError)
    assert issubclass(LayoutError, LinaliasError) and issubclass(ParseError, LinaliasError)
    with pytest.raises(LayoutError) as e:
        LinearLayout.identity_1d(3, "register", "dim0")
    assert e.value.variant == "NotPowerOfTwo" and "3" in str(e.value)
    with pytest.raises(LayoutError) as e:
        LinearLayout.identity_1d(4, "register", "dim0").apply({"lane": 1})
    assert "lane" in str(e.value)
    with pytest.raises(ParseError) as e:
        linalias.to_linear_layout("#ttg.blocked<{sizePerThread = [1, 4]", [4, 4])
    assert e.value.variant == "Parse"
    with pytest.raises(LayoutError) as e:
        linalias.to_linear_layout(SwizzledSharedLayout(3, 1, 1, [1, 0]), [8, 8])
    assert "vec = 3" in str(e.value)
    with pytest.raises(ParseError, match="not a layout: int"):
        linalias.to_linear_layout(5, [4])
    with pytest.raises(ParseError, match="-1 is not an unsigned"):
        LinearLayout.identity_1d(-1, "a", "b")


def test_constructors_check_their_fields():
    with pytest.raises(ParseError, match="order"):
        BlockedLayout([1, 4], [8, 4], [2, 2], "ab")
    with pytest.raises(LayoutError, match="parent"):
        SliceLayout(0, NVMMASharedLayout(128, 16))
    with pytest.raises(ParseError):
        NVMMASharedLayout(-128, 16)


GARBAGE = [None, -1, 0, 1, 3, 2**40, 2**70, -2**70, 1.5, "x", "", [], [0], [-1], [[1, 2], [3]], [[2**63]],
           {}, {"a": 1}, (1, 2), True, [None], [[None]], [["a"]], float("nan")]


def value(rng):
    r = rng.random()
    if r < 0.5:
        return rng.choice(GARBAGE)
    if r < 0.8:
        return [rng.choice([0, 1, 2, 4, 8, 32, 3, 64]) for _ in range(rng.randint(0, 4))]
    return [[rng.choice([0, 1, 2, 4, 3]) for _ in range(rng.randint(0, 3))] for _ in range(rng.randint(0, 4))]


def attempt(f):
    try:
        f()
    except (LinaliasError, TypeError):
        pass


@pytest.mark.parametrize("kind", sorted(CLASSES))
def test_fuzzed_layouts_raise_typed_errors(kind):
    rng = random.Random(f"fuzz-{kind}")
    cls = CLASSES[kind]
    import dataclasses
    fields = [f.name for f in dataclasses.fields(cls)]
    for _ in range(300):
        args = {f: value(rng) for f in fields}
        if "parent" in args and rng.random() < 0.7:
            args["parent"] = BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])
        shape = value(rng)

        def go():
            layout = cls(**args)
            str(layout)
            hash(layout)
            linalias.to_linear_layout(layout, shape)

        attempt(go)


def test_fuzzed_linear_layout_calls_raise_typed_errors():
    rng = random.Random("fuzz-linear-layout")
    dims = ["register", "lane", "a", "dim0", "dim1", ""]
    good = LinearLayout.identity_1d(8, "register", "dim0")
    for _ in range(2000):
        n = rng.randint(0, 3)
        bases = [(rng.choice(dims), value(rng)) for _ in range(n)]
        outs = [rng.choice(dims) for _ in range(rng.randint(0, 3))]
        sizes = rng.choice([None, value(rng), [rng.choice([1, 2, 4, 3, 0]) for _ in outs]])

        def go():
            l = LinearLayout.from_bases(bases, outs, sizes, rng.random() < 0.5)
            for op in (l.invert, l.pseudoinvert, lambda: l.compose(good), lambda: good.compose(l),
                       lambda: l.invert_and_compose(good), lambda: good.invert_and_compose(l), lambda: l * good,
                       lambda: l.apply({d: rng.choice([0, 1, 7, 2**40, -3]) for d in l.get_in_dim_names()}),
                       l.get_matrix_view, lambda: str(l)):
                attempt(op)

        attempt(go)
        attempt(lambda: LinearLayout.identity_1d(rng.choice(GARBAGE), rng.choice(dims), rng.choice(dims)))
        attempt(lambda: LinearLayout.strided_1d(rng.choice(GARBAGE), rng.choice(GARBAGE), "a", "b"))
        attempt(lambda: LinearLayout.zeros_1d(rng.choice(GARBAGE), "a", "b", rng.choice(GARBAGE)))
        attempt(lambda: linalias.to_linear_layout(rng.choice(GARBAGE + ["#ttg.blocked<{", "#ttg.linear<{}>"]),
                                                  value(rng)))


def test_huge_components_are_errors_not_overflows():
    with pytest.raises(LinaliasError):
        LinearLayout.from_bases([("a", [[2**63]])], ["o"])
    with pytest.raises(LinaliasError):
        LinearLayout.from_bases([("a", [[2**64 - 1]])], ["o"])
    from linalias.layouts import SharedLinearLayout
    with pytest.raises(LinaliasError):
        linalias.to_linear_layout(SharedLinearLayout([[2**63]]), [1])
