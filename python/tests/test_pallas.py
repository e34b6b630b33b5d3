import numpy as np
import pytest

from axe import pallas


def test_show_program_ids_documentation_example():
    out = pallas.show_program_ids((8, 6), "(2, 3)", (4, 2), "(i, j) -> (i, j)")
    assert out.dtype == np.int32 and out.shape == (8, 6)
    assert out[0].tolist() == [0, 0, 0, 1, 1, 1]
    assert out[2].tolist() == [10, 10, 10, 11, 11, 11]
    assert out[7].tolist() == [30, 30, 30, 31, 31, 31]


def test_identity_index_map_and_tuple_block_shape():
    a = pallas.show_program_ids((8, 6), (2, 3), "(4, 2)")
    b = pallas.show_program_ids((8, 6), "(2, 3)", (4, 2), "(i, j) -> (i, j)")
    np.testing.assert_array_equal(a, b)


def test_out_of_bounds_block_is_clamped_and_reported():
    report = []
    pallas.show_program_ids((12,), "(4,)", (4,), "(i) -> i", clamp_report=report)
    assert report and "clamped" in report[0]


def test_errors():
    with pytest.raises(ValueError):
        pallas.show_program_ids((8,), "(2,", (4,))
    with pytest.raises(ValueError):
        pallas.show_program_ids((8,), "(2,)", (4,), "(i, j) -> i")
