import numpy as np
import pytest

import axe
from axe.sharding import (Format, HloSharding, Layout, Mesh, NamedSharding, P, PartitionSpec,
                          SingleDeviceSharding)


def mesh22():
    return Mesh([[0, 1], [2, 3]], ("x", "y"))


def test_mesh():
    mesh = mesh22()
    assert mesh.text == "Mesh('x': 2, 'y': 2)"
    assert mesh.axis_names == ("x", "y") and mesh.axis_sizes == (2, 2) and mesh.size == 4
    assert mesh == Mesh.parse("x=2,y=2") and hash(mesh) == hash(Mesh.parse("{x:2, y:2}"))
    permuted = Mesh([[0, 2], [1, 3]], ("x", "y"))
    assert permuted.text == "Mesh('x': 2, 'y': 2, devices=[0, 2, 1, 3])"
    assert Mesh.parse(permuted.text) == permuted
    assert permuted.device_ids == [0, 2, 1, 3]


# What JAX 0.10.2 printed for repr(mesh) and str(mesh) of jax.sharding.Mesh(devices, names,
# axis_types=...) on 8 CPU devices (device ids in any order print alike).
JAX_MESH_TEXTS = [
    ((2, 4), ("x", "y"), None,
     "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Auto, Auto))",
     "Mesh('x': 2, 'y': 4, axis_types=(Auto, Auto))"),
    ((2, 4), ("x", "y"), ("Explicit", "Auto"),
     "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Explicit, Auto))",
     "Mesh('x': 2, 'y': 4, axis_types=(Explicit, Auto))"),
    ((2, 4), ("x", "y"), ("Manual", "Explicit"),
     "Mesh(axis_sizes=(2, 4), axis_names=('x', 'y'), axis_types=(Manual, Explicit))",
     "Mesh('x': 2, 'y': 4, axis_types=(Manual, Explicit))"),
    ((2,), ("x",), None,
     "Mesh(axis_sizes=(2,), axis_names=('x',), axis_types=(Auto,))",
     "Mesh('x': 2, axis_types=(Auto,))"),
    ((), (), None,
     "Mesh(axis_sizes=(), axis_names=(), axis_types=())",
     "Mesh(, axis_types=())"),
]


@pytest.mark.parametrize("sizes, names, types, jax_repr, jax_str", JAX_MESH_TEXTS)
def test_mesh_repr_and_str_as_jax_prints_them(sizes, names, types, jax_repr, jax_str):
    count = int(np.prod(sizes, dtype=np.int64))
    for ids in (np.arange(count), np.arange(count)[::-1]):
        mesh = Mesh(ids.reshape(sizes), names, types)
        assert repr(mesh) == jax_repr
        assert str(mesh) == jax_str
        assert Mesh.parse(str(mesh)) == Mesh(np.arange(count).reshape(sizes), names, types)
        assert Mesh.parse(repr(mesh)) == Mesh.parse(str(mesh))


def test_mesh_on_any_device_ids():
    # A mesh on part of a machine: devices 4-7, or three devices 5, 6, 7 (JAX's answers).
    mesh = Mesh([4, 5, 6, 7], ("x",))
    assert mesh.text == "Mesh('x': 4, devices=[4, 5, 6, 7])"
    assert mesh.device_ids == [4, 5, 6, 7]
    on_four = NamedSharding(mesh, P("x"))
    assert axe.sharding.devices_indices_map(on_four, (8, 2)) == {
        4: (slice(0, 2), slice(None)), 5: (slice(2, 4), slice(None)),
        6: (slice(4, 6), slice(None)), 7: (slice(6, 8), slice(None))}
    on_three = NamedSharding(Mesh([5, 6, 7], ("x",)), P(None, "x"))
    assert axe.sharding.devices_indices_map(on_three, (2, 3)) == {
        5: (slice(None), slice(0, 1)), 6: (slice(None), slice(1, 2)),
        7: (slice(None), slice(2, 3))}
    e = axe.sharding.explain((2, 3), on_three)
    assert e.hlo == "{devices=[1,3]<=[3]}" and e.device_assignment == [5, 6, 7]
    with pytest.raises(ValueError, match="device id 5 appears twice"):
        Mesh([5, 5], ("x",))


def test_single_device_sharding_is_one_device():
    e = axe.sharding.explain((4, 4), SingleDeviceSharding(3))
    assert e.num_devices == 1 and [d for d, _, _ in e.devices] == [3]
    assert e.shardy == "#sdy.sharding<@empty_mesh, [{}, {}]>"
    assert e.notes and "device assignment [3]" in e.notes[0]


def test_mesh_errors():
    with pytest.raises(ValueError, match="axis_names"):
        Mesh([[0, 1], [2, 3]], ("x",))
    with pytest.raises(ValueError):
        Mesh([0, 0], ("x",))
    with pytest.raises(TypeError, match="a device is an int id or a jax.Device"):
        Mesh([0.5, 1.5], ("x",))
    with pytest.raises(OverflowError):
        Mesh([2**70], ("x",))
    assert Mesh(np.arange(4).reshape(2, 2), ("x", "y")) == mesh22()


