// axe._axe.bench: controls for benchmarks (bench/exec_vs_jax.py), not for programs: the SIMD
// target the executor's kernels dispatch to and the BLAS kernel family it multiplies with.
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "axe/exec/simd_targets.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {

void BindBench(nb::module_& m) {
  m.def("simd_targets", &exec::AvailableSimdTargets,
        "Highway's names of the SIMD targets the executor's kernels can run on this CPU, best "
        "first.");
  m.def("active_simd_target", &exec::ActiveSimdTarget,
        "The SIMD target the executor's vectorized kernels dispatch to now.");
  m.def(
      "restrict_simd_target",
      [](const std::string& name) { ThrowIfError(exec::RestrictSimdTarget(name)); },
      nb::arg("name"),
      "For benchmarks only: the executor's (and the relayout engine's) kernels run their "
      "version for `name` (one of simd_targets(), e.g. 'AVX2'); '' lifts the restriction. "
      "Changes speed, never values' meaning; process-wide, set it before running anything. "
      "ValueError for a target this CPU or build lacks.");
  m.def("blas_core", &exec::BlasCoreName,
        "The kernel family OpenBLAS chose for the executor's GEMM (OPENBLAS_CORETYPE, set "
        "before the first GEMM, overrides it); loads OpenBLAS; '' when it cannot be loaded.");
}

}  // namespace axe::python
