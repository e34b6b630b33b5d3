// argmax and argmin along one axis on every numeric dtype and bool, and clamp: typed loops.
// argmax/argmin give the index of the first extreme along the axis, a NaN counting as the
// extreme (the first NaN wins), in `index_dtype`. clamp(lo, x, hi) with lo and hi scalars or
// shaped like x is min(max(x, lo), hi), NaN when any of the three is NaN.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace argminmax_kernels {

struct Arg {
  bool is_max = true;
  DType dtype = DType::kF32;
  int64_t outer = 1, n = 1, inner = 1;
  ir::ShapedArray out;
};

template <typename T>
bool IsNan(T v) {
  if constexpr (std::is_integral_v<T>) {
    return false;
  } else {
    return v != v;
  }
}

// The index along the axis of line (o, i): the first extreme, the first NaN once one is seen.
template <typename T>
int64_t ArgOfLine(const Arg& a, const T* x, int64_t o, int64_t i) {
  int64_t best = 0;
  T value = x[o * a.n * a.inner + i];
  for (int64_t k = 1; k < a.n && !IsNan(value); ++k) {
    const T v = x[(o * a.n + k) * a.inner + i];
    if (IsNan(v) || (a.is_max ? value < v : v < value)) {
      best = k;
      value = v;
    }
  }
  return best;
}

template <typename T, typename I>
void ArgKernel(const Arg& a, const T* x, I* out) {
  for (int64_t o = 0; o < a.outer; ++o) {
    for (int64_t i = 0; i < a.inner; ++i) {
      out[o * a.inner + i] = static_cast<I>(ArgOfLine<T>(a, x, o, i));
    }
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildArg(const EqnView& v, bool is_max) {
  const ir::ShapedArray& x = v.in[0];
  const DType index = v.out[0].dtype();
  if (v.in.size() != 1 || !IsHeld(x.dtype()) || IsKeyType(x.dtype()) || !IsIntegral(index) ||
      !IsHeld(index) || x.rank() == 0) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, IntsParam(v.eqn, "axes"));
  if (axes.size() != 1 || axes[0] < 0 || axes[0] >= static_cast<int64_t>(x.rank()) ||
      x.shape()[static_cast<size_t>(axes[0])] == 0) {
    return std::nullopt;  // the interpreter's error
  }
  Arg a;
  a.is_max = is_max;
  a.dtype = x.dtype();
  a.out = v.out[0];
  for (int64_t d = 0; d < static_cast<int64_t>(x.rank()); ++d) {
    const int64_t e = x.shape()[static_cast<size_t>(d)];
    if (d < axes[0]) a.outer *= e;
    if (d == axes[0]) a.n = e;
    if (d > axes[0]) a.inner *= e;
  }
  BuiltKernel k;
  k.description = is_max ? "argmax" : "argmin";
  k.work = NumElements(x) + NumElements(a.out);
  auto shared = std::make_shared<const Arg>(std::move(a));
  k.kernel = [shared, index](const RunContext& ctx, absl::Span<const Value> in,
                             std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(shared->out));
    DispatchDType(shared->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      DispatchDType(index, [&](auto index_tag) {
        using I = typename decltype(index_tag)::type;
        if constexpr (std::is_integral_v<I> && !std::is_same_v<I, bool>) {
          ArgKernel<T, I>(*shared, in[0].data<T>(), out[0].mutable_data<I>());
        }
      });
    });
    return absl::OkStatus();
  };
  return k;
}

template <typename T>
T ClampOne(T lo, T x, T hi) {
  if constexpr (!std::is_integral_v<T>) {
    if (IsNan(lo) || IsNan(x) || IsNan(hi)) return std::numeric_limits<T>::quiet_NaN();
  }
  const T low = x < lo ? lo : x;
  return hi < low ? hi : low;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildClamp(const EqnView& v) {
  const ir::ShapedArray& x = v.in.size() == 3 ? v.in[1] : v.out[0];
  const DType t = x.dtype();
  if (v.in.size() != 3 || !IsHeld(t) || IsKeyType(t) || v.out[0].shape() != x.shape()) {
    return std::nullopt;
  }
  std::vector<int64_t> steps;  // 0: a scalar bound, 1: shaped like x
  for (const ir::ShapedArray& a : v.in) {
    if (a.dtype() != t) return std::nullopt;
    if (a.shape() == x.shape()) {
      steps.push_back(1);
    } else if (a.rank() == 0) {
      steps.push_back(0);
    } else {
      return std::nullopt;
    }
  }
  BuiltKernel k;
  k.description = "clamp";
  k.work = 4 * NumElements(x);
  const ir::ShapedArray aval = v.out[0];
  k.kernel = [steps, aval, t](const RunContext& ctx, absl::Span<const Value> in,
                              std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    const int64_t n = NumElements(aval);
    DispatchDType(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const T* lo = in[0].data<T>();
      const T* x = in[1].data<T>();
      const T* hi = in[2].data<T>();
      T* o = out[0].mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) {
        o[i] = ClampOne<T>(lo[i * steps[0]], x[i * steps[1]], hi[i * steps[2]]);
      }
    });
    return absl::OkStatus();
  };
  return k;
}

}  // namespace argminmax_kernels

void AddArgMinMaxKernels(KernelTable& table) {
  using argminmax_kernels::BuildArg;
  table["argmax"] = [](const EqnView& v) { return BuildArg(v, true); };
  table["argmin"] = [](const EqnView& v) { return BuildArg(v, false); };
  table["clamp"] = argminmax_kernels::BuildClamp;
}

}  // namespace axe::exec::internal
