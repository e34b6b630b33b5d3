// reduce_window_sum, reduce_window_max and reduce_window_min on floats (f32, f64) and
// integers, in the operand's own type: each output folds its window's elements in row-major
// window order from the identity (XLA's CPU order), positions on padding or on base-dilation
// holes left out. Integer sums wrap in their width; max and min propagate NaN. Other dtypes
// (16-bit floats, bool) and the select_and_* primitives run through the interpreter.
#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/fold.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

using Ints = std::vector<int64_t>;

// For every output position of one dimension, the input positions its window reads.
struct WindowPlan {
  Fold fold = Fold::kSum;
  DType dtype = DType::kF32;
  ir::ShapedArray out;
  std::vector<std::vector<Ints>> taps;  // [dimension][output position] -> input positions
  Ints in_strides, out_shape;
};

std::vector<Ints> DimensionTaps(int64_t in, int64_t out, int64_t size, int64_t stride, int64_t lo,
                                int64_t base, int64_t dilation) {
  std::vector<Ints> taps(static_cast<size_t>(out));
  for (int64_t y = 0; y < out; ++y) {
    const int64_t start = y * stride - lo;
    Ints& at = taps[static_cast<size_t>(y)];
    if (size <= in) {
      for (int64_t k = 0; k < size; ++k) {
        const int64_t p = start + k * dilation;
        if (p >= 0 && p % base == 0 && p / base < in) at.push_back(p / base);
      }
    } else {
      for (int64_t i = 0; i < in; ++i) {
        const int64_t p = i * base - start;
        if (p >= 0 && p % dilation == 0 && p / dilation < size) at.push_back(i);
      }
    }
  }
  return taps;
}

template <typename T>
T FoldWindow(const WindowPlan& plan, const T* x, const Ints& y) {
  const size_t rank = y.size();
  T acc = Identity<T>(plan.fold);
  std::vector<const Ints*> lists(rank);
  Ints pos(rank, 0);
  for (size_t d = 0; d < rank; ++d) {
    lists[d] = &plan.taps[d][static_cast<size_t>(y[d])];
    if (lists[d]->empty()) return acc;
  }
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset += (*lists[d])[static_cast<size_t>(pos[d])] * plan.in_strides[d];
    }
    acc = Combine(plan.fold, acc, x[offset]);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++pos[d] < static_cast<int64_t>(lists[d]->size())) break;
      pos[d] = 0;
      if (d == 0) return acc;
    }
    if (rank == 0) return acc;
  }
}

template <typename T>
absl::Status WindowKernel(const WindowPlan& plan, const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(plan.out));
  const T* x = in[0].data<T>();
  T* o = out[0].mutable_data<T>();
  Ints y(plan.out_shape.size(), 0);
  const int64_t n = NumElements(plan.out);
  for (int64_t at = 0; at < n; ++at) {
    o[at] = FoldWindow<T>(plan, x, y);
    for (size_t d = y.size(); d > 0; --d) {
      if (++y[d - 1] < plan.out_shape[d - 1]) break;
      y[d - 1] = 0;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildWindow(const EqnView& v, Fold fold) {
  const DType t = v.out[0].dtype();
  if (!IsHeld(t) || t == DType::kPred || t == DType::kF16 || t == DType::kBF16 ||
      v.in.size() != 1 || v.in[0].dtype() != t) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(Ints dims, IntsParam(v.eqn, "window_dimensions"));
  AXE_ASSIGN_OR_RETURN(Ints strides, IntsParam(v.eqn, "window_strides"));
  AXE_ASSIGN_OR_RETURN(Ints base, IntsParam(v.eqn, "base_dilation"));
  AXE_ASSIGN_OR_RETURN(Ints dilation, IntsParam(v.eqn, "window_dilation"));
  const ir::Param& padding = v.eqn.params.at("padding");
  const Ints& in = v.in[0].shape();
  WindowPlan plan;
  plan.fold = fold;
  plan.dtype = t;
  plan.out = v.out[0];
  plan.out_shape = v.out[0].shape();
  int64_t stride = 1;
  plan.in_strides.assign(in.size(), 1);
  for (size_t d = in.size(); d > 0; --d) {
    plan.in_strides[d - 1] = stride;
    stride *= in[d - 1];
  }
  int64_t work = NumElements(plan.out);
  for (size_t d = 0; d < in.size(); ++d) {
    AXE_ASSIGN_OR_RETURN(Ints lh, padding.items()[d].AsInts("padding"));
    plan.taps.push_back(
        DimensionTaps(in[d], plan.out_shape[d], dims[d], strides[d], lh[0], base[d], dilation[d]));
    work = CheckedMul(work, std::min(dims[d], std::max<int64_t>(in[d], 1)))
               .value_or(std::numeric_limits<int64_t>::max());
  }
  BuiltKernel k;
  k.description = "window";
  k.work = work;
  auto shared = std::make_shared<const WindowPlan>(std::move(plan));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    absl::Status s;
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        s = WindowKernel<T>(*shared, ctx, in, out);
      }
    });
    return s;
  };
  return k;
}

}  // namespace

void AddWindowKernels(KernelTable& table) {
  table["reduce_window_sum"] = [](const EqnView& v) { return BuildWindow(v, Fold::kSum); };
  table["reduce_window_max"] = [](const EqnView& v) { return BuildWindow(v, Fold::kMax); };
  table["reduce_window_min"] = [](const EqnView& v) { return BuildWindow(v, Fold::kMin); };
}

}  // namespace axe::exec::internal
