import pytest

import axe


def test_parse_and_print():
    layout = axe.Layout.parse("S[4096:1]")
    assert str(layout) == "S[4096:1]"
    assert repr(layout) == "Layout('S[4096:1]')"
    assert axe.Layout("S[(8,8):(1,8)]").size == 64


def test_parse_error_is_value_error_with_position():
    with pytest.raises(ValueError, match="position 4"):
        axe.Layout.parse("S[(8]")


def test_equality_and_hash():
    a = axe.Layout("S[(8,8):(8,1)]")
    b = axe.Layout.parse("S[(8,8):(8,1)]")
    assert a == b and hash(a) == hash(b)
    assert a != axe.Layout("S[64:1]")
    assert a != "S[(8,8):(8,1)]"
    assert len({a, b, axe.Layout("S[64:1]")}) == 2


def test_canonicalize_and_equivalent():
    layout = axe.Layout("S[(8,8,8,4,2):(512,64,8,2,1)]")
    assert str(layout.canonicalize()) == "S[4096:1]"
    assert layout.equivalent(axe.Layout("S[4096:1]"))
    assert not layout.equivalent(axe.Layout("S[4096:2]"))


def test_apply_flat_and_coordinate():
    layout = axe.Layout("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp")
    points = layout.apply((2, 9), shape=(8, 16))
    assert points == [{"lane": 8, "reg": 1, "warp": 6}, {"lane": 8, "reg": 1, "warp": 10}]
    assert layout.apply(2 * 16 + 9) == points


def test_apply_needs_shape_for_coordinates():
    with pytest.raises(ValueError, match="shape"):
        axe.Layout("S[(8,8):(8,1)]").apply((1, 2))


def test_apply_out_of_range_names_dimension():
    with pytest.raises(ValueError, match="dimension 1"):
        axe.Layout("S[(8,8):(8,1)]").apply((1, 9), shape=(8, 8))


def test_inverse():
    layout = axe.Layout("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp")
    assert layout.inverse({"warp": 6, "lane": 8, "reg": 1}, shape=(8, 16)) == [(2, 9)]
    assert layout.inverse("warp=6,lane=8,reg=1") == [41]
    with pytest.raises(TypeError):
        layout.inverse(42)
    with pytest.raises(TypeError, match="axis 'warp' must be an int"):
        layout.inverse({"warp": "6"})
    with pytest.raises(OverflowError, match="axis 'warp' does not fit in int64"):
        layout.inverse({"warp": 2**70})


def test_round_trip_apply_inverse(rng):
    layout = axe.Layout("S[(4,4,4,4):(64,4,16,1)]")
    for _ in range(50):
        flat = rng.randrange(layout.size)
        (point,) = layout.apply(flat)
        assert layout.inverse(point) == [flat]


def test_tile_group_slice():
    tiled = axe.tile(axe.Layout("S[(8,8):(8,1)]"), (8, 8), axe.Layout("S[(2,3):(3,1)]"), (2, 3))
    assert str(tiled) == "S[(8,2,8,3):(48,3,6,1)]"
    assert axe.tile_to(axe.Layout("S[(2,3):(3,1)]"), (16, 24), (2, 3)) == tiled
    grouped, seps = axe.Layout("S[(32,2):(1@laneid,1)]").group((8, 8))
    assert str(grouped) == "S[(8,4,2):(4@laneid,1@laneid,1)]" and seps == (0, 1, 3)
    sliced = axe.Layout("S[(4,4,4,4):(64,4,16,1)]").slice((16, 16), [(2, 3), (6, 10)])
    assert str(sliced) == "S[(2,2):(14,1)] + 26"
    assert axe.Layout("S[(4,4,4,4):(64,4,16,1)]").slice((16, 16), "2:3,6:10") == sliced
    # The form every box prints in reads back too.
    assert axe.Layout("S[(4,4,4,4):(64,4,16,1)]").slice((16, 16), "[[2, 3], [6, 10]]") == sliced


def test_tile_error_names_the_culprit():
    with pytest.raises(ValueError, match="rank"):
        axe.tile(axe.Layout("S[64:1]"), (8, 8), axe.Layout("S[6:1]"), (6,))


def test_properties():
    layout = axe.Layout("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp")
    assert layout.size == 128 and layout.replica_size == 2
    assert layout.axes == ["lane", "warp", "reg"]
    assert layout.span("warp") == 6
    with pytest.raises(ValueError, match="no axis 'nowhere'; its axes: lane, warp, reg"):
        layout.span("nowhere")
    with pytest.raises(ValueError, match="axis name"):
        layout.span("1bad")
