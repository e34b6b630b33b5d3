"""axe.ir: jaxprs from Python. Round trips of the texts JAX printed (tests/ir/testdata), the
errors and their exception types, evaluation against NumPy, gradients against finite
differences, vmap against a Python loop, and bad input. The checks against a live JAX are at
the end; they skip when jax is not importable."""

import os
import pathlib

import numpy as np
import pytest

import axe
from axe import ir

TESTDATA = pathlib.Path(__file__).resolve().parents[2] / "tests" / "ir" / "testdata"
JAX_TEXTS = sorted((TESTDATA / "jax").glob("*.txt"))
AD_TEXTS = sorted((TESTDATA / "jax_ad").glob("*.fwd.txt"))


def text(name):
    return (TESTDATA / name).read_text().rstrip("\n")


def load(name):
    return ir.parse(text(name))


def f64(name):
    """A float32 program of the test data as float64 (for finite differences)."""
    return ir.parse(text(name).replace("f32", "f64").replace("float32", "float64"))


# A shard_map body that leaves its value varying but declares the binder invariant.
BAD_BINDER = """{ lambda ; a:f32[8]. let
    b:f32[2] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[2]{V:x}. let d:f32[2] = sin c in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) }"""

# psum_invariant of a value that does not vary over x.
BAD_PSUM = """{ lambda ; a:f32[8]. let
    b:f32[2] = shard_map[
      check_vma=True
      in_specs=(P('x',),)
      jaxpr={ lambda ; c:f32[2]. let d:f32[2] = psum_invariant[axes=('x',)] c in (d,) }
      mesh=Mesh('x': 4, axis_types=(Auto,))
      newly_manual_axes=frozenset({'x'})
      out_specs=(P(),)
    ] a
  in (b,) }"""


# ---------------------------------------------------------------- parse, print, compare


@pytest.mark.parametrize("path", JAX_TEXTS + AD_TEXTS, ids=lambda p: p.name)
def test_jax_printouts_print_back_identically(path):
    t = path.read_text().rstrip("\n")
    j = ir.parse(t)
    assert str(j) == t
    assert repr(j) == t  # JAX's ClosedJaxpr repr is its text too
    assert ir.check(j) is None
    assert ir.parse(str(j)) == j


def test_properties_of_a_jaxpr():
    j = load("jax_ad/tanh_dot.fwd.txt")
    assert j.in_avals == ["f32[3]", "f32[4,3]"]
    assert j.out_avals == ["f32[]"]
    assert j.eqns == ["dot_general", "tanh", "reduce_sum"]
    assert j.eqn_count == 3
    assert j.num_consts == 0
    s = load("jax/shmap_psum.txt")
    assert s.eqns == ["shard_map"]  # top level only
    assert s.in_avals == ["f32[8]"] and s.out_avals == ["f32[2]"]


def test_equality_and_hash():
    a = load("jax/elementwise.txt")
    b = load("jax/elementwise.txt")
    c = load("jax/sin_cos.txt")
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert a != str(a)
    assert len({a, b, c}) == 2


def test_pretty_print_width():
    j = load("jax_ad/tanh_dot.fwd.txt")
    wide = j.pretty_print(width=400)
    assert "\n" not in wide  # the whole jaxpr fits on one line
    assert ir.parse(wide) == j


def test_transformed_programs_parse_back():
    f = load("jax_ad/tanh_dot.fwd.txt")
    for g in (ir.grad(f), ir.vmap(f, axis_size=3), ir.jvp(f), ir.vjp(f), ir.transpose(
            load("jax/shmap_psum.txt"))):
        assert ir.parse(str(g)) == g


# ---------------------------------------------------------------- errors


def test_parse_errors_name_line_and_column():
    with pytest.raises(ValueError, match=r"line 1, column 37: unknown primitive 'foo'"):
        ir.parse("{ lambda ; a:f32[8]. let b:f32[8] = foo a in (b,) }")
    with pytest.raises(ValueError, match=r"unknown variable 'q'"):
        ir.parse("{ lambda ; a:f32[8]. let b:f32[8] = sin q in (b,) }")
    with pytest.raises(TypeError, match="takes the jaxpr's text"):
        ir.parse(b"{ lambda ; a:f32[]. let  in (a,) }")


