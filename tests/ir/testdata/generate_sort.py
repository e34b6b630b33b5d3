#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_sort/ with the real JAX: sort (jnp.sort, jnp.argsort,
multi-operand lax.sort), top_k, remat2 (jax.checkpoint, with and without a policy) and
reshard (JAX's gradient of a shard_map loss) as jax.make_jaxpr prints them, for functions, their
gradients and their vmaps. For each case:

  <name>.txt          make_jaxpr(f)(*args)
  <name>.loss.txt     make_jaxpr(loss)(*args), loss = sum of sin over f's float outputs
  <name>.grad.txt     make_jaxpr(jax.grad(loss, argnums=every argument))(*args)
  <name>.vmap.txt     make_jaxpr(jax.vmap(f))(*stacked), stacked = 3 shifted copies of args
                      (+0.25 b for floats, +b for integers, copy b)
  <name>.values.txt   "arg T=v,..." per argument, "out T=v,..." per output of f, "grad T=v,..."
                      per gradient of loss and "vmap T=v,..." per output of vmap(f), as JAX
                      computed them

(loss and grad only where every argument and some output is floating-point and the case asks
for them). sort_primitives_test.cc checks that every text round-trips through axe's parser
and printer exactly (explicit_reshard.txt's types carry JAX's explicit sharding, `@x`),
type-checks, evaluates to JAX's numbers (interpreter and executor), and that
axe's own Grad and Vmap give JAX's gradients and vmapped values.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 \\
        /work/main/build/venv/bin/python tests/ir/testdata/generate_sort.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax.sharding import PartitionSpec as P

OUT = pathlib.Path(__file__).parent / "jax_sort"
f32, i32 = jnp.float32, jnp.int32


def signed(shape, k=0):
    n = int(np.prod(shape))
    v = [0.3 + ((7 * i + 3 * k) % 11) / 8 + 0.01 * i - 0.9 for i in range(n)]
    return np.array(v, np.float32).reshape(shape)


def ties(shape, k=0):
    """Floats with repeated values (ties in sort and top_k)."""
    n = int(np.prod(shape))
    return np.array([((3 * i + k) % 4) * 0.5 - 0.75 for i in range(n)], np.float32).reshape(shape)


def ints(shape, k=0):
    n = int(np.prod(shape))
    return np.array([((5 * i + 3 * k) % 7) - 3 for i in range(n)], np.int32).reshape(shape)


SPECIAL = np.array([3.0, -0.0, 0.0, np.nan, -np.inf, 1.0, -1.0, np.nan, 0.0, np.inf, -0.0],
                   np.float32)
INT_EXTREMES = np.array([2147483647, -2147483648, 0, -1, 2147483647, 5, -2147483648], np.int32)


def cases():
    """(name, f, args, with_grad, with_vmap)."""
    yield "sort_1d", jnp.sort, [signed((7,))], True, True
    yield "sort_axis0", (lambda x: jnp.sort(x, axis=0)), [signed((3, 4))], True, True
    yield "sort_3d_mid", (lambda x: jnp.sort(x, axis=1)), [signed((2, 3, 4))], True, True
    yield "sort_ties", (lambda x: (jnp.sort(x), jnp.argsort(x))), [ties((9,))], True, True
    yield "sort_special", (lambda x: (jnp.sort(x), jnp.argsort(x))), [SPECIAL], False, False
    yield "sort_ints", (lambda x: (jnp.sort(x), jnp.argsort(x))), [INT_EXTREMES], False, True
    yield "argsort", (lambda x: jnp.argsort(x, axis=0)), [ties((4, 3))], False, True
    yield "argsort_descending", (lambda x: jnp.argsort(x, descending=True)), [ties((8,))], \
        False, True
    yield "argsort_unstable", (lambda x: jnp.argsort(x, stable=False)), [signed((6,))], \
        False, True
    yield "sort_multi", (lambda a, b: lax.sort((a, b), num_keys=2)), \
        [ties((8,)), signed((8,), 1)], True, True
    yield "sort_key_val", (lambda k, v: lax.sort_key_val(k, v)), \
        [ties((2, 5)), signed((2, 5), 2)], True, True
    yield "sort_three", (lambda k, v, w: lax.sort((k, v, w), dimension=0, num_keys=1)), \
        [ties((4, 2)), ints((4, 2)), signed((4, 2))], False, True
    yield "sort_flat", (lambda x: jnp.sort(x, axis=None)), [signed((2, 3))], True, True
    yield "top_k", (lambda x: lax.top_k(x, 3)), [signed((7,))], True, True
    yield "top_k_ties", (lambda x: lax.top_k(x, 5)), [ties((2, 7))], True, True
    yield "top_k_axis0", (lambda x: lax.top_k(x, 2, axis=0)), [signed((3, 4))], True, True
    yield "top_k_special", (lambda x: lax.top_k(x, 8)), [SPECIAL], False, False
    yield "top_k_ints", (lambda x: lax.top_k(x, 4)), [INT_EXTREMES], False, True
    yield "top_k_all", (lambda x: lax.top_k(x, 4)), [ties((3, 4))], True, True
    yield "top_k_loss", (lambda x: jnp.sum(lax.top_k(x * x, 2)[0], axis=-1)), \
        [signed((3, 5))], True, True
    yield "remat", jax.checkpoint(lambda x: jnp.sin(jnp.sin(x)) * x), [signed((2, 3))], True, True
    yield "remat_dots", jax.checkpoint(lambda x, w: jnp.tanh(x @ w),
                                       policy=jax.checkpoint_policies.dots_saveable), \
        [signed((2, 3)), signed((3, 2), 1)], True, True
    yield "remat_nothing", jax.checkpoint(lambda x: jnp.exp(x) * x, prevent_cse=False,
                                          policy=jax.checkpoint_policies.nothing_saveable), \
        [signed((4,))], True, True
    yield "remat_names", jax.checkpoint(
        lambda x: jnp.cos(jnp.sin(x)) * x,
        policy=jax.checkpoint_policies.save_only_these_names("s")), [signed((4,))], True, True
    yield "remat_sort", jax.checkpoint(lambda x: jnp.sort(jnp.sin(x))), [signed((5,))], True, True
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def dp_loss(w, x):
        def body(w, x):
            return lax.psum(jnp.sum(jnp.sin(x @ w)), "x")
        return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)
    yield "reshard_shmap", dp_loss, [signed((3,)), signed((8, 3), 1)], True, False


