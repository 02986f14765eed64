"""Layouts named as Gluon names them (``triton.experimental.gluon.language``): the same
classes, fields, defaults and ``repr``; ``str()`` is the MLIR attribute. NVIDIA tensor memory
is in ``linalias.layouts.nvidia.blackwell``, AMD's in ``linalias.layouts.amd``."""

from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Union

from .. import _linalias
from ._base import Layout, spec_json


class DistributedLayout(Layout):
    """A layout of a tensor in registers (in-dims ``register, lane, warp, block``)."""

    def format_tensor_view(self, shape: Sequence[int]) -> str:
        """Gluon's ``format_tensor_view``: the owners of each element of a ``shape`` tensor."""
        return to_linear_layout(self, shape).get_distributed_view(False)

    def format_hardware_view(self, shape: Sequence[int]) -> str:
        """Gluon's ``format_hardware_view``: the elements each thread holds."""
        return to_linear_layout(self, shape).get_distributed_view(True)


class SharedLayout(Layout):
    """A layout of a tensor in shared memory (in-dims ``offset, block``)."""


def _bitwidth(dtype) -> int:
    """A Triton dtype (its ``primitive_bitwidth``), its name, or a bit width."""
    if isinstance(dtype, int) and not isinstance(dtype, bool):
        return dtype
    bits = getattr(dtype, "primitive_bitwidth", None)
    if isinstance(bits, int):
        return bits
    name = dtype if isinstance(dtype, str) else str(getattr(dtype, "name", dtype))
    return _linalias.dtype_bits(name)


def _shape_per_cta(shape: List[int], cga_layout) -> List[int]:
    """Gluon's ``_get_shape_per_cta``: the block shape one CTA holds under ``cga_layout``."""
    if not cga_layout:
        return shape
    rank = len(cga_layout[0])
    cga = [0] * rank
    for basis in cga_layout:
        if len(basis) != rank:
            raise _linalias.ParseError(f"cga_layout bases of different ranks: {cga_layout}")
        for i in range(rank):
            cga[i] = max(cga[i], basis[i])
    cga = [c * 2 if c else 1 for c in cga]
    out = list(shape)
    for d in range(min(rank, len(out))):
        if out[d] % cga[d]:
            raise _linalias.ParseError(f"shape {shape} is not divisible by CGA layout {cga_layout}")
        out[d] //= cga[d]
    return out


@dataclass(frozen=True, eq=True)
class BlockedLayout(DistributedLayout):
    size_per_thread: List[int]
    threads_per_warp: List[int]
    warps_per_cta: List[int]
    order: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__

    def _picture_shape(self):
        return [s * t * w for s, t, w in zip(self.size_per_thread, self.threads_per_warp, self.warps_per_cta)]


@dataclass(frozen=True, eq=True)
class SliceLayout(DistributedLayout):
    dim: int
    parent: DistributedLayout
    __hash__ = Layout.__hash__

    def _picture_shape(self):
        shape = self.parent._picture_shape() if isinstance(self.parent, Layout) else None
        return None if shape is None else [s for i, s in enumerate(shape) if i != self.dim]


@dataclass(frozen=True, eq=True)
class DistributedLinearLayout(DistributedLayout):
    reg_bases: List[List[int]]
    lane_bases: List[List[int]]
    warp_bases: List[List[int]]
    block_bases: List[List[int]]
    shape: List[int]
    __hash__ = Layout.__hash__

    def _picture_shape(self):
        return list(self.shape)


@dataclass(frozen=True, eq=True)
class DotOperandLayout(DistributedLayout):
    operand_index: int
    parent: DistributedLayout
    k_width: int
    __hash__ = Layout.__hash__


@dataclass(frozen=True, eq=True)
class NVMMADistributedLayout(DistributedLayout):
    version: List[int]
    warps_per_cta: List[int]
    instr_shape: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__


