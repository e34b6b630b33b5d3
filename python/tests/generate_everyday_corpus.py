#!/usr/bin/env python3
"""Everyday JAX programs, written as a JAX user writes them, printed by the real JAX with their
values, for axe's differential corpus (python/tests/test_jax_everyday.py).

    XLA_FLAGS=--xla_force_host_platform_device_count=8 build/venv/bin/python \\
        python/tests/generate_everyday_corpus.py

Writes python/tests/data/everyday/<name>.json, one file per program:

  text      `str(jax.make_jaxpr(f)(*args))`
  consts    (closures over arrays) the closed jaxpr's consts, in its constvars' order
  args      the arguments, each {"dtype", "shape", "data"} (data row-major; floats as the
            exact value of the element, NaN and infinities as JSON's NaN/Infinity)
  outs      `jax.jit(f)(*args)`'s outputs, flattened
  grad      (programs with a scalar float output) {"argnums", "outs"}: `jax.grad(f, argnums)`
  vmap      (programs that vmap) {"in_axes", "args", "outs"}: `jax.vmap(f, in_axes)` on
            the batched arguments

Inputs are small and seeded: regenerating gives the same files.
"""
import json
import os
import pathlib
import zlib

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

OUT = pathlib.Path(__file__).parent / "data" / "everyday"

CASES = []


def case(name, args, grad=None, vmap=None):
    """Registers f(*args): grad=argnums for jax.grad of a scalar output; vmap=(in_axes,
    batched args) or (in_axes, batched args, out_axes) for jax.vmap."""
    def register(f):
        CASES.append((name, f, args, grad, vmap))
        return f
    return register


def rng(name):
    return np.random.default_rng(zlib.crc32(name.encode()))


R = rng("everyday")


def f32(*shape, scale=1.0):
    return (scale * R.standard_normal(shape)).astype(np.float32)


def pos(*shape):
    return (0.5 + R.random(shape)).astype(np.float32)


def i32(*shape, lo=-50, hi=50):
    return R.integers(lo, hi, size=shape, dtype=np.int32)


def dt(x, dtype):
    return np.asarray(x).astype(dtype)


bf16, f16 = jnp.bfloat16, jnp.float16


def stack(*xs):
    return np.stack(xs)


# ---------------------------------------------------------------- MLPs, layers, losses
W1, B1, W2, B2, X8 = f32(6, 16, scale=0.4), f32(16), f32(16, 4, scale=0.4), f32(4), f32(8, 6)
Y8 = R.integers(0, 4, size=(8,), dtype=np.int32)


@case("mlp_forward", [X8, W1, B1, W2, B2])
def _(x, w1, b1, w2, b2):
    return jax.nn.relu(x @ w1 + b1) @ w2 + b2


@case("mlp_xent_loss", [W1, B1, W2, B2, X8, Y8], grad=(0, 1, 2, 3))
def _(w1, b1, w2, b2, x, y):
    logits = jax.nn.gelu(x @ w1 + b1) @ w2 + b2
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=1))


@case("mlp_onehot_loss", [W1, B1, W2, B2, X8, Y8], grad=(0, 2))
def _(w1, b1, w2, b2, x, y):
    logits = jnp.tanh(x @ w1 + b1) @ w2 + b2
    return -jnp.sum(jax.nn.one_hot(y, 4) * jax.nn.log_softmax(logits)) / x.shape[0]


@case("mse_loss", [f32(5, 3), f32(3), f32(5), f32(5)], grad=(0, 1))
def _(x, w, b, y):
    return jnp.mean((x @ w + b - y) ** 2)


@case("value_and_grad_printed", [f32(4, 3), f32(3), f32(4)])
def _(x, w, y):
    return jax.value_and_grad(lambda w: jnp.sum((x @ w - y) ** 2))(w)


@case("grad_of_mlp_printed", [W1, B1, X8])
def _(w, b, x):
    return jax.grad(lambda w, b: jnp.sum(jax.nn.sigmoid(x @ w + b)), argnums=(0, 1))(w, b)


@case("layernorm", [f32(4, 8), pos(8), f32(8)], grad=(0, 1, 2))
def _(x, g, b):
    mu = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return jnp.sum(jnp.sin((x - mu) * lax.rsqrt(var + 1e-5) * g + b))


@case("rmsnorm", [f32(3, 8), pos(8)], vmap=(0, [stack(f32(3, 8), f32(3, 8)), stack(pos(8), pos(8))]))
def _(x, g):
    return x * lax.rsqrt(jnp.mean(x * x, axis=-1, keepdims=True) + 1e-6) * g


@case("attention", [f32(5, 8), f32(6, 8), f32(6, 8)], grad=(0, 1, 2))
def _(q, k, v):
    s = q @ k.T / jnp.sqrt(8.0)
    return jnp.sum(jax.nn.softmax(s, axis=-1) @ v)


@case("causal_attention", [f32(6, 4), f32(6, 4), f32(6, 4)])
def _(q, k, v):
    s = jnp.einsum("qd,kd->qk", q, k) / 2.0
    mask = jnp.tril(jnp.ones((6, 6), bool))
    s = jnp.where(mask, s, -jnp.inf)
    return jax.nn.softmax(s, axis=-1) @ v


@case("multihead_attention", [f32(2, 5, 3, 4), f32(2, 5, 3, 4), f32(2, 5, 3, 4)])
def _(q, k, v):
    s = jnp.einsum("bqhd,bkhd->bhqk", q, k) * 0.5
    return jnp.einsum("bhqk,bkhd->bqhd", jax.nn.softmax(s, axis=-1), v)


@case("bf16_matmul", [dt(f32(4, 8), bf16), dt(f32(8, 3), bf16)])
def _(a, b):
    return a @ b, jnp.dot(a, b, preferred_element_type=jnp.float32)


@case("f16_mlp", [dt(f32(4, 6), f16), dt(f32(6, 5, scale=0.3), f16)])
def _(x, w):
    return jax.nn.relu(x @ w).astype(jnp.float32).sum(axis=0)


@case("mixed_precision_layer", [f32(4, 8), dt(f32(8, 8, scale=0.3), bf16)])
def _(x, w):
    h = x.astype(bf16) @ w
    return jax.nn.silu(h.astype(jnp.float32))


@case("softmax_xent_logsumexp", [f32(4, 7), i32(4, lo=0, hi=7)], grad=(0,))
def _(logits, labels):
    lse = jax.nn.logsumexp(logits, axis=-1)
    return jnp.mean(lse - logits[jnp.arange(4), labels])


@case("l2_regularized", [f32(5), f32(3, 3)], grad=(0, 1))
def _(w, m):
    return 0.5 * jnp.sum(w ** 2) + jnp.linalg.norm(m) + jnp.sum(jnp.abs(w))