def stacked(args):
    out = []
    for a in args:
        step = 0.25 if a.dtype == np.float32 else 1
        out.append(np.stack([a + np.asarray(b * step, a.dtype) for b in range(3)]))
    return out


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
            np.dtype(np.bool_): "bool"}[a.dtype]
    vals = ",".join(("true" if v else "false") if kind == "bool" else repr(v.item())
                    if kind == "i32" else str(np.float32(v)) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def as_tuple(o):
    return tuple(o) if isinstance(o, (tuple, list)) else (o,)


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args, with_grad, with_vmap in cases():
        lines = [f"arg {text(a)}" for a in args]
        outs = as_tuple(f(*args))
        lines += [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        if with_grad:
            def loss(*xs):
                return sum(jnp.sum(jnp.sin(v)) for v in as_tuple(f(*xs)) if v.dtype == f32)
            argnums = tuple(range(len(args)))
            grads = jax.grad(loss, argnums=argnums)(*args)
            lines += [f"grad {text(g)}" for g in grads]
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(*args)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(
                str(jax.make_jaxpr(jax.grad(loss, argnums=argnums))(*args)) + "\n")
        if with_vmap:
            batched = stacked(args)
            lines += [f"vmap {text(o)}" for o in as_tuple(jax.vmap(f)(*batched))]
            (OUT / f"{name}.vmap.txt").write_text(str(jax.make_jaxpr(jax.vmap(f))(*batched)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")
    # jax.sharding.reshard on an explicit-axes mesh: the types carry the sharding (f32[8@x,2]),
    # which axe reads and prints back (its values carry none).
    mesh = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))
    with jax.set_mesh(mesh):
        f = jax.jit(lambda a: jax.sharding.reshard(a, P("x")) * 2)
        (OUT / "explicit_reshard.txt").write_text(
            str(jax.make_jaxpr(f)(np.ones((8, 2), np.float32))) + "\n")


if __name__ == "__main__":
    main()
