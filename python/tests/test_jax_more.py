"""More differential tests against the real JAX (issue 14): Pallas interpret mode beyond the
identity index map, PartitionSpec/Layout/Format reprs, with_layout_constraint's vmap rule and
the XLA shapes jaxlib prints. They skip when jax is not importable; XLA_FLAGS must give 8 host
devices. The pure-Python case generators here are shared with generate_jax_more_vectors.py,
which records JAX's answers for test_jax_more_vectors.py (runs without JAX)."""

import itertools
import re

import numpy as np
import pytest

import axe
from axe import sharding as axs
from axe import xla as axx
from pallas_text import block_text

# --------------------------------------------------------------------------------------------
# Random cases (no JAX needed to make them).


def random_pallas_case(rng, negative=False):
    """A random show_program_ids case: 1-3-D array shape, one BlockSpec (Blocked, Element with
    padding, None/Squeezed dims) with a random index map (identity, affine, swapped,
    constant, floor division, modulo, past-the-end starts; negative starts too when
    ``negative``) and a grid."""
    rank = rng.choices([1, 2, 3], [3, 4, 2])[0]
    grid_rank = rng.choices([1, 2, 3], [3, 4, 2])[0]
    grid = tuple(rng.randrange(1, 5 if grid_rank < 3 else 3) for _ in range(grid_rank))
    names = "ijk"[:grid_rank]
    shape, dims, exprs = [], [], []
    for d in range(rank):
        size = rng.randrange(1, 10 if rank < 3 else 6)
        shape.append(size)
        kind = rng.choices(["blocked", "element", "none", "squeezed"], [5, 3, 1, 1])[0]
        var = names[d] if d < grid_rank and rng.random() < 0.7 else rng.choice(names)
        if kind == "blocked":
            dims.append(("blocked", rng.randrange(1, size + 1)))
        elif kind == "element":
            lo, hi = rng.randrange(0, 3), rng.randrange(0, 3)
            dims.append(("element", rng.randrange(1, size + lo + hi + 1), lo, hi))
        else:
            dims.append((kind,))
        form = rng.choices(["var", "affine", "const", "div", "mod"], [4, 3, 1, 1, 1])[0]
        if form == "var":
            expr = var
        elif form == "affine":
            a = rng.randrange(1, 4)
            c = rng.randrange(-1 if negative else 0, 3)
            expr = f"{a}*{var}" + (f" + {c}" if c > 0 else f" - {-c}" if c < 0 else "")
        elif form == "const":
            expr = str(rng.randrange(0, 4))
        elif form == "div":
            expr = f"{var} // 2"
        else:
            expr = f"{var} % 2"
        exprs.append(expr)
    return {"shape": shape, "dims": dims, "grid": list(grid),
            "index_map": f"({', '.join(names)}) -> ({', '.join(exprs)},)"}


def axe_show_program_ids(case, clamp_report=None):
    return axe.pallas.show_program_ids(tuple(case["shape"]), block_text(case["dims"]),
                                       tuple(case["grid"]), case["index_map"],
                                       clamp_report=clamp_report)


_PARTITION_NAMES = ("x", "y", "z", "w")


def random_partition_spec(rng):
    """A random PartitionSpec as a list of entries: None, a name, a tuple of names (maybe
    empty) or "UNCONSTRAINED"; each mesh axis used at most once."""
    free = list(_PARTITION_NAMES)
    rng.shuffle(free)
    entries = []
    for _ in range(rng.randrange(0, 5)):
        kind = rng.choices(["none", "name", "tuple", "empty", "unconstrained"],
                           [3, 4, 2, 1, 1])[0]
        if kind == "name" and free:
            entries.append(free.pop())
        elif kind == "tuple" and len(free) >= 2:
            k = rng.randrange(1, min(3, len(free)) + 1)
            entries.append(tuple(free[:k]))
            free = free[k:]
        elif kind == "empty":
            entries.append(())
        elif kind == "unconstrained":
            entries.append("UNCONSTRAINED")
        else:
            entries.append(None)
    return entries


