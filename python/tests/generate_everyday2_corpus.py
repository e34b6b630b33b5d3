#!/usr/bin/env python3
"""A second corpus of everyday JAX programs (python/tests/data/everyday2), written as a JAX user
writes them: transformer blocks, conv nets with batchnorm, LSTM/GRU scans, a VAE loss,
cross-entropies, optimizer steps on pytrees, mixed precision, einsum, linear algebra, PRNG,
jacobians and hessians, checkpoint policies, vmaps with in_axes/out_axes, and shard_map losses
on 8 devices. Same record format and same machinery as generate_everyday_corpus.py; the test
is python/tests/test_jax_everyday2.py.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 build/venv/bin/python \\
        python/tests/generate_everyday2_corpus.py [NAME ...]

With names, only those programs are written again.

A record's "vmap" may also hold "out_axes" (jax.vmap(f, in_axes, out_axes)).
"""
import os
import pathlib
import sys

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")
sys.path.insert(0, str(pathlib.Path(__file__).parent))

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

import generate_everyday_corpus as base  # noqa: E402

# The first corpus's programs are registered at import; this module writes only its own.
base.CASES.clear()
base.EXPLICIT_CASES.clear()
base.OUT = pathlib.Path(__file__).parent / "data" / "everyday2"
case, explicit_case = base.case, base.explicit_case
R = base.rng("everyday2")
bf16, f16 = jnp.bfloat16, jnp.float16


def f32(*shape, scale=1.0):
    return (scale * R.standard_normal(shape)).astype(np.float32)


def pos(*shape):
    return (0.5 + R.random(shape)).astype(np.float32)


def labels(n, classes):
    return R.integers(0, classes, size=(n,), dtype=np.int32)


def key(a, b):
    return np.array([a, b], np.uint32)


def stack(*xs):
    return np.stack(xs)


# ---------------------------------------------------------------- transformer pieces
D, T, H = 8, 6, 2
WQ, WK, WV, WO = (f32(D, D, scale=0.35) for _ in range(4))
W_UP, W_GATE, W_DOWN = f32(D, 16, scale=0.35), f32(D, 16, scale=0.35), f32(16, D, scale=0.25)
G_NORM, X_SEQ = pos(D), f32(T, D)


def rms_norm(x, g, eps=1e-6):
    return x * lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + eps) * g


def rope(x, base_freq=10000.0):
    t, d = x.shape[-2], x.shape[-1]
    inv = 1.0 / (base_freq ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
    ang = jnp.arange(t, dtype=jnp.float32)[:, None] * inv[None, :]
    cos, sin = jnp.cos(ang), jnp.sin(ang)
    x1, x2 = x[..., ::2], x[..., 1::2]
    out = jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1)
    return out.reshape(x.shape)


