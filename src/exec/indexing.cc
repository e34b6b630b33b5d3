// Kernels of gather and the scatter family, typed for every held dtype and any integer index
// type. Both walk the interpreter's element map (ir/indexing_util.h), built per run from the
// index values: a gather copies each window (or fills it when out of bounds under
// FILL_OR_DROP); a scatter copies the operand, then combines each update into it in row-major
// order of the updates, in the dtype (integers wrap, half floats round after each update, min
// and max propagate NaN, bool adds as `or` and multiplies as `and`).
#include <algorithm>
#include <cmath>
#include <limits>
#include <type_traits>

#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"
#include "ir/indexing_util.h"

namespace axe::exec::internal {
namespace {

using ir::internal::IndexMap;
using ir::internal::ScatterCombine;

// The index values as int64 (unsigned ones past 2^63 saturate: out of bounds either way).
std::vector<int64_t> IndexValues(const Value& indices) {
  std::vector<int64_t> out(static_cast<size_t>(indices.num_elements()));
  DispatchDType(indices.aval().dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      const T* p = indices.data<T>();
      for (size_t i = 0; i < out.size(); ++i) {
        if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
          out[i] = p[i] > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())
                       ? std::numeric_limits<int64_t>::max()
                       : static_cast<int64_t>(p[i]);
        } else {
          out[i] = static_cast<int64_t>(p[i]);
        }
      }
    }
  });
  return out;
}

IndexMap MapOf(const Value& operand, const Value& indices, const ir::ShapedArray& other,
               const ir::internal::IndexDims& dims, bool clamp) {
  return ir::internal::BuildIndexMap(operand.aval().shape(), indices.aval().shape(), other.shape(),
                                     dims, IndexValues(indices), clamp);
}

// Whether both window offset lists are 0, 1, 2, ... (a window of whole trailing rows, as in an
// embedding lookup): then a window is one contiguous copy.
bool ContiguousWindows(const IndexMap& m) {
  for (size_t w = 0; w < m.window_other.size(); ++w) {
    const int64_t at = static_cast<int64_t>(w);
    if (m.window_operand[w] != at || m.window_other[w] != at) return false;
  }
  return true;
}

template <typename T>
void GatherTyped(const IndexMap& m, const T* operand, T fill, T* out) {
  const bool contiguous = ContiguousWindows(m);
  const size_t window = m.window_other.size();
  for (size_t b = 0; b < m.base.size(); ++b) {
    T* o = out + m.batch_other[b];
    if (m.base[b] < 0) {
      for (int64_t w : m.window_other) o[w] = fill;
      continue;
    }
    const T* x = operand + m.base[b];
    if (contiguous) {
      std::copy_n(x, window, o);
      continue;
    }
    for (size_t w = 0; w < m.window_other.size(); ++w)
      o[m.window_other[w]] = x[m.window_operand[w]];
  }
}

// The fill value of a FILL_OR_DROP gather in T: the param rounded to the dtype, or JAX's
// default for it (the integer limits exactly, also for 64-bit types).
template <typename T>
T FillOf(const ir::internal::GatherParams& g, DType dtype) {
  if constexpr (std::is_same_v<T, bool>) {
    if (!g.fill_value) return true;
  } else if constexpr (std::is_integral_v<T>) {
    if (!g.fill_value) {
      return std::is_signed_v<T> ? std::numeric_limits<T>::min() : std::numeric_limits<T>::max();
    }
    const double v = ir::RoundToDType(*g.fill_value, dtype);  // in range, up to rounding
    if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
      return std::numeric_limits<T>::max();
    }
    return FromDouble<T>(v);
  }
  return FromDouble<T>(ir::RoundToDType(ir::internal::GatherFillValue(g, dtype), dtype));
}

absl::StatusOr<std::optional<BuiltKernel>> BuildGather(const EqnView& v) {
  const ir::ShapedArray& y = v.out[0];
  if (v.in.size() != 2 || !IsHeld(y.dtype()) || !IsIntegral(v.in[1].dtype()) ||
      !IsHeld(v.in[1].dtype()))
    return std::nullopt;
  absl::StatusOr<ir::internal::GatherParams> g = ir::internal::ReadGatherParams(v.eqn.params);
  absl::StatusOr<std::vector<int64_t>> shape =
      g.ok() ? ir::internal::GatherShape(v.in[0], v.in[1], *g) : g.status();
  if (!shape.ok() || *shape != y.shape()) return std::nullopt;  // the interpreter reports it
  BuiltKernel k;
  k.description = "gather";
  k.work = 2 * NumElements(y) * 8 + NumElements(v.in[1]) * 8;
  auto params = std::make_shared<const ir::internal::GatherParams>(*std::move(g));
  k.kernel = [params, y](const RunContext& ctx, absl::Span<const Value> in,
                         std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(y));
    const IndexMap m =
        MapOf(in[0], in[1], y, params->dims, ir::internal::GatherClamps(params->mode));
    DispatchDType(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      GatherTyped<T>(m, in[0].data<T>(), FillOf<T>(*params, y.dtype()), out[0].mutable_data<T>());
    });
    return absl::OkStatus();
  };
  return k;
}

