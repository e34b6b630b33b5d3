"""axe.jit: jaxprs compiled with Formats (AUTO resolved by the cost model, shardings checked)
and called on NumPy arrays through the in-process runtime."""

import pathlib

import numpy as np
import pytest

import axe
from axe import ir, jit
from axe.sharding import Format, Layout, Mesh, NamedSharding, P, SingleDeviceSharding

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "ir" / "testdata"

# JAX's layout notebook: apply_fn(x, y) = (x[0, :], y[:, 0]) on two f32[512,1024].
APPLY_FN = """{ lambda ; a:f32[512,1024] b:f32[512,1024]. let
    c:f32[1,1024] = slice[
      limit_indices=(1, 1024)
      start_indices=(0, 0)
      strides=None
    ] a
    d:f32[1024] = squeeze[dimensions=(0,)] c
    e:f32[512,1] = slice[
      limit_indices=(512, 1)
      start_indices=(0, 0)
      strides=None
    ] b
    f:f32[512] = squeeze[dimensions=(1,)] e
  in (d, f) }"""

DOUBLE = "{ lambda ; a:f32[8]. let b:f32[8] = mul a 2.0:f32[] in (b,) }"


def layout(*major_to_minor):
    """A layout as a compiled program reports it (tiling=())."""
    return Layout(major_to_minor, tiling=())


def test_auto_layouts_follow_the_reads():
    c = jit.compile(ir.parse(APPLY_FN), Format(Layout.AUTO), Format(Layout.AUTO))
    assert [f.layout for f in c.input_formats] == [layout(0, 1), layout(1, 0)]
    assert [f.sharding for f in c.input_formats] == [None, None]
    assert all(isinstance(f, Format) for f in c.input_formats)
    assert repr(c.input_formats[1]) == ("Format(layout=Layout(major_to_minor=(1, 0), tiling=(), "
                                        "sub_byte_element_size_in_bits=0), sharding=None)")
    explain = c.explain()
    assert "* major_to_minor=(1, 0)                 2048 B  slice reads 32 lines of 64 B" in explain
    assert c.as_text() == APPLY_FN


def test_call_moves_host_arrays_to_the_compiled_layout():
    c = jit.compile(ir.parse(APPLY_FN), Format(Layout.AUTO))
    x = np.arange(512 * 1024, dtype=np.float32).reshape(512, 1024)
    y = -x
    (row, column), relayouts = c.execute(x, y)
    np.testing.assert_array_equal(row, x[0, :])
    np.testing.assert_array_equal(column, y[:, 0])
    assert relayouts == [{"index": 1, "name": "args[1]", "from": layout(0, 1),
                          "to": layout(1, 0), "resharded": False}]
    row2, column2 = c(x, y)
    np.testing.assert_array_equal(row2, row)
    np.testing.assert_array_equal(column2, column)


def test_programs_run_in_their_compiled_layouts():
    """Column-major inputs and outputs: the executor runs in those layouts (the transposes at
    the edges fold into the GEMM's flags and the reduction's axes); the values are NumPy's."""
    text = """{ lambda ; a:f32[48,32] b:f32[48,16] c:i32[24,40]. let
    d:f32[32,48] = transpose[permutation=(1, 0)] a
    e:f32[32,16] = dot_general[
      dimension_numbers=(([1], [0]), ([], []))
      preferred_element_type=float32
    ] d b
    f:i32[24,40] = mul c c
    g:i32[40] = reduce_sum[axes=(0,) out_sharding=None] f
    h:i32[40,24] = transpose[permutation=(1, 0)] f
    i:f32[] = reduce_sum[axes=(0, 1) out_sharding=None] a
  in (e, g, h, i) }"""
    sharding = SingleDeviceSharding(0)
    column = Format(Layout((1, 0)), sharding)
    c = jit.compile(ir.parse(text), [column, column, column],
                    [column, Format(Layout((0,)), sharding), column, None])
    assert [f.layout for f in c.output_formats] == [layout(1, 0), layout(0), layout(1, 0),
                                                    layout()]
    rng = np.random.default_rng(0)
    x = rng.standard_normal((48, 32)).astype(np.float32)
    w = rng.standard_normal((48, 16)).astype(np.float32)
    ids = rng.integers(-2**31, 2**31, (24, 40), dtype=np.int64).astype(np.int32)
    e, g, h, total = c(x, w, ids)
    np.testing.assert_allclose(e, x.T @ w, rtol=1e-5, atol=1e-5)
    square = ids * ids  # wraps in int32, as XLA does
    np.testing.assert_array_equal(g, square.sum(axis=0, dtype=np.int32))
    np.testing.assert_array_equal(h, square.T)
    np.testing.assert_allclose(total, x.sum(), rtol=1e-5)


