"""Writes python/tests/data/jax_more_vectors.json: what the real JAX answers on the random
cases of test_jax_more.py (Pallas interpret-mode outputs, PartitionSpec/Layout/Format reprs,
with_layout_constraint's vmap rule, shapes jaxlib prints and the byte sizes XLA reports), so
that test_jax_more_vectors.py checks axe against them without JAX.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 PYTHONPATH=build/release/python \\
      build/venv/bin/python python/tests/generate_jax_more_vectors.py [seed]
"""

import json
import os
import random
import sys

import jax
import jax.numpy as jnp
import numpy as np
from jax._src.lib import xla_client as xc
from jax.experimental.layout import Format, Layout, with_layout_constraint
from jax.sharding import Mesh, NamedSharding, SingleDeviceSharding

from test_jax_more import (_DTYPES, _jax_partition_spec, _mesh_spec, entry_result_shape,
                           jax_show_program_ids, np_dtype, random_layout, random_pallas_case,
                           random_partition_spec, random_program_source, shapes_in_hlo)


# The spec's [DI-2] (negative window starts), where JAX and the spec differ; axe follows JAX.
_DI_2 = {"shape": [8], "dims": [("blocked", 2)], "grid": [4], "index_map": "(i) -> (i - 1,)"}


def pallas_cases(rng, count, negative):
    out = []
    for n in range(count):
        case = dict(_DI_2) if negative and n == 0 else random_pallas_case(rng, negative)
        result = jax_show_program_ids(case)
        case["dims"] = [list(d) for d in case["dims"]]
        case["out_shape"] = list(result.shape)
        case["out"] = result.reshape(-1).tolist()
        out.append(case)
    return out


def spec_cases(rng, count):
    out = []
    for _ in range(count):
        entries = random_partition_spec(rng)
        p = _jax_partition_spec(entries)
        out.append({"entries": [list(e) if isinstance(e, tuple) else e for e in entries],
                    "repr": repr(p), "str": str(p)})
    return out


def layout_cases(rng, count):
    devices = jax.devices()[:8]
    mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    out = []
    for _ in range(count):
        m2m, tiling, sub_byte = random_layout(rng)
        layout = Layout(m2m, tiling=tiling, sub_byte_element_size_in_bits=sub_byte)
        case = {"major_to_minor": list(m2m),
                "tiling": None if tiling is None else [list(t) for t in tiling],
                "sub_byte": sub_byte, "repr": repr(layout)}
        if rng.random() < 0.5:
            spec = _mesh_spec(rng, len(m2m))
            sharding = NamedSharding(mesh, _jax_partition_spec(spec))
            case["spec"] = [list(e) if isinstance(e, tuple) else e for e in spec]
        else:
            case["device"] = rng.randrange(8)
            sharding = SingleDeviceSharding(devices[case["device"]])
        case["format_repr"] = repr(Format(layout, sharding))
        out.append(case)
    return out


def vmap_cases(rng, count):
    out = []
    for _ in range(count):
        rank = rng.randrange(1, 4)
        shape = tuple(rng.randrange(2, 5) for _ in range(rank))
        m2m = list(range(rank))
        rng.shuffle(m2m)
        in_axis = rng.randrange(0, rank + 1)

        def f(x, m2m=tuple(m2m)):
            return with_layout_constraint(x, Layout(m2m))

        batched_shape = shape[:in_axis] + (3,) + shape[in_axis:]
        out.append({
            "unbatched": str(jax.make_jaxpr(f)(jnp.zeros(shape, jnp.float32))),
            "in_axis": in_axis, "axis_size": 3,
            "batched": str(jax.make_jaxpr(jax.vmap(f, in_axes=in_axis))(
                jnp.zeros(batched_shape, jnp.float32)))})
    return out


def shape_cases(rng, count):
    """Shapes xla_client prints, and shapes found in compiled HLO with XLA's byte sizes."""
    printed = []
    for _ in range(count):
        rank = rng.randrange(0, 5)
        dims = tuple(rng.randrange(0, 300) for _ in range(rank))
        m2m = list(range(rank))
        rng.shuffle(m2m)
        printed.append(str(xc.Shape.array_shape(np_dtype(rng.choice(_DTYPES)), dims,
                                                tuple(m2m))))
    compiled_shapes, sizes = set(), []
    for _ in range(count // 4):
        shape, dtype, body = random_program_source(rng)
        f = eval(f"lambda x: {body}")  # noqa: S307 (our own text)
        try:
            compiled = jax.jit(f).lower(jnp.zeros(shape, np_dtype(dtype))).compile()
        except (TypeError, ValueError, NotImplementedError):
            continue  # an operation JAX does not define on this dtype
        text = compiled.as_text()
        compiled_shapes.update(shapes_in_hlo(text))
        result = entry_result_shape(text)
        stats = compiled.memory_analysis()
        if stats is not None and result is not None:
            sizes.append([result, stats.output_size_in_bytes])
    return {"xla_client": printed, "compiled_hlo": sorted(compiled_shapes),
            "output_bytes": sizes}


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 14
    rng = random.Random(seed)
    sections = {
        "pallas": pallas_cases(rng, 200, negative=False),
        "pallas_negative_starts": pallas_cases(rng, 20, negative=True),
        "partition_specs": spec_cases(rng, 300),
        "layouts": layout_cases(rng, 300),
        "layout_constraint_vmap": vmap_cases(rng, 40),
        "shapes": shape_cases(rng, 300),
    }
    path = os.path.join(os.path.dirname(__file__), "data", "jax_more_vectors.json")
    with open(path, "w") as f:  # one case a line, so that a regeneration diffs readably
        f.write('{"generator":' + json.dumps(f"jax {jax.__version__}, seed {seed}"))
        for name, cases in sections.items():
            if isinstance(cases, dict):
                f.write(f',\n"{name}":' + json.dumps(cases, separators=(",", ":")))
                continue
            f.write(f',\n"{name}":[\n')
            f.write(",\n".join(json.dumps(c, separators=(",", ":")) for c in cases))
            f.write("\n]")
        f.write("}\n")


if __name__ == "__main__":
    main()
