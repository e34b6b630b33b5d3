"""Notebook pictures: every axe object Jupyter displays has a _repr_svg_ (an explanation also
a _repr_html_) that is well-formed and says what it draws; the example notebook's code cells
run and every value they display draws; axe.picture.draw zooms and writes TikZ."""

import ast
import json
import pathlib
import xml.etree.ElementTree as ET

import pytest

import axe
from axe.sharding import Format, Mesh, NamedSharding, P, SingleDeviceSharding
from axe.sharding import Layout as LocalLayout

NOTEBOOK = pathlib.Path(__file__).resolve().parents[2] / "examples" / "notebook.ipynb"
SVG = "{http://www.w3.org/2000/svg}"


def texts(svg):
    """The picture's text nodes, after checking it is well-formed SVG of a bounded size."""
    root = ET.fromstring(svg.encode("utf-8"))
    assert root.tag == SVG + "svg"
    assert 0 < int(root.get("width")) <= 4000 and 0 < int(root.get("height")) <= 8000
    assert len(svg) < 2_000_000
    return [t.text for t in root.iter(SVG + "text")]


def formatted(obj):
    """What Jupyter gets: IPython's display formatter when importable, else the methods."""
    try:
        from IPython.core.formatters import DisplayFormatter  # noqa: PLC0415
    except ImportError:
        data = {}
        for mime, method in (("image/svg+xml", "_repr_svg_"), ("text/html", "_repr_html_")):
            if hasattr(obj, method) and getattr(obj, method)() is not None:
                data[mime] = getattr(obj, method)()
        return data
    data, _ = DisplayFormatter().format(obj)
    return data


def check_display(obj):
    data = formatted(obj)
    assert "image/svg+xml" in data or "text/html" in data, f"{type(obj).__name__} does not draw"
    if "image/svg+xml" in data:
        texts(data["image/svg+xml"])
    if "text/html" in data:
        ET.fromstring(data["text/html"].encode("utf-8"))  # the table and the inline picture
    return data


MESH = Mesh.parse("x=2,y=2")


def test_layout_draws_its_points_and_summarizes_large_grids():
    layout = axe.Layout("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp")
    labels = texts(check_display(layout)["image/svg+xml"])
    assert "8:6:1" in labels
    big = axe.Layout("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]")
    labels = texts(axe.picture.draw(big, shape=(64, 128)).svg)
    for device in range(4):
        assert f"gpuid = {device}" in labels
    assert any(t.startswith("summary: each cell stands for a block of 2 x 4") for t in labels)


def test_layout_zoom_spellings_agree():
    big = axe.Layout("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]")
    svgs = {axe.picture.draw(big, shape=(64, 128), zoom=z).svg
            for z in ((slice(0, 4), slice(64, 68)), (0, 4, 64, 68), "0:4,64:68")}
    assert len(svgs) == 1
    assert "2:65" in texts(svgs.pop())


def test_layout_physical_view_is_summarized_and_zooms():
    big = axe.Layout("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]")
    labels = texts(axe.picture.draw(big, shape=(64, 128)).svg)
    assert "1984" in labels  # the last block of 64 memory offsets: every offset in view
    assert any(t.startswith("physical summary: each cell stands for a block of 1 gpuid x 64 m")
               for t in labels)
    svgs = {axe.picture.draw(big, shape=(64, 128), physical_zoom=z).svg
            for z in ((slice(1, 3), slice(64, 96)), (1, 3, 64, 96), "1:3,64:96")}
    assert len(svgs) == 1
    zoomed = texts(svgs.pop())
    assert "33,0" in zoomed and "1,95" in zoomed
    assert "physical zoom: gpuid 1:3, m 64:96" in zoomed
    with pytest.raises(ValueError, match="holds no value of gpuid"):
        axe.picture.draw(big, physical_zoom=(8, 9, 0, 1))
    with pytest.raises(ValueError, match="physical_zoom '1:3': expected ROW0:ROW1,COL0:COL1"):
        axe.picture.draw(big, physical_zoom="1:3")


