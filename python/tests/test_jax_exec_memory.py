"""The executor's peak memory (the plan's figure in compiled.describe()) against XLA's for the
same programs: arguments + outputs + temporaries - aliases, as
jax.jit(f).lower(...).compile().memory_analysis() reports them. axe may hold at most 1.2 times
as much. Skips when jax is not importable (`make test-jax` installs it)."""

import re

import numpy as np
import pytest

import axe.ir

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax


def _programs():
    rng = np.random.default_rng(3)

    def f32(*shape):
        return rng.standard_normal(shape).astype(np.float32)

    def conv(x, w):  # flax's NHWC by HWIO
        return lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                        dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def rnn(h0, xs, wh, wx):  # the ys are built by the scan and read by nothing
        def step(h, x):
            h = jnp.tanh(h @ wh + x @ wx)
            return h, h
        return lax.scan(step, h0, xs)[0]

    def mlp(x, w1, w2):
        return jax.nn.relu(jax.nn.relu(x @ w1) @ w2) @ w2

    def softmax(x):
        return jax.nn.softmax(x, axis=-1)

    def transpose_add(x):
        return x.T + 1.0

    def loss(x, w):  # the product only the sum of squares reads: XLA never forms it
        return jnp.sum((x @ w) ** 2)

    return [
        ("conv", conv, [f32(4, 32, 32, 32), 0.1 * f32(3, 3, 32, 32)]),
        ("rnn", rnn, [f32(32), f32(500, 32), 0.05 * f32(32, 32), 0.05 * f32(32, 32)]),
        ("mlp", mlp, [f32(128, 256), f32(256, 256), f32(256, 256)]),
        ("softmax", softmax, [f32(256, 512)]),
        ("transpose_add", transpose_add, [f32(384, 256)]),
        ("loss", loss, [f32(512, 256), 0.1 * f32(256, 256)]),
    ]


@pytest.mark.parametrize("name,fn,args", _programs(), ids=[p[0] for p in _programs()])
def test_peak_memory_is_within_1_2x_of_xla(name, fn, args):
    compiled = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(fn)(*args))))
    peak = int(re.search(r"work \d+, peak (\d+) bytes", compiled.describe()).group(1))
    m = jax.jit(fn).lower(*args).compile().memory_analysis()
    xla = (m.argument_size_in_bytes + m.output_size_in_bytes + m.temp_size_in_bytes -
           m.alias_size_in_bytes)
    assert peak <= 1.2 * xla, f"{name}: axe {peak} bytes, XLA {xla}\n{compiled.describe()}"
    want = [np.asarray(x) for x in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    for w, g in zip(want, compiled(*args)):
        np.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(w).max())))