def test_check_reports_jax_variance_error():
    with pytest.raises(ValueError) as e:
        ir.check(ir.parse(BAD_PSUM))
    msg = str(e.value)
    assert msg.startswith("psum is a variant->invariant collective. This means that the axis "
                          "names mentioned in `axes` passed to `psum` must be present in "
                          "`jax.typeof(inp).mat.varying`. Got axes=('x',) and "
                          "jax.typeof(inp).mat.varying=frozenset()")
    assert "\n\nin equation:\n\nb:f32[2] = psum_invariant[axes=('x',)] a" in msg


def test_check_reports_inconsistent_binder():
    with pytest.raises((TypeError, ValueError)) as e:
        ir.check(ir.parse(BAD_BINDER))
    assert str(e.value).startswith("Value for variable 'b' inconsistently typed as f32[2]{V:x} "
                                   "for let-binder of type f32[2]")


def test_check_inconsistent_binder_is_a_type_error_as_in_jax():
    with pytest.raises(TypeError):
        ir.check(ir.parse(BAD_BINDER))


def test_transformations_check_their_input_first():
    bad = ir.parse(BAD_PSUM)
    for transform in (ir.transpose, ir.comm, ir.vjp, ir.jvp, ir.linearize):
        with pytest.raises(ValueError, match="psum is a variant->invariant collective"):
            transform(bad)
    with pytest.raises(ValueError, match="psum is a variant->invariant collective"):
        ir.eval(bad, np.zeros(8, np.float32))


def test_wrong_argument_kinds_are_type_errors():
    j = load("jax/sin_cos.txt")
    with pytest.raises(TypeError):
        ir.check("{ lambda ; a:f32[]. let  in (a,) }")
    with pytest.raises(TypeError, match="takes an axe.ir.Jaxpr"):
        ir.eval(str(j), np.zeros(j._in_types[0][0], np.float32))
    with pytest.raises(TypeError, match="argnums must be an int"):
        ir.grad(load("jax_ad/tanh_dot.fwd.txt"), argnums=True)


# ---------------------------------------------------------------- transpose and comm


def test_typed_transpose_of_psum_is_pvary_and_moves_nothing():
    s = load("jax/shmap_psum.txt")
    t = ir.transpose(s)
    assert t.in_avals == ["f32[2]"] and t.out_avals == ["f32[8]"]
    assert "pvary[axes=('x',)]" in str(t)
    c = ir.comm(t)
    assert [e["primitive"] for e in c["collectives"]] == ["pvary"]
    assert c["total_bytes_per_device"] == 0


def test_naive_transpose_adds_the_defensive_psum():
    s = load("jax/shmap_psum.txt")
    t = ir.transpose(s, check_vma=False)
    assert t.eqns == ["div", "shard_map"]
    assert "psum[axes=('x',) axis_index_groups=None]" in str(t)
    c = ir.comm(t)
    # one all-reduce of f32[2] over 4 devices: ceil(2 * 3 * 8 / 4) = 12 bytes per device
    assert c["collectives"] == [{
        "primitive": "psum", "kind": "all-reduce", "axes": ("x",), "group_size": 4,
        "operand": "f32[2]", "count": 1, "bytes_per_device": 12}]
    assert c["total_bytes_per_device"] == 12
    assert c["table"].endswith("total bytes per device: 12\n")


def test_comm_of_forward_program():
    c = ir.comm(load("jax/shmap_psum.txt"))
    assert set(c) == {"collectives", "total_bytes_per_device", "table"}
    (row,) = c["collectives"]
    assert set(row) == {"primitive", "kind", "axes", "group_size", "operand", "count",
                        "bytes_per_device"}
    assert (row["primitive"], row["operand"], row["bytes_per_device"]) == (
        "psum_invariant", "f32[2]{V:x}", 12)


def test_transpose_wrt_selects_linear_inputs():
    j = ir.parse("{ lambda ; a:f32[3] b:f32[3]. let c:f32[3] = mul a b in (c,) }")
    t = ir.transpose(j, wrt=[1])
    assert t.in_avals == ["f32[3]", "f32[3]"] and t.out_avals == ["f32[3]"]
    a = np.array([1.0, 2.0, 3.0], np.float32)
    ct = np.array([10.0, 20.0, 30.0], np.float32)
    np.testing.assert_array_equal(ir.eval(t, a, ct)[0], a * ct)
    assert ir.transpose(j, wrt=0).in_avals == ["f32[3]", "f32[3]"]
    with pytest.raises(IndexError, match="wrt: input 2 is out of range for a jaxpr with 2"):
        ir.transpose(j, wrt=[2])
    with pytest.raises(ValueError, match="mul is linear in one operand only"):
        ir.transpose(j)


# ---------------------------------------------------------------- eval


