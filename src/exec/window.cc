// reduce_window_sum, reduce_window_max, reduce_window_min, select_and_gather_add and
// select_and_scatter_add on floats (f32, f64) and integers, in the operand's own type: each
// output folds its window's elements in row-major window order from the identity (XLA's CPU
// order), positions on padding or on base-dilation holes left out. Integer sums wrap in their
// width; max and min propagate NaN. The select_and_* primitives choose, per window, the first
// element in that order that no later one replaces (a later one replaces it unless
// choice >= candidate, for ge; <= for le), as the interpreter does. 16-bit floats and bool
// run through the interpreter.
#include <algorithm>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/numeric/int128.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/fold.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces (and their names) between
// files.
namespace window_kernels {

using Ints = std::vector<int64_t>;

// For every output position of one dimension, the input positions its window reads.
struct WindowPlan {
  Fold fold = Fold::kSum;
  DType dtype = DType::kF32;
  bool select_ge = true;   // select_and_*: ge (max pooling) or le (min pooling)
  ir::ShapedArray out;     // the windows' shape (select_and_scatter_add: its source's)
  ir::ShapedArray result;  // select_and_scatter_add: the operand's shape
  std::vector<std::vector<Ints>> taps;
  int64_t work =
      0;  // the kernel's work estimate  // [dimension][output position] -> input positions
  Ints in_strides, out_shape;
};

// Positions in 128 bits: a padding near 2^63 must not overflow on the way.
std::vector<Ints> DimensionTaps(int64_t in, int64_t out, int64_t size, int64_t stride, int64_t lo,
                                int64_t base, int64_t dilation) {
  using Wide = absl::int128;
  std::vector<Ints> taps(static_cast<size_t>(out));
  for (int64_t y = 0; y < out; ++y) {
    const Wide start = Wide(y) * stride - lo;
    Ints& at = taps[static_cast<size_t>(y)];
    if (size <= in) {
      for (int64_t k = 0; k < size; ++k) {
        const Wide p = start + Wide(k) * dilation;
        if (p >= 0 && p % base == 0 && p / base < in) at.push_back(static_cast<int64_t>(p / base));
      }
    } else {
      for (int64_t i = 0; i < in; ++i) {
        const Wide p = Wide(i) * base - start;
        if (p >= 0 && p % dilation == 0 && p / dilation < size) at.push_back(i);
      }
    }
  }
  return taps;
}

// Calls visit(offset) for the input offsets of output position y's window, row-major.
template <typename Visit>
void ForEachTap(const WindowPlan& plan, const Ints& y, Visit visit) {
  const size_t rank = y.size();
  absl::InlinedVector<const Ints*, 6> lists(rank);
  for (size_t d = 0; d < rank; ++d) {
    lists[d] = &plan.taps[d][static_cast<size_t>(y[d])];
    if (lists[d]->empty()) return;
  }
  absl::InlinedVector<int64_t, 6> pos(rank, 0);
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset += (*lists[d])[static_cast<size_t>(pos[d])] * plan.in_strides[d];
    }
    visit(offset);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++pos[d] < static_cast<int64_t>(lists[d]->size())) break;
      pos[d] = 0;
      if (d == 0) return;
    }
    if (rank == 0) return;
  }
}

constexpr int64_t kOutputChunk = 4096;

// Calls visit(out_offset, y) for every output position, row-major within chunks of
// kOutputChunk outputs; the chunks run on the pool when `parallel` (each output is written by
// its own visit) and the work is large.
template <typename Visit>
void ForEachOutput(const WindowPlan& plan, const RunContext& ctx, bool parallel, Visit visit) {
  const int64_t n = NumElements(plan.out);
  const size_t rank = plan.out_shape.size();
  auto chunk = [&](int64_t c) {
    const int64_t begin = c * kOutputChunk, end = std::min(n, begin + kOutputChunk);
    Ints y(rank, 0);
    for (size_t d = rank, rest = static_cast<size_t>(begin); d > 0; --d) {
      const size_t extent = static_cast<size_t>(plan.out_shape[d - 1]);
      y[d - 1] = static_cast<int64_t>(rest % extent);
      rest /= extent;
    }
    for (int64_t at = begin; at < end; ++at) {
      visit(at, y);
      for (size_t d = rank; d > 0; --d) {
        if (++y[d - 1] < plan.out_shape[d - 1]) break;
        y[d - 1] = 0;
      }
    }
  };
  const int64_t chunks = (n + kOutputChunk - 1) / kOutputChunk;
  if (parallel && ctx.pool != nullptr && ctx.threads > 1 && chunks > 1 &&
      plan.work >= (int64_t{1} << 18)) {
    ctx.pool->ParallelFor(chunks, chunk, ctx.threads);
  } else {
    for (int64_t c = 0; c < chunks; ++c) chunk(c);
  }
}

