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


def test_grids_are_capped_and_budgeted(monkeypatch):
    # 2**40 programs: refused before any runs.
    with pytest.raises(ValueError, match="show_program_ids runs at most 16777216"):
        pallas.show_program_ids((8,), "(2,)", (2**40,), "(i) -> 0")
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "1M")
    with pytest.raises(MemoryError, match="the memory budget is 1.0 MiB .*from AXE_MEMORY_LIMIT"):
        pallas.show_program_ids((1024, 1024), "(512, 512)", (2, 2))
    # A clamp report costs memory per program; without one the same grid runs.
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "64M")
    with pytest.raises(MemoryError, match="show_program_ids of shape \\(8\\) on the grid"):
        pallas.show_program_ids((8,), "(2,)", (2**17,), "(i) -> i", clamp_report=[])
    out = pallas.show_program_ids((8,), "(2,)", (2**17,), "(i) -> i")
    assert out.tolist()[6:] == [2**17 - 1] * 2


def test_index_map_none_is_jaxs_default_zeros():
    # Not given: the documentation function's identity; None or "none": BlockSpec's default
    # in JAX, every program writes block 0 (the rest stays uninitialized).
    out = pallas.show_program_ids((8, 6), (2, 3), (4, 2), None)
    assert out[0].tolist() == [31, 31, 31, -2147483648, -2147483648, -2147483648]
    np.testing.assert_array_equal(out, pallas.show_program_ids((8, 6), (2, 3), (4, 2), "none"))
    np.testing.assert_array_equal(out, pallas.show_program_ids((8, 6), (2, 3), (4, 2), " None "))


def test_uninitialized_int16_is_zero_as_in_jax():
    # JAX 0.10.2's interpreter starts int16 outputs at 0 (its semaphore type), int8 at -128.
    assert pallas.show_program_ids((4,), "(2,)", (1,), None, dtype="int16").tolist() == [0] * 4
    assert pallas.show_program_ids((4,), "(2,)", (1,), None, dtype="int8").tolist() == [
        0, 0, -128, -128]