def test_sharded_formats_are_axe_sharding_formats():
    mesh = Mesh(np.arange(4), ("x",))
    sharding = NamedSharding(mesh, P("x"))
    c = jit.compile(ir.parse(DOUBLE), [Format(Layout((0,)), sharding)], [sharding],
                    donate_argnums=0)
    (fin,) = c.input_formats
    assert isinstance(fin, Format)
    assert fin == Format(layout(0), sharding)
    (fout,) = c.output_formats
    assert isinstance(fout, Format) and fout.sharding == sharding and fout.layout == layout(0)
    assert c.donations == [(0, 0)]
    x = np.arange(8, dtype=np.float32)
    (out,), relayouts = c.execute(x)
    np.testing.assert_array_equal(out, 2 * x)
    assert [(r["index"], r["resharded"]) for r in relayouts] == [(0, True)]


def test_unspecified_formats_are_row_major_without_sharding():
    c = jit.compile(ir.parse(APPLY_FN))
    assert [f.layout for f in c.input_formats + c.output_formats] == [
        layout(0, 1), layout(0, 1), layout(0), layout(0)]
    assert c.donations == []
    assert c.relayouts == []


def test_shard_map_program_runs_on_runtime_devices():
    j = ir.parse((TESTDATA / "jax" / "shmap_psum.txt").read_text())
    c = jit.compile(j)
    x = np.arange(8, dtype=np.float32)
    (out,) = c(x)
    np.testing.assert_array_equal(out, ir.eval(j, x)[0])


def test_compile_errors_are_jax_errors():
    j = ir.parse(DOUBLE)
    with pytest.raises(ValueError, match="`jax.jit` does not accept device-local layouts "
                                         "directly. Create a `Format` instance"):
        jit.compile(j, [Layout((0,))])
    with pytest.raises(ValueError, match="`jax.jit` does not accept device-local layouts"):
        jit.compile(j, Layout.AUTO)
    with pytest.raises(ValueError, match="Input layout being donated was AUTO while output "
                                         r"layout was Layout\(major_to_minor=\(0,\)"):
        jit.compile(j, [Format(Layout.AUTO)], [Format(Layout((0,)), SingleDeviceSharding(0))],
                    donate_argnums=[0])
    with pytest.raises(ValueError, match=r"should be divisible by 3 \(mesh axes 'x'\), but it is "
                                         r"equal to 8 \(full shape: \(8,\)\)"):
        jit.compile(j, [NamedSharding(Mesh(np.arange(3), ("x",)), P("x"))])
    with pytest.raises(ValueError, match="in_formats has 2 entries for 1 values"):
        jit.compile(j, [None, None])
    with pytest.raises(TypeError, match="a format is None, an axe.sharding.Format or a "
                                        "sharding, got 1"):
        jit.compile(j, [1])
    with pytest.raises(ValueError, match="donate_argnums entry -1 is negative"):
        jit.compile(j, donate_argnums=-1)


def test_compile_checks_the_jaxpr():
    bad = ir.parse("{ lambda ; a:f32[8]. let b:f32[4] = sin a in (b,) }")
    # JAX's check_jaxpr raises JaxprTypeError (a TypeError) for this.
    with pytest.raises(TypeError, match="inconsistently typed"):
        jit.compile(bad)


def test_call_errors_are_jax_type_errors():
    c = jit.compile(ir.parse(DOUBLE))
    with pytest.raises(TypeError, match=r"Argument 'args\[0\]' compiled with f32\[8\] and "
                                        r"called with i64\[8\]"):
        c(np.arange(8, dtype=np.int64))
    with pytest.raises(TypeError, match="Computation compiled for 1 inputs but called with 2"):
        c(np.zeros(8, np.float32), np.zeros(8, np.float32))


def test_exported():
    assert axe.jit is jit
    assert jit.compile.__module__ == "axe.jit"