@case("huber_loss", [f32(8, scale=2.0), f32(8)], grad=(0,))
def _(x, y):
    d = jnp.abs(x - y)
    return jnp.sum(jnp.where(d < 1.0, 0.5 * d ** 2, d - 0.5))


@case("jax_nn_zoo", [f32(10, scale=2.0)])
def _(x):
    return (jax.nn.elu(x), jax.nn.leaky_relu(x), jax.nn.softplus(x), jax.nn.swish(x),
            jax.nn.selu(x), jax.nn.celu(x), jax.nn.hard_tanh(x), jax.nn.relu6(x),
            jax.nn.hard_sigmoid(x), jax.nn.gelu(x, approximate=False), jax.nn.log_sigmoid(x),
            jax.nn.soft_sign(x), jax.nn.mish(x))


@case("jax_nn_grads", [f32(10, scale=2.0)], grad=(0,))
def _(x):
    return jnp.sum(jax.nn.elu(x) + jax.nn.softplus(x) * jax.nn.swish(x) + jax.nn.gelu(x))


@case("standardize", [f32(6, 4)])
def _(x):
    return jax.nn.standardize(x, axis=0), jax.nn.normalize(x, axis=1) if hasattr(
        jax.nn, "normalize") else jnp.std(x, axis=1)


@case("glu_and_log_softmax", [f32(3, 8)])
def _(x):
    return jax.nn.glu(x, axis=-1), jax.nn.log_softmax(x, axis=0)


@case("dropout", [np.array([0, 42], np.uint32), f32(4, 5)])
def _(key, x):
    keep = jax.random.bernoulli(key, 0.8, x.shape)
    return jnp.where(keep, x / 0.8, 0.0)


@case("adam_step", [f32(5), f32(5), f32(5), f32(5), np.int32(3)])
def _(p, g, m, v, t):
    m = 0.9 * m + 0.1 * g
    v = 0.999 * v + 0.001 * g * g
    mh = m / (1 - 0.9 ** t)
    vh = v / (1 - 0.999 ** t)
    return p - 1e-3 * mh / (jnp.sqrt(vh) + 1e-8), m, v


@case("sgd_momentum_tree", [f32(3, 2), f32(2), f32(3, 2), f32(2)])
def _(w, b, gw, gb):
    params = {"w": w, "b": b}
    grads = {"w": gw, "b": gb}
    return jax.tree_util.tree_map(lambda p, g: p - 0.1 * jnp.clip(g, -0.5, 0.5), params, grads)


@case("grad_clip_global_norm", [f32(4, 3), f32(3)])
def _(g1, g2):
    n = jnp.sqrt(jnp.sum(g1 ** 2) + jnp.sum(g2 ** 2))
    s = jnp.minimum(1.0, 0.5 / n)
    return g1 * s, g2 * s


# ---------------------------------------------------------------- scans, loops, control flow
@case("rnn_scan", [f32(4), f32(7, 3), f32(4, 4, scale=0.4), f32(3, 4, scale=0.4)], grad=(2, 3))
def _(h0, xs, wh, wx):
    def step(h, x):
        h = jnp.tanh(h @ wh + x @ wx)
        return h, jnp.sum(h)
    h, ys = lax.scan(step, h0, xs)
    return jnp.sum(h) + jnp.sum(ys)


@case("scan_reverse_cumulative", [f32(6)])
def _(xs):
    return lax.scan(lambda c, x: (c * 0.9 + x, c), 0.0, xs, reverse=True)


@case("scan_no_xs", [f32(3)])
def _(x):
    return lax.scan(lambda c, _: (c * 1.5 - 0.25, c.sum()), x, None, length=5)


@case("fori_loop_static", [f32(4)])
def _(x):
    return lax.fori_loop(0, 5, lambda i, v: v * 0.5 + jnp.float32(i), x)


@case("fori_loop_traced", [f32(3), np.int32(4)])
def _(x, n):
    return lax.fori_loop(0, n, lambda i, v: jnp.sin(v) + i, x)


@case("while_newton_sqrt", [pos(5) * 4])
def _(a):
    def cond(s):
        x, i = s
        return (i < 20) & (jnp.max(jnp.abs(x * x - a)) > 1e-4)

    def body(s):
        x, i = s
        return 0.5 * (x + a / x), i + 1
    return lax.while_loop(cond, body, (a, 0))


