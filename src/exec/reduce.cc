// reduce_sum, reduce_max and reduce_min on floats (f32, f64) and integers; reduce_prod and
// the cumulative cumsum, cumprod, cummax, cummin on integers (floats: the interpreter's, in
// double).
//
// The reduced axes are brought together first (in place when they already are one block of
// consecutive dimensions, otherwise by a transposing copy that moves them last), so every
// reduction is out[o, i] = fold over r of in[o, r, i]. Float sums are pairwise: along a
// contiguous row (i of extent 1) in numerics.h's order, the interpreter's order too; across rows
// in blocks of 128 rows added in order, block sums combined as a balanced tree. Integer sums
// wrap in their width (any order gives the same bits); max and min propagate NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/fold.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

constexpr int64_t kRowBlock = 128;
constexpr int64_t kColumnChunk = 1024;

// acc[0, w) = fold over rows [r0, r0 + rows) of x[r * stride + j], pairwise over row blocks.
template <typename T>
void FoldColumns(Fold f, const T* x, int64_t stride, int64_t r0, int64_t rows, int64_t w, T* acc) {
  if (rows <= kRowBlock || f != Fold::kSum || !std::is_floating_point_v<T>) {
    std::fill_n(acc, w, Identity<T>(f));
    for (int64_t r = r0; r < r0 + rows; ++r) {
      const T* row = x + r * stride;
      for (int64_t j = 0; j < w; ++j) acc[j] = Combine(f, acc[j], row[j]);
    }
    return;
  }
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  const int64_t half = (blocks / 2) * kRowBlock;
  std::vector<T> right(static_cast<size_t>(w));
  FoldColumns(f, x, stride, r0, half, w, acc);
  FoldColumns(f, x, stride, r0 + half, rows - half, w, right.data());
  for (int64_t j = 0; j < w; ++j) acc[j] += right[static_cast<size_t>(j)];
}

struct Reduction {
  Fold fold = Fold::kSum;
  DType dtype = DType::kF32;
  int64_t outer = 1, reduced = 1, inner = 1;
  std::optional<StridedCopy> gather;  // moves the reduced axes last when they are apart
  ir::ShapedArray gathered;
  ir::ShapedArray out;
};

template <typename T>
absl::Status ReduceKernel(const Reduction& red, const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(red.out));
  const T* x = in[0].data<T>();
  Value gathered;
  if (red.gather) {
    AXE_ASSIGN_OR_RETURN(gathered, ctx.Allocate(red.gathered));
    AXE_RETURN_IF_ERROR(red.gather->Run(x, gathered.mutable_bytes()));
    x = gathered.data<T>();
  }
  T* o = out[0].mutable_data<T>();
  const int64_t chunks = (red.inner + kColumnChunk - 1) / kColumnChunk;
  auto task = [&](int64_t t) {
    const int64_t oi = t / std::max<int64_t>(chunks, 1);
    if (red.inner == 1) {
      o[oi] = FoldRow(red.fold, x + oi * red.reduced, red.reduced);
      return;
    }
    const int64_t c = t % chunks;
    const int64_t w = std::min(kColumnChunk, red.inner - c * kColumnChunk);
    FoldColumns(red.fold, x + oi * red.reduced * red.inner + c * kColumnChunk, red.inner, 0,
                red.reduced, w, o + oi * red.inner + c * kColumnChunk);
  };
  const int64_t tasks = red.inner == 1 ? red.outer : red.outer * chunks;
  const bool parallel = ctx.pool != nullptr && ctx.threads > 1 &&
                        red.outer * red.reduced * red.inner >= (int64_t{1} << 18);
  if (parallel) {
    ctx.pool->ParallelFor(tasks, task, ctx.threads);
  } else {
    for (int64_t t = 0; t < tasks; ++t) task(t);
  }
  if (red.gather && ctx.values != nullptr) ctx.values->Give(std::move(gathered));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildReduce(const EqnView& v, Fold fold) {
  const DType t = v.out[0].dtype();
  if (!IsHeld(t) || t == DType::kPred || t == DType::kF16 || t == DType::kBF16 ||
      v.in.size() != 1 || v.in[0].dtype() != t) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsParam(v.eqn, "axes"));
  std::sort(axes.begin(), axes.end());
  const ir::ShapedArray& x = v.in[0];
  Reduction red;
  red.fold = fold;
  red.dtype = t;
  red.out = v.out[0];
  std::vector<int64_t> kept, perm;
  for (int64_t d = 0; d < static_cast<int64_t>(x.rank()); ++d) {
    if (!std::binary_search(axes.begin(), axes.end(), d)) kept.push_back(d);
  }
  const bool block =
      axes.empty() || axes.back() - axes.front() + 1 == static_cast<int64_t>(axes.size());
  if (block) {
    for (int64_t d = 0; d < static_cast<int64_t>(x.rank()); ++d) {
      int64_t e = x.shape()[static_cast<size_t>(d)];
      if (!axes.empty() && d < axes.front()) red.outer *= e;
      if (!axes.empty() && d >= axes.front() && d <= axes.back()) red.reduced *= e;
      if (axes.empty() || d > axes.back()) red.inner *= e;
    }
    if (axes.empty()) red.outer = 1;
  } else {
    perm = kept;
    perm.insert(perm.end(), axes.begin(), axes.end());
    std::vector<int64_t> shape;
    for (int64_t d : perm) shape.push_back(x.shape()[static_cast<size_t>(d)]);
    for (int64_t d : kept) red.outer *= x.shape()[static_cast<size_t>(d)];
    for (int64_t d : axes) red.reduced *= x.shape()[static_cast<size_t>(d)];
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(t));
    AXE_ASSIGN_OR_RETURN(StridedCopy gather, PlanPermute(x.shape(), perm, static_cast<int>(bytes),
                                                         v.options.num_threads));
    red.gather = std::move(gather);
    red.gathered = x.WithShape(shape);
  }
  BuiltKernel k;
  k.description =
      red.gather ? "reduce gathered" : (red.inner == 1 ? "reduce rows" : "reduce columns");
  k.work = NumElements(x) * (red.gather ? 3 : 1) + NumElements(red.out);
  if (red.gather) {  // the gathered operand, from the value pool
    k.pooled_scratch.push_back(NumElements(x) * static_cast<int64_t>(ElementBytes(t).value_or(8)));
  }
  auto shared = std::make_shared<const Reduction>(std::move(red));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    absl::Status s;
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) {
        s = ReduceKernel<T>(*shared, ctx, in, out);
      }
    });
    return s;
  };
  return k;
}

