// cumsum, cumprod, cummax, cummin and cumlogsumexp along `axis` (forward or `reverse`), on
// every numeric dtype the executor holds, in the operand's own type at the edges: integer sums
// and products wrap in their width (bit-exact), max and min are exact and propagate NaN, and
// float sums, products and log-sum-exps run in a double accumulator, each output rounded once
// to its type. XLA:CPU computes these as a reduce_window that it rewrites into a blocked scan,
// so its f32 and 16-bit outputs are close to the exact running value (a 16-bit running sum
// rounded after every add would stall: 1024 bf16 ones would sum to 256, JAX gives 1024).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <type_traits>
#include <utility>

#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace cumulative_kernels {

enum class Cum { kSum, kProd, kMax, kMin, kLogSumExp };

struct Scan {
  Cum op = Cum::kSum;
  DType dtype = DType::kF32;
  bool reverse = false;
  int64_t outer = 1, n = 1, inner = 1;
  ir::ShapedArray out;
};

// log(exp(a) + exp(b)) without overflow; NaN propagates, infinities stay.
inline double LogAddExp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<double>::quiet_NaN();
  const double m = std::max(a, b);
  if (std::isinf(m)) return m;
  return m + std::log1p(std::exp(std::min(a, b) - m));
}

// One line x[0], x[stride], ..., x[(n - 1) * stride] (already in scan order) into o.
template <typename T>
void ScanLine(Cum op, const T* x, T* o, int64_t n, int64_t step) {
  if constexpr (std::is_integral_v<T>) {
    uint64_t run = 0;
    T best = x[0];
    for (int64_t k = 0; k < n; ++k) {
      const T v = x[k * step];
      switch (op) {
        case Cum::kSum:
          run = k == 0 ? static_cast<uint64_t>(v) : run + static_cast<uint64_t>(v);
          break;
        case Cum::kProd:
          run = k == 0 ? static_cast<uint64_t>(v) : run * static_cast<uint64_t>(v);
          break;
        case Cum::kMax: best = std::max(best, v); break;
        default: best = std::min(best, v); break;  // cumlogsumexp takes floats only
      }
      o[k * step] = (op == Cum::kSum || op == Cum::kProd) ? static_cast<T>(run) : best;
    }
  } else {
    double run = 0;
    for (int64_t k = 0; k < n; ++k) {
      const double v = static_cast<double>(static_cast<ComputeType<T>>(x[k * step]));
      if (k == 0) {
        run = v;
      } else {
        switch (op) {
          case Cum::kSum: run += v; break;
          case Cum::kProd: run *= v; break;
          case Cum::kMax: run = (run > v || run != run) ? run : v; break;
          case Cum::kMin: run = (run < v || run != run) ? run : v; break;
          case Cum::kLogSumExp: run = LogAddExp(run, v); break;
        }
      }
      o[k * step] = static_cast<T>(static_cast<ComputeType<T>>(run));
    }
  }
}

template <typename T>
absl::Status ScanKernel(const Scan& s, const RunContext& ctx, absl::Span<const Value> in,
                        std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(s.out));
  const T* x = in[0].data<T>();
  T* o = out[0].mutable_data<T>();
  const int64_t step = s.reverse ? -s.inner : s.inner;
  auto line = [&](int64_t l) {
    const int64_t outer = l / s.inner, inner = l % s.inner;
    const int64_t first = (outer * s.n + (s.reverse ? s.n - 1 : 0)) * s.inner + inner;
    ScanLine<T>(s.op, x + first, o + first, s.n, step);
  };
  const int64_t lines = s.outer * s.inner;
  if (ctx.pool != nullptr && ctx.threads > 1 && lines > 1 && lines * s.n >= (int64_t{1} << 18)) {
    ctx.pool->ParallelFor(lines, line, ctx.threads);
  } else {
    for (int64_t l = 0; l < lines; ++l) line(l);
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BuiltKernel>> BuildScan(const EqnView& v, Cum op) {
  const DType t = v.out[0].dtype();
  if (v.in.size() != 1 || v.in[0].dtype() != t || !IsHeld(t) || IsKeyType(t) || t == DType::kPred ||
      (op == Cum::kLogSumExp && !IsFloatingPoint(t))) {
    return std::nullopt;  // the interpreter's typing error
  }
  const std::vector<int64_t>& shape = v.in[0].shape();
  auto axis_param = v.eqn.params.find("axis");
  if (axis_param == v.eqn.params.end()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(int64_t axis, axis_param->second.AsInt("axis"));
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) return std::nullopt;
  Scan s;
  s.op = op;
  s.dtype = t;
  s.out = v.out[0];
  if (auto it = v.eqn.params.find("reverse"); it != v.eqn.params.end()) {
    AXE_ASSIGN_OR_RETURN(s.reverse, it->second.AsBool("reverse"));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (static_cast<int64_t>(d) < axis) s.outer *= shape[d];
    if (static_cast<int64_t>(d) == axis) s.n = shape[d];
    if (static_cast<int64_t>(d) > axis) s.inner *= shape[d];
  }
  BuiltKernel k;
  k.description = "scan along an axis";
  k.work = 2 * NumElements(v.out[0]);
  if (NumElements(v.out[0]) == 0) {
    k.kernel = [aval = s.out](const RunContext& ctx, absl::Span<const Value>,
                              std::vector<Value>& out) -> absl::Status {
      AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
      return absl::OkStatus();
    };
    return k;
  }
  auto shared = std::make_shared<const Scan>(std::move(s));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    absl::Status status;
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (!std::is_same_v<T, bool>) status = ScanKernel<T>(*shared, ctx, in, out);
    });
    return status;
  };
  return k;
}

}  // namespace cumulative_kernels

void AddCumulativeKernels(KernelTable& table) {
  using cumulative_kernels::BuildScan;
  using cumulative_kernels::Cum;
  const std::pair<const char*, Cum> ops[] = {{"cumsum", Cum::kSum},
                                             {"cumprod", Cum::kProd},
                                             {"cummax", Cum::kMax},
                                             {"cummin", Cum::kMin},
                                             {"cumlogsumexp", Cum::kLogSumExp}};
  for (const auto& [name, op] : ops) {
    table[name] = [op = op](const EqnView& v) { return BuildScan(v, op); };
  }
}

}  // namespace axe::exec::internal
