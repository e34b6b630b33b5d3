"""sort, top_k, remat2 (jax.checkpoint) and reshard against the real JAX, live: each program is
traced by jax.make_jaxpr, re-printed by axe character for character, run by axe's executor
and compared with jax.jit's values (sorted values bit for bit: NaN placement and the sign of
zeros count), and axe's grad and vmap of it compared with jax.grad's and jax.vmap's. Skips
when jax is not importable; XLA_FLAGS must give 8 host devices for the shard_map case."""

import numpy as np
import pytest

import axe.ir as ir

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax
P = jax.sharding.PartitionSpec

SPECIAL = np.array([3.0, -0.0, 0.0, np.nan, -np.inf, 1.0, -1.0, -np.nan, 0.0, np.inf, -0.0],
                   np.float32)


def _ties(rng, *shape):
    """Floats with many repeated values (ties in sort and top_k)."""
    return (rng.integers(-3, 4, size=shape) * 0.5).astype(np.float32)


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _programs():
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def shmap_loss(w, x):
        def body(w, x):
            return lax.psum(jnp.sum(jnp.tanh(x @ w)), "x")
        return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)

    return [
        ("sort", jnp.sort, lambda r: [_f32(r, 5, 7)]),
        ("sort axis 0", lambda x: jnp.sort(x, axis=0), lambda r: [_ties(r, 6, 3)]),
        ("argsort ties", lambda x: (jnp.sort(x), jnp.argsort(x)), lambda r: [_ties(r, 4, 9)]),
        ("argsort descending", lambda x: jnp.argsort(x, descending=True),
         lambda r: [_ties(r, 12)]),
        ("special floats", lambda x: (jnp.sort(x), jnp.argsort(x), lax.top_k(x, 11)),
         lambda r: [SPECIAL]),
        ("int sort", lambda x: (jnp.sort(x), jnp.argsort(x, axis=0)),
         lambda r: [r.integers(-2**31, 2**31, size=(5, 4), dtype=np.int32)]),
        ("uint8 top_k", lambda x: lax.top_k(x, 3), lambda r: [r.integers(0, 5, (4, 6), np.uint8)]),
        ("lexicographic", lambda a, b, c: lax.sort((a, b, c), dimension=1, num_keys=2),
         lambda r: [_ties(r, 3, 8), _ties(r, 3, 8), _f32(r, 3, 8)]),
        ("top_k", lambda x: lax.top_k(x, 4), lambda r: [_ties(r, 3, 10)]),
        ("top_k axis 0", lambda x: lax.top_k(x, 2, axis=0), lambda r: [_f32(r, 5, 3)]),
        ("checkpoint", jax.checkpoint(lambda x: jnp.sin(jnp.cos(x)) * x), lambda r: [_f32(r, 6)]),
        ("checkpoint dots", jax.checkpoint(lambda x, w: jnp.tanh(x @ w),
                                           policy=jax.checkpoint_policies.dots_saveable),
         lambda r: [_f32(r, 4, 3), _f32(r, 3, 5)]),
        ("checkpoint sort", jax.checkpoint(lambda x: jnp.sort(jnp.exp(x)) * x,
                                           policy=jax.checkpoint_policies.nothing_saveable),
         lambda r: [_f32(r, 7)]),
        ("shard_map loss", shmap_loss, lambda r: [_f32(r, 3), _f32(r, 8, 3)]),
    ]


PROGRAMS = _programs()


def _assert_same(got, want, exact, what):
    assert got.dtype == want.dtype and got.shape == want.shape, (what, got.dtype, want.dtype)
    if exact or not np.issubdtype(want.dtype, np.floating):
        np.testing.assert_array_equal(got, want, err_msg=what)
        if np.issubdtype(want.dtype, np.floating):
            np.testing.assert_array_equal(np.signbit(got), np.signbit(want), err_msg=what)
    else:
        np.testing.assert_allclose(got, want, rtol=2e-5, atol=2e-6, err_msg=what)


def _outs(x):
    return [np.asarray(v) for v in jax.tree_util.tree_leaves(x)]


@pytest.mark.parametrize("name,fn,make", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_text_values_and_executor(name, fn, make):
    args = make(np.random.default_rng(sum(map(ord, name))))
    text = str(jax.make_jaxpr(fn)(*args))
    jaxpr = ir.parse(text)
    assert str(jaxpr) == text
    exact = not name.startswith(("checkpoint", "shard_map"))
    want = _outs(jax.jit(fn)(*args))
    got = ir.compile(jaxpr)(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _assert_same(g, w, exact, name)


def _float_loss(fn):
    def loss(*xs):
        return sum(jnp.sum(jnp.sin(v)) for v in jax.tree_util.tree_leaves(fn(*xs))
                   if v.dtype == jnp.float32)
    return loss


@pytest.mark.parametrize("name,fn,make", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_grad_gives_jax_grad(name, fn, make):
    args = make(np.random.default_rng(sum(map(ord, name))))
    if name == "special floats" or any(a.dtype != np.float32 for a in args) or not any(
            o.dtype == np.float32 for o in _outs(fn(*args))):
        pytest.skip("no float gradient (integers, or NaN on purpose)")
    loss = _float_loss(fn)
    argnums = tuple(range(len(args)))
    want = _outs(jax.grad(loss, argnums=argnums)(*args))
    jaxpr = ir.parse(str(jax.make_jaxpr(loss)(*args)))
    got = ir.eval(ir.grad(jaxpr, argnums=argnums), *args)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=name)


@pytest.mark.parametrize("name,fn,make", PROGRAMS, ids=[p[0] for p in PROGRAMS])
def test_vmap_gives_jax_vmap(name, fn, make):
    if name == "shard_map loss":
        pytest.skip("vmap of a shard_map over a mesh axis: not this family's")
    rng = np.random.default_rng(sum(map(ord, name)))
    copies = [make(rng) for _ in range(3)]
    stacked = [np.stack(c) for c in zip(*copies)]
    want = _outs(jax.vmap(fn)(*stacked))
    jaxpr = ir.parse(str(jax.make_jaxpr(fn)(*copies[0])))
    got = ir.eval(ir.vmap(jaxpr, axis_size=3), *stacked)
    for g, w in zip(got, want):
        _assert_same(g, w, not name.startswith("checkpoint"), name)


def test_reshard_runs_on_the_runtimes_devices():
    mesh = jax.make_mesh((4,), ("x",), axis_types=(jax.sharding.AxisType.Auto,))

    def loss(w, x):
        def body(w, x):
            return lax.psum(jnp.sum(jnp.sin(x * w)), "x")
        return jax.shard_map(body, mesh=mesh, in_specs=(P(), P("x")), out_specs=P())(w, x)

    rng = np.random.default_rng(5)
    args = [_f32(rng, 2), _f32(rng, 8, 2)]
    text = str(jax.make_jaxpr(jax.grad(loss, argnums=(0, 1)))(*args))
    assert "reshard" in text
    jaxpr = ir.parse(text)
    want = _outs(jax.grad(loss, argnums=(0, 1))(*args))
    for backend in ("host", "threads"):
        got = ir.eval(jaxpr, *args, backend=backend)
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=backend)
