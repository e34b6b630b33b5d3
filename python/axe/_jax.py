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

    def __init__(self, shape, dtype, sharding=None, layout=None):
        self.shape = tuple(int(d) for d in shape)
        self.dtype = str(dtype)
        self.sharding = sharding
        self.layout = layout

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
        return _s.explain(self.shape, sharding, self.dtype, self._concrete_layout())

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


def _array(x):
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
