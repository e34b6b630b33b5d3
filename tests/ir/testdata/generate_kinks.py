#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_kinks/ with the real JAX: functions evaluated exactly AT
the ties and kinks of their derivative rules (max/min ties, abs at 0, clip and clamp at their
bounds, relu at 0, pow at 0, sqrt at 0, the step functions, select_n, argmax, reduce_max ties),
a custom_vjp that clips gradients, and shard_map bodies calling jax.nn.relu and a custom_jvp
function holding a psum. For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output of f,
                     "jvp T=v,..." the tangent of f for tangents of ones (not for custom_vjp),
                     "grad T=v,..." per floating-point argument: jax.grad of sum(f)

kinks_test.cc checks that axe's Jvp and Grad give JAX's numbers (one test per rule).

And linear functions for LinearTranspose (`axe ir transpose`): dot_general, scan, cond, slice,
concatenate, and add / mul / sub / div with a rank-0 operand broadcast to an array:

  transpose_<name>.txt         make_jaxpr(f)(*args), f linear in its float arguments listed in
                               kinks_test.cc, the others (first) held constant
  transpose_<name>.values.txt  "arg ..." per constant argument, "ct ..." per output,
                               "want ..." per linear argument: jax.linear_transpose's result

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        /work/main/build/venv/bin/python tests/ir/testdata/generate_kinks.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

OUT = pathlib.Path(__file__).parent / "jax_kinks"
f32, i32 = np.float32, np.int32


def a(*v, dtype=f32):
    return np.array(v, dtype)


@jax.custom_vjp
def clipped_square(x):
    return x ** 2


clipped_square.defvjp(lambda x: (x ** 2, x), lambda x, g: (jnp.clip(2 * x * g, -3.0, 3.0),))


def shmap_relu(w, x):
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def body(w, a):
        return jax.nn.relu(w * a) + lax.psum(jax.nn.relu(a), "x")

    return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P("x"))(w, x)


@jax.custom_jvp
def scaled_by_total(a):
    return a * lax.psum(a, "x")


scaled_by_total.defjvp(lambda p, t: (scaled_by_total(p[0]), t[0] * lax.psum(p[0], "x")))


def shmap_custom_psum(x):
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    return jax.shard_map(scaled_by_total, mesh=mesh, in_specs=P("x"), out_specs=P("x"))(x)


def cases():
    ties = a(1.0, 2.0, -0.5, 3.0, 0.0)
    other = a(1.0, 0.0, -0.5, 4.0, 0.0)
    yield "max_tie", lax.max, [ties, other]
    yield "min_tie", lax.min, [ties, other]
    yield "maximum_literal_tie", lambda x: jnp.maximum(x, 0.5), [a(0.5, 1.0, 0.0)]
    yield "abs_zero", jnp.abs, [a(0.0, -0.0, 1.5, -2.0)]
    yield "clip_bounds", lambda x: jnp.clip(x, -1.0, 1.0), [a(-1.0, 1.0, 0.5, 2.0, -3.0)]
    yield "clamp_bounds", lax.clamp, [a(-1.0, -1.0, 0.0, 0.5, 0.0, 0.5, 2.0),
                                      a(-1.0, 1.0, -2.0, 3.0, 0.0, -1.0, 0.0),
                                      a(1.0, 1.0, 1.0, 0.5, 0.0, 0.5, 3.0)]
    yield "relu_zero", jax.nn.relu, [a(0.0, 1.0, -1.0, -0.0)]
    yield "relu6_bounds", jax.nn.relu6, [a(0.0, 6.0, 3.0, 7.0, -1.0)]
    yield "sign_zero", lambda x: jnp.sign(x) * x, [a(0.0, 2.0, -3.0)]
    yield "floor_integer", lambda x: lax.floor(x) * x, [a(1.0, -2.0, 0.5)]
    yield "ceil_integer", lambda x: lax.ceil(x) * x, [a(1.0, -2.0, 0.5)]
    yield "round_half", lambda x: jnp.round(x) * x + lax.round(x), [a(0.5, 1.5, -2.5, 1.0)]
    yield "select_n_boundary", lambda x, y: jnp.where(x >= y, 2.0 * x, 3.0 * y), \
        [a(1.0, 2.0, 0.0), a(1.0, 3.0, 0.0)]
    yield "argmax_tie", lambda x: x * jnp.argmax(x).astype(f32), [a(1.0, 3.0, 3.0, 2.0)]
    yield "reduce_max_tie", lambda x: jnp.max(x, axis=1), [a(3.0, 1.0, 3.0, 2.0, 2.0, 2.0)
                                                          .reshape(2, 3)]
    yield "pow_zero", lax.pow, [a(0.0, 0.0, 2.0, 0.0, 0.0), a(2.0, 0.5, 3.0, 1.0, 0.0)]
    yield "pow_integer_exponent_zero", lax.pow, [a(0.0, 0.0, 2.0, -1.0),
                                                 a(0, 1, 3, 2, dtype=i32)]
    yield "integer_pow_zero", lambda x: (lax.integer_pow(x, 0) + lax.integer_pow(x, 1)
                                         + lax.integer_pow(x, 2) + lax.integer_pow(x, 3)), \
        [a(0.0, 1.5)]
    yield "integer_pow_negative_zero", lambda x: lax.integer_pow(x, -2), [a(0.0, 2.0)]
    yield "sqrt_zero", jnp.sqrt, [a(0.0, 4.0)]
    yield "custom_vjp_clip", clipped_square, [a(4.5, -18.0, 0.9)]
    yield "shmap_relu", shmap_relu, [np.float32(2.0), np.arange(8, dtype=f32) - 4]
    yield "shmap_custom_psum", shmap_custom_psum, [np.arange(8, dtype=f32) - 4]


