// reduce_window_sum, reduce_window_max, reduce_window_min, the generic reduce_window,
// select_and_gather_add and select_and_scatter_add on every dtype the executor holds, in the
// operand's own type: each output folds its window's elements in row-major window order from
// the initial value, positions on padding or on base-dilation holes left out. That is XLA:CPU's
// reduce_window loop: f16 and bf16 sums round to their type after every add (not once at the
// end), integer sums and products wrap in their width, max and min propagate NaN.
//
// The generic reduce_window runs the same fold when its reducer jaxpr is one add, mul, max,
// min, and, or or xor of its two arguments (what JAX prints for lax.reduce_window with those
// monoids); any other reducer (several operands, e.g. an argmax pool) is compiled once by the
// executor and run per window element on the elements' own typed scalars.
//
// The select_and_* primitives choose, per window, the first element in that order that no
// later one replaces (a later one replaces it unless choice >= candidate, for ge; <= for le),
// as the interpreter does; select_and_scatter_add adds the source into the chosen positions in
// output order, in the operand's type.
#include <algorithm>
#include <cstring>
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
  bool select_ge = true;      // select_and_*: ge (max pooling) or le (min pooling)
  bool init_operand = false;  // the generic reduce_window: the initial value is an operand
  ir::ShapedArray out;        // the windows' shape (select_and_scatter_add: its source's)
  ir::ShapedArray result;     // select_and_scatter_add: the operand's shape
  std::vector<std::vector<Ints>> taps;  // [dimension][output position] -> input positions
  int64_t work = 0;                     // the kernel's work estimate
  Ints in_strides, out_shape;
  // A generic reducer that is no monoid: its plan over (accumulators..., elements...), the
  // operands' count and their element types and results.
  std::shared_ptr<const Plan> reducer;
  size_t operands = 1;
  std::vector<std::shared_ptr<const ir::ShapedArray>> scalars;
  std::vector<ir::ShapedArray> outs;
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
  auto list = [&](size_t d) -> const Ints& { return plan.taps[d][static_cast<size_t>(y[d])]; };
  for (size_t d = 0; d < rank; ++d) {
    if (list(d).empty()) return;
  }
  absl::InlinedVector<int64_t, 6> pos(rank, 0);
  while (true) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) {
      offset += list(d)[static_cast<size_t>(pos[d])] * plan.in_strides[d];
    }
    visit(offset);
    size_t d = rank;
    while (d > 0) {
      --d;
      if (++pos[d] < static_cast<int64_t>(list(d).size())) break;
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
  const T init = plan.init_operand ? in[1].data<T>()[0] : Identity<T>(plan.fold);
  T* o = out[0].mutable_data<T>();
  ForEachOutput(plan, ctx, true, [&](int64_t at, const Ints& y) {
    T acc = init;
    ForEachTap(plan, y, [&](int64_t i) { acc = Combine(plan.fold, acc, x[i]); });
    o[at] = acc;
  });
  return absl::OkStatus();
}