// cumsum, cumprod, cummax, cummin on integers: out[o, i, j] folds in[o, 0..i, j] (from the end
// when reverse), wrapping in the type's width.
struct Cumulative {
  Fold fold = Fold::kSum;
  bool reverse = false;
  int64_t outer = 1, n = 1, inner = 1;
  ir::ShapedArray out;
};

template <typename T>
absl::Status CumulativeKernel(const Cumulative& c, const RunContext& ctx,
                              absl::Span<const Value> in, std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(c.out));
  const T* x = in[0].data<T>();
  T* o = out[0].mutable_data<T>();
  for (int64_t r = 0; r < c.outer * c.inner; ++r) {
    const int64_t base = (r / c.inner) * c.n * c.inner + r % c.inner;
    T acc = Identity<T>(c.fold);
    for (int64_t k = 0; k < c.n; ++k) {
      const int64_t at = base + (c.reverse ? c.n - 1 - k : k) * c.inner;
      acc = Combine(c.fold, acc, x[at]);
      o[at] = acc;
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildCumulative(const EqnView& v, Fold fold) {
  const DType t = v.out[0].dtype();
  if (!IsIntegral(t) || v.in.size() != 1 || v.in[0].dtype() != t) return std::nullopt;
  auto axis_param = v.eqn.params.find("axis");
  if (axis_param == v.eqn.params.end()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(int64_t axis, axis_param->second.AsInt("axis"));
  const ir::ShapedArray& x = v.in[0];
  if (axis < 0 || axis >= static_cast<int64_t>(x.rank())) return std::nullopt;
  Cumulative c;
  c.fold = fold;
  c.out = v.out[0];
  auto rev = v.eqn.params.find("reverse");
  if (rev != v.eqn.params.end()) c.reverse = rev->second.AsBool("reverse").value_or(false);
  for (int64_t d = 0; d < static_cast<int64_t>(x.rank()); ++d) {
    const int64_t e = x.shape()[static_cast<size_t>(d)];
    if (d < axis) c.outer *= e;
    if (d == axis) c.n = e;
    if (d > axis) c.inner *= e;
  }
  BuiltKernel k;
  k.description = "cumulative";
  k.work = 2 * NumElements(x);
  auto shared = std::make_shared<const Cumulative>(std::move(c));
  k.kernel = [shared, t](const RunContext& ctx, absl::Span<const Value> in,
                         std::vector<Value>& out) -> absl::Status {
    absl::Status s;
    DispatchDType(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
        s = CumulativeKernel<T>(*shared, ctx, in, out);
      }
    });
    return s;
  };
  return k;
}

}  // namespace

void AddReductionKernels(KernelTable& table) {
  table["cumsum"] = [](const EqnView& v) { return BuildCumulative(v, Fold::kSum); };
  table["cumprod"] = [](const EqnView& v) { return BuildCumulative(v, Fold::kProd); };
  table["cummax"] = [](const EqnView& v) { return BuildCumulative(v, Fold::kMax); };
  table["cummin"] = [](const EqnView& v) { return BuildCumulative(v, Fold::kMin); };
  table["reduce_sum"] = [](const EqnView& v) { return BuildReduce(v, Fold::kSum); };
  table["reduce_max"] = [](const EqnView& v) { return BuildReduce(v, Fold::kMax); };
  table["reduce_min"] = [](const EqnView& v) { return BuildReduce(v, Fold::kMin); };
  // Integer products wrap in their width (i64 past 2^53 too); float products stay the
  // interpreter's (in double, rounded once).
  table["reduce_prod"] = [](const EqnView& v) -> absl::StatusOr<std::optional<BuiltKernel>> {
    const DType t = v.out[0].dtype();
    if (t == DType::kF32 || t == DType::kF64) return std::nullopt;
    return BuildReduce(v, Fold::kProd);
  };
}

}  // namespace axe::exec::internal
