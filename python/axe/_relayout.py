"""axe.relayout: the relayout engine on NumPy arrays."""

import math
import operator

import numpy as np

from axe._axe import Layout, _relayout_into, memory_budget, plan_relayout


def _dims(shape):
    """The shape's sizes as ints: TypeError for anything but a sequence of ints (3.5 is not
    truncated to 3)."""
    try:
        return [operator.index(s) for s in shape]
    except TypeError:
        raise TypeError(f"shape must be a sequence of ints, got {shape!r}") from None


def _memory_strides(dst, shape):
    """The element stride of each dimension when ``dst`` is a plain strided layout of
    ``shape`` on memory (one stride per dimension), else None."""
    if hasattr(dst, "to_axe"):  # an axe.xla.Shape: its memory layout over its domain
        dst = dst.to_axe()
    if hasattr(dst, "padded") and hasattr(dst, "layout"):  # an AxeForm
        if dst.padded:
            return None
        dst = dst.layout
    if isinstance(dst, str):
        if " over " in dst:
            return None
        try:
            dst = Layout(dst)
        except ValueError:
            return None
    if not isinstance(dst, Layout) or dst.axes not in ([], ["m"]) or not shape:
        return None
    origin = dst.apply([0] * len(shape), shape)
    if len(origin) != 1 or origin[0].get("m", 0) != 0:
        return None
    strides = []
    for d in range(len(shape)):
        unit = [0] * len(shape)
        unit[d] = 1 if shape[d] > 1 else 0
        strides.append(dst.apply(unit, shape)[0].get("m", 0) if shape[d] > 1 else 0)
    text = "S[(" + ",".join(map(str, shape)) + "):(" + ",".join(map(str, strides)) + ")]"
    try:
        plain = Layout(text)
    except ValueError:
        return None
    return strides if plain.equivalent(dst) else None


def relayout(array, src, dst, shape=None, out=None):
    """Copies a tensor from the memory layout ``src`` to ``dst``.

    ``array`` holds the tensor's elements at the offsets ``src`` gives (any C-contiguous
    array; its flat memory is the buffer). ``src`` and ``dst`` are ``axe.Layout`` objects or
    buffer-layout texts (``"S[(8,8):(1,8)]"``, ``"S[...] over (4096, 4096)"``) on one memory
    axis. ``shape`` is the tensor's logical shape (default: ``array.shape``). The result is
    written straight into ``out`` when given (C-contiguous, same itemsize, at least the
    destination's extent; returned as given), else into a new buffer. When ``dst`` is
    strided (one memory stride per dimension, no padding) the result is a view of ``shape``
    over that buffer: ``result[i, j]`` is the element ``array[i, j]`` and the memory is in the
    destination's order (``result.base`` is the buffer, ``result.ravel(order="K")`` reads it
    in memory order), as ``np.asfortranarray`` keeps values and changes memory. Otherwise
    (tiles, padding) the result is the flat buffer. Destination padding is left as allocated
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
        strides = _memory_strides(dst, shape) if n == math.prod(shape) else None
        if strides is None:
            return result
        return np.ndarray(shape, dtype=result.dtype, buffer=result,
                          strides=[s * result.itemsize for s in strides])
    if not (isinstance(out, np.ndarray) and out.flags.c_contiguous and out.flags.writeable):
        raise TypeError("out must be a writeable C-contiguous numpy.ndarray")
    _relayout_into(plan, source.reshape(-1), out.reshape(-1))
    return out


__all__ = ["relayout"]
