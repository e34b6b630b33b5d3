// Kernels of the call-like primitives: jit, closed_call and the custom calls run their body's
// plan; scan compiles its body once and runs it `length` times, reading each step's xs rows in
// place and writing ys rows into preallocated stacks (no planning and, through the value pool,
// no fresh storage per step; a ys stack nothing reads is never built); cond compiles every branch
// and runs the one its index picks (clamped, as XLA does).
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

absl::StatusOr<std::shared_ptr<const Plan>> BodyPlan(const ir::Eqn& eqn, const char* name,
                                                     const ExecOptions& options) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.kind() != ir::Param::Kind::kJaxpr ||
      it->second.jaxpr() == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(eqn.primitive->name(), " needs a jaxpr parameter ", name));
  }
  return BuildPlan(*it->second.jaxpr(), options);
}

absl::StatusOr<std::optional<BuiltKernel>> BuildCall(const EqnView& v, const char* param) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> body, BodyPlan(v.eqn, param, v.options));
  BuiltKernel k;
  k.description = absl::StrCat("call (", body->steps.size(), " steps)");
  k.work = body->stats.work;
  k.scratch_bytes = NestedScratchBytes(*body, /*results_counted=*/true);
  k.constant_bytes = body->constant_bytes;
  k.passes_through = true;
  k.nested_fallbacks = AllFallbacks(*body);
  k.device_peak_bytes = body->stats.device_peak_bytes;
  k.devices = body->stats.devices;
  k.kernel = [body](const RunContext& ctx, absl::Span<const Value> in,
                    std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out, RunPlan(*body, ctx, in));
    return absl::OkStatus();
  };
  return k;
}

struct Scan {
  std::shared_ptr<const Plan> body;
  int64_t length = 0, num_consts = 0, num_carry = 0;
  bool reverse = false;
  std::vector<ir::ShapedArray> out;
  std::vector<std::shared_ptr<const ir::ShapedArray>> x_rows;  // per xs input: one row's type
  std::vector<bool> unread;  // per output: nothing reads it (a ys stack is then never built)
};

// Points the body's xs arguments at row `i` of each stacked input (no allocation).
void ViewRows(const Scan& s, absl::Span<const Value> in, int64_t i, std::vector<Value>& args) {
  const size_t fixed = static_cast<size_t>(s.num_consts + s.num_carry);
  for (size_t k = fixed; k < in.size(); ++k) {
    const size_t row_bytes = in[k].num_bytes() / static_cast<size_t>(s.length);
    args[k] = in[k].View(s.x_rows[k - fixed], row_bytes * static_cast<size_t>(i));
  }
}

// One step's results: ys rows copied into their stacks, the new carry swapped in for the old
// one, whose storage (and that of ys values nothing else holds) goes back to the pool for the
// next step's outputs.
void TakeStep(const Scan& s, const RunContext& ctx, int64_t i, std::vector<Value>& step,
              std::vector<Value>& args, std::vector<Value>& out) {
  for (size_t k = static_cast<size_t>(s.num_carry); k < s.out.size(); ++k) {
    const Value& y = step[k];
    if (!s.unread[k]) {
      std::memcpy(out[k].mutable_bytes() + y.num_bytes() * static_cast<size_t>(i), y.bytes(),
                  y.num_bytes());
    }
    if (ctx.values != nullptr) ctx.values->Give(std::move(step[k]));
    step[k] = Value();
  }
  for (size_t c = 0; c < static_cast<size_t>(s.num_carry); ++c) {
    Value& carry = args[static_cast<size_t>(s.num_consts) + c];
    if (ctx.values != nullptr) ctx.values->Give(std::move(carry));
    carry = std::move(step[c]);
  }
}

