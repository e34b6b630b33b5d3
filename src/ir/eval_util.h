// Helpers shared by the impl rules and the interpreter (internal to src/ir): arrays, indices,
// result types.
#ifndef AXE_SRC_IR_EVAL_UTIL_H_
#define AXE_SRC_IR_EVAL_UTIL_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/host_array.h"
#include "axe/ir/param.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"

namespace axe::ir::internal {

// OK iff the interpreter holds `dtype` (bool, integers, f16, bf16, f32, f64); Unimplemented
// naming it otherwise.
absl::Status CheckEvalDType(DType dtype);

// A zero-filled array of `aval` (variance set dropped). InvalidArgument when the element count
// overflows or exceeds kMaxEvalElements.
inline constexpr int64_t kMaxEvalElements = int64_t{1} << 24;  // 128 MiB of doubles
absl::StatusOr<HostArray> ZeroArray(const ShapedArray& aval);

// Row-major strides of `shape`.
std::vector<int64_t> Strides(absl::Span<const int64_t> shape);
// Advances a row-major multi-index over `shape`; false after the last one.
bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> shape);

// The single result type of `prim` on `args` (its abstract evaluation, variance sets dropped),
// checked to be a type the interpreter holds.
absl::StatusOr<ShapedArray> ResultAval(const Primitive& prim, absl::Span<const HostArray> args,
                                       const Params& params);
// Types of `args` without variance sets.
std::vector<ShapedArray> PlainAvals(absl::Span<const HostArray> args);

// One result, as an impl rule returns it.
inline absl::StatusOr<std::vector<HostArray>> OneArray(HostArray a) {
  return std::vector<HostArray>{std::move(a)};
}

// An elementwise impl: fn(operands' elements, the first operand's dtype, params) per element
// of the broadcast result, rounded to its dtype (family_elementwise.cc).
using ElementFn = std::function<double(absl::Span<const double>, DType, const Params&)>;
ImplRule ElementwiseImplRule(const Primitive& prim, ElementFn fn);

// A value of an integer type as int64 (values are exact in the interpreter's doubles up to
// 2^53; larger u64 values keep their bits).
int64_t AsInt64(double v);
// The low BitWidth(t) bits set.
uint64_t UnsignedMask(DType t);
// The value of integer type `t` whose two's complement bits are the low BitWidth(t) bits of
// `bits`: integer arithmetic done in uint64 wraps around to `t` as XLA's does.
double IntegerFromBits(uint64_t bits, DType t);

// For each element of `array`, in row-major order: the flat index of the element of the
// reduction's result it folds into once `axes` (in range, distinct) are dropped.
std::vector<int64_t> ReducedPositions(const HostArray& array, const std::vector<int64_t>& axes);

// The integer value of a scalar index operand (clamped into int64).
int64_t ScalarIndex(const HostArray& a);

// The element of `a` at a result's multi-index, size-1 and rank-0 dimensions of `a`
// broadcast (the elementwise impl rules; inline: it runs once per element and operand).
inline double BroadcastElementAt(const HostArray& a, const std::vector<int64_t>& index) {
  if (a.aval.rank() == 0) return a.values[0];
  int64_t flat = 0;
  for (size_t d = 0; d < index.size(); ++d) {
    int64_t size = a.aval.shape()[d];
    flat = flat * size + (size == 1 ? 0 : index[d]);
  }
  return a.values[static_cast<size_t>(flat)];
}

// The impl rule of a primitive the interpreter runs itself (calls, cond, scan, shard_map, the
// collectives, while, remat2): it binds an equation and evaluates it on the host's simulated
// mesh, so that GetImplRule works for every built-in. A collective alone has no mesh: it
// reports its unbound axis name, as JAX does outside shard_map (family_control_flow.cc).
ImplRule ViaInterpreter(const Primitive& prim);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_EVAL_UTIL_H_
