// Helpers of the batching rules (internal to src/ir).
#ifndef AXE_SRC_IR_BATCHING_UTIL_H_
#define AXE_SRC_IR_BATCHING_UTIL_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/primitives.h"
#include "axe/ir/tracer.h"

namespace axe::ir::internal {

using BDim = std::optional<int64_t>;

// `x` with its batch dimension `dim` moved to `to` (a transpose; nothing when already there).
absl::StatusOr<Tracer> MoveBatchDim(const Tracer& x, int64_t dim, int64_t to);
// `x` (unbatched) broadcast to carry a batch dimension of `size` at `at`.
absl::StatusOr<Tracer> BroadcastBatched(const Tracer& x, int64_t size, int64_t at);
// `x` with its batch dimension at 0, broadcast when unbatched.
absl::StatusOr<Tracer> Materialize(const Tracer& x, const BDim& dim, int64_t size);
// The size of the batch dimension of the first batched argument.
int64_t BatchSize(absl::Span<const Tracer> args, absl::Span<const BDim> dims);

void RegisterElementwiseBatching(const BuiltinPrimitives& p);
// The elementwise batching rule: batch dimensions moved to the front, unbatched operands
// broadcast (rules_batching_elementwise.cc).
BatchingRule ElementwiseBatching(const Primitive* prim);
void RegisterShapeBatching(const BuiltinPrimitives& p);
void RegisterCallBatching(const BuiltinPrimitives& p);
void RegisterCollectiveBatching(const BuiltinPrimitives& p);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_BATCHING_UTIL_H_
