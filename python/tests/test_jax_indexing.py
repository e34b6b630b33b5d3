"""gather and the scatter family against the real JAX: integer-array indexing, jnp.take in its
modes, take_along_axis, embedding lookups and x.at[i].set/add/mul/min/max, traced by
jax.make_jaxpr and run by axe's executor on the same inputs as jax.jit; then their gradients
(axe.ir.grad of the traced loss against jax.grad) and vmaps (axe.ir.vmap against jax.vmap).
Skips when jax is not importable (`make test-jax` installs it)."""

import numpy as np
import pytest

import axe.ir

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")


def _f32(rng, *shape):
    return rng.standard_normal(shape).astype(np.float32)


def _ids(rng, high, *shape, low=0, dtype=np.int32):
    return rng.integers(low, high, size=shape).astype(dtype)


# name, function, inputs (the float ones are differentiated), whether axe.ir.vmap is checked.
def _programs():
    return [
        ("embedding", lambda t, ids: t[ids], lambda r: [_f32(r, 50, 8), _ids(r, 50, 4, 6)]),
        ("embedding u8 ids", lambda t, ids: t[ids],
         lambda r: [_f32(r, 20, 3), _ids(r, 20, 9, dtype=np.uint8)]),
        ("negative rows", lambda x, i: x[i], lambda r: [_f32(r, 7, 5), _ids(r, 7, 10, low=-7)]),
        ("two axes", lambda x, i, j: x[i, :, j],
         lambda r: [_f32(r, 6, 2, 5), _ids(r, 6, 4), _ids(r, 5, 4)]),
        ("take clip", lambda x, i: jnp.take(x, i, axis=1, mode="clip"),
         lambda r: [_f32(r, 3, 6), _ids(r, 12, 8, low=-6)]),
        ("take fill", lambda x, i: jnp.take(x, i, axis=0, mode="fill", fill_value=-1.5),
         lambda r: [_f32(r, 6, 4), _ids(r, 12, 8, low=-9)]),
        ("take_along_axis", lambda x, i: jnp.take_along_axis(x, i, axis=1),
         lambda r: [_f32(r, 5, 7), _ids(r, 7, 5, 3)]),
        ("at set", lambda x, i, v: x.at[i].set(v),
         lambda r: [_f32(r, 9, 3), _ids(r, 9, 12), _f32(r, 12, 3)]),
        ("at add", lambda x, i, v: x.at[i].add(v),
         lambda r: [_f32(r, 9, 3), _ids(r, 9, 12, low=-9), _f32(r, 12, 3)]),
        ("at add drop", lambda x, i, v: x.at[i].add(v, mode="drop"),
         lambda r: [_f32(r, 9), _ids(r, 14, 12, low=-12), _f32(r, 12)]),
        ("at mul", lambda x, i, v: x.at[i].mul(v, unique_indices=True),
         lambda r: [_f32(r, 9), np.array([7, 1, 4], np.int32), _f32(r, 3)]),
        ("at min", lambda x, i, v: x.at[i].min(v),
         lambda r: [_f32(r, 9, 2), _ids(r, 9, 12), _f32(r, 12, 2)]),
        ("at max", lambda x, i, v: x.at[i].max(v),
         lambda r: [_f32(r, 9, 2), _ids(r, 9, 12), _f32(r, 12, 2)]),
        ("at add int", lambda x, i, v: x.at[i].add(v),
         lambda r: [_ids(r, 2**31 - 1, 9, low=-2**31), _ids(r, 9, 12),
                    _ids(r, 2**31 - 1, 12, low=-2**31)]),
        ("at max int", lambda x, i, v: x.at[i].max(v),
         lambda r: [_ids(r, 100, 9, low=-100), _ids(r, 9, 12), _ids(r, 100, 12, low=-100)]),
    ]


def _close(got, want, name):
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (name, got.dtype, want.dtype)
    if np.issubdtype(want.dtype, np.integer) or want.dtype == np.bool_:
        np.testing.assert_array_equal(got, want, err_msg=name)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)


_PROGRAMS = _programs()
_IDS = [p[0] for p in _PROGRAMS]


def _inputs(name, make):
    return make(np.random.default_rng(sum(map(ord, name))))


@pytest.mark.parametrize("name,fn,make", _PROGRAMS, ids=_IDS)
def test_executor_gives_jax_values(name, fn, make):
    args = _inputs(name, make)
    compiled = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(fn)(*args))))
    want = jax.tree_util.tree_leaves(jax.jit(fn)(*args))
    got = compiled(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w, name)


@pytest.mark.parametrize("name,fn,make", _PROGRAMS, ids=_IDS)
def test_grad_gives_jax_gradients(name, fn, make):
    args = _inputs(name, make)
    argnums = tuple(k for k, a in enumerate(args) if np.asarray(a).dtype == np.float32)
    if not argnums:
        pytest.skip("no float input")

    def loss(*xs):
        return jnp.sum(jnp.sin(fn(*xs)))

    program = axe.ir.grad(axe.ir.parse(str(jax.make_jaxpr(loss)(*args))), argnums=argnums)
    got = axe.ir.compile(program)(*args)
    want = jax.grad(loss, argnums=argnums)(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w, name)


@pytest.mark.parametrize("name,fn,make", _PROGRAMS, ids=_IDS)
def test_vmap_gives_jax_values(name, fn, make):
    # Three copies of the inputs, the indices shifted by one per copy.
    args = _inputs(name, make)
    stacked = [np.stack([a + (np.asarray(a).dtype.type(k)) for k in range(3)]) for a in args]
    program = axe.ir.vmap(axe.ir.parse(str(jax.make_jaxpr(fn)(*args))), axis_size=3)
    got = axe.ir.compile(program)(*stacked)
    want = jax.tree_util.tree_leaves(jax.jit(jax.vmap(fn))(*stacked))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        _close(g, w, name)


@pytest.mark.parametrize("in_axes", [(None, 0, 0), (0, 0, None), (0, None, 0), (1, 0, 0)])
def test_vmap_of_dynamic_slice_with_batched_starts_is_jaxs(in_axes):
    """vmap of dynamic_slice whose start indices are batched: JAX turns it into a gather (CLIP
    mode, so starts past the end are clamped as dynamic_slice clamps them)."""
    def f(x, i, j):
        return jax.lax.dynamic_slice(x, (i, j), (2, 3))

    x = np.arange(6 * 7, dtype=np.float32).reshape(6, 7)
    xs = np.stack([x, x + 100, x + 200]) if in_axes[0] == 0 else (
        np.stack([x, x + 100, x + 200], axis=1) if in_axes[0] == 1 else x)
    i = np.array([0, 4, 9], np.int32) if in_axes[1] == 0 else np.int32(1)
    j = np.array([5, -2, 2], np.int32) if in_axes[2] == 0 else np.int32(3)
    x0 = xs[0] if in_axes[0] == 0 else (xs[:, 0] if in_axes[0] == 1 else xs)
    jaxpr = axe.ir.parse(str(jax.make_jaxpr(f)(x0, np.int32(0), np.int32(0))))
    batched = axe.ir.vmap(jaxpr, in_axes=in_axes, axis_size=3)
    got = axe.ir.eval(batched, xs, i, j)[0]
    want = jax.vmap(f, in_axes=in_axes)(xs, i, j)
    np.testing.assert_array_equal(got, want)
