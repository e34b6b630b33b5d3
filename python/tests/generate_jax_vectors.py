"""Writes python/tests/data/jax_sharding_vectors.json: random NamedShardings with what the
real JAX says about them (devices_indices_map, the HLO sharding it lowers to, shard_shape,
repr), so that test_jax_vectors.py checks axe against JAX's answers without JAX.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=build/release/python \\
      build/venv/bin/python python/tests/generate_jax_vectors.py [seed] [count]
"""

import json
import os
import random
import sys

import jax

from test_jax import _boxes, random_sharding


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 14
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 150
    rng = random.Random(seed)
    devices = jax.devices()[:8]
    cases = []
    for _ in range(count):
        s, shape = random_sharding(rng, devices)
        boxes = _boxes(s.devices_indices_map(shape), shape)
        cases.append({
            "axis_names": list(s.mesh.axis_names),
            "devices": [[d.id for d in row] for row in s.mesh.devices.reshape(
                -1, s.mesh.devices.shape[-1])],
            "mesh_shape": list(s.mesh.devices.shape),
            "spec": [e if e is None or isinstance(e, str) else list(e) for e in s.spec],
            "shape": list(shape),
            "repr": repr(s),
            "hlo": str(s._to_xla_hlo_sharding(len(shape))),
            "shard_shape": list(s.shard_shape(shape)),
            "boxes": {str(d): [list(b) for b in box] for d, box in sorted(boxes.items())},
        })
    out = {"generator": f"jax {jax.__version__}, seed {seed}", "cases": cases}
    path = os.path.join(os.path.dirname(__file__), "data", "jax_sharding_vectors.json")
    with open(path, "w") as f:  # one case a line, so that a regeneration diffs readably
        f.write('{"generator":' + json.dumps(out["generator"]) + ',"cases":[\n')
        f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
        f.write("\n]}\n")


if __name__ == "__main__":
    main()