def test_eval_elementwise_against_numpy(rng):
    j = load("jax/elementwise.txt")
    a = np.array([rng.uniform(-4, 4) for _ in range(4)], np.float32)
    b = np.array([rng.choice([-2.0, 0.5, 3.0]) for _ in range(4)], np.float32)
    want = [a + b, a - b, a * b, a / b, np.maximum(a, b), np.minimum(a, b), -a, a < b, a == b,
            a != b, a > b, a <= b]
    got = ir.eval(j, a, b)
    assert [g.dtype for g in got] == [w.dtype for w in want]
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


UNARY = {"sin": np.sin, "cos": np.cos, "tanh": np.tanh, "exp": np.exp, "neg": np.negative}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "max": np.maximum,
          "min": np.minimum}


def _random_program(rng, shape):
    """A random elementwise f64 program of two inputs, its text and a NumPy function."""
    dims = ",".join(str(d) for d in shape)
    names = ["a", "b"]
    lines = []
    steps = []
    for k in range(rng.randrange(1, 8)):
        out = f"v{k}"
        if rng.random() < 0.5:
            op = rng.choice(sorted(UNARY))
            x = rng.choice(names)
            lines.append(f"{out}:f64[{dims}] = {op} {x}")
            steps.append((out, UNARY[op], (x,)))
        else:
            op = rng.choice(sorted(BINARY))
            x, y = rng.choice(names), rng.choice(names)
            lines.append(f"{out}:f64[{dims}] = {op} {x} {y}")
            steps.append((out, BINARY[op], (x, y)))
        names.append(out)
    text = (f"{{ lambda ; a:f64[{dims}] b:f64[{dims}]. let " + " ".join(lines) +
            f" in ({names[-1]},) }}")

    def numpy_fn(a, b):
        env = {"a": a, "b": b}
        with np.errstate(all="ignore"):  # exp may overflow to inf, as it does in axe
            for out, fn, operands in steps:
                env[out] = fn(*(env[o] for o in operands))
        return env[names[-1]]
    return text, numpy_fn


def test_eval_random_programs_against_numpy(rng):
    for _ in range(60):
        shape = tuple(rng.randrange(1, 5) for _ in range(rng.randrange(0, 3)))
        text, numpy_fn = _random_program(rng, shape)
        j = ir.parse(text)
        ir.check(j)
        a = np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(shape)))]).reshape(shape)
        b = np.array([rng.uniform(-2, 2) for _ in range(int(np.prod(shape)))]).reshape(shape)
        (got,) = ir.eval(j, a, b)
        assert got.shape == shape and got.dtype == np.float64
        np.testing.assert_allclose(got, numpy_fn(a, b), rtol=1e-13, atol=1e-300, err_msg=text)
        assert ir.parse(str(j)) == j


def test_eval_dot_and_reduce_against_numpy(rng):
    f = load("jax_ad/tanh_dot.fwd.txt")  # sum(tanh(x @ w))
    w = np.array([rng.uniform(-1, 1) for _ in range(3)], np.float32)
    x = np.array([[rng.uniform(-1, 1) for _ in range(3)] for _ in range(4)], np.float32)
    (out,) = ir.eval(f, w, x)
    assert out.shape == () and out.dtype == np.float32
    np.testing.assert_allclose(out, np.tanh(x.astype(np.float64) @ w).sum(), rtol=1e-6)


def test_eval_integers_and_bool():
    j = ir.parse("{ lambda ; a:i32[4] b:bool[4]. let c:i32[4] = mul a 3:i32[]; "
                 "d:i32[4] = select_n b a c in (d,) }")
    a = np.array([1, -2, 2**30, 7], np.int32)
    b = np.array([True, False, True, False])
    (out,) = ir.eval(j, a, b)
    assert out.dtype == np.int32
    # integers wrap modulo 2^32 as in XLA
    np.testing.assert_array_equal(out, np.where(b, a * np.int32(3), a))


def test_eval_half_precision_types():
    ml_dtypes = pytest.importorskip("ml_dtypes")
    j = ir.parse("{ lambda ; a:bf16[4]. let b:bf16[4] = mul a a; "
                 "c:f16[4] = convert_element_type[new_dtype=float16 weak_type=False] b in (b, c) }")
    x = np.array([1.5, 2, 3, 1 / 3], ml_dtypes.bfloat16)
    b, c = ir.eval(j, x)
    assert b.dtype == ml_dtypes.bfloat16 and c.dtype == np.float16
    np.testing.assert_array_equal(b, x * x)  # rounded to bf16 after the multiply
    np.testing.assert_array_equal(c, (x * x).astype(np.float16))
    with pytest.raises(TypeError, match=r"compiled with bf16\[4\] and called with f32\[4\]"):
        ir.eval(j, x.astype(np.float32))