// A reducer that is no monoid, on typed scalars: per output, the accumulators start at the
// initial values and become reducer(accumulators..., the window element of each operand...)
// for each element in window order. One thread (the reducer's plan runs in one frame).
absl::Status GeneralKernel(const WindowPlan& plan, const RunContext& ctx,
                           absl::Span<const Value> in, std::vector<Value>& out) {
  const size_t n = plan.operands;
  std::vector<size_t> bytes(n);
  for (size_t k = 0; k < n; ++k) {
    AXE_ASSIGN_OR_RETURN(out[k], ctx.Allocate(plan.outs[k]));
    bytes[k] = in[n + k].num_bytes();
  }
  RunContext one = ctx;
  one.threads = 1;
  PlanFrame frame;
  std::vector<Value> acc(n), args(2 * n), next;
  absl::Status status;
  ForEachOutput(plan, ctx, false, [&](int64_t at, const Ints& y) {
    if (!status.ok()) return;
    for (size_t k = 0; k < n; ++k) acc[k] = in[n + k];
    ForEachTap(plan, y, [&](int64_t i) {
      if (!status.ok()) return;
      for (size_t k = 0; k < n; ++k) {
        args[k] = acc[k];
        args[n + k] = in[k].View(plan.scalars[k], bytes[k] * static_cast<size_t>(i));
      }
      status = RunPlanInFrame(*plan.reducer, one, args, frame, next);
      if (status.ok()) acc.swap(next);
    });
    for (size_t k = 0; k < n && status.ok(); ++k) {
      std::memcpy(out[k].mutable_bytes() + bytes[k] * static_cast<size_t>(at), acc[k].bytes(),
                  bytes[k]);
    }
  });
  return status;
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

enum class WindowOp { kFold, kGeneric, kGather, kScatter };

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
  if (op == WindowOp::kGather || op == WindowOp::kScatter) {
    const ir::Param& select = v.eqn.params.at("select_prim");
    plan.select_ge = select.text() == "ge";
  }
  const ir::Param& padding = v.eqn.params.at("padding");
  const Ints& in = v.in[op == WindowOp::kScatter ? 1 : 0].shape();
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

// The kernel over `plan` (filled but for its work), run as `op` in T = plan.dtype's type.
BuiltKernel MakeKernel(WindowPlan plan, WindowOp op) {
  BuiltKernel k;
  k.description = op == WindowOp::kFold      ? "window"
                  : op == WindowOp::kGeneric ? "window reducer"
                  : op == WindowOp::kGather  ? "window select gather"
                                             : "window select scatter";
  k.work = plan.work = Work(plan);
  if (plan.reducer != nullptr) {
    k.work = CheckedMul(k.work, std::max<int64_t>(1, plan.reducer->stats.work))
                 .value_or(std::numeric_limits<int64_t>::max());
    k.scratch_bytes = plan.reducer->stats.peak_bytes;
    k.nested_fallbacks = AllFallbacks(*plan.reducer);
  }
  auto shared = std::make_shared<const WindowPlan>(std::move(plan));
  k.kernel = [shared, op](const RunContext& ctx, absl::Span<const Value> in,
                          std::vector<Value>& out) -> absl::Status {
    if (shared->reducer != nullptr) return GeneralKernel(*shared, ctx, in, out);
    absl::Status s;
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      switch (op) {
        case WindowOp::kFold:
        case WindowOp::kGeneric: s = WindowKernel<T>(*shared, ctx, in, out); break;
        case WindowOp::kGather: s = GatherKernel<T>(*shared, ctx, in, out); break;
        case WindowOp::kScatter: s = ScatterKernel<T>(*shared, ctx, in, out); break;
      }
    });
    return s;
  };
  return k;
}

