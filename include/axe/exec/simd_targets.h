// For benchmarks and tests, not for programs: which SIMD targets the executor's vectorized
// kernels can run on this CPU, and a switch that restricts their run-time dispatch to one of
// them, so that one binary can be measured (or checked) as it runs on an AVX2 machine.
//
//   exec::AvailableSimdTargets()      // {"AVX3", "AVX2", "SSE4", "SCALAR"}, best first
//   exec::RestrictSimdTarget("AVX2")  // every dispatched kernel now runs its AVX2 version
//   exec::RestrictSimdTarget("")      // back to the CPU's best target
//
// A restriction changes which instructions compute a value, never what the value means: the
// same program gives the same integers and floats within a few ulp (FMA versus a separate
// multiply and add) on every target. It is process-wide (Highway's dispatch table is shared by
// the executor and the relayout engine) and is meant to be set once, before a benchmark runs;
// changing it while kernels run on other threads is not supported.
#ifndef AXE_EXEC_SIMD_TARGETS_H_
#define AXE_EXEC_SIMD_TARGETS_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace axe::exec {

// Highway's names of the targets the executor's kernels were compiled for that this CPU runs,
// best first (Highway 1.0: "AVX3" for AVX-512, "AVX2", "SSE4", "SCALAR"), whatever the
// restriction.
std::vector<std::string> AvailableSimdTargets();

// The target the executor's vectorized math dispatches to now.
std::string ActiveSimdTarget();

// Restricts the dispatch to `name` (one of AvailableSimdTargets(), any case); an empty name
// lifts the restriction. InvalidArgument naming the target and the available ones otherwise.
absl::Status RestrictSimdTarget(std::string_view name);

// The kernel family OpenBLAS chose for the executor's GEMM ("SkylakeX", "Haswell", "Zen",
// ...; OPENBLAS_CORETYPE in the environment when the library loads overrides its choice).
// Loads the library if needed; empty when it cannot be loaded.
std::string BlasCoreName();

}  // namespace axe::exec

#endif  // AXE_EXEC_SIMD_TARGETS_H_
