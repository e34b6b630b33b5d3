#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_window/ with the real JAX: the windowed reductions as
jax.make_jaxpr prints them for lax.reduce_window and flax-style avg_pool / max_pool / min_pool
(reduce_window_sum, reduce_window_max, reduce_window_min, the generic reduce_window), NHWC and
NCHW, strides, SAME/VALID/explicit padding, base and window dilations, int and float dtypes,
and for their gradients (select_and_scatter_add, pad-based transposes), JVPs
(select_and_gather_add) and vmaps; f16, bf16 and bool pooling (16-bit window sums round after
every add, as XLA:CPU's loop does: long windows show it); the generic reduce_window with each
monoid JAX prints as a jaxpr reducer (mul, max, min, and, or, xor, add with an initial value
that is no identity) and a variadic reducer (an argmax pool over values and their indices).
For each case:

  <name>.txt         make_jaxpr(f)(x)
  <name>.loss.txt    make_jaxpr(loss)(x), loss = sum of sin over f's output (float cases)
  <name>.grad.txt    make_jaxpr(jax.grad(loss))(x)
  <name>.values.txt  "arg T=v,..." for x, "out T=v,..." per output of f and "grad T=v,..."
                     for the gradient of loss, as JAX computed them
  <name>.vmap        (some cases) "arg@<axis> T=v,..." and "out T=v,..." of jax.vmap(f, axis)

window_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks, and that axe's interpreter, executor, Grad and Vmap give JAX's numbers.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_window.py
"""
import pathlib

import ml_dtypes
import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_window"


def data(shape, k=0, dtype=np.float32):
    n = int(np.prod(shape))
    v = np.array([((7 * i + 3 * k) % 17) / 8 - 1.0 + 0.01 * (i % 5) for i in range(n)])
    return v.astype(dtype).reshape(shape)


def floats16(shape, dtype, k=0):
    """Values in [-1, 3) with a fine mantissa, so that a long window sum rounds many times."""
    n = int(np.prod(shape))
    v = np.array([((37 * i + 11 * k) % 101) / 25.0 - 1.0 + 0.0013 * (i % 7) for i in range(n)])
    return v.astype(dtype).reshape(shape)


def argmax_pool(dims, strides, padding):
    """The maximum of each window and the flat index of its first occurrence."""
    def reducer(a, b):
        (av, ai), (bv, bi) = a, b
        take_b = (bv > av) | ((bv == av) & (bi < ai))
        return lax.select(take_b, bv, av), lax.select(take_b, bi, ai)

    def f(x):
        idx = jnp.arange(x.size, dtype=jnp.int32).reshape(x.shape)
        init = (jnp.array(-jnp.inf, x.dtype), jnp.array(np.iinfo(np.int32).max, jnp.int32))
        return lax.reduce_window((x, idx), init, reducer, dims, strides, padding)
    return f


def ties(shape):
    n = int(np.prod(shape))
    return np.array([float((5 * i) % 4) for i in range(n)], np.float32).reshape(shape)


def ints(shape, dtype=np.int32, scale=1):
    n = int(np.prod(shape))
    return (np.array([((5 * i) % 13) - 6 for i in range(n)]) * scale).astype(dtype).reshape(shape)


def pool(init, op, dims, strides, padding, **kw):
    return lambda x: lax.reduce_window(x, init, op, dims, strides, padding, **kw)


def pool_array_init(value, dtype, op, dims, strides, padding):
    """A pool whose initial value is a JAX array (JAX then prints the generic reduce_window)."""
    return lambda x: lax.reduce_window(x, jnp.array(value, dtype), op, dims, strides, padding)


def avg(dims, strides, padding):
    size = float(np.prod(dims))
    return lambda x: lax.reduce_window(x, 0.0, lax.add, dims, strides, padding) / size


def jvp_of(f):
    return lambda x: jax.jvp(f, (x,), (jnp.cos(x),))


def cases():
    x4 = data((2, 5, 5, 3))
    maxpool = pool(-jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    yield "max_nhwc_valid", maxpool, x4, [0, 3]
    yield "max_nchw_same", pool(-jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), "SAME"), \
        data((2, 3, 5, 5), 1), [0, 2]
    yield "min_same", pool(jnp.inf, lax.min, (1, 3, 3, 1), (1, 1, 1, 1), "SAME"), x4, [1]
    yield "avg_same", avg((1, 2, 2, 1), (1, 2, 2, 1), "SAME"), x4, [0]
    yield "avg_nchw_valid", avg((1, 1, 3, 2), (1, 1, 1, 2), "VALID"), data((2, 2, 6, 5), 2), [1]
    yield "sum_dilated", pool(0.0, lax.add, (1, 2, 3), (1, 2, 1), ((0, 0), (1, 2), (2, 0)),
                              base_dilation=(1, 2, 1), window_dilation=(1, 1, 2)), \
        data((2, 4, 5), 3), [0]
    yield "max_base_dilated", pool(-jnp.inf, lax.max, (2, 3), (1, 2), ((1, 0), (0, 1)),
                                   base_dilation=(2, 1)), data((4, 5), 4), [1]
    yield "max_window_dilated", pool(-jnp.inf, lax.max, (2, 2), (1, 1), "VALID",
                                     window_dilation=(2, 1)), data((5, 4), 5), [0]
    yield "max_ties", maxpool, ties((1, 4, 4, 2)), []
    yield "min_ties_overlapping", pool(jnp.inf, lax.min, (3, 3), (1, 1), "SAME"), \
        ties((4, 5)), []
    yield "max_1d", pool(-jnp.inf, lax.max, (3,), (2,), ((1, 1),)), data((9,), 6), []
    yield "max_3d", pool(-jnp.inf, lax.max, (1, 2, 2, 2, 1), (1, 1, 2, 1, 1), "SAME"), \
        data((1, 3, 4, 3, 2), 7), []
    yield "sum_int32", pool(0, lax.add, (1, 2, 2, 1), (1, 1, 2, 1), "SAME"), \
        ints((2, 4, 5, 2), np.int32, 700000000), [0]
    yield "max_int32", pool(jnp.iinfo(jnp.int32).min, lax.max, (2, 2), (2, 2), "SAME"), \
        ints((5, 5)), [0]
    yield "min_int8", pool(np.int8(127), lax.min, (3,), (1,), "SAME"), \
        ints((7,), np.int8, 9), []
    yield "sum_int8_wrap", pool(np.int8(0), lax.add, (4,), (2,), "VALID"), \
        ints((8,), np.int8, 20), []
    yield "generic_prod", pool(1.0, lax.mul, (1, 2, 2, 1), (1, 1, 1, 1), "VALID"), x4, [0]
    yield "generic_init3", pool(3.0, lax.add, (2, 2), (1, 1), ((1, 0), (0, 1))), \
        data((3, 4), 8), []
    yield "jvp_max", jvp_of(maxpool), x4, [0]
    yield "jvp_min_dilated", jvp_of(pool(jnp.inf, lax.min, (2, 2), (1, 1), ((0, 1), (1, 0)),
                                         base_dilation=(2, 1))), data((4, 4), 9), []
    yield "jvp_generic_prod", jvp_of(pool(1.0, lax.mul, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")), \
        x4, []
    yield "vmapped_max", jax.vmap(maxpool, in_axes=1), data((2, 2, 5, 5, 3), 10), []
    bf16, f16 = ml_dtypes.bfloat16, np.float16
    yield "sum_bf16_long", pool(0.0, lax.add, (1, 3, 17), (1, 1, 2), "VALID"), \
        floats16((2, 6, 40), bf16), []
    yield "sum_f16_long", pool(0.0, lax.add, (3, 17), (1, 1), ((1, 0), (0, 2))), \
        floats16((6, 40), f16, 1), []
    yield "avg_bf16_same", avg((1, 3, 3, 1), (1, 2, 2, 1), "SAME"), \
        floats16((2, 7, 7, 3), bf16, 2), []
    yield "max_bf16", maxpool, floats16((2, 5, 5, 3), bf16, 3), []
    yield "min_f16_dilated", pool(jnp.inf, lax.min, (2, 3), (1, 2), ((1, 1), (2, 0)),
                                  base_dilation=(2, 1), window_dilation=(1, 2)), \
        floats16((4, 9), f16, 4), []
    yield "max_f16_padded_only", pool(-jnp.inf, lax.max, (2,), (1,), ((3, 0),)), \
        floats16((4,), f16, 5), []
    yield "jvp_max_bf16", jvp_of(maxpool), floats16((2, 5, 5, 3), bf16, 6), []
    yield "max_bool", pool(False, lax.max, (2, 2), (1, 1), "SAME"), \
        floats16((4, 5), np.float32, 7) > 1.0, []
    yield "min_bool", pool(True, lax.min, (3,), (2,), "VALID"), floats16((9,), np.float32, 8) > 0, []
    yield "generic_add_bf16", pool_array_init(0, jnp.bfloat16, lax.add, (2, 9), (1, 3), "VALID"), \
        floats16((5, 30), bf16, 9), []
    yield "generic_mul_int32_wrap", pool(np.int32(1), lax.mul, (1, 3), (1, 1), "VALID"), \
        ints((3, 6), np.int32, 1291), []
    yield "generic_max_init", pool(np.int32(-2), lax.max, (2, 2), (2, 1), "SAME"), \
        ints((5, 4)), []
    yield "generic_min_f16", pool_array_init(0.5, jnp.float16, lax.min, (3,), (1,), "SAME"), \
        floats16((8,), f16, 10), []
    yield "generic_and_uint8", pool(np.uint8(0xF7), lax.bitwise_and, (2,), (1,), "VALID"), \
        (ints((9,), np.int32, 37) % 256).astype(np.uint8), []
    yield "generic_or_bool", pool(False, lax.bitwise_or, (3,), (1,), "SAME"), \
        floats16((7,), np.float32, 11) > 1.5, []
    yield "generic_xor_int32", pool(np.int32(5), lax.bitwise_xor, (2, 2), (1, 1), "VALID"), \
        ints((4, 4), np.int32, 12345), []
    yield "generic_argmax_pool", argmax_pool((1, 2, 2, 1), (1, 2, 2, 1), "VALID"), \
        ties((1, 4, 6, 2)), []
    yield "generic_argmax_pool_padded", argmax_pool((3, 3), (1, 1), "SAME"), \
        floats16((4, 5), np.float32, 12), []
    yield "flax_cnn_pool", lambda x: jnp.mean(
        avg((1, 2, 2, 1), (1, 2, 2, 1), "VALID")(jax.nn.relu(
            pool(-jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")(x) - 0.1)),
        axis=(1, 2)), x4, []


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.int8): "i8",
            np.dtype(np.uint8): "u8", np.dtype(np.bool_): "bool",
            np.dtype(np.float16): "f16", np.dtype(ml_dtypes.bfloat16): "bf16"}[a.dtype]
    if kind == "bool":
        vals = ",".join("true" if v else "false" for v in a.reshape(-1))
    else:
        vals = ",".join(repr(v.item()) if kind in ("i32", "i8", "u8") else str(np.float32(v))
                        for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals or 0}"


def write_vmaps(name, f, x, axes):
    lines = []
    for n, axis in enumerate(axes):
        other = (x * 0.5 + n + 1) if x.dtype == np.float32 else x + n + 1
        b = np.stack([x, other.astype(x.dtype)], axis=axis)
        out = jax.vmap(f, in_axes=axis)(b)
        lines += [f"arg@{axis} {text(b)}"]
        outs = out if isinstance(out, tuple) else (out,)
        lines += [f"out {text(o)}" for o in outs]
    if lines:
        (OUT / f"{name}.vmap").write_text("\n".join(lines) + "\n")


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, x, vmaps in cases():
        out = f(x)
        outs = out if isinstance(out, tuple) else (out,)
        lines = [f"arg {text(x)}"] + [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(x)) + "\n")
        if x.dtype in (np.float32, ml_dtypes.bfloat16) and not isinstance(out, tuple) \
                and "generic" not in name and "jvp" not in name \
                and "window_dilated" not in name:
            def loss(x):
                return jnp.sum(jnp.sin(f(x)))
            lines.append(f"grad {text(jax.grad(loss)(x))}")
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(x)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(str(jax.make_jaxpr(jax.grad(loss))(x)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")
        write_vmaps(name, f, x, vmaps)


if __name__ == "__main__":
    main()