// reduce_window_sum/max/min (fold), select_and_gather_add and select_and_scatter_add: operands
// of the result's dtype (no sum over bool, no select over bool or keys).
absl::StatusOr<std::optional<BuiltKernel>> BuildWindow(const EqnView& v, WindowOp op, Fold fold) {
  const DType t = v.out[0].dtype();
  const size_t arity = op == WindowOp::kFold ? 1 : 2;
  const bool chooses = op != WindowOp::kFold || fold != Fold::kSum;
  if (!IsHeld(t) || IsKeyType(t) || (t == DType::kPred && (op != WindowOp::kFold || !chooses)) ||
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
  return MakeKernel(std::move(plan), op);
}

// The monoid a generic reducer computes when it is one such equation of its two scalar
// arguments of dtype `t` (in either order), with no constants; nullopt otherwise.
std::optional<Fold> MonoidOf(const ir::ClosedJaxpr& reducer, DType t) {
  const ir::Jaxpr& j = reducer.jaxpr;
  if (!j.constvars.empty() || j.invars.size() != 2 || j.eqns.size() != 1 || j.outvars.size() != 1 ||
      j.outvars[0].is_literal()) {
    return std::nullopt;
  }
  for (ir::VarId in : j.invars) {
    if (j.aval(in).rank() != 0 || j.aval(in).dtype() != t) return std::nullopt;
  }
  const ir::Eqn& e = j.eqns[0];
  if (e.inputs.size() != 2 || e.outputs.size() != 1 || e.outputs[0] != j.outvars[0].var ||
      !e.params.empty() || e.inputs[0].is_literal() || e.inputs[1].is_literal() ||
      j.aval(e.outputs[0]).dtype() != t) {
    return std::nullopt;
  }
  const ir::VarId a = e.inputs[0].var, b = e.inputs[1].var;
  if (!((a == j.invars[0] && b == j.invars[1]) || (a == j.invars[1] && b == j.invars[0]))) {
    return std::nullopt;
  }
  static const std::pair<const char*, Fold> kMonoids[] = {
      {"add", Fold::kSum}, {"mul", Fold::kProd}, {"max", Fold::kMax}, {"min", Fold::kMin},
      {"and", Fold::kAnd}, {"or", Fold::kOr},    {"xor", Fold::kXor}};
  for (const auto& [name, m] : kMonoids) {
    if (e.primitive->name() != name) continue;
    const bool bitwise = m == Fold::kAnd || m == Fold::kOr || m == Fold::kXor;
    if (bitwise && !IsIntegral(t) && t != DType::kPred) return std::nullopt;
    return m;
  }
  return std::nullopt;
}

// The generic reduce_window: n operands then n scalar initial values.
absl::StatusOr<std::optional<BuiltKernel>> BuildGeneric(const EqnView& v) {
  auto param = v.eqn.params.find("jaxpr");
  if (v.in.empty() || v.in.size() % 2 != 0 || v.out.size() != v.in.size() / 2 ||
      param == v.eqn.params.end() || param->second.kind() != ir::Param::Kind::kJaxpr ||
      param->second.jaxpr() == nullptr) {
    return std::nullopt;  // the interpreter's typing error
  }
  const size_t n = v.in.size() / 2;
  WindowPlan plan;
  plan.operands = n;
  plan.init_operand = true;
  plan.dtype = v.in[0].dtype();
  for (size_t k = 0; k < n; ++k) {
    if (!IsHeld(v.in[k].dtype()) || IsKeyType(v.in[k].dtype()) ||
        v.in[n + k].dtype() != v.in[k].dtype() || v.in[n + k].rank() != 0 ||
        v.in[k].shape() != v.in[0].shape() || v.out[k].dtype() != v.in[k].dtype()) {
      return std::nullopt;
    }
    plan.scalars.push_back(std::make_shared<const ir::ShapedArray>(v.in[n + k]));
    plan.outs.push_back(v.out[k]);
  }
  const ir::ClosedJaxpr& reducer = *param->second.jaxpr();
  const std::vector<ir::ShapedArray> reducer_in = reducer.jaxpr.in_avals();
  const std::vector<ir::ShapedArray> reducer_out = reducer.jaxpr.out_avals();
  if (reducer_in.size() != 2 * n || reducer_out.size() != n) return std::nullopt;
  for (size_t k = 0; k < 2 * n; ++k) {
    const ir::ShapedArray& want = v.in[n + k % n];
    if (reducer_in[k].rank() != 0 || reducer_in[k].dtype() != want.dtype() ||
        (k < n && (reducer_out[k].rank() != 0 || reducer_out[k].dtype() != want.dtype()))) {
      return std::nullopt;  // the interpreter's typing error
    }
  }
  std::optional<Fold> monoid = n == 1 ? MonoidOf(reducer, plan.dtype) : std::nullopt;
  if (monoid) {
    plan.fold = *monoid;
  } else {
    AXE_ASSIGN_OR_RETURN(plan.reducer, BuildPlan(reducer, v.options));
  }
  AXE_RETURN_IF_ERROR(ReadPlan(v, WindowOp::kGeneric, plan));
  return MakeKernel(std::move(plan), WindowOp::kGeneric);
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
  table["reduce_window"] = window_kernels::BuildGeneric;
  table["select_and_gather_add"] = [](const EqnView& v) {
    return BuildWindow(v, WindowOp::kGather, Fold::kSum);
  };
  table["select_and_scatter_add"] = [](const EqnView& v) {
    return BuildWindow(v, WindowOp::kScatter, Fold::kSum);
  };
}

}  // namespace axe::exec::internal
