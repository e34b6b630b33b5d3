"""Pallas grids and BlockSpecs (interpret mode): ``show_program_ids``."""

import numpy as np

from axe._axe import pallas as _pallas


_IDENTITY = object()  # the documentation function's default index map


def show_program_ids(shape, block_shape, grid, index_map=_IDENTITY, dtype="int32",
                     clamp_report=None):
    """The output of the Pallas documentation's show_program_ids kernel.

    An array of ``shape`` written through one BlockSpec(``block_shape``, ``index_map``) on
    ``grid``; every program fills its block with its grid indices as decimal digits.
    ``block_shape`` is a text such as ``"(2, 3)"`` or ``"(Element(4, (1, 0)), Squeezed())"``
    (None: the whole array); ``grid`` a text or a tuple; ``index_map`` a text such as
    ``"(i, j) -> (i, j)"``. Not given, it is the identity over the grid (the documentation
    function's default ``lambda i, j: (i, j)``); None or ``"none"`` is what
    ``BlockSpec(block_shape, None)`` does in JAX, zeros for every dimension. When ``clamp_report`` is a list, a line for
    every window Pallas clamps (an out-of-bounds block) is appended to it.

    Grids of more than 2**24 programs raise ValueError; an output (with its clamp reports,
    about 640 bytes each) beyond the memory budget (``AXE_MEMORY_LIMIT``, else the cgroup
    limit or MemAvailable) raises MemoryError, before anything runs.
    """
    if not isinstance(grid, str):
        grid = "(" + ", ".join(str(int(g)) for g in grid) + ",)"
    if block_shape is not None and not isinstance(block_shape, str):
        block_shape = "(" + ", ".join(str(b) for b in block_shape) + ",)"
    data, dtype_name, out_shape, clamps = _pallas._show_program_ids(
        [int(s) for s in shape], block_shape, grid,
        None if index_map is _IDENTITY else index_map, index_map is _IDENTITY, str(dtype),
        clamp_report is not None)
    if clamp_report is not None:
        clamp_report.extend(clamps)
    return np.frombuffer(data, dtype=dtype_name).reshape(out_shape).copy()


__all__ = ["show_program_ids"]