def random_layout(rng):
    """(major_to_minor, tiling or None, sub_byte_element_size_in_bits)."""
    rank = rng.randrange(0, 5)
    m2m = list(range(rank))
    rng.shuffle(m2m)
    tiling = None
    if rng.random() < 0.6:
        tiling = tuple(tuple(rng.choice([1, 2, 4, 8, 128, 256]) for _ in range(rng.randrange(1, 3)))
                       for _ in range(rng.randrange(0, 3)))
    sub_byte = rng.choice([0, 0, 0, 1, 2, 4])
    return tuple(m2m), tiling, sub_byte


_DTYPES = ["float32", "bfloat16", "float16", "int8", "int32", "uint8", "bool", "float64",
           "int16", "uint32", "complex64", "int64", "int4", "uint4", "int2", "float8_e4m3fn",
           "float8_e5m2", "float4_e2m1fn"]


def np_dtype(name):
    """NumPy's dtype of a name; the sub-byte and float8 types come from ml_dtypes."""
    try:
        return np.dtype(name)
    except TypeError:
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))


_ENTRY_RESULT_RE = re.compile(r"entry_computation_layout=\{\(.*\)->([^(){}]+\{[^}]*\})\}")


def entry_result_shape(hlo_text):
    """The result shape (with its layout) of a compiled module's entry computation, or None
    when it is a tuple."""
    m = _ENTRY_RESULT_RE.search(hlo_text.splitlines()[0])
    return m.group(1) if m else None


def random_program_source(rng):
    """A random jittable program on one array: (shape, dtype, python source of f)."""
    shape = tuple(rng.randrange(1, 9) for _ in range(rng.randrange(1, 4)))
    dtype = rng.choice(_DTYPES)
    body = rng.choice([
        "x",
        "x + x",
        "jnp.transpose(x)",
        "jnp.reshape(x, (-1,))",
        "x.sum(axis=0, keepdims=True)",
        "jnp.stack([x, x])",
        "jnp.concatenate([x, x], axis=-1)",
        "x[..., ::2]",
        "jnp.broadcast_to(x, (2,) + x.shape)",
        "x.astype(jnp.float32)",
        "x.astype(jnp.int8)",
    ])
    return shape, dtype, body


_SHAPE_RE = re.compile(
    r"\b(?:pred|s2|s4|s8|s16|s32|s64|u2|u4|u8|u16|u32|u64|f16|bf16|f32|f64|c64|c128|"
    r"f8e4m3fn|f8e5m2|token)\[[0-9,]*\](?:\{[^}]*\})?")


def shapes_in_hlo(text):
    return sorted(set(_SHAPE_RE.findall(text)))


# --------------------------------------------------------------------------------------------
# Tests against the live JAX.

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


@pytest.fixture(scope="module")
def devices():
    devs = jax.devices()
    if len(devs) < 8:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=8")
    return devs[:8]


def jax_block_shape(dims):
    from jax.experimental import pallas as pl
    out = []
    for dim in dims:
        if dim[0] == "blocked":
            out.append(dim[1])
        elif dim[0] == "element":
            out.append(pl.Element(dim[1], (dim[2], dim[3])))
        elif dim[0] == "none":
            out.append(None)
        else:
            out.append(pl.Squeezed())
    return tuple(out)


def jax_show_program_ids(case):
    """JAX's answer: the documentation's kernel under pl.pallas_call(interpret=True). The
    index map text is Python once its arrow is a lambda."""
    from jax.experimental import pallas as pl
    grid = tuple(case["grid"])
    params, results = case["index_map"].split(" -> ")
    index_map = eval(f"lambda {params.strip('()')}: {results}")  # noqa: S307 (our own text)

    def kernel(o_ref):
        ids = 0
        for a in range(len(grid)):
            ids = ids * 10 + pl.program_id(a)
        o_ref[...] = jnp.full(o_ref.shape, ids, dtype=o_ref.dtype)

    return np.asarray(pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(tuple(case["shape"]), jnp.int32),
        out_specs=pl.BlockSpec(jax_block_shape(case["dims"]), index_map), grid=grid,
        interpret=True)())


