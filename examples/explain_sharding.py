"""A JAX array's sharding in every notation: run with 8 CPU devices, e.g.
XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 examples/explain_sharding.py"""
import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

import axe

mesh = Mesh(np.array(jax.devices()[:8]).reshape(2, 4), ("x", "y"))
x = jax.device_put(jnp.zeros((8, 16)), NamedSharding(mesh, P("x", "y")))
axe.explain(x)