template <typename T>
T Combined(ScatterCombine c, T a, T u) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (c) {
      case ScatterCombine::kReplace: return u;
      case ScatterCombine::kAdd:
      case ScatterCombine::kMax: return a || u;
      case ScatterCombine::kMul:
      case ScatterCombine::kMin: return a && u;
    }
    return u;
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (c) {
      case ScatterCombine::kReplace: return u;
      case ScatterCombine::kAdd: return static_cast<T>(static_cast<U>(a) + static_cast<U>(u));
      case ScatterCombine::kMul:
        // Promoted to at least unsigned int, so narrow types do not overflow a signed int.
        return static_cast<T>(static_cast<U>(static_cast<uint64_t>(a) * static_cast<uint64_t>(u)));
      case ScatterCombine::kMin: return a < u ? a : u;
      case ScatterCombine::kMax: return a < u ? u : a;
    }
    return u;
  } else {
    using C = ComputeType<T>;
    const C x = static_cast<C>(a), y = static_cast<C>(u);
    switch (c) {
      case ScatterCombine::kReplace: return u;
      case ScatterCombine::kAdd: return static_cast<T>(x + y);
      case ScatterCombine::kMul: return static_cast<T>(x * y);
      case ScatterCombine::kMin:
      case ScatterCombine::kMax:
        if (std::isnan(x) || std::isnan(y))
          return static_cast<T>(std::numeric_limits<C>::quiet_NaN());
        return static_cast<T>(c == ScatterCombine::kMin ? (x < y ? x : y) : (x < y ? y : x));
    }
    return u;
  }
}

template <typename T>
void ScatterTyped(const IndexMap& m, ScatterCombine c, const T* updates, T* out) {
  for (size_t b = 0; b < m.base.size(); ++b) {
    if (m.base[b] < 0) continue;
    T* x = out + m.base[b];
    const T* u = updates + m.batch_other[b];
    for (size_t w = 0; w < m.window_other.size(); ++w) {
      T& e = x[m.window_operand[w]];
      e = Combined<T>(c, e, u[m.window_other[w]]);
    }
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildScatter(const EqnView& v) {
  const ir::ShapedArray& y = v.out[0];
  std::optional<ScatterCombine> combine = ir::internal::ScatterCombineOf(v.eqn.primitive->name());
  if (!combine || v.in.size() != 3 || !IsHeld(y.dtype()) || !IsIntegral(v.in[1].dtype()) ||
      !IsHeld(v.in[1].dtype()) || v.in[0].dtype() != y.dtype() || v.in[2].dtype() != y.dtype()) {
    return std::nullopt;
  }
  absl::StatusOr<ir::internal::ScatterParams> s = ir::internal::ReadScatterParams(v.eqn.params);
  if (!s.ok() ||
      !ir::internal::CheckScatterShapes(v.eqn.primitive->name(), v.in[0], v.in[1], v.in[2], *s)
           .ok()) {
    return std::nullopt;  // the interpreter reports it
  }
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(y.dtype()));
  BuiltKernel k;
  k.description = "scatter";
  k.work = 2 * NumElements(y) * static_cast<int64_t>(bytes) + 3 * NumElements(v.in[2]) * 8;
  auto params = std::make_shared<const ir::internal::ScatterParams>(*std::move(s));
  const ir::ShapedArray updates = v.in[2];
  k.kernel = [params, y, updates, c = *combine](const RunContext& ctx, absl::Span<const Value> in,
                                                std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(y));
    std::copy(in[0].bytes(), in[0].bytes() + in[0].num_bytes(), out[0].mutable_bytes());
    const IndexMap m =
        MapOf(in[0], in[1], updates, params->dims, ir::internal::ScatterClamps(params->mode));
    DispatchDType(y.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      ScatterTyped<T>(m, c, in[2].data<T>(), out[0].mutable_data<T>());
    });
    return absl::OkStatus();
  };
  return k;
}

}  // namespace

void AddIndexingKernels(KernelTable& table) {
  table["gather"] = BuildGather;
  for (const char* name : {"scatter", "scatter-add", "scatter-mul", "scatter-min", "scatter-max"}) {
    table[name] = BuildScatter;
  }
}

}  // namespace axe::exec::internal
