"""CDNA5 layouts, as ``triton.experimental.gluon.language.amd.cdna5`` names them."""

from dataclasses import dataclass

from .. import SharedLayout
from .._base import Layout


@dataclass(frozen=True, eq=True)
class PartitionedSharedLayout(SharedLayout):
    num_partitions: int
    num_groups: int
    partition_dim: int
    partition_layout: SharedLayout
    __hash__ = Layout.__hash__


__all__ = ["PartitionedSharedLayout"]
