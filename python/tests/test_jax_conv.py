"""conv_general_dilated against the real JAX: a small convolutional layer (conv + bias + relu,
then the mean over the spatial dimensions) traced by jax.make_jaxpr, run by axe's executor and
differentiated by axe.ir.grad, on the same seeded inputs as jax.jit and jax.grad; plus 16-bit
and integer convolutions. Floats within JAX's float32 test tolerances, integers exactly.
Skips when jax is not importable (`make test-jax` installs it)."""

import numpy as np
import pytest

import axe.ir

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
lax = jax.lax


def conv_layer(x, w, b):
    y = lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.mean(jax.nn.relu(y + b), axis=(1, 2))


def loss(x, w, b):
    return jnp.sum(conv_layer(x, w, b) ** 2)


def _inputs(seed=0):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 12, 12, 8)).astype(np.float32)
    w = (0.2 * rng.standard_normal((3, 3, 8, 16))).astype(np.float32)
    b = (0.1 * rng.standard_normal(16)).astype(np.float32)
    return x, w, b


def _close(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    scale = max(1.0, float(np.max(np.abs(want))))
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-5 * scale)


def test_conv_layer_forward_matches_jax():
    args = _inputs()
    compiled = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(conv_layer)(*args))))
    (got,) = compiled(*args)
    want = np.asarray(jax.jit(conv_layer)(*args))
    assert got.shape == want.shape and got.dtype == want.dtype
    _close(got, want)


def test_conv_layer_grad_matches_jax():
    args = _inputs(1)
    grad = axe.ir.grad(axe.ir.parse(str(jax.make_jaxpr(loss)(*args))), argnums=(0, 1, 2))
    got = axe.ir.compile(grad)(*args)
    want = jax.grad(loss, argnums=(0, 1, 2))(*args)
    assert len(got) == 3
    for g, w in zip(got, want):
        assert g.shape == w.shape
        _close(g, w)


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_half_precision_conv_matches_jax(dtype):
    x, w, _ = _inputs(2)
    x, w = jnp.asarray(x, dtype), jnp.asarray(w, dtype)

    def f(x, w):
        return lax.conv_general_dilated(x, w, (2, 1), ((1, 0), (2, 1)),
                                        dimension_numbers=("NHWC", "HWIO", "NCHW"))

    (got,) = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(f)(x, w))))(x, w)
    want = np.asarray(jax.jit(f)(x, w)).astype(np.float64)
    assert got.dtype == np.asarray(jax.jit(f)(x, w)).dtype
    scale = float(np.max(np.abs(want)))
    np.testing.assert_allclose(got.astype(np.float64), want, rtol=1e-2, atol=1e-2 * scale)


def test_integer_conv_wraps_like_jax():
    rng = np.random.default_rng(3)
    x = rng.integers(-2**31, 2**31 - 1, size=(2, 3, 9), dtype=np.int32)
    w = rng.integers(-2**31, 2**31 - 1, size=(4, 3, 2), dtype=np.int32)

    def f(x, w):
        return lax.conv_general_dilated(x, w, (2,), ((1, 2),), rhs_dilation=(3,))

    (got,) = axe.ir.compile(axe.ir.parse(str(jax.make_jaxpr(f)(x, w))))(x, w)
    np.testing.assert_array_equal(got, np.asarray(jax.jit(f)(x, w)))
