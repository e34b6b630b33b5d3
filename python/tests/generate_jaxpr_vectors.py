#!/usr/bin/env python3
"""Random programs built in the real JAX, with what JAX says about them, for axe's IR.

    XLA_FLAGS=--xla_force_host_platform_device_count=8 build/venv/bin/python \\
        python/tests/generate_jaxpr_vectors.py --seed 0 --count 300 \\
        --out tests/ir/testdata/jax_jaxpr_vectors.json

Writes {"jax_version", "seed", "cases": [...]} with cases of four kinds:

  jaxpr       `str(jax.make_jaxpr(f)(*args))` of a random program (elementwise ops with
              literals, broadcasts, reshapes, transposes, dot_general, reductions, slices,
              concatenate, select_n, iota, cond, scan, nested jit) over f32/bf16/i32/bool.
  shard_map   a random shard_map program over a random mesh of the 8 host devices (psum,
              all_gather, psum_scatter, all_to_all, ppermute, axis_index, mixed variance so
              that JAX inserts pvary), traced with check_vma on or off.
  typing      a shard_map program JAX printed, then mutated (a pvary dropped, a binder's
              variance changed, an out_spec that needs replication): the text and JAX's own
              verdict from `jax.core.check_jaxpr` (accepted, or the exception's class, its
              builtin base class and message).
  transpose   `jax.linear_transpose` of a random linear shard_map program (check_vma on):
              the program's text, the transpose's text and the count of each collective in it.

Every case has `kind` and `text`; axe must re-print every text character for character
(tests/ir/jax_vectors_test.cc, python/tests/test_jax_jaxprs.py). The program generators are
plain functions of a random.Random so that the pytest suite can draw a fresh batch live.
"""
import argparse
import json
import os
import random
import re

os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=8")

import numpy as np  # noqa: E402

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402
from jax._src import core  # noqa: E402
from jax.sharding import PartitionSpec as P  # noqa: E402

# The primitives axe's IR defines (docs/ir.md, "The primitive set"); a JAX program using
# anything else is redrawn (the count of redraws per primitive is in the file's "skipped").
AXE_PRIMITIVES = set("""
add sub mul div max min pow neg sin cos exp log tanh sqrt abs sign eq ne lt le gt ge
convert_element_type broadcast_in_dim reshape squeeze transpose reduce_sum reduce_max
dot_general slice dynamic_slice dynamic_update_slice concatenate select_n iota jit
closed_call cond scan shard_map psum psum_invariant pmax pmin pvary all_gather
all_gather_invariant reduce_scatter all_to_all ppermute axis_index
rem add_any and or not integer_pow square rsqrt log1p logistic is_finite round floor ceil
clamp stop_gradient reduce_min argmax argmin cumsum cumprod cummax cummin cumlogsumexp
reduce_or reduce_and reduce_xor reduce_prod
""".split())

COLLECTIVES = ("psum", "psum_invariant", "pmax", "pmin", "pvary", "all_gather",
               "all_gather_invariant", "reduce_scatter", "all_to_all", "ppermute")

DTYPES = (jnp.float32, jnp.bfloat16, jnp.int32, jnp.bool_)
MESHES = ((8,), (4,), (2,), (2, 4), (4, 2), (2, 2), (2, 2, 2))
AXIS_NAMES = ("x", "y", "z")


def _primitives(jaxpr, out):
    for eqn in jaxpr.eqns:
        out.add(eqn.primitive.name)
        for sub in core.jaxprs_in_params(eqn.params):
            _primitives(sub, out)
    return out


def _usable(closed, skipped, prefix=""):
    """Whether axe models everything in this printout; else counts why not in `skipped`."""
    why = sorted("primitive " + p for p in _primitives(closed.jaxpr, set()) - AXE_PRIMITIVES)
    for w in why:
        skipped[prefix + w] = skipped.get(prefix + w, 0) + 1
    return not why


# ----------------------------------------------------------------------------- plain jaxprs


