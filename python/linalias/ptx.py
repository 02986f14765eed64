"""PTX for shared-memory tiles, from Python: the kernel that stores a register layout to a
shared layout, loads it back, or converts between two register layouts through shared memory —
the text ``linalias ptx`` prints, which ptxas accepts for sm_90a.

>>> from linalias import ptx
>>> from linalias.layouts import BlockedLayout, NVMMASharedLayout
>>> text = ptx.store_kernel(BlockedLayout([1, 8], [4, 8], [4, 1], [1, 0]), NVMMASharedLayout(128, 16), [64, 64])
>>> text.count("st.shared::cta.v4.b32")
4
"""

from typing import Optional, Sequence

from . import _linalias
from .layouts import mlir, to_linear_layout


def _ll(layout, shape):
    return layout if isinstance(layout, _linalias.LinearLayout) else to_linear_layout(layout, shape)


def _mlir(layout) -> Optional[str]:
    if isinstance(layout, _linalias.LinearLayout):
        return None
    return mlir(layout)


def store_kernel(regs, mem, shape: Optional[Sequence[int]] = None, dtype: Optional[str] = None,
                 name: str = "store_tile") -> str:
    """The kernel that stores ``regs`` (a register layout) to ``mem`` (a shared layout): each
    a layout, Gluon's object, MLIR text or a ``LinearLayout`` (``shape`` for the first three).
    ``dtype`` defaults to an NVMMA layout's element width, else 16 bits."""
    return _linalias.ptx_kernel("store", _ll(regs, shape), _ll(mem, shape), _mlir(mem), None, dtype, name)


def load_kernel(regs, mem, shape: Optional[Sequence[int]] = None, dtype: Optional[str] = None,
                name: str = "load_tile") -> str:
    """The kernel that loads ``regs`` from ``mem`` (see ``store_kernel``)."""
    return _linalias.ptx_kernel("load", _ll(regs, shape), _ll(mem, shape), _mlir(mem), None, dtype, name)


def round_trip_kernel(regs, mem, reload, shape: Optional[Sequence[int]] = None, dtype: Optional[str] = None,
                      name: str = "round_trip") -> str:
    """The layout conversion ``regs`` → ``reload`` through ``mem``: store, ``bar.sync``, load."""
    return _linalias.ptx_kernel("round_trip", _ll(regs, shape), _ll(mem, shape), _mlir(mem), _ll(reload, shape),
                                dtype, name)


__all__ = ["store_kernel", "load_kernel", "round_trip_kernel"]
