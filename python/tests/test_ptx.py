"""PTX from Python is the CLI's text (``linalias ptx``), and ptxas accepts it (where a ptxas
is found; ``REQUIRE_PTXAS=1``, as in CI, makes it required)."""

import os
import shutil
import subprocess
import tempfile

import pytest

import linalias
from linalias import ptx
from linalias.layouts import BlockedLayout, NVMMASharedLayout, SwizzledSharedLayout

from conftest import REPO
from test_tlx import cli

REGS = BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0])
CASES = [
    ("store", REGS, NVMMASharedLayout(128, 16), None, [64, 64]),
    ("load", BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]), SwizzledSharedLayout(8, 1, 8, [1, 0]), None, [64, 64]),
    ("round_trip", REGS, NVMMASharedLayout(64, 16), BlockedLayout([4, 1], [8, 4], [1, 4], [0, 1]), [64, 64]),
]


def ptxas():
    for path in [os.environ.get("PTXAS"), shutil.which("ptxas")]:
        if path and os.path.isfile(path):
            return path
    if os.environ.get("REQUIRE_PTXAS") == "1":
        pytest.fail("no ptxas: set PTXAS")
    return None


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0])
def test_ptx_is_the_clis_and_assembles(case):
    op, regs, mem, reload, shape = case
    if op == "round_trip":
        text = ptx.round_trip_kernel(regs, mem, reload, shape)
        flags = ["--round-trip", str(reload)]
    elif op == "load":
        text = ptx.load_kernel(regs, mem, shape)
        flags = ["--load"]
    else:
        text = ptx.store_kernel(regs, mem, shape)
        flags = []
    args = [cli(), "ptx", "--regs", str(regs), "--mem", str(mem), "--shape", "x".join(map(str, shape)), *flags]
    want = subprocess.run(args, capture_output=True, text=True, cwd=REPO, check=True).stdout
    assert text == want
    assembler = ptxas()
    if assembler is not None:
        with tempfile.TemporaryDirectory() as d:
            src = os.path.join(d, "k.ptx")
            with open(src, "w") as f:
                f.write(text)
            subprocess.run([assembler, "-arch=sm_90a", src, "-o", os.path.join(d, "k.cubin")], check=True,
                           capture_output=True)


def test_ptx_errors_are_typed():
    with pytest.raises(linalias.ParseError, match="not a register layout"):
        ptx.store_kernel(NVMMASharedLayout(128, 16), NVMMASharedLayout(128, 16), [64, 64])
    with pytest.raises(linalias.ParseError, match="32-bit elements"):
        ptx.store_kernel(REGS, NVMMASharedLayout(128, 16), [64, 64], dtype="f32")