PALLAS_CASES = 150


def test_pallas_random_block_specs_agree(rng):
    """Random Blocked / Element-with-padding / None / Squeezed dims under random index maps
    (swapped axes, affine, constant, //, %, negative and out-of-bounds starts): axe's
    interpret mode gives JAX's output array element for element (uninitialized elements
    included: int32 min)."""
    clamped = 0
    for n in range(PALLAS_CASES):
        case = random_pallas_case(rng)
        report = []
        ours = axe_show_program_ids(case, report)
        clamped += bool(report)
        theirs = jax_show_program_ids(case)
        np.testing.assert_array_equal(ours, theirs, err_msg=f"case {n}: {case}")
    assert clamped > 0  # the cases do reach out-of-bounds blocks


def test_pallas_negative_starts(rng):
    """Index maps that return negative block or element indices: JAX 0.10.2's interpret mode
    first adds the padded dimension size once, then clamps, and so does axe (docs/pallas.md).
    [DI-2]'s `i -> i - 1` over 8 elements in blocks of 2 on grid (4,) gives
    [1, 1, 2, 2, 3, 3, 0, 0] (program 0's start -2 becomes 6); the spec says
    [1, 1, 2, 2, 3, 3, MIN, MIN]."""
    case = {"shape": [8], "dims": [("blocked", 2)], "grid": [4], "index_map": "(i) -> (i - 1,)"}
    assert jax_show_program_ids(case).tolist() == [1, 1, 2, 2, 3, 3, 0, 0]
    np.testing.assert_array_equal(axe_show_program_ids(case), jax_show_program_ids(case))
    for n in range(40):
        case = random_pallas_case(rng, negative=True)
        np.testing.assert_array_equal(axe_show_program_ids(case), jax_show_program_ids(case),
                                      err_msg=f"case {n}: {case}")


def _jax_partition_spec(entries):
    from jax.sharding import PartitionSpec as P
    return P(*[P.UNCONSTRAINED if e == "UNCONSTRAINED" else e for e in entries])


def test_partition_spec_reprs(rng):
    for n in range(400):
        entries = random_partition_spec(rng)
        theirs = _jax_partition_spec(entries)
        context = f"case {n}: {entries}"
        if "UNCONSTRAINED" in entries:
            # Finding: axe has no P.UNCONSTRAINED (JAX's "let the compiler choose" entry).
            with pytest.raises(TypeError, match="UNCONSTRAINED"):
                axe.from_jax(theirs)
            with pytest.raises(ValueError, match="UNCONSTRAINED"):
                axs.PartitionSpec.parse(repr(theirs))
            continue
        ours = axe.from_jax(theirs)
        assert repr(ours) == repr(theirs), context
        assert str(ours) == str(theirs), context
        assert axs.PartitionSpec.parse(repr(theirs)) == ours, context
        assert len(ours) == len(theirs), context


def test_layout_and_format_reprs(rng, devices):
    from jax.experimental.layout import Format, Layout
    from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding
    mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    for n in range(400):
        m2m, tiling, sub_byte = random_layout(rng)
        theirs = Layout(m2m, tiling=tiling, sub_byte_element_size_in_bits=sub_byte)
        ours = axs.Layout(m2m, tiling=tiling, sub_byte_element_size_in_bits=sub_byte)
        context = f"case {n}: {theirs!r}"
        assert repr(ours) == repr(theirs), context
        assert axe.from_jax(theirs) == ours, context
        assert axs.Layout.parse(repr(theirs)) == ours, context
        if rng.random() < 0.5:
            sharding = NamedSharding(mesh, _jax_partition_spec(_mesh_spec(rng, len(m2m))))
        else:
            sharding = SingleDeviceSharding(devices[rng.randrange(8)])
        jax_format = Format(theirs, sharding)
        our_format = axe.from_jax(jax_format)
        assert our_format.layout == ours, context
        assert axs.Format.parse(repr(jax_format)) == our_format, f"{context}: {jax_format!r}"
    assert repr(axs.Format(axs.Layout.AUTO)) == repr(Format(Layout.AUTO))


