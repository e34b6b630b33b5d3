"""axe.relayout: the relayout engine on NumPy arrays."""

import math
import operator

import numpy as np

from axe._axe import _relayout_into, memory_budget, plan_relayout


def _dims(shape):
    """The shape's sizes as ints: TypeError for anything but a sequence of ints (3.5 is not
    truncated to 3)."""
    try:
        return [operator.index(s) for s in shape]
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, got {shape!r}") from None


def relayout(array, src, dst, shape=None, out=None):
    """Copies a tensor from the memory layout ``src`` to ``dst``.

    ``array`` holds the tensor's elements at the offsets ``src`` gives (any C-contiguous
    array; its flat memory is the buffer). ``src`` and ``dst`` are ``axe.Layout`` objects or
    buffer-layout texts (``"S[(8,8):(1,8)]"``, ``"S[...] over (4096, 4096)"``) on one memory
    axis. ``shape`` is the tensor's logical shape (default: ``array.shape``). The result is
    written straight into ``out`` when given (C-contiguous, same itemsize, at least the
    destination's extent), else into a new array: of ``shape`` when the destination fills
    exactly ``prod(shape)`` elements, else flat. Destination padding is left as allocated
    (zeros for a new array). A new array beyond the memory budget (``axe.memory_budget()``)
    raises MemoryError before it is allocated.
    """
    source = np.ascontiguousarray(array)
    if shape is None:
        shape = source.shape
    shape = _dims(shape)
    plan = plan_relayout(src, dst, shape, source.itemsize)
    if out is None:
        n = plan.dst_end
        needed = n * source.itemsize
        limit, where = memory_budget()
        if needed > limit:
            raise MemoryError(
                f"the relayout's destination needs {needed} bytes; the memory budget is "
                f"{limit} bytes, from {where} (raise it with AXE_MEMORY_LIMIT)")
        result = np.zeros(n, dtype=source.dtype)
        _relayout_into(plan, source.reshape(-1), result)
        if n == math.prod(shape):
            result = result.reshape(shape)
        return result
    if not (isinstance(out, np.ndarray) and out.flags.c_contiguous and out.flags.writeable):
        raise TypeError("out must be a writeable C-contiguous numpy.ndarray")
    _relayout_into(plan, source.reshape(-1), out.reshape(-1))
    return out


__all__ = ["relayout"]