template <typename T>
absl::Status WindowKernel(const WindowPlan& plan, const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(plan.out));
  const T* x = in[0].data<T>();
  T* o = out[0].mutable_data<T>();
  ForEachOutput(plan, ctx, true, [&](int64_t at, const Ints& y) {
    T acc = Identity<T>(plan.fold);
    ForEachTap(plan, y, [&](int64_t i) { acc = Combine(plan.fold, acc, x[i]); });
    o[at] = acc;
  });
  return absl::OkStatus();
}

// The offset of the element window y chooses (the choice stays while select(choice,
// candidate) holds: ge for max, le for min), or -1 for a window of padding only.
template <typename T>
int64_t Chosen(const WindowPlan& plan, const T* x, const Ints& y) {
  int64_t chosen = -1;
  ForEachTap(plan, y, [&](int64_t i) {
    if (chosen < 0) {
      chosen = i;
      return;
    }
    const T a = x[chosen], b = x[i];
    if (!(plan.select_ge ? a >= b : a <= b)) chosen = i;
  });
  return chosen;
}

template <typename T>
absl::Status GatherKernel(const WindowPlan& plan, const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(plan.out));
  const T* t = in[0].data<T>();
  const T* x = in[1].data<T>();
  T* o = out[0].mutable_data<T>();
  ForEachOutput(plan, ctx, true, [&](int64_t at, const Ints& y) {
    const int64_t i = Chosen<T>(plan, x, y);
    o[at] = i < 0 ? T(0) : t[i];
  });
  return absl::OkStatus();
}

template <typename T>
absl::Status ScatterKernel(const WindowPlan& plan, const RunContext& ctx,
                           absl::Span<const Value> in, std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(plan.result));
  const T* source = in[0].data<T>();
  const T* x = in[1].data<T>();
  T* o = out[0].mutable_data<T>();
  std::fill_n(o, NumElements(plan.result), T(0));
  ForEachOutput(plan, ctx, false, [&](int64_t at, const Ints& y) {
    const int64_t i = Chosen<T>(plan, x, y);
    if (i >= 0) o[i] = Combine(Fold::kSum, o[i], source[at]);
  });
  return absl::OkStatus();
}

enum class WindowOp { kFold, kGather, kScatter };

// The most input positions one dimension's windows may list (all outputs together).
constexpr int64_t kMaxTapsPerDimension = int64_t{1} << 24;