def test_eval_argument_type_errors_are_jax_type_errors():
    j = load("jax/elementwise.txt")
    a = np.zeros(4, np.float32)
    with pytest.raises(TypeError) as e:
        ir.eval(j, a, np.zeros(4, np.int32))
    assert str(e.value) == (
        "Argument types differ from the types for which this computation was compiled. Perhaps "
        "you are calling the compiled executable with a different enable_x64 mode than when it "
        "was AOT compiled? The mismatches are:\n"
        "Argument 'args[1]' compiled with f32[4] and called with i32[4]")
    with pytest.raises(TypeError, match=r"compiled with f32\[4\] and called with f32\[5\]"):
        ir.eval(j, a, np.zeros(5, np.float32))
    with pytest.raises(TypeError, match="Computation compiled for 2 inputs but called with 1"):
        ir.eval(j, a)


def test_eval_reads_non_contiguous_and_read_only_arrays():
    j = load("jax/sin_cos.txt")
    shape, dtype = j._in_types[0]
    base = np.arange(2 * int(np.prod(shape)), dtype=dtype)[::2].reshape(shape)
    base.flags.writeable = False
    got = ir.eval(j, base)
    want = ir.eval(j, np.ascontiguousarray(base))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("name", ["shmap_psum", "shmap_collectives", "shmap_2d",
                                  "shmap_all_gather"])
def test_eval_on_runtime_devices_equals_host(name):
    j = load(f"jax/{name}.txt")
    args = [np.arange(int(np.prod(s)), dtype=d).reshape(s) for s, d in j._in_types]
    host = ir.eval(j, *args)
    threads = ir.eval(j, *args, backend="threads")
    assert len(host) == len(threads) == len(j.out_avals)
    for h, t in zip(host, threads):
        np.testing.assert_array_equal(h, t)


def test_eval_psum_value():
    (out,) = ir.eval(load("jax/shmap_psum.txt"), np.arange(8, dtype=np.float32))
    np.testing.assert_array_equal(out, np.arange(8, dtype=np.float32).reshape(4, 2).sum(0))


def test_eval_backend_errors():
    j = load("jax/shmap_psum.txt")
    x = np.zeros(8, np.float32)
    with pytest.raises(ValueError, match="backend must be 'host' or 'threads', got 'gpu'"):
        ir.eval(j, x, backend="gpu")
    with pytest.raises(ValueError, match="devices= needs backend='threads'"):
        ir.eval(j, x, devices=4)
    with pytest.raises(ValueError, match="runs 1 to 1024 devices, not 0"):
        ir.eval(j, x, backend="threads", devices=0)
    with pytest.raises(ValueError):  # the mesh needs 4 devices
        ir.eval(j, x, backend="threads", devices=2)
    assert ir.devices_needed(j) == 4


def test_eval_refuses_huge_values_before_allocating():
    j = ir.parse("{ lambda ; . let a:f32[100000,100000] = broadcast_in_dim["
                 "broadcast_dimensions=() shape=(100000, 100000) sharding=None] 1.0:f32[] "
                 "in (a,) }")
    with pytest.raises(ValueError, match=r"f32\[100000,100000\]: more than 16777216 elements"):
        ir.eval(j)


# ---------------------------------------------------------------- AD and vmap


def _finite_difference_grad(f, args, argnum, eps=1e-6):
    x = args[argnum]
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        plus = [a.copy() for a in args]
        minus = [a.copy() for a in args]
        plus[argnum][i] += eps
        minus[argnum][i] -= eps
        g[i] = (ir.eval(f, *plus)[0] - ir.eval(f, *minus)[0]) / (2 * eps)
    return g


def _random_args(jaxpr, rng, low=0.5, high=1.5):
    return [np.array([rng.uniform(low, high) for _ in range(int(np.prod(s)))],
                     np.float64).reshape(s) for s, _ in jaxpr._in_types]


@pytest.mark.parametrize("name", ["tanh_dot", "exp_log_div", "max_transpose"])
def test_grad_against_finite_differences(name, rng):
    f = f64(f"jax_ad/{name}.fwd.txt")
    args = _random_args(f, rng)
    argnums = tuple(range(len(args)))
    g = ir.grad(f, argnums=argnums)
    assert g.out_avals == f.in_avals
    got = ir.eval(g, *args)
    for k in argnums:
        np.testing.assert_allclose(got[k], _finite_difference_grad(f, args, k), rtol=1e-5,
                                   atol=1e-7)


