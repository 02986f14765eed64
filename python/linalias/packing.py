"""Packing buffers by lifetime (dynamic storage allocation): MiniMalloc's CSV, or a list of
buffers, in; the placement out, with its chart in a notebook.

>>> from linalias import packing
>>> p = packing.pack([("a", 0, 2, 64), ("b", 1, 3, 32), ("c", 2, 4, 64)])
>>> p.peak, p.lower_bound, p.proven_optimal, p.violations
(96, 96, True, [])
>>> sorted((i, p.offset(i)) for i in p.ids)
[('a', 0), ('b', 64), ('c', 0)]
"""

from typing import Optional, Sequence, Tuple, Union

from . import _linalias

Buffer = Union[Tuple[str, int, int, int], Tuple[str, int, int, int, int], Tuple[str, int, int, int, int, int]]


def _csv(buffers: Sequence[Buffer]) -> str:
    rows = ["id,lower,upper,size,alignment,offset"]
    for b in buffers:
        b = tuple(b)
        if not 4 <= len(b) <= 6:
            raise _linalias.ParseError(f"a buffer is (id, lower, upper, size[, alignment[, offset]]), got {b!r}")
        ident, lower, upper, size = b[:4]
        alignment = b[4] if len(b) > 4 else 1
        offset = b[5] if len(b) > 5 else ""
        if "," in str(ident) or "\n" in str(ident):
            raise _linalias.ParseError(f"buffer id {ident!r} holds a comma or a line break")
        rows.append(f"{ident},{lower},{upper},{size},{alignment},{offset}")
    return "\n".join(rows) + "\n"


def pack(buffers: Union[str, Sequence[Buffer]], capacity: Optional[int] = None,
         budget_ms: int = 1000) -> "_linalias.Placement":
    """Packs ``buffers`` — MiniMalloc CSV text (``id,lower,upper,size[,alignment,offset]``) or
    ``(id, lower, upper, size[, alignment[, offset]])`` tuples, live over ``[lower, upper)`` —
    as low as it can within ``budget_ms`` (and ``capacity``, if given: ``PackError`` with the
    diagnosis when it cannot). The ``Placement`` has ``offsets``, ``peak``, ``lower_bound``,
    ``proven_optimal`` and the independent checker's ``violations``."""
    text = buffers if isinstance(buffers, str) else _csv(buffers)
    return _linalias.pack_csv(text, capacity, budget_ms)


__all__ = ["pack"]