@case("while_collatz", [np.array([6, 7, 27, 1], np.int32)])
def _(n):
    def steps(v):
        def body(s):
            x, k = s
            return jnp.where(x % 2 == 0, x // 2, 3 * x + 1), k + 1
        return lax.while_loop(lambda s: s[0] != 1, body, (v, 0))[1]
    return jax.vmap(steps)(n)


@case("cond_scalar", [np.float32(0.7), f32(4)], grad=(1,))
def _(p, x):
    return jnp.sum(lax.cond(p > 0.5, lambda y: jnp.sin(y) * 2, lambda y: jnp.cos(y), x))


@case("switch_three", [np.int32(2), f32(3)])
def _(i, x):
    return lax.switch(i, [lambda y: y + 1, lambda y: y * 2, lambda y: -y], x)


@case("vmap_cond", [np.array([0.3, -0.2, 1.0], np.float32), f32(3, 2)])
def _(p, x):
    return jax.vmap(lambda q, y: lax.cond(q > 0, jnp.exp, jnp.negative, y))(p, x)


@case("checkpoint_mlp", [f32(4, 4, scale=0.5), f32(3, 4)], grad=(0,))
def _(w, x):
    layer = jax.checkpoint(lambda h: jnp.tanh(h @ w))
    return jnp.sum(layer(layer(x)))


@case("checkpoint_policy", [f32(4, 4, scale=0.5), f32(3, 4)], grad=(0,))
def _(w, x):
    f = jax.checkpoint(lambda h: jnp.sin(h @ w) @ w,
                       policy=jax.checkpoint_policies.dots_with_no_batch_dims_saveable)
    return jnp.sum(f(x))


@case("custom_jvp_softclip", [f32(6, scale=3.0)], grad=(0,))
def _(x):
    @jax.custom_jvp
    def softclip(v):
        return jnp.tanh(v)
    softclip.defjvp(lambda p, t: (jnp.tanh(p[0]), t[0] * 0.5))
    return jnp.sum(softclip(x) * x)


@case("custom_vjp_clip_grad", [f32(5, scale=3.0)], grad=(0,))
def _(x):
    @jax.custom_vjp
    def clip_grad(v):
        return v

    clip_grad.defvjp(lambda v: (v, None), lambda _, g: (jnp.clip(g, -1.0, 1.0),))
    return jnp.sum(clip_grad(x) ** 2)


# ---------------------------------------------------------------- indexing and updates
@case("embedding_lookup", [f32(10, 4), np.array([[1, 3, 3], [9, 0, 2]], np.int32)], vmap=(
    (None, 0), [f32(10, 4), np.array([[[1, 3, 3], [9, 0, 2]], [[4, 4, 4], [0, 1, 2]]], np.int32)]))
def _(table, ids):
    return table[ids].sum(axis=1)


@case("embedding_grad", [f32(6, 3), np.array([1, 5, 1, 0], np.int32)], grad=(0,))
def _(table, ids):
    return jnp.sum(jnp.sin(table[ids]))


@case("take_modes", [f32(5, 3), np.array([0, 4, 7, -1, -9], np.int32)])
def _(x, i):
    return (jnp.take(x, i, axis=0, mode="clip"), jnp.take(x, i, axis=0, mode="fill"),
            jnp.take(x, i, axis=0, mode="wrap"))


@case("take_along_axis_argsort", [f32(4, 5)])
def _(x):
    i = jnp.argsort(x, axis=1)
    return jnp.take_along_axis(x, i, axis=1), i


@case("at_set_add_min_max", [f32(6), np.array([1, 4, 1, -1], np.int32), f32(4)])
def _(x, i, v):
    return x.at[i].set(v), x.at[i].add(v), x.at[i].min(v), x.at[i].max(v), x.at[i].mul(v)


@case("at_set_slice", [f32(4, 5), f32(2, 5)])
def _(x, v):
    return x.at[1:3].set(v), x.at[:, 0].add(1.0), x.at[-1, ::2].set(0.0)


@case("at_add_grad", [f32(5), f32(3)], grad=(0, 1))
def _(x, v):
    return jnp.sum(jnp.sin(x.at[jnp.array([0, 2, 0])].add(v)))


@case("boolean_mask_where", [f32(3, 4)])
def _(x):
    return jnp.where(x > 0, x, 0.0).sum(), jnp.sum(x > 0), jnp.count_nonzero(x < -0.5, axis=1)


@case("dynamic_slice_update", [f32(8), np.int32(3), f32(3)])
def _(x, i, u):
    return lax.dynamic_slice(x, (i,), (3,)), lax.dynamic_update_slice(x, u, (i,)), \
        lax.dynamic_update_slice(x, u, (i + 4,))


@case("vmap_dynamic_update_slice", [f32(8), np.int32(3), f32(3)], vmap=(
    (0, 0, None), [f32(4, 8), np.array([0, 2, 5, 7], np.int32), f32(3)]))
def _(x, i, u):
    return lax.dynamic_update_slice(x, u, (i,))


@case("vmap_dynamic_slice", [f32(8), np.int32(3)], vmap=(
    (None, 0), [f32(8), np.array([0, 2, 6, -1], np.int32)]))
def _(x, i):
    return lax.dynamic_slice(x, (i,), (3,))


@case("vmap_dynamic_update_slice_printed", [f32(4, 8), np.array([0, 2, 5, 7], np.int32), f32(3)])
def _(x, i, u):
    return jax.vmap(lambda a, j: lax.dynamic_update_slice(a, u, (j,)))(x, i)


@case("gather_rows_2d", [f32(5, 4), np.array([[0, 1], [4, 3], [2, 0]], np.int32)])
def _(x, ij):
    return x[ij[:, 0], ij[:, 1]], x[ij[:, 0], 1:3]


@case("index_negative_and_ellipsis", [f32(3, 4, 5)])
def _(x):
    return x[-1], x[..., 2], x[:, ::-1, 1], x[None, 1, :, -2:]


@case("one_hot_argmax", [f32(5, 6)])
def _(x):
    return jax.nn.one_hot(jnp.argmax(x, axis=-1), 6), jnp.argmin(x, axis=0)


@case("segment_sum", [f32(6), np.array([0, 2, 2, 1, 0, 2], np.int32)])
def _(x, seg):
    return jax.ops.segment_sum(x, seg, num_segments=3), jax.ops.segment_max(x, seg,
                                                                             num_segments=3)


@case("bincount_histogram", [np.array([1, 3, 3, 0, 7, 3], np.int32)])
def _(x):
    return jnp.bincount(x, length=8), jnp.zeros(8, jnp.int32).at[x].add(1)


# ---------------------------------------------------------------- shapes
@case("pad_modes", [f32(3, 4)])
def _(x):
    return (jnp.pad(x, 1), jnp.pad(x, ((0, 1), (2, 0)), constant_values=-1.0),
            jnp.pad(x, 2, mode="reflect"), jnp.pad(x, 1, mode="edge"),
            jnp.pad(x, 1, mode="wrap"), jnp.pad(x, 2, mode="symmetric"))


@case("roll_flip_rot", [f32(3, 4)])
def _(x):
    return jnp.roll(x, 1, axis=1), jnp.roll(x, -2), jnp.flip(x), jnp.fliplr(x), jnp.rot90(x)


@case("tril_triu_eye", [f32(4, 4)])
def _(x):
    return jnp.tril(x), jnp.triu(x, 1), x * jnp.eye(4), jnp.trace(x), jnp.diagonal(x)


@case("reshape_transpose_concat", [f32(2, 3, 4), f32(2, 3, 4)])
def _(a, b):
    c = jnp.concatenate([a, b], axis=1)
    return (c.reshape(6, 8).T, jnp.stack([a, b], axis=-1).shape and jnp.stack([a, b], -1),
            jnp.moveaxis(a, 0, -1), jnp.swapaxes(b, 1, 2))


@case("split_squeeze_expand", [f32(6, 1, 4)])
def _(x):
    a, b, c = jnp.split(x, 3, axis=0)
    return jnp.squeeze(a, 1), jnp.expand_dims(b, 0), jnp.hsplit(c[:, 0], 2)[1]


@case("broadcast_tile_repeat", [f32(2, 3)])
def _(x):
    return jnp.broadcast_to(x, (4, 2, 3)), jnp.tile(x, (2, 2)), jnp.repeat(x, 2, axis=1)


@case("meshgrid_outer_arange", [f32(3), f32(4)])
def _(a, b):
    gx, gy = jnp.meshgrid(a, b)
    return gx * gy, jnp.outer(a, b), jnp.arange(5) * 2, jnp.linspace(0.0, 1.0, 5)


@case("strided_slices", [f32(7, 6)])
def _(x):
    return x[::2, 1::3], x[1:-1, ::-2], lax.slice(x, (0, 1), (7, 6), (3, 2))


@case("concat_grad", [f32(3), f32(2, 3)], grad=(0, 1))
def _(a, b):
    return jnp.sum(jnp.concatenate([a[None], b * 2]) ** 3)


# ---------------------------------------------------------------- reductions and math
@case("reductions_float", [f32(4, 5)])
def _(x):
    return (x.sum(), x.mean(axis=0), x.max(axis=1), x.min(), x.prod(axis=0), x.std(),
            jnp.median(x, axis=1) if False else jnp.ptp(x, axis=1), jnp.linalg.norm(x, axis=1),
            jnp.linalg.norm(x, ord=1), jnp.linalg.norm(x, ord=jnp.inf, axis=0))


@case("reductions_int_bool", [i32(4, 5), i32(4, 5) > 0])
def _(x, b):
    return (x.sum(axis=0), x.max(), x.min(axis=1), x.prod(axis=1), b.sum(), b.any(axis=1),
            b.all(axis=0), jnp.mean(b), jnp.mean(x, axis=1))


@case("cumulative", [f32(3, 4)])
def _(x):
    return (jnp.cumsum(x, axis=1), jnp.cumprod(x, axis=0), lax.cummax(x, axis=1),
            lax.cummin(x, axis=0), jnp.cumsum(x[::-1], axis=0), jax.lax.cumlogsumexp(x, axis=1))


@case("cumsum_int_bool", [i32(7), i32(7) > 0])
def _(x, b):
    return jnp.cumsum(x), jnp.cumsum(b), jnp.cumprod(x % 3 + 1)


@case("cumsum_grad", [f32(6)], grad=(0,))
def _(x):
    return jnp.sum(jnp.cumsum(x) ** 2 + jnp.cumprod(x))


@case("logsumexp_softmax_grad", [f32(3, 5)], grad=(0,))
def _(x):
    return jnp.sum(jax.nn.logsumexp(x, axis=0)) + jnp.sum(jax.nn.softmax(x) ** 2)


@case("transcendental", [pos(8)])
def _(x):
    return (jnp.exp(x), jnp.log(x), jnp.log1p(x), jnp.expm1(x), jnp.sqrt(x), jnp.cbrt(x),
            jnp.tan(x), jnp.arctan(x), jnp.arcsin(x - 1.0), jnp.arccos(x - 1.0), jnp.sinh(x),
            jnp.cosh(x), jnp.arcsinh(x), jnp.arccosh(x + 1.0), jnp.arctanh(x - 1.0),
            jnp.exp2(x), jnp.log2(x), jnp.log10(x), jnp.power(x, 2.5), jnp.arctan2(x, x - 1.0))


@case("transcendental_grads", [pos(6)], grad=(0,))
def _(x):
    return jnp.sum(jnp.tan(x) + jnp.arctan2(x, 1.5) + jnp.expm1(x) + jnp.log1p(x) +
                   jnp.power(x, 1.5) + x ** x + jnp.arcsinh(x) + lax.erf(x))


@case("special_functions", [pos(6)])
def _(x):
    return (jax.scipy.special.erf(x), jax.scipy.special.erfc(x), jax.scipy.special.erfinv(x - 1.0),
            jax.scipy.special.logit(x / 2.0), jax.scipy.special.expit(x),
            jax.scipy.special.gammaln(x), jax.scipy.special.xlogy(x, x))


@case("rounding", [f32(10, scale=3.0)])
def _(x):
    return (jnp.round(x), jnp.floor(x), jnp.ceil(x), jnp.trunc(x), jnp.rint(x),
            jnp.round(x, 2), jnp.sign(x), jnp.abs(x), jnp.fmod(x, 1.5), jnp.remainder(x, 1.5))


@case("nan_inf_handling", [np.array([1.0, np.nan, np.inf, -np.inf, 0.0, -0.0, -2.5], np.float32)])
def _(x):
    return (jnp.isnan(x), jnp.isinf(x), jnp.isfinite(x), jnp.nan_to_num(x),
            jnp.where(jnp.isnan(x), 0.0, x), jnp.maximum(x, 0.0), jnp.fmax(x, 1.0),
            jnp.nanmax(x), jnp.nansum(x), jnp.nanmean(x), 1.0 / x, jnp.sign(x))


@case("nan_propagation", [np.array([np.nan, 1.0, -1.0, np.inf], np.float32),
                          np.array([2.0, np.nan, np.nan, np.nan], np.float32)])
def _(x, y):
    return jnp.maximum(x, y), jnp.minimum(x, y), jnp.max(x), jnp.argmax(x), x > y, x == x


@case("clip_where_select", [f32(8, scale=2.0)], grad=(0,))
def _(x):
    return jnp.sum(jnp.clip(x, -1.0, 1.0) * jnp.where(x > 0, x, 0.1 * x) + jnp.maximum(x, 0.5))


@case("einsum_variety", [f32(2, 3, 4), f32(4, 5), f32(3, 3)])
def _(a, b, c):
    return (jnp.einsum("bij,jk->bik", a, b), jnp.einsum("bij->j", a), jnp.einsum("ii->i", c),
            jnp.einsum("ij,ij->", c, c), jnp.einsum("bij,bkj->bik", a, a),
            jnp.einsum("ij->ji", c))


@case("matmul_variety", [f32(2, 3, 4), f32(4), f32(4, 2)])
def _(a, v, m):
    return a @ v, v @ m, jnp.matmul(a, m), jnp.vdot(v, v), jnp.tensordot(a, m, axes=1), \
        jnp.inner(v, v), jnp.kron(m[:2, :], m[:1, :])


@case("norms_and_distances", [f32(4, 3), f32(5, 3)])
def _(a, b):
    d = jnp.sqrt(jnp.sum((a[:, None, :] - b[None, :, :]) ** 2, axis=-1))
    cos = (a @ b.T) / (jnp.linalg.norm(a, axis=1)[:, None] * jnp.linalg.norm(b, axis=1))
    return d, cos, jnp.argmin(d, axis=1)


@case("polyval_horner", [f32(6)])
def _(x):
    return jnp.polyval(jnp.array([1.0, -2.0, 0.5, 3.0]), x), jnp.interp(x, jnp.array(
        [-1.0, 0.0, 1.0]), jnp.array([0.0, 2.0, 1.0]))


@case("sort_argsort", [f32(3, 5)])
def _(x):
    return (jnp.sort(x, axis=1), jnp.argsort(x, axis=0), jnp.sort(x.ravel())[::-1],
            jnp.argsort(-x, axis=1, stable=True))


@case("sort_int_stable", [np.array([3, 1, 3, 0, 1, 2, 3, 0], np.int32)])
def _(x):
    return jnp.sort(x), jnp.argsort(x), lax.sort((x, jnp.arange(8)), num_keys=1)


@case("top_k", [f32(2, 6)])
def _(x):
    return lax.top_k(x, 3)


@case("sort_grad", [f32(6)], grad=(0,))
def _(x):
    return jnp.sum(jnp.sort(x) * jnp.arange(6.0))


@case("lexsort_searchsorted", [np.array([0.5, 1.5, 2.5, 3.5], np.float32), f32(5, scale=2.0)])
def _(edges, x):
    return jnp.searchsorted(edges, x), jnp.digitize(x, edges)


# ---------------------------------------------------------------- integers and dtypes
@case("int_div_rem_negative", [np.array([7, -7, 7, -7, 0, 5, -1], np.int32),
                               np.array([2, 2, -2, -2, 3, -3, 4], np.int32)])
def _(a, b):
    return a // b, a % b, lax.div(a, b), lax.rem(a, b), jnp.fmod(a, b), jnp.divmod(a, b)[0]


@case("int_hash_u32", [np.arange(10, dtype=np.uint32) * 7919])
def _(x):
    h = x * np.uint32(2654435761)
    h = h ^ (h >> 16)
    h = h * np.uint32(0x45d9f3b)
    h = h ^ (h >> 16)
    return h, h % np.uint32(1000)


@case("int_hash_i32_wrap", [np.array([123456789, -987654321, 2**31 - 1, -2**31, 17], np.int32)])
def _(x):
    return x * x, x * 31 + 7, (x << 3) ^ (x >> 2), lax.shift_right_logical(x, 4), -x


@case("bit_ops", [np.array([0, 1, 5, 255, 1 << 20, -1, -8], np.int32)])
def _(x):
    return (x & 0xF0, x | 3, x ^ 0x55, ~x, jnp.left_shift(x, 2), jnp.right_shift(x, 1),
            lax.population_count(x), lax.clz(x), jnp.bitwise_count(x) if hasattr(
                jnp, "bitwise_count") else x)


@case("bit_ops_unsigned", [np.array([0, 1, 5, 255, 1 << 31, 0xFFFFFFFF], np.uint32)])
def _(x):
    return x >> 3, x << 5, ~x, x ^ np.uint32(0xDEADBEEF), lax.population_count(x), x // 7, x % 7


@case("int8_uint8_arith", [np.array([100, -100, 127, -128, 5], np.int8),
                           np.array([200, 100, 255, 0, 7], np.uint8)])
def _(a, b):
    return a + a, a * 3, b + b, b * b, a.astype(jnp.int32) + b, (b // 3).astype(jnp.int8)


# Traced with jax.enable_x64 (X64 below): i64 values past 2^53.
@case("int64_values_x64", [np.array([2**53 + 1, -2**62, 12345678901234, -7], np.int64)])
def _(x):
    return x + 1, x * 3, x // 7, x % 1000, x >> 3, x.astype(jnp.float64) * 0.5, \
        x.astype(jnp.uint64) * np.uint64(2654435761)


@case("casts_float_to_int", [np.array([-2.7, -0.5, 0.5, 2.5, 1e10, -1e10, 300.7, np.nan],
                                      np.float32)])
def _(x):
    return (x.astype(jnp.int32), x.astype(jnp.uint8), x.astype(jnp.int8),
            x.astype(jnp.uint32), x.astype(jnp.int16), x.astype(bool))


@case("casts_int_to_float", [np.array([0, 1, -1, 16777217, -2**31, 2**31 - 1, 255], np.int32)])
def _(x):
    return (x.astype(jnp.float32), x.astype(bf16), x.astype(f16), x.astype(jnp.uint8),
            x.astype(jnp.int8), x.astype(jnp.uint32), x.astype(bool), x.astype(jnp.int16))


@case("casts_between_floats", [np.array([1.0, 3.14159, 65504.0, 1e5, 1e-8, -0.0, np.inf,
                                         np.nan, 1.00390625], np.float32)])
def _(x):
    b, h = x.astype(bf16), x.astype(f16)
    return b, h, b.astype(f16), h.astype(bf16), b.astype(jnp.float32) + h.astype(jnp.float32)


@case("casts_bool", [np.array([True, False, True], bool), np.array([0.0, -1.5, np.nan], np.float32)])
def _(b, x):
    return (b.astype(jnp.int32), b.astype(jnp.float32), b.astype(bf16), b.astype(jnp.uint8),
            x.astype(bool), b + b, b * x, ~b, b ^ True)


@case("casts_unsigned", [np.array([0, 1, 200, 65535, 4000000000], np.uint32)])
def _(x):
    return (x.astype(jnp.int32), x.astype(jnp.float32), x.astype(jnp.uint8), x.astype(jnp.int8),
            x.astype(jnp.uint16), x.astype(f16))


@case("bf16_arith", [dt(f32(6), bf16), dt(f32(6), bf16)])
def _(a, b):
    return a + b, a * b, a / (jnp.abs(b) + 1), jnp.exp(a), jnp.tanh(b), jnp.sum(a), jnp.max(a * b)


@case("f16_arith", [dt(f32(6), f16), dt(pos(6), f16)])
def _(a, b):
    return a - b, a * b, jnp.sqrt(b), jnp.log(b), jax.nn.sigmoid(a), jnp.mean(a), a > b


@case("bf16_grad", [dt(f32(5), bf16)], grad=(0,))
def _(x):
    return jnp.sum(jnp.sin(x) * x).astype(jnp.float32)


@case("type_promotion", [np.int32(3), np.float32(1.5), dt(f32(3), bf16), i32(3), np.uint8(7)])
def _(i, f, b, v, u):
    return i * f, b * 2, b + f, v * 1.5, v + u, u * 2, b + v, jnp.true_divide(v, 2)


@case("int_matmul", [i32(3, 4, lo=-5, hi=5), i32(4, 2, lo=-5, hi=5)])
def _(a, b):
    return a @ b, jnp.einsum("ij,ij->i", a[:, :2], b.T[:3, :]) if False else a.T @ a


@case("int_pow_abs_sign", [i32(8, lo=-6, hi=6)])
def _(x):
    return x ** 2, x ** 3, jnp.abs(x), jnp.sign(x), jnp.square(x), jnp.maximum(x, 0), \
        jnp.clip(x, -2, 3)


@case("iota_arange_dtypes", [np.int32(5)])
def _(n):
    return (jnp.arange(6, dtype=jnp.uint8) + n.astype(jnp.uint8), jnp.arange(4.0) * n,
            lax.iota(jnp.int32, 5), jnp.arange(10, 0, -3), jnp.full((2, 2), n))


@case("complexish_bool_logic", [f32(6), f32(6)])
def _(a, b):
    m = (a > 0) ^ (b > 0)
    return m, jnp.logical_and(a > 0, b < 0), jnp.logical_or(m, a > 1), jnp.logical_not(m), \
        jnp.where(m, a, b), jnp.select([a > 1, a < -1], [a, -a], 0.0)


# ---------------------------------------------------------------- random
@case("random_normal_uniform", [np.array([0, 7], np.uint32)])
def _(key):
    k1, k2 = jax.random.split(key)
    return jax.random.normal(k1, (4,)), jax.random.uniform(k2, (3,), minval=-1.0, maxval=2.0)


@case("random_key_typed", [np.int32(3)])
def _(seed):
    key = jax.random.key(seed)
    a, b = jax.random.split(key)
    return jax.random.randint(a, (5,), 0, 10), jax.random.bits(b, (3,))


@case("random_prngkey_inside", [f32(4)])
def _(x):
    key = jax.random.PRNGKey(42)
    return x + jax.random.normal(key, x.shape), jax.random.permutation(key, 6)


@case("random_fold_in_categorical", [np.array([0, 1], np.uint32), f32(3, 5)])
def _(key, logits):
    k = jax.random.fold_in(key, 7)
    return jax.random.categorical(k, logits), jax.random.gumbel(k, (2,)), \
        jax.random.truncated_normal(k, -1.0, 1.0, (3,))


@case("random_choice_shuffle", [np.array([0, 5], np.uint32)])
def _(key):
    k1, k2, k3 = jax.random.split(key, 3)
    return jax.random.choice(k1, 10, (4,), replace=False), jax.random.bernoulli(k2, 0.3, (6,)), \
        jax.random.exponential(k3, (3,))


@case("vmap_random_split", [np.array([[0, 1], [0, 2], [3, 4]], np.uint32)])
def _(keys):
    return jax.vmap(lambda k: jax.random.normal(k, (2,)))(keys)


# ---------------------------------------------------------------- convs
@case("conv2d_nchw", [f32(1, 2, 6, 6), f32(3, 2, 3, 3, scale=0.5)], grad=None)
def _(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), "SAME")


@case("conv2d_nhwc_strided", [f32(2, 7, 7, 3), f32(3, 3, 3, 4, scale=0.5)])
def _(x, w):
    return lax.conv_general_dilated(x, w, (2, 2), "VALID", dimension_numbers=("NHWC", "HWIO",
                                                                               "NHWC"))


@case("conv1d_grad", [f32(2, 3, 8), f32(4, 3, 3, scale=0.5)], grad=(0, 1))
def _(x, w):
    return jnp.sum(jnp.tanh(lax.conv(x, w, (1,), "SAME")))


@case("conv_dilated_grouped", [f32(1, 4, 8, 8), f32(4, 2, 3, 3, scale=0.5)])
def _(x, w):
    return lax.conv_general_dilated(x, w, (1, 1), ((1, 1), (2, 2)), rhs_dilation=(1, 2),
                                    feature_group_count=2)


@case("jnp_convolve", [f32(10), f32(3)])
def _(x, k):
    return jnp.convolve(x, k, mode="same"), jnp.convolve(x, k, mode="valid"), \
        jnp.correlate(x, k, mode="full")


@case("avg_max_pool", [f32(1, 6, 6, 2)])
def _(x):
    s = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    m = lax.reduce_window(x, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 1, 1, 1), "SAME")
    return s / 4.0, m


