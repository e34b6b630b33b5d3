#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_prng/ with the real JAX: its PRNG as jax.make_jaxpr prints
it (random_seed, random_wrap, random_unwrap, random_split, random_fold_in, random_bits,
threefry2x32, the key<fry> element type) for jax.random.key/PRNGKey, split, fold_in, bits,
uniform, normal, bernoulli, dropout, under jit and vmap, grads of functions of a key and an
array, and bitcast_convert_type (uniform's bits to floats). For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." per output, as JAX computed
                     them, and "const T=v,..." per constant of the closed jaxpr; a key array is written as its key data (two u32 words per key) under
                     its key type, e.g. "arg key<fry>[]=0,42"

and, computed with jax_threefry_partitionable off (the jaxprs do not change, the bits do):

  original.values.txt  "split K N=..." and "bits K W N=..." lines: the key data of
                       split(K, N) and random_bits(K, W, (N,)) for key data K.

prng_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks, and evaluates to JAX's values bit for bit; exec_test.cc runs them on the executor.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_prng.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax
from jax._src.random import threefry2x32 as tf

OUT = pathlib.Path(__file__).parent / "jax_prng"
u32 = np.uint32


def key(seed):
    return jax.random.key(seed)


def dropout(k, x):
    keep = jax.random.bernoulli(k, 0.75, x.shape)
    return jnp.where(keep, x / 0.75, 0.0)


def bits_mask(x, k):
    return jnp.sum(x * (jax.random.bits(k, x.shape) & 255).astype(jnp.float32))


def cases():
    x = np.linspace(-1.0, 1.0, 6, dtype=np.float32).reshape(2, 3)
    yield "seed", (lambda s: jax.random.key(s)), [np.int32(42)]
    yield "seed_negative", (lambda s: jax.random.key(s)), [np.int32(-7)]
    yield "seed_u32", (lambda s: jax.random.key(s)), [u32(4000000000)]
    yield "seed_vmap", jax.vmap(jax.random.key), [np.array([0, 1, 2, -1, 99], np.int32)]
    yield "prngkey", (lambda s: jax.random.PRNGKey(s)), [np.int32(1234)]
    yield "key_data", (lambda k: jax.random.key_data(k)), [key(3)]
    yield "wrap_key_data", (lambda d: jax.random.wrap_key_data(d)), \
        [np.array([[1, 2], [3, 4], [0, 4294967295]], u32)]
    yield "split", (lambda k: jax.random.split(k)), [key(0)]
    yield "split3", (lambda k: jax.random.split(k, 3)), [key(7)]
    yield "split_shape", (lambda k: jax.random.split(k, (2, 3))), [key(11)]
    yield "split_index", (lambda k: jax.random.split(k)[1]), [key(5)]
    yield "split_unpack", (lambda k: tuple(jax.random.split(k, 3))), [key(8)]
    yield "split_split", (lambda k: jax.vmap(jax.random.split)(jax.random.split(k, 4))), [key(9)]
    yield "split_jit", jax.jit(lambda k: jax.random.split(k, 5)), [key(10)]
    yield "split_legacy", (lambda d: jax.random.split(d)), [np.array([0, 42], u32)]
    yield "fold_in", (lambda k: jax.random.fold_in(k, 3)), [key(0)]
    yield "fold_in_data", (lambda k, d: jax.random.fold_in(k, d)), [key(1), u32(12345)]
    yield "fold_in_int", (lambda k, d: jax.random.fold_in(k, d)), [key(1), np.int32(-5)]
    yield "fold_in_vmap", jax.vmap(jax.random.fold_in, in_axes=(None, 0)), \
        [key(2), np.arange(4, dtype=u32)]
    yield "bits_scalar", (lambda k: jax.random.bits(k)), [key(0)]
    yield "bits", (lambda k: jax.random.bits(k, (3,))), [key(0)]
    yield "bits_2d", (lambda k: jax.random.bits(k, (2, 5))), [key(123)]
    yield "bits_odd", (lambda k: jax.random.bits(k, (7,))), [key(77)]
    yield "bits_large", (lambda k: jax.random.bits(k, (1000,))), [key(2024)]
    yield "bits_u8", (lambda k: jax.random.bits(k, (2, 3), dtype=jnp.uint8)), [key(4)]
    yield "bits_u16", (lambda k: jax.random.bits(k, (5,), dtype=jnp.uint16)), [key(4)]
    yield "bits_legacy", (lambda d: jax.random.bits(d, (4,))), [np.array([7, 9], u32)]
    yield "bits_vmap", (lambda k: jax.vmap(lambda kk: jax.random.bits(kk, (2,)))(
        jax.random.split(k, 4))), [key(6)]
    yield "bits_vmap_axis1", (lambda ks: jax.vmap(lambda kk: jax.random.bits(kk, (3,)),
                                                  out_axes=1)(ks)), \
        [jax.random.split(key(31), 2)]
    yield "bits_of_keys", (lambda ks: jax.vmap(jax.vmap(lambda kk: jax.random.bits(kk, (2,))))(
        ks)), [jax.random.split(key(3), (2, 2))]
    yield "threefry2x32", (lambda a, b, c, d: tf.threefry2x32_p.bind(a, b, c, d)), \
        [u32(0x13198a2e), u32(0x03707344), np.array([0x243f6a88, 0, 4294967295], u32),
         np.array([0x85a308d3, 0, 4294967295], u32)]
    yield "threefry_2x32", (lambda k, c: tf.threefry_2x32(k, c)), \
        [np.array([1, 2], u32), np.arange(5, dtype=u32)]
    yield "select_keys", (lambda p, a, b: jax.random.key_data(lax.select(p, a, b))), \
        [np.array([True, False, True]), jax.random.split(key(1), 3), jax.random.split(key(2), 3)]
    yield "concat_keys", (lambda k: jnp.concatenate([jax.random.split(k, 2),
                                                     jax.random.split(k, 3)])), [key(12)]
    yield "gather_keys", (lambda k, i: jax.random.key_data(jax.random.split(k, 5)[i])), \
        [key(26), np.array([4, 0, 2], np.int32)]
    yield "bits_convert", (lambda k, x: x * jax.random.bits(k, x.shape).astype(jnp.float32)), \
        [key(13), x]
    yield "bits_convert_grad", jax.grad(lambda x, k: jnp.sum(
        x * (jax.random.bits(k, x.shape) >> 20).astype(jnp.float32))), [x, key(14)]
    yield "bits_mask", bits_mask, [x, key(15)]
    yield "bits_mask_grad", jax.grad(bits_mask), [x, key(15)]
    yield "bitcast_f32_u32", (lambda a: (lax.bitcast_convert_type(a, jnp.uint32),
                                         lax.bitcast_convert_type(a, jnp.int32))), \
        [np.array([1.0, -0.0, 0.1, -np.inf, 1e-45], np.float32)]
    yield "bitcast_u32_f32", (lambda a: lax.bitcast_convert_type(a, jnp.float32)), \
        [np.array([1065353216, 0, 2143289344, 4286578688, 1], u32)]
    yield "bitcast_narrow", (lambda a: (lax.bitcast_convert_type(a, jnp.uint8),
                                        lax.bitcast_convert_type(a, jnp.int16))), \
        [np.array([[0x01020304, 0xFFFF0080]], u32)]
    yield "bitcast_widen", (lambda a: lax.bitcast_convert_type(a, jnp.int32)), \
        [np.array([[1, 2, 3, 4], [255, 255, 255, 255]], np.uint8)]
    yield "uniform_by_hand", (lambda k: lax.bitcast_convert_type(
        (jax.random.bits(k, (2, 4)) & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000),
        jnp.float32) - 1.0), [key(25)]
    # These need shift_right_logical (uniform) and erf_inv (normal).
    yield "uniform", (lambda k: jax.random.uniform(k, (5,))), [key(0)]
    yield "uniform_range", (lambda k: jax.random.uniform(k, (2, 3), minval=-2.0, maxval=3.0)), \
        [key(17)]
    yield "uniform_legacy", (lambda d: jax.random.uniform(d, (4,))), [np.array([0, 5], u32)]
    yield "uniform_jit", jax.jit(lambda s: jax.random.uniform(jax.random.key(s), (3,))), \
        [np.int32(99)]
    yield "normal", (lambda k: jax.random.normal(k, (6,))), [key(0)]
    yield "bernoulli", (lambda k: jax.random.bernoulli(k, 0.3, (8,))), [key(21)]
    yield "dropout", dropout, [key(22), x]
    yield "dropout_grad", jax.grad(lambda x, k: jnp.sum(dropout(k, x) ** 2)), [x, key(23)]
    yield "uniform_vmap", (lambda k: jax.vmap(lambda kk: jax.random.uniform(kk, (2,)))(
        jax.random.split(k, 3))), [key(24)]


def text(a):
    if isinstance(a, jax.Array) and jax.dtypes.issubdtype(a.dtype, jax.dtypes.prng_key):
        data = np.asarray(jax.random.key_data(a))
        vals = ",".join(str(v) for v in data.reshape(-1))
        return f"key<fry>[{','.join(map(str, a.shape))}]={vals}"
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.uint32): "u32",
            np.dtype(np.uint8): "u8", np.dtype(np.uint16): "u16", np.dtype(np.int16): "i16",
            np.dtype(np.bool_): "bool"}[a.dtype]
    if kind == "bool":
        vals = ",".join("true" if v else "false" for v in a.reshape(-1))
    elif kind == "f32":
        vals = ",".join(str(np.float32(v)) for v in a.reshape(-1))
    else:
        vals = ",".join(repr(v.item()) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals}"


