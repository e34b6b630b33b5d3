"""The executor (axe.ir.compile) against the real JAX: everyday programs traced by
jax.make_jaxpr, run by jax.jit and by axe on the same seeded inputs. Integers must match
exactly, floats within JAX's own float32 test tolerances (1e-6 relative, plus a small absolute
term scaled to the output for reductions and products). Skips when jax is not importable
(`make test-jax` installs it)."""

import numpy as np
import pytest

import axe.ir

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax


def _programs():
    def f32(rng, *shape):
        return rng.standard_normal(shape).astype(np.float32)

    def i32(rng, *shape):
        return rng.integers(-1000, 1000, size=shape, dtype=np.int32)

    def attention(q, k, v):
        s = q @ k.T / np.float32(np.sqrt(q.shape[-1]))
        return jax.nn.softmax(s, axis=-1) @ v

    def layer(x, w, b):
        return jax.nn.gelu(x @ w + b, approximate=True)

    def stats(x):
        return jnp.mean(x, axis=0), jnp.var(x, axis=1), jnp.max(x), jnp.argmax(x, axis=1)

    def masked(x, y):
        return jnp.where(x > y, x - y, jnp.zeros_like(x)), jnp.clip(x, -0.5, 0.5)

    def hashes(ids):
        return (ids.astype(jnp.uint32) * jnp.uint32(2654435761)) % jnp.uint32(1000)

    def integer_math(a, b):
        return a * b, a // jnp.where(b == 0, 1, b), a % jnp.where(b == 0, 1, b), a**3, -a, abs(a)

    def logsumexp(x):
        return jax.nn.logsumexp(x, axis=-1)

    def rnn(h0, xs, wh, wx):
        def step(h, x):
            h = jnp.tanh(h @ wh + x @ wx)
            return h, h.sum()
        return lax.scan(step, h0, xs)

    def branches(p, x):
        return lax.cond(p > 0, lambda y: jnp.sin(y) * 2, lambda y: jnp.cos(y) - 1, x)

    def shapes(x):
        y = jnp.transpose(x.reshape(4, 6, 5), (2, 0, 1))
        return jnp.concatenate([y[:2], y[3:]], axis=0).sum(axis=(0, 2)), x[::2, 1:4]

    def casts(x):
        return x.astype(jnp.int32), (x * 100).astype(jnp.uint8), x.astype(jnp.bfloat16) * 2

    def exact_gelu(x):  # erfc, then JAX's `copy`
        return jax.nn.gelu(x, approximate=False), jax.grad(
            lambda y: jax.nn.gelu(y, approximate=False).sum())(x)

    def batched(a, b):
        return jnp.einsum("bij,bjk->bik", a, b), jnp.einsum("ij,kj->ik", a[0], b[1].T)

    def pools(x):
        mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
        mn = lax.reduce_window(x, jnp.inf, lax.min, (1, 2, 2, 1), (1, 1, 1, 1), "VALID")
        return mx, mn, lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4

    def pool_grads(x):  # select_and_scatter_add and reduce_window_sum's pad-based transpose
        def loss(y):
            mx = lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), "SAME")
            av = lax.reduce_window(y, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "SAME")
            return (mx**2).sum() + jnp.sin(av).sum()
        return jax.grad(loss)(x)

    def int_pools(a):
        return (lax.reduce_window(a * 3000000, 0, lax.add, (2, 3), (1, 2), "SAME"),
                lax.reduce_window(a, jnp.iinfo(jnp.int32).min, lax.max, (3, 3), (2, 2), "VALID"))

    return [
        ("pooling", pools, lambda r: [f32(r, 2, 17, 16, 8)]),
        ("pooling grads", pool_grads, lambda r: [f32(r, 2, 16, 15, 4)]),
        ("integer pooling", int_pools, lambda r: [i32(r, 21, 30)]),
        ("attention", attention, lambda r: [f32(r, 16, 32), f32(r, 24, 32), f32(r, 24, 8)]),
        ("gelu layer", layer, lambda r: [f32(r, 8, 64), f32(r, 64, 48), f32(r, 48)]),
        ("stats", stats, lambda r: [f32(r, 33, 17)]),
        ("masked", masked, lambda r: [f32(r, 5, 7), f32(r, 5, 7)]),
        ("hashes", hashes, lambda r: [i32(r, 64)]),
        ("integer math", integer_math, lambda r: [i32(r, 40), i32(r, 40)]),
        ("logsumexp", logsumexp, lambda r: [f32(r, 9, 300)]),
        ("rnn scan", rnn, lambda r: [f32(r, 8), f32(r, 20, 8), 0.3 * f32(r, 8, 8),
                                     0.3 * f32(r, 8, 8)]),
        ("cond", branches, lambda r: [np.float32(1.0), f32(r, 6)]),
        ("cond false", branches, lambda r: [np.float32(-1.0), f32(r, 6)]),
        ("shapes", shapes, lambda r: [f32(r, 24, 5)]),
        ("casts", casts, lambda r: [f32(r, 50)]),
        ("batched dots", batched, lambda r: [f32(r, 3, 4, 5), f32(r, 3, 5, 4)]),
        ("exact gelu and its grad", exact_gelu, lambda r: [f32(r, 40)]),
    ]


@pytest.mark.parametrize("name,fn,make", _programs(), ids=[p[0] for p in _programs()])
def test_executor_gives_jax_values(name, fn, make):
    rng = np.random.default_rng(abs(hash(name)) % (2**32))
    args = make(rng)
    compiled = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(fn)(*args))))
    want = [np.asarray(x) for x in jax.tree_util.tree_leaves(jax.jit(fn)(*args))]
    got = compiled(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (name, g.dtype, w.dtype)
        if np.issubdtype(w.dtype, np.integer) or w.dtype == np.bool_:
            np.testing.assert_array_equal(g, w, err_msg=name)
        else:
            g64, w64 = g.astype(np.float64), w.astype(np.float64)
            scale = max(1.0, float(np.max(np.abs(w64)))) if w.size else 1.0
            tol = 1e-2 if w.dtype.itemsize == 2 else 1e-6
            np.testing.assert_allclose(g64, w64, rtol=tol, atol=tol * scale * 4, err_msg=name)
