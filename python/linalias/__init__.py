"""linalias: GF(2) linear layouts with Triton's semantics, Gluon's names and typed errors.

>>> import linalias
>>> from linalias.layouts import BlockedLayout
>>> blocked = BlockedLayout([1, 4], [8, 4], [2, 2], [1, 0])
>>> ll = linalias.to_linear_layout(blocked, [64, 64])
>>> ll.apply({"register": 1, "lane": 4, "warp": 0, "block": 0})
{'dim0': 1, 'dim1': 1}
"""

from . import layouts, packing, ptx, tlx
from ._linalias import AllocError, LayoutError, LinaliasError, LinearLayout, PackError, ParseError, PtxError
from .layouts import bank_conflicts, to_linear_layout

__all__ = ["LinaliasError", "LayoutError", "ParseError", "AllocError", "PackError", "PtxError",
           "LinearLayout", "to_linear_layout", "bank_conflicts", "layouts",
           "packing", "ptx", "tlx"]
