// Helpers of the batching rules (internal to src/ir).
#ifndef AXE_SRC_IR_BATCHING_UTIL_H_
#define AXE_SRC_IR_BATCHING_UTIL_H_

#include <functional>
#include <optional>
#include <string>
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

// The elementwise batching rule, also that of n-ary broadcasting primitives (JAX's
// defbroadcasting): batch dimensions moved to the front, unbatched operands broadcast, the
// results batched at 0 (family_elementwise.cc).
BatchingRule ElementwiseBatching(const Primitive* prim);

// The one-operand batching rule: the operand's batch dimension moved to 0, the params
// rewritten by a ParamEdit (given the batch size and the old params), the result batched at 0.
using ParamEdit = std::function<absl::Status(Params&, int64_t size, const Params& old)>;
BatchingRule OneOperandBatching(const Primitive* prim, ParamEdit edit);
// Edits: the ints param `name` of `prim` (axes, dimensions) shifted by one; the cumulative
// reductions' `axis`, one further.
ParamEdit ShiftInts(const char* prim, const char* name);
ParamEdit ShiftAxis(std::string prim);
// Each of `v` plus `by`.
std::vector<int64_t> ShiftedAxes(const std::vector<int64_t>& v, int64_t by = 1);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_BATCHING_UTIL_H_