class _Prog:
    """A random straight-line program over a pool of traced values."""

    def __init__(self, rng, depth=0):
        self.rng = rng
        self.depth = depth

    def pick(self, pool, pred=lambda v: True):
        cands = [v for v in pool if pred(v)]
        return self.rng.choice(cands) if cands else None

    def literal(self, dtype):
        r = self.rng
        if dtype == jnp.bool_:
            return r.choice([True, False])
        if dtype == jnp.int32:
            return r.randint(-3, 5)
        return r.choice([0.0, 1.0, 2.0, 0.5, -1.5, 3.0])

    def step(self, pool):
        r = self.rng
        op = r.choice(["unary", "binary", "binary", "literal", "compare", "select", "convert",
                       "broadcast", "reshape", "transpose", "dot", "reduce", "slice",
                       "concat", "iota", "dynamic_slice", "expand", "squeeze"]
                      + (["cond", "scan", "jit"] if self.depth < 2 else []))
        return getattr(self, "op_" + op)(pool)

    def op_unary(self, pool):
        v = self.pick(pool, lambda v: v.dtype != jnp.bool_)
        if v is None:
            return None
        if jnp.issubdtype(v.dtype, jnp.floating):
            f = self.rng.choice([jnp.sin, jnp.cos, jnp.exp, jnp.log, jnp.tanh, jnp.sqrt,
                                 jnp.abs, jnp.negative, jnp.sign, lax.neg])
        else:
            f = self.rng.choice([jnp.abs, jnp.negative, jnp.sign])
        return f(v)

    def op_binary(self, pool):
        a = self.pick(pool, lambda v: v.dtype != jnp.bool_)
        if a is None:
            return None
        b = self.pick(pool, lambda v: v.dtype == a.dtype and v.shape == a.shape)
        fs = [lax.add, lax.sub, lax.mul, lax.max, lax.min]
        if jnp.issubdtype(a.dtype, jnp.floating):
            fs += [lax.div, lax.pow]
        return self.rng.choice(fs)(a, b)

    def op_literal(self, pool):
        a = self.pick(pool, lambda v: v.dtype != jnp.bool_)
        if a is None:
            return None
        lit = self.literal(a.dtype)
        f = self.rng.choice([lambda x, y: x + y, lambda x, y: x * y, lambda x, y: y - x,
                             jnp.maximum])
        return f(a, lit)

    def op_compare(self, pool):
        a = self.pick(pool, lambda v: v.dtype != jnp.bool_)
        if a is None:
            return None
        b = self.pick(pool, lambda v: v.dtype == a.dtype and v.shape == a.shape)
        f = self.rng.choice([lax.eq, lax.ne, lax.lt, lax.le, lax.gt, lax.ge])
        return f(a, b) if self.rng.random() < 0.7 else f(a, lax.full_like(a, 1))

    def op_select(self, pool):
        p = self.pick(pool, lambda v: v.dtype == jnp.bool_)
        if p is None:
            return None
        a = self.pick(pool, lambda v: v.shape == p.shape)
        b = self.pick(pool, lambda v: v.shape == p.shape and v.dtype == a.dtype)
        return lax.select(p, a, b)

    def op_convert(self, pool):
        a = self.pick(pool, lambda v: True)
        return lax.convert_element_type(a, self.rng.choice(DTYPES))

    def op_broadcast(self, pool):
        a = self.pick(pool, lambda v: v.ndim < 3)
        if a is None:
            return None
        return jnp.broadcast_to(a, (self.rng.randint(1, 3),) + a.shape)

    def op_expand(self, pool):
        a = self.pick(pool, lambda v: v.ndim < 3)
        if a is None:
            return None
        return lax.expand_dims(a, (self.rng.randint(0, a.ndim),))

    def op_squeeze(self, pool):
        a = self.pick(pool, lambda v: 1 in v.shape)
        if a is None:
            return None
        return lax.squeeze(a, (a.shape.index(1),))

    def op_reshape(self, pool):
        a = self.pick(pool, lambda v: v.ndim > 0)
        if a is None:
            return None
        n = a.size
        divs = [d for d in range(1, n + 1) if n % d == 0]
        d = self.rng.choice(divs)
        return a.reshape((d, n // d) if self.rng.random() < 0.6 else (n,))

    def op_transpose(self, pool):
        a = self.pick(pool, lambda v: v.ndim >= 2)
        if a is None:
            return None
        perm = list(range(a.ndim))
        self.rng.shuffle(perm)
        return lax.transpose(a, tuple(perm))

    def op_dot(self, pool):
        a = self.pick(pool, lambda v: v.ndim in (1, 2) and v.dtype != jnp.bool_)
        if a is None:
            return None
        k = a.shape[-1]
        b = self.pick(pool, lambda v: v.ndim in (1, 2) and v.shape[0] == k
                      and v.dtype == a.dtype)
        if b is None:
            return None
        if self.rng.random() < 0.5:
            return jnp.dot(a, b)
        return lax.dot_general(a, b, (((a.ndim - 1,), (0,)), ((), ())))

    def op_reduce(self, pool):
        a = self.pick(pool, lambda v: v.ndim > 0 and v.dtype != jnp.bool_)
        if a is None:
            return None
        axes = tuple(sorted(self.rng.sample(range(a.ndim), self.rng.randint(1, a.ndim))))
        if self.rng.random() < 0.5:
            return jnp.sum(a, axis=axes)
        return jnp.max(a, axis=axes)

    def op_slice(self, pool):
        a = self.pick(pool, lambda v: v.ndim > 0 and max(v.shape) > 1)
        if a is None:
            return None
        start, limit, strides = [], [], []
        for n in a.shape:
            s = self.rng.randint(0, n - 1)
            start.append(s)
            limit.append(self.rng.randint(s + 1, n))
            strides.append(self.rng.choice([1, 1, 2]))
        if self.rng.random() < 0.5:
            strides = None
        return lax.slice(a, start, limit, strides)

    def op_concat(self, pool):
        a = self.pick(pool, lambda v: v.ndim > 0)
        if a is None:
            return None
        d = self.rng.randint(0, a.ndim - 1)
        b = self.pick(pool, lambda v: v.ndim == a.ndim and v.dtype == a.dtype and all(
            x == y for i, (x, y) in enumerate(zip(v.shape, a.shape)) if i != d))
        return lax.concatenate([a, b], d)

    def op_iota(self, pool):
        return jnp.arange(self.rng.randint(1, 6), dtype=self.rng.choice(DTYPES[:3]))

    def op_dynamic_slice(self, pool):
        a = self.pick(pool, lambda v: v.ndim > 0)
        i = self.pick(pool, lambda v: v.ndim == 0 and v.dtype == jnp.int32)
        if a is None:
            return None
        starts = [i if (i is not None and self.rng.random() < 0.5) else self.rng.randint(0, 2)
                  for _ in a.shape]
        sizes = [self.rng.randint(1, n) for n in a.shape]
        return lax.dynamic_slice(a, starts, sizes)

    def _sub_body(self, args, nout):
        """A nested program over `args` returning values shaped like args[:nout]."""
        sub = _Prog(self.rng, self.depth + 1)
        pool = list(args)
        for _ in range(self.rng.randint(1, 4)):
            v = sub.step(pool)
            if v is not None:
                pool.append(v)
        outs = []
        for t in args[:nout]:
            m = [v for v in pool if v.shape == t.shape and v.dtype == t.dtype]
            outs.append(m[-1])
        return outs

    def op_cond(self, pool):
        p = self.pick(pool, lambda v: v.ndim == 0 and v.dtype in (jnp.bool_, jnp.int32))
        if p is None:
            p = jnp.sum(pool[0]) > 0 if pool[0].dtype != jnp.bool_ else pool[0].any()
            if p.dtype != jnp.bool_:
                return None
        ops = self.rng.sample(pool, min(len(pool), self.rng.randint(1, 3)))
        seed = self.rng.random()

        def branch(k):
            def f(*xs):
                state = self.rng.getstate()
                self.rng.seed(seed + k)
                out = self._sub_body(list(xs), 1)
                self.rng.setstate(state)
                return out[0]
            return f
        if p.dtype == jnp.int32:
            return lax.switch(p, [branch(0), branch(1), branch(2)], *ops)
        return lax.cond(p, branch(0), branch(1), *ops)

    def op_scan(self, pool):
        c = self.pick(pool, lambda v: True)
        xs = self.pick(pool, lambda v: v.ndim > 0)
        n = self.rng.randint(1, 4)

        def body(carry, x):
            out = self._sub_body([carry, x] if x is not None else [carry], 1)
            return out[0], out[0]
        if xs is None or self.rng.random() < 0.3:
            return lax.scan(lambda cr, _: body(cr, None), c, None, length=n)[1]
        return lax.scan(body, c, xs, reverse=self.rng.random() < 0.3)[0]

    def op_jit(self, pool):
        ops = self.rng.sample(pool, min(len(pool), self.rng.randint(1, 2)))
        return jax.jit(lambda *xs: self._sub_body(list(xs), 1)[0])(*ops)


def random_avals(rng, n):
    out = []
    for _ in range(n):
        shape = tuple(rng.randint(1, 4) for _ in range(rng.randint(0, 3)))
        out.append(jax.ShapeDtypeStruct(shape, rng.choice(DTYPES)))
    return out


def random_program(rng):
    """(f, args): a random traced-value program over 1-3 arguments."""
    args = random_avals(rng, rng.randint(1, 3))
    nsteps = rng.randint(1, 8)
    state = rng.random()

    def f(*xs):
        r = random.Random(state)
        prog = _Prog(r)
        pool = list(xs)
        for _ in range(nsteps):
            v = prog.step(pool)
            if v is not None:
                pool.append(v)
        k = r.randint(1, min(2, len(pool)))
        return tuple(pool[-k:])
    return f, args


def jaxpr_case(rng, skipped):
    while True:
        f, args = random_program(rng)
        try:
            cj = jax.make_jaxpr(f)(*args)
        except Exception as e:  # a random draw JAX refuses (shapes): draw again
            skipped["jax refused: " + type(e).__name__] = \
                skipped.get("jax refused: " + type(e).__name__, 0) + 1
            continue
        if not _usable(cj, skipped):
            continue
        return {"kind": "jaxpr", "text": str(cj)}


# ----------------------------------------------------------------------------- shard_map


def random_mesh(rng):
    shape = rng.choice(MESHES)
    names = AXIS_NAMES[:len(shape)]
    return jax.make_mesh(shape, names, axis_types=(jax.sharding.AxisType.Auto,) * len(shape))


def _spec(rng, mesh, ndim, allow_multi=True):
    free = list(mesh.axis_names)
    rng.shuffle(free)
    entries = []
    for _ in range(ndim):
        if free and rng.random() < 0.6:
            if allow_multi and len(free) > 1 and rng.random() < 0.25:
                entries.append((free.pop(), free.pop()))
            else:
                entries.append(free.pop())
        else:
            entries.append(None)
    return P(*entries)


def _divisor(spec_entry, mesh):
    if spec_entry is None:
        return 1
    names = spec_entry if isinstance(spec_entry, tuple) else (spec_entry,)
    return int(np.prod([mesh.shape[n] for n in names]))


class _Body:
    """A random shard_map body: collectives and elementwise ops on local values."""

    def __init__(self, rng, mesh, linear):
        self.rng, self.mesh, self.linear = rng, mesh, linear
        self.names = list(mesh.axis_names)

    def axes(self):
        k = self.rng.randint(1, len(self.names))
        return tuple(self.rng.sample(self.names, k))

    def step(self, pool):
        r = self.rng
        ops = ["psum", "all_gather", "psum_scatter", "all_to_all", "ppermute", "add", "neg",
               "scale"]
        if not self.linear:
            ops += ["axis_index", "sin", "pmax", "add_literal"]
        return getattr(self, "op_" + r.choice(ops))(pool)

    def op_psum(self, pool):
        return lax.psum(self.rng.choice(pool), self.axes())

    def op_pmax(self, pool):
        return lax.pmax(self.rng.choice(pool), self.axes())

    def op_all_gather(self, pool):
        v = self.rng.choice(pool)
        ax = self.rng.choice(self.names)
        if self.rng.random() < 0.5 or v.ndim == 0:
            return lax.all_gather(v, ax, axis=self.rng.randint(0, v.ndim), tiled=False)
        return lax.all_gather(v, ax, axis=self.rng.randint(0, v.ndim - 1), tiled=True)

    def op_psum_scatter(self, pool):
        ax = self.rng.choice(self.names)
        n = self.mesh.shape[ax]
        cands = [(v, d) for v in pool for d in range(v.ndim) if v.shape[d] % n == 0]
        if not cands:
            return None
        v, d = self.rng.choice(cands)
        return lax.psum_scatter(v, ax, scatter_dimension=d, tiled=True)

    def op_all_to_all(self, pool):
        ax = self.rng.choice(self.names)
        n = self.mesh.shape[ax]
        cands = [(v, d) for v in pool for d in range(v.ndim) if v.shape[d] % n == 0]
        if not cands:
            return None
        v, d = self.rng.choice(cands)
        c = self.rng.randint(0, v.ndim - 1)
        return lax.all_to_all(v, ax, d, c, tiled=True)

    def op_ppermute(self, pool):
        ax = self.rng.choice(self.names)
        n = self.mesh.shape[ax]
        shift = self.rng.randint(1, max(1, n - 1))
        perm = [(i, (i + shift) % n) for i in range(n)]
        return lax.ppermute(self.rng.choice(pool), ax, perm)

    def op_add(self, pool):
        a = self.rng.choice(pool)
        b = self.rng.choice([v for v in pool if v.shape == a.shape and v.dtype == a.dtype])
        return a + b

    def op_neg(self, pool):
        return -self.rng.choice(pool)

    def op_scale(self, pool):
        return self.rng.choice(pool) * self.rng.choice([2.0, 0.5, 3.0])

    def op_sin(self, pool):
        return jnp.sin(self.rng.choice(pool))

    def op_add_literal(self, pool):
        return self.rng.choice(pool) + self.rng.choice([1.0, 2.0])

    def op_axis_index(self, pool):
        v = self.rng.choice(pool)
        i = lax.axis_index(self.rng.choice(self.names)).astype(v.dtype)
        return v + i


def _vma(aval):
    """The variance set of a traced value's type (jax 0.10 keeps it in manual_axis_type)."""
    mat = getattr(aval, "mat", None)
    return frozenset(mat.varying) if mat is not None else frozenset(aval.vma)


def _out_spec_for(rng, mesh, ndim, vma):
    """Mostly a spec naming every axis in `vma` (what check_vma needs), else a random one."""
    if rng.random() < 0.2 or (vma and ndim == 0):
        return _spec(rng, mesh, ndim)
    entries = [[] for _ in range(ndim)]
    rest = [a for a in mesh.axis_names if a not in vma and rng.random() < 0.3]
    for a in [a for a in mesh.axis_names if a in vma] + rest:
        entries[rng.randrange(ndim)].append(a)
    return P(*[None if not e else e[0] if len(e) == 1 else tuple(e) for e in entries])


def random_shard_map(rng, linear=False, check_vma=None):
    """(f, args, description) of a random shard_map program; JAX may refuse it (check_vma)."""
    mesh = random_mesh(rng)
    if check_vma is None:
        check_vma = rng.random() < 0.75
    nargs = rng.randint(1, 2)
    in_specs, args = [], []
    for _ in range(nargs):
        ndim = rng.randint(1, 2)
        spec = _spec(rng, mesh, ndim)
        shape = tuple(_divisor(e, mesh) * rng.choice([1, 2, 4])
                      for e in list(spec) + [None] * (ndim - len(spec)))
        in_specs.append(spec)
        args.append(jax.ShapeDtypeStruct(shape, jnp.float32))
    nsteps = rng.randint(1, 5)
    state = rng.random()
    nout = rng.randint(1, 2)
    out_state = rng.random()
    out_ndims = {}

    def body(*xs):
        r = random.Random(state)
        b = _Body(r, mesh, linear)
        pool = list(xs)
        for _ in range(nsteps):
            v = b.step(pool)
            if v is not None:
                pool.append(v)
        outs = tuple(pool[-nout:])
        out_ndims["n"] = [(o.ndim, _vma(jax.typeof(o)) if check_vma else frozenset())
                          for o in outs]
        return outs

    # The out_specs depend on the outputs' ranks and variance: trace once to learn them.
    probe = jax.shard_map(body, mesh=mesh, in_specs=tuple(in_specs),
                          out_specs=P(), check_vma=check_vma)
    try:
        jax.eval_shape(probe, *args)
    except Exception:
        pass
    ro = random.Random(out_state)
    if "n" not in out_ndims:
        return None
    out_specs = tuple(_out_spec_for(ro, mesh, n, vma) for n, vma in out_ndims["n"])
    f = jax.shard_map(body, mesh=mesh, in_specs=tuple(in_specs), out_specs=out_specs,
                      check_vma=check_vma)
    return f, args


def _exception_record(e):
    base = next(c.__name__ for c in type(e).__mro__ if c.__module__ == "builtins")
    return {"exception": type(e).__name__, "exception_base": base, "message": str(e)}


def shard_map_case(rng, skipped):
    while True:
        drawn = random_shard_map(rng)
        if drawn is None:
            skipped["shard_map: body refused"] = skipped.get("shard_map: body refused", 0) + 1
            continue
        f, args = drawn
        try:
            cj = jax.make_jaxpr(f)(*args)
        except Exception as e:
            key = "shard_map refused: " + type(e).__name__
            skipped[key] = skipped.get(key, 0) + 1
            continue
        if not _usable(cj, skipped):
            continue
        return cj


# ----------------------------------------------------------------------------- typing


def _rebuild(jaxpr, eqns, outvars=None):
    return jaxpr.replace(eqns=eqns, outvars=jaxpr.outvars if outvars is None else outvars)


def _subst(atoms, env):
    return [env.get(a, a) if isinstance(a, core.Var) else a for a in atoms]


def mutate_drop_pvary(rng, body):
    """Drops one pvary: its operand (less varying) replaces its result everywhere."""
    idx = [i for i, e in enumerate(body.eqns) if e.primitive.name == "pvary"]
    if not idx:
        return None
    k = rng.choice(idx)
    env = dict(zip(body.eqns[k].outvars, body.eqns[k].invars))
    eqns = [e.replace(invars=_subst(e.invars, env)) for i, e in enumerate(body.eqns) if i != k]
    return _rebuild(body, eqns, _subst(body.outvars, env))


def mutate_binder_vma(rng, body, mesh):
    """Gives one equation's result a different variance set in its binder."""
    if not body.eqns:
        return None
    k = rng.randrange(len(body.eqns))
    e = body.eqns[k]
    old = e.outvars[0]
    mat = old.aval.mat
    vma = frozenset(_vma(old.aval) ^ {rng.choice(mesh.axis_names)})
    new = core.Var(old.aval.update(manual_axis_type=mat.update(varying=vma)))
    env = {old: new}
    eqns = list(body.eqns)
    eqns[k] = e.replace(outvars=[new] + list(e.outvars[1:]))
    for i in range(k + 1, len(eqns)):
        eqns[i] = eqns[i].replace(invars=_subst(eqns[i].invars, env))
    return _rebuild(body, eqns, _subst(body.outvars, env))


def mutate_out_spec(rng, top, k):
    """Drops from one out_spec an axis its body output varies over (the output then needs a
    replication the body does not prove); the shard_map's global output type follows."""
    eqn = top.eqns[k]
    body, mesh = eqn.params["jaxpr"], eqn.params["mesh"]
    choices = []
    for i, (v, spec) in enumerate(zip(body.outvars, eqn.params["out_specs"])):
        vma = _vma(v.aval) if isinstance(v, core.Var) else frozenset()
        for d, entry in enumerate(spec):
            names = entry if isinstance(entry, tuple) else (entry,) if entry else ()
            choices += [(i, d, a) for a in names if a in vma]
    if not choices:
        return None
    i, d, axis = rng.choice(choices)
    spec = list(eqn.params["out_specs"][i])
    names = tuple(a for a in (spec[d] if isinstance(spec[d], tuple) else (spec[d],))
                  if a != axis)
    spec[d] = None if not names else names[0] if len(names) == 1 else names
    out_specs = list(eqn.params["out_specs"])
    out_specs[i] = P(*spec)
    old = eqn.outvars[i]
    shape = list(old.aval.shape)
    shape[d] //= mesh.shape[axis]
    new = core.Var(old.aval.update(shape=tuple(shape)))
    env = {old: new}
    outvars = list(eqn.outvars)
    outvars[i] = new
    eqns = list(top.eqns)
    eqns[k] = eqn.replace(params={**eqn.params, "out_specs": tuple(out_specs)}, outvars=outvars)
    for j in range(k + 1, len(eqns)):
        eqns[j] = eqns[j].replace(invars=_subst(eqns[j].invars, env))
    return top.replace(eqns=eqns, outvars=_subst(top.outvars, env))


def typing_case(rng, skipped):
    """A JAX-printed shard_map program, possibly mutated, and JAX's check_jaxpr verdict."""
    while True:
        cj = shard_map_case(rng, skipped)
        top = cj.jaxpr
        k = next(i for i, e in enumerate(top.eqns) if e.primitive.name == "shard_map")
        eqn = top.eqns[k]
        if not eqn.params["check_vma"]:
            continue
        body = eqn.params["jaxpr"]
        mesh = eqn.params["mesh"]
        how = rng.choice(["none", "drop_pvary", "drop_pvary", "binder_vma", "out_spec"])
        if how == "drop_pvary":
            body = mutate_drop_pvary(rng, body)
        elif how == "binder_vma":
            body = mutate_binder_vma(rng, body, mesh)
        if body is None:
            continue
        new_top = top.replace(eqns=top.eqns[:k] + [eqn.replace(params={**eqn.params,
                                                                        "jaxpr": body})]
                              + top.eqns[k + 1:])
        if how == "out_spec":
            new_top = mutate_out_spec(rng, new_top, k)
            if new_top is None:
                continue
        mutated = core.ClosedJaxpr(new_top, cj.consts)
        case = {"kind": "typing", "mutation": how, "text": str(mutated)}
        try:
            core.check_jaxpr(new_top)
            case["accepted"] = True
        except Exception as e:  # JAX's verdict, whatever its class
            case["accepted"] = False
            case.update(_exception_record(e))
            # The "from source: ..." lines name files of this machine.
            case["message"] = re.sub(r"\n\nfrom source: [^\n]*", "", case["message"])
        return case


# ----------------------------------------------------------------------------- transposes


def _count_collectives(jaxpr, counts):
    for eqn in jaxpr.eqns:
        if eqn.primitive.name in COLLECTIVES:
            counts[eqn.primitive.name] = counts.get(eqn.primitive.name, 0) + 1
        for sub in core.jaxprs_in_params(eqn.params):
            _count_collectives(sub, counts)
    return counts


def transpose_case(rng, skipped):
    while True:
        drawn = random_shard_map(rng, linear=True, check_vma=True)
        if drawn is None:
            continue
        f, args = drawn
        try:
            cj = jax.make_jaxpr(f)(*args)
            outs = jax.eval_shape(f, *args)
            outs = outs if isinstance(outs, tuple) else (outs,)
            ft = jax.linear_transpose(f, *args)
            tj = jax.make_jaxpr(lambda *cts: ft(cts))(*outs)
        except Exception as e:
            key = "transpose refused: " + type(e).__name__
            skipped[key] = skipped.get(key, 0) + 1
            continue
        if not (_usable(cj, skipped) and _usable(tj, skipped, "transpose: ")):
            continue
        return {"kind": "transpose", "text": str(cj), "transposed": str(tj),
                "transposed_consts": [np.asarray(c, np.float64).ravel().tolist()
                                      for c in tj.consts],
                "collectives": _count_collectives(tj.jaxpr, {})}


# ----------------------------------------------------------------------------- the file


def generate(seed, count):
    """`count` cases of each of jaxpr and shard_map, count/2 typing, count/4 transposes."""
    rng = random.Random(seed)
    skipped = {}
    cases = [jaxpr_case(rng, skipped) for _ in range(count)]
    for _ in range(count):
        cases.append({"kind": "shard_map", "text": str(shard_map_case(rng, skipped))})
    cases += [typing_case(rng, skipped) for _ in range(count // 2)]
    cases += [transpose_case(rng, skipped) for _ in range(max(1, count // 4))]
    return {"jax_version": jax.__version__, "seed": seed, "skipped": skipped, "cases": cases}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--count", type=int, default=300)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "..", "tests",
                                                  "ir", "testdata", "jax_jaxpr_vectors.json"))
    a = ap.parse_args()
    data = generate(a.seed, a.count)
    with open(a.out, "w") as f:
        json.dump(data, f, indent=0, sort_keys=True)
        f.write("\n")
    kinds = {}
    for c in data["cases"]:
        kinds[c["kind"]] = kinds.get(c["kind"], 0) + 1
    print(f"wrote {a.out}: {kinds}; redrawn: {data['skipped']}")


if __name__ == "__main__":
    main()
