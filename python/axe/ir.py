"""Jaxprs: the text ``jax.make_jaxpr`` prints, read, checked and transformed by axe.

``parse(text)`` gives a ``Jaxpr`` (JAX's ClosedJaxpr) whose ``str`` is JAX's text form byte
for byte; ``check`` type-checks it (shard_map variance typing included), ``transpose`` and
``comm`` give the backward pass and its communication, ``eval`` runs it on NumPy arrays, and
``jvp``, ``linearize``, ``vjp``, ``grad`` and ``vmap`` return transformed jaxprs. Errors are
the exceptions JAX raises for the same mistake (``TypeError``, ``ValueError``), with axe's
message. See docs/ir.md and docs/python.md.
"""

import numpy as np

from axe._axe import ir as _ir
from axe._axe.ir import Jaxpr, check, comm, devices_needed, jvp, linearize, vjp

_MAX_LISTED = 5


def parse(text):
    """The closed jaxpr of ``text`` (JAX's printout or axe's); not type-checked (``check``)."""
    return Jaxpr.parse(text)


def transpose(jaxpr, wrt=None, check_vma=True):
    """The transpose of a jaxpr linear in the inputs ``wrt`` (indices; None: every input), as
    ``jax.linear_transpose`` traces it: takes the other inputs, then one cotangent per output,
    and returns one cotangent per linear input. ``check_vma=False`` transposes the program as
    shard_map's check_vma=False would have traced it (the naive rule, its defensive psums)."""
    return _ir.transpose(jaxpr, wrt, check_vma)


def grad(jaxpr, argnums=0):
    """``jax.grad``'s program: the inputs -> one gradient per argnum (scalar float output)."""
    return _ir.grad(jaxpr, argnums)


def vmap(jaxpr, in_axes=0, out_axes=0, axis_size=None, *, size=None):
    """``jax.vmap``'s program: each input mapped along its in axis (None: not mapped), each
    output's batch axis at its out axis. ``size`` is a synonym of ``axis_size``."""
    if size is not None:
        if axis_size is not None and axis_size != size:
            raise ValueError(f"vmap got axis_size={axis_size} and size={size}")
        axis_size = size
    if isinstance(in_axes, list):
        in_axes = tuple(in_axes)
    if isinstance(out_axes, list):
        out_axes = tuple(out_axes)
    return _ir.vmap(jaxpr, axis_size, in_axes, out_axes)


def _numpy_dtype(name):
    if name.startswith("key<"):
        raise ValueError(f"axe.ir passes arrays, not PRNG keys ({name}): pass the key data "
                         "(uint32[..., 2], as jax.random.key_data gives it) and random_wrap it "
                         "in the program, or return random_unwrap of the keys")
    try:
        return np.dtype(name)
    except TypeError:
        pass
    try:
        import ml_dtypes  # bfloat16 and the float8 types live here (JAX installs it)
    except ImportError as e:
        raise NotImplementedError(f"axe.ir.eval needs ml_dtypes for {name} arrays") from e
    return np.dtype(getattr(ml_dtypes, name))


def _check_arg_types(jaxpr, arrays):
    """JAX's check for a compiled program's arguments: the same messages, as TypeError."""
    types = jaxpr._in_types
    if len(types) != len(arrays):
        raise TypeError(f"Computation compiled for {len(types)} inputs but called with "
                        f"{len(arrays)}")
    errors = []
    for i, ((shape, dtype), a) in enumerate(zip(types, arrays)):
        if tuple(a.shape) == tuple(shape) and a.dtype == _numpy_dtype(dtype):
            continue
        want = jaxpr.in_avals[i]
        got = _ir._type_text(a.dtype.name, list(a.shape))
        errors.append(f"Argument 'args[{i}]' compiled with {want} and called with {got}")
    if not errors:
        return
    count = (f"The first {_MAX_LISTED} of {len(errors)}" if len(errors) >= _MAX_LISTED
             else "The")
    listed = "\n".join(errors[:_MAX_LISTED])
    raise TypeError("Argument types differ from the types for which this computation was "
                    "compiled. Perhaps you are calling the compiled executable with a "
                    "different enable_x64 mode than when it was AOT compiled? "
                    f"{count} mismatches are:\n{listed}")


def _as_array(x):
    # np.asarray reads jax.Arrays and NumPy scalars too; no copy for a C-contiguous array.
    # (np.ascontiguousarray alone would make a 0-d array 1-d.)
    a = np.asarray(x)
    return a if a.flags.c_contiguous else np.ascontiguousarray(a)


def _bytes_view(a):
    return a.reshape(-1).view(np.uint8)


