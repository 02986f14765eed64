"""linalias from Python, next to a Gluon kernel: build the layouts Gluon builds, by Gluon's
names, and read what they do (run: ``python examples/python/layouts.py``; its output is
``layouts.out`` beside it, checked by ``python/tests/test_docs.py``)."""

import linalias
from linalias import LinearLayout
from linalias.layouts import BlockedLayout, NVMMASharedLayout, SliceLayout
from linalias.layouts.nvidia.blackwell import TensorMemoryLayout

# A register layout, as a Gluon kernel writes it; `str` is the TTGIR attribute.
blocked = BlockedLayout(size_per_thread=[1, 8], threads_per_warp=[4, 8], warps_per_cta=[4, 1], order=[1, 0])
print(repr(blocked))
print(blocked)

# Where thread (lane 9, warp 2) keeps its registers 0..7 of a 64x64 tile.
regs = linalias.to_linear_layout(blocked, [64, 64])
print([tuple(regs.apply({"register": r, "lane": 9, "warp": 2, "block": 0}).values()) for r in range(8)])

# The shared-memory tile a TMA writes, and which byte offset each element of row 1 lands on.
shared = NVMMASharedLayout(swizzle_byte_width=128, element_bitwidth=16)
smem = linalias.to_linear_layout(shared, [64, 64])
print(shared)
inverse = smem.invert()
print([inverse.apply({"dim0": 1, "dim1": c})["offset"] for c in range(0, 64, 8)])

# Registers -> shared offsets: the map a `local_store` of this register layout performs.
store = regs.invert_and_compose(smem)
print(store.out_dims, store.apply({"register": 0, "lane": 9, "warp": 2, "block": 0}))

# A slice and a tensor-memory layout, and a typed error instead of an abort.
print(SliceLayout(1, blocked))
print(TensorMemoryLayout(block=(128, 64), col_stride=1))
try:
    LinearLayout.identity_1d(3, "register", "dim0")
except linalias.LayoutError as e:
    print(type(e).__name__, e.variant, e)