@case("conv_layer_relu_pool_loss", [f32(2, 1, 6, 6), f32(2, 1, 3, 3, scale=0.5)], grad=(1,))
def _(x, w):
    h = jax.nn.relu(lax.conv(x, w, (1, 1), "VALID"))
    return jnp.mean(h.reshape(2, 2, 2, 2, 2, 2).max(axis=(3, 5)))


# ---------------------------------------------------------------- vmaps
@case("vmap_mlp", [W1, B1, f32(6)], vmap=((None, None, 0), [W1, B1, f32(5, 6)]))
def _(w, b, x):
    return jax.nn.relu(x @ w + b)


@case("vmap_printed_per_example_grads", [f32(3), f32(4, 3), f32(4)])
def _(w, xs, ys):
    return jax.vmap(jax.grad(lambda w, x, y: (jnp.dot(w, x) - y) ** 2), in_axes=(None, 0, 0))(
        w, xs, ys)


@case("vmap_in_axes_1", [f32(3, 4)], vmap=(1, [f32(3, 5, 4)]))
def _(x):
    return jnp.cumsum(x, axis=0) * jnp.max(x)


@case("vmap_softmax_argmax", [f32(6)], vmap=(0, [f32(4, 6)]))
def _(x):
    return jax.nn.softmax(x), jnp.argmax(x), jnp.sort(x)


