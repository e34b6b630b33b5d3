"""axe against answers the real JAX gave (python/tests/data/jax_more_vectors.json, written by
generate_jax_more_vectors.py): Pallas interpret mode, PartitionSpec/Layout/Format reprs,
with_layout_constraint's vmap rule and XLA shapes. Runs without JAX."""

import json
import os

import numpy as np
import pytest

import axe
from axe import sharding as axs
from axe import xla as axx
from pallas_text import block_text

DATA = os.path.join(os.path.dirname(__file__), "data", "jax_more_vectors.json")


@pytest.fixture(scope="module")
def vectors():
    with open(DATA) as f:
        return json.load(f)


def _show_program_ids(case):
    return axe.pallas.show_program_ids(tuple(case["shape"]), block_text(case["dims"]),
                                       tuple(case["grid"]), case["index_map"])


def _expected(case):
    return np.array(case["out"], dtype=np.int32).reshape(case["out_shape"])


def test_recorded_pallas_outputs(vectors):
    cases = vectors["pallas"]
    assert len(cases) >= 100
    kinds = {d[0] for case in cases for d in case["dims"]}
    assert kinds == {"blocked", "element", "none", "squeezed"}
    for n, case in enumerate(cases):
        np.testing.assert_array_equal(_show_program_ids(case), _expected(case),
                                      err_msg=f"case {n}: {case['shape']} "
                                      f"{block_text(case['dims'])} {case['grid']} "
                                      f"{case['index_map']}")


def test_recorded_pallas_negative_starts(vectors):
    """Negative window starts: JAX wraps a negative start by the padded dimension size once,
    then clamps (see test_jax_more.py::test_pallas_negative_starts); axe does the same."""
    cases = vectors["pallas_negative_starts"]
    di_2 = cases[0]
    assert di_2["index_map"] == "(i) -> (i - 1,)" and di_2["out"] == [1, 1, 2, 2, 3, 3, 0, 0]
    for n, case in enumerate(cases):
        np.testing.assert_array_equal(_show_program_ids(case), _expected(case),
                                      err_msg=f"case {n}: {case['shape']} "
                                      f"{block_text(case['dims'])} {case['grid']} "
                                      f"{case['index_map']}")


def _entry(e):
    return tuple(e) if isinstance(e, list) else e


def test_recorded_partition_spec_reprs(vectors):
    cases = vectors["partition_specs"]
    assert len(cases) >= 100
    for case in cases:
        entries = case["entries"]
        if "UNCONSTRAINED" in entries:  # axe has no P.UNCONSTRAINED (reported)
            with pytest.raises(ValueError, match="UNCONSTRAINED"):
                axs.PartitionSpec.parse(case["repr"])
            continue
        ours = axs.P(*[_entry(e) for e in entries])
        assert repr(ours) == case["repr"], case
        assert str(ours) == case["str"], case
        assert axs.PartitionSpec.parse(case["repr"]) == ours, case


def _mesh():
    return axs.Mesh(np.arange(8).reshape(2, 4), ("x", "y"))


def test_recorded_layout_and_format_reprs(vectors):
    cases = vectors["layouts"]
    assert len(cases) >= 100
    mesh = _mesh()
    for case in cases:
        tiling = case["tiling"]
        layout = axs.Layout(case["major_to_minor"],
                            tiling=None if tiling is None else [tuple(t) for t in tiling],
                            sub_byte_element_size_in_bits=case["sub_byte"])
        assert repr(layout) == case["repr"], case
        assert axs.Layout.parse(case["repr"]) == layout, case
        if "spec" in case:
            sharding = axs.NamedSharding(mesh, axs.P(*[_entry(e) for e in case["spec"]]),
                                         memory_kind="device")
        else:
            sharding = axs.SingleDeviceSharding(case["device"], memory_kind="device")
        assert axs.Format.parse(case["format_repr"]) == axs.Format(layout, sharding), case


def test_recorded_layout_constraint_vmap(vectors):
    cases = vectors["layout_constraint_vmap"]
    assert len(cases) >= 20
    for case in cases:
        ours = axe.ir.vmap(axe.ir.parse(case["unbatched"]), in_axes=case["in_axis"],
                           axis_size=case["axis_size"])
        assert str(ours) == case["batched"], case["unbatched"]
        assert str(axe.ir.parse(case["batched"])) == case["batched"]


def _with_default_layout(text):
    if "{" in text or text.endswith("[]") or not text[0].isalpha():
        return text
    rank = text.count(",") + 1
    return text + "{" + ",".join(str(d) for d in reversed(range(rank))) + "}"


def test_recorded_xla_shapes(vectors):
    shapes = vectors["shapes"]
    assert len(shapes["xla_client"]) >= 100 and len(shapes["compiled_hlo"]) >= 20
    for text in shapes["xla_client"] + shapes["compiled_hlo"]:
        # docs/xla.md: a non-scalar written without a layout prints with the default one.
        assert axx.Shape(text).to_string() == _with_default_layout(text), text
    assert len(shapes["output_bytes"]) >= 20
    for text, size in shapes["output_bytes"]:
        assert axx.Shape(text).byte_size() == size, text
