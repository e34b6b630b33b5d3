"""Writes the jaxprs of the executor's MPI collective benchmark (docs/performance.md).

Each program is a shard_map over 4 devices whose body runs `steps` collectives on its f32[2^20]
block in a scan: a psum (scaled by 1/4 so the values stay finite) or a tiled all_gather (the
first block of the gathered f32[2^22] averaged with the carry). The time of one collective is
the difference between the 21-step and the 1-step run, over 20.

    build/venv/bin/python bench/exec_mpi/make_jaxprs.py   # writes <name>_<steps>.txt here
"""

import os
import pathlib

os.environ["XLA_FLAGS"] = "--xla_force_host_platform_device_count=4"

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

N = 1 << 20
mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))


def psums(steps):
    def body(xb):
        def step(c, _):
            return lax.psum(c, "x") * 0.25, None
        return jnp.sum(lax.scan(step, xb, None, length=steps)[0], keepdims=True)
    return jax.shard_map(body, mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"),
                         check_vma=False)


def gathers(steps):
    def body(xb):
        def step(c, _):
            g = lax.all_gather(c, "x", tiled=True)
            return g[:c.shape[0]] * 0.5 + c * 0.5, None
        return jnp.sum(lax.scan(step, xb, None, length=steps)[0], keepdims=True)
    return jax.shard_map(body, mesh=mesh, in_specs=jax.P("x"), out_specs=jax.P("x"),
                         check_vma=False)


here = pathlib.Path(__file__).parent
x = jnp.zeros((4 * N,), jnp.float32)
for name, program in [("psum", psums), ("all_gather", gathers)]:
    for steps in (1, 21):
        (here / f"{name}_{steps}.txt").write_text(str(jax.make_jaxpr(program(steps))(x)))
