// Batching rules of jit / closed_call (inlined), scan (rules_batching_scan.cc) and cond (batched
// branches for an unbatched index; every branch evaluated and select_n'd for a batched one).
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/batching.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using BatchRuleResult = absl::StatusOr<BatchResult>;

BatchingRule InlineBatch(const char* prim, const char* param) {
  return [prim, param](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                       const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, param));
    if (p->jaxpr() == nullptr) return absl::InvalidArgumentError(absl::StrCat(prim, ": no body"));
    return BatchTrace(b, *p->jaxpr(), args, dims);
  };
}

// `body` batched at `dims` (each 0 or unbatched) with every output materialized at 0.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BatchedBranch(const ClosedJaxpr& body,
                                                                 absl::Span<const Tracer> like,
                                                                 absl::Span<const BDim> dims,
                                                                 int64_t size) {
  Builder b;
  std::vector<Tracer> args;
  for (const Tracer& t : like) args.push_back(b.Arg(t.aval));
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(b, body, args, dims));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
    outs.push_back(o);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(j));
}

// Every branch inlined and batched; output k = select_n(index, branch outputs k...).
BatchRuleResult SelectBranches(Builder& b, const Param& branches, const Tracer& index,
                               absl::Span<const Tracer> ops, absl::Span<const BDim> dims,
                               int64_t size) {
  std::vector<std::vector<Tracer>> outs;
  for (const Param& br : branches.items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(b, *br.jaxpr(), ops, dims));
    std::vector<Tracer> mat;
    for (size_t k = 0; k < r.outs.size(); ++k) {
      AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
      mat.push_back(o);
    }
    outs.push_back(std::move(mat));
  }
  BatchResult result;
  for (size_t k = 0; !outs.empty() && k < outs[0].size(); ++k) {
    const std::vector<int64_t>& shape = outs[0][k].aval.shape();
    AXE_ASSIGN_OR_RETURN(Tracer which, BroadcastInDim(index, shape, {0}));
    std::vector<Tracer> sel = {which};
    for (const auto& o : outs) sel.push_back(o[k]);
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> s, BindWithAutoPvary(*Builtins().select_n, sel));
    result.outs.push_back(s[0]);
    result.out_dims.push_back(0);
  }
  return result;
}

BatchRuleResult CondBatch(Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                          const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> op_dims;
  for (size_t i = 1; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      op_dims.push_back(0);
    } else {
      op_dims.push_back(std::nullopt);
    }
    ops.push_back(x);
  }
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(Tracer index, MoveBatchDim(args[0], *dims[0], 0));
    return SelectBranches(b, *branches, index, ops, op_dims, size);
  }
  std::vector<std::shared_ptr<const ClosedJaxpr>> batched;
  for (const Param& br : branches->items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(auto j, BatchedBranch(*br.jaxpr(), ops, op_dims, size));
    batched.push_back(std::move(j));
  }
  Params p = params;
  p["branches"] = Param::Jaxprs(std::move(batched));
  std::vector<Tracer> cond_args = {args[0]};
  cond_args.insert(cond_args.end(), ops.begin(), ops.end());
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().cond, cond_args, p));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

}  // namespace

absl::StatusOr<BatchResult> ScanBatch(Builder& b, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params);

void RegisterCallBatching(const BuiltinPrimitives& p) {
  auto add = [](const Primitive* prim, BatchingRule rule) {
    if (!GetBatchingRule(*prim).ok()) RegisterBatching(*prim, std::move(rule));
  };
  add(p.jit, InlineBatch("jit", "jaxpr"));
  add(p.closed_call, InlineBatch("closed_call", "call_jaxpr"));
  add(p.custom_jvp_call, InlineBatch("custom_jvp_call", "call_jaxpr"));
  add(p.custom_vjp_call, InlineBatch("custom_vjp_call", "call_jaxpr"));
  add(p.cond, CondBatch);
  add(p.scan, ScanBatch);
}

}  // namespace axe::ir::internal