def original_values():
    lines = []
    with jax.threefry_partitionable(False):
        for data in ([0, 0], [0, 42], [4294967295, 1]):
            k = jax.random.wrap_key_data(np.array(data, u32))
            tag = f"{data[0]},{data[1]}"
            for n in (1, 2, 3, 5):
                split = np.asarray(jax.random.key_data(jax.random.split(k, n))).reshape(-1)
                lines.append(f"split {tag} {n}=" + ",".join(map(str, split)))
            for width, dtype in ((8, jnp.uint8), (16, jnp.uint16), (32, jnp.uint32)):
                for n in (1, 3, 7):
                    bits = np.asarray(jax.random.bits(k, (n,), dtype=dtype))
                    lines.append(f"bits {tag} {width} {n}=" + ",".join(map(str, bits)))
    return lines


def main():
    assert jax.config.jax_threefry_partitionable, "JAX's default is partitionable"
    OUT.mkdir(exist_ok=True)
    for name, f, args in cases():
        lines = [f"arg {text(a)}" for a in args]
        outs = f(*args)
        outs = tuple(outs) if isinstance(outs, (tuple, list)) else (outs,)
        lines += [f"out {text(o)}" for o in outs]
        closed = jax.make_jaxpr(f)(*args)
        lines += [f"const {text(c)}" for c in closed.consts]
        (OUT / f"{name}.txt").write_text(str(closed) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")
    (OUT / "original.values.txt").write_text("\n".join(original_values()) + "\n")


if __name__ == "__main__":
    main()