def _mesh_spec(rng, rank):
    """Spec entries over the mesh axes ('x', 'y'), each used at most once."""
    free = ["x", "y"]
    rng.shuffle(free)
    entries = []
    for _ in range(rank):
        k = rng.randrange(0, len(free) + 1)
        entries.append(None if k == 0 else free[0] if k == 1 else tuple(free[:k]))
        free = free[k:]
    return entries


def test_with_layout_constraint_vmap_rule(rng):
    """jax.vmap of with_layout_constraint: the batched layout JAX's rule gives (the batch
    dimension made major-most, the others in their order) is the one axe.ir.vmap gives on
    the parsed unbatched jaxpr; the printed batched jaxprs are equal byte for byte."""
    from jax.experimental.layout import Layout, with_layout_constraint
    for n in range(60):
        rank = rng.randrange(1, 4)
        shape = tuple(rng.randrange(2, 5) for _ in range(rank))
        m2m = list(range(rank))
        rng.shuffle(m2m)
        in_axis = rng.randrange(0, rank + 1)
        size = 3
        batched_shape = shape[:in_axis] + (size,) + shape[in_axis:]

        def f(x, m2m=tuple(m2m)):
            return with_layout_constraint(x, Layout(m2m))

        unbatched = str(jax.make_jaxpr(f)(jnp.zeros(shape, jnp.float32)))
        theirs = str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axis))(
            jnp.zeros(batched_shape, jnp.float32)))
        ours = str(axe.ir.vmap(axe.ir.parse(unbatched), in_axes=in_axis, axis_size=size))
        assert ours == theirs, f"case {n}: m2m {m2m} in_axis {in_axis}\n{unbatched}"


@pytest.mark.filterwarnings("ignore:Explicitly requested dtype:UserWarning")
@pytest.mark.filterwarnings("ignore:Casting from complex:DeprecationWarning")
def test_compiled_hlo_shapes_round_trip(rng):
    """Every shape string in the compiled HLO of random programs parses with axe.xla.Shape
    and prints back identically; the output's byte size is what XLA's memory analysis
    reports."""
    seen = set()
    sized = 0
    for n in range(80):
        shape, dtype, body = random_program_source(rng)
        f = eval(f"lambda x: {body}")  # noqa: S307 (our own text)
        try:
            compiled = jax.jit(f).lower(jnp.zeros(shape, np_dtype(dtype))).compile()
        except (TypeError, ValueError, NotImplementedError):
            continue  # an operation JAX does not define on this dtype
        text = compiled.as_text()
        for s in shapes_in_hlo(text):
            seen.add(s)
            printed = axx.Shape(s).to_string()
            if "{" not in s and not s.endswith("[]"):
                # docs/xla.md: a non-scalar written without a layout gets the default one.
                rank = s.count(",") + 1
                s += "{" + ",".join(str(d) for d in reversed(range(rank))) + "}"
            assert printed == s, f"case {n}: {body} on {dtype}{shape}"
        result = entry_result_shape(text)
        stats = compiled.memory_analysis()
        if stats is not None and result is not None:
            sized += 1
            assert axx.Shape(result).byte_size() == stats.output_size_in_bytes, (
                f"case {n}: {body} on {dtype}{shape}: {result}")
    assert len(seen) > 20 and sized > 40


def test_xla_client_shapes_print_like_axe(rng):
    """jaxlib's xla_client.Shape.array_shape with random dims and minor_to_major prints the
    shape text axe parses and prints identically."""
    from jax._src.lib import xla_client as xc
    for n in range(400):
        rank = rng.randrange(0, 5)
        dims = tuple(rng.randrange(0, 300) for _ in range(rank))
        m2m = list(range(rank))
        rng.shuffle(m2m)
        dtype = np_dtype(rng.choice(_DTYPES))
        text = str(xc.Shape.array_shape(dtype, dims, tuple(m2m)))
        shape = axx.Shape(text)
        assert shape.to_string() == text, f"case {n}"
        assert list(shape.dimensions) == list(dims) and list(shape.minor_to_major) == m2m


