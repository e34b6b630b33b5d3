#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_shard_map/ with the real JAX: shard_map programs over
meshes of 4 devices (x=4, and x=2 by y=2) holding every collective with each of its forms
(all_gather stacked and tiled along several dimensions, psum_scatter and all_to_all tiled and
not, ppermute with a member that receives nothing, psum/pmax/pmin of integers that wrap), and
collectives inside loops (a scan, a fori_loop and a while_loop whose steps psum). For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output of f

i64_psum.txt (no values file) is make_jaxpr of shard_map(lambda x: lax.psum(x, "x"), X4, P("x"),
P()) on an i64[8] under jax_enable_x64: the MPI tests sum past 2^53 with it.

tests/exec/shard_map_exec_test.cc runs them on the executor (typed, a thread per position)
and checks JAX's values: integers exactly, floats within a few ulps.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_shard_map.py
"""
import os
import pathlib

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

OUT = pathlib.Path(__file__).parent / "jax_shard_map"
AUTO = jax.sharding.AxisType.Auto
X4 = jax.make_mesh((4,), ("x",), axis_types=(AUTO,))
XY = jax.make_mesh((2, 2), ("x", "y"), axis_types=(AUTO, AUTO))


def smap(body, mesh, in_specs, out_specs):
    return jax.shard_map(body, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


def cases():
    rng = np.random.default_rng(7)
    f32 = lambda *s: rng.standard_normal(s).astype(np.float32)  # noqa: E731
    i32 = lambda *s: rng.integers(-2**31, 2**31, s, dtype=np.int64).astype(np.int32)  # noqa
    u32 = lambda *s: rng.integers(0, 2**32, s, dtype=np.uint64).astype(np.uint32)  # noqa

    def gathers(x):
        return (lax.all_gather(x, "x", axis=0), lax.all_gather(x, "x", axis=2),
                lax.all_gather(x, "x", axis=1, tiled=True))

    def scatters(x):
        return (lax.psum_scatter(x, "x", scatter_dimension=0),
                lax.psum_scatter(x, "x", scatter_dimension=1, tiled=True))

    def all_to_alls(x):
        return (lax.all_to_all(x, "x", 0, 1), lax.all_to_all(x, "x", 0, 2, tiled=True),
                lax.all_to_all(x, "x", 2, 1, tiled=True))

    def all_to_alls_untiled(x):  # split after concat, split == concat, of integers
        return (lax.all_to_all(x, "x", 2, 0), lax.all_to_all(x, "x", 0, 0),
                lax.all_to_all(x, "x", 0, 0, tiled=True), lax.all_to_all(x, "x", 2, 1, tiled=True))

    def a2a_untiled(x):
        return lax.all_to_all(x * 1.5, "x", 2, 0)

    def a2a_tiled(x):  # (JAX 0.10.2 cannot transpose the untiled form's expand_dims)
        return lax.all_to_all(x * 1.5, "x", 2, 0, tiled=True)

    a2a = smap(a2a_untiled, X4, P("x"), P("x"))
    a2a_t = smap(a2a_tiled, X4, P("x"), P("x"))
    a2a_grad = jax.grad(lambda x: jnp.sum(jnp.sin(a2a_t(x))))  # the transpose swaps the axes
    a2a_vmap = jax.vmap(a2a, in_axes=1, out_axes=2)  # the batch dimension shifts both axes

    def ppermute(x):
        return lax.ppermute(x, "x", perm=((0, 1), (1, 2), (2, 0)))

    def reductions(a, b):
        return lax.psum(a, "x"), lax.pmax(a, "x"), lax.pmin(a, "x"), lax.psum(b, "x")

    def scan_of_psums(x):
        def step(c, w):
            c = lax.psum(jnp.tanh(c * w + x), "x") * 0.25
            return c, jnp.sum(c)
        return lax.scan(step, lax.psum(x, "x"), jnp.arange(1.0, 6.0, dtype=np.float32))

    def loop_of_psums(x):
        return lax.fori_loop(0, 3, lambda i, c: lax.psum(c * 3 + i, "x") + x, x)

    def while_of_psums(x):  # a while loop (its trip count is a value) whose steps psum
        def body(c):
            i, v = c
            return i + 1, lax.psum(v * 0.5, "x") + x
        return lax.while_loop(lambda c: c[0] < jnp.int32(4), body, (jnp.int32(0), x))[1]

    def two_axes(a, b):
        return (lax.psum(a, "y"), lax.all_gather(a, "y", axis=1, tiled=True),
                lax.pmax(b, "x"), lax.axis_index(("x", "y")).reshape(1, 1) + 0 * a[:1, :1])

    def dp_loss(x, w):
        y = x @ w
        return lax.psum(jnp.sum(y * y), "x")

    return [
        ("all_gather", smap(gathers, X4, P("x"), (P("x"), P("x"), P("x"))), [f32(8, 3, 2)]),
        ("psum_scatter", smap(scatters, X4, P(None, "x"), (P("x"), P(None, "x"))),
         [f32(4, 32)]),
        ("all_to_all", smap(all_to_alls, X4, P("x"), (P("x"), P("x"), P("x"))),
         [f32(16, 4, 8)]),
        ("ppermute", smap(ppermute, X4, P("x"), P("x")), [f32(8, 3)]),
        ("int_reductions", smap(reductions, X4, (P("x"), P("x")), (P(), P(), P(), P())),
         [i32(8, 3), u32(4)]),
        ("scan_of_psums", smap(scan_of_psums, X4, P("x"), (P(), P())), [f32(8)]),
        ("loop_of_psums", smap(loop_of_psums, X4, P("x"), P("x")),
         [rng.integers(-9, 9, (8,), dtype=np.int64).astype(np.int32)]),
        ("while_of_psums", smap(while_of_psums, X4, P("x"), P("x")), [f32(8)]),
        ("two_axes", smap(two_axes, XY, (P("x", "y"), P("y")),
                          (P("x", "y"), P("x", "y"), P("y"), P("x", "y"))),
         [i32(4, 6), f32(6)]),
        ("dp_loss", smap(dp_loss, X4, (P("x"), P()), P()), [f32(32, 16), 0.1 * f32(16, 8)]),
        ("all_to_all_untiled", smap(all_to_alls_untiled, X4, P("x"), (P("x"),) * 4),
         [i32(16, 2, 4)]),
        ("all_to_all_grad", a2a_grad, [f32(16, 3, 4)]),
        ("all_to_all_vmap", a2a_vmap, [f32(16, 2, 3, 4)]),
    ]


def text(v):
    v = np.asarray(v)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32",
            np.dtype(np.uint32): "u32"}[v.dtype]
    vals = ",".join(str(np.float32(x)) if kind == "f32" else repr(x.item())
                    for x in v.reshape(-1))
    return f"{kind}[{','.join(map(str, v.shape))}]={vals}"


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        outs = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        lines = [f"arg {text(x)}" for x in args] + [f"out {text(o)}" for o in outs]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
