#include "axe/exec/simd_targets.h"

#include <cstdint>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "exec/blas.h"
#include "exec/ew_ops.h"
#include "hwy/targets.h"

namespace axe::exec {
namespace {

// The CPU's targets among those simd_math.cc was compiled for. Computed once, on the first
// call, before any restriction (RestrictSimdTarget asks for it before restricting), so
// Highway's answer is the CPU's own and later calls never touch the dispatch.
int64_t UnrestrictedTargets() {
  static const int64_t all = hwy::SupportedTargets() & internal::CompiledMathTargets();
  return all;
}

}  // namespace

std::vector<std::string> AvailableSimdTargets() {
  std::vector<std::string> names;
  // Highway's bits grow as targets get older, so the lowest bit is the best target.
  for (int64_t targets = UnrestrictedTargets(); targets != 0; targets &= targets - 1) {
    names.emplace_back(hwy::TargetName(targets & -targets));
  }
  return names;
}

std::string ActiveSimdTarget() { return hwy::TargetName(internal::DispatchedMathTarget()); }

absl::Status RestrictSimdTarget(std::string_view name) {
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    return absl::OkStatus();
  }
  const std::string given(name);
  const std::string wanted = absl::AsciiStrToUpper(given);
  for (int64_t targets = UnrestrictedTargets(); targets != 0; targets &= targets - 1) {
    const int64_t target = targets & -targets;
    if (wanted == hwy::TargetName(target)) {
      hwy::SetSupportedTargetsForTest(target);
      return absl::OkStatus();
    }
  }
  return absl::InvalidArgumentError(absl::StrCat("SIMD target '", given,
                                                 "' is not available on this CPU (available: ",
                                                 absl::StrJoin(AvailableSimdTargets(), ", "), ")"));
}

std::string BlasCoreName() {
  const internal::Blas* blas = internal::LoadedBlas();
  if (blas == nullptr || blas->get_corename == nullptr) return "";
  return blas->get_corename();
}

}  // namespace axe::exec
