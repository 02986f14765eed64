"""Against real Triton 3.9.0 objects (CI installs ``triton==3.9.0``; it runs on CPU): Gluon's
own layout objects are read by ``linalias.to_linear_layout`` (by class name and fields, as
ours) and give Gluon's own linear layout; our ``repr`` evaluates in Gluon's namespace to an
equal Gluon object; our ``str`` is the attribute Triton prints."""

import pytest

import linalias
from linalias import layouts
from linalias.layouts import amd, mlir
from linalias.layouts.amd import cdna5
from linalias.layouts.nvidia import blackwell

from conftest import build, layout_json, load

FAMILIES = ["amd_dot_operand", "amd_mfma", "amd_slice", "amd_wmma", "blocked", "dot_operand", "linear",
            "nvidia_mma", "nvmma_shared", "partitioned_shared", "shared_linear", "slice", "swizzled_shared",
            "tensor_memory"]


def gluon_namespace(ttgl):
    from triton.experimental.gluon.language import amd as gamd
    from triton.experimental.gluon.language.amd import cdna5 as gcdna5
    from triton.experimental.gluon.language.nvidia import blackwell as gbw
    ns = {name: getattr(ttgl, name) for name in layouts.__all__ if hasattr(ttgl, name)}
    for module, names in [(gbw, blackwell.__all__), (gamd, amd.__all__), (gcdna5, cdna5.__all__)]:
        ns.update({name: getattr(module, name) for name in names if hasattr(module, name)})
    return ns


def gluon_linear_layout(obj, shape):
    """Gluon's own answer: ``GluonOpBuilder.to_linear_layout`` (what ``gl.to_linear_layout``
    calls), as ``from_bases`` JSON."""
    from triton._C.libtriton import gluon_ir, ir
    global _BUILDER
    try:
        b = _BUILDER
    except NameError:
        ctx = ir.context()
        ir.load_dialects(ctx)
        b = _BUILDER = (ctx, gluon_ir.GluonOpBuilder(ctx, "cuda:100"))
    ll = b[1].to_linear_layout(obj._to_ir(b[1]), list(shape))
    name = type(ll).__name__
    dims = [[f"dim{i}", int(s)] for i, s in enumerate(shape)]
    if name == "SharedLinearLayout":
        return {"bases": [["offset", ll.offset_bases], ["block", ll.block_bases]], "out_dims": dims}
    if name == "DistributedLinearLayout":
        return {"bases": [["register", ll.reg_bases], ["lane", ll.lane_bases], ["warp", ll.warp_bases],
                          ["block", ll.block_bases]], "out_dims": [[f"dim{i}", int(s)] for i, s in enumerate(ll.shape)]}
    return {"bases": [["row", ll.rows], ["col", ll.cols]], "out_dims": [[f"dim{i}", int(s)] for i, s in enumerate(ll.shape)]}


def norm(v):
    return {"bases": [[d, [list(map(int, b)) for b in bs]] for d, bs in v["bases"]], "out_dims": v["out_dims"]}


@pytest.mark.parametrize("family", FAMILIES)
def test_gluon_objects_read_and_repr_round_trips(family, triton_gluon):
    ns = gluon_namespace(triton_gluon)
    checked = 0
    for case in load("families", family):
        if case["op"] != "to_linear_layout" or "error" in case["expect"]:
            continue
        ours = build(case["args"]["layout"])
        theirs = eval(repr(ours), ns)
        assert type(theirs).__name__ == type(ours).__name__
        assert repr(theirs) == repr(ours), case["id"]
        # Gluon's object read by our code: the same attribute and the same layout as ours.
        assert mlir(theirs) == str(ours), case["id"]
        shape = case["args"]["shape"]
        try:
            ll = linalias.to_linear_layout(theirs, shape)
        except linalias.LinaliasError:
            continue  # a deliberate departure, pinned in test_families.py
        assert ll == linalias.to_linear_layout(ours, shape), case["id"]
        want = norm(gluon_linear_layout(theirs, shape))
        got = layout_json(ll)
        ours_on_theirs = {"bases": [[d, dict(got["bases"]).get(d)] for d, _ in want["bases"]],
                          "out_dims": got["out_dims"]}
        assert ours_on_theirs == want, case["id"]
        checked += 1
    assert checked > 0


def test_nvmma_default_layouts_are_gluons(triton_gluon):
    ttgl = triton_gluon
    from linalias.layouts import NVMMASharedLayout
    for shape in ([64, 64], [128, 32], [16, 16], [4, 256], [256], [2, 64, 64], [128, 8], [64, 48]):
        for dtype in (ttgl.float16, ttgl.float32, ttgl.float8e4nv, ttgl.int8):
            for transposed in (False, True):
                for fp4 in ((False, True) if dtype.primitive_bitwidth == 8 else (False,)):
                    for cga in (None, [[1] + [0] * (len(shape) - 1)]):
                        try:
                            want = ttgl.NVMMASharedLayout.get_default_for(shape, dtype, transposed, fp4, cga)
                        except Exception:
                            continue
                        got = NVMMASharedLayout.get_default_for(shape, dtype, transposed, fp4, cga)
                        assert repr(got) == repr(want), (shape, dtype, transposed, fp4, cga)
                        # By name too.
                        assert NVMMASharedLayout.get_default_for(shape, dtype.name, transposed, fp4, cga) == got
