"""Pictures of layouts, XLA shapes and shardings, as in ``axe ... --svg`` and ``--latex``.

``draw(x, **options)`` returns a ``Picture``: its ``svg`` text, its ``latex()`` (a standalone
TikZ document) and ``save(path)``; Jupyter draws it. The objects themselves (``axe.Layout``,
``axe.xla.Shape``, ``axe.sharding.Mesh``, ``NamedSharding``, ``SingleDeviceSharding``,
``Format``, the ``Explanation`` of ``axe.explain``) draw themselves in a notebook through
``_repr_svg_`` (and ``_repr_html_`` for an explanation: its notations and its picture).

Options of a layout: ``shape=(rows, cols)``, ``color_by="lane"``, ``zoom`` (rows and
columns of the logical grid: ``(slice(0, 8), slice(16, 32))``, ``(0, 8, 16, 32)`` or
``"0:8,16:32"``), ``physical_zoom`` (the same over the values of the physical view's row and
column axes, e.g. devices and memory offsets; a layout on one axis: rows and column offsets of
its folded grid), ``max_rows``/``max_cols`` (cells drawn per direction; a larger grid, or
physical view, is summarized in blocks). Shardings and meshes are drawn on a nominal array of one element per
shard unless given ``shape=``.
"""

import html
import math

from axe._axe import Layout
from axe._axe import picture as _picture
from axe._axe import sharding as _s
from axe._axe import xla as _xla


class Picture:
    """An SVG picture; ``latex()`` is its TikZ form."""

    def __init__(self, svg):
        self.svg = svg

    def latex(self):
        """A standalone LaTeX document (``\\documentclass{standalone}``, TikZ) of the picture."""
        return _picture.to_latex(self.svg)

    def save(self, path):
        """Writes the SVG (a path ending in ``.tex``: the LaTeX document)."""
        text = self.latex() if str(path).endswith(".tex") else self.svg
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)

    def _repr_svg_(self):
        return self.svg

    def __repr__(self):
        return f"<axe.picture.Picture: {len(self.svg)} bytes of SVG>"


def _zoom(zoom, name="zoom"):
    if zoom is None:
        return None
    if isinstance(zoom, str):
        try:
            rows, cols = zoom.split(",")
            r0, r1 = rows.split(":")
            c0, c1 = cols.split(":")
            return (int(r0), int(r1), int(c0), int(c1))
        except ValueError:
            raise ValueError(f"{name} '{zoom}': expected ROW0:ROW1,COL0:COL1") from None
    zoom = tuple(zoom)
    if len(zoom) == 2 and all(isinstance(z, slice) for z in zoom):
        bounds = []
        for z in zoom:
            if z.start is None or z.stop is None or z.step not in (None, 1):
                raise ValueError(f"{name}: slices need a start and a stop, and no step")
            bounds += [z.start, z.stop]
        return tuple(int(b) for b in bounds)
    if len(zoom) != 4:
        raise TypeError(f"{name} is (row0, row1, col0, col1), two slices or 'R0:R1,C0:C1'")
    return tuple(int(z) for z in zoom)


def _nominal_shape(sharding):
    """One element per shard along each dimension of a NamedSharding's spec."""
    if isinstance(sharding, _s.SingleDeviceSharding):
        return (1,)
    sizes = dict(zip(sharding.mesh.axis_names, sharding.mesh.axis_sizes))
    shape = []
    for entry in sharding.spec:
        names = () if entry is None else (entry,) if isinstance(entry, str) else tuple(entry)
        shape.append(math.prod(sizes[n] for n in names))
    return tuple(shape) or (1,)


_NOMINAL_NOTE = "no array shape given: each dimension has one element per shard"


def _sharding_picture(sharding, shape):
    notes = []
    if shape is None:
        shape, notes = _nominal_shape(sharding), [_NOMINAL_NOTE]
    e = _s.explain([int(d) for d in shape], sharding, "float32", None, [])
    mesh = sharding.mesh if isinstance(sharding, _s.NamedSharding) else None
    return _picture.sharding_svg(e, mesh, notes)


def _explanation_mesh(e):
    """The mesh of an explanation of a NamedSharding (drawn beside the blocks), else None."""
    try:
        return _s.NamedSharding.parse(e.named).mesh if e.named else None
    except ValueError:
        return None


def _svg(x, shape=None, color_by=None, zoom=None, max_rows=32, max_cols=32, physical_zoom=None):
    if isinstance(x, Layout):
        return _picture.layout_svg(x, None if shape is None else tuple(int(s) for s in shape),
                                   color_by, _zoom(zoom), int(max_rows), int(max_cols),
                                   _zoom(physical_zoom, "physical_zoom"))
    if isinstance(x, _xla.Shape):
        return _picture.xla_svg(x)
    if isinstance(x, _s.Explanation):
        return _picture.sharding_svg(x, _explanation_mesh(x))
    if isinstance(x, (_s.NamedSharding, _s.SingleDeviceSharding)):
        return _sharding_picture(x, shape)
    if isinstance(x, _s.Mesh):
        spec = _s.PartitionSpec(*x.axis_names)
        return _sharding_picture(_s.NamedSharding(x, spec), shape)
    if isinstance(x, _s.Format):
        if x.sharding is None:
            raise ValueError("a Format without a sharding has no picture")
        return _sharding_picture(x.sharding, shape)
    raise TypeError(f"axe.picture.draw: no picture of {type(x).__name__}")


def draw(x, **options):
    """The picture of a layout, XLA shape, mesh, sharding, Format or explanation."""
    return Picture(_svg(x, **options))


def _repr_svg(x):
    """The notebook display: None (IPython shows the text repr) when there is no picture."""
    try:
        return _svg(x)
    except (ValueError, TypeError, MemoryError, NotImplementedError):
        return None


_ROWS = (("jax", "named"), ("hlo", "hlo"), ("shardy", "shardy"), ("axe", "axe"),
         ("format", "format"), ("local layout", "local_axe"))


def _explanation_html(e):
    """The notations table of ``axe shard explain`` and the picture."""
    def row(name, value):
        return (f"<tr><th style='text-align:left'>{html.escape(name)}</th>"
                f"<td style='text-align:left'><code>{html.escape(str(value))}</code></td></tr>")

    rows = [row("global shape", f"{e.dtype}[{','.join(str(d) for d in e.global_shape)}]")]
    for name, field in _ROWS:
        text = getattr(e, field)
        rows.append(row(name, text if text is not None else
                        f"(none: {getattr(e, field + '_reason')})"))
    rows.append(row("shard shape", tuple(e.shard_shape)))
    rows.append(row("devices", e.num_devices))
    rows += [row("note", n) for n in e.notes]
    picture = _repr_svg(e) or ""
    if picture.startswith("<?xml"):
        picture = picture[picture.index("?>") + 2:]
    return f"<div><table>{''.join(rows)}</table>{picture}</div>"


for _cls in (Layout, _xla.Shape, _s.Mesh, _s.NamedSharding, _s.SingleDeviceSharding, _s.Format,
             _s.Explanation):
    _cls._repr_svg_ = _repr_svg
_s.Explanation._repr_html_ = _explanation_html

__all__ = ["Picture", "draw"]


def _array_info_html(info):
    try:
        return _explanation_html(info.explain())
    except (ValueError, TypeError, MemoryError, NotImplementedError):
        return None


def _attach_array_info():
    from axe._jax import ArrayInfo  # noqa: PLC0415 (axe._jax imports nothing of this module)

    ArrayInfo._repr_html_ = _array_info_html


_attach_array_info()
