#include "axe/exec/executable.h"

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "exec/plan.h"

namespace axe::exec {

absl::StatusOr<Executable> Executable::Compile(const ir::ClosedJaxpr& jaxpr, ExecOptions options) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const internal::Plan> plan,
                       internal::BuildPlan(jaxpr, options));
  if (plan->stats.work > options.max_work) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "the program needs about ", plan->stats.work,
        " units of work (bytes touched plus multiply-adds) per run, more than the limit of ",
        options.max_work));
  }
  AXE_ASSIGN_OR_RETURN(MemoryBudget budget, GivenOrCurrentBudget(options.memory));
  AXE_RETURN_IF_ERROR(budget.Check(plan->stats.peak_bytes, "the program's values at their peak"));
  Executable e;
  e.plan_ = std::move(plan);
  e.pools_ = std::make_shared<internal::PoolCache>();
  return e;
}

absl::StatusOr<std::vector<Value>> Executable::Run(absl::Span<const Value> args) const {
  const internal::Plan& plan = *plan_;
  if (args.size() != plan.inputs.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the jaxpr takes ", plan.inputs.size(), " arguments, got ", args.size()));
  }
  for (size_t i = 0; i < args.size(); ++i) {
    const ir::ShapedArray& want = plan.input_avals[i];
    const ir::ShapedArray& got = args[i].aval();
    if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat("argument ", i, " has type ",
                                                     got.ShortString(), " but the jaxpr's input ",
                                                     i, " is ", want.ShortString()));
    }
  }
  std::unique_ptr<internal::ValuePool> values = pools_->Take();
  const internal::RunContext ctx = internal::MakeRunContext(plan.options, values.get());
  absl::StatusOr<std::vector<Value>> out = internal::RunPlan(plan, ctx, args);
  pools_->Give(std::move(values));
  return out;
}

const PlanStats& Executable::stats() const { return plan_->stats; }
const std::vector<ir::ShapedArray>& Executable::input_avals() const { return plan_->input_avals; }
const std::vector<ir::ShapedArray>& Executable::output_avals() const { return plan_->output_avals; }

std::string Executable::Describe() const {
  std::string out;
  for (const internal::Step& s : plan_->steps) {
    absl::StrAppend(&out, s.fallback ? "fallback " : "", s.name, ": ", s.kernel.description, "\n");
  }
  const PlanStats& st = plan_->stats;
  absl::StrAppend(&out, st.equations, " equations: ", st.fused_equations, " fused in ",
                  st.fused_groups, " groups, ", st.typed_kernels, " typed, ", st.relabels,
                  " relabels, ", st.fallbacks, " fallbacks (", st.nested_fallbacks,
                  " nested); work ", st.work, ", peak ", st.peak_bytes, " bytes");
  if (st.devices > 0) {
    absl::StrAppend(&out, ", per device peak ", st.device_peak_bytes, " bytes on ", st.devices,
                    " devices");
  }
  absl::StrAppend(&out, "\n");
  return out;
}

absl::StatusOr<std::vector<ir::HostArray>> ExecuteJaxpr(const ir::ClosedJaxpr& jaxpr,
                                                        absl::Span<const ir::HostArray> args,
                                                        ExecOptions options) {
  AXE_ASSIGN_OR_RETURN(MemoryBudget budget, GivenOrCurrentBudget(options.memory));
  options.memory = budget;
  AXE_ASSIGN_OR_RETURN(Executable e, Executable::Compile(jaxpr, options));
  std::optional<int64_t> needed = e.stats().peak_bytes;  // and the results as doubles
  for (const ir::Atom& a : jaxpr.jaxpr.outvars) {
    std::optional<int64_t> n = jaxpr.jaxpr.aval(a).NumElements();
    needed =
        needed && n ? CheckedAdd(*needed, CheckedMul(*n, 8).value_or(INT64_MAX)) : std::nullopt;
  }
  AXE_RETURN_IF_ERROR(
      budget.Check(needed, "the program's values at their peak, with its results as doubles"));
  std::vector<Value> values;
  values.reserve(args.size());
  for (const ir::HostArray& a : args) {
    AXE_ASSIGN_OR_RETURN(Value v, FromHostArray(a));
    values.push_back(std::move(v));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Value> out, e.Run(values));
  std::vector<ir::HostArray> result;
  result.reserve(out.size());
  for (const Value& v : out) result.push_back(ToHostArray(v));
  return result;
}

}  // namespace axe::exec
