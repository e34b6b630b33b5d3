// Batching rules of the elementwise primitives (and convert_element_type, select_n): batch
// dimensions moved to the front; an unbatched operand of rank > 0 gets a size-1 leading
// dimension (it broadcasts), a batched scalar gets size-1 trailing dimensions.
#include <numeric>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<Tracer> Expanded(const Tracer& x, int64_t size, size_t rank) {
  std::vector<int64_t> shape(rank + 1, 1);
  shape[0] = size;
  return BroadcastInDim(x, shape, {0});
}

absl::StatusOr<Tracer> LeadingOne(const Tracer& x) {
  std::vector<int64_t> shape = x.aval.shape();
  shape.insert(shape.begin(), 1);
  std::vector<int64_t> dims(x.aval.rank());
  std::iota(dims.begin(), dims.end(), 1);
  return BroadcastInDim(x, shape, dims);
}

// The operands aligned at batch dimension 0; `full` broadcasts every one to the full shape
// (select_n needs that for its selector).
absl::StatusOr<std::vector<Tracer>> Align(absl::Span<const Tracer> args,
                                          absl::Span<const BDim> dims) {
  int64_t size = BatchSize(args, dims);
  size_t rank = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    rank = std::max(rank, args[i].aval.rank() - (dims[i] ? 1 : 0));
  }
  std::vector<Tracer> out;
  for (size_t i = 0; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      if (x.aval.rank() == 1 && rank > 0) {
        AXE_ASSIGN_OR_RETURN(x, Expanded(x, size, rank));
      }
    } else if (x.aval.rank() > 0) {
      AXE_ASSIGN_OR_RETURN(x, LeadingOne(x));
    }
    out.push_back(x);
  }
  return out;
}

BatchingRule Elementwise(const Primitive* prim) {
  return [prim](Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> aligned, Align(args, dims));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, aligned, params));
    return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
  };
}

// select_n(which, *cases): the cases materialized at 0; a batched selector broadcast to the
// cases' shape, an unbatched one of rank > 0 too.
absl::StatusOr<BatchResult> SelectNBatch(Builder&, absl::Span<const Tracer> args,
                                         absl::Span<const BDim> dims, const Params& params) {
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  for (size_t i = 1; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer c, Materialize(args[i], dims[i], size));
    ops.push_back(c);
  }
  if (ops.empty()) return absl::InvalidArgumentError("select_n without cases");
  const std::vector<int64_t>& full = ops[0].aval.shape();
  Tracer which = args[0];
  if (dims[0] || which.aval.rank() > 0) {
    AXE_ASSIGN_OR_RETURN(which, Materialize(which, dims[0], size));
    std::vector<int64_t> keep(which.aval.rank());
    std::iota(keep.begin(), keep.end(), 0);
    if (which.aval.shape() != full) {
      AXE_ASSIGN_OR_RETURN(which, BroadcastInDim(which, full, keep));
    }
  }
  ops.insert(ops.begin(), which);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().select_n, ops, params));
  return BatchResult{outs, {0}};
}

// clamp(lo, x, hi): x at 0; lo and hi stay scalars when unbatched scalars, else they are
// broadcast to x's batched shape.
absl::StatusOr<BatchResult> ClampBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  int64_t size = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[1], dims[1], size));
  std::vector<Tracer> ops = {args[0], x, args[2]};
  for (size_t i : {0, 2}) {
    if (!dims[i] && args[i].aval.rank() == 0) continue;
    AXE_ASSIGN_OR_RETURN(Tracer bound, Materialize(args[i], dims[i], size));
    if (bound.aval.shape() != x.aval.shape()) {
      AXE_ASSIGN_OR_RETURN(bound, BroadcastInDim(bound, x.aval.shape(), {0}));
    }
    ops[i] = bound;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().clamp, ops, params));
  return BatchResult{outs, {0}};
}

}  // namespace

void RegisterElementwiseBatching(const BuiltinPrimitives& p) {
  for (const Primitive* prim : {p.add,
                                p.sub,
                                p.mul,
                                p.div,
                                p.max,
                                p.min,
                                p.pow,
                                p.neg,
                                p.sin,
                                p.cos,
                                p.exp,
                                p.log,
                                p.tanh,
                                p.sqrt,
                                p.abs,
                                p.sign,
                                p.eq,
                                p.ne,
                                p.lt,
                                p.le,
                                p.gt,
                                p.ge,
                                p.convert_element_type,
                                p.rem,
                                p.add_any,
                                p.and_,
                                p.or_,
                                p.not_,
                                p.integer_pow,
                                p.square,
                                p.rsqrt,
                                p.log1p,
                                p.logistic,
                                p.is_finite,
                                p.round,
                                p.floor,
                                p.ceil,
                                p.stop_gradient}) {
    if (!GetBatchingRule(*prim).ok()) RegisterBatching(*prim, Elementwise(prim));
  }
  if (!GetBatchingRule(*p.select_n).ok()) RegisterBatching(*p.select_n, SelectNBatch);
  if (!GetBatchingRule(*p.clamp).ok()) RegisterBatching(*p.clamp, ClampBatch);
}

BatchingRule ElementwiseBatching(const Primitive* prim) { return Elementwise(prim); }

}  // namespace axe::ir::internal
