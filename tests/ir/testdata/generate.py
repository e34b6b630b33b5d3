#!/usr/bin/env python3
"""Regenerates the jaxpr texts under tests/ir/testdata/jax/ with the real JAX.

    python3 -m venv /tmp/jaxenv && /tmp/jaxenv/bin/pip install jax jaxlib
    XLA_FLAGS=--xla_force_host_platform_device_count=8 /tmp/jaxenv/bin/python generate.py

Each case is written to jax/<name>.txt as str(jax.make_jaxpr(f)(*args)) followed by a newline.
"""
import os
import pathlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

OUT = pathlib.Path(__file__).parent / "jax"
f32 = jnp.float32


def s(shape, dtype=f32):
    return jax.ShapeDtypeStruct(shape, dtype)


def cases():
    auto = jax.sharding.AxisType.Auto
    mesh4 = jax.make_mesh((4,), ("x",), axis_types=(auto,))
    mesh22 = jax.make_mesh((2, 2), ("x", "y"), axis_types=(auto, auto))
    yield "sin_cos", lambda x: jnp.sin(x) * jnp.cos(x), (s((8,)),)
    yield "cond_jp2", (lambda x: lax.cond(x >= 0., lambda xt, _: xt + x,
                                          lambda _, xf: xf - x, x + 1., x + 2.)), (s(()),)
    yield "elementwise", (lambda x, y: (x + y, x - y, x * y, x / y, jnp.maximum(x, y),
                                        jnp.minimum(x, y), -x, x < y, x == y, x != y,
                                        x > y, x <= y)), (s((4,)), s((4,)))
    yield "convert", lambda x: x.astype(jnp.int32), (s((3,)),)
    yield "broadcast_reshape", (lambda x: jnp.broadcast_to(x, (2, 3)).reshape(6)), (s((3,)),)
    yield "squeeze_expand", (lambda x: jnp.expand_dims(jnp.squeeze(x, 0), 1)), (s((1, 3)),)
    yield "transpose", lambda x: jnp.transpose(x, (1, 0)), (s((2, 3)),)
    yield "reduce", lambda x: (jnp.sum(x, axis=0), jnp.max(x, axis=1)), (s((2, 3)),)
    yield "dot", lambda x, y: jnp.dot(x, y), (s((2, 3)), s((3, 4)))
    yield "slice", lambda x: x[1:3], (s((8,)),)
    yield "dynamic_slice", (lambda x, i: lax.dynamic_slice(x, (i,), (2,))), (s((8,)),
                                                                           s((), jnp.int32))
    yield "dynamic_update_slice", (lambda x, u, i: lax.dynamic_update_slice(x, u, (i,))), (
        s((8,)), s((2,)), s((), jnp.int32))
    yield "concatenate", lambda x, y: jnp.concatenate([x, y]), (s((2,)), s((3,)))
    yield "select", lambda p, x, y: lax.select(p, x, y), (s((4,), jnp.bool_), s((4,)), s((4,)))
    yield "iota", lambda x: x + lax.iota(jnp.float32, 4), (s((4,)),)
    yield "literals", lambda x: (x * 2.0 + 0.5, x * jnp.inf), (s((3,)),)
    yield "jit_call", (lambda x: jax.jit(lambda y: y * 2.0)(x) + 1.0), (s((3,)),)
    yield "scan", (lambda x: lax.scan(lambda c, a: (c + a, c * a), 0.0, x)), (s((5,)),)
    yield "long_binders", lambda *a: a[0], tuple(s((128, 128)) for _ in range(30))
    yield "long_names", (lambda x: sum(jnp.sin(x * i) for i in range(30))), (s((2,)),)

    def sm(f, mesh, in_specs, out_specs, **kw):
        return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, **kw)

    yield "shmap_psum", sm(lambda x: lax.psum(x, "x"), mesh4, P("x"), P()), (s((8,)),)
    yield "shmap_identity_pvary", sm(lambda x: x, mesh4, P(), P("x")), (s((8,)),)
    yield "shmap_all_gather", sm(lambda x, y: lax.all_gather(x, "x") * y, mesh4,
                                 (P("x"), P("x")), P("x")), (s((8,)), s((4, 2)))
    yield "shmap_collectives", sm(
        lambda x: (lax.pmax(x, "x"), lax.pmin(x, "x"), lax.psum_scatter(x, "x", tiled=True),
                   lax.ppermute(x, "x", [(0, 1), (1, 2), (2, 3), (3, 0)]),
                   lax.all_to_all(x, "x", 0, 0, tiled=True), lax.axis_index("x")[None]),
        mesh4, P("x"), (P(), P(), P("x"), P("x"), P("x"), P("x"))), (s((16,)),)
    yield "shmap_2d", sm(lambda x, y: x * 2 + lax.psum(y, "y"), mesh22,
                         (P("x", "y"), P("x", "y")), P("x", "y")), (s((4, 4)), s((4, 4)))
    yield "shmap_nocheck", sm(lambda x: lax.psum(x, "x"), mesh4, P("x"), P(),
                              check_vma=False), (s((8,)),)


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        text = str(jax.make_jaxpr(f)(*args))
        (OUT / f"{name}.txt").write_text(text + "\n")
        print(f"{name}: {len(text.splitlines())} lines")


if __name__ == "__main__":
    main()