def transpose_cases():
    x3 = a(1.0, -2.0, 0.5)
    w = a(1.0, 2.0, 3.0, 4.0, 5.0, 6.0).reshape(3, 2)
    yield "dot_general", lambda w, x: x @ w, [w], [x3], [a(0.5, -1.0)]
    yield "scan", lambda x: lax.scan(lambda c, xi: (0.5 * c + xi, 2.0 * c), 0.0, x), [], [x3], \
        [np.float32(1.0), a(1.0, 2.0, 3.0)]
    yield "cond", lambda p, x: lax.cond(p, lambda v: 2.0 * v, lambda v: -v, x), \
        [np.int32(1)], [x3], [a(1.0, 2.0, 3.0)]
    yield "slice", lambda x: x[1:3], [], [x3], [a(4.0, 5.0)]
    yield "concatenate", lambda x: jnp.concatenate([x, 2.0 * x[:2]]), [], [x3], \
        [a(1.0, 2.0, 3.0, 4.0, 5.0)]
    yield "add_rank0", lax.add, [], [np.float32(1.0), x3], [a(1.0, 2.0, 3.0)]
    yield "sub_rank0", lambda s, x: lax.sub(x, s), [], [np.float32(1.0), x3], [a(1.0, 2.0, 3.0)]
    yield "mul_rank0", lambda w, s: lax.mul(s, w), [x3], [np.float32(1.0)], [a(1.0, 2.0, 3.0)]
    yield "div_rank0", lambda w, s: lax.div(s, w), [a(2.0, 4.0, 0.5)], [np.float32(1.0)], \
        [a(1.0, 2.0, 3.0)]


def write_transposes():
    for name, f, consts, linear, cts in transpose_cases():
        lin_f = lambda *xs: f(*consts, *xs)  # noqa: E731
        want = jax.linear_transpose(lin_f, *linear)(cts[0] if len(cts) == 1 else tuple(cts))
        lines = [f"arg {text(x)}" for x in consts] + [f"ct {text(c)}" for c in cts]
        lines += [f"want {text(g)}" for g in want]
        (OUT / f"transpose_{name}.txt").write_text(str(jax.make_jaxpr(f)(*consts, *linear)) + "\n")
        (OUT / f"transpose_{name}.values.txt").write_text("\n".join(lines) + "\n")


def text(v):
    v = np.asarray(v)
    kind = {np.dtype(f32): "f32", np.dtype(i32): "i32"}[v.dtype]
    vals = ",".join(repr(x.item()) if kind == "i32" else str(np.float32(x))
                    for x in v.reshape(-1))
    return f"{kind}[{','.join(map(str, v.shape))}]={vals}"


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        lines = [f"arg {text(x)}" for x in args]
        lines.append(f"out {text(f(*args))}")
        floats = tuple(i for i, x in enumerate(args) if np.asarray(x).dtype == f32)
        if name != "custom_vjp_clip":
            def partial_f(*fs):
                full = list(args)
                for i, x in zip(floats, fs):
                    full[i] = x
                return f(*full)
            primals = [args[i] for i in floats]
            _, t = jax.jvp(partial_f, primals, [np.ones_like(p) for p in primals])
            lines.append(f"jvp {text(t)}")
        grads = jax.grad(lambda *xs: jnp.sum(f(*xs)), argnums=floats)(*args)
        lines += [f"grad {text(g)}" for g in grads]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")
    write_transposes()


if __name__ == "__main__":
    main()
