"""Writes matmul_2d.hlo and matmul_2d.unpartitioned.hlo, the modules docs/hlo.md walks
through: x @ w on a 2x4 mesh of 8 CPU devices, x split over both axes, w's rows over 'y'.

  XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 examples/hlo/generate.py
"""
import os

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

here = os.path.dirname(os.path.abspath(__file__))
mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
x = jax.ShapeDtypeStruct((32, 64), jnp.float32, sharding=NamedSharding(mesh, P("x", "y")))
w = jax.ShapeDtypeStruct((64, 16), jnp.float32, sharding=NamedSharding(mesh, P("y", None)))
lowered = jax.jit(lambda x, w: x @ w, out_shardings=NamedSharding(mesh, P("x"))).lower(x, w)
compiled = lowered.compile()
with open(os.path.join(here, "matmul_2d.unpartitioned.hlo"), "w") as f:
    f.write(lowered.compiler_ir("hlo").as_hlo_text())
with open(os.path.join(here, "matmul_2d.hlo"), "w") as f:
    # The dump's FileNames table names this script: without this machine's folders.
    f.write(compiled.as_text().replace(here + "/", "examples/hlo/"))
print(compiled.memory_analysis())