def test_grad_matches_jax_golden_values():
    f = load("jax_ad/tanh_dot.fwd.txt")
    args = []
    for k, (shape, dtype) in enumerate(f._in_types):
        n = int(np.prod(shape))
        args.append(np.array([0.5 + ((7 * i + 3 * k) % 11) / 8 for i in range(n)],
                             dtype).reshape(shape))
    got = ir.eval(ir.grad(f, argnums=(0, 1)), *args)
    lines = text("jax_ad/tanh_dot.grad_values.txt").splitlines()
    for g, line in zip(got, lines):
        # float32 programs that round differently (axe: 1 - d*d, JAX: (1 - d) + (1 - d) d)
        np.testing.assert_allclose(g.ravel(), [float(v) for v in line.split()], rtol=1e-5,
                                   atol=1e-6)


def test_grad_errors():
    with pytest.raises(ValueError, match="Gradient only defined for scalar-output functions"):
        ir.grad(load("jax/elementwise.txt"))
    with pytest.raises(ValueError, match="argnums: 5 is out of range"):
        ir.grad(load("jax_ad/tanh_dot.fwd.txt"), argnums=5)


def test_jvp_and_linearize_agree_with_finite_differences(rng):
    f = f64("jax_ad/exp_log_div.fwd.txt")
    x = _random_args(f, rng)
    t = _random_args(f, rng, -1, 1)
    j = ir.jvp(f)
    assert j.in_avals == f.in_avals * 2 and j.out_avals == f.out_avals * 2
    out, tangent = ir.eval(j, *x, *t)
    eps = 1e-6
    plus = ir.eval(f, *[a + eps * d for a, d in zip(x, t)])[0]
    minus = ir.eval(f, *[a - eps * d for a, d in zip(x, t)])[0]
    np.testing.assert_allclose(out, ir.eval(f, *x)[0], rtol=1e-12)
    np.testing.assert_allclose(tangent, (plus - minus) / (2 * eps), rtol=1e-6)

    primal, linear, num_residuals = ir.linearize(f)
    res = ir.eval(primal, *x)
    assert len(res) == 1 + num_residuals
    np.testing.assert_allclose(res[0], out, rtol=1e-12)
    (lin_tangent,) = ir.eval(linear, *res[1:], *t)
    np.testing.assert_allclose(lin_tangent, tangent, rtol=1e-12)

    only_y = ir.jvp(f, wrt=[1])
    assert only_y.in_avals == f.in_avals + f.in_avals[1:]


def test_vjp_with_unit_cotangent_is_grad(rng):
    f = f64("jax_ad/tanh_dot.fwd.txt")
    args = _random_args(f, rng)
    v = ir.vjp(f)
    assert v.in_avals == f.in_avals + f.out_avals
    got = ir.eval(v, *args, np.float64(1.0))
    want = ir.eval(ir.grad(f, argnums=(0, 1)), *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_vmap_against_a_python_loop(rng):
    f = load("jax_ad/tanh_dot.fwd.txt")  # f(w, x)
    w = np.array([rng.uniform(-1, 1) for _ in range(3)], np.float32)
    xs = np.array([rng.uniform(-1, 1) for _ in range(5 * 4 * 3)], np.float32).reshape(5, 4, 3)
    v = ir.vmap(f, in_axes=(None, 0), size=5)
    assert v.in_avals == ["f32[3]", "f32[5,4,3]"] and v.out_avals == ["f32[5]"]
    (got,) = ir.eval(v, w, xs)
    want = np.array([ir.eval(f, w, xs[i])[0] for i in range(5)])
    # f32 sums in another order (one GEMM against five): JAX's own float32 tolerance.
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)

    # the mapped axis in the middle of the input and at the end of the output
    m = load("jax_ad/max_transpose.fwd.txt")  # sum(max(x.T, 1) * 2) of x: f32[2,3]
    e = ir.parse("{ lambda ; a:f32[2,3]. let b:f32[3,2] = transpose[permutation=(1, 0)] a "
                 "in (b,) }")
    xs = np.array([rng.uniform(0, 2) for _ in range(2 * 4 * 3)], np.float32).reshape(2, 4, 3)
    ve = ir.vmap(e, in_axes=1, out_axes=2, axis_size=4)
    assert ve.out_avals == ["f32[3,2,4]"]
    (got,) = ir.eval(ve, xs)
    np.testing.assert_array_equal(got, np.stack([xs[:, i, :].T for i in range(4)], axis=2))
    vm = ir.vmap(m, in_axes=[1], axis_size=4)
    (got,) = ir.eval(vm, xs)
    np.testing.assert_allclose(got, [ir.eval(m, np.ascontiguousarray(xs[:, i, :]))[0]
                                     for i in range(4)], rtol=1e-6)


