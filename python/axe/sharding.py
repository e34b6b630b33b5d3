"""JAX's sharding vocabulary with JAX's names and reprs.

``Mesh``, ``P``/``PartitionSpec``, ``NamedSharding``, ``SingleDeviceSharding``,
``HloSharding``, ``Layout`` (JAX's device-local layout, ``Layout.AUTO``) and ``Format``, and
the functions ``devices_indices_map``, ``shard_shape``, ``to_axe``, ``from_hlo`` and
``explain`` (what ``axe shard explain`` prints).
"""

from axe._axe import sharding as _sharding
from axe._axe.sharding import (
    Explanation,
    Format,
    HloSharding,
    Layout,
    Mesh,
    NamedSharding,
    PartitionSpec,
    SingleDeviceSharding,
)

P = PartitionSpec


def _shown(text, reason):
    return text if text is not None else f"(none: {reason})"


def _tuple_text(values):
    values = list(values)
    if len(values) == 1:
        return f"({values[0]},)"
    return "(" + ", ".join(str(v) for v in values) + ")"


def _explanation_str(e):
    """The text ``axe shard explain`` prints."""
    lines = [
        f"global shape   {e.dtype}[{','.join(str(d) for d in e.global_shape)}]",
        f"jax            {e.named_jax or _shown(e.named, e.named_reason)}",
        f"hlo            {_shown(e.hlo, e.hlo_reason)}",
        f"shardy         {_shown(e.shardy, e.shardy_reason)}",
    ]
    if e.shardy_mesh:
        lines.append(f"               {e.shardy_mesh}")
    lines.append(f"axe            {_shown(e.axe, e.axe_reason)}")
    lines.append(f"format         {_shown(e.format, e.format_reason)}")
    if e.device_assignment:
        order = ", ".join(str(d) for d in e.device_assignment)
        lines.append(f"device order   [{order}]  (HLO, Shardy and gpuid ids are positions in it)")
    lines.append(f"shard shape    {_tuple_text(e.shard_shape)}")
    lines.append(f"local layout   {e.local_shape} = {_shown(e.local_axe, e.local_axe_reason)}")
    replicated = " (fully replicated)" if e.fully_replicated else ""
    lines.append(f"devices        {e.num_devices}{replicated}")
    for note in e.notes:
        lines.append(f"note           {note}")
    lines.append("")
    lines.extend(e.picture)
    lines.append("")
    lines.append("device  replica group  index")
    for device, group, index in e.devices:
        boxes = "[" + ", ".join(f"[{b}, {end}]" for b, end in index) + "]"
        lines.append(f"{str(device):<8}{str(group):<15}{boxes}")
    return "\n".join(lines)


Explanation.__str__ = _explanation_str


def _dtype_name(dtype):
    return str(getattr(dtype, "name", dtype))


def devices_indices_map(sharding, global_shape):
    """JAX's ``sharding.devices_indices_map(shape)``: {device id: (slice, ...)}."""
    return sharding.devices_indices_map(tuple(int(d) for d in global_shape))


def shard_shape(sharding, global_shape):
    """JAX's ``sharding.shard_shape(shape)``."""
    return sharding.shard_shape(tuple(int(d) for d in global_shape))


def to_axe(global_shape, sharding, dtype="float32", local_layout=None):
    """The Axe layout of a sharded array: device iters on ``gpuid``, the shard's memory
    layout on ``m`` (``local_layout``: JAX's device-local ``Layout``; None: row-major)."""
    return _sharding.to_axe([int(d) for d in global_shape], sharding, _dtype_name(dtype),
                            local_layout)


def from_hlo(hlo, ndim, mesh=None, num_devices=0):
    """The NamedSharding of an HLO sharding (text or ``HloSharding``), on ``mesh`` when
    given, else on a mesh axe derives (``num_devices`` devices when > 0)."""
    if isinstance(hlo, str):
        hlo = HloSharding(hlo)
    return _sharding.from_hlo(hlo, int(ndim), mesh, int(num_devices))


def explain(global_shape, sharding, dtype="float32", local_layout=None, notes=()):
    """Everything ``axe shard explain`` shows: the sharding in each notation, the shard
    shape, the device map and its picture, and a shard's local layout as an Axe layout.
    ``notes`` (what the caller assumed) come first among the result's notes. ``str()`` of
    the result is the command's text."""
    return _sharding.explain([int(d) for d in global_shape], sharding, _dtype_name(dtype),
                             local_layout, [str(n) for n in notes])


__all__ = [
    "Explanation",
    "Format",
    "HloSharding",
    "Layout",
    "Mesh",
    "NamedSharding",
    "P",
    "PartitionSpec",
    "SingleDeviceSharding",
    "devices_indices_map",
    "explain",
    "from_hlo",
    "shard_shape",
    "to_axe",
]
