#!/usr/bin/env python3
"""Regenerates tests/ir/testdata/jax_conv/ with the real JAX: conv_general_dilated as
jax.make_jaxpr prints it for lax.conv_general_dilated, lax.conv, lax.conv_transpose, flax-style
NHWC convolutions, depthwise and grouped convolutions, batch groups, 1-D/2-D/3-D, and for
their gradients and vmaps. For each case:

  <name>.txt         make_jaxpr(f)(*args)
  <name>.loss.txt    make_jaxpr(loss)(*args), loss = sum of sin over f's output
  <name>.grad.txt    make_jaxpr(jax.grad(loss, argnums=(0, 1)))(*args)
  <name>.values.txt  "arg T=v,..." per argument, "out T=v,..." for f and "grad T=v,..." per
                     gradient of loss, as JAX computed them (float cases only for grad)
  <name>.vmap        (some cases) "arg@<axis|none> T=v,..." per argument of jax.vmap(f,
                     in_axes) and "out T=v,..." for its output (out axis 0)

conv_test.cc checks that every text round-trips through axe's parser and printer exactly,
type-checks, and that axe's interpreter, executor, Grad and Vmap give JAX's numbers.

    /work/main/build/venv/bin/python tests/ir/testdata/generate_conv.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp
from jax import lax

OUT = pathlib.Path(__file__).parent / "jax_conv"
HI = lax.Precision.HIGHEST


def data(shape, k=0, dtype=np.float32):
    n = int(np.prod(shape))
    v = np.array([((7 * i + 3 * k) % 17) / 8 - 1.0 + 0.01 * (i % 5) for i in range(n)])
    return v.astype(dtype).reshape(shape)


def ints(shape, k=0, dtype=np.int32, scale=1):
    n = int(np.prod(shape))
    return (np.array([((5 * i + 3 * k) % 13) - 6 for i in range(n)]) * scale).astype(
        dtype).reshape(shape)


def conv(**kw):
    kw.setdefault("precision", HI)
    return lambda x, w: lax.conv_general_dilated(x, w, **kw)


def cases():
    yield "nchw_same", lambda x, w: lax.conv(x, w, (1, 1), "SAME", precision=HI), \
        [data((2, 3, 5, 5)), data((4, 3, 3, 3), 1)], [(0, 0), (None, 0), (1, None)]
    yield "nhwc_flax", conv(window_strides=(2, 2), padding="SAME",
                            dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        [data((2, 6, 6, 3)), data((3, 3, 3, 4), 1)], [(0, 0), (3, None)]
    yield "general", conv(window_strides=(2, 1), padding=((1, -1), (0, 2)), lhs_dilation=(1, 2),
                          rhs_dilation=(2, 1), dimension_numbers=("NCHW", "OIHW", "NHWC")), \
        [data((2, 3, 6, 5)), data((4, 3, 2, 3), 1)], [(0, 0)]
    yield "depthwise", conv(window_strides=(1, 1), padding="SAME", feature_group_count=3,
                            dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        [data((2, 5, 5, 3)), data((3, 3, 1, 6), 1)], [(0, 0), (0, None), (None, 2)]
    yield "grouped", conv(window_strides=(1, 2), padding="VALID", feature_group_count=2), \
        [data((2, 4, 5, 6)), data((6, 2, 3, 3), 1)], [(0, 0), (1, None), (None, 0)]
    yield "batch_group", conv(window_strides=(1, 1), padding=((1, 0), (0, 1)),
                              batch_group_count=2), \
        [data((4, 3, 5, 5)), data((4, 3, 3, 3), 1)], [(0, 0), (0, None), (None, 3)]
    # NHWC with at least 4 input features per group: the executor's channels-last patches.
    yield "nhwc_grouped", conv(window_strides=(2, 1), padding=((1, -1), (2, 0)),
                               lhs_dilation=(2, 1), rhs_dilation=(1, 2), feature_group_count=2,
                               dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        [data((2, 5, 6, 8)), data((3, 2, 4, 6), 1)], [(0, 0), (3, None), (None, 3)]
    yield "nhwc_batch_group", conv(window_strides=(1, 1), padding="SAME", batch_group_count=2,
                                   dimension_numbers=("NHWC", "HWIO", "NHWC")), \
        [data((4, 5, 5, 4)), data((3, 3, 4, 6), 1)], [(0, 0), (0, None), (None, 0)]
    yield "conv1d", conv(window_strides=(2,), padding=((2, 1),), rhs_dilation=(2,)), \
        [data((2, 3, 9)), data((4, 3, 3), 1)], [(0, 0), (2, None)]
    yield "conv3d", conv(window_strides=(1, 2, 1), padding="SAME",
                         dimension_numbers=("NDHWC", "DHWIO", "NDHWC")), \
        [data((1, 4, 5, 4, 2)), data((2, 3, 2, 2, 3), 1)], [(0, 0)]
    yield "transpose_nhwc", lambda x, w: lax.conv_transpose(
        x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=HI), \
        [data((2, 4, 3, 3)), data((3, 3, 3, 2), 1)], [(0, 0)]
    yield "transpose_1d_valid", lambda x, w: lax.conv_transpose(
        x, w, (3,), "VALID", rhs_dilation=(2,), dimension_numbers=("NWC", "WIO", "NWC"),
        precision=HI), [data((2, 4, 3)), data((2, 3, 2), 1)], []
    yield "no_spatial", conv(window_strides=(), padding=()), \
        [data((4, 3)), data((2, 3), 1)], [(0, 0), (None, 1)]
    yield "negative_padding", conv(window_strides=(1, 1), padding=((-1, -2), (1, 0))), \
        [data((2, 2, 6, 5)), data((3, 2, 2, 2), 1)], [(0, 0)]
    yield "odd_specs", conv(window_strides=(2, 1), padding=((0, 1), (1, 1)),
                            dimension_numbers=("HCNW", "WIHO", "NWCH")), \
        [data((5, 3, 2, 4)), data((3, 3, 2, 4), 1)], [(0, 0), (1, None)]
    yield "dilated_strided", conv(window_strides=(3, 2), padding=((1, 2), (0, 1)), lhs_dilation=(2, 1),
                                  rhs_dilation=(1, 2)), \
        [data((1, 2, 5, 7)), data((2, 2, 3, 2), 1)], [(0, 0)]
    yield "window_larger", conv(window_strides=(1,), padding="VALID"), \
        [data((2, 2, 2)), data((3, 2, 3), 1)], []
    yield "preferred_f32", conv(window_strides=(1, 1), padding="SAME",
                                preferred_element_type=jnp.float32,
                                precision=(HI, HI)), \
        [data((1, 2, 4, 4)), data((2, 2, 3, 3), 1)], []
    yield "layer", lambda x, w: jnp.mean(jax.nn.relu(
        lax.conv_general_dilated(x, w, (1, 1), "SAME",
                                 dimension_numbers=("NHWC", "HWIO", "NHWC"), precision=HI)
        + jnp.linspace(-0.2, 0.3, 4)), axis=(1, 2)), \
        [data((2, 6, 6, 3)), data((3, 3, 3, 4), 1)], []
    yield "precision_mixed", conv(window_strides=(1, 1), padding="VALID",
                                  precision=(lax.Precision.HIGH, lax.Precision.DEFAULT)), \
        [data((1, 2, 4, 4)), data((2, 2, 2, 2), 1)], []
    yield "bf16_to_f32", conv(window_strides=(1, 1), padding="SAME",
                              preferred_element_type=jnp.float32, precision=None), \
        [data((1, 3, 4, 4), 0, jnp.bfloat16), data((2, 3, 3, 3), 1, jnp.bfloat16)], []
    # JAX's own batched programs (reshape[dimensions=...] around the convolution).
    yield "vmapped_both", jax.vmap(conv(window_strides=(1, 1), padding="SAME")), \
        [data((2, 2, 3, 4, 4)), data((2, 4, 3, 3, 3), 1)], []
    yield "vmapped_rhs_grouped", jax.vmap(conv(window_strides=(1, 1), padding="VALID",
                                               feature_group_count=2), in_axes=(None, 2)), \
        [data((2, 4, 4, 4)), data((4, 2, 3, 2, 2), 1)], []
    yield "int8_to_int32", conv(window_strides=(1, 1), padding="SAME",
                                preferred_element_type=jnp.int32, precision=None), \
        [ints((2, 3, 4, 4), 0, np.int8, 20), ints((4, 3, 3, 3), 1, np.int8, 21)], []
    yield "int32_wrap", conv(window_strides=(1,), padding="VALID", precision=None), \
        [ints((1, 2, 5), 0, np.int32, 300000), ints((2, 2, 2), 1, np.int32, 700000)], \
        [(0, 0)]
    yield "bool_to_int32", conv(window_strides=(1,), padding="SAME", precision=None,
                                preferred_element_type=jnp.int32), \
        [ints((2, 2, 5)) > 1, ints((2, 2, 3), 1) > 0], []
    yield "bool_conv", conv(window_strides=(1,), padding="SAME", precision=None), \
        [ints((2, 2, 5)) > 1, ints((2, 2, 3), 1) > 0], []


def text(a):
    a = np.asarray(a)
    kind = {np.dtype(np.float32): "f32", np.dtype(np.int32): "i32", np.dtype(np.int8): "i8",
            np.dtype(np.bool_): "bool", np.dtype(jnp.bfloat16): "bf16"}[a.dtype]
    vals = ",".join(("true" if v else "false") if kind == "bool" else repr(v.item())
                    if kind in ("i32", "i8") else str(np.float32(v)) for v in a.reshape(-1))
    return f"{kind}[{','.join(map(str, a.shape))}]={vals or 0}"  # =0: every element (none)


def batched(a, axis, k):
    if axis is None:
        return a
    b = np.stack([a, (a * 0.5 + k) if a.dtype == np.float32 else a + k], axis=axis)
    return b.astype(a.dtype)


def write_vmaps(name, f, args, vmaps):
    lines = []
    for n, axes in enumerate(vmaps):
        vargs = [batched(a, ax, n + i + 1) for i, (a, ax) in enumerate(zip(args, axes))]
        out = jax.vmap(f, in_axes=axes)(*vargs)
        lines += [f"arg@{'none' if ax is None else ax} {text(a)}" for a, ax in zip(vargs, axes)]
        lines.append(f"out {text(out)}")
    if lines:
        (OUT / f"{name}.vmap").write_text("\n".join(lines) + "\n")


def main():
    OUT.mkdir(exist_ok=True)
    for name, f, args, vmaps in cases():
        out = f(*args)
        lines = [f"arg {text(a)}" for a in args] + [f"out {text(out)}"]
        (OUT / f"{name}.txt").write_text(str(jax.make_jaxpr(f)(*args)) + "\n")
        if all(np.asarray(a).dtype == np.float32 for a in args):
            def loss(*xs):
                return jnp.sum(jnp.sin(f(*xs)))
            grads = jax.grad(loss, argnums=(0, 1))(*args)
            lines += [f"grad {text(g)}" for g in grads]
            (OUT / f"{name}.loss.txt").write_text(str(jax.make_jaxpr(loss)(*args)) + "\n")
            (OUT / f"{name}.grad.txt").write_text(
                str(jax.make_jaxpr(jax.grad(loss, argnums=(0, 1)))(*args)) + "\n")
        (OUT / f"{name}.values.txt").write_text("\n".join(lines) + "\n")
        write_vmaps(name, f, args, vmaps)


if __name__ == "__main__":
    main()
