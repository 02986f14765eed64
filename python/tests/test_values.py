"""Layouts and linear layouts are values: immutable, equal and hashable by value, picklable;
``repr`` of a layout is Gluon's dataclass repr and ``str`` its MLIR attribute."""

import dataclasses
import pickle

import pytest

import linalias
from linalias import LinearLayout
from linalias.layouts import BlockedLayout, NVMMASharedLayout, SliceLayout
from linalias.layouts.amd import AMDMFMALayout
from linalias.layouts.nvidia.blackwell import TensorMemoryLayout


def test_layout_repr_str_and_value_semantics():
    a = BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])
    b = BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], order=[1, 0])
    assert repr(a) == ("BlockedLayout(size_per_thread=[1, 4], threads_per_warp=[8, 4], warps_per_cta=[2, 2], "
                       "order=[1, 0], cga_layout=[])")
    assert str(a) == ("#ttg.blocked<{sizePerThread = [1, 4], threadsPerWarp = [8, 4], warpsPerCTA = [2, 2], "
                      "order = [1, 0]}>")
    assert a == b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != BlockedLayout([1, 4], [8, 4], [2, 2], [0, 1])
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.order = [0, 1]
    assert pickle.loads(pickle.dumps(a)) == a
    s = SliceLayout(1, a)
    assert str(s) == f"#ttg.slice<{{dim = 1, parent = {a}}}>"
    assert pickle.loads(pickle.dumps(s)) == s and hash(s) == hash(SliceLayout(1, b))


def test_gluon_defaults_are_filled_in_as_gluon_fills_them():
    m = AMDMFMALayout(3, [32, 32, 8], True, [2, 2])
    assert m.element_bitwidth == 32 and m.tiles_per_warp == [1, 1]
    assert str(m) == "#ttg.amd_mfma<{version = 3, warpsPerCTA = [2, 2], instrShape = [32, 32, 8], isTransposed = true}>"
    n = NVMMASharedLayout(128, 16)
    assert (n.rank, n.transposed, n.fp4_padded, n.cga_layout) == (2, False, False, [])
    assert str(n) == "#ttg.nvmma_shared<{swizzlingByteWidth = 128, transposed = false, elementBitWidth = 16}>"
    t = TensorMemoryLayout((128, 64), col_stride=1)
    assert str(t) == "#ttng.tensor_memory_encoding<blockM = 128, blockN = 64, colStride = 1>"


def test_linear_layout_values():
    l = LinearLayout.from_bases([("register", [[1, 0], [0, 1]]), ("lane", [[2, 0], [0, 2]])], ["dim0", "dim1"])
    assert l.out_dims == [("dim0", 4), ("dim1", 4)]
    assert l.bases == [("register", [[1, 0], [0, 1]]), ("lane", [[2, 0], [0, 2]])]
    assert l.in_dims == [("register", 4), ("lane", 4)]
    assert l.num_in_dims == 2 and l.num_out_dims == 2
    assert l.get_in_dim_names() == ["register", "lane"] and l.get_out_dim_names() == ["dim0", "dim1"]
    assert l.apply({"register": 3, "lane": 1}) == {"dim0": 3, "dim1": 1}
    assert l.is_invertible() and l.invert().compose(l) == LinearLayout.from_bases(
        [("dim0", [[1, 0], [2, 0]]), ("dim1", [[0, 1], [0, 2]])], ["dim0", "dim1"])
    assert pickle.loads(pickle.dumps(l)) == l
    assert hash(l) == hash(pickle.loads(pickle.dumps(l))) and len({l, l.invert().invert()}) == 1
    assert l != "not a layout" and l != l.invert()
    i = LinearLayout.identity_1d(8, "register", "dim0")
    assert str(i) == repr(i) == ("\n - register=1 -> (1)\n   register=2 -> (2)\n   register=4 -> (4)\n"
                                 "where out dims are: [dim0 (size 8)]")
    assert (i * LinearLayout.identity_1d(2, "lane", "dim0")).out_dims == [("dim0", 16)]
    assert LinearLayout.strided_1d(4, 2, "offset", "dim0").bases == [("offset", [[2], [4]])]
    assert LinearLayout.zeros_1d(4, "lane", "dim0", 8).out_dims == [("dim0", 8)]
    assert i.get_matrix_view() == [[1, 0, 0], [0, 1, 0], [0, 0, 1]]


def test_mlir_text_is_read_too():
    text = "#ttg.blocked<{sizePerThread=[1,4],threadsPerWarp=[8,4],warpsPerCTA=[2,2],order=[1,0]}>"
    a = BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])
    assert linalias.layouts.mlir(text) == str(a)
    assert linalias.to_linear_layout(text, [64, 64]) == linalias.to_linear_layout(a, [64, 64])


def test_apply_many_matches_apply_and_returns_numpy():
    import numpy as np
    l = LinearLayout.from_bases([("register", [[1, 0], [0, 1]]), ("lane", [[2, 0], [0, 2]])], ["dim0", "dim1"])
    flat = l.apply_many(list(range(16)))
    assert isinstance(flat, np.ndarray) and flat.dtype == np.uint64
    for x in range(16):
        out = l.apply({"register": x & 3, "lane": x >> 2})
        assert int(flat[x]) == out["dim0"] | (out["dim1"] << 2)
    with pytest.raises(linalias.ParseError, match="past the layout's 4 input bits"):
        l.apply_many([16])


def test_pictures_for_notebooks():
    regs = linalias.to_linear_layout(BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]), [16, 16])
    assert regs._repr_svg_().startswith("<svg")
    smem = linalias.to_linear_layout(NVMMASharedLayout(128, 16), [16, 64])
    assert "bank" in smem._repr_svg_()
    c = linalias.bank_conflicts(BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]), NVMMASharedLayout(128, 16), [64, 64], 16)
    assert int(c) == 1 and c._repr_svg_().startswith("<svg")


def test_layouts_draw_their_own_tile():
    from linalias.layouts import SwizzledSharedLayout
    assert BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])._repr_svg_().startswith("<svg")
    assert SliceLayout(0, BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0]))._repr_svg_().startswith("<svg")
    assert "bank" in NVMMASharedLayout(128, 16)._repr_svg_()
    assert SwizzledSharedLayout(8, 1, 8, [1, 0])._repr_svg_().startswith("<svg")
    assert TensorMemoryLayout((128, 64), 1)._repr_svg_().startswith("<svg")
    # No natural tile, or one no layout fits: no picture, no error.
    assert AMDMFMALayout(3, [32, 32, 8], True, [2, 2])._repr_svg_() is None
    assert SwizzledSharedLayout(3, 1, 1, [1, 0])._repr_svg_() is None
