#include "batching_util.h"

#include <numeric>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "rule_util.h"

namespace axe::ir::internal {

absl::StatusOr<Tracer> MoveBatchDim(const Tracer& x, int64_t dim, int64_t to) {
  if (dim == to) return x;
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
    if (d != dim) perm.push_back(d);
  }
  perm.insert(perm.begin() + to, dim);
  return Transpose(x, perm);
}

absl::StatusOr<Tracer> BroadcastBatched(const Tracer& x, int64_t size, int64_t at) {
  std::vector<int64_t> shape = x.aval.shape();
  shape.insert(shape.begin() + at, size);
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (d != at) dims.push_back(d);
  }
  return BroadcastInDim(x, shape, dims);
}

absl::StatusOr<Tracer> Materialize(const Tracer& x, const BDim& dim, int64_t size) {
  if (dim) return MoveBatchDim(x, *dim, 0);
  return BroadcastBatched(x, size, 0);
}

int64_t BatchSize(absl::Span<const Tracer> args, absl::Span<const BDim> dims) {
  for (size_t i = 0; i < args.size() && i < dims.size(); ++i) {
    if (dims[i]) return args[i].aval.shape()[*dims[i]];
  }
  return 1;
}

std::vector<int64_t> ShiftedAxes(const std::vector<int64_t>& v, int64_t by) {
  std::vector<int64_t> out;
  for (int64_t d : v) out.push_back(d + by);
  return out;
}

BatchingRule OneOperandBatching(const Primitive* prim, ParamEdit edit) {
  return [prim, edit](Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                      const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
    Params p = params;
    AXE_RETURN_IF_ERROR(edit(p, x.aval.shape()[0], params));
    std::vector<Tracer> ops = {x};
    ops.insert(ops.end(), args.begin() + 1, args.end());
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, ops, p));
    return BatchResult{outs, {0}};
  };
}

ParamEdit ShiftInts(const char* prim, const char* name) {
  return [prim, name](Params& p, int64_t, const Params& old) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> v, RequiredInts(old, prim, name));
    p[name] = Param::Ints(ShiftedAxes(v));
    return absl::OkStatus();
  };
}

// The cumulative reductions' `axis`, one further.
ParamEdit ShiftAxis(std::string prim) {
  return [prim](Params& p, int64_t, const Params& old) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(old, prim, "axis"));
    p["axis"] = Param::Int(axis + 1);
    return absl::OkStatus();
  };
}

}  // namespace axe::ir::internal
