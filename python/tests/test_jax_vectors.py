"""axe against answers the real JAX gave (python/tests/data, written by
generate_jax_vectors.py): runs without JAX."""

import json
import os

import numpy as np

import axe
from axe.sharding import Mesh, NamedSharding, P

DATA = os.path.join(os.path.dirname(__file__), "data", "jax_sharding_vectors.json")


def _entry(e):
    return tuple(e) if isinstance(e, list) else e


def test_recorded_jax_shardings():
    with open(DATA) as f:
        vectors = json.load(f)
    assert len(vectors["cases"]) >= 100
    for case in vectors["cases"]:
        devices = np.array(case["devices"]).reshape(case["mesh_shape"])
        s = NamedSharding(Mesh(devices, tuple(case["axis_names"])),
                          P(*[_entry(e) for e in case["spec"]]))
        shape = tuple(case["shape"])
        context = case["repr"] + f" on {shape}"
        assert str(s._to_xla_hlo_sharding(len(shape))) == case["hlo"], context
        assert list(s.shard_shape(shape)) == case["shard_shape"], context
        boxes = {str(d): [list(sl.indices(n)[:2]) for sl, n in zip(index, shape)]
                 for d, index in s.devices_indices_map(shape).items()}
        assert boxes == case["boxes"], context
        assert NamedSharding.parse(case["repr"]).spec == s.spec, context
        # axe's own repr leaves out what JAX always prints (Auto axis types, memory kind).
        assert axe.sharding.NamedSharding.parse(repr(s)) == s, context
