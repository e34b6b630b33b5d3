import pytest

import axe
from axe.xla import Shape


def test_parse_print_and_fields():
    shape = Shape.parse("f32[8,128]{0,1}")
    assert str(shape) == "f32[8,128]{0,1}"
    assert repr(shape) == "Shape('f32[8,128]{0,1}')"
    assert shape.dimensions == (8, 128) and shape.rank == 2
    assert shape.element_type == "f32" and shape.dtype == "float32"
    assert shape.minor_to_major == (0, 1)
    assert shape == Shape("f32[8,128]{0,1}") and hash(shape) == hash(Shape("f32[8,128]{0,1}"))


def test_sizes_of_a_tiled_shape():
    shape = Shape("f32[3,5]{1,0:T(8,128)}")
    assert shape.elements() == 15
    assert shape.byte_size() == 15 * 4  # XLA's ByteSizeOf ignores tiles
    assert shape.array_size() == 8 * 128 * 4


def test_index_math():
    shape = Shape("f32[4,6]{0,1}")
    assert shape.linear_index([1, 2]) == 1 + 2 * 4
    assert shape.multi_index(9) == (1, 2)
    with pytest.raises(ValueError, match="dimension 1"):
        shape.linear_index([0, 6])


def test_to_axe():
    form = Shape("f32[8,128]{1,0}").to_axe()
    assert isinstance(form.layout, axe.Layout)
    assert form.layout.equivalent(axe.Layout("S[1024:1]"))
    assert form.dimensions == [8, 128] and not form.padded


def test_parse_error():
    with pytest.raises(ValueError):
        Shape("f32[8,")


def test_tuple_shape():
    shape = Shape("(f32[2]{0}, s8[3]{0})")
    assert shape.is_tuple() and [str(s) for s in shape.tuple_shapes] == ["f32[2]{0}", "s8[3]{0}"]
    with pytest.raises(ValueError, match="array"):
        shape.linear_index([0])


def test_linear_index_is_xlas_and_offset_applies_tiles():
    s = axe.xla.Shape("f32[16,16]{0,1:T(8,128)}")
    assert s.linear_index([3, 5]) == 83  # IndexUtil: minor_to_major order, tiles ignored
    assert s.offset([3, 5]) == 643  # the tiled buffer, as `axe xla explain --index 3,5`
    assert s.index_at(643) == (3, 5)
    assert s.index_at(20) is None  # padding
    for i in range(16):
        for j in range(16):
            assert s.index_at(s.offset([i, j])) == (i, j)
