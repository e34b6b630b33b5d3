#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_indexing/ with the real JAX: gather and the scatter family
(scatter, scatter-add, scatter-mul, scatter-min, scatter-max) as jax.make_jaxpr prints them for
integer-array indexing, jnp.take / take_along_axis, embedding lookups, x.at[i].set/add/mul/
min/max, their gradients and their vmaps. For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.loss.txt    make_jaxpr(loss)(*args), loss = sum of sin over f's float outputs
  <name>.grad.txt    make_jaxpr(jax.grad(loss, argnums=the float arguments))(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output of f and
                     "grad T=v,..." per gradient of loss (float arguments, in order), as JAX
                     computed them

indexing_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks, evaluates to JAX's numbers (interpreter and executor), that JAX's gradient text
and axe's own Grad give JAX's gradients and that axe's Vmap agrees with a loop.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_indexing.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_indexing"
f32, i32 = jnp.float32, jnp.int32


def signed(shape, k=0):
    n = int(np.prod(shape))
    v = [((7 * i + 3 * k) % 11) / 8 - 0.6 + 0.01 * i for i in range(n)]
    return np.array(v, np.float32).reshape(shape)


def idx(*v, dtype=np.int32):
    return np.array(v, dtype)


GDN = lax.GatherDimensionNumbers
SDN = lax.ScatterDimensionNumbers


def cases():
    x53 = signed((5, 3))
    # x[idx]: negative indices are normalized before the gather (PROMISE_IN_BOUNDS).
    yield "take_rows", (lambda x, i: x[i]), [x53, idx(0, 4, -1, 2, 0)]
    yield "take_cols", (lambda x, i: x[:, i]), [x53, idx(2, -3, 1)]
    yield "take_2d_indices", (lambda x, i: x[i]), [x53, idx(1, 3, -2, 0).reshape(2, 2)]
    yield "take_two_axes", (lambda x, i, j: x[i, j]), [x53, idx(0, 4, 2), idx(2, 0, -1)]
    yield "take_mixed", (lambda x, i: x[:, i, 1:]), [signed((2, 4, 3)), idx(3, 0)]
    yield "take_scalar_array", (lambda x, i: x[i, 1]), [x53, idx(3, 1)]
    # Out-of-bounds indices: clamped (CLIP), filled with NaN (FILL_OR_DROP).
    yield "take_clip", (lambda x, i: jnp.take(x, i, axis=1, mode="clip")), \
        [x53, idx(0, 7, -4, 2)]
    yield "take_fill", (lambda x, i: jnp.take(x, i, axis=0, mode="fill")), \
        [x53, idx(1, 5, -9, 4)]
    yield "gather_fill_value", (lambda x, i: lax.gather(
        x, i[:, None], GDN(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,)),
        (1, 3), mode="fill", fill_value=2.5)), [x53, idx(4, 5, -1)]
    yield "gather_window", (lambda x, i: lax.gather(
        x, i, GDN(offset_dims=(1, 2), collapsed_slice_dims=(), start_index_map=(0, 1)),
        (2, 2), mode="clip")), [x53, idx(0, 0, 3, 1, 4, 2, -1, 5).reshape(4, 2)]
    yield "take_along_axis", (lambda x, i: jnp.take_along_axis(x, i, axis=1)), \
        [x53, idx(0, 2, 1, 1, 2, 0, 0, 0, 1, 2).reshape(5, 2)]
    yield "take_along_axis0", (lambda x, i: jnp.take_along_axis(x, i, axis=0)), \
        [x53, idx(4, 0, 2, 1, 3, 3).reshape(2, 3)]
    # Embedding lookups, repeated ids: the gradient accumulates (scatter-add).
    yield "embedding", (lambda t, ids: t[ids]), [signed((6, 4)), idx(1, 5, 1, 0, 1, 3).reshape(2, 3)]
    yield "embedding_u8_ids", (lambda t, ids: t[ids]), [signed((6, 4)), idx(2, 2, 5, dtype=np.uint8)]
    yield "take_int", (lambda x, i: x[i]), [idx(5, -3, 7, 1, 0, 9), idx(2, 0, -1, 2)]
    yield "take_bool", (lambda x, i: x[i]), [x53 > 0, idx(1, 1, 4)]
    # x.at[i]: set (the last of repeated indices wins), add, mul, min, max; out of bounds
    # dropped by default, clamped with mode="clip".
    yield "at_set", (lambda x, i, v: x.at[i].set(v)), [signed((6,)), idx(1, 4, 1, -1), signed((4,), 1)]
    yield "at_set_rows", (lambda x, i, v: x.at[i].set(v)), [x53, idx(3, 0, 3), signed((3, 3), 2)]
    yield "at_set_scalar", (lambda x, i, v: x.at[i].set(v)), [x53, idx(2, 4), np.float32(0.5)]
    yield "at_set_drop", (lambda x, i, v: x.at[i].set(v, mode="drop")), \
        [signed((6,)), idx(1, 9, -8, 2), signed((4,), 1)]
    yield "at_set_clip", (lambda x, i, v: x.at[i].set(v, mode="clip")), \
        [signed((6,)), idx(1, 9, -8, 2), signed((4,), 1)]
    yield "at_add", (lambda x, i, v: x.at[i].add(v)), [x53, idx(0, 2, 0, -1), signed((4, 3), 3)]
    yield "at_add_drop", (lambda x, i, v: x.at[i].add(v, mode="drop")), \
        [signed((6,)), idx(1, 9, 1, 2), signed((4,), 1)]
    yield "at_add_int", (lambda x, i, v: x.at[i].add(v)), \
        [idx(5, -3, 7, 1), idx(0, 0, 3), idx(2147483647, 4, -9)]
    yield "at_mul", (lambda x, i, v: x.at[i].mul(v, unique_indices=True)), \
        [signed((6,)), idx(4, 0, 2), signed((3,), 1)]
    yield "at_mul_repeated", (lambda x, i, v: x.at[i].mul(v)), \
        [idx(5, -3, 7, 1), idx(0, 0, 3), idx(3, 4, -9)]
    yield "at_min", (lambda x, i, v: x.at[i].min(v)), [signed((6,)), idx(1, 4, 1, 0), signed((4,), 1)]
    yield "at_max", (lambda x, i, v: x.at[i].max(v)), [x53, idx(0, 2, 0), signed((3, 3), 3)]
    # Ties: equal winning updates share the tangent, as does an operand that keeps its value.
    yield "at_max_ties", (lambda x, i, v: x.at[i].max(v)), \
        [np.array([1, 2, 3, 4], np.float32), idx(1, 1, 2, 3), np.array([5, 5, 3, 0], np.float32)]
    yield "at_add_2d_indices", (lambda x, i, j, v: x.at[i, j].add(v)), \
        [x53, idx(0, 4, 0), idx(1, 2, 1), signed((3,), 2)]
    yield "scatter_window", (lambda x, i, v: lax.scatter_add(
        x, i, v, SDN(update_window_dims=(1, 2), inserted_window_dims=(),
                     scatter_dims_to_operand_dims=(0, 1)), mode="clip")), \
        [x53, idx(0, 0, 3, 1, 4, 2).reshape(3, 2), signed((3, 2, 2), 1)]
    # vmap: batched operand, batched indices, both (operand_batching_dims).
    yield "vmap_take_both", jax.vmap(lambda x, i: x[i]), [x53, idx(0, 2, -1, 1, 1)]
    yield "vmap_take_rows_both", jax.vmap(lambda x, i: x[i]), [signed((2, 5, 3)), idx(0, 4, 2, 2).reshape(2, 2)]
    yield "vmap_take_operand", jax.vmap(lambda x, i: x[i], in_axes=(1, None)), [x53, idx(2, 0)]
    yield "vmap_take_indices", (lambda x, i: jax.vmap(lambda j: x[j])(i)), [x53, idx(1, 3, 3, 0).reshape(2, 2)]
    yield "vmap_at_add", jax.vmap(lambda x, i, v: x.at[i].add(v)), \
        [x53, idx(0, 2, 2, 1, 0), signed((5,), 1)]
    yield "vmap_at_set_operand", jax.vmap(lambda x, i, v: x.at[i].set(v), in_axes=(0, None, None)), \
        [x53, idx(2, 0), signed((2,), 1)]


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.uint8): "u8",
            np.dtype(np.bool_): "bool"}[a.dtype]
    vals = ",".join(("true" if v else "false") if kind == "bool" else repr(v.item())
                    if kind in ("i32", "u8") else str(np.float32(v)) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        lines = [f"arg {text(a)}" for a in args]
        outs = f(*[jnp.asarray(a) for a in args])
        outs = outs if isinstance(outs, tuple) else (outs,)
        lines += [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        argnums = tuple(k for k, a in enumerate(args) if np.asarray(a).dtype == np.float32)
        if argnums and any(np.asarray(o).dtype == np.float32 for o in outs):
            def loss(*xs):
                o = f(*xs)
                o = o if isinstance(o, tuple) else (o,)
                return sum(jnp.sum(jnp.sin(jnp.where(jnp.isnan(v), 0, v))) for v in o
                           if v.dtype == f32)
            grads = jax.grad(loss, argnums=argnums)(*args)
            lines += [f"grad {text(g)}" for g in grads]
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(*args)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(
                str(jax.make_jaxpr(jax.grad(loss, argnums=argnums))(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
