"""Differential tests against the real JAX (make test-jax installs it into the build's
virtual environment). They skip when jax is not importable. XLA_FLAGS must give 8 host
devices (the ctest entry and make test-jax set --xla_force_host_platform_device_count=8)."""

import itertools

import numpy as np
import pytest

import axe
from axe import sharding as axs

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P  # noqa: E402

CASES = 300


@pytest.fixture(scope="module")
def devices():
    devs = jax.devices()
    if len(devs) < 8:
        pytest.skip("needs XLA_FLAGS=--xla_force_host_platform_device_count=8")
    return devs[:8]


def _factorizations(n, parts):
    if parts == 1:
        yield (n,)
        return
    for d in range(1, n + 1):
        if n % d == 0:
            for rest in _factorizations(n // d, parts - 1):
                yield (d,) + rest


def random_sharding(rng, devices):
    """A random mesh (1-3 axes over 8 or fewer devices, a random device order), spec and a
    global shape the spec divides."""
    n = rng.choice([1, 2, 4, 8])
    naxes = rng.randrange(1, 4)
    sizes = rng.choice(list(_factorizations(n, naxes)))
    names = tuple("xyz"[:naxes])
    order = list(range(n))
    rng.shuffle(order)
    mesh_devices = np.array([devices[i] for i in order], dtype=object).reshape(sizes)
    mesh = Mesh(mesh_devices, names)
    rank = rng.randrange(1, 4)
    free = list(names)
    rng.shuffle(free)
    entries = []
    for _ in range(rank):
        k = rng.randrange(0, min(2, len(free)) + 1)
        taken, free = free[:k], free[k:]
        entries.append(None if k == 0 else taken[0] if k == 1 else tuple(taken))
    while entries and entries[-1] is None and rng.random() < 0.5:
        entries.pop()
    spec = P(*entries)
    shape = []
    for i in range(rank):
        entry = entries[i] if i < len(entries) else None
        axes = () if entry is None else (entry,) if isinstance(entry, str) else entry
        pieces = int(np.prod([sizes[names.index(a)] for a in axes])) if axes else 1
        shape.append(pieces * rng.randrange(1, 4))
    return NamedSharding(mesh, spec), tuple(shape)


def _boxes(index_map, shape):
    out = {}
    for device, index in index_map.items():
        key = device if isinstance(device, int) else device.id
        out[key] = tuple(s.indices(d)[:2] for s, d in zip(index, shape))
    return out


def test_devices_indices_map_and_hlo_agree(rng, devices):
    for case in range(CASES):
        jax_sharding, shape = random_sharding(rng, devices)
        ours = axe.from_jax(jax_sharding)
        context = f"case {case}: {jax_sharding!r} on {shape}"
        assert _boxes(ours.devices_indices_map(shape), shape) == _boxes(
            jax_sharding.devices_indices_map(shape), shape), context
        assert str(ours._to_xla_hlo_sharding(len(shape))) == str(
            jax_sharding._to_xla_hlo_sharding(len(shape))), context
        assert ours.shard_shape(shape) == jax_sharding.shard_shape(shape), context
        assert axs.NamedSharding.parse(repr(jax_sharding)).spec == ours.spec, context


def test_reprs(rng, devices):
    for _ in range(CASES):
        jax_sharding, _ = random_sharding(rng, devices)
        assert repr(axe.from_jax(jax_sharding.spec)) == repr(jax_sharding.spec)
    from jax.experimental.layout import Format, Layout
    for m2m in itertools.permutations(range(3)):
        jax_layout = Layout(major_to_minor=m2m)
        assert repr(axe.from_jax(jax_layout)) == repr(jax_layout)
        assert repr(axs.Layout(m2m)) == repr(jax_layout)
    assert repr(axs.Layout.AUTO) == repr(Layout.AUTO)
    assert repr(axs.Format(axs.Layout.AUTO)) == repr(Format(Layout.AUTO))
    assert repr(axs.Format()) == repr(Format())


def test_from_jax_on_real_arrays(rng, devices):
    for case in range(40):
        jax_sharding, shape = random_sharding(rng, devices)
        x = jax.device_put(jnp.arange(int(np.prod(shape)), dtype=jnp.float32).reshape(shape),
                           jax_sharding)
        info = axe.from_jax(x)
        assert info.shape == shape and info.dtype == "float32"
        assert info.sharding == axe.from_jax(jax_sharding)
        assert axe.from_jax(jax.ShapeDtypeStruct(shape, jnp.float32,
                                                  sharding=jax_sharding)).sharding == info.sharding
        if info.layout is not None:
            assert axe.from_jax(x.format) == axs.Format(info.layout, info.sharding)
        # The Axe layout says where every element lives: (logical device, offset in its
        # shard). Check sampled elements against the shards JAX holds.
        layout = info.to_axe()
        ids = info.sharding.mesh.device_ids
        shards = {s.device.id: np.asarray(s.data).reshape(-1) for s in x.addressable_shards}
        host = np.asarray(x)
        for _ in range(10):
            coord = tuple(rng.randrange(d) for d in shape)
            points = layout.apply(coord, shape=shape)
            holders = {ids[p.get("gpuid", 0)] for p in points}
            expected = {d for d, idx in _boxes(x.sharding.devices_indices_map(shape),
                                               shape).items()
                        if all(b <= c < e for c, (b, e) in zip(coord, idx))}
            assert holders == expected, f"case {case}: {coord}"
            for p in points:
                assert shards[ids[p.get("gpuid", 0)]][p.get("m", 0)] == host[coord]


def test_explain_prints_every_notation(devices, capsys):
    mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"))
    x = jax.device_put(jnp.zeros((8, 16)), NamedSharding(mesh, P("x", "y")))
    e = axe.explain(x)
    out = capsys.readouterr().out
    assert e.hlo == "{devices=[2,4]<=[8]}" and e.hlo in out
    assert f"jax            {x.sharding!r}\n" in out
    assert e.axe in out and e.local_axe in out and "device  replica group  index" in out


def test_explain_jax_line_is_jaxs_repr(devices, capsys):
    """The jax line is what JAX prints for the array's NamedSharding, axis types included."""
    from jax.sharding import AxisType

    for types in [(AxisType.Auto, AxisType.Auto), (AxisType.Explicit, AxisType.Auto)]:
        mesh = Mesh(np.array(devices).reshape(2, 4), ("x", "y"), axis_types=types)
        x = jax.device_put(jnp.zeros((8, 16)), NamedSharding(mesh, P("x", None)))
        e = axe.explain(x)
        assert e.named_jax == repr(x.sharding)
        assert f"jax            {x.sharding!r}\n" in capsys.readouterr().out


def _jax_show_program_ids(shape, block_shape, grid):
    from jax.experimental import pallas as pl

    def kernel(o_ref):
        ids = 0
        for a in range(len(grid)):
            ids = ids * 10 + pl.program_id(a)
        o_ref[...] = jnp.full(o_ref.shape, ids, dtype=o_ref.dtype)

    return np.asarray(pl.pallas_call(
        kernel, out_shape=jax.ShapeDtypeStruct(shape, jnp.int32),
        out_specs=pl.BlockSpec(block_shape, lambda *ids: ids), grid=grid, interpret=True)())


def test_pallas_show_program_ids_agree(rng):
    """Random Blocked BlockSpecs with the identity index map, including edge blocks (block
    not dividing the array) and out-of-bounds blocks (grid past the last block, which
    Pallas clamps); grids cover the whole output so that no element is left unwritten."""
    for case in range(60):
        rank = rng.randrange(1, 3)
        shape = tuple(rng.randrange(1, 13) for _ in range(rank))
        block = tuple(rng.randrange(1, d + 1) for d in shape)
        grid = tuple(-(-d // b) + (rng.random() < 0.3) for d, b in zip(shape, block))
        names = "ijk"[:rank]
        index_map = f"({', '.join(names)}) -> ({', '.join(names)},)"
        ours = axe.pallas.show_program_ids(shape, block, grid, index_map)
        theirs = _jax_show_program_ids(shape, block, grid)
        np.testing.assert_array_equal(ours, theirs, err_msg=f"case {case}: {shape} {block} {grid}")


def test_meshes_on_any_device_ids(devices):
    """Meshes on devices 4-7, on three devices 5-7 and permuted: JAX's device maps and HLO."""
    for ids, sizes, spec, shape in [([4, 5, 6, 7], (4,), P("x"), (8, 2)),
                                    ([5, 6, 7], (3,), P("x"), (6,)),
                                    ([5, 6, 7], (3,), P(None, "x"), (2, 3)),
                                    ([7, 5, 6, 4], (2, 2), P("y", "x"), (4, 4))]:
        mesh = Mesh(np.array([devices[i] for i in ids]).reshape(sizes), ("x", "y")[:len(sizes)])
        jax_sharding = NamedSharding(mesh, spec)
        ours = axe.from_jax(jax_sharding)
        assert ours.mesh.device_ids == ids
        assert _boxes(ours.devices_indices_map(shape), shape) == _boxes(
            jax_sharding.devices_indices_map(shape), shape)
        assert str(ours._to_xla_hlo_sharding(len(shape))) == str(
            jax_sharding._to_xla_hlo_sharding(len(shape)))


def test_mesh_repr_and_str_match_jax(devices):
    from jax.sharding import AxisType

    orders = [list(range(8)), [0, 2, 1, 3, 4, 6, 5, 7]]
    for sizes, names in [((2, 4), ("x", "y")), ((8,), ("x",)), ((2, 2, 2), ("a", "b", "c"))]:
        for types in [None, tuple(AxisType.Explicit for _ in names),
                      (AxisType.Manual,) + tuple(AxisType.Auto for _ in names[1:])]:
            for order in orders:
                mesh = Mesh(np.array([devices[i] for i in order]).reshape(sizes), names,
                            axis_types=types)
                ours = axe.from_jax(mesh)
                assert repr(ours) == repr(mesh) and str(ours) == str(mesh)