def test_default_memory_kind_equality(devices):
    """JAX canonicalizes memory_kind=None to the devices' default ('device'), so a sharding
    equals (and hashes like) the same sharding with memory_kind='device'; so does axe's.
    Seen through Format.parse(repr(format)): JAX's repr always prints memory_kind=device."""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding
    mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    assert NamedSharding(mesh, P("x")) == NamedSharding(mesh, P("x"), memory_kind="device")
    assert SingleDeviceSharding(devices[0]) == SingleDeviceSharding(devices[0],
                                                                    memory_kind="device")
    ours = axs.Mesh(np.arange(8).reshape(2, 4), ("x", "y"))
    assert axs.NamedSharding(ours, axs.P("x")) == axs.NamedSharding(ours, axs.P("x"),
                                                                    memory_kind="device")
    assert axs.SingleDeviceSharding(0) == axs.SingleDeviceSharding(0, memory_kind="device")


@pytest.mark.xfail(strict=True, reason=(
    "axe's PartitionSpec has no unreduced/reduced axis sets (JAX 0.10: "
    "P('x', unreduced={'y'})); from_jax fails inside JAX's own tuple(spec)"))
def test_partition_spec_unreduced_and_reduced():
    """Known gap (reported, not built)."""
    from jax.sharding import PartitionSpec as P
    for theirs in (P("x", None, unreduced={"y"}), P("x", reduced={"y"})):
        assert repr(axe.from_jax(theirs)) == repr(theirs)
        assert repr(axs.PartitionSpec.parse(repr(theirs))) == repr(theirs)


def _explain_inside_jit(x):
    """axe.explain of `x` as traced inside jax.jit: (notes, jax repr) or the TypeError text."""
    seen = {}

    def f(v):
        try:
            e = axe.explain(v, file=open("/dev/null", "w"))
            seen["notes"], seen["jax"] = list(e.notes), e.named
        except TypeError as err:
            seen["error"] = str(err)
        return v

    jax.jit(f)(x)
    return seen


def test_explain_of_a_tracer_reads_the_abstract_sharding(devices):
    """Inside jax.jit a value has no .sharding; with Explicit mesh axes its type carries the
    sharding (jax.typeof(v).sharding), which axe explains with a note that the device ids are
    mesh positions. Never the old answer: SingleDeviceSharding(device=0), fully replicated."""
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Explicit,) * 2)
    x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("x", "y")))
    seen = _explain_inside_jit(x)
    assert "error" not in seen, seen
    assert "spec=P('x', 'y')" in seen["jax"]
    assert any("mesh positions" in n for n in seen["notes"]), seen["notes"]


def test_explain_of_a_tracer_with_only_auto_axes_is_refused(devices):
    from jax.sharding import AxisType, NamedSharding, PartitionSpec as P
    mesh = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AxisType.Auto,) * 2)
    x = jax.device_put(jnp.zeros((8, 4)), NamedSharding(mesh, P("x", None)))
    seen = _explain_inside_jit(x)
    assert "has no sharding yet" in seen.get("error", ""), seen
    assert "Explicit" in seen["error"]


def test_explain_format_line_is_what_jax_prints_for_x_format(devices):
    """The `format` line of axe.explain(x) is JAX's repr(x.format), sub-byte types included:
    an int4 array's layout says sub_byte_element_size_in_bits=0 (as x.format does), though
    XLA's own layout packs it (E(4)). Devices print as axe's ids (device=0)."""
    import os
    for dtype in [jnp.int4, jnp.uint4, jnp.int2, jnp.float32, jnp.bfloat16, jnp.int8]:
        x = jnp.zeros((4, 8), dtype)
        with open(os.devnull, "w") as sink:
            e = axe.explain(x, file=sink)
        want = re.sub(r"CpuDevice\(id=(\d+)\)", r"\1", repr(x.format))
        assert e.format == want, dtype
