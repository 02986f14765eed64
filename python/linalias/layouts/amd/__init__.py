"""AMD layouts, as ``triton.experimental.gluon.language.amd`` names them (the partitioned
shared layout of CDNA5 is in ``linalias.layouts.amd.cdna5``)."""

from dataclasses import dataclass, field
from typing import List, Optional

from .. import DistributedLayout
from .._base import Layout


@dataclass(frozen=True, eq=True)
class AMDMFMALayout(DistributedLayout):
    version: int
    instr_shape: List[int]
    transposed: bool
    warps_per_cta: List[int]
    element_bitwidth: Optional[int] = None
    tiles_per_warp: Optional[List[int]] = None
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__

    def __post_init__(self):
        # Gluon's defaults, filled in as Gluon fills them (so that the reprs agree).
        if self.element_bitwidth is None:
            object.__setattr__(self, "element_bitwidth", 32)
        if self.tiles_per_warp is None:
            object.__setattr__(self, "tiles_per_warp", [1] * len(self.warps_per_cta))
        super().__post_init__()


@dataclass(frozen=True, eq=True)
class AMDWMMALayout(DistributedLayout):
    version: int
    transposed: bool
    warp_bases: List[List[int]]
    reg_bases: Optional[List[List[int]]] = None
    instr_shape: Optional[List[int]] = None
    cga_layout: List[List[int]] = field(default_factory=list)
    rank: Optional[int] = None
    __hash__ = Layout.__hash__

    def __post_init__(self):
        object.__setattr__(self, "warp_bases", [list(b) for b in self.warp_bases])
        object.__setattr__(self, "reg_bases", [list(b) for b in self.reg_bases] if self.reg_bases is not None else [])
        if self.instr_shape is None:
            object.__setattr__(self, "instr_shape", [16, 16, 16])
        if self.rank is None:
            object.__setattr__(self, "rank", 2)
        super().__post_init__()


__all__ = ["AMDMFMALayout", "AMDWMMALayout"]
