from collections.abc import Sequence
from typing import overload

import axe._axe


class AxeForm:
    """The Axe layout of an array's memory over its (padded) domain."""

    @property
    def layout(self) -> axe._axe.Layout: ...

    @property
    def domain(self) -> list[int]: ...

    @property
    def dimensions(self) -> list[int]: ...

    @property
    def padded(self) -> bool: ...

    def __repr__(self) -> str: ...

class Shape:
    """An XLA shape, e.g. Shape('f32[8,128]{0,1:T(8,128)}')."""

    def __init__(self, text: str) -> None: ...

    @staticmethod
    def parse(text: str) -> Shape: ...

    def __str__(self) -> str: ...

    def __repr__(self) -> str: ...

    def to_string(self, print_layout: bool = True) -> str: ...

    @overload
    def __eq__(self, arg: Shape, /) -> bool: ...

    @overload
    def __eq__(self, arg: object, /) -> bool: ...

    def __hash__(self) -> int: ...

    @property
    def dimensions(self) -> tuple: ...

    @property
    def rank(self) -> int: ...

    @property
    def element_type(self) -> str: ...

    @property
    def dtype(self) -> str:
        """The NumPy name of the element type."""

    @property
    def minor_to_major(self) -> object: ...

    def is_array(self) -> bool: ...

    def is_tuple(self) -> bool: ...

    @property
    def tuple_shapes(self) -> list[Shape]: ...

    def elements(self) -> int:
        """The number of elements (XLA's ShapeUtil::ElementsIn)."""

    def byte_size(self) -> int:
        """ShapeUtil::ByteSizeOf: elements x element bytes (ignores tiles)."""

    def array_size(self) -> int:
        """XLA's ShapeUtil::ArraySize in bytes (tiling padding included)."""

    def linear_index(self, index: Sequence[int]) -> int:
        """
        XLA's IndexUtil::MultidimensionalIndexToLinearIndex: the offset in minor_to_major order, ignoring tiles as XLA's function does (offset() applies them).
        """

    def offset(self, index: Sequence[int]) -> int:
        """
        The element offset of `index` in the buffer XLA stores, every tile level applied (what `axe xla explain --index` prints).
        """

    def index_at(self, offset: int) -> object:
        """
        The index stored at an element offset of the tiled buffer, or None for padding (the inverse of offset()).
        """

    def multi_index(self, linear: int) -> tuple:
        """IndexUtil::LinearIndexToMultidimensionalIndex."""

    def to_axe(self) -> AxeForm:
        """The Axe form of the array's memory layout (tiles, padding)."""