def test_vmap_errors():
    f = load("jax_ad/tanh_dot.fwd.txt")
    with pytest.raises(ValueError, match="len\\(in_axes\\)=1, len\\(args\\)=2"):
        ir.vmap(f, in_axes=(0,), size=3)
    with pytest.raises(ValueError, match="implies that its rank should be at least 3"):
        ir.vmap(f, in_axes=(2, None), size=3)
    with pytest.raises(ValueError, match="axis_size=3 and size=4"):
        ir.vmap(f, axis_size=3, size=4)


# ---------------------------------------------------------------- bad input


@pytest.mark.parametrize("bad", [
    "",
    "{",
    "{ lambda",
    "}" * 1000,
    "{" * 100000,
    "{ lambda ; a:f32[" + "9" * 5000 + "]. let  in (a,) }",
    "{ lambda ; a:f32[8]. let b:f32[8] = sin[" + "(" * 10000 + "] a in (b,) }",
    "{ lambda ; a:f32[8]. let b:f32[8] = sin a in (b,) }\x00trailing",
    "\udcff{ lambda }",  # a lone surrogate: no UTF-8 form (UnicodeEncodeError)
    "{ lambda ; a:f32[-1]. let  in (a,) }",
    "{ lambda ; a:f32[" + ",".join(["1"] * 100) + "]. let  in (a,) }",
], ids=lambda s: repr(s[:24]))
def test_adversarial_text_is_a_value_error(bad):
    with pytest.raises((ValueError, UnicodeError)):
        ir.parse(bad)


def test_overlong_text_is_refused_before_it_is_encoded():
    t = "{ lambda ; a:f32[8]. let " + " ".join(["b:f32[8] = sin a"] * 1100000) + " in (a,) }"
    with pytest.raises(ValueError,
                       match=rf"jaxpr text of {len(t)} characters \(at most 16777216\)"):
        ir.parse(t)
    # 2^24 + 1 four-byte characters: refused by their count, not after a 64 MiB encoding
    with pytest.raises(ValueError, match="jaxpr text of 16777217 characters"):
        ir.parse("\U0001F600" * (2**24 + 1))


def test_scalar_arguments_stay_scalars():
    j = ir.parse("{ lambda ; a:f32[]. let b:f32[] = mul a 2.0:f32[] in (b,) }")
    for x in (np.float32(1.5), np.array(1.5, np.float32)):
        (out,) = ir.eval(j, x)
        assert out.shape == () and out == np.float32(3.0)


def test_deep_nesting_is_refused():
    inner = "{ lambda ; a:f32[]. let  in (a,) }"
    for _ in range(80):
        inner = ("{ lambda ; a:f32[]. let b:f32[] = jit[jaxpr=" + inner +
                 " name=f] a in (b,) }")
    with pytest.raises(ValueError):
        ir.parse(inner)


# ---------------------------------------------------------------- against a live JAX


@pytest.fixture(scope="module")
def jax():
    os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
    return pytest.importorskip("jax")


def _live_cases(jax):
    jnp = jax.numpy
    lax = jax.lax
    f32 = np.float32
    yield "poly", (lambda x, y: jnp.sin(x) * y + 2.0), (
        np.arange(6, dtype=f32).reshape(2, 3), np.full((2, 3), 0.5, f32))
    yield "dot", (lambda a, b: jnp.tanh(a @ b).sum(axis=0)), (
        np.linspace(-1, 1, 12, dtype=f32).reshape(4, 3), np.ones((3, 5), f32))
    yield "where", (lambda x: jnp.where(x > 1.0, x, -x).reshape(2, 2).T), (
        np.arange(4, dtype=f32),)
    yield "cond", (lambda x: lax.cond(x.sum() > 3.0, jnp.sin, jnp.cos, x)), (
        np.arange(4, dtype=f32),)
    yield "scan", (lambda x: lax.scan(lambda c, e: (c + e, c * e), 0.0, x)), (
        np.arange(5, dtype=f32),)
    yield "jit", (lambda x: jax.jit(lambda y: y * 2.0)(x) + 1.0), (np.arange(3, dtype=f32),)
    if len(jax.devices()) >= 4:
        mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
        P = jax.sharding.PartitionSpec

        def shmap(x):
            return jax.shard_map(lambda v: lax.psum(v * 2.0, "x"), mesh=mesh, in_specs=P("x"),
                                 out_specs=P())(x)
        yield "shmap", shmap, (np.arange(8, dtype=f32),)


