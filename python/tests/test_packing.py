"""Packing from Python equals the CLI (``linalias pack --json``) on the committed DSA and
MiniMalloc cases: the same peak, lower bound and proof; every placement passes the independent
checker; bad input raises typed errors."""

import json
import subprocess

import pytest

import linalias
from linalias import packing

from conftest import REPO
from test_tlx import cli

CASES = sorted((REPO / "packing" / "tests" / "data" / "dsa").glob("*.csv"))


@pytest.mark.parametrize("path", CASES, ids=lambda p: p.name)
def test_packing_agrees_with_the_cli(path):
    out = subprocess.run([cli(), "pack", str(path), "--json"], capture_output=True, text=True, cwd=REPO)
    assert out.returncode in (0, 1), out.stderr
    want = json.loads(out.stdout)
    capacity = want.get("capacity")
    try:
        got = packing.pack(path.read_text(), capacity=capacity)
    except linalias.PackError:
        assert out.returncode == 1, want
        return
    assert got.violations == []
    assert (got.peak, got.lower_bound, got.proven_optimal) == (want["peak"], want["lower_bound"],
                                                               want["proven_optimal"])
    assert got._repr_svg_().startswith("<svg")
    assert got.to_csv().splitlines()[0].endswith("offset")


def test_packing_errors_are_typed():
    with pytest.raises(linalias.ParseError):
        packing.pack("id,lower,upper\na,0,1\n")
    with pytest.raises(linalias.ParseError):
        packing.pack([("a", 0, 1)])
    with pytest.raises(linalias.PackError, match="capacity 100: no placement fits: the buffers live together need 128"):
        packing.pack([("a", 0, 2, 64), ("b", 1, 3, 64)], capacity=100)
    with pytest.raises(linalias.PackError, match="no buffer 'z'"):
        packing.pack([("a", 0, 2, 64)]).offset("z")