@dataclass(frozen=True, eq=True)
class NVMMASharedLayout(SharedLayout):
    swizzle_byte_width: int
    element_bitwidth: int
    rank: int = 2
    transposed: bool = False
    fp4_padded: bool = False
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__

    def __post_init__(self):
        # Gluon takes a cga_layout of None as none.
        if self.cga_layout is None:
            object.__setattr__(self, "cga_layout", [])
        super().__post_init__()

    @staticmethod
    def get_default_for(block_shape: Sequence[int], dtype, transposed: bool = False, fp4_padded: bool = False,
                        cga_layout: Optional[List[List[int]]] = None) -> "NVMMASharedLayout":
        """Gluon's ``NVMMASharedLayout.get_default_for``: the largest swizzle the shape allows
        (fewest TMA or MMA messages). ``dtype`` is a Triton dtype, its name, or a bit width."""
        bits = _bitwidth(dtype)
        shape_per_cta = _shape_per_cta(list(block_shape), cga_layout)
        rank = len(block_shape)
        if transposed:
            shape_per_cta = shape_per_cta[1:] + shape_per_cta[:1]
        contig_bytes = shape_per_cta[-1] * (2 if fp4_padded else 1) * bits // 8
        swizzle = next((w for w in (128, 64, 32) if contig_bytes >= w and contig_bytes % w == 0), 0)
        outer = 1
        for size in shape_per_cta[:-1]:
            outer *= size
        if rank < 2 or outer < 8:
            swizzle = 0
        return NVMMASharedLayout(swizzle_byte_width=swizzle, element_bitwidth=bits, rank=rank, transposed=transposed,
                                 fp4_padded=fp4_padded, cga_layout=cga_layout)

    def _picture_shape(self):
        # One swizzle atom: 8 rows of the swizzle width.
        if self.rank != 2 or self.swizzle_byte_width == 0 or self.element_bitwidth <= 0:
            return None
        cols = self.swizzle_byte_width * 8 // self.element_bitwidth
        return [cols, 8] if self.transposed else [8, cols]


@dataclass(frozen=True, eq=True)
class SwizzledSharedLayout(SharedLayout):
    vec: int
    per_phase: int
    max_phase: int
    order: List[int]
    cga_layout: List[List[int]] = field(default_factory=list)
    __hash__ = Layout.__hash__

    def _picture_shape(self):
        # One swizzle period: vec·max_phase along the fastest dim, per_phase·max_phase rows.
        if sorted(self.order) != [0, 1]:
            return None
        shape = [0, 0]
        shape[self.order[0]] = self.vec * self.max_phase
        shape[self.order[1]] = self.per_phase * self.max_phase
        return shape


@dataclass(frozen=True, eq=True)
class PaddedSharedLayout(SharedLayout):
    interval_padding_pairs: List[List[int]]
    offset_bases: List[List[int]]
    cga_layout: List[List[int]]
    shape: List[int]
    __hash__ = Layout.__hash__


@dataclass(frozen=True, eq=True)
class SharedLinearLayout(SharedLayout):
    offset_bases: List[List[int]]
    block_bases: List[List[int]] = field(default_factory=list)
    alignment: int = 16
    __hash__ = Layout.__hash__


def to_linear_layout(layout: Union[Layout, object, str], shape: Sequence[int]) -> "_linalias.LinearLayout":
    """The linear layout of ``layout`` over ``shape``: one of our layouts, Gluon's own object
    of the same class (read by its fields, without importing Triton), or an MLIR attribute
    (``"#ttg.blocked<{…}>"``)."""
    if isinstance(layout, str):
        return _linalias.mlir_linear_layout(layout, shape)
    return _linalias.spec_linear_layout(spec_json(layout), shape)


def bank_conflicts(reg, shared, shape: Optional[Sequence[int]], bitwidth: int, num_banks: int = 32):
    """Gluon's ``bank_conflicts``: the excess wavefronts per wavefront of storing the register
    layout ``reg`` to (or loading it from) the shared layout ``shared``, both of a tensor of
    ``shape`` with ``bitwidth``-bit elements (each a layout, Gluon's object, MLIR text or a
    ``LinearLayout``, which needs no shape). The result is a ``BankConflicts`` (``int()`` of it
    is Gluon's number; a notebook draws its worst request)."""

    def ll(x):
        return x if isinstance(x, _linalias.LinearLayout) else to_linear_layout(x, shape)

    return _linalias.bank_conflicts(ll(reg), ll(shared), bitwidth, num_banks)


def mlir(layout: Union[Layout, object, str]) -> str:
    """The MLIR attribute of a layout (ours, Gluon's, or MLIR text printed back as Triton
    prints it)."""
    if isinstance(layout, str):
        return _linalias.mlir_normalize(layout)
    return _linalias.spec_mlir(spec_json(layout))


__all__ = [
    "DistributedLayout",
    "SharedLayout",
    "BlockedLayout",
    "SliceLayout",
    "DistributedLinearLayout",
    "DotOperandLayout",
    "NVMMADistributedLayout",
    "NVMMASharedLayout",
    "SwizzledSharedLayout",
    "PaddedSharedLayout",
    "SharedLinearLayout",
    "to_linear_layout",
    "mlir",
    "bank_conflicts",
]