// The params JAX prints for the op (select_and_scatter_add has no dilations).
absl::Status ReadPlan(const EqnView& v, WindowOp op, WindowPlan& plan) {
  AXE_ASSIGN_OR_RETURN(Ints dims, IntsParam(v.eqn, "window_dimensions"));
  AXE_ASSIGN_OR_RETURN(Ints strides, IntsParam(v.eqn, "window_strides"));
  Ints base(dims.size(), 1), dilation(dims.size(), 1);
  if (op != WindowOp::kScatter) {
    AXE_ASSIGN_OR_RETURN(base, IntsParam(v.eqn, "base_dilation"));
    AXE_ASSIGN_OR_RETURN(dilation, IntsParam(v.eqn, "window_dilation"));
  }
  if (op != WindowOp::kFold) {
    const ir::Param& select = v.eqn.params.at("select_prim");
    plan.select_ge = select.text() == "ge";
  }
  const ir::Param& padding = v.eqn.params.at("padding");
  const Ints& in = v.in.back().shape();
  plan.out = op == WindowOp::kScatter ? v.in[0] : v.out[0];
  plan.result = v.out[0];
  plan.out_shape = plan.out.shape();
  int64_t stride = 1;
  plan.in_strides.assign(in.size(), 1);
  for (size_t d = in.size(); d > 0; --d) {
    plan.in_strides[d - 1] = stride;
    stride *= in[d - 1];
  }
  for (size_t d = 0; d < in.size(); ++d) {
    std::optional<int64_t> taps = CheckedMul(plan.out_shape[d], std::min(dims[d], in[d]));
    if (!taps || *taps > kMaxTapsPerDimension) {
      return absl::ResourceExhaustedError(absl::StrCat(
          v.eqn.primitive->name(), " dimension ", d, ": ", plan.out_shape[d], " windows of ",
          dims[d], " over ", in[d], " elements read more than 2^24 positions"));
    }
    AXE_ASSIGN_OR_RETURN(Ints lh, padding.items()[d].AsInts("padding"));
    plan.taps.push_back(
        DimensionTaps(in[d], plan.out_shape[d], dims[d], strides[d], lh[0], base[d], dilation[d]));
  }
  return absl::OkStatus();
}

// Output elements times the window (each dimension's capped at the input's extent),
// saturating, plus the operand's elements.
int64_t Work(const WindowPlan& plan) {
  int64_t work = NumElements(plan.out);
  for (const std::vector<Ints>& dim : plan.taps) {
    size_t widest = 1;
    for (const Ints& at : dim) widest = std::max(widest, at.size());
    work = CheckedMul(work, static_cast<int64_t>(widest))
               .value_or(std::numeric_limits<int64_t>::max());
  }
  return CheckedAdd(work, NumElements(plan.result)).value_or(std::numeric_limits<int64_t>::max());
}

absl::StatusOr<std::optional<BuiltKernel>> BuildWindow(const EqnView& v, WindowOp op, Fold fold) {
  const DType t = v.out[0].dtype();
  const size_t arity = op == WindowOp::kFold ? 1 : 2;
  if (!IsHeld(t) || t == DType::kPred || t == DType::kF16 || t == DType::kBF16 ||
      v.in.size() != arity) {
    return std::nullopt;
  }
  for (const ir::ShapedArray& a : v.in) {
    if (a.dtype() != t) return std::nullopt;
  }
  WindowPlan plan;
  plan.fold = fold;
  plan.dtype = t;
  AXE_RETURN_IF_ERROR(ReadPlan(v, op, plan));
  BuiltKernel k;
  k.description = op == WindowOp::kFold     ? "window"
                  : op == WindowOp::kGather ? "window select gather"
                                            : "window select scatter";
  k.work = plan.work = Work(plan);
  auto shared = std::make_shared<const WindowPlan>(std::move(plan));
  k.kernel = [shared, op](const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) -> absl::Status {
    absl::Status s;
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        switch (op) {
          case WindowOp::kFold: s = WindowKernel<T>(*shared, ctx, in, out); break;
          case WindowOp::kGather: s = GatherKernel<T>(*shared, ctx, in, out); break;
          case WindowOp::kScatter: s = ScatterKernel<T>(*shared, ctx, in, out); break;
        }
      }
    });
    return s;
  };
  return k;
}

}  // namespace window_kernels

void AddWindowKernels(KernelTable& table) {
  using window_kernels::BuildWindow;
  using window_kernels::WindowOp;
  const std::pair<const char*, Fold> folds[] = {{"reduce_window_sum", Fold::kSum},
                                                {"reduce_window_max", Fold::kMax},
                                                {"reduce_window_min", Fold::kMin}};
  for (const auto& entry : folds) {
    const Fold fold = entry.second;  // a copy: clang 14 cannot capture a structured binding
    table[entry.first] = [fold](const EqnView& v) { return BuildWindow(v, WindowOp::kFold, fold); };
  }
  table["select_and_gather_add"] = [](const EqnView& v) {
    return BuildWindow(v, WindowOp::kGather, Fold::kSum);
  };
  table["select_and_scatter_add"] = [](const EqnView& v) {
    return BuildWindow(v, WindowOp::kScatter, Fold::kSum);
  };
}

}  // namespace axe::exec::internal
