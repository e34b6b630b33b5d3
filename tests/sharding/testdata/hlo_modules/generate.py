"""Writes the HLO modules `axe hlo` is checked against, and what JAX says about them.

For each program: <name>.hlo (compiled.as_text(): partitioned, per-device shapes), for some
<name>.unpartitioned.hlo (lowered.compiler_ir('hlo').as_hlo_text(): global shapes, before
SPMD partitioning), and an entry in expected.json with compiled.memory_analysis() (argument,
output, alias and temp bytes per device) and, counted here with regular expressions over the
text, every collective's opcode and result shape.

tests/sharding/hlo_module_jax_test.cc compares axe's answers with these.

Run with a CPU JAX (8 host devices), from this folder:
  XLA_FLAGS=--xla_force_host_platform_device_count=8 python3 generate.py
"""
import json
import re
import sys
from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

try:
    from jax import shard_map
except ImportError:  # older JAX
    from jax.experimental.shard_map import shard_map

COLLECTIVE = re.compile(
    r"^\s*(?:ROOT )?%?[\w.\-]+ = (.*?) ((?:all-reduce|all-gather|reduce-scatter|all-to-all|"
    r"collective-permute)(?:-start)?)\(", re.M)


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


def collectives(text):
    return [{"opcode": m.group(2), "shape": m.group(1)} for m in COLLECTIVE.finditer(text)]


def case(name, fn, args, unpartitioned=False, **jit_kwargs):
    lowered = jax.jit(fn, **jit_kwargs).lower(*args)
    compiled = lowered.compile()
    text = strip_debug_tables(compiled.as_text())
    with open(f"{name}.hlo", "w") as f:
        f.write(text)
    m = compiled.memory_analysis()
    entry = {
        "name": name,
        "num_devices": len(compiled.input_shardings[0][0].device_set) if args else 1,
        "argument_size_in_bytes": m.argument_size_in_bytes,
        "output_size_in_bytes": m.output_size_in_bytes,
        "alias_size_in_bytes": m.alias_size_in_bytes,
        "temp_size_in_bytes": m.temp_size_in_bytes,
        "collectives": collectives(text),
    }
    if unpartitioned:
        before = lowered.compiler_ir("hlo").as_hlo_text()
        with open(f"{name}.unpartitioned.hlo", "w") as f:
            f.write(before)
        entry["unpartitioned"] = f"{name}.unpartitioned.hlo"
    return entry


def spec(mesh, p, shape, dtype=jnp.float32):
    return jax.ShapeDtypeStruct(shape, dtype, sharding=NamedSharding(mesh, p))


def programs(devices):
    mesh1 = Mesh(np.array(devices), ("x",))
    mesh2 = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    mesh3 = Mesh(np.array(devices).reshape(2, 2, 2), ("x", "y", "z"))
    sub = Mesh(np.array(devices[4:8]).reshape(2, 2), ("a", "b"))
    out = []

    # 1-D mesh: a data-parallel matmul whose result is gathered by out_shardings.
    out.append(case(
        "matmul_1d", lambda x, w: jnp.tanh(x @ w),
        [spec(mesh1, P("x"), (64, 32)), spec(mesh1, P(), (32, 16))], unpartitioned=True,
        out_shardings=NamedSharding(mesh1, P())))
    # 2-D mesh: the contracting dimension is sharded, so XLA reduces partial sums.
    out.append(case(
        "matmul_2d", lambda x, w: x @ w,
        [spec(mesh2, P("x", "y"), (32, 64)), spec(mesh2, P("y", None), (64, 16))],
        unpartitioned=True, out_shardings=NamedSharding(mesh2, P("x"))))
    # 3-D mesh: a reduction over two mesh axes, bf16 and an int32 input.
    out.append(case(
        "reduce_3d", lambda x, i: (jnp.sum(x, axis=(1, 2)), i * 2),
        [spec(mesh3, P("x", "y", "z"), (8, 16, 32), jnp.bfloat16),
         spec(mesh3, P(("x", "y")), (16,), jnp.int32)]))
    # A sub-mesh: devices 4-7 only.
    out.append(case(
        "submesh", lambda x: jnp.exp(x).sum(axis=0),
        [spec(sub, P("a", "b"), (8, 8))]))

    # shard_map with each collective.
    def smap(f, mesh, in_specs, out_specs):
        return shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs, check_vma=False)

    out.append(case(
        "shard_map_psum", smap(lambda x: jax.lax.psum(x, "x"), mesh1, P("x"), P()),
        [spec(mesh1, P("x"), (16, 4))]))
    out.append(case(
        "shard_map_all_gather",
        smap(lambda x: jax.lax.all_gather(x, "y", tiled=True), mesh2, P("x", "y"), P("x")),
        [spec(mesh2, P("x", "y"), (8, 16))]))
    out.append(case(
        "shard_map_ppermute",
        smap(lambda x: jax.lax.ppermute(x, "x", [(i, (i + 1) % 8) for i in range(8)]),
             mesh1, P("x"), P("x")),
        [spec(mesh1, P("x"), (32, 8))]))
    out.append(case(
        "shard_map_all_to_all",
        smap(lambda x: jax.lax.all_to_all(x, "x", 0, 1, tiled=True), mesh1, P("x"), P("x")),
        [spec(mesh1, P("x"), (64, 64))]))
    out.append(case(
        "shard_map_psum_scatter",
        smap(lambda x: jax.lax.psum_scatter(x, "y", tiled=True), mesh2, P("x"), P("x", "y")),
        [spec(mesh2, P("x"), (8, 32))]))

    # scan over a sharded carry with a per-step reduction.
    def scan_fn(c, xs):
        def body(c, x):
            c = jnp.tanh(c * x)
            return c, jnp.sum(c)
        return jax.lax.scan(body, c, xs)
    out.append(case(
        "scan", scan_fn,
        [spec(mesh1, P("x"), (64,)), spec(mesh1, P(None, "x"), (5, 64))]))
    return out


def main():
    devices = jax.devices()
    if len(devices) < 8:
        sys.exit("needs 8 devices: XLA_FLAGS=--xla_force_host_platform_device_count=8")
    data = {"jax_version": jax.__version__, "programs": programs(devices)}
    with open("expected.json", "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
