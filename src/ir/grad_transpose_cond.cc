// The transpose rule of cond: a cond of the branches' backward passes, taking the index, the
// non-linear operands and one cotangent per output, and returning one cotangent per linear
// operand (zeros where a branch gives none, so that every branch has the same outputs).
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

// The backward pass of `branch` as a closed jaxpr: (non-linear operands..., cts...) ->
// cotangents of the linear operands.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> TransposedBranch(
    const ClosedJaxpr& branch, absl::Span<const TransposeArg> ops,
    absl::Span<const ShapedArray> ct_avals) {
  const Jaxpr& j = branch.jaxpr;
  Builder b;
  std::vector<Tracer> consts;
  for (const HostArray& c : branch.consts) consts.push_back(b.Const(c));
  std::vector<std::optional<Tracer>> inputs;
  for (size_t i = 0; i < ops.size(); ++i) {
    inputs.push_back(ops[i].is_undefined_primal()
                         ? std::nullopt
                         : std::optional<Tracer>(b.Arg(j.aval(j.invars[i]))));
  }
  std::vector<std::optional<Tracer>> cts;
  for (const ShapedArray& a : ct_avals) cts.push_back(b.Arg(a));
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                       BackwardPass(b, j, consts, inputs, cts));
  std::vector<Tracer> outs;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, in_cts[i], j.aval(j.invars[i])));
    outs.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

}  // namespace

absl::StatusOr<std::vector<OptTracer>> CondTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (args.empty() || args[0].is_undefined_primal()) {
    return absl::InvalidArgumentError("cond is not linear in its index");
  }
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  if (branches->items().empty() || branches->items()[0].jaxpr() == nullptr) {
    return absl::InvalidArgumentError("cond without branches");
  }
  absl::Span<const TransposeArg> ops = args.subspan(1);
  std::vector<ShapedArray> ct_avals = branches->items()[0].jaxpr()->jaxpr.out_avals();
  std::vector<Tracer> operands = {*args[0].value};
  for (const TransposeArg& a : ops) {
    if (!a.is_undefined_primal()) operands.push_back(*a.value);
  }
  for (size_t k = 0; k < cts.size() && k < ct_avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, cts[k], ct_avals[k]));
    operands.push_back(t);
  }
  std::vector<std::shared_ptr<const ClosedJaxpr>> transposed;
  for (const Param& br : branches->items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(auto t, TransposedBranch(*br.jaxpr(), ops, ct_avals));
    transposed.push_back(std::move(t));
  }
  Params p = params;
  p["branches"] = Param::Jaxprs(std::move(transposed));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> results,
                       BindWithAutoPvary(*Builtins().cond, operands, p));
  for (size_t i = 1, next = 0; i < args.size(); ++i) {
    if (args[i].is_undefined_primal()) out[i] = results[next++];
  }
  return out;
}

}  // namespace axe::ir::internal
