// EvalJaxpr: argument checks, then the SPMD interpreter on the host's simulated mesh.
#include "axe/ir/eval.h"

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "eval_spmd.h"
#include "eval_util.h"

namespace axe::ir {

namespace internal {

absl::Status CheckArgs(const Jaxpr& jaxpr, absl::Span<const HostArray> args) {
  if (args.size() != jaxpr.invars.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the jaxpr takes ", jaxpr.invars.size(), " arguments, got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const ShapedArray& want = jaxpr.aval(jaxpr.invars[i]);
    const HostArray& a = args[i];
    if (a.aval.shape() != want.shape() || a.aval.dtype() != want.dtype()) {
      return absl::InvalidArgumentError(
          absl::StrCat("argument ", i, " has type ", a.aval.ShortString(),
                       " but the jaxpr's input ", i, " is ", want.ShortString()));
    }
    std::optional<int64_t> n = a.aval.NumElements();
    if (!n || static_cast<size_t>(*n) != a.values.size()) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " of type ",
                                                     a.aval.ShortString(), " holds ",
                                                     a.values.size(), " values"));
    }
    AXE_RETURN_IF_ERROR(CheckEvalDType(a.aval.dtype()));
  }
  return absl::OkStatus();
}

}  // namespace internal

namespace internal {

absl::StatusOr<std::vector<HostArray>> EvalTopLevel(const ClosedJaxpr& jaxpr,
                                                    absl::Span<const HostArray> args,
                                                    SpmdExecutor& executor,
                                                    const MemoryBudget* memory) {
  AXE_RETURN_IF_ERROR(CheckArgs(jaxpr.jaxpr, args));
  MemoryMeter meter;
  if (memory != nullptr) {
    meter.budget = *memory;
  } else {
    AXE_ASSIGN_OR_RETURN(meter.budget, ResolveMemoryBudget(std::nullopt));
  }
  int64_t arg_bytes = 0;
  for (const HostArray& a : args) {  // CheckArgs bounds each by its type
    arg_bytes += static_cast<int64_t>(a.values.size() * sizeof(double)) + kValueOverheadBytes;
  }
  AXE_RETURN_IF_ERROR(meter.Reserve(arg_bytes, "copying the arguments"));
  std::vector<Replicas> in;
  for (const HostArray& a : args) {
    HostArray v{a.aval.WithVma({}), a.values};
    for (double& x : v.values) x = RoundToDType(x, v.aval.dtype());
    in.push_back(Replicas{std::move(v)});
  }
  int64_t budget = kEvalBudget;
  SpmdScope scope{nullptr, 0, 1, &executor, &budget, &meter};
  AXE_RETURN_IF_ERROR(CheckProgramAffordable(jaxpr.jaxpr, scope));
  AXE_ASSIGN_OR_RETURN(std::vector<Replicas> out, EvalSpmd(jaxpr, std::move(in), scope));
  std::vector<HostArray> result;
  for (Replicas& r : out) result.push_back(std::move(r[0]));
  return result;
}

}  // namespace internal

absl::StatusOr<std::vector<HostArray>> EvalJaxpr(const ClosedJaxpr& jaxpr,
                                                 absl::Span<const HostArray> args,
                                                 const MemoryBudget* memory) {
  return internal::EvalTopLevel(jaxpr, args, internal::HostExecutor(), memory);
}

}  // namespace axe::ir
