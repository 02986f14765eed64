"""What every layout class shares: its fields as the JSON the Rust side reads, its MLIR text
as ``str()``, hashing by value, and the check of its fields at construction."""

import dataclasses
import json
import typing

from .. import _linalias

# Gluon's class name -> the ``kind`` of the Rust ``GluonLayout``.
KINDS = {
    "BlockedLayout": "blocked",
    "SliceLayout": "slice",
    "NVMMADistributedLayout": "nvidia_mma",
    "DotOperandLayout": "dot_operand",
    "DistributedLinearLayout": "linear",
    "SwizzledSharedLayout": "swizzled_shared",
    "NVMMASharedLayout": "nvmma_shared",
    "SharedLinearLayout": "shared_linear",
    "PaddedSharedLayout": "padded_shared",
    "PartitionedSharedLayout": "partitioned_shared",
    "TensorMemoryLayout": "tensor_memory",
    "TensorMemoryScalesLayout": "tensor_memory_scales",
    "AMDMFMALayout": "amd_mfma",
    "AMDWMMALayout": "amd_wmma",
}


def _value(v):
    """A field's value as JSON: Gluon's ``constexpr`` unwrapped, tuples as lists, nested
    layouts by their own fields."""
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    if type(v).__name__ in KINDS:
        return spec(v)
    if isinstance(v, (list, tuple)):
        return [_value(x) for x in v]
    return v


def spec(layout):
    """The fields of a layout object — ours or Gluon's own, read by class name and fields — as
    a dict ``{"kind": …, field: value, …}``."""
    name = type(layout).__name__
    kind = KINDS.get(name)
    if kind is None or not dataclasses.is_dataclass(layout):
        raise _linalias.ParseError(f"not a layout: {name} (expected one of {', '.join(KINDS)} or MLIR text)")
    out = {"kind": kind}
    for f in dataclasses.fields(layout):
        out[f.name] = _value(getattr(layout, f.name))
    return out


def spec_json(layout):
    try:
        return json.dumps(spec(layout))
    except (TypeError, ValueError) as e:
        raise _linalias.ParseError(f"{type(layout).__name__}: a field is not a number, list or flag: {e}") from None


def _fits(v, t):
    """Whether ``v`` is a value of the annotation ``t`` (``int``, ``bool``, ``List[…]``,
    ``Tuple[…]``, ``Optional[…]`` or a layout class); Gluon's ``constexpr`` is unwrapped."""
    if type(v).__name__ == "constexpr" and hasattr(v, "value"):
        v = v.value
    origin, args = typing.get_origin(t), typing.get_args(t)
    if origin is typing.Union:
        return any(_fits(v, a) for a in args)
    if t is type(None):
        return v is None
    if origin in (list, tuple):
        return isinstance(v, (list, tuple)) and all(_fits(x, args[0]) for x in v)
    if t is int:
        return isinstance(v, int)
    if t is bool:
        return isinstance(v, bool)
    if isinstance(t, type) and issubclass(t, Layout):
        return type(v).__name__ in KINDS
    return True


def _type_name(t):
    if typing.get_origin(t) is None and hasattr(t, "__name__"):
        return t.__name__
    return str(t).replace("typing.", "")


class Layout:
    """The behaviour of every layout class (mixed into frozen dataclasses)."""

    def __post_init__(self):
        # The fields' types, then their shapes, checked now, as Gluon's constructors assert them.
        hints = typing.get_type_hints(type(self))
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if not _fits(v, hints[f.name]):
                raise _linalias.ParseError(
                    f"{type(self).__name__}: {f.name} must be {_type_name(hints[f.name])}, got {v!r}")
        _linalias.spec_mlir(spec_json(self))

    def __str__(self):
        """The MLIR attribute, as Triton prints it in TTGIR."""
        return _linalias.spec_mlir(spec_json(self))

    def __hash__(self):
        return hash(spec_json(self))

    def _picture_shape(self):
        """The tensor shape the layout is drawn on in a notebook: its own tile (one CTA's
        worth of a blocked layout, one swizzle atom of a shared one, …), or ``None``."""
        return None

    def _repr_svg_(self):
        """The layout drawn on its own tile (``None`` without a natural tile, or too large)."""
        shape = self._picture_shape()
        if shape is None:
            return None
        from .. import layouts
        try:
            return layouts.to_linear_layout(self, shape)._repr_svg_()
        except _linalias.LinaliasError:
            return None
