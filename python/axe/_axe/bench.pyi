

def simd_targets() -> list[str]:
    """
    Highway's names of the SIMD targets the executor's kernels can run on this CPU, best first.
    """

def active_simd_target() -> str:
    """The SIMD target the executor's vectorized kernels dispatch to now."""

def restrict_simd_target(name: str) -> None:
    r"""
    For benchmarks only: the executor's (and the relayout engine's) kernels run their version for `name` (one of simd_targets(), e.g. 'AVX2'); \'\' lifts the restriction. Changes speed, never values' meaning; process-wide, set it before running anything. ValueError for a target this CPU or build lacks.
    """

def blas_core() -> str:
    r"""
    The kernel family OpenBLAS chose for the executor's GEMM (OPENBLAS_CORETYPE, set before the first GEMM, overrides it); loads OpenBLAS; \'\' when it cannot be loaded.
    """
