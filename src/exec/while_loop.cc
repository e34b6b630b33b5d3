// The kernel of `while`: cond_jaxpr and body_jaxpr are compiled once into plans and run in turn
// until the predicate fails everywhere; no planning per iteration, and the carries' storage
// goes back to the value pool as each iteration replaces them. A batched predicate (one bool
// per leading block of the carries, after vmap) keeps each block's old carry once its own
// predicate is false. Every iteration checks cancellation and counts its work (at least
// kMinIterationWork) against ExecOptions::max_work, so that a loop that never ends is stopped.
#include <algorithm>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

// The least work an iteration counts: at the default max_work (2^42) a loop ends after at
// most 2^22 iterations.
constexpr int64_t kMinIterationWork = int64_t{1} << 20;

struct WhileLoop {
  std::shared_ptr<const Plan> cond, body;
  size_t cond_nconsts = 0, body_nconsts = 0;
  int64_t iteration_work = 0, max_work = 0;
};

absl::StatusOr<std::shared_ptr<const Plan>> JaxprPlan(const ir::Eqn& eqn, const char* name,
                                                      const ExecOptions& options) {
  auto it = eqn.params.find(name);
  if (it == eqn.params.end() || it->second.kind() != ir::Param::Kind::kJaxpr ||
      it->second.jaxpr() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("while needs a jaxpr parameter ", name));
  }
  return BuildPlan(*it->second.jaxpr(), options);
}

// How many predicate elements hold (pred is a bool value).
int64_t CountTrue(const Value& pred) {
  const auto* p = reinterpret_cast<const uint8_t*>(pred.bytes());
  return std::count_if(p, p + pred.num_bytes(), [](uint8_t b) { return b != 0; });
}

// `next` where the predicate holds, `old` elsewhere, in fresh storage.
absl::StatusOr<Value> Select(const RunContext& ctx, const Value& pred, const Value& old,
                             const Value& next) {
  AXE_ASSIGN_OR_RETURN(Value out, ctx.Allocate(old.aval()));
  const auto* p = reinterpret_cast<const uint8_t*>(pred.bytes());
  const size_t lanes = pred.num_bytes();
  const size_t block = lanes == 0 ? 0 : old.num_bytes() / lanes;
  for (size_t l = 0; l < lanes; ++l) {
    const Value& from = p[l] != 0 ? next : old;
    std::memcpy(out.mutable_bytes() + l * block, from.bytes() + l * block, block);
  }
  return out;
}

absl::Status RunWhile(const WhileLoop& w, const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) {
  const size_t fixed = w.cond_nconsts + w.body_nconsts;
  std::vector<Value> cond_args(in.begin(),
                               in.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts));
  std::vector<Value> body_args(in.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts),
                               in.begin() + static_cast<std::ptrdiff_t>(fixed));
  std::vector<Value> carry(in.begin() + static_cast<std::ptrdiff_t>(fixed), in.end());
  int64_t work = 0;
  PlanFrame cond_frame, body_frame;  // kept from iteration to iteration
  std::vector<Value> pred, next;
  for (int64_t iterations = 0;; ++iterations) {
    if (ctx.cancelled()) return absl::CancelledError("the program was cancelled (in a while loop)");
    if (w.iteration_work > w.max_work - work) {
      return absl::ResourceExhaustedError(absl::StrCat(
          "a while loop stopped after ", iterations, " iterations: its work passed the limit of ",
          w.max_work, " (ExecOptions::max_work; each iteration counts at least ", kMinIterationWork,
          ")"));
    }
    work += w.iteration_work;
    cond_args.insert(cond_args.end(), carry.begin(), carry.end());
    AXE_RETURN_IF_ERROR(RunPlanInFrame(*w.cond, ctx, cond_args, cond_frame, pred));
    const int64_t holds = CountTrue(pred[0]);
    if (holds == 0) break;
    body_args.insert(body_args.end(), carry.begin(), carry.end());
    AXE_RETURN_IF_ERROR(RunPlanInFrame(*w.body, ctx, body_args, body_frame, next));
    const bool all = holds == static_cast<int64_t>(pred[0].num_bytes());
    for (size_t k = 0; k < carry.size(); ++k) {
      if (!all) {
        AXE_ASSIGN_OR_RETURN(next[k], Select(ctx, pred[0], carry[k], next[k]));
      }
      std::swap(carry[k], next[k]);
    }
    cond_args.resize(w.cond_nconsts);  // no reference to the old carries is kept
    body_args.resize(w.body_nconsts);
    if (ctx.values != nullptr) {
      for (Value& v : next) ctx.values->Give(std::move(v));
      ctx.values->Give(std::move(pred[0]));
    }
  }
  out = std::move(carry);
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildWhile(const EqnView& v) {
  WhileLoop w;
  AXE_ASSIGN_OR_RETURN(w.cond, JaxprPlan(v.eqn, "cond_jaxpr", v.options));
  AXE_ASSIGN_OR_RETURN(w.body, JaxprPlan(v.eqn, "body_jaxpr", v.options));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> cn, IntsParam(v.eqn, "cond_nconsts"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> bn, IntsParam(v.eqn, "body_nconsts"));
  // A malformed while is the interpreter's to report: fall back to it.
  const int64_t n = static_cast<int64_t>(v.in.size());
  if (cn.size() != 1 || bn.size() != 1 || cn[0] < 0 || bn[0] < 0 || cn[0] > n ||
      bn[0] > n - cn[0]) {
    return std::nullopt;
  }
  w.cond_nconsts = static_cast<size_t>(cn[0]);
  w.body_nconsts = static_cast<size_t>(bn[0]);
  const size_t carries = v.in.size() - w.cond_nconsts - w.body_nconsts;
  if (w.cond->inputs.size() != w.cond_nconsts + carries ||
      w.body->inputs.size() != w.body_nconsts + carries || w.body->outputs.size() != carries ||
      v.out.size() != carries || w.cond->output_avals.size() != 1 ||
      w.cond->output_avals[0].dtype() != DType::kPred) {
    return std::nullopt;
  }
  w.iteration_work = std::max(kMinIterationWork, w.cond->stats.work + w.body->stats.work);
  w.max_work = v.options.max_work;
  BuiltKernel k;
  k.description =
      absl::StrCat("while (", w.cond->steps.size(), " + ", w.body->steps.size(), " steps)");
  k.work = w.iteration_work;
  // Beyond the arguments the caller holds: the predicate's values, or the body's (its results
  // are the next carries, live next to the old ones) next to the predicate.
  k.scratch_bytes =
      std::max(NestedScratchBytes(*w.cond, /*results_counted=*/false),
               NestedScratchBytes(*w.body, /*results_counted=*/false) + w.cond->result_bytes);
  k.constant_bytes = w.cond->constant_bytes + w.body->constant_bytes;
  k.passes_through = true;
  k.nested_fallbacks = AllFallbacks(*w.cond) + AllFallbacks(*w.body);
  auto shared = std::make_shared<const WhileLoop>(std::move(w));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in, std::vector<Value>& out) {
    return RunWhile(*shared, ctx, in, out);
  };
  return k;
}

}  // namespace

void AddWhileKernels(KernelTable& table) { table["while"] = BuildWhile; }

}  // namespace axe::exec::internal
