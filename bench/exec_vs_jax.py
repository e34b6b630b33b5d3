"""The executor against jax.jit on the same machine, in the same run.

Each program is traced by JAX itself (jax.make_jaxpr), its jaxpr text parsed by axe and
compiled once (axe.ir.compile); then both run on the same NumPy inputs, interleaved, and the
best of `--repeat` timings of each is kept. The table gives t_jax / t_axe (higher is better
for axe) and the geometric mean; outputs are compared first (within 1e-3 relative, or 1e-4 of the output's largest
magnitude).

    build/venv/bin/python bench/exec_vs_jax.py [--threads N] [--repeat R] [--only NAME]
    build/venv/bin/python bench/exec_vs_jax.py --simd avx2  # both sides on AVX2
    build/venv/bin/python bench/exec_vs_jax.py --memory   # peak bytes against XLA's

Needs the build's Python module (PYTHONPATH=build/release/python) and JAX in the venv
(`make test-jax` installs it). XLA's thread count follows the process's CPUs; pin both with
`taskset -c 0` for a one-thread comparison. The shard_map program runs on 4 host devices: the
script asks XLA for them (--xla_force_host_platform_device_count=4 in XLA_FLAGS); axe runs
each mesh position on a thread of its own.

`--simd avx2` measures both sides as an AVX2 machine would run them, on a CPU with AVX-512:
axe's Highway kernels dispatch to their AVX2 versions (axe._axe.bench.restrict_simd_target),
OpenBLAS loads its Haswell kernels (OPENBLAS_CORETYPE=Haswell, set before it loads) and XLA
compiles for AVX2 at most (--xla_cpu_max_isa=AVX2). The script prints what each side took.
"""

import argparse
import math
import os
import re
import sys
import time

import numpy as np


