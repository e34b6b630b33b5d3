from collections.abc import Sequence
from typing import overload

from . import (
    bench as bench,
    ir as ir,
    jit as jit,
    pallas as pallas,
    picture as picture,
    sharding as sharding,
    xla as xla
)


class Layout:
    """An Axe layout L = (D, R, O) (docs/notation.md)."""

    def __init__(self, text: str) -> None:
        """Parses the text form, e.g. Layout('S[(8,8):(1,8)]')."""

    @staticmethod
    def parse(text: str) -> Layout: ...

    @staticmethod
    def row_major(extents: Sequence[int]) -> Layout:
        """The compact row-major layout of `extents` on memory."""

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

    @overload
    def __eq__(self, arg: Layout, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def size(self) -> int:
        """E_D: the logical points."""

    @property
    def replica_size(self) -> int: ...

    @property
    def axes(self) -> list[str]:
        """The axes used, in print order."""

    def span(self, axis: str) -> int:
        """The offset-free span on the axis named `axis`."""

    def apply(self, index: int | Sequence[int], shape: Sequence[int] | None = None) -> list:
        """
        The physical points of a logical index (flat int, or a coordinate of `shape`).
        """

    def inverse(self, point: object, shape: Sequence[int] | None = None) -> list:
        """
        The logical points mapping to a physical point (flat indices, or coordinates of `shape`).
        """

    def canonicalize(self) -> Layout: ...

    def equivalent(self, other: Layout) -> bool:
        """True iff both induce the same map."""

    def group(self, shape: Sequence[int]) -> tuple:
        """(refined layout, block separators) for `shape`."""

    def slice(self, shape: Sequence[int], region: object) -> Layout:
        """
        The layout of the box `region` ((start, stop) per dimension, or '0:8,8:24').
        """

def tile(outer: Layout, outer_shape: Sequence[int], inner: Layout, inner_shape: Sequence[int]) -> Layout:
    """The Kronecker product outer (x) inner (canonical)."""

def tile_to(layout: Layout, to_shape: Sequence[int], cur_shape: Sequence[int]) -> Layout: ...

def memory_budget() -> tuple:
    """
    (bytes, source): the memory axe may allocate now: AXE_MEMORY_LIMIT when set, else the least of the cgroup limit minus usage and MemAvailable. ValueError for a bad AXE_MEMORY_LIMIT.
    """

class RelayoutPlan:
    """A relayout plan: loops, kernels, threads."""

    def __str__(self) -> str: ...

    @property
    def src_end(self) -> int:
        """Source elements the plan reads (end)."""

    @property
    def dst_end(self) -> int:
        """Destination elements it writes (end)."""

    @property
    def kernels(self) -> list[str]: ...

    @property
    def threads(self) -> int: ...

def plan_relayout(src: object, dst: object, shape: Sequence[int], itemsize: int) -> RelayoutPlan:
    """The plan axe.relayout runs (without running it)."""
