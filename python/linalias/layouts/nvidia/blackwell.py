"""Blackwell tensor memory layouts, as ``triton.experimental.gluon.language.nvidia.blackwell``
names them."""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from ... import _linalias
from .. import DistributedLinearLayout
from .._base import Layout, spec_json


@dataclass(frozen=True, eq=True)
class TensorMemoryLayout(Layout):
    block: Tuple[int, int]
    col_stride: int
    cga_layout: List[List[int]] = field(default_factory=list)
    two_ctas: bool = False
    fp4_padded: bool = False
    __hash__ = Layout.__hash__

    def _picture_shape(self):
        return list(self.block)


@dataclass(frozen=True, eq=True)
class TensorMemoryScalesLayout(Layout):
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__


_BITS = {"fp64": 64, "f64": 64, "fp32": 32, "f32": 32, "float32": 32, "int32": 32, "i32": 32, "uint32": 32,
         "fp16": 16, "f16": 16, "float16": 16, "bf16": 16, "bfloat16": 16, "int16": 16, "i16": 16,
         "fp8e4nv": 8, "fp8e5": 8, "f8e4m3": 8, "f8e5m2": 8, "int8": 8, "i8": 8, "uint8": 8, "u8": 8}


def get_tmem_reg_layout(element_ty, shape: Sequence[int], layout, num_warps: int, instr_variant: str = "32x32b",
                        alloc_shape: Optional[Sequence[int]] = None) -> DistributedLinearLayout:
    """The register layout of a ``tcgen05.ld``/``st`` of a tensor-memory ``layout``
    (``TensorMemoryLayout`` or ``TensorMemoryScalesLayout``, ours or Gluon's) by ``num_warps``
    warps with the message shape ``instr_variant`` (``32x32b``, ``16x64b``, ``16x128b``,
    ``16x256b``), as Gluon's ``compute_tmem_reg_layout`` builds it. ``element_ty`` is a Triton
    dtype, its name, or a bit width."""
    if isinstance(element_ty, int):
        bits = element_ty
    else:
        name = element_ty if isinstance(element_ty, str) else str(getattr(element_ty, "name", element_ty))
        if name not in _BITS:
            raise _linalias.ParseError(f"get_tmem_reg_layout: unknown element type {name!r}")
        bits = _BITS[name]
    shape = list(shape)
    ll = _linalias.tmem_reg_layout(bits, shape, list(alloc_shape) if alloc_shape is not None else shape,
                                   spec_json(layout), num_warps, instr_variant)
    bases = dict(ll.bases)
    return DistributedLinearLayout(bases.get("register", []), bases.get("lane", []), bases.get("warp", []),
                                   bases.get("block", []), [s for _, s in ll.out_dims])


__all__ = ["TensorMemoryLayout", "TensorMemoryScalesLayout", "get_tmem_reg_layout"]