def mha(x, wq, wk, wv, wo, causal=True):
    t = x.shape[0]
    q = (x @ wq).reshape(t, H, D // H).transpose(1, 0, 2)
    k = (x @ wk).reshape(t, H, D // H).transpose(1, 0, 2)
    v = (x @ wv).reshape(t, H, D // H).transpose(1, 0, 2)
    q, k = rope(q), rope(k)
    s = jnp.einsum("hqd,hkd->hqk", q, k) / jnp.sqrt(D // H).astype(jnp.float32)
    if causal:
        s = jnp.where(jnp.tril(jnp.ones((t, t), bool)), s, jnp.finfo(jnp.float32).min)
    p = jax.nn.softmax(s, axis=-1)
    return jnp.einsum("hqk,hkd->qhd", p, v).reshape(t, D) @ wo


@case("transformer_block_loss", [X_SEQ, WQ, WK, WV, WO, W_UP, W_GATE, W_DOWN, G_NORM],
      grad=(1, 2, 5, 8))
def _(x, wq, wk, wv, wo, wu, wg, wd, g):
    h = x + mha(rms_norm(x, g), wq, wk, wv, wo)
    m = rms_norm(h, g)
    h = h + (jax.nn.silu(m @ wg) * (m @ wu)) @ wd
    return jnp.mean(h ** 2)


@case("transformer_block_forward", [X_SEQ, WQ, WK, WV, WO, W_UP, W_DOWN, G_NORM],
      vmap=((0, None, None, None, None, None, None, None),
            [f32(2, T, D), WQ, WK, WV, WO, W_UP, W_DOWN, G_NORM]))
def _(x, wq, wk, wv, wo, wu, wd, g):
    h = x + mha(rms_norm(x, g), wq, wk, wv, wo)
    return h + jax.nn.gelu(rms_norm(h, g) @ wu) @ wd


@case("rotary_embedding", [f32(2, T, 4)], grad=None)
def _(x):
    return rope(x), rope(x, 500.0)


@case("causal_softmax_attention_grad", [f32(T, 4), f32(T, 4), f32(T, 4)], grad=(0, 1, 2))
def _(q, k, v):
    s = q @ k.T * 0.5
    mask = jnp.arange(T)[:, None] >= jnp.arange(T)[None, :]
    p = jax.nn.softmax(jnp.where(mask, s, -1e9), axis=-1)
    return jnp.sum(jnp.tanh(p @ v))


@case("padding_mask_attention", [f32(2, 5, 4), f32(2, 5, 4), np.array([3, 5], np.int32)])
def _(q, kv, lengths):
    valid = jnp.arange(5)[None, :] < lengths[:, None]
    s = jnp.einsum("bqd,bkd->bqk", q, kv)
    s = jnp.where(valid[:, None, :], s, -jnp.inf)
    return jnp.einsum("bqk,bkd->bqd", jax.nn.softmax(s, axis=-1), kv)


@case("grouped_query_attention", [f32(4, 5, 2), f32(2, 5, 2), f32(2, 5, 2)])
def _(q, k, v):
    k, v = jnp.repeat(k, 2, axis=0), jnp.repeat(v, 2, axis=0)
    s = jnp.einsum("hqd,hkd->hqk", q, k) / jnp.sqrt(2.0)
    return jnp.einsum("hqk,hkd->hqd", jax.nn.softmax(s, axis=-1), v)


@case("dot_product_attention_nn", [f32(1, 5, 2, 4), f32(1, 5, 2, 4), f32(1, 5, 2, 4)])
def _(q, k, v):
    return jax.nn.dot_product_attention(q, k, v, is_causal=True)


@case("swiglu_mlp_grad", [f32(4, D), W_UP, W_GATE, W_DOWN], grad=(1, 2, 3))
def _(x, wu, wg, wd):
    return jnp.sum((jax.nn.swish(x @ wg) * (x @ wu)) @ wd)


@case("gelu_tanh_mlp", [f32(4, D), W_UP, f32(16), W_DOWN], grad=(0, 1, 2))
def _(x, w1, b1, w2):
    return jnp.sum(jnp.sin(jax.nn.gelu(x @ w1 + b1, approximate=True) @ w2))


@case("rmsnorm_grad_vmap", [f32(D), G_NORM], grad=(0, 1),
      vmap=((0, None), [f32(3, D), G_NORM]))
def _(x, g):
    return jnp.sum(rms_norm(x, g) ** 3)


@case("layernorm_affine_vmap_out1", [f32(D), pos(D), f32(D)],
      vmap=((0, None, None), [f32(3, D), pos(D), f32(D)], 1))
def _(x, g, b):
    mu = x.mean()
    return (x - mu) / jnp.sqrt(((x - mu) ** 2).mean() + 1e-5) * g + b


@case("token_embedding_logits", [f32(10, 4), np.array([[1, 9, 3], [0, 0, 7]], np.int32)])
def _(emb, ids):
    h = jnp.take(emb, ids, axis=0) * jnp.sqrt(4.0)
    return jnp.einsum("btd,vd->btv", h, emb)


# ---------------------------------------------------------------- conv nets
IMG, K1, K2 = f32(2, 8, 8, 3), f32(3, 3, 3, 4, scale=0.4), f32(3, 3, 4, 4, scale=0.3)
WD_CONV = f32(16, 5, scale=0.3)


def conv_nhwc(x, k, stride=1):
    return lax.conv_general_dilated(x, k, (stride, stride), "SAME",
                                    dimension_numbers=("NHWC", "HWIO", "NHWC"))


def batchnorm_train(x, gamma, beta):
    mean = jnp.mean(x, axis=(0, 1, 2))
    var = jnp.var(x, axis=(0, 1, 2))
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta, mean, var


@case("convnet_batchnorm_loss", [IMG, K1, pos(4), f32(4), K2, WD_CONV, labels(2, 5)],
      grad=(1, 2, 3, 4, 5))
def _(x, k1, gamma, beta, k2, wd, y):
    h, _, _ = batchnorm_train(conv_nhwc(x, k1), gamma, beta)
    h = jax.nn.relu(h)
    h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    h = jax.nn.relu(conv_nhwc(h, k2, stride=2))
    h = h.reshape(h.shape[0], -1)
    logp = jax.nn.log_softmax(h @ wd)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=-1))


@case("batchnorm_running_stats", [IMG, pos(3), f32(3), f32(3), pos(3)])
def _(x, gamma, beta, run_mean, run_var):
    y, mean, var = batchnorm_train(x, gamma, beta)
    n = x.shape[0] * x.shape[1] * x.shape[2]
    return y, 0.9 * run_mean + 0.1 * mean, 0.9 * run_var + 0.1 * var * n / (n - 1)


@case("conv_avgpool_global", [IMG, K1], grad=(1,))
def _(x, k):
    h = jax.nn.relu(conv_nhwc(x, k))
    h = lax.reduce_window(h, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    return jnp.sum(jnp.mean(h, axis=(1, 2)) ** 2)


@case("conv_nchw_bias_stride_pad", [f32(1, 3, 7, 7), f32(4, 3, 3, 3, scale=0.4), f32(4)],
      vmap=((0, None, None), [f32(2, 1, 3, 7, 7), f32(4, 3, 3, 3, scale=0.4), f32(4)]))
def _(x, k, b):
    y = lax.conv_general_dilated(x, k, (2, 2), ((1, 1), (1, 1)))
    return jnp.tanh(y + b[None, :, None, None])


@case("depthwise_conv_grad", [f32(1, 6, 6, 4), f32(3, 3, 1, 4, scale=0.5)], grad=(0, 1))
def _(x, k):
    y = lax.conv_general_dilated(x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                 feature_group_count=4)
    return jnp.sum(jnp.sin(y))


# ---------------------------------------------------------------- recurrent nets
HID, INP, STEPS = 4, 3, 5
LSTM_W, LSTM_U, LSTM_B = f32(INP, 4 * HID, scale=0.4), f32(HID, 4 * HID, scale=0.4), f32(4 * HID)


def lstm(xs, w, u, b):
    def cell(carry, x):
        h, c = carry
        z = x @ w + h @ u + b
        i, f, g, o = jnp.split(z, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    (h, _), hs = lax.scan(cell, (jnp.zeros(HID), jnp.zeros(HID)), xs)
    return h, hs


@case("lstm_scan_loss", [f32(STEPS, INP), LSTM_W, LSTM_U, LSTM_B], grad=(1, 2, 3))
def _(xs, w, u, b):
    h, hs = lstm(xs, w, u, b)
    return jnp.sum(h) + 0.1 * jnp.sum(hs ** 2)


@case("lstm_scan_vmap_batch", [f32(STEPS, INP), LSTM_W, LSTM_U, LSTM_B],
      vmap=((0, None, None, None), [f32(3, STEPS, INP), LSTM_W, LSTM_U, LSTM_B], 1))
def _(xs, w, u, b):
    return lstm(xs, w, u, b)[1]


GRU_W, GRU_U = f32(INP, 3 * HID, scale=0.4), f32(HID, 3 * HID, scale=0.4)


@case("gru_scan_loss", [f32(STEPS, INP), GRU_W, GRU_U], grad=(1, 2))
def _(xs, w, u):
    def cell(h, x):
        xz, xr, xn = jnp.split(x @ w, 3)
        hz, hr, hn = jnp.split(h @ u, 3)
        z, r = jax.nn.sigmoid(xz + hz), jax.nn.sigmoid(xr + hr)
        n = jnp.tanh(xn + r * hn)
        h = (1 - z) * n + z * h
        return h, h
    h, hs = lax.scan(cell, jnp.zeros(HID), xs)
    return jnp.mean(hs) + jnp.sum(h ** 2)


@case("rnn_reverse_bidirectional", [f32(STEPS, INP), f32(INP, HID, scale=0.5),
                                    f32(HID, HID, scale=0.5)], grad=(1, 2))
def _(xs, w, u):
    def cell(h, x):
        h = jnp.tanh(x @ w + h @ u)
        return h, h
    _, fwd = lax.scan(cell, jnp.zeros(HID), xs)
    _, bwd = lax.scan(cell, jnp.zeros(HID), xs, reverse=True)
    return jnp.sum(jnp.concatenate([fwd, bwd], axis=-1) ** 2)


# ---------------------------------------------------------------- VAE, PRNG
ENC, DEC = f32(6, 4, scale=0.4), f32(2, 6, scale=0.4)


@case("vae_loss_reparam", [key(0, 3), f32(3, 6), ENC, DEC], grad=(2, 3))
def _(k, x, enc, dec):
    h = x @ enc
    mu, logvar = h[:, :2], h[:, 2:]
    eps = jax.random.normal(k, mu.shape)
    z = mu + jnp.exp(0.5 * logvar) * eps
    recon = jax.nn.sigmoid(z @ dec)
    rec = jnp.sum((recon - jax.nn.sigmoid(x)) ** 2)
    kl = -0.5 * jnp.sum(1 + logvar - mu ** 2 - jnp.exp(logvar))
    return (rec + kl) / x.shape[0]


@case("vae_typed_key_sample", [np.int32(11), f32(4, 2), f32(4, 2)])
def _(seed, mu, logvar):
    k1, k2 = jax.random.split(jax.random.key(seed))
    z = mu + jnp.exp(0.5 * logvar) * jax.random.normal(k1, mu.shape)
    return z, jax.random.uniform(k2, (3,))


@case("random_split_many", [key(1, 2)])
def _(k):
    ks = jax.random.split(k, 4)
    return jax.vmap(lambda kk: jax.random.uniform(kk, (2,)))(ks), ks


@case("random_typed_categorical_bernoulli", [np.int32(5), f32(3, 4)])
def _(seed, logits):
    k = jax.random.key(seed)
    k1, k2, k3 = jax.random.split(k, 3)
    return (jax.random.categorical(k1, logits, axis=-1), jax.random.bernoulli(k2, 0.25, (5,)),
            jax.random.categorical(k3, logits, axis=0))


@case("random_permutation_shuffle_batch", [key(7, 7), f32(6, 2)])
def _(k, x):
    k1, k2 = jax.random.split(k)
    perm = jax.random.permutation(k1, x.shape[0])
    return x[perm], jax.random.permutation(k2, x, axis=0)


@case("random_typed_permutation_randint", [np.int32(9)])
def _(seed):
    k = jax.random.key(seed)
    k1, k2 = jax.random.split(k)
    return jax.random.permutation(k1, 8), jax.random.randint(k2, (2, 3), -5, 5)


@case("random_fold_in_typed", [np.int32(2), np.int32(4)])
def _(seed, step):
    k = jax.random.fold_in(jax.random.key(seed), step)
    return jax.random.normal(k, (3,)), jax.random.key_data(k)


@case("dropout_typed_key_train", [np.int32(0), f32(4, 6), f32(6, 3, scale=0.4)], grad=(2,))
def _(seed, x, w):
    keep = jax.random.bernoulli(jax.random.key(seed), 0.75, x.shape)
    h = jnp.where(keep, x / 0.75, 0.0)
    return jnp.sum(jnp.tanh(h @ w))


@case("random_normal_scale_shift_vmap", [key(0, 9), f32(3)],
      vmap=((0, None), [np.array([[0, 1], [2, 3], [4, 5]], np.uint32), f32(3)]))
def _(k, mu):
    return mu + 0.1 * jax.random.normal(k, (3,))


# ---------------------------------------------------------------- losses
@case("xent_integer_labels_grad", [f32(5, 7), labels(5, 7)], grad=(0,),
      vmap=((0, 0), [f32(2, 5, 7), np.array([labels(5, 7), labels(5, 7)])]))
def _(logits, y):
    logp = logits - jax.nn.logsumexp(logits, axis=-1, keepdims=True)
    return -jnp.mean(jnp.take_along_axis(logp, y[:, None], axis=-1)[:, 0])


@case("label_smoothing_xent", [f32(4, 6), labels(4, 6)], grad=(0,))
def _(logits, y):
    onehot = jax.nn.one_hot(y, 6)
    target = onehot * (1 - 0.1) + 0.1 / 6
    return jnp.mean(-jnp.sum(target * jax.nn.log_softmax(logits), axis=-1))


@case("xent_ignore_index", [f32(6, 5), np.array([1, -1, 4, 0, -1, 2], np.int32)], grad=(0,))
def _(logits, y):
    valid = y >= 0
    safe = jnp.where(valid, y, 0)
    nll = jax.nn.logsumexp(logits, axis=-1) - jnp.take_along_axis(logits, safe[:, None], 1)[:, 0]
    return jnp.sum(jnp.where(valid, nll, 0.0)) / jnp.maximum(jnp.sum(valid), 1)


@case("sigmoid_bce_with_logits", [f32(8, scale=2.0), R.integers(0, 2, 8).astype(np.float32)],
      grad=(0,))
def _(z, y):
    return jnp.mean(jnp.maximum(z, 0) - z * y + jnp.log1p(jnp.exp(-jnp.abs(z))))


@case("focal_loss", [f32(6, 3), labels(6, 3)], grad=(0,))
def _(logits, y):
    p = jax.nn.softmax(logits)
    pt = jnp.take_along_axis(p, y[:, None], axis=1)[:, 0]
    return -jnp.mean((1 - pt) ** 2 * jnp.log(pt))


@case("infonce_contrastive", [f32(4, 5), f32(4, 5)], grad=(0, 1))
def _(a, b):
    a = a / jnp.linalg.norm(a, axis=-1, keepdims=True)
    b = b / jnp.linalg.norm(b, axis=-1, keepdims=True)
    s = a @ b.T / 0.1
    return jnp.mean(jax.nn.logsumexp(s, axis=1) - jnp.diagonal(s))


@case("cosine_similarity_loss", [f32(3, 4), f32(3, 4)], grad=(0,))
def _(x, y):
    cos = jnp.sum(x * y, -1) / (jnp.linalg.norm(x, axis=-1) * jnp.linalg.norm(y, axis=-1) + 1e-8)
    return jnp.mean(1.0 - cos)


@case("huber_smooth_l1_mean", [f32(10, scale=2.0), f32(10)], grad=(0, 1))
def _(p, t):
    d = p - t
    return jnp.mean(jnp.where(jnp.abs(d) < 1.0, 0.5 * d * d, jnp.abs(d) - 0.5))


@case("mixture_gaussian_nll", [f32(5), f32(3), f32(3), f32(3)], grad=(1, 2, 3))
def _(x, logits, means, logstd):
    lp = (-0.5 * ((x[:, None] - means) / jnp.exp(logstd)) ** 2 - logstd
          - 0.5 * jnp.log(2 * jnp.pi))
    return -jnp.sum(jax.nn.logsumexp(lp + jax.nn.log_softmax(logits), axis=-1))


# ---------------------------------------------------------------- optimizers on pytrees
PARAMS = {"w": f32(3, 2), "b": f32(2)}


@case("adam_pytree_update", [PARAMS["w"], PARAMS["b"], f32(3, 2), f32(2), f32(3, 2), f32(2),
                             pos(3, 2), pos(2), np.int32(5)])
def _(w, b, gw, gb, mw, mb, vw, vb, step):
    params, grads, m, v = {"w": w, "b": b}, {"w": gw, "b": gb}, {"w": mw, "b": mb}, \
        {"w": vw, "b": vb}
    m = jax.tree.map(lambda m, g: 0.9 * m + 0.1 * g, m, grads)
    v = jax.tree.map(lambda v, g: 0.999 * v + 0.001 * g ** 2, v, grads)
    t = step.astype(jnp.float32) + 1
    upd = jax.tree.map(lambda m, v: (m / (1 - 0.9 ** t)) / (jnp.sqrt(v / (1 - 0.999 ** t)) + 1e-8),
                       m, v)
    return jax.tree.map(lambda p, u: p - 1e-2 * u, params, upd), m, v


@case("adamw_global_norm_clip", [f32(4, 3), f32(3), f32(4, 3, scale=5.0), f32(3, scale=5.0)])
def _(w, b, gw, gb):
    grads = (gw, gb)
    gnorm = jnp.sqrt(sum(jnp.sum(g * g) for g in jax.tree.leaves(grads)))
    scale = jnp.minimum(1.0, 1.0 / (gnorm + 1e-6))
    grads = jax.tree.map(lambda g: g * scale, grads)
    return tuple(p - 0.01 * (g + 0.1 * p) for p, g in zip((w, b), grads)), gnorm


@case("sgd_nesterov_train_step", [f32(8, 3), f32(8), f32(3), f32(3)])
def _(x, y, w, mom):
    loss, g = jax.value_and_grad(lambda w: jnp.mean((jnp.tanh(x @ w) - y) ** 2))(w)
    mom = 0.9 * mom + g
    return loss, w - 0.1 * (g + 0.9 * mom), mom


@case("ema_params_tree", [f32(3, 2), f32(2), f32(3, 2), f32(2), np.float32(0.99)])
def _(w, b, ew, eb, decay):
    ema = jax.tree.map(lambda e, p: decay * e + (1 - decay) * p, {"w": ew, "b": eb},
                       {"w": w, "b": b})
    return ema["b"], ema["w"]


@case("train_step_mlp_value_and_grad", [f32(6, 4), labels(6, 3), f32(4, 8, scale=0.4), f32(8),
                                        f32(8, 3, scale=0.4)])
def _(x, y, w1, b1, w2):
    def loss(params):
        w1, b1, w2 = params
        logits = jax.nn.relu(x @ w1 + b1) @ w2
        return -jnp.mean(jnp.sum(jax.nn.one_hot(y, 3) * jax.nn.log_softmax(logits), -1))
    params = (w1, b1, w2)
    val, grads = jax.value_and_grad(loss)(params)
    return val, jax.tree.map(lambda p, g: p - 0.5 * g, params, grads)


@case("value_and_grad_has_aux", [f32(5, 3), f32(3), f32(5)])
def _(x, w, y):
    def loss(w):
        pred = x @ w
        return jnp.mean((pred - y) ** 2), {"pred_max": jnp.max(pred), "acc": jnp.mean(pred * y > 0)}
    (val, aux), g = jax.value_and_grad(loss, has_aux=True)(w)
    return val, aux["acc"], aux["pred_max"], g


@case("lr_warmup_cosine_schedule", [np.int32(37)])
def _(step):
    s = step.astype(jnp.float32)
    warm = s / 10.0
    cos = 0.5 * (1 + jnp.cos(jnp.pi * jnp.clip((s - 10) / 90, 0, 1)))
    return jnp.where(s < 10, warm, cos) * 3e-4


# ---------------------------------------------------------------- mixed precision
@case("bf16_dot_f32_accumulate", [base.dt(f32(4, 8), bf16), base.dt(f32(8, 5), bf16)])
def _(a, b):
    return (lax.dot_general(a, b, (((1,), (0,)), ((), ())), preferred_element_type=jnp.float32),
            jnp.einsum("ij,jk->ik", a, b, preferred_element_type=jnp.float32),
            jnp.matmul(a, b))


@case("mixed_precision_mlp_grad", [f32(4, 6), f32(6, 8, scale=0.4), f32(8, 2, scale=0.4)],
      grad=(1, 2))
def _(x, w1, w2):
    h = jnp.dot(x.astype(bf16), w1.astype(bf16), preferred_element_type=jnp.float32)
    h = jax.nn.relu(h).astype(bf16)
    out = jnp.dot(h, w2.astype(bf16), preferred_element_type=jnp.float32)
    return jnp.mean(out ** 2)


@case("f16_layernorm_f32_stats", [base.dt(f32(3, 8), f16)])
def _(x):
    x32 = x.astype(jnp.float32)
    mu = x32.mean(-1, keepdims=True)
    var = x32.var(-1, keepdims=True)
    return ((x32 - mu) * lax.rsqrt(var + 1e-5)).astype(f16)


@case("bf16_attention_scores", [base.dt(f32(4, 8), bf16), base.dt(f32(5, 8), bf16)])
def _(q, k):
    s = jnp.einsum("qd,kd->qk", q, k, preferred_element_type=jnp.float32)
    return jax.nn.softmax(s, axis=-1).astype(bf16)


@case("loss_scaling_fp16", [base.dt(f32(4, 3), f16), f32(3)], grad=(1,))
def _(x, w):
    y = (x @ w.astype(f16)).astype(jnp.float32)
    return jnp.sum(y ** 2) * 128.0 / 128.0


# ---------------------------------------------------------------- einsum
@case("einsum_forms", [f32(3, 4), f32(4, 5), f32(2, 3, 4), f32(2, 4, 3), f32(4), f32(4, 4)])
def _(a, b, c, d, v, s):
    return (jnp.einsum("ij,jk->ik", a, b), jnp.einsum("bij,bjk->bik", c, d),
            jnp.einsum("i,i->", v, v), jnp.einsum("ij->ji", a), jnp.einsum("ii->i", s),
            jnp.einsum("ii", s), jnp.einsum("ij->", a), jnp.einsum("i,j->ij", v, v),
            jnp.einsum("bij,j->bi", c, v), jnp.einsum("...j,j->...", c, v),
            jnp.einsum("bij,bjk->ik", c, d), jnp.einsum("ij,kj->ikj", a, a))


@case("einsum_grad", [f32(2, 3, 4), f32(4, 5), f32(5)], grad=(0, 1, 2))
def _(x, w, v):
    return jnp.sum(jnp.einsum("btd,de,e->bt", x, w, v) ** 2)


@case("einsum_bilinear_vmap", [f32(3), f32(3, 4), f32(4)],
      vmap=((0, None, 0), [f32(2, 3), f32(3, 4), f32(2, 4)]))
def _(x, a, y):
    return jnp.einsum("i,ij,j->", x, a, y)


# ---------------------------------------------------------------- linear algebra
SPD = (lambda m: (m @ m.T + 4 * np.eye(4)).astype(np.float32))(f32(4, 4))


@case("cholesky_solve", [SPD, f32(4)])
def _(a, b):
    c = jnp.linalg.cholesky(a)
    y = jax.scipy.linalg.solve_triangular(c, b, lower=True)
    return c, jax.scipy.linalg.solve_triangular(c.T, y, lower=False)


@case("triangular_solve_batched", [np.tril(f32(2, 3, 3)) + 3 * np.eye(3, dtype=np.float32),
                                   f32(2, 3, 2)])
def _(l, b):
    return lax.linalg.triangular_solve(l, b, left_side=True, lower=True)


@case("linalg_solve_inv_det", [SPD, f32(4, 2)])
def _(a, b):
    return jnp.linalg.solve(a, b), jnp.linalg.inv(a), jnp.linalg.det(a)


@case("linalg_qr", [f32(5, 3)])
def _(a):
    q, r = jnp.linalg.qr(a)
    return jnp.abs(q), jnp.abs(r)


@case("linalg_eigh", [SPD])
def _(a):
    return jnp.linalg.eigvalsh(a)


@case("linalg_svd_values", [f32(4, 3)])
def _(a):
    return jnp.linalg.svd(a, compute_uv=False)


@case("linalg_slogdet_trace", [SPD])
def _(a):
    sign, logdet = jnp.linalg.slogdet(a)
    return sign, logdet, jnp.trace(a)


@case("gaussian_logpdf_cholesky", [SPD, f32(4)], grad=None)
def _(cov, x):
    c = jnp.linalg.cholesky(cov)
    z = jax.scipy.linalg.solve_triangular(c, x, lower=True)
    return -0.5 * jnp.sum(z ** 2) - jnp.sum(jnp.log(jnp.diag(c))) - 2 * jnp.log(2 * jnp.pi)


@case("cholesky_logpdf_grad", [SPD, f32(4)], grad=(0, 1))
def _(cov, x):
    c = jnp.linalg.cholesky(cov)
    z = jax.scipy.linalg.solve_triangular(c, x, lower=True)
    return -0.5 * jnp.sum(z ** 2) - jnp.sum(jnp.log(jnp.diag(c)))


@case("triangular_solve_variants", [np.triu(f32(3, 3)) + 3 * np.eye(3, dtype=np.float32),
                                    f32(2, 3)], grad=None,
      vmap=((None, 0), [np.triu(f32(3, 3)) + 3 * np.eye(3, dtype=np.float32), f32(2, 2, 3)]))
def _(u, b):
    ts = lax.linalg.triangular_solve
    return (ts(u, b, left_side=False, lower=False),
            ts(u, b, left_side=False, lower=False, transpose_a=True),
            ts(u, b.T, left_side=True, lower=False, unit_diagonal=True),
            ts(u.T, b.T, left_side=True, lower=True, transpose_a=True))


@case("triangular_solve_grad", [np.tril(f32(3, 3)) + 3 * np.eye(3, dtype=np.float32),
                                f32(3, 2)], grad=(0, 1))
def _(l, b):
    ts = lax.linalg.triangular_solve
    x = ts(l, b, left_side=True, lower=True)
    y = ts(l, x.T, left_side=False, lower=True, transpose_a=True, unit_diagonal=True)
    return jnp.sum(jnp.sin(x)) + jnp.sum(y ** 2)


@case("cholesky_vmap_batched", [SPD], vmap=(0, [np.stack([SPD, SPD + np.eye(4, dtype=np.float32),
                                                            2 * SPD])]))
def _(a):
    return jnp.linalg.cholesky(a)


@case("cholesky_not_positive_definite", [np.array([[1.0, 2.0], [2.0, 1.0]], np.float32)])
def _(a):
    return jnp.linalg.cholesky(a)


@case("lu_factor_grad_vmap", [f32(3, 3)], grad=(0,), vmap=(0, [f32(2, 3, 3)]))
def _(a):
    lu, piv = jax.scipy.linalg.lu_factor(a)
    return jnp.sum(jnp.sin(lu)) + jnp.sum(piv).astype(jnp.float32)


@case("lu_permutation_outputs", [f32(4, 3), f32(3, 5)])
def _(a, b):
    return lax.linalg.lu(a), lax.linalg.lu(b)


@case("linalg_norms_ord", [f32(3, 4)])
def _(a):
    return (jnp.linalg.norm(a, ord=1), jnp.linalg.norm(a, ord=jnp.inf),
            jnp.linalg.norm(a, axis=0, ord=1), jnp.linalg.norm(a, axis=1, ord=3),
            jnp.linalg.vector_norm(a), jnp.linalg.matrix_norm(a, ord="fro"))


# ---------------------------------------------------------------- where, sort, unique, segments
@case("unique_static_size", [np.array([3, 1, 3, 7, 1, 0, 7, 7], np.int32)])
def _(x):
    u, counts = jnp.unique(x, size=6, fill_value=-1, return_counts=True)
    return u, counts, jnp.unique(x, size=4)


@case("argsort_descending_topk", [f32(3, 6)])
def _(x):
    order = jnp.argsort(-x, axis=-1)[:, :3]
    vals, idx = lax.top_k(x, 3)
    return order, jnp.take_along_axis(x, order, axis=-1), vals, idx


@case("where_nonzero_size", [f32(8)])
def _(x):
    (idx,) = jnp.nonzero(x > 0, size=5, fill_value=-1)
    return idx, jnp.where(x > 0, size=5, fill_value=0)[0], jnp.argwhere(x < 0, size=3)


@case("segment_sum_mean_grad", [f32(7), np.array([0, 0, 1, 2, 2, 2, 1], np.int32)], grad=(0,))
def _(x, seg):
    s = jax.ops.segment_sum(jnp.sin(x), seg, num_segments=3)
    n = jax.ops.segment_sum(jnp.ones_like(x), seg, num_segments=3)
    return jnp.sum((s / n) ** 2)


@case("segment_max_min_prod", [f32(6), np.array([2, 0, 0, 1, 2, 2], np.int32)])
def _(x, seg):
    return (jax.ops.segment_max(x, seg, 3), jax.ops.segment_min(x, seg, 3),
            jax.ops.segment_prod(x, seg, 3))


@case("sort_by_key_gather", [f32(6), np.array([5, 2, 9, 2, 0, 7], np.int32)])
def _(v, keys):
    k, vv = lax.sort_key_val(keys, v)
    return k, vv, jnp.searchsorted(k, jnp.array([1, 5, 8], np.int32))


@case("cumsum_positions_from_mask", [np.array([[1, 1, 0, 1, 0], [0, 1, 1, 1, 1]], bool)])
def _(m):
    pos_ids = jnp.cumsum(m, axis=-1) * m - 1
    return pos_ids, jnp.cumprod(jnp.where(m, 2, 1), axis=-1), lax.cummax(pos_ids, axis=1)


# ---------------------------------------------------------------- jax.nn
@case("jax_nn_more", [f32(8, scale=2.0)])
def _(x):
    return (jax.nn.squareplus(x), jax.nn.sparse_plus(x), jax.nn.log_softmax(x, where=x > -1.0),
            jax.nn.softmax(x, where=x < 1.0), jax.nn.logsumexp(x, b=jnp.abs(x)),
            jax.nn.hard_swish(x), jax.nn.silu(x), jax.nn.tanh(x))


@case("jax_nn_more_grads", [f32(8, scale=2.0)], grad=(0,))
def _(x):
    return jnp.sum(jax.nn.squareplus(x) + jax.nn.log_sigmoid(x) * jax.nn.mish(x)
                   + jax.nn.celu(x) + jax.nn.hard_tanh(x))


@case("jax_nn_one_hot_ops", [np.array([0, 3, 2, 5], np.int32)])
def _(y):
    return (jax.nn.one_hot(y, 4), jax.nn.one_hot(y, 4, axis=0, dtype=jnp.int32),
            jax.nn.one_hot(y, 6, dtype=bf16))


# ---------------------------------------------------------------- transforms, printed
def _mlp_scalar(w, x):
    return jnp.sum(jnp.tanh(x @ w) ** 2)


@case("jacfwd_printed", [f32(3)])
def _(x):
    return jax.jacfwd(lambda v: jnp.stack([jnp.sin(v).sum(), (v ** 3).prod(), v[0] * v[2]]))(x)


@case("jacrev_printed", [f32(4), f32(4, 3)])
def _(x, w):
    return jax.jacrev(lambda v: jax.nn.softmax(v @ w))(x)


@case("hessian_printed", [f32(3)])
def _(x):
    return jax.hessian(lambda v: jnp.sum(jnp.exp(v) * v[::-1]) + jnp.prod(v))(x)


@case("jacobian_of_mlp_params", [f32(3, 2), f32(4, 3)])
def _(w, x):
    return jax.jacrev(lambda w: jnp.tanh(x @ w))(w)


@case("vmap_out_axes_printed", [f32(3, 4), f32(4)])
def _(x, b):
    return jax.vmap(lambda r, b: (r * b, jnp.sum(r)), in_axes=(0, None), out_axes=(1, 0))(x, b)


@case("vmap_in_axes_dict_printed", [f32(3, 2), f32(2), f32(5, 3)])
def _(w, b, xs):
    params = {"w": w, "b": b}
    return jax.vmap(lambda p, x: jnp.tanh(x @ p["w"] + p["b"]), in_axes=({"w": None, "b": None},
                                                                        0))(params, xs)


@case("vmap_of_grad_per_example", [f32(3, 2), f32(5, 3), f32(5, 2)])
def _(w, xs, ys):
    g = jax.vmap(jax.grad(lambda w, x, y: jnp.sum((jnp.tanh(x @ w) - y) ** 2)), (None, 0, 0))
    per_example = g(w, xs, ys)
    return per_example, jnp.linalg.norm(per_example.reshape(5, -1), axis=1)


@case("vmap_nested_pairwise", [f32(4, 3), f32(5, 3)])
def _(a, b):
    dist = lambda x, y: jnp.sqrt(jnp.sum((x - y) ** 2) + 1e-9)  # noqa: E731
    return jax.vmap(jax.vmap(dist, (None, 0)), (0, None))(a, b)


@case("checkpoint_nothing_saveable", [f32(4, 4, scale=0.5), f32(2, 4)], grad=(0,))
def _(w, x):
    f = jax.checkpoint(lambda h: jnp.tanh(jnp.sin(h @ w) @ w),
                       policy=jax.checkpoint_policies.nothing_saveable)
    return jnp.sum(f(f(x)))


@case("checkpoint_save_names", [f32(4, 4, scale=0.5), f32(2, 4)], grad=(0,))
def _(w, x):
    from jax.ad_checkpoint import checkpoint_name

    def block(h):
        h = checkpoint_name(jnp.sin(h @ w), "proj")
        return jnp.tanh(h @ w)
    f = jax.checkpoint(block, policy=jax.checkpoint_policies.save_only_these_names("proj"))
    return jnp.sum(f(x) ** 2)


@case("checkpoint_everything_saveable_scan", [f32(3, 3, scale=0.5), f32(4, 3)], grad=(0,))
def _(w, xs):
    cell = jax.checkpoint(lambda h, x: (jnp.tanh(h @ w + x), None),
                          policy=jax.checkpoint_policies.everything_saveable)
    h, _ = lax.scan(cell, jnp.zeros(3), xs)
    return jnp.sum(h)


@case("remat_printed_grad", [f32(3, 3, scale=0.5), f32(3)])
def _(w, x):
    return jax.grad(lambda w: jnp.sum(jax.checkpoint(lambda v: jnp.sin(v @ w))(x) ** 2))(w)


@case("fori_loop_grad_static", [f32(3), f32(3, 3, scale=0.4)], grad=(0, 1))
def _(x, w):
    return jnp.sum(lax.fori_loop(0, 4, lambda i, h: jnp.tanh(h @ w) + 0.1 * i, x))


@case("fori_loop_traced_bound_forward", [f32(4), np.int32(3)])
def _(x, n):
    return lax.fori_loop(0, n, lambda i, c: (c[0] * 0.5 + c[1], c[1] + i), (x, jnp.float32(0)))


@case("while_loop_power_iteration", [SPD])
def _(a):
    def body(s):
        v, i = s
        v = a @ v
        return v / jnp.linalg.norm(v), i + 1
    v, n = lax.while_loop(lambda s: s[1] < 30, body, (jnp.ones(4) / 2.0, 0))
    return v @ a @ v, n


@case("lax_map_rows", [f32(4, 3)])
def _(x):
    return lax.map(lambda r: jnp.sort(r) * jnp.arange(3.0), x)


@case("jvp_vjp_printed", [f32(3), f32(3), f32(2)])
def _(x, t, ct):
    f = lambda v: jnp.stack([jnp.sum(jnp.sin(v)), jnp.prod(v)])  # noqa: E731
    y, jt = jax.jvp(f, (x,), (t,))
    _, pullback = jax.vjp(f, x)
    return y, jt, pullback(ct)[0]


@case("linearize_printed", [f32(3), f32(3)])
def _(x, t):
    y, lin = jax.linearize(lambda v: jnp.exp(v) * jnp.cos(v), x)
    return y, lin(t)


@case("grad_of_grad_scalar", [np.float32(0.7)])
def _(x):
    f = lambda v: jnp.sin(v) * v ** 3  # noqa: E731
    return jax.grad(jax.grad(f))(x), jax.grad(jax.grad(jax.grad(f)))(x)


@case("scan_grad_reverse_cumprod", [pos(5)], grad=(0,))
def _(xs):
    c, ys = lax.scan(lambda c, x: (c * x, c * x), 1.0, xs, reverse=True)
    return c + jnp.sum(ys)


@case("stop_gradient_target_net", [f32(3, 2), f32(3, 2), f32(4, 3)], grad=(0,))
def _(w, w_target, x):
    q = x @ w
    target = lax.stop_gradient(x @ w_target + 0.5 * jnp.max(q, axis=-1, keepdims=True))
    return jnp.mean((q - target) ** 2)


# ---------------------------------------------------------------- shard_map on 8 devices
MESH8, MESH42 = base.MESH8, base.MESH42


def smap(f, mesh, in_specs, out_specs):
    return jax.shard_map(f, mesh=mesh, in_specs=in_specs, out_specs=out_specs)


@case("shard_map_dp_loss_pmean_grads", [f32(16, 3), f32(16), f32(3)])
def _(x, y, w):
    def local(xb, yb, w):
        loss, g = jax.value_and_grad(lambda w: jnp.mean((jnp.tanh(xb @ w) - yb) ** 2))(w)
        return lax.pmean(loss, "x"), lax.pmean(g, "x")
    return smap(local, MESH8, (P("x"), P("x"), P()), (P(), P()))(x, y, w)


@case("shard_map_loss_grad", [f32(16, 3), f32(16), f32(3)], grad=(2,))
def _(x, y, w):
    def local(xb, yb, w):
        return lax.psum(jnp.sum((xb @ w - yb) ** 2), "x") / 16.0
    return smap(local, MESH8, (P("x"), P("x"), P()), P())(x, y, w)


@case("shard_map_tp_column_all_gather", [f32(4, 6), f32(6, 16)])
def _(x, w):
    def local(x, wb):
        return lax.all_gather(jax.nn.relu(x @ wb), "x", axis=1, tiled=True)
    return smap(local, MESH8, (P(), P(None, "x")), P("x"))(x, w)


@case("shard_map_tp_row_psum_scatter", [f32(8, 16), f32(16, 8)])
def _(x, w):
    def local(xb, wb):
        return lax.psum_scatter(xb @ wb, "x", scatter_dimension=0, tiled=True)
    return smap(local, MESH8, (P(None, "x"), P("x", None)), P("x", None))(x, w)


@case("shard_map_ring_allreduce_ppermute", [f32(8, 3)])
def _(x):
    def local(xb):
        perm = [(i, (i + 1) % 8) for i in range(8)]

        def step(_, c):
            acc, msg = c
            msg = lax.ppermute(msg, "x", perm)
            return acc + msg, msg
        acc, _ = lax.fori_loop(0, 7, step, (xb, xb))
        return acc
    return smap(local, MESH8, P("x"), P("x"))(x)


@case("shard_map_axis_index_mask", [f32(8, 4)])
def _(x):
    def local(xb):
        i = lax.axis_index("x")
        return jnp.where(i % 2 == 0, xb * i, -xb), lax.psum(i, "x") * jnp.ones(1, jnp.int32)
    return smap(local, MESH8, P("x"), (P("x"), P("x")))(x)


@case("shard_map_2d_mesh_pmean_both", [f32(8, 4)], grad=(0,))
def _(x):
    def local(xb):
        return lax.pmean(jnp.mean(jnp.sin(xb)), ("x", "y"))
    return smap(local, MESH42, P("x", "y"), P())(x)


@case("shard_map_all_gather_untiled", [f32(8, 2)])
def _(x):
    def local(xb):
        g = lax.all_gather(xb, "x")
        return jnp.sum(g, axis=0) + lax.axis_index("x").astype(jnp.float32)
    return smap(local, MESH8, P("x"), P("x"))(x)


@case("shard_map_scan_inside_psum", [f32(8, 5), f32(5, 5, scale=0.3)])
def _(x, w):
    def local(xb, w):
        def body(h, _):
            h = jnp.tanh(h @ w)
            return h, lax.psum(jnp.sum(h), "x")
        h, sums = lax.scan(body, xb[0], None, length=3)
        return h[None], sums
    return smap(local, MESH8, (P("x"), P()), (P("x"), P()))(x, w)


@case("shard_map_softmax_xent_vocab_parallel", [f32(4, 16), np.array([3, 15, 0, 9], np.int32)])
def _(logits, y):
    def local(lb, y):
        m = lax.pmax(jnp.max(lb, axis=-1), "x")
        lse = jnp.log(lax.psum(jnp.sum(jnp.exp(lb - m[:, None]), axis=-1), "x")) + m
        start = lax.axis_index("x") * lb.shape[1]
        local_y = y - start
        inside = (local_y >= 0) & (local_y < lb.shape[1])
        picked = jnp.take_along_axis(lb, jnp.clip(local_y, 0, lb.shape[1] - 1)[:, None], 1)[:, 0]
        return jnp.mean(lse - lax.psum(jnp.where(inside, picked, 0.0), "x"))
    return smap(local, MESH8, (P(None, "x"), P()), P())(logits, y)


@case("shard_map_relu_mlp_grad_printed", [f32(16, 4), f32(4, 4, scale=0.5)])
def _(x, w):
    def loss(w):
        def local(xb, w):
            return lax.psum(jnp.sum(jax.nn.relu(xb @ w) ** 2), "x")
        return smap(local, MESH8, (P("x"), P()), P())(x, w)
    return jax.value_and_grad(loss)(w)


# ---------------------------------------------------------------- more everyday shapes
@case("vit_patchify_embed", [f32(2, 8, 8, 3), f32(48, 6, scale=0.2), f32(5, 6)])
def _(img, w, pos_emb):
    b = img.shape[0]
    patches = img.reshape(b, 2, 4, 2, 4, 3).transpose(0, 1, 3, 2, 4, 5).reshape(b, 4, 48)
    tok = patches @ w
    cls = jnp.zeros((b, 1, 6))
    return jnp.concatenate([cls, tok], axis=1) + pos_emb[None]


@case("kv_cache_decode_step", [f32(8, 4), f32(8, 4), f32(4), f32(4), f32(4), np.int32(3)])
def _(k_cache, v_cache, q, k_new, v_new, t):
    k_cache = lax.dynamic_update_slice(k_cache, k_new[None], (t, 0))
    v_cache = lax.dynamic_update_slice(v_cache, v_new[None], (t, 0))
    s = jnp.where(jnp.arange(8) <= t, k_cache @ q / 2.0, -jnp.inf)
    return jax.nn.softmax(s) @ v_cache, k_cache, v_cache


@case("greedy_decode_fori", [f32(6, 6, scale=0.8), np.int32(1)])
def _(trans, start):
    def step(i, c):
        tok, out = c
        nxt = jnp.argmax(trans[tok]).astype(jnp.int32)
        return nxt, out.at[i].set(nxt)
    return lax.fori_loop(0, 5, step, (start, jnp.zeros(5, jnp.int32)))


@case("beam_topk_logprobs", [f32(3, 7)])
def _(logits):
    lp = jax.nn.log_softmax(logits, axis=-1)
    flat = lp.reshape(-1)
    scores, idx = lax.top_k(flat, 4)
    return scores, idx // 7, idx % 7


@case("sinusoidal_timestep_embedding", [np.array([0.0, 3.0, 17.0], np.float32)])
def _(t):
    half = 4
    freqs = jnp.exp(-jnp.log(10000.0) * jnp.arange(half) / half)
    args = t[:, None] * freqs[None]
    return jnp.concatenate([jnp.sin(args), jnp.cos(args)], axis=-1)


@case("diffusion_noise_loss", [key(3, 1), f32(4, 3), f32(3, 3, scale=0.4), np.float32(0.3)],
      grad=(2,))
def _(k, x0, w, alpha_bar):
    noise = jax.random.normal(k, x0.shape)
    xt = jnp.sqrt(alpha_bar) * x0 + jnp.sqrt(1 - alpha_bar) * noise
    return jnp.mean((jnp.tanh(xt @ w) - noise) ** 2)


@case("mlp_dict_params_grad", [f32(4, 3), f32(3, 5, scale=0.5), f32(5), f32(5, 1, scale=0.5)],
      grad=(1, 2, 3))
def _(x, w1, b1, w2):
    params = {"l1": {"w": w1, "b": b1}, "l2": {"w": w2}}

    def apply(p, x):
        h = jax.nn.leaky_relu(x @ p["l1"]["w"] + p["l1"]["b"], 0.1)
        return (h @ p["l2"]["w"])[:, 0]
    return jnp.mean(apply(params, x) ** 2)


@case("grad_tree_printed", [f32(3, 2), f32(2), f32(4, 3)])
def _(w, b, x):
    g = jax.grad(lambda p: jnp.sum(jax.nn.softplus(x @ p["w"] + p["b"])))({"w": w, "b": b})
    return g["b"], g["w"], optax_like_global_norm(g)


def optax_like_global_norm(tree):
    return jnp.sqrt(sum(jnp.sum(jnp.square(x)) for x in jax.tree.leaves(tree)))


@case("rmsprop_update", [f32(5), f32(5), pos(5)])
def _(p, g, nu):
    nu = 0.9 * nu + 0.1 * jnp.square(g)
    return p - 0.01 * g / (jnp.sqrt(nu) + 1e-7), nu


@case("l1_l2_penalty_grad", [f32(6, scale=0.5), f32(2, 3)], grad=(0, 1))
def _(w, m):
    return 1e-2 * jnp.sum(jnp.abs(w)) + 1e-3 * jnp.sum(m ** 2) + jnp.max(jnp.abs(m))


@case("accuracy_topk_metrics", [f32(6, 5), labels(6, 5)])
def _(logits, y):
    top1 = jnp.mean(jnp.argmax(logits, -1) == y)
    _, top3 = lax.top_k(logits, 3)
    top3_acc = jnp.mean(jnp.any(top3 == y[:, None], axis=-1))
    return top1, top3_acc, jnp.sum(jax.nn.one_hot(y, 5), axis=0)


@case("confusion_matrix_bincount", [labels(10, 3), labels(10, 3)])
def _(y, p):
    return jnp.bincount(y * 3 + p, length=9).reshape(3, 3), jnp.zeros((3, 3), jnp.int32).at[y, p].add(1)


@case("masked_lm_loss", [f32(2, 5, 6), np.array([[1, 2, 3, 0, 0], [4, 5, 1, 2, 0]], np.int32),
                         np.array([[1, 1, 1, 0, 0], [1, 1, 1, 1, 0]], np.float32)], grad=(0,))
def _(logits, tgt, mask):
    logp = jax.nn.log_softmax(logits)
    nll = -jnp.take_along_axis(logp, tgt[..., None], axis=-1)[..., 0]
    return jnp.sum(nll * mask) / jnp.sum(mask)


@case("vmap_in_axes_none_out_axes_tuple", [f32(4), f32(3, 4)],
      vmap=((None, 1), [f32(4), f32(3, 2, 4)], (0, 1)))
def _(w, x):
    return x @ w, jnp.tanh(x) * w


@case("vmap_cross_entropy_per_example", [f32(5), np.int32(2)],
      vmap=((0, 0), [f32(4, 5), np.array([0, 4, 2, 1], np.int32)]))
def _(logits, y):
    return jax.nn.logsumexp(logits) - logits[y]


@case("vmap_scan_cumulative_batch", [f32(6)], vmap=(1, [f32(6, 3)]))
def _(xs):
    return lax.scan(lambda c, x: (0.5 * c + x, c * x), 0.0, xs)


@case("vmap_while_per_example", [np.float32(3.0)], vmap=(0, [np.array([1.0, 5.0, 20.0],
                                                                      np.float32)]))
def _(x):
    return lax.while_loop(lambda v: v < 50.0, lambda v: v * 1.7 + 1.0, x)


@case("grad_through_where_nan_safe", [np.array([0.0, 1.5, -2.0, 4.0], np.float32)], grad=(0,))
def _(x):
    safe = jnp.where(x > 0, x, 1.0)
    return jnp.sum(jnp.where(x > 0, jnp.log(safe), 0.0))


@case("grad_logsumexp_stable_max", [f32(3, 4)], grad=(0,))
def _(x):
    m = lax.stop_gradient(jnp.max(x, axis=1, keepdims=True))
    return jnp.sum(m[:, 0] + jnp.log(jnp.sum(jnp.exp(x - m), axis=1)))


@case("conv_transpose_upsample", [f32(1, 4, 4, 2), f32(3, 3, 2, 3, scale=0.4)], grad=(1,))
def _(x, k):
    y = lax.conv_transpose(x, k, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
    return jnp.sum(y ** 2)


@case("resize_nearest_and_bilinear", [f32(1, 3, 3, 2)])
def _(x):
    return (jax.image.resize(x, (1, 6, 6, 2), "nearest"),
            jax.image.resize(x, (1, 5, 5, 2), "bilinear"))


@case("group_norm", [f32(2, 4, 4, 6), pos(6), f32(6)], grad=(0, 1))
def _(x, g, b):
    n, h, w, c = x.shape
    xg = x.reshape(n, h, w, 3, c // 3)
    mu = xg.mean(axis=(1, 2, 4), keepdims=True)
    var = xg.var(axis=(1, 2, 4), keepdims=True)
    y = ((xg - mu) / jnp.sqrt(var + 1e-5)).reshape(n, h, w, c)
    return jnp.sum(jnp.sin(y * g + b))


@case("ppo_clipped_objective", [f32(6), f32(6), f32(6)], grad=(0,))
def _(logp, old_logp, adv):
    ratio = jnp.exp(logp - old_logp)
    return -jnp.mean(jnp.minimum(ratio * adv, jnp.clip(ratio, 0.8, 1.2) * adv))


@case("td_lambda_returns_scan", [f32(6), f32(6), np.array([0, 0, 1, 0, 0, 0], np.float32)])
def _(rewards, values, dones):
    def step(g, inp):
        r, v, d = inp
        g = r + 0.99 * (1 - d) * (0.05 * v + 0.95 * g)
        return g, g
    _, ret = lax.scan(step, values[-1], (rewards, values, dones), reverse=True)
    return ret


@case("shard_map_dp_train_step_explicit_grad", [f32(16, 4), labels(16, 3), f32(4, 3, scale=0.4)])
def _(x, y, w):
    def local(xb, yb, w):
        def loss(w):
            return -jnp.mean(jnp.take_along_axis(jax.nn.log_softmax(xb @ w), yb[:, None], 1))
        l, g = jax.value_and_grad(loss)(w)
        g = lax.pmean(g, "x")
        return lax.pmean(l, "x"), w - 0.5 * g
    return smap(local, MESH8, (P("x"), P("x"), P()), (P(), P()))(x, y, w)


@case("shard_map_sequence_parallel_layernorm", [f32(4, 16), pos(16)], grad=(0, 1))
def _(x, g):
    def local(xb, gb):
        n = 16
        mu = lax.psum(jnp.sum(xb, -1, keepdims=True), "x") / n
        var = lax.psum(jnp.sum((xb - mu) ** 2, -1, keepdims=True), "x") / n
        return lax.psum(jnp.sum(jnp.sin((xb - mu) * lax.rsqrt(var + 1e-5) * gb)), "x")
    return smap(local, MESH8, (P(None, "x"), P("x")), P())(x, g)


@case("shard_map_2d_mesh_tp_dp", [f32(8, 6), f32(6, 4, scale=0.5)], grad=(1,))
def _(x, w):
    def local(xb, wb):
        h = lax.psum(xb @ wb, "y")
        return lax.psum(jnp.sum(jnp.tanh(h) ** 2), "x")
    return smap(local, MESH42, (P("x", "y"), P("y", None)), P())(x, w)


@case("shard_map_ppermute_halo_exchange", [f32(16)])
def _(x):
    def local(xb):
        right = lax.ppermute(xb[:1], "x", [(i, (i - 1) % 8) for i in range(8)])
        left = lax.ppermute(xb[-1:], "x", [(i, (i + 1) % 8) for i in range(8)])
        padded = jnp.concatenate([left, xb, right])
        return (padded[:-2] + padded[1:-1] + padded[2:]) / 3.0
    return smap(local, MESH8, P("x"), P("x"))(x)


# ---------------------------------------------------------------- library corners users reach
@case("random_gamma_beta_dirichlet", [key(2, 8)])
def _(k):
    k1, k2, k3 = jax.random.split(k, 3)
    return (jax.random.gamma(k1, 2.5, (3,)), jax.random.beta(k2, 2.0, 3.0, (2,)),
            jax.random.dirichlet(k3, jnp.array([1.0, 2.0, 3.0])))


@case("random_poisson_t_laplace", [key(4, 4)])
def _(k):
    k1, k2, k3 = jax.random.split(k, 3)
    return (jax.random.poisson(k1, 3.0, (4,)), jax.random.t(k2, 5.0, (2,)),
            jax.random.laplace(k3, (3,)))


@case("glorot_truncated_init", [np.int32(0)])
def _(seed):
    k1, k2 = jax.random.split(jax.random.key(seed))
    w = jax.nn.initializers.glorot_normal()(k1, (4, 3))
    v = jax.nn.initializers.he_uniform()(k2, (3, 2))
    return w, v


@case("debug_print_in_loss", [f32(3)], grad=(0,))
def _(x):
    y = jnp.sum(jnp.sin(x))
    jax.debug.print("loss {}", y)
    return y


@case("associative_scan_cumsum_max", [f32(8)])
def _(x):
    return lax.associative_scan(jnp.add, x), lax.associative_scan(jnp.maximum, x, reverse=True)


@case("median_percentile_quantile", [f32(9)])
def _(x):
    return jnp.median(x), jnp.percentile(x, 25.0), jnp.quantile(x, jnp.array([0.1, 0.9]))


@case("interp_histogram_digitize", [f32(6), np.linspace(-2, 2, 5).astype(np.float32)])
def _(x, bins):
    return (jnp.interp(x, bins, bins ** 2), jnp.histogram(x, bins=bins)[0],
            jnp.digitize(x, bins))


@case("isin_triu_indices_gather", [f32(4, 4), np.array([1, 5, 3, 8], np.int32)])
def _(a, v):
    i, j = jnp.triu_indices(4, k=1)
    return a[i, j], jnp.isin(v, jnp.array([3, 5, 7]))


@case("fft_power_spectrum", [f32(8)])
def _(x):
    f = jnp.fft.rfft(x)
    return jnp.abs(f) ** 2, jnp.fft.irfft(f, n=8)


@case("scan_unroll_and_lax_reduce", [f32(6, 2)])
def _(xs):
    c, _ = lax.scan(lambda c, x: (c * 0.5 + x, None), jnp.zeros(2), xs, unroll=2)
    return c, lax.reduce(xs, 0.0, lax.add, (0,)), lax.reduce(xs, -jnp.inf, lax.max, (1,))


@case("switch_in_vmap_grad", [np.int32(1), f32(3)], grad=(1,),
      vmap=((0, 0), [np.array([0, 1, 2], np.int32), f32(3, 3)]))
def _(i, x):
    return jnp.sum(lax.switch(i, [jnp.sin, jnp.cos, lambda v: v ** 2], x))


@case("cond_with_operands_grad", [np.float32(1.5), f32(3), f32(3)], grad=(1, 2))
def _(t, a, b):
    return jnp.sum(lax.cond(t > 1.0, lambda a, b: a * b, lambda a, b: a - b, a, b) ** 2)


@case("while_loop_fixed_point_forward", [np.float32(0.3)])
def _(x0):
    def body(s):
        x, i = s
        return jnp.cos(x), i + 1
    return lax.while_loop(lambda s: (jnp.abs(jnp.cos(s[0]) - s[0]) > 1e-5) & (s[1] < 100),
                          body, (x0, 0))


@case("round_decimals_clip_int", [f32(5, scale=10.0), np.array([-7, 0, 3, 12, 99], np.int32)])
def _(x, i):
    return jnp.round(x, 2), jnp.clip(i, 0, 10), jnp.trunc(x), jnp.rint(x)


@case("bf16_softmax_layernorm", [base.dt(f32(3, 8), bf16)])
def _(x):
    y = jax.nn.softmax(x, axis=-1)
    mu = jnp.mean(x, axis=-1, keepdims=True)
    return y, (x - mu) * lax.rsqrt(jnp.var(x, axis=-1, keepdims=True) + 1e-5)


@case("multivariate_normal_sample", [key(9, 9), f32(3), SPD[:3, :3]])
def _(k, mean, cov):
    return jax.random.multivariate_normal(k, mean, cov, (2,), method="cholesky")


@case("named_call_and_scope", [f32(4)])
def _(x):
    with jax.named_scope("block"):
        y = jax.named_call(lambda v: jnp.tanh(v) * 2, name="act")(x)
    return y


@case("checkpoint_static_argnums", [f32(3, 3, scale=0.5), f32(3)], grad=(0,))
def _(w, x):
    @jax.checkpoint
    def layer(w, h):
        return jnp.tanh(w @ h)
    return jnp.sum(layer(w, layer(w, x)))


@case("shard_map_all_gather_grad", [f32(8, 2)], grad=(0,))
def _(x):
    def local(xb):
        g = lax.all_gather(xb, "x", tiled=True)
        return lax.psum(jnp.sum(jnp.sin(g) * xb[0, 0]), "x")
    return smap(local, MESH8, P("x"), P())(x)


@case("shard_map_psum_scatter_grad", [f32(8, 8)], grad=(0,))
def _(x):
    def local(xb):
        y = lax.psum_scatter(xb, "x", scatter_dimension=1, tiled=True)
        return lax.psum(jnp.sum(y ** 2), "x")
    return smap(local, MESH8, P("x"), P())(x)


@case("shard_map_ppermute_grad", [f32(8, 3)], grad=(0,))
def _(x):
    def local(xb):
        y = lax.ppermute(xb, "x", [(i, (i + 1) % 8) for i in range(8)])
        return lax.psum(jnp.sum(y * jnp.cos(xb)), "x")
    return smap(local, MESH8, P("x"), P())(x)


# ---------------------------------------------------------------- decompositions, signs aside
# Eigenvectors and singular vectors are defined up to the sign of each column: these programs
# return them as |v| and through reconstructions (q r, v diag(w) v^T, u diag(s) vt), which do not
# depend on the signs LAPACK picks.
@case("linalg_qr_full_vmap", [f32(4, 3)], vmap=((0,), [f32(2, 4, 3)]))
def _(a):
    q, r = jnp.linalg.qr(a, mode="complete")
    return jnp.abs(q), jnp.abs(r), q @ r


@case("linalg_eigh_vectors_vmap", [SPD], vmap=((0,), [np.stack([SPD, SPD.T @ SPD / 8])]))
def _(a):
    w, v = jnp.linalg.eigh(a)
    return w, jnp.abs(v), (v * w) @ v.T


@case("linalg_qr_grad", [f32(5, 3)], grad=(0,))
def _(a):
    q, r = jnp.linalg.qr(a)
    return jnp.sum(r ** 2 * jnp.arange(1.0, 4.0)) + jnp.sum((q @ q.T)[0] * jnp.arange(5.0))


@case("linalg_eigh_grad", [SPD], grad=(0,))
def _(a):
    w, v = jnp.linalg.eigh(a)
    return jnp.sum(w * jnp.arange(1.0, 5.0)) + jnp.sum(jnp.abs(v[:, -1]))


@case("linalg_nuclear_norm_grad", [f32(4, 3)], grad=(0,))
def _(a):
    return jnp.linalg.norm(a, ord="nuc") + jnp.linalg.norm(a, ord=2)


@case("linalg_svd_vectors", [f32(4, 3)])
def _(a):
    u, s, vt = jnp.linalg.svd(a, full_matrices=False)
    return s, jnp.abs(u), jnp.abs(vt), (u * s) @ vt


@explicit_case("explicit_mlp_forward", [f32(8, 4), f32(4, 3, scale=0.5)], [P("x"), P()])
def _(x, w):
    return jax.nn.gelu(x @ w), jnp.mean(x, axis=0)


@explicit_case("explicit_xent_grad", [f32(8, 4), f32(4, 3, scale=0.5)], [P("x"), P()], grad=(1,))
def _(x, w):
    return -jnp.mean(jax.nn.log_softmax(x @ w)[:, 0])


if __name__ == "__main__":
    if len(sys.argv) > 1:  # regenerate only the programs named
        for name, f, args, grad, vmap in base.CASES:
            if name in sys.argv[1:]:
                base.write(name, f, args, grad, vmap)
    else:
        base.main()
