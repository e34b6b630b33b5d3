#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_ad/ with the real JAX: for each case, the forward jaxpr
(<name>.fwd.txt), the gradient's values at fixed arguments (<name>.grad_values.txt), JAX's
gradient of it (<name>.grad.txt, jax.grad over every argument) and
JAX's vmap of it (<name>.vmap.txt, every argument mapped at axis 0, size 3); the shard_map
case has only its forward text (JAX's gradient of it shows `reshard`, outside axe's set).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 /tmp/jaxenv/bin/python generate_ad.py

axe's Grad / Vmap of the forward text must compute what JAX's texts compute (grad_test.cc,
vmap_test.cc evaluate both).
"""
import os
import pathlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

OUT = pathlib.Path(__file__).parent / "jax_ad"
f32 = jnp.float32


def s(shape):
    return jax.ShapeDtypeStruct(shape, f32)


def cases():
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))
    yield "tanh_dot", (lambda w, x: jnp.sum(jnp.tanh(x @ w))), (s((3,)), s((4, 3)))
    yield "exp_log_div", (lambda x, y: jnp.sum(jnp.exp(x) / y + jnp.log(y))), (s((4,)), s((4,)))
    yield "max_transpose", (lambda x: jnp.sum(jnp.maximum(x.T, 1.0) * 2.0)), (s((2, 3)),)
    yield "cond", (lambda x: lax.cond(jnp.sum(x) > 3.0, lambda v: jnp.sum(jnp.sin(v)),
                                      lambda v: jnp.sum(v * v), x)), (s((4,)),)

    def scan_loss(x):
        c, ys = lax.scan(lambda c, e: (c * 0.5 + e, c * e), 1.0, x)
        return c + jnp.sum(ys)
    yield "scan", scan_loss, (s((5,)),)

    def dp_loss(w, x):
        def body(w, x):
            y = x @ w
            return lax.psum(jnp.sum(y * y), "x")
        return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)
    yield "shmap_dp_loss", dp_loss, (s((4,)), s((16, 4)))


def fixed_args(args):
    """Argument k, element i: 0.5 + ((7 i + 3 k) mod 11) / 8 (the test computes the same)."""
    out = []
    for k, a in enumerate(args):
        n = int(np.prod(a.shape))
        v = [0.5 + ((7 * i + 3 * k) % 11) / 8 for i in range(n)]
        out.append(np.array(v, np.float32).reshape(a.shape))
    return out


def write_values(name, f, args, argnums):
    """<name>.grad_values.txt: JAX's gradient at fixed_args, one line per argument."""
    grads = jax.grad(f, argnums=argnums)(*fixed_args(args))
    lines = [" ".join(repr(float(x)) for x in np.asarray(g).ravel()) for g in grads]
    (OUT / f"{name}.grad_values.txt").write_text("\n".join(lines) + "\n")


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        argnums = tuple(range(len(args)))
        fwd = jax.make_jaxpr(f)(*args)
        (OUT / f"{name}.fwd.txt").write_text(f"{fwd}\n")
        write_values(name, f, args, argnums)
        if not name.startswith("shmap"):  # JAX's shard_map gradient shows `reshard`
            grad = jax.make_jaxpr(jax.grad(f, argnums=argnums))(*args)
            (OUT / f"{name}.grad.txt").write_text(f"{grad}\n")
            batched = [jax.ShapeDtypeStruct((3, *a.shape), a.dtype) for a in args]
            vm = jax.make_jaxpr(jax.vmap(f))(*batched)
            (OUT / f"{name}.vmap.txt").write_text(f"{vm}\n")


if __name__ == "__main__":
    main()
