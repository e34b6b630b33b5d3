"""Prints the jaxpr of a small loss as JAX prints it, for `axe ir` to read:
python3 examples/make_jaxpr.py > loss.jaxpr"""
import jax
import jax.numpy as jnp


def loss(w, x):
    return jnp.sum(jnp.tanh(x @ w))


print(jax.make_jaxpr(loss)(jnp.ones((3,)), jnp.ones((4, 3))))
