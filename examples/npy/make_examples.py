#!/usr/bin/env python3
"""Writes the example files of docs/ir.md ("Values from .npy files"): a jaxpr that closes over
a weight (a constvar), the weight and an input as .npy files.

    build/venv/bin/python examples/npy/make_examples.py
"""
import pathlib

import numpy as np

import jax
import jax.numpy as jnp

HERE = pathlib.Path(__file__).parent
w = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], np.float32)
x = np.array([1.0, 2.0], np.float32)


def f(x):
    return jnp.tanh(x @ jnp.asarray(w))


# The closed-over weight becomes a constvar (printed before the ';').
closed = jax.make_jaxpr(f)(x)
(HERE / "dense.txt").write_text(str(closed) + "\n")
np.save(HERE / "w.npy", w)
np.save(HERE / "x.npy", x)
np.save(HERE / "expected.npy", np.asarray(f(x)))
# The constants as one archive, positionally (arr_0 is the first constvar's value).
np.savez(HERE / "consts.npz", w)
