"""Blackwell tensor memory layouts, as ``triton.experimental.gluon.language.nvidia.blackwell``
names them."""

from dataclasses import dataclass, field
from typing import List, Tuple

from .._base import Layout


@dataclass(frozen=True, eq=True)
class TensorMemoryLayout(Layout):
    block: Tuple[int, int]
    col_stride: int
    cga_layout: List[List[int]] = field(default_factory=list)
    two_ctas: bool = False
    fp4_padded: bool = False
    __hash__ = Layout.__hash__


@dataclass(frozen=True, eq=True)
class TensorMemoryScalesLayout(Layout):
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__


__all__ = ["TensorMemoryLayout", "TensorMemoryScalesLayout"]
