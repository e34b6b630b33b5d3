"""Writes jax_shardings.json: what the real JAX says about seeded random NamedShardings.

For each case: the mesh (axis names, sizes, device order), the PartitionSpec, a global shape,
and JAX's answers: repr, the HLO sharding it lowers to (`_to_xla_hlo_sharding`), the shard
shape, `devices_indices_map`, and (every fourth case) the Shardy attributes of a jitted
identity's parameter as JAX prints them. tests/sharding/jax_differential_test.cc compares
axe's answers with these.

Run with a CPU JAX (8 host devices):
  XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 generate_jax_shardings.py
"""
import json
import random
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

SEED = 20261124
CASES = 160


def random_case(rng):
    sizes, names = [], []
    for j in range(rng.randrange(0, 4)):
        sizes.append(rng.choice([1, 2, 2, 4]))
        names.append("xyz"[j])
    while int(np.prod(sizes or [1])) > 8:
        sizes[sizes.index(max(sizes))] //= 2
    n = int(np.prod(sizes or [1]))
    order = list(range(n))
    if rng.random() < 0.5:
        rng.shuffle(order)
    rank = rng.randrange(1, 4)
    entries = [[] for _ in range(rank)]
    axes = list(range(len(names)))
    rng.shuffle(axes)
    for a in axes:
        d = rng.randrange(0, rank + 1)
        if d < rank:
            entries[d].append(names[a])
    pieces = [int(np.prod([sizes[names.index(a)] for a in e] or [1])) for e in entries]
    shape = [p * rng.randrange(1, 4) for p in pieces]
    return names, sizes, order, entries, shape


def spec_of(entries):
    return P(*[None if not e else (e[0] if len(e) == 1 else tuple(e)) for e in entries])


def main():
    rng = random.Random(SEED)
    devices = jax.devices()
    cases = []
    for k in range(CASES):
        names, sizes, order, entries, shape = random_case(rng)
        mesh = Mesh(np.array([devices[i] for i in order]).reshape(sizes), tuple(names))
        s = NamedSharding(mesh, spec_of(entries))
        index_map = s.devices_indices_map(tuple(shape))
        boxes = {}
        for dev, idx in index_map.items():
            boxes[str(dev.id)] = [[sl.start or 0, shape[i] if sl.stop is None else sl.stop]
                                  for i, sl in enumerate(idx)]
        case = {
            "mesh_axes": names, "mesh_sizes": sizes, "devices": order,
            "spec": entries, "shape": shape, "repr": repr(s),
            "hlo": str(s._to_xla_hlo_sharding(len(shape))),
            "shard_shape": list(s.shard_shape(tuple(shape))),
            "devices_indices_map": boxes,
        }
        if k % 4 == 0:
            text = jax.jit(lambda x: x, in_shardings=s).lower(
                jnp.zeros(shape, jnp.float32)).as_text()
            mesh_line = re.search(r"sdy\.mesh @\w+ = <[^>]*>", text)
            arg = re.search(r"%arg0: tensor<[^>]*> \{sdy\.sharding = (#sdy\.sharding<[^>]*>)", text)
            case["shardy_mesh"] = mesh_line.group(0) if mesh_line else None
            case["shardy"] = arg.group(1) if arg else None
        cases.append(case)
    json.dump({"jax_version": jax.__version__, "seed": SEED, "cases": cases}, sys.stdout,
              indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
