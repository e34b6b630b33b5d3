"""Writes jax_programs.json: what the real JAX says about shardings as programs have them.

* partitioned: jitted programs whose arguments are sharded, with the HLO text before
  partitioning (lowered.as_text(dialect="hlo"): global shapes) and after
  (compiled.as_text(): per-device shapes, `num_partitions=N`, an `..._spmd` entry), and for
  each argument its global shape, HLO sharding and devices_indices_map.
* single_device: SingleDeviceSharding on device 3: repr, the Shardy attributes JAX lowers it
  to, devices_indices_map for a matrix and a scalar.
* device_meshes: meshes over device ids that are not 0..N-1 (devices 4-7, devices 5-7, a
  permuted 2x2 on 4-7): repr (which does not show the ids), HLO sharding, devices_indices_map.

tests/sharding/jax_programs_test.cc and tests/cli/ compare axe's answers with these.

Run with a CPU JAX (8 host devices):
  XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 generate_jax_programs.py
"""
import json
import re
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P, SingleDeviceSharding


def index_map(sharding, shape):
    out = {}
    for device, index in sharding.devices_indices_map(tuple(shape)).items():
        out[str(device.id)] = [list(s.indices(n))[:2] for s, n in zip(index, shape)]
    return out


def strip_debug_tables(text):
    """compiled.as_text() lists file names and stack frames before the computations."""
    keep, skipping = [], False
    for line in text.splitlines():
        if line in ("FileNames", "FunctionNames", "FileLocations", "StackFrames"):
            skipping = True
            continue
        if skipping and (line == "" or re.match(r"^\d+ ", line)):
            continue
        skipping = False
        keep.append(line)
    return "\n".join(keep).strip() + "\n"


def partitioned_case(name, fn, args):
    lowered = jax.jit(fn).lower(*args)
    compiled = lowered.compile()
    return {
        "name": name,
        "before": lowered.as_text(dialect="hlo"),
        "after": strip_debug_tables(compiled.as_text()),
        "arguments": [{
            "shape": list(a.shape),
            "hlo": str(a.sharding._to_xla_hlo_sharding(len(a.shape))),
            "devices_indices_map": index_map(a.sharding, a.shape),
        } for a in args],
    }


def partitioned(devices):
    mesh4 = Mesh(np.array(devices[:4]), ("x",))
    mesh24 = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    w = jax.ShapeDtypeStruct((128, 256), jnp.float32, sharding=NamedSharding(mesh4, P(None, "x")))
    a = jax.ShapeDtypeStruct((8, 6), jnp.float32, sharding=NamedSharding(mesh24, P("y")))
    b = jax.ShapeDtypeStruct((6, 4), jnp.float32, sharding=NamedSharding(mesh24, P(None, "x")))
    c = jax.ShapeDtypeStruct((16, 8), jnp.bfloat16,
                             sharding=NamedSharding(mesh24, P(("x", "y"), None)))
    return [
        partitioned_case("weight", jnp.sin, [w]),
        partitioned_case("matmul", lambda a, b: (a @ b, a + 1), [a, b]),
        partitioned_case("two_axes", lambda c, b: (c * 2, b), [c, b]),
    ]


def single_device(devices):
    s = SingleDeviceSharding(devices[3])
    lowered = jax.jit(lambda x: x * 2).lower(jax.ShapeDtypeStruct((4, 4), jnp.float32, sharding=s))
    text = lowered.as_text()
    return {
        "repr": repr(s),
        "hlo": str(s._to_xla_hlo_sharding(2)),
        "shardy_mesh": re.search(r"sdy\.mesh @\w+ = <[^>]*>", text).group(0),
        "shardy": re.search(r"#sdy\.sharding<[^>]*>", text).group(0),
        "num_devices": len(s.device_set),
        "devices_indices_map": index_map(s, (4, 4)),
        "scalar_devices_indices_map": index_map(s, ()),
    }


def device_meshes(devices):
    cases = []
    for ids, sizes, names, spec, shape in [
        ([4, 5, 6, 7], [4], ("x",), P("x"), [8, 2]),
        ([5, 6, 7], [3], ("x",), P("x"), [6]),
        ([5, 6, 7], [3], ("x",), P(None, "x"), [2, 3]),
        ([7, 5, 6, 4], [2, 2], ("x", "y"), P("y", "x"), [4, 4]),
        ([3, 1, 2, 0], [4], ("x",), P("x"), [4]),
    ]:
        mesh = Mesh(np.array([devices[i] for i in ids]).reshape(sizes), names)
        s = NamedSharding(mesh, spec)
        cases.append({
            "devices": ids,
            "mesh_axes": list(names),
            "mesh_sizes": sizes,
            "spec": [[] if e is None else [e] for e in spec],
            "shape": shape,
            "repr": repr(s),
            "hlo": str(s._to_xla_hlo_sharding(len(shape))),
            "devices_indices_map": index_map(s, shape),
        })
    return cases


def main():
    devices = jax.devices()
    if len(devices) < 8:
        sys.exit("needs 8 devices: XLA_FLAGS=--xla_force_host_platform_device_count=8")
    data = {
        "jax_version": jax.__version__,
        "partitioned": partitioned(devices),
        "single_device": single_device(devices),
        "device_meshes": device_meshes(devices),
    }
    with open("jax_programs.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
