// Impl rules of the primitives that index: slice, dynamic_slice and dynamic_update_slice
// (start indices clamped so that the window fits, as XLA does), dot_general.
#include <algorithm>

#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Impl = absl::StatusOr<std::vector<HostArray>>;

// Copies the window of `x` starting at `start` with `strides` into an array of `aval`.
absl::StatusOr<HostArray> Window(const HostArray& x, const ShapedArray& aval,
                                 const std::vector<int64_t>& start,
                                 const std::vector<int64_t>& strides) {
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> in_strides = Strides(x.aval.shape());
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      flat += (start[d] + index[d] * strides[d]) * in_strides[d];
    }
    out.values[i] = x.values[static_cast<size_t>(flat)];
  }
  return out;
}

Impl SliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().slice, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       OptionalInts(params, "strides", std::vector<int64_t>(aval.rank(), 1)));
  AXE_ASSIGN_OR_RETURN(HostArray out, Window(args[0], aval, start, strides));
  return OneArray(std::move(out));
}

// XLA's clamping: each start index is clamped into [0, operand dim - window dim].
std::vector<int64_t> ClampedStarts(absl::Span<const HostArray> indices,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& window) {
  std::vector<int64_t> start;
  for (size_t d = 0; d < dims.size(); ++d) {
    start.push_back(std::clamp<int64_t>(ScalarIndex(indices[d]), 0, dims[d] - window[d]));
  }
  return start;
}

Impl DynamicSliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().dynamic_slice, args, params));
  const HostArray& x = args[0];
  std::vector<int64_t> start = ClampedStarts(args.subspan(1), x.aval.shape(), aval.shape());
  AXE_ASSIGN_OR_RETURN(HostArray out, Window(x, aval, start, std::vector<int64_t>(aval.rank(), 1)));
  return OneArray(std::move(out));
}

Impl DynamicUpdateSliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval,
                       ResultAval(*Builtins().dynamic_update_slice, args, params));
  HostArray out{aval, args[0].values};
  const HostArray& update = args[1];
  std::vector<int64_t> start = ClampedStarts(args.subspan(2), aval.shape(), update.aval.shape());
  std::vector<int64_t> strides = Strides(aval.shape());
  std::vector<int64_t> index(update.aval.rank(), 0);
  for (size_t i = 0; i < update.values.size(); ++i, NextIndex(index, update.aval.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) flat += (start[d] + index[d]) * strides[d];
    out.values[static_cast<size_t>(flat)] = update.values[i];
  }
  return OneArray(std::move(out));
}

}  // namespace

absl::StatusOr<std::vector<HostArray>> DotGeneralImpl(absl::Span<const HostArray> args,
                                                      const Params& params);

void RegisterIndexImpls(const BuiltinPrimitives& p) {
  RegisterImpl(*p.slice, SliceImpl);
  RegisterImpl(*p.dynamic_slice, DynamicSliceImpl);
  RegisterImpl(*p.dynamic_update_slice, DynamicUpdateSliceImpl);
  RegisterImpl(*p.dot_general, DotGeneralImpl);
}

}  // namespace axe::ir::internal