@case("vmap_gather_take", [f32(7), np.array([0, 6, 3], np.int32)], vmap=(
    (0, 0), [f32(3, 7), np.array([[0, 6, 3], [1, 1, 1], [5, 4, 2]], np.int32)]))
def _(x, i):
    return x[i] * 2.0, x.at[i].add(1.0)


@case("vmap_scan", [f32(5), np.float32(0.5)], vmap=((0, None), [f32(3, 5), np.float32(0.5)]))
def _(xs, a):
    return lax.scan(lambda c, x: (a * c + x, c), 0.0, xs)


@case("vmap_while_batched_pred", [np.float32(3.0)], vmap=(0, [np.array([1.0, 5.0, 20.0],
                                                                           np.float32)]))
def _(x):
    return lax.while_loop(lambda v: v < 50.0, lambda v: v * 2.0, x)


@case("vmap_int_ops", [i32(5)], vmap=(0, [i32(3, 5)]))
def _(x):
    return jnp.cumsum(x), x // 3, jnp.sort(x), jnp.max(x)


@case("vmap_conv", [f32(1, 6, 2), f32(3, 2, 2, scale=0.5)], vmap=(
    (0, None), [f32(3, 1, 6, 2), f32(3, 2, 2, scale=0.5)]))
def _(x, w):
    return lax.conv_general_dilated(x, w, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))


