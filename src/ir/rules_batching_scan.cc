// The batching rule of scan: every carry is batched (the fixed point is reached at once),
// batched consts keep their batch dimension at 0, batched xs at 1 (0 is the scanned axis), so
// the body sees every batched value at 0; the stacked ys come out batched at 1.
#include <memory>

#include "axe/base/status_macros.h"
#include "axe/ir/batching.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "rule_util.h"

namespace axe::ir::internal {

absl::StatusOr<BatchResult> ScanBatch(Builder& b, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* body_param, GetParam(params, "scan", "jaxpr"));
  if (body_param->jaxpr() == nullptr) return absl::InvalidArgumentError("scan: no body");
  const ClosedJaxpr& body = *body_param->jaxpr();
  AXE_ASSIGN_OR_RETURN(int64_t nc, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t nk, RequiredInt(params, "scan", "num_carry"));
  size_t n = args.size(), c_end = static_cast<size_t>(nc), k_end = static_cast<size_t>(nc + nk);
  if (nc < 0 || nk < 0 || k_end > n) {
    return absl::InvalidArgumentError("scan: num_consts + num_carry exceed the operands");
  }
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> body_dims;
  for (size_t i = 0; i < n; ++i) {
    Tracer x = args[i];
    bool batched = dims[i].has_value() || (i >= c_end && i < k_end);
    if (i >= c_end && i < k_end) {
      AXE_ASSIGN_OR_RETURN(x, Materialize(x, dims[i], size));
    } else if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], i < c_end ? 0 : 1));
    }
    ops.push_back(x);
    body_dims.push_back(batched ? BDim(0) : std::nullopt);
  }
  Builder inner;
  const Jaxpr& j = body.jaxpr;
  std::vector<Tracer> in;
  for (size_t i = 0; i < n; ++i) {
    ShapedArray a = j.aval(j.invars[i]);
    if (body_dims[i]) {
      std::vector<int64_t> shape = a.shape();
      shape.insert(shape.begin(), size);
      a = a.WithShape(std::move(shape));
    }
    in.push_back(inner.Arg(a));
  }
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(inner, body, in, body_dims));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
    outs.push_back(o);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr batched_body, inner.Build(outs));
  Params p = params;
  p["jaxpr"] = Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(batched_body)));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, b.Bind(*Builtins().scan, ops, p));
  std::vector<BDim> out_dims;
  for (size_t k = 0; k < res.size(); ++k) out_dims.push_back(k < static_cast<size_t>(nk) ? 0 : 1);
  return BatchResult{res, out_dims};
}

}  // namespace axe::ir::internal
