"""Blackwell tensor memory layouts, as ``triton.experimental.gluon.language.nvidia.blackwell``
names them."""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

from ... import _linalias
from .. import DistributedLinearLayout, _bitwidth
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


def get_tmem_reg_layout(element_ty, shape: Sequence[int], layout, num_warps: int, instr_variant: str = "32x32b",
                        alloc_shape: Optional[Sequence[int]] = None) -> DistributedLinearLayout:
    """The register layout of a ``tcgen05.ld``/``st`` of a tensor-memory ``layout``
    (``TensorMemoryLayout`` or ``TensorMemoryScalesLayout``, ours or Gluon's) by ``num_warps``
    warps with the message shape ``instr_variant`` (``32x32b``, ``16x64b``, ``16x128b``,
    ``16x256b``), as Gluon's ``compute_tmem_reg_layout`` builds it. ``element_ty`` is a Triton
    dtype, its name, or a bit width."""
    bits = _bitwidth(element_ty)
    shape = list(shape)
    ll = _linalias.tmem_reg_layout(bits, shape, list(alloc_shape) if alloc_shape is not None else shape,
                                   spec_json(layout), num_warps, instr_variant)
    bases = dict(ll.bases)
    return DistributedLinearLayout(bases.get("register", []), bases.get("lane", []), bases.get("warp", []),
                                   bases.get("block", []), [s for _, s in ll.out_dims])


__all__ = ["TensorMemoryLayout", "TensorMemoryScalesLayout", "get_tmem_reg_layout"]
