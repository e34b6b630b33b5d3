#include "batching_util.h"

#include <numeric>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"

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

}  // namespace axe::ir::internal
