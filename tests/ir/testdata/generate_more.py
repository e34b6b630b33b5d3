#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_more/ with the real JAX: the primitives beyond axe's first
set (reduce_min, rem, cumsum and its siblings, add_any, integer_pow, stop_gradient, square,
logistic, log1p, rsqrt, is_finite, round, floor, clamp, and/or/not, argmax/argmin,
reduce_or/reduce_and/reduce_xor, reduce_prod, custom_jvp_call, custom_vjp_call)
as jax.make_jaxpr prints them for common functions and for their gradients. For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.loss.txt    make_jaxpr(loss)(*args), loss = sum of sin over f's float outputs
  <name>.grad.txt    make_jaxpr(jax.grad(loss, argnums=every argument))(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output of f and
                     "grad T=v,..." per gradient of loss, as JAX computed them

(loss and grad only where every argument and some output is floating-point). more_primitives_test.cc checks
that every text round-trips through axe's parser and printer exactly, that axe evaluates f,
the grad text and its own Grad of loss to JAX's numbers, its Jvp against finite differences
and its Vmap against a loop.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_more.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_more"
f32, i32 = jnp.float32, jnp.int32


def positive(shape, k=0):
    n = int(np.prod(shape))
    v = [0.3 + ((7 * i + 3 * k) % 11) / 8 + 0.01 * i for i in range(n)]
    return np.array(v, np.float32).reshape(shape)


def signed(shape, k=0):
    return positive(shape, k) - np.float32(0.9)


def ints(shape, k=0):
    n = int(np.prod(shape))
    return np.array([((5 * i + 3 * k) % 13) - 6 for i in range(n)], np.int32).reshape(shape)


@jax.custom_vjp
def sin_with_vjp(x):
    return jnp.sin(x)


sin_with_vjp.defvjp(lambda x: (jnp.sin(x), x), lambda x, g: (g * jnp.cos(x),))


def cases():
    yield "reduce_min", (lambda x: (jnp.min(x, axis=1), jnp.min(x))), [signed((2, 3))]
    yield "floordiv", (lambda x: x // 1.5), [signed((2, 3))]
    yield "mod", (lambda x: x % 1.5), [signed((2, 3))]
    yield "rem", (lambda x, y: lax.rem(x, y)), [signed((4,)), positive((4,), 1)]
    yield "int_rem", (lambda x: (x % 3, x // 2, lax.rem(x, -4))), [ints((6,))]
    yield "cumsum", (lambda x: (jnp.cumsum(x, axis=1), lax.cumsum(x, axis=0, reverse=True))), \
        [signed((2, 3))]
    yield "cumulative", (lambda x: (lax.cumprod(x, axis=1), lax.cummax(x, axis=0),
                                    lax.cummin(x, axis=1, reverse=True))), [signed((2, 3))]
    yield "cumlogsumexp", (lambda x: lax.cumlogsumexp(x, axis=1)), [signed((2, 3))]
    yield "integer_pow", (lambda x: x ** 3 + x ** 2 - 1.0 / x ** 2), [signed((5,))]
    yield "stop_gradient", (lambda x: lax.stop_gradient(x) * x), [signed((4,))]
    yield "softmax", (lambda x: jax.nn.softmax(x, axis=-1)), [signed((2, 3))]
    yield "logsumexp", (lambda x: jax.nn.logsumexp(x, axis=1)), [signed((2, 3))]
    yield "relu", (lambda x: jax.nn.relu(x)), [signed((6,))]
    yield "log_sigmoid", (lambda x: jax.nn.log_sigmoid(x)), [signed((6,))]
    yield "sigmoid_silu", (lambda x: (jax.nn.sigmoid(x), jax.nn.silu(x))), [signed((6,))]
    yield "gelu", (lambda x: jax.nn.gelu(x)), [signed((6,))]
    yield "rsqrt_square", (lambda x: (lax.rsqrt(x), jnp.square(x), jnp.log1p(x))), \
        [positive((5,))]
    yield "var_norm", (lambda x: (jnp.var(x), jnp.linalg.norm(x))), [signed((2, 3))]
    yield "clamp_clip", (lambda x: (lax.clamp(-0.25, x, 0.55), jnp.clip(x, -0.35, 0.45))), \
        [signed((6,))]
    # x at the bounds: JAX's clamp passes no tangent there (strict comparisons).
    # (A traced scalar bound fails in JAX 0.10.2's own clamp JVP: "select cases must have the
    # same shapes", so the bounds are constants.)
    yield "clamp_ties", (lambda x: lax.clamp(-0.25, x, 0.5)), \
        [np.array([-0.25, 0.5, 0.1, -1.0, 1.0], np.float32)]
    yield "where_abs_sign", (lambda x: (jnp.where(x > 0.2, x, 2 * x), jnp.abs(x),
                                        jnp.sign(x) * x, jnp.maximum(x, 0.1))), [signed((6,))]
    yield "astype", (lambda x: x.astype(jnp.float16).astype(f32) * x), [signed((4,))]
    yield "round_finite", (lambda x: (jnp.round(x), lax.round(x), jnp.isfinite(x))), \
        [signed((6,)) * 3]
    yield "logical", (lambda x: (((x > 0.1) & (x < 0.6)) | ~(x > -0.2),
                                 jnp.bitwise_and(x.astype(i32), 3))), [signed((6,)) * 4]
    yield "custom_vjp", (lambda x: sin_with_vjp(x) * x), [signed((4,))]
    yield "argmax", (lambda x: (jnp.argmax(x, axis=1), jnp.argmin(x, axis=0))), [signed((2, 3))]
    # jnp.any / jnp.all and the bitwise ufuncs' reduce: reduce_or, reduce_and, reduce_xor.
    yield "logical_reduce", (lambda b, x: (jnp.any(b, axis=1), jnp.all(b), jnp.any(x),
                                           jnp.bitwise_or.reduce(x, axis=0),
                                           jnp.bitwise_and.reduce(x, axis=1),
                                           jnp.bitwise_xor.reduce(x, axis=0),
                                           jnp.logical_xor.reduce(b, axis=0))), \
        [ints((2, 3)) > 0, ints((2, 3), 1)]
    # jnp.prod: reduce_prod; its gradient is JAX's halving tree of slice, pad and mul (odd
    # lengths pad), which handles zeros; integers wrap around.
    yield "prod", (lambda x: (jnp.prod(x, axis=1), jnp.prod(x, axis=(0, 2)), jnp.prod(x))), \
        [signed((2, 3, 5))]
    yield "prod_zeros", (lambda x: (jnp.prod(x, axis=0), jnp.prod(x, axis=1))), \
        [np.array([[0.5, 0.0, 2.0, 0.0], [1.5, 3.0, 0.0, 0.0], [-2.0, 0.25, 1.0, 0.0]],
                  np.float32)]
    yield "int_prod", (lambda x: (jnp.prod(x, axis=1), jnp.prod(x + 7))), [ints((4, 5))]
    yield "any_where", (lambda x: jnp.where(jnp.any(x > 0.5, axis=1, keepdims=True), x, -x)), \
        [signed((2, 3))]


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
            np.dtype(np.bool_): "bool"}[a.dtype]
    vals = ",".join(("true" if v else "false") if kind == "bool" else repr(v.item())
                    if kind == "i32" else str(np.float32(v)) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        lines = [f"arg {text(a)}" for a in args]
        outs = f(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        lines += [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        if all(np.asarray(a).dtype == np.float32 for a in args) and any(
                np.asarray(o).dtype == np.float32 for o in outs):
            def loss(*xs):
                o = f(*xs)
                o = o if isinstance(o, tuple) else (o,)
                return sum(jnp.sum(jnp.sin(v)) for v in o if v.dtype == f32)
            argnums = tuple(range(len(args)))
            grads = jax.grad(loss, argnums=argnums)(*args)
            lines += [f"grad {text(g)}" for g in grads]
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(*args)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(
                str(jax.make_jaxpr(jax.grad(loss, argnums=argnums))(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
