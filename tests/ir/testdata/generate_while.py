#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_while/ with the real JAX: lax.while_loop and fori_loop with
a traced bound (the `while` primitive), their forward-mode derivatives (jax.jvp) and their
batching (jax.vmap, with an unbatched and a batched predicate). For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.values.txt  "arg T=v,..." per argument and "out T=v,..." per output of f, as JAX
                     computed them

while_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks and evaluates to JAX's numbers; exec_test.cc runs them on the executor too.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_while.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_while"
f32, i32 = jnp.float32, jnp.int32


def floats(shape, k=0):
    n = int(np.prod(shape))
    v = [0.3 + ((7 * i + 3 * k) % 11) / 8 + 0.01 * i for i in range(n)]
    return np.array(v, np.float32).reshape(shape)


def fori_sin(x, n):
    return lax.fori_loop(0, n, lambda i, c: c * 0.5 + jnp.sin(c), x)


def doubling(x):
    return lax.while_loop(lambda c: c < 10.0, lambda c: c * 2.0, x)


def collatz(n):
    def body(c):
        m, steps = c
        m = jnp.where(m % 2 == 0, m // 2, 3 * m + 1)
        return m, steps + 1
    return lax.while_loop(lambda c: c[0] != 1, body, (n, jnp.int32(0)))


def consts(x, w, limit):
    # w is a body const, limit a cond const; the second carry is forwarded (a body const too).
    def body(c):
        v, s, i = c
        return v * w + s, s, i + 1
    return lax.while_loop(lambda c: jnp.sum(c[0]) < limit, body, (x, x, jnp.int32(0)))


def newton_sqrt(a):
    return lax.while_loop(lambda c: jnp.abs(c * c - a) > 1e-4,
                          lambda c: 0.5 * (c + a / c), a)


def cases():
    yield "fori_traced", fori_sin, [floats((3,)), np.int32(4)]
    yield "fori_zero", fori_sin, [floats((2,)), np.int32(0)]
    yield "doubling", doubling, [np.float32(0.7)]
    yield "collatz", collatz, [np.int32(27)]
    yield "consts", consts, [floats((3,)), floats((3,), 1), np.float32(40.0)]
    yield "newton", newton_sqrt, [np.float32(7.0)]
    yield "jvp_doubling", (lambda x, t: jax.jvp(doubling, (x,), (t,))), \
        [np.float32(0.7), np.float32(1.5)]
    yield "jvp_fori", (lambda x, n, t: jax.jvp(lambda y: fori_sin(y, n), (x,), (t,))), \
        [floats((3,)), np.int32(3), floats((3,), 2)]
    yield "jvp_consts", (lambda x, w, t, tw: jax.jvp(lambda a, b: consts(a, b, 40.0)[:2],
                                                     (x, w), (t, tw))), \
        [floats((3,)), floats((3,), 1), floats((3,), 2), floats((3,), 3)]
    # vmap with the predicate batched: every lane runs until all are done, each keeping its
    # own carry once its predicate is false.
    yield "vmap_doubling", jax.vmap(doubling), [np.array([0.7, 3.0, 20.0, 0.01], np.float32)]
    yield "vmap_collatz", jax.vmap(collatz), [np.array([27, 1, 6, 7], np.int32)]
    yield "vmap_newton", jax.vmap(newton_sqrt), [np.array([2.0, 9.0, 0.5], np.float32)]
    # vmap with the predicate unbatched (the bound is shared, the carry batched).
    yield "vmap_fori", jax.vmap(fori_sin, in_axes=(0, None)), [floats((2, 3)), np.int32(3)]
    # vmap of a vmap with a batched predicate: the predicate has rank 2.
    yield "vmap_vmap_doubling", jax.vmap(jax.vmap(doubling)), \
        [np.array([[0.7, 3.0, 20.0], [0.01, 1.0, 5.0]], np.float32)]


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
            np.dtype(np.bool_): "bool"}[a.dtype]
    vals = ",".join(("true" if v else "false") if kind == "bool" else repr(v.item())
                    if kind == "i32" else str(np.float32(v)) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def flat(outs):
    return jax.tree_util.tree_leaves(outs)


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        lines = [f"arg {text(a)}" for a in args]
        lines += [f"out {text(o)}" for o in flat(f(*args))]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