def programs(jnp, jax, lax):
    rng = np.random.default_rng(0)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def mlp(x, w1, w2, w3):
        h = jax.nn.relu(x @ w1)
        h = jax.nn.relu(h @ w2)
        return h @ w3

    def layernorm(x):
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean((x - mean) ** 2, axis=-1, keepdims=True)
        return (x - mean) * lax.rsqrt(var + 1e-5)

    def chain(x):
        for _ in range(2):
            x = jnp.tanh(x) * 1.5 + 0.25
            x = jnp.exp(-x * x) - x
            x = jnp.maximum(x, 0.1) * x
        return x

    def rnn(h0, xs, wh, wx):
        def step(h, x):
            h = jnp.tanh(h @ wh + x @ wx)
            return h, h
        return lax.scan(step, h0, xs)[0]

    # A data-parallel loss on 4 devices: each device's rows through the layer, the sum of
    # squares psummed over the mesh.
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    @jax.jit
    def dp_loss(x, w):
        def body(xb, w):
            y = xb @ w
            return lax.psum(jnp.sum(y * y), "x")
        return jax.shard_map(body, mesh=mesh, in_specs=(jax.P("x"), jax.P()),
                             out_specs=jax.P())(x, w)

    def conv_layer(x, w):  # a ResNet stage's 3x3 convolution, flax's NHWC layout
        return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    return [
        ("matmul 1024^3", lambda a, b: a @ b, [f32(1024, 1024), f32(1024, 1024)]),
        ("mlp b256 w1024", mlp, [f32(256, 1024), f32(1024, 1024), f32(1024, 1024),
                                 f32(1024, 1024)]),
        ("softmax 4096^2", lambda x: jax.nn.softmax(x, axis=-1), [f32(4096, 4096)]),
        ("layernorm 4096^2", layernorm, [f32(4096, 4096)]),
        ("10 elementwise 2^22", chain, [f32(1 << 22)]),
        # Small weights: a contracting cell, so that rounding differences do not grow over
        # the 1000 steps (with unit weights the recurrence is chaotic).
        ("scan 1000 rnn", rnn, [f32(32), f32(1000, 32), 0.05 * f32(32, 32), 0.05 * f32(32, 32)]),
        ("transpose 4096^2", lambda x: x.T + 0.0, [f32(4096, 4096)]),
        ("column sum 4096^2", lambda x: jnp.sum(x, axis=0), [f32(4096, 4096)]),
        ("conv 8x56x56 64->64 3x3", conv_layer, [f32(8, 56, 56, 64), 0.1 * f32(3, 3, 64, 64)]),
        ("shard_map psum 4 devices", dp_loss, [f32(2048, 256), 0.1 * f32(256, 256)]),
    ]


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def print_memory(name, description, xla_compiled):
    """axe's peak bytes against XLA's memory_analysis(), like with like.

    XLA's figure (arguments + outputs + temporaries - aliased) is one device's: an SPMD
    program is partitioned and analysed per device. So a program with a shard_map compares
    axe's per-device peak (one mesh position's blocks and body values) with it, and axe's
    whole-process peak with XLA's figure times the device count.
    """
    total = int(re.search(r"work \d+, peak (\d+) bytes", description).group(1))
    per_device = re.search(r"per device peak (\d+) bytes on (\d+) devices", description)
    m = xla_compiled.memory_analysis()
    xla = (m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes -
           m.alias_size_in_bytes)
    mib = 2**20
    if per_device is None:
        print(f"{name:24s} axe peak {total / mib:9.2f} MiB   XLA arguments + outputs + "
              f"temporaries {xla / mib:9.2f} MiB   ratio {total / xla:5.2f}", flush=True)
        return
    device, devices = int(per_device.group(1)), int(per_device.group(2))
    print(f"{name:24s} axe per device {device / mib:9.2f} MiB   XLA per device "
          f"{xla / mib:9.2f} MiB   ratio {device / xla:5.2f}   (all {devices} devices: axe "
          f"{total / mib:.2f} MiB, XLA {devices * xla / mib:.2f} MiB, ratio "
          f"{total / (devices * xla):.2f})", flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="")
    parser.add_argument("--plan", action="store_true", help="print axe's plan of each program")
    parser.add_argument("--simd", choices=["default", "avx2"], default="default",
                        help="avx2: restrict axe, OpenBLAS and XLA to AVX2")
    parser.add_argument("--memory", action="store_true",
                        help="compare axe's peak bytes with XLA's memory_analysis() instead of "
                             "timing")
    args = parser.parse_args()
    # The shard_map program runs on 4 host devices: JAX makes them only when told before it
    # starts.
    flags = os.environ.get("XLA_FLAGS", "")
    count = re.search(r"--xla_force_host_platform_device_count=(\d+)", flags)
    if count is None or int(count.group(1)) < 4:
        flags = re.sub(r"--xla_force_host_platform_device_count=\d+", "", flags)
        os.environ["XLA_FLAGS"] = f"{flags} --xla_force_host_platform_device_count=4".strip()
    if args.simd == "avx2":
        # Both read when they load: OpenBLAS when axe's first GEMM opens it, XLA at import.
        os.environ["OPENBLAS_CORETYPE"] = "Haswell"
        os.environ["XLA_FLAGS"] = f"{os.environ['XLA_FLAGS']} --xla_cpu_max_isa=AVX2"
    import jax
    import jax.numpy as jnp
    from jax import lax

    import axe.ir
    from axe._axe import bench

    if args.simd == "avx2":
        bench.restrict_simd_target("AVX2")
    print(f"axe: SIMD {bench.active_simd_target()} (of {', '.join(bench.simd_targets())}), "
          f"OpenBLAS {bench.blas_core() or 'not loaded'}; XLA_FLAGS={os.environ['XLA_FLAGS']}",
          flush=True)

    rows = []
    for name, fn, inputs in programs(jnp, jax, lax):
        if args.only and args.only not in name:
            continue
        text = str(jax.make_jaxpr(fn)(*inputs))
        compiled = axe.ir.compile(axe.ir.parse(text), threads=args.threads)
        if args.plan:
            print(compiled.describe(), file=sys.stderr)
        jitted = jax.jit(fn)
        if args.memory:
            print_memory(name, compiled.describe(), jitted.lower(*inputs).compile())
            continue
        want = [np.asarray(x) for x in jax.tree_util.tree_leaves(jitted(*inputs))]
        got = compiled(*inputs)
        for w, g in zip(want, got):  # relative to the output's scale (sums cancel)
            scale = float(np.max(np.abs(w))) if w.size else 1.0
            np.testing.assert_allclose(g, w, rtol=1e-3, atol=1e-4 * max(scale, 1.0))
        t_jax = t_axe = math.inf
        for _ in range(3):  # interleaved rounds
            t_jax = min(t_jax, best(lambda: jax.block_until_ready(jitted(*inputs)), args.repeat))
            t_axe = min(t_axe, best(lambda: compiled(*inputs), args.repeat))
        rows.append((name, t_jax, t_axe))
        print(f"{name:24s} jax {t_jax * 1e3:9.3f} ms   axe {t_axe * 1e3:9.3f} ms   "
              f"t_jax/t_axe {t_jax / t_axe:6.2f}", flush=True)
    if rows:
        geo = math.exp(sum(math.log(j / a) for _, j, a in rows) / len(rows))
        print(f"{'geometric mean':24s} {'':40s} t_jax/t_axe {geo:6.2f}")


if __name__ == "__main__":
    main()