absl::Status RunScan(const Scan& s, const RunContext& ctx, absl::Span<const Value> in,
                     std::vector<Value>& out) {
  std::vector<Value> args(in.begin(), in.end());
  for (size_t k = static_cast<size_t>(s.num_carry); k < s.out.size(); ++k) {
    if (!s.unread[k]) {
      AXE_ASSIGN_OR_RETURN(out[k], Value::Uninitialized(s.out[k]));
    }
  }
  PlanFrame frame;
  std::vector<Value> step;
  for (int64_t t = 0; t < s.length; ++t) {
    if (ctx.cancelled()) return absl::CancelledError("the program was cancelled (in a scan)");
    const int64_t i = s.reverse ? s.length - 1 - t : t;
    ViewRows(s, in, i, args);
    AXE_RETURN_IF_ERROR(RunPlanInFrame(*s.body, ctx, args, frame, step));
    TakeStep(s, ctx, i, step, args, out);
  }
  for (size_t c = 0; c < static_cast<size_t>(s.num_carry); ++c) {
    out[c] = args[static_cast<size_t>(s.num_consts) + c];
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildScan(const EqnView& v) {
  Scan s;
  AXE_ASSIGN_OR_RETURN(s.body, BodyPlan(v.eqn, "jaxpr", v.options));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> length, IntsParam(v.eqn, "length"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> consts, IntsParam(v.eqn, "num_consts"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> carry, IntsParam(v.eqn, "num_carry"));
  // A malformed parameter (an empty tuple) is the interpreter's to report: fall back to it.
  if (length.size() != 1 || consts.size() != 1 || carry.size() != 1) return std::nullopt;
  s.length = length[0];
  s.num_consts = consts[0];
  s.num_carry = carry[0];
  auto rev = v.eqn.params.find("reverse");
  if (rev != v.eqn.params.end()) s.reverse = rev->second.AsBool("reverse").value_or(false);
  s.out = v.out;
  s.unread.assign(s.out.size(), false);
  for (size_t k = static_cast<size_t>(std::max<int64_t>(0, s.num_carry)); k < v.unread.size();
       ++k) {
    s.unread[k] = v.unread[k];  // carries are always computed
  }
  // The interpreter's checks and messages cover malformed scans: fall back to it.
  const size_t n = v.in.size();
  if (s.length < 0 || s.num_consts < 0 || s.num_carry < 0 ||
      static_cast<size_t>(s.num_consts + s.num_carry) > n ||
      s.out.size() < static_cast<size_t>(s.num_carry) || s.body->inputs.size() != n ||
      s.body->outputs.size() != s.out.size()) {
    return std::nullopt;
  }
  for (size_t k = static_cast<size_t>(s.num_consts + s.num_carry); k < n; ++k) {
    if (v.in[k].rank() == 0 || v.in[k].shape()[0] != s.length) return std::nullopt;
    std::vector<int64_t> row(v.in[k].shape().begin() + 1, v.in[k].shape().end());
    s.x_rows.push_back(std::make_shared<const ir::ShapedArray>(v.in[k].WithShape(std::move(row))));
  }
  for (size_t k = static_cast<size_t>(s.num_carry); k < s.out.size(); ++k) {
    if (s.out[k].rank() == 0 || s.out[k].shape()[0] != s.length) return std::nullopt;
  }
  std::optional<int64_t> work = CheckedMul(s.length, std::max<int64_t>(1, s.body->stats.work));
  BuiltKernel k;
  k.unwritten = s.unread;
  k.description = absl::StrCat("scan x", s.length, " (", s.body->steps.size(), " steps)");
  k.work = work.value_or(INT64_MAX);
  // The body's values beyond its arguments (which the caller holds, the xs as row views);
  // its results are the step's rows and carries, not the stacked outputs counted outside.
  k.scratch_bytes = NestedScratchBytes(*s.body, /*results_counted=*/false);
  k.constant_bytes = s.body->constant_bytes;
  k.passes_through = true;
  k.nested_fallbacks = AllFallbacks(*s.body);
  auto shared = std::make_shared<const Scan>(std::move(s));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in, std::vector<Value>& out) {
    return RunScan(*shared, ctx, in, out);
  };
  return k;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildCond(const EqnView& v) {
  auto it = v.eqn.params.find("branches");
  if (it == v.eqn.params.end() || !it->second.IsJaxprTuple() || it->second.items().empty() ||
      v.in.empty() || v.in[0].rank() != 0) {
    return std::nullopt;
  }
  std::vector<std::shared_ptr<const Plan>> branches;
  int64_t work = 0, scratch = 0, constants = 0;
  int nested = 0;
  for (const ir::Param& b : it->second.items()) {
    AXE_ASSIGN_OR_RETURN(std::shared_ptr<const Plan> plan, BuildPlan(*b.jaxpr(), v.options));
    work = std::max(work, plan->stats.work);
    scratch = std::max(scratch, NestedScratchBytes(*plan, /*results_counted=*/true));
    constants += plan->constant_bytes;
    nested += AllFallbacks(*plan);
    branches.push_back(std::move(plan));
  }
  BuiltKernel k;
  k.description = absl::StrCat("cond (", branches.size(), " branches)");
  k.work = work;
  k.scratch_bytes = scratch;
  k.constant_bytes = constants;
  k.passes_through = true;
  k.nested_fallbacks = nested;
  k.kernel = [branches](const RunContext& ctx, absl::Span<const Value> in,
                        std::vector<Value>& out) -> absl::Status {
    ir::HostArray index = ToHostArray(in[0]);
    const double x = index.values.empty() ? 0 : index.values[0];
    const int64_t last = static_cast<int64_t>(branches.size()) - 1;
    const int64_t b = std::isnan(x) ? 0
                                    : std::clamp<int64_t>(
                                          static_cast<int64_t>(std::clamp(x, -1.0, 1e18)), 0, last);
    AXE_ASSIGN_OR_RETURN(out, RunPlan(*branches[static_cast<size_t>(b)], ctx, in.subspan(1)));
    return absl::OkStatus();
  };
  return k;
}

}  // namespace

void AddCallKernels(KernelTable& table) {
  table["jit"] = [](const EqnView& v) { return BuildCall(v, "jaxpr"); };
  table["closed_call"] = [](const EqnView& v) { return BuildCall(v, "call_jaxpr"); };
  table["custom_jvp_call"] = [](const EqnView& v) { return BuildCall(v, "call_jaxpr"); };
  table["custom_vjp_call"] = [](const EqnView& v) { return BuildCall(v, "call_jaxpr"); };
  table["scan"] = BuildScan;
  table["cond"] = BuildCond;
  table["remat2"] = [](const EqnView& v) { return BuildCall(v, "jaxpr"); };
}

}  // namespace axe::exec::internal