@case("jacobian_hessian", [f32(3)])
def _(x):
    f = lambda v: jnp.sum(jnp.sin(v) * v ** 2)  # noqa: E731
    return jax.jacfwd(jax.grad(f))(x), jax.jacrev(lambda v: jnp.tanh(v) * v[0])(x)


@case("jvp_printed", [f32(4), f32(4)])
def _(x, t):
    return jax.jvp(lambda v: jnp.exp(jnp.sin(v)) * v, (x,), (t,))


@case("hvp_printed", [f32(3), f32(3)])
def _(x, v):
    return jax.jvp(jax.grad(lambda y: jnp.sum(jnp.tanh(y) ** 2)), (x,), (v,))[1]


# ---------------------------------------------------------------- misc everyday
@case("kmeans_step", [f32(8, 2), f32(3, 2)])
def _(x, c):
    d = jnp.sum((x[:, None] - c[None]) ** 2, axis=-1)
    a = jnp.argmin(d, axis=1)
    oh = jax.nn.one_hot(a, 3)
    return (oh.T @ x) / jnp.maximum(oh.sum(0), 1.0)[:, None], a


@case("pairwise_rbf_kernel", [f32(5, 2)], grad=(0,))
def _(x):
    d2 = jnp.sum((x[:, None, :] - x[None, :, :]) ** 2, axis=-1)
    return jnp.sum(jnp.exp(-d2 / 2.0))