def _bind_consts(jaxpr, consts):
    """The jaxpr with its constvars' values: ``consts`` is a sequence of NumPy arrays in the
    constvars' order (a closed jaxpr's ``{ lambda a:f32[3]; ...}``: the names before ``;``),
    each of its constvar's shape and dtype exactly; None keeps the jaxpr's own values."""
    if consts is None:
        return jaxpr
    arrays = [_as_array(c) for c in consts]
    types = jaxpr._const_types
    if len(types) != len(arrays):
        raise TypeError(f"the jaxpr has {len(types)} constvars but {len(arrays)} consts were "
                        "given")
    for i, ((shape, dtype), a) in enumerate(zip(types, arrays)):
        if tuple(a.shape) != tuple(shape) or a.dtype != _numpy_dtype(dtype):
            got = _ir._type_text(a.dtype.name, list(a.shape))
            raise TypeError(f"consts[{i}] is {got} but constvar {i} is {jaxpr.const_avals[i]}")
    return _ir._with_consts(jaxpr, [_bytes_view(a) for a in arrays])


def eval(jaxpr, *args, backend="host", devices=None, consts=None):  # noqa: A001 (JAX's eval_jaxpr)
    """Runs the jaxpr on NumPy arrays (or anything ``np.asarray`` reads) and returns a list of
    NumPy arrays, one per output. Arguments must have the inputs' shapes and dtypes exactly
    (JAX's TypeError otherwise). Both backends run the executor (``compile``), each shard_map
    position on a thread of its own; ``"threads"`` also checks that ``devices`` in-process
    devices (None: as many as the program needs) hold every shard_map's mesh.
    ``consts``: the constvars' values, NumPy arrays in the constvars' order."""
    if not isinstance(jaxpr, Jaxpr):
        raise TypeError(f"axe.ir.eval takes an axe.ir.Jaxpr, got {type(jaxpr).__name__}")
    jaxpr = _bind_consts(jaxpr, consts)
    arrays = [_as_array(x) for x in args]
    _check_arg_types(jaxpr, arrays)
    types = _ir._eval_output_types(jaxpr)  # checks the jaxpr and bounds the outputs' sizes
    outs = [np.empty(tuple(shape), _numpy_dtype(dtype)) for shape, dtype in types]
    _ir._eval(jaxpr, [_bytes_view(a) for a in arrays], [_bytes_view(o) for o in outs], backend,
              devices)
    return outs


class Compiled:
    """A jaxpr compiled by the executor (``axe.ir.compile``): call it on NumPy arrays as many
    times as needed; the arguments are read where they lie and the results come back as NumPy
    arrays over the executor's own storage, so nothing is converted or planned again."""

    def __init__(self, jaxpr, threads):
        self._jaxpr = jaxpr
        self._executable = _ir._compile(jaxpr, threads)
        self._out_types = self._executable.output_types()

    def __call__(self, *args):
        # Row-major copies only where needed (ascontiguousarray would make a 0-d array 1-d).
        arrays = [np.require(_as_array(x), requirements="C") for x in args]
        _check_arg_types(self._jaxpr, arrays)
        raw = _ir._run_compiled(self._executable, [_bytes_view(a) for a in arrays])
        return [np.asarray(b).view(_numpy_dtype(dtype)).reshape(tuple(shape))
                for b, (shape, dtype) in zip(raw, self._out_types)]

    def describe(self):
        """The plan, one line per step: fused groups, GEMMs, copies, fallbacks."""
        return self._executable.describe()


def compile(jaxpr, threads=0, consts=None):  # noqa: A001 (jax.jit(...).compile's name)
    """Compiles the jaxpr with the executor (typed kernels, fused elementwise chains, BLAS
    GEMM) for repeated calls; ``threads``: 0 uses every CPU the process may run on;
    ``consts``: the constvars' values, NumPy arrays in the constvars' order."""
    if not isinstance(jaxpr, Jaxpr):
        raise TypeError(f"axe.ir.compile takes an axe.ir.Jaxpr, got {type(jaxpr).__name__}")
    jaxpr = _bind_consts(jaxpr, consts)
    if not isinstance(threads, int) or isinstance(threads, bool) or threads < 0:
        raise TypeError(f"threads must be a non-negative int, got {threads!r}")
    return Compiled(jaxpr, threads)


__all__ = [
    "Compiled",
    "Jaxpr",
    "check",
    "comm",
    "compile",
    "devices_needed",
    "eval",
    "grad",
    "jvp",
    "linearize",
    "parse",
    "transpose",
    "vjp",
    "vmap",
]