def test_live_jax_printouts_round_trip_and_evaluate(jax):
    names = []
    for name, f, args in _live_cases(jax):
        printed = str(jax.make_jaxpr(f)(*args))
        j = ir.parse(printed)
        assert str(j) == printed, name
        ir.check(j)
        got = ir.eval(j, *args)
        want = [np.asarray(w) for w in jax.tree_util.tree_leaves(f(*args))]
        assert len(got) == len(want), name
        for g, w in zip(got, want):
            assert g.dtype == w.dtype and g.shape == w.shape, name
            np.testing.assert_allclose(g, w, rtol=2e-6, atol=1e-6, err_msg=name)
        names.append(name)
    assert len(names) >= 6


def test_live_jax_grad_and_vmap_values(jax):
    jnp = jax.numpy

    def f(w, x):
        return jnp.sum(jnp.tanh(x @ w) * jnp.exp(-w.sum()))
    w = np.linspace(-0.5, 0.5, 3, dtype=np.float32)
    x = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)
    j = ir.parse(str(jax.make_jaxpr(f)(w, x)))
    got = ir.eval(ir.grad(j, argnums=(0, 1)), w, x)
    want = jax.grad(f, argnums=(0, 1))(w, x)
    for g, v in zip(got, want):
        np.testing.assert_allclose(g, np.asarray(v), rtol=1e-5, atol=1e-7)
    xs = np.stack([x, -x, 2 * x])
    (got,) = ir.eval(ir.vmap(j, in_axes=(None, 0), size=3), w, xs)
    np.testing.assert_allclose(got, np.asarray(jax.vmap(f, in_axes=(None, 0))(w, xs)),
                               rtol=1e-5)


def test_live_jax_shard_map_grad_values(jax):
    if len(jax.devices()) < 4:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=8")
    jnp = jax.numpy
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def f(w, x):
        return jax.shard_map(lambda w, x: jax.lax.psum(jnp.sum(jnp.tanh(x @ w)), "x"),
                             mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)
    w = np.linspace(0.1, 0.4, 4, dtype=np.float32)
    x = np.arange(32, dtype=np.float32).reshape(8, 4) / 32
    j = ir.parse(str(jax.make_jaxpr(f)(w, x)))
    g = ir.grad(j)
    np.testing.assert_allclose(ir.eval(g, w, x)[0], np.asarray(jax.grad(f)(w, x)), rtol=1e-5)
    np.testing.assert_allclose(ir.eval(g, w, x, backend="threads")[0],
                               ir.eval(g, w, x)[0], rtol=0)
    # the cotangent of the replicated w comes back through one psum_invariant of f32[4]
    assert ir.comm(g)["total_bytes_per_device"] == 24


def test_live_jax_linear_transpose_prints_the_same(jax):
    if len(jax.devices()) < 4:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=8")
    lax = jax.lax
    P = jax.sharding.PartitionSpec
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def smap(body, in_spec, out_spec):
        return lambda x: jax.shard_map(body, mesh=mesh, in_specs=in_spec, out_specs=out_spec)(x)
    cases = {
        "psum": (smap(lambda v: lax.psum(v, "x"), P("x"), P()), 0),
        "psum_scatter": (smap(lambda v: lax.psum_scatter(v, "x", tiled=True), P(), P("x")), 72),
        "ppermute": (smap(lambda v: lax.ppermute(v, "x", [(i, (i + 1) % 4) for i in range(4)]),
                          P("x"), P("x")), 8),
    }
    x = np.arange(8, dtype=np.float32)
    for name, (f, total_bytes) in cases.items():
        t = ir.transpose(ir.parse(str(jax.make_jaxpr(f)(x))))
        ct = np.ones(jax.eval_shape(f, x).shape, np.float32)
        assert str(t) == str(jax.make_jaxpr(jax.linear_transpose(f, x))(ct)), name
        assert ir.comm(t)["total_bytes_per_device"] == total_bytes, name
        (got,) = ir.eval(t, ct)
        (want,) = jax.linear_transpose(f, x)(ct)
        np.testing.assert_array_equal(got, np.asarray(want), err_msg=name)