def test_partition_spec():
    spec = P("x", None, ("y", "z"))
    assert repr(spec) == "P('x', None, ('y', 'z'))"
    assert len(spec) == 3 and spec[0] == "x" and spec[1] is None and spec[-1] == ("y", "z")
    assert list(spec) == ["x", None, ("y", "z")]
    assert spec == PartitionSpec.parse("P('x', None, ('y', 'z'))")
    assert repr(P()) == "P()"
    with pytest.raises(TypeError):
        P(3)
    with pytest.raises(IndexError):
        spec[3]


def test_named_sharding():
    s = NamedSharding(mesh22(), P("x"))
    assert repr(s) == "NamedSharding(mesh=Mesh('x': 2, 'y': 2), spec=P('x',))"
    assert s.shard_shape((8, 8)) == (4, 8)
    assert s.num_devices == 4 and not s.is_fully_replicated
    assert str(s._to_xla_hlo_sharding(2)) == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    with pytest.raises(ValueError, match="num_dimensions is 1000000000; at most 64"):
        s._to_xla_hlo_sharding(10**9)
    m = s.devices_indices_map((8, 8))
    assert m[0] == (slice(0, 4), slice(None)) and m[3] == (slice(4, 8), slice(None))
    assert axe.sharding.devices_indices_map(s, (8, 8)) == m


def test_named_sharding_errors_use_jax_texts():
    with pytest.raises(ValueError, match="Resource axis: z of P\\('z',\\) is not found in mesh"):
        NamedSharding(mesh22(), P("z"))
    with pytest.raises(ValueError, match="has duplicate entries for `x`"):
        NamedSharding(mesh22(), P("x", "x"))
    s = NamedSharding(mesh22(), P("x", "y"))
    with pytest.raises(ValueError, match="should be divisible by 2"):
        s.shard_shape((3, 8))
    with pytest.raises(ValueError, match="rank at least 2"):
        s.shard_shape((8,))


def test_single_device_sharding():
    s = SingleDeviceSharding(3)
    assert repr(s) == "SingleDeviceSharding(device=3)"
    assert s.devices_indices_map((4, 4)) == {3: (slice(None), slice(None))}


def test_hlo_sharding_and_from_hlo():
    hlo = HloSharding("{devices=[2,1,2]<=[4] last_tile_dim_replicate}")
    assert str(hlo) == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    named = axe.sharding.from_hlo(hlo, 2, mesh=mesh22())
    assert named == NamedSharding(mesh22(), P("x"))
    assert axe.sharding.from_hlo(str(hlo), 2, mesh=mesh22()) == named
    with pytest.raises(ValueError, match="the rank is 1000000000; at most 64"):
        axe.sharding.from_hlo("{replicated}", 10**9, mesh=mesh22())
    with pytest.raises(ValueError):
        HloSharding("{devices=[2,1")


def test_local_layout_and_format():
    layout = Layout(major_to_minor=(1, 0))
    assert repr(layout) == Layout.parse(repr(layout)).__repr__()
    assert layout.major_to_minor == (1, 0)
    assert repr(Layout.AUTO) == "AUTO"
    s = NamedSharding(mesh22(), P("x"))
    fmt = Format(layout, s)
    assert fmt.layout == layout and fmt.sharding == s
    assert Format.parse(repr(fmt)) == fmt
    assert repr(Format()) == "Format(layout=None, sharding=None)"
    with pytest.raises(ValueError, match="Sharding has to be concrete"):
        Format(layout)


def test_to_axe_and_explain():
    s = NamedSharding(mesh22(), P("x"))
    layout = axe.sharding.to_axe((8, 8), s)
    assert str(layout) == "S[(2,32):(2@gpuid,1)] + R[2:1@gpuid]"
    e = axe.sharding.explain((8, 8), s)
    assert e.named == repr(s) and e.hlo == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}"
    assert e.axe == str(layout) and e.shard_shape == (4, 8) and e.num_devices == 4
    text = str(e)
    assert text.startswith("global shape   f32[8,8]\njax            NamedSharding(")
    assert "device  replica group  index" in text
    assert "0       0              [[0, 4], [0, 8]]" in text
    assert e.local_axe is not None and e.local_axe in text


def test_from_hlo_refuses_device_counts_the_cli_refuses():
    hlo = HloSharding("{devices=[2]0,1}")
    with pytest.raises(ValueError, match="num_devices -1 is negative"):
        axe.sharding.from_hlo(hlo, 1, num_devices=-1)
    with pytest.raises(ValueError, match="num_devices 1099511627776 is more than 65536"):
        axe.sharding.from_hlo(hlo, 1, num_devices=2**40)
    with pytest.raises(ValueError, match="num_devices -1 is negative"):
        axe.sharding.from_hlo("{replicated}", 1, num_devices=-1)
    assert axe.sharding.from_hlo(hlo, 1, num_devices=2).num_devices == 2


def test_format_of_a_wrong_type_is_jaxs_type_error():
    with pytest.raises(TypeError, match=r"Invalid value received for the layout argument. "
                       r"Expected values are `None`, `Layout.AUTO` or an instance of `Layout`. "
                       r"Got 5 of type <class 'int'>"):
        Format(5)
    with pytest.raises(TypeError, match=r"Invalid value received for the sharding argument. "
                       r"Expected values are `None` or an instance of `jax.Sharding`. Got x of "
                       r"type <class 'str'>"):
        Format(None, "x")
