import numpy as np
import pytest

import axe


def test_transpose_into_new_array():
    a = np.arange(64, dtype=np.float32).reshape(8, 8)
    out = axe.relayout(a, "S[(8,8):(8,1)]", axe.Layout("S[(8,8):(1,8)]"))
    # The same values at the same indices, the memory in the destination's (column-major) order.
    assert out.shape == (8, 8)
    np.testing.assert_array_equal(out, a)
    assert out.flags.f_contiguous
    np.testing.assert_array_equal(out.ravel(order="K"), a.T.reshape(-1))
    np.testing.assert_array_equal(out.base, a.T.reshape(-1))


def test_writes_into_out_without_copy():
    a = np.arange(4 * 6, dtype=np.int16).reshape(4, 6)
    out = np.full(24, -1, dtype=np.int16)
    result = axe.relayout(a, "S[(4,6):(6,1)]", "S[(4,6):(1,4)]", out=out)
    assert result is out
    np.testing.assert_array_equal(out.reshape(6, 4), a.T)


def test_read_only_input():
    # np.asarray of a jax.Array is read-only; relayout must take it without a copy.
    a = np.arange(16, dtype=np.float32)
    a.flags.writeable = False
    out = axe.relayout(a, "S[(4,4):(4,1)]", "S[(4,4):(1,4)]", shape=(4, 4))
    np.testing.assert_array_equal(out, a.reshape(4, 4))
    np.testing.assert_array_equal(out.ravel(order="K"), a.reshape(4, 4).T.reshape(-1))
    with pytest.raises(TypeError, match="writeable"):
        axe.relayout(a, "S[16:1]", "S[16:1]", out=a)


def test_padded_destination_is_flat():
    a = np.arange(6, dtype=np.int32).reshape(2, 3)
    out = axe.relayout(a, "S[(2,3):(3,1)]", "S[(2,3):(4,1)]")
    assert out.shape == (7,)
    np.testing.assert_array_equal(out[[0, 1, 2, 4, 5, 6]], a.reshape(-1))


def test_random_permutations_match_numpy(rng):
    for _ in range(20):
        rank = rng.randrange(1, 5)
        shape = [rng.randrange(1, 6) for _ in range(rank)]
        perm = list(range(rank))
        rng.shuffle(perm)
        a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
        strides, s = [0] * rank, 1
        for d in reversed(perm):  # perm[0] slowest in memory
            strides[d] = s
            s *= shape[d]
        src = f"S[({','.join(map(str, shape))},):({','.join(['1'] * rank)},)]"
        src = "S[(" + ",".join(map(str, shape)) + "):(" + ",".join(
            str(int(np.prod(shape[i + 1:]))) for i in range(rank)) + ")]"
        dst = "S[(" + ",".join(map(str, shape)) + "):(" + ",".join(map(str, strides)) + ")]"
        out = axe.relayout(a, src, dst)
        np.testing.assert_array_equal(out, a)  # a view: same indices, destination memory
        np.testing.assert_array_equal(out.base, np.transpose(a, perm).reshape(-1))


def test_errors():
    a = np.zeros(16, dtype=np.float32)
    with pytest.raises(ValueError):
        axe.relayout(a, "S[16:1]", "S[(4,4):(1,4)]", shape=(4, 5))
    with pytest.raises(ValueError, match="destination array has 8"):
        axe.relayout(a, "S[16:1]", "S[16:1]", out=np.zeros(8, dtype=np.float32))
    with pytest.raises(TypeError, match="element sizes"):
        axe.relayout(a, "S[16:1]", "S[16:1]", out=np.zeros(16, dtype=np.float64))
    with pytest.raises(ValueError, match="position"):
        axe.relayout(a, "S[16:", "S[16:1]")


def test_plan_is_printable():
    plan = axe.plan_relayout("S[(64,64):(64,1)]", "S[(64,64):(1,64)]", (64, 64), 4)
    assert "transpose" in str(plan) or "generic" in str(plan) or plan.kernels
    assert plan.dst_end == 4096


def test_bad_layout_and_shape_arguments_are_type_errors():
    a = np.arange(12, dtype=np.float32)
    with pytest.raises(TypeError, match="src must be an axe.Layout, an axe.xla.Shape, its AxeForm or a buffer-layout text"):
        axe.relayout(a, 5, "S[12:1]")
    with pytest.raises(TypeError, match="dst must be an axe.Layout, an axe.xla.Shape, its AxeForm or a buffer-layout text"):
        axe.relayout(a, "S[12:1]", [1])
    with pytest.raises(TypeError, match=r"shape must be a sequence of ints, got \[3.5, 4\]"):
        axe.relayout(a, "S[12:1]", "S[12:1]", shape=[3.5, 4])
    with pytest.raises(TypeError, match="shape must be a sequence of ints"):
        axe.relayout(a, "S[12:1]", "S[12:1]", shape=12)
    out = axe.relayout(a, "S[(3,4):(4,1)]", "S[(3,4):(1,3)]", shape=[np.int64(3), 4])
    assert out.shape == (3, 4)


def test_destination_beyond_the_memory_budget_is_refused(monkeypatch):
    monkeypatch.setenv("AXE_MEMORY_LIMIT", "1M")
    assert axe.memory_budget() == (1 << 20, "AXE_MEMORY_LIMIT")
    # 8 elements spread 2**20 apart: a 28 MiB destination for 32 bytes of data.
    with pytest.raises(MemoryError, match="the memory budget is 1048576 bytes, from "
                                          "AXE_MEMORY_LIMIT"):
        axe.relayout(np.arange(8, dtype=np.float32), "S[8:1]", "S[8:1048576]")
    monkeypatch.delenv("AXE_MEMORY_LIMIT")
    limit, source = axe.memory_budget()
    assert limit > 0 and source


def test_a_tiled_destination_is_the_flat_buffer():
    # Tiles of 2x2 over a 4x4 tensor: no strided view exists, so the buffer comes back flat.
    a = np.arange(16, dtype=np.int32).reshape(4, 4)
    out = axe.relayout(a, "S[(4,4):(4,1)]", "S[(2,2,2,2):(8,2,4,1)]")
    assert out.shape == (16,)
    np.testing.assert_array_equal(out[:4], [0, 1, 4, 5])


def test_size_one_dimensions_keep_the_view():
    a = np.arange(8, dtype=np.float32).reshape(1, 8)
    out = axe.relayout(a, "S[(1,8):(8,1)]", "S[(1,8):(8,1)]")
    assert out.shape == (1, 8)
    np.testing.assert_array_equal(out, a)


def test_xla_shapes_and_their_axe_forms_are_layouts():
    # An XLA tiled layout: the buffer XLA stores (tiles padded), flat; from it back to
    # row-major gives the tensor again.
    a = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
    tiled = axe.xla.Shape("f32[16,16]{0,1:T(8,128)}")
    buffer = axe.relayout(a, axe.Layout.row_major([16, 16]), tiled)
    assert buffer.ndim == 1 and buffer.size <= tiled.array_size() // 4
    back = axe.relayout(buffer, tiled, axe.xla.Shape("f32[16,16]{1,0}"), shape=(16, 16))
    np.testing.assert_array_equal(back, a)
    via_form = axe.relayout(a, axe.Layout.row_major([16, 16]), tiled.to_axe())
    np.testing.assert_array_equal(via_form, buffer)