def test_live_jax_arrays_are_arguments(jax):
    jnp = jax.numpy
    j = load("jax/sin_cos.txt")
    shape, dtype = j._in_types[0]
    x = jnp.arange(int(np.prod(shape)), dtype=dtype).reshape(shape)
    got = ir.eval(j, x)
    want = ir.eval(j, np.asarray(x))
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)


def test_axe_ir_is_exported():
    assert axe.ir is ir
    assert {"parse", "check", "transpose", "comm", "eval", "jvp", "linearize", "vjp", "grad",
            "vmap", "Jaxpr"} <= set(ir.__all__)


def test_errors_quote_whole_characters_and_are_never_empty():
    with pytest.raises(ValueError) as e:
        ir.parse("{\u00e9}")
    assert str(e.value) == "line 1, column 2: expected 'lambda', found '\u00e9'"
    with pytest.raises(ValueError) as e:
        axe.Layout("S[\u20ac]")
    assert "found '\u20ac'" in str(e.value)
    # A message cut inside a character of several bytes would not decode: it stays whole.
    long_text = "{ lambda ; a:i32[]. let b:i32[] = add a 1" + "\u00e9" * 100 + ":i32[] in (b,) }"
    with pytest.raises(ValueError) as e:
        ir.parse(long_text)
    assert "is not an integer fitting int64" in str(e.value)
    assert len(str(e.value)) < 200 and "\ufffd" not in str(e.value)


def test_hex_escapes_in_strings_are_code_points():
    j = ir.parse(r"{ lambda ; a:f32[]. let b:f32[] = add[name='\xff\x85'] a a in (b,) }")
    assert "name='\u00ff\\x85'" in str(j)


def test_compile_runs_the_executor_again_and_again():
    j = ir.parse("{ lambda ; a:f32[3] b:i32[3]. let c:f32[3] = sin a; d:i32[3] = mul b b "
                 "in (c, d) }")
    compiled = ir.compile(j, threads=1)
    x = np.array([0.0, 1.0, 2.0], np.float32)
    big = np.array([123456789, -3, 0], np.int32)
    for _ in range(3):
        c, d = compiled(x, big)
        np.testing.assert_allclose(c, np.sin(x), rtol=1e-6)
        np.testing.assert_array_equal(d, np.array([-1757895751, 9, 0], np.int32))
    assert "fused[sin]" in compiled.describe()
    # A 0-d argument stays 0-d; a wrong type is JAX's TypeError.
    s = ir.compile(ir.parse("{ lambda ; a:f32[]. let b:f32[] = neg a in (b,) }"))
    (out,) = s(np.float32(2.0))
    assert out.shape == () and out == -2.0
    with pytest.raises(TypeError, match="compiled with f32\\[3\\] and called with f32\\[4\\]"):
        compiled(np.zeros(4, np.float32), big)
    with pytest.raises(TypeError, match="threads must be a non-negative int"):
        ir.compile(j, threads=-1)
    with pytest.raises(TypeError, match="takes an axe.ir.Jaxpr"):
        ir.compile("not a jaxpr")


THREE_BIG_VALUES = ir.parse(
    "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
    "shape=(1048576,) sharding=None] a; c:f32[1048576] = add b b; d:f32[1048576] = mul c c; "
    "e:f32[] = reduce_sum[axes=(0,) out_sharding=None] d in (e) }")


def test_eval_counts_live_values_against_the_memory_budget(monkeypatch):
    # The executor on both backends (shard_map positions on threads with backend="threads"):
    # its values at their peak, the results as doubles. The chain fuses into one pass, so 1 MiB
    # holds it (the interpreter held three 8 MiB values of doubles); three 4 MiB results (8 MiB
    # each as doubles) do not fit in 16 MiB.
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "1M")
    for backend in ("host", "threads"):
        (out,) = ir.eval(THREE_BIG_VALUES, np.float32(0.5), backend=backend)
        assert out == 1048576.0
    three_results = ir.parse(
        "{ lambda ; a:f32[]. let b:f32[1048576] = broadcast_in_dim[broadcast_dimensions=() "
        "shape=(1048576,) sharding=None] a; c:f32[1048576] = add b b; "
        "d:f32[1048576] = mul c c in (b, c, d) }")
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "16M")
    for backend in ("host", "threads"):
        with pytest.raises(MemoryError, match="the program's values at their peak"):
            ir.eval(three_results, np.float32(0.5), backend=backend)
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "lots")
    with pytest.raises(ValueError, match="AXE_MEMORY_LIMIT: expected a positive byte count"):
        ir.eval(THREE_BIG_VALUES, np.float32(0.5))
