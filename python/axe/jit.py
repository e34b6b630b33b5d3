"""Jaxprs compiled with a Format per input and output, as JAX's
``jax.jit(f, in_shardings=..., out_shardings=...).lower(...).compile()`` does: ``compile``
resolves every ``Layout.AUTO`` with axe's cost model and checks every sharding, and the
``Compiled`` it returns reports ``input_formats`` / ``output_formats`` (``axe.sharding.Format``,
with sharding None where none was given) and runs on NumPy arrays: each
argument is a host array (uncommitted), moved to its compiled format before the call, on the
in-process runtime's devices. See docs/layouts.md and docs/python.md.
"""

import numpy as np

from axe import ir as _ir_py
from axe._axe import ir as _ir
from axe._axe import jit as _jit
from axe._axe.jit import Compiled


def compile(jaxpr, in_formats=None, out_formats=None, donate_argnums=()):  # noqa: A001
    """The compiled program. ``in_formats`` / ``out_formats``: None (every value unspecified),
    one leaf for every value, or one leaf per value; a leaf is None, an
    ``axe.sharding.Format`` (``Format(Layout.AUTO)``, ``Format(Layout((1, 0)), sharding)``)
    or a sharding. ``donate_argnums``: an int or ints (inputs whose buffers an output of the
    same type may reuse)."""
    if isinstance(donate_argnums, int):
        donate_argnums = (donate_argnums,)
    return _jit.compile(jaxpr, in_formats, out_formats, [int(d) for d in donate_argnums])


def _execute(self, *args):
    """Runs the program on host arrays: (outputs as NumPy arrays, the arguments re-laid-out
    before the call as dicts index, name, from, to, resharded)."""
    arrays = [_ir_py._as_array(x) for x in args]
    _ir_py._check_arg_types(self.jaxpr, arrays)
    types = _ir._eval_output_types(self.jaxpr)
    outs = [np.empty(tuple(shape), _ir_py._numpy_dtype(dtype)) for shape, dtype in types]
    relayouts = _jit._call(self, [_ir_py._bytes_view(a) for a in arrays],
                           [_ir_py._bytes_view(o) for o in outs])
    return outs, relayouts


def _call(self, *args):
    """The outputs, as a list of NumPy arrays."""
    return _execute(self, *args)[0]


Compiled.execute = _execute
Compiled.__call__ = _call

__all__ = ["Compiled", "compile"]