def test_zoom_and_option_errors():
    big = axe.Layout("S[(2,32,2,64):(1@gpuid,64@m,2@gpuid,1@m)]")
    with pytest.raises(ValueError, match="is empty or outside the 64 x 128 grid"):
        axe.picture.draw(big, shape=(64, 128), zoom=(0, 4, 120, 130))
    with pytest.raises(ValueError, match="expected ROW0:ROW1,COL0:COL1"):
        axe.picture.draw(big, zoom="0:4")
    with pytest.raises(ValueError, match="does not use the axis 'warp'"):
        axe.picture.draw(big, color_by="warp")
    with pytest.raises(TypeError, match="no picture of int"):
        axe.picture.draw(3)


def test_xla_shape_draws_its_tiles_and_a_tuple_falls_back_to_text():
    shape = axe.xla.Shape("bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}")
    labels = texts(check_display(shape)["image/svg+xml"])
    assert "#0" in labels
    assert axe.xla.Shape("(f32[2], s32[])")._repr_svg_() is None


def test_mesh_and_shardings_draw_their_devices():
    for obj in (MESH, NamedSharding(MESH, P("x", "y")), NamedSharding(MESH, P(("x", "y"))),
                NamedSharding(MESH, P()), Format(LocalLayout((0, 1)), NamedSharding(MESH, P("x")))):
        labels = texts(check_display(obj)["image/svg+xml"])
        for device in ("0", "1", "2", "3"):
            assert device in labels, (obj, labels)
    labels = texts(NamedSharding(MESH, P("x"))._repr_svg_())
    assert "no array shape given: each dimension has one element per shard" in labels
    assert texts(axe.picture.draw(NamedSharding(MESH, P("x")), shape=(8, 8)).svg)[0] == \
        "sharding of f32[8,8]"
    labels = texts(check_display(SingleDeviceSharding(5))["image/svg+xml"])
    assert "5" in labels
    assert Format()._repr_svg_() is None


def test_explanation_html_has_the_notations_and_the_picture():
    e = axe.explain(axe.ArrayInfo((8, 32), "float32", NamedSharding(MESH, P("x", "y"))),
                    file=open("/dev/null", "w"))
    data = check_display(e)
    root = ET.fromstring(data["text/html"].encode("utf-8"))
    cells = [" ".join(td.itertext()) for td in root.iter("td")]
    assert "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x', 'y'))" in cells[1]
    assert any(c.startswith("{devices=[2,2]") for c in cells)
    assert root.find(SVG + "svg") is not None
    labels = [t.text for t in root.iter(SVG + "text")]
    assert "0" in labels and "mesh: rows x=2, columns y=2" in labels


def test_latex_is_a_standalone_tikz_document():
    tex = axe.picture.draw(NamedSharding(MESH, P("x"))).latex()
    assert tex.count("{") - tex.count("\\{") == tex.count("}") - tex.count("\\}")
    assert "\\begin{tikzpicture}" in tex and tex.endswith("\\end{tikzpicture}\n\\end{document}\n")
    assert "{0,1};" in tex and "{2,3};" in tex


def run_cells(cells):
    """Runs code cells as Jupyter does: yields the value of each cell's last expression."""
    namespace = {"__name__": "__notebook__"}
    for cell in cells:
        tree = ast.parse("".join(cell["source"]))
        last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
        body = tree.body[:-1] if last else tree.body
        exec(compile(ast.Module(body, []), "<cell>", "exec"), namespace)  # noqa: S102
        if last:
            yield eval(compile(ast.Expression(last.value), "<cell>", "eval"), namespace)  # noqa: S307


def test_example_notebook_runs_and_every_displayed_value_draws(capsys):
    notebook = json.loads(NOTEBOOK.read_text(encoding="utf-8"))
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    assert len(code) >= 8
    shown = [v for v in run_cells(code) if v is not None]
    assert len(shown) >= 7
    for value in shown:
        check_display(value)
    assert "\\documentclass" in capsys.readouterr().out
