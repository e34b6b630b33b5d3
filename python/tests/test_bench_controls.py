"""axe._axe.bench: the benchmark-only switch of the executor's SIMD dispatch."""

import numpy as np
import pytest

import axe.ir
from axe._axe import bench

TEXT = """{ lambda ; a:f32[1000]. let
    b:f32[1000] = tanh a
    c:f32[1000] = exp b
  in (c,) }"""


@pytest.fixture
def restore_dispatch():
    yield
    bench.restrict_simd_target("")


def test_every_target_runs_the_same_program(restore_dispatch):
    x = np.linspace(-4, 4, 1000, dtype=np.float32)
    compiled = axe.ir.compile(axe.ir.parse(TEXT))
    want = compiled(x)[0]
    targets = bench.simd_targets()
    assert len(targets) >= 2
    for target in targets:
        bench.restrict_simd_target(target.lower())
        assert bench.active_simd_target() == target
        np.testing.assert_allclose(compiled(x)[0], want, rtol=1e-6)
    bench.restrict_simd_target("")
    assert bench.active_simd_target() == targets[0]


def test_unknown_target_is_a_value_error_naming_it():
    with pytest.raises(ValueError, match="SIMD target 'NEON' is not available on this CPU"):
        bench.restrict_simd_target("NEON")


def test_blas_core_names_openblas_kernels():
    assert isinstance(bench.blas_core(), str)
