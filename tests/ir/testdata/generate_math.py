#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_math/ with the real JAX: the elementwise functions of
family_math.cc (erf erfc erf_inv expm1 tan atan asin acos sinh cosh asinh acosh atanh cbrt exp2
atan2 nextafter, and the integer shift_left shift_right_logical shift_right_arithmetic xor
population_count clz) as jax.make_jaxpr prints them for common functions and, for the float
ones, for their gradients. For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.loss.txt    make_jaxpr(loss)(*args), loss = sum of sin over f's outputs (float cases)
  <name>.grad.txt    make_jaxpr(jax.grad(loss, argnums=every argument))(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output of f and
                     "grad T=v,..." per gradient of loss, as JAX computed them

math_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks and evaluates to JAX's numbers (integers exactly), and that axe's own Grad of
loss gives JAX's gradients; exec_test.cc runs them on the executor.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_math.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_math"


def unit(n, k=0):
    """n floats in (-0.9, 0.9)."""
    return np.array([0.85 * np.sin(1.3 * i + k + 0.4) for i in range(n)], np.float32)


def murmur_finalizer(h):
    h = h ^ (h >> 16)
    h = h * jnp.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * jnp.uint32(0xC2B2AE35)
    return h ^ (h >> 16)


def cases():
    # (name, f, args, differentiate)
    # jax.nn.gelu(x, approximate=False)'s formula (jax.nn.gelu itself ends with a `copy`).
    yield "gelu_exact", (lambda x: 0.5 * x * lax.erfc(-x / np.float32(np.sqrt(2)))), \
        [unit(7) * 3], True
    yield "gelu_erf", (lambda x: 0.5 * x * (1 + lax.erf(x / np.float32(np.sqrt(2))))), \
        [unit(7) * 3], True
    yield "erf_family", (lambda x: (lax.erf(x), lax.erfc(x), lax.erf_inv(x))), [unit(6)], True
    yield "trig", (lambda x, y: (lax.tan(x), lax.atan(x * 3), lax.asin(x), lax.acos(x),
                                 lax.atan2(x, y))), [unit(6), unit(6, 2)], True
    yield "hyperbolic", (lambda x: (lax.sinh(x * 2), lax.cosh(x * 2), lax.asinh(x * 3),
                                    lax.acosh(x + 2.0), lax.atanh(x))), [unit(6, 1)], True
    yield "exp_cbrt", (lambda x: (lax.expm1(x), lax.cbrt(x * 5 + 0.1), lax.exp2(x * 4))), \
        [unit(6, 3)], True
    yield "nextafter", (lambda x, y: (lax.nextafter(x, y), lax.nextafter(y, x))), \
        [np.array([0.0, 1.0, -1.0, 1.5e-38, 3.0, -0.0, np.inf], np.float32),
         np.array([1.0, 2.0, -2.0, 0.0, 3.0, -1.0, 0.0], np.float32)], False
    amounts = np.array([0, 1, 7, 31, 32, 40, -1, 3], np.int32)
    values = np.array([1, -8, 300, -2147483647, 5, -1, 123456789, -300], np.int32)
    yield "shifts_i32", (lambda x, s: (lax.shift_left(x, s), lax.shift_right_logical(x, s),
                                       lax.shift_right_arithmetic(x, s), x ^ s)), \
        [values, amounts], False
    yield "shifts_u8", (lambda x, s: (lax.shift_left(x, s), lax.shift_right_logical(x, s),
                                      lax.shift_right_arithmetic(x, s), x ^ s)), \
        [np.array([1, 128, 255, 7, 200, 3], np.uint8), np.array([0, 1, 7, 8, 9, 255], np.uint8)], \
        False
    yield "shifts_i16", (lambda x, s: (lax.shift_left(x, s), lax.shift_right_arithmetic(x, s),
                                       lax.shift_right_logical(x, s))), \
        [np.array([-32768, 12345, -1, 7], np.int16), np.array([15, 3, 16, -2], np.int16)], False
    yield "bit_counts", (lambda a, b, c: (lax.population_count(a), lax.clz(a),
                                          lax.population_count(b), lax.clz(b),
                                          lax.population_count(c), lax.clz(c))), \
        [values, np.array([0, 1, 128, 255, 16, 3], np.uint8),
         np.array([0, -1, 1, -128, 64, 127], np.int8)], False
    yield "xor_bool", (lambda a, b: (a ^ b, jnp.logical_xor(a, b))), \
        [np.array([True, False, True, False]), np.array([True, True, False, False])], False
    yield "hash_u32", jax.jit(murmur_finalizer), \
        [np.array([0, 1, 2, 12345, 4294967295, 2654435769], np.uint32)], False


KINDS = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.bool_): "bool",
         np.dtype(np.uint8): "u8", np.dtype(np.int8): "i8", np.dtype(np.int16): "i16",
         np.dtype(np.uint32): "u32"}


def text(a):
    a = np.asarray(a)
    kind = KINDS[a.dtype]
    if kind == "bool":
        vals = ",".join("true" if v else "false" for v in a.reshape(-1))
    elif kind == "f32":
        vals = ",".join(str(np.float32(v)) for v in a.reshape(-1))
    else:
        vals = ",".join(repr(v.item()) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args, differentiate in cases():
        lines = [f"arg {text(a)}" for a in args]
        outs = f(*args)
        outs = outs if isinstance(outs, tuple) else (outs,)
        lines += [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        if differentiate:
            def loss(*xs):
                o = f(*xs)
                o = o if isinstance(o, tuple) else (o,)
                return sum(jnp.sum(jnp.sin(v)) for v in o)
            argnums = tuple(range(len(args)))
            grads = jax.grad(loss, argnums=argnums)(*args)
            lines += [f"grad {text(g)}" for g in grads]
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(*args)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(
                str(jax.make_jaxpr(jax.grad(loss, argnums=argnums))(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
