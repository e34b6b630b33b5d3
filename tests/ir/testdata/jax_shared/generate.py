"""Writes JAX's printouts with a shared-jaxpr prelude (`let name = { ... } in`) and their values.

Run from this folder with JAX 0.10.2: python generate.py. For each case <name>.txt holds
str(jax.make_jaxpr(f)(*args)) and <name>.values.txt its `arg` and `out` arrays.
"""
import jax
import jax.numpy as jnp
import numpy as np

jax.config.update("jax_platforms", "cpu")

SHORT = {"float32": "f32", "int32": "i32", "bool": "bool"}


def spec(a):
    a = np.asarray(a)
    dims = ",".join(str(d) for d in a.shape)
    if a.dtype == np.bool_:
        vals = ",".join("1" if v else "0" for v in a.ravel())
    elif a.dtype.kind == "f":
        vals = ",".join(repr(float(v)) for v in a.ravel())
    else:
        vals = ",".join(str(int(v)) for v in a.ravel())
    return f"{SHORT[str(a.dtype)]}[{dims}]={vals}"


def write(name, f, *args):
    with open(f"{name}.txt", "w") as out:
        out.write(str(jax.make_jaxpr(f)(*args)) + "\n")
    outs = f(*args)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    with open(f"{name}.values.txt", "w") as out:
        for a in args:
            out.write(f"arg {spec(a)}\n")
        for o in outs:
            out.write(f"out {spec(o)}\n")


@jax.jit
def g(x):
    return jnp.sin(x) * 2.0


@jax.jit
def inner(x):
    return jnp.cos(x) + 1.0


@jax.jit
def outer(x):
    return inner(x) * inner(x + 1.0)


def make_other_g():
    def g(x):  # a second function named g: the prelude numbers it g1
        return jnp.exp(x) - 1.0
    return jax.jit(g)


g_other = make_other_g()


@jax.jit
def f(x):  # 11 equations: hoisted although used once
    for _ in range(11):
        x = -x
    return x


def cond_calls(x):
    return jax.lax.cond(x.sum() > 0, lambda y: g(y) + 1.0, lambda y: g(y) - 1.0, x)


x3 = np.array([1.5, -2.25, 7.0], np.float32)
write("floor_divide", lambda x: x // 2.0, x3)
write("remainder_int", lambda x: x % 3, np.array([7, -5, 3, 0], np.int32))
write("var", jnp.var, np.array([1.0, 2.0, 4.0, 7.0], np.float32))
write("grad_clip", jax.grad(lambda x: jnp.clip(x, 0.0, 1.0).sum()),
      np.array([-0.5, 0.25, 0.75, 2.0], np.float32))
write("grad_log_sigmoid", jax.grad(lambda x: jax.nn.log_sigmoid(x).sum()),
      np.array([-3.0, 0.5, 2.0], np.float32))
write("jit_twice", lambda x: g(g(x)) + g(x), x3)
write("nested_shared", lambda x: outer(x) + outer(x * 2.0), x3)
write("same_name_twice", lambda x: g(x) + g(x * 2.0) + g_other(x) + g_other(x + 1.0), x3)
write("cond_branches", cond_calls, x3)
write("eleven_equations", f, x3)