@case("linear_regression_closed", [f32(6, 2), f32(6)])
def _(x, y):
    g = x.T @ x + 0.1 * jnp.eye(2)
    a, b, c, d = g[0, 0], g[0, 1], g[1, 0], g[1, 1]
    inv = jnp.array([[d, -b], [-c, a]]) / (a * d - b * c)
    return inv @ (x.T @ y)


@case("ema_scan", [f32(10)])
def _(xs):
    return lax.associative_scan(jnp.add, xs), lax.scan(
        lambda m, x: (0.9 * m + 0.1 * x, m), xs[0], xs)[1]


@case("positional_encoding", [np.int32(0)])
def _(offset):
    pos_ = jnp.arange(6)[:, None] + offset
    i = jnp.arange(4)[None, :]
    ang = pos_ / jnp.power(10000.0, (2 * (i // 2)) / 4)
    return jnp.where(i % 2 == 0, jnp.sin(ang), jnp.cos(ang))


@case("rope_rotary", [f32(4, 6)])
def _(x):
    x1, x2 = x[:, ::2], x[:, 1::2]
    t = jnp.arange(4.0)[:, None] * jnp.array([1.0, 0.1, 0.01])
    c, s = jnp.cos(t), jnp.sin(t)
    return jnp.stack([x1 * c - x2 * s, x1 * s + x2 * c], axis=-1).reshape(4, 6)


@case("image_normalize_uint8", [np.array([[0, 128, 255], [10, 20, 30]], np.uint8)])
def _(img):
    x = img.astype(jnp.float32) / 255.0
    return (x - 0.5) / 0.25, (x * 255).round().astype(jnp.uint8), jnp.mean(img, axis=1)


@case("accuracy_metric", [f32(6, 3), np.array([0, 2, 1, 1, 0, 2], np.int32)])
def _(logits, y):
    pred = jnp.argmax(logits, axis=-1)
    return jnp.mean(pred == y), jnp.sum((pred == y).astype(jnp.int32))


@case("masked_mean_lengths", [f32(3, 5), np.array([2, 5, 0], np.int32)])
def _(x, lengths):
    m = jnp.arange(5)[None, :] < lengths[:, None]
    return jnp.sum(jnp.where(m, x, 0.0), axis=1) / jnp.maximum(lengths, 1)


@case("gumbel_softmax_temperature", [f32(4, 3), np.float32(0.5)])
def _(logits, t):
    return jax.nn.softmax(logits / t, axis=-1), jnp.exp(jax.nn.log_softmax(logits / t))


@case("cross_product_and_angles", [f32(4, 3), f32(4, 3)])
def _(a, b):
    return jnp.cross(a, b), jnp.arccos(jnp.clip(jnp.sum(a * b, -1) / (
        jnp.linalg.norm(a, axis=-1) * jnp.linalg.norm(b, axis=-1)), -1.0, 1.0))


@case("where_scalar_broadcast", [f32(3, 4), np.float32(0.2)])
def _(x, t):
    return jnp.where(x > t, 1.0, -1.0), jnp.where(x > t, x, t), jnp.heaviside(x, 0.5)


@case("isclose_allclose", [f32(5), f32(5)])
def _(a, b):
    return jnp.isclose(a, a + 1e-7), jnp.allclose(a, b), jnp.array_equal(a, a), a == b


@case("nonzero_static_size", [np.array([0, 3, 0, 1, 2, 0], np.int32)])
def _(x):
    return jnp.nonzero(x, size=4, fill_value=-1)[0], jnp.argwhere(x > 1, size=3)[:, 0], \
        jnp.flatnonzero(x, size=2)


@case("triangular_mask_fill", [f32(4, 4)])
def _(x):
    i, j = jnp.triu_indices(4, 1)
    return x.at[i, j].set(0.0), jnp.tril_indices(3)[1]


@case("log_prob_gaussian", [f32(5), np.float32(0.3), np.float32(1.2)], grad=(1, 2))
def _(x, mu, sigma):
    return jnp.sum(jax.scipy.stats.norm.logpdf(x, mu, sigma))


@case("entropy_kl", [jax.nn.softmax(f32(5)), jax.nn.softmax(f32(5))])
def _(p, q):
    return -jnp.sum(p * jnp.log(p)), jnp.sum(jax.scipy.special.rel_entr(p, q)), \
        jnp.sum(p * (jnp.log(p) - jnp.log(q)))


@case("cosine_schedule", [np.int32(37)])
def _(step):
    frac = jnp.minimum(step / 100.0, 1.0)
    return 1e-3 * 0.5 * (1 + jnp.cos(jnp.pi * frac)), jnp.where(step < 10, step / 10.0, 1.0)


@case("ravel_unravel_index", [np.array([0, 5, 11, 7], np.int32)])
def _(flat):
    r, c = jnp.unravel_index(flat, (3, 4))
    return r, c, jnp.ravel_multi_index((r, c), (3, 4), mode="clip")


@case("float_int_mixed_reduce", [i32(4, 3), f32(4, 3)])
def _(c, x):
    return jnp.sum(c * x), jnp.average(x, axis=0, weights=jnp.abs(c) + 1), jnp.max(c) * 1.0


@case("var_ddof_cov", [f32(5, 3)])
def _(x):
    return jnp.var(x, axis=0, ddof=1), jnp.std(x, ddof=1), jnp.cov(x.T), jnp.corrcoef(x.T)


# ---------------------------------------------------------------- shard_map on 8 devices
AUTO = jax.sharding.AxisType.Auto
MESH8 = jax.make_mesh((8,), ("x",), axis_types=(AUTO,))
MESH42 = jax.make_mesh((4, 2), ("x", "y"), axis_types=(AUTO, AUTO))


@case("shard_map_psum_loss", [f32(16, 4), f32(4)], grad=(1,))
def _(x, w):
    def local(xb, w):
        return jax.lax.psum(jnp.sum((xb @ w) ** 2), "x")
    return jax.shard_map(local, mesh=MESH8, in_specs=(P("x"), P()), out_specs=P())(x, w)


@case("shard_map_relu_mean", [f32(16, 4)])
def _(x):
    def local(xb):
        return jax.lax.pmean(jnp.mean(jax.nn.relu(xb)), "x")
    return jax.shard_map(local, mesh=MESH8, in_specs=P("x"), out_specs=P())(x)


@case("shard_map_all_gather", [f32(8, 2)])
def _(x):
    def local(xb):
        return jax.lax.all_gather(xb, "x", tiled=True) * jax.lax.axis_index("x")
    return jax.shard_map(local, mesh=MESH8, in_specs=P("x"), out_specs=P("x"))(x)


@case("shard_map_ppermute_ring", [f32(8, 3)])
def _(x):
    def local(xb):
        return jax.lax.ppermute(xb, "x", [(i, (i + 1) % 8) for i in range(8)])
    return jax.shard_map(local, mesh=MESH8, in_specs=P("x"), out_specs=P("x"))(x)


@case("shard_map_2d_mesh_matmul", [f32(8, 4), f32(4, 6)])
def _(a, b):
    def local(ab, bb):
        return jax.lax.psum(ab @ bb, "y")
    return jax.shard_map(local, mesh=MESH42, in_specs=(P("x", "y"), P("y", None)),
                         out_specs=P("x", None))(a, b)


@case("shard_map_psum_scatter", [f32(8, 8)])
def _(x):
    def local(xb):
        return jax.lax.psum_scatter(xb, "x", scatter_dimension=1, tiled=True)
    return jax.shard_map(local, mesh=MESH8, in_specs=P("x"), out_specs=P("x"))(x)


@case("shard_map_grad_printed", [f32(16, 4), f32(4)])
def _(x, w):
    def loss(w):
        def local(xb, w):
            return jax.lax.psum(jnp.sum(jnp.tanh(xb @ w)), "x")
        return jax.shard_map(local, mesh=MESH8, in_specs=(P("x"), P()), out_specs=P())(x, w)
    return jax.grad(loss)(w)


@case("shard_map_data_parallel_sgd", [f32(16, 3), f32(16), f32(3)])
def _(x, y, w):
    def local(xb, yb, w):
        g = jax.grad(lambda w: jnp.mean((xb @ w - yb) ** 2))(w)
        return w - 0.1 * jax.lax.pmean(g, "x")
    return jax.shard_map(local, mesh=MESH8, in_specs=(P("x"), P("x"), P()), out_specs=P())(
        x, y, w)


@case("shard_map_all_to_all", [f32(8, 8)])
def _(x):
    def local(xb):
        return jax.lax.all_to_all(xb, "x", 1, 0, tiled=True)
    return jax.shard_map(local, mesh=MESH8, in_specs=P("x"), out_specs=P("x"))(x)


@case("shard_map_pmax_softmax", [f32(4, 16)])
def _(x):
    def local(xb):
        m = jax.lax.pmax(jnp.max(xb, axis=1, keepdims=True), "x")
        e = jnp.exp(xb - m)
        return e / jax.lax.psum(jnp.sum(e, axis=1, keepdims=True), "x")
    return jax.shard_map(local, mesh=MESH8, in_specs=P(None, "x"), out_specs=P(None, "x"))(x)


EXPLICIT = jax.make_mesh((8,), ("x",), axis_types=(jax.sharding.AxisType.Explicit,))


# Traced under jax.set_mesh(EXPLICIT) with arguments sharded by `specs` (explicit_program
# below): the avals carry their sharding (f32[8@x,2]).
def explicit_case(name, args, specs, grad=None):
    def register(f):
        EXPLICIT_CASES[name] = (f, specs)
        CASES.append((name, f, args, grad, None))
        return f
    return register


EXPLICIT_CASES = {}


@explicit_case("explicit_sharding_types", [f32(8, 2)], [P("x")])
def _(a):
    return jnp.sin(a) * 2.0, jnp.sum(a, axis=0)


@explicit_case("explicit_matmul_reshard", [f32(8, 3), f32(3, 4)], [P("x"), P()])
def _(a, w):
    h = jnp.tanh(a @ w)
    return jax.sharding.reshard(h, P()), jnp.max(h, axis=1)


@explicit_case("explicit_loss_grad", [f32(8, 3), f32(3)], [P("x"), P()], grad=(1,))
def _(a, w):
    return jnp.mean(jax.nn.relu(a @ w) ** 2)


# ---------------------------------------------------------------- output


def encode(a):
    a = np.asarray(a)
    name = a.dtype.name
    if a.dtype == np.bool_:
        data = [bool(v) for v in a.reshape(-1)]
    elif np.issubdtype(a.dtype, np.integer):
        data = [int(v) for v in a.reshape(-1)]
    else:
        data = [float(v) for v in a.reshape(-1).astype(np.float64)]
    return {"dtype": name, "shape": list(a.shape), "data": data}


def leaves(tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def explicit_program(name, args, grad):
    f, specs = EXPLICIT_CASES[name]
    with jax.set_mesh(EXPLICIT):
        placed = [jax.device_put(a, jax.sharding.NamedSharding(EXPLICIT, s))
                  for a, s in zip(args, specs)]
        text = str(jax.make_jaxpr(f)(*placed))
        outs = leaves(jax.jit(f)(*placed))
        grads = leaves(jax.grad(f, argnums=grad)(*placed)) if grad is not None else None
    return text, outs, grads


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for old in OUT.glob("*.json"):
        old.unlink()
    failed = []
    for name, f, args, grad, vmap in CASES:
        try:
            write(name, f, args, grad, vmap)
        except Exception as e:  # noqa: BLE001 (report every program JAX rejects, then fail)
            failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0]}")
    print(f"{len(CASES) - len(failed)} programs in {OUT}")
    if failed:
        raise SystemExit("JAX rejected:\n" + "\n".join(failed))


def write(name, f, args, grad, vmap):
    with jax.enable_x64(name.endswith("_x64")):
        if name in EXPLICIT_CASES:
            (text, outs, grads), consts = explicit_program(name, args, grad), []
        else:
            closed = jax.make_jaxpr(f)(*args)
            text, consts = str(closed), closed.consts
            outs = leaves(jax.jit(f)(*args))
        record = {"name": name, "text": text, "args": [encode(a) for a in args],
                  "outs": [encode(o) for o in outs]}
        if consts:
            record["consts"] = [encode(c) for c in consts]
        if grad is not None:
            if name not in EXPLICIT_CASES:
                grads = leaves(jax.grad(f, argnums=grad)(*args))
            record["grad"] = {"argnums": list(grad), "outs": [encode(o) for o in grads]}
        if vmap is not None:
            in_axes, bargs, *out_axes = vmap
            vouts = leaves(jax.vmap(f, in_axes=in_axes, out_axes=out_axes[0] if out_axes else 0)(
                *map(jnp.asarray, bargs)))
            record["vmap"] = {"in_axes": list(in_axes) if isinstance(in_axes, tuple) else in_axes,
                              "args": [encode(a) for a in bargs],
                              "outs": [encode(o) for o in vouts]}
            if out_axes:
                record["vmap"]["out_axes"] = out_axes[0]
        (OUT / f"{name}.json").write_text(json.dumps(record, indent=None) + "\n")


if __name__ == "__main__":
    main()
