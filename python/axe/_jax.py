"""Bridges from a live JAX session, without importing JAX.

``from_jax`` reads JAX objects by their attributes (and, for JAX's device-local Layout, its
repr, which axe parses): a ``jax.Array`` or ``jax.ShapeDtypeStruct`` becomes an
``ArrayInfo``; a ``Mesh``, ``PartitionSpec``, ``NamedSharding``, ``SingleDeviceSharding``,
``Layout`` or ``Format`` becomes axe's object of the same name. ``explain`` prints what
``axe shard explain`` shows for an array.
"""

import sys

from axe import sharding as _s


def _type_name(x):
    return type(x).__name__


def _mesh(mesh):
    axis_types = getattr(mesh, "axis_types", None)
    return _s.Mesh(mesh.devices, tuple(mesh.axis_names), axis_types)


def _spec(spec):
    return _s.PartitionSpec(*tuple(spec))


def _sharding(sharding):
    name = _type_name(sharding)
    if hasattr(sharding, "mesh") and hasattr(sharding, "spec"):
        return _s.NamedSharding(_mesh(sharding.mesh), _spec(sharding.spec),
                                getattr(sharding, "memory_kind", None))
    if name == "SingleDeviceSharding" or len(getattr(sharding, "device_set", ())) == 1:
        device = next(iter(sharding.device_set))
        return _s.SingleDeviceSharding(device.id, getattr(sharding, "memory_kind", None))
    raise TypeError(f"axe.from_jax: unsupported sharding type {name} (NamedSharding and "
                    "SingleDeviceSharding are supported)")


def _local_layout(layout):
    if layout is None:
        return None
    text = repr(layout)
    if text == "AUTO" or text.endswith(".AUTO"):
        return _s.Layout.AUTO
    return _s.Layout.parse(text)


def _format(fmt):
    layout = _local_layout(getattr(fmt, "layout", None))
    sharding = getattr(fmt, "sharding", None)
    return _s.Format(layout, None if sharding is None else _sharding(sharding))


class ArrayInfo:
    """What axe knows about a JAX array or ShapeDtypeStruct: its shape, dtype, sharding
    (axe's NamedSharding or SingleDeviceSharding, or None) and device-local layout (axe's
    ``sharding.Layout``, or None for the default)."""

    def __init__(self, shape, dtype, sharding=None, layout=None, notes=()):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = str(dtype)
        self.sharding = sharding
        self.layout = layout
        # What reading the JAX object assumed (e.g. a tracer's abstract mesh has no devices).
        self.notes = tuple(notes)

    @property
    def format(self):
        layout = self.layout if self.sharding is not None else None
        return _s.Format(layout, self.sharding)

    def to_axe(self):
        """The Axe layout of the whole array over the devices (gpuid) and memory (m)."""
        sharding = self.sharding or _s.SingleDeviceSharding(0)
        return _s.to_axe(self.shape, sharding, self.dtype, self._concrete_layout())

    def explain(self):
        """The ``axe.sharding.Explanation`` of this array."""
        sharding = self.sharding or _s.SingleDeviceSharding(0)
        return _s.explain(self.shape, sharding, self.dtype, self._concrete_layout(), self.notes)

    def _concrete_layout(self):
        return self.layout if isinstance(self.layout, _s.Layout) else None

    def __repr__(self):
        return (f"ArrayInfo(shape={self.shape}, dtype={self.dtype}, sharding={self.sharding!r}, "
                f"layout={self.layout!r})")


def _array_layout(x):
    fmt = getattr(x, "format", None)
    if fmt is not None and not callable(fmt):
        return _local_layout(getattr(fmt, "layout", None))
    layout = getattr(x, "layout", None)  # older JAX: x.layout was the Format
    if layout is not None and hasattr(layout, "device_local_layout"):
        return _local_layout(layout.device_local_layout)
    return None


def _is_tracer(x):
    return _type_name(x).endswith("Tracer") and hasattr(x, "aval")


def _tracer(x):
    """A tracer inside a JAX transformation has no devices, only the abstract sharding of its
    type (``jax.typeof(x).sharding``, on an AbstractMesh). Read that, or refuse."""
    shape = tuple(int(d) for d in x.shape)
    dtype = getattr(x.dtype, "name", x.dtype)
    abstract = getattr(x.aval, "sharding", None)
    mesh = getattr(abstract, "mesh", None)
    names = tuple(getattr(mesh, "axis_names", ()) or ())
    axis_types = tuple(getattr(mesh, "axis_types", None) or ())
    auto = [n for n, t in zip(names, axis_types) if "Auto" in str(t)]
    if mesh is None or getattr(mesh, "empty", True) or not names or len(auto) == len(names):
        raise TypeError(
            f"axe.from_jax: a traced array ({dtype}{list(shape)}, a {_type_name(x)} inside a "
            "JAX transformation) has no sharding yet: its abstract sharding names no mesh axis "
            "it may use (no mesh, or only Auto axes), so the compiler chooses. Explain the "
            "array passed to the jitted function or its result, or use a mesh with Explicit "
            "axes (jax.sharding.AxisType.Explicit), whose shardings are part of the type")
    sizes = tuple(int(n) for n in mesh.axis_sizes)
    count = 1
    for n in sizes:
        count *= n
    devices = list(range(count))
    axe_mesh = _s.Mesh(_reshape(devices, sizes), tuple(mesh.axis_names), axis_types or None)
    sharding = _s.NamedSharding(axe_mesh, _spec(abstract.spec))
    note = (f"a traced array: its sharding is the abstract one of its type, on an AbstractMesh "
            f"without devices; device ids 0..{count - 1} below are mesh positions, not the "
            "devices the compiled program will use")
    notes = [note]
    if auto:
        notes.append(f"mesh axes {', '.join(auto)} are Auto: how the array is split over them is "
                     "the compiler's choice and is not shown")
    return ArrayInfo(shape, dtype, sharding, None, notes=tuple(notes))


def _reshape(flat, sizes):
    if not sizes:
        return flat[0]
    step = len(flat) // sizes[0]
    return [_reshape(flat[i * step:(i + 1) * step], sizes[1:]) for i in range(sizes[0])]


def _array(x):
    if _is_tracer(x):
        return _tracer(x)
    sharding = getattr(x, "sharding", None)
    return ArrayInfo(x.shape, getattr(x.dtype, "name", x.dtype),
                     None if sharding is None else _sharding(sharding), _array_layout(x))


def from_jax(x):
    """axe's object for a JAX object (see the module docstring); TypeError for others."""
    name = _type_name(x)
    if name == "Mesh" and hasattr(x, "devices") and hasattr(x, "axis_names"):
        return _mesh(x)
    if name in ("PartitionSpec", "P"):
        return _spec(x)
    if name in ("NamedSharding", "SingleDeviceSharding"):
        return _sharding(x)
    if name == "Format" and hasattr(x, "sharding"):
        return _format(x)
    if name in ("Layout", "DeviceLocalLayout") and hasattr(x, "major_to_minor"):
        return _local_layout(x)
    if hasattr(x, "shape") and hasattr(x, "dtype"):
        return _array(x)
    raise TypeError(f"axe.from_jax: cannot read a {name} (expected a jax.Array, "
                    "ShapeDtypeStruct, Mesh, PartitionSpec, NamedSharding, "
                    "SingleDeviceSharding, Layout or Format)")


def explain(x, file=None):
    """Prints, for a jax.Array (or ShapeDtypeStruct, or axe.ArrayInfo), its sharding in
    each notation (JAX, HLO, Shardy, Axe), the device map picture and the local layout of
    each shard as an Axe layout; returns the ``axe.sharding.Explanation``."""
    info = x if isinstance(x, ArrayInfo) else from_jax(x)
    if not isinstance(info, ArrayInfo):
        raise TypeError(f"axe.explain: expected an array, got {_type_name(x)}")
    explanation = info.explain()
    print(explanation, file=file if file is not None else sys.stdout)
    return explanation
