// Kernels of the elementwise primitives whose result type differs from their operands': the
// comparisons (bool results; eq_to/le_to/lt_to in the IEEE total order), select_n, is_finite, the
// bitwise and/or/not on bool and integers, and convert_element_type with XLA's conversion rules
// (float -> integer truncates and saturates, NaN -> 0; integer -> integer wraps; anything -> bool
// is x != 0). An operand with one element broadcasts.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

enum class Cmp { kEq, kNe, kLt, kLe, kGt, kGe, kEqTo, kLeTo, kLtTo };

// The key of a float in the IEEE total order (-NaN < -inf < -0 < +0 < inf < +NaN).
int64_t TotalOrderKey(double x) {
  const int64_t bits = std::bit_cast<int64_t>(x);
  return bits < 0 ? bits ^ std::numeric_limits<int64_t>::max() : bits;
}

template <typename T>
bool Compare(Cmp c, T x, T y) {
  using C = ComputeType<T>;
  const C a = static_cast<C>(x), b = static_cast<C>(y);
  if (c == Cmp::kEqTo || c == Cmp::kLeTo || c == Cmp::kLtTo) {
    if constexpr (std::is_floating_point_v<C>) {
      const int64_t ka = TotalOrderKey(static_cast<double>(a));
      const int64_t kb = TotalOrderKey(static_cast<double>(b));
      return c == Cmp::kEqTo ? ka == kb : c == Cmp::kLeTo ? ka <= kb : ka < kb;
    } else {
      return c == Cmp::kEqTo ? a == b : c == Cmp::kLeTo ? a <= b : a < b;
    }
  }
  switch (c) {
    case Cmp::kEq: return a == b;
    case Cmp::kNe: return a != b;
    case Cmp::kLt: return a < b;
    case Cmp::kLe: return a <= b;
    case Cmp::kGt: return a > b;
    case Cmp::kGe: return a >= b;
    default: break;
  }
  return false;
}

// To: From with XLA's conversion semantics.
template <typename To, typename From>
To Convert(From x) {
  using CF = ComputeType<From>;
  const CF v = static_cast<CF>(x);
  if constexpr (std::is_same_v<To, bool> && std::is_same_v<From, Eigen::bfloat16>) {
    uint16_t bits;  // XLA tests bf16's bits: a denormal is true
    std::memcpy(&bits, &x, sizeof(bits));
    return (bits & 0x7fff) != 0;
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != CF(0);
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<CF>) {
    if (std::isnan(v)) return To(0);
    const double t = std::trunc(static_cast<double>(v));
    if (t <= static_cast<double>(std::numeric_limits<To>::lowest())) {
      return std::numeric_limits<To>::lowest();
    }
    if (t >= static_cast<double>(std::numeric_limits<To>::max())) {
      return std::numeric_limits<To>::max();
    }
    return static_cast<To>(t);
  } else if constexpr (kIsHalf<To>) {
    return To(static_cast<float>(v));
  } else {
    return static_cast<To>(v);  // integers wrap (C++20), floats round to nearest
  }
}

BuiltKernel Simple(const char* what, int64_t work, Kernel kernel) {
  BuiltKernel k;
  k.description = what;
  k.work = work;
  k.kernel = std::move(kernel);
  return k;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildCompare(const EqnView& v, Cmp c) {
  std::optional<std::vector<int64_t>> st = UnitStrides(v);
  const DType t = v.in[0].dtype();
  if (!st || v.in.size() != 2 || v.in[1].dtype() != t || !IsHeld(t)) return std::nullopt;
  const ir::ShapedArray out = v.out[0];
  const std::vector<int64_t> s = *st;
  return Simple("compare", 3 * NumElements(out),
                [c, t, s, out](const RunContext& ctx, absl::Span<const Value> in,
                               std::vector<Value>& res) -> absl::Status {
                  AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                  bool* o = res[0].mutable_data<bool>();
                  DispatchDType(t, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    const T* a = in[0].data<T>();
                    const T* b = in[1].data<T>();
                    for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                      o[i] = Compare(c, a[i * s[0]], b[i * s[1]]);
                    }
                  });
                  return absl::OkStatus();
                });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildSelect(const EqnView& v) {
  std::optional<std::vector<int64_t>> st = UnitStrides(v);
  const DType t = v.out[0].dtype();
  const DType p = v.in[0].dtype();
  if (!st || v.in.size() < 2 || !IsHeld(t) || (p != DType::kPred && p != DType::kS32)) {
    return std::nullopt;
  }
  for (size_t i = 1; i < v.in.size(); ++i) {
    if (v.in[i].dtype() != t) return std::nullopt;
  }
  const ir::ShapedArray out = v.out[0];
  const std::vector<int64_t> s = *st;
  return Simple("select", NumElements(out) * static_cast<int64_t>(v.in.size() + 1),
                [t, p, s, out](const RunContext& ctx, absl::Span<const Value> in,
                               std::vector<Value>& res) -> absl::Status {
                  AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                  const int64_t last = static_cast<int64_t>(in.size()) - 2;
                  DispatchDType(t, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    T* o = res[0].mutable_data<T>();
                    for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                      // Clamped like the interpreter's (one case: always that case).
                      const int64_t which = std::clamp<int64_t>(
                          p == DType::kPred ? static_cast<int64_t>(in[0].data<bool>()[i * s[0]])
                                            : in[0].data<int32_t>()[i * s[0]],
                          0, last);
                      const size_t k = static_cast<size_t>(which) + 1;
                      o[i] = in[k].data<T>()[i * s[k]];
                    }
                  });
                  return absl::OkStatus();
                });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildConvert(const EqnView& v) {
  const DType from = v.in[0].dtype();
  const DType to = v.out[0].dtype();
  if (!IsHeld(from) || !IsHeld(to) || NumElements(v.in[0]) != NumElements(v.out[0])) {
    return std::nullopt;
  }
  const ir::ShapedArray out = v.out[0];
  return Simple("convert", 2 * NumElements(out),
                [from, to, out](const RunContext& ctx, absl::Span<const Value> in,
                                std::vector<Value>& res) -> absl::Status {
                  AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                  DispatchDType(from, [&](auto ftag) {
                    using F = typename decltype(ftag)::type;
                    DispatchDType(to, [&](auto ttag) {
                      using T = typename decltype(ttag)::type;
                      const F* a = in[0].data<F>();
                      T* o = res[0].mutable_data<T>();
                      for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                        o[i] = Convert<T, F>(a[i]);
                      }
                    });
                  });
                  return absl::OkStatus();
                });
}

// and / or / not on bool and integers; is_finite on floats.
absl::StatusOr<std::optional<BuiltKernel>> BuildBitwise(const EqnView& v, char op) {
  std::optional<std::vector<int64_t>> st = UnitStrides(v);
  const DType t = v.in[0].dtype();
  if (!st || !IsHeld(t) || IsFloatingPoint(t)) return std::nullopt;
  for (const ir::ShapedArray& a : v.in) {
    if (a.dtype() != t) return std::nullopt;
  }
  const ir::ShapedArray out = v.out[0];
  const std::vector<int64_t> s = *st;
  return Simple("bitwise", 3 * NumElements(out),
                [op, t, s, out](const RunContext& ctx, absl::Span<const Value> in,
                                std::vector<Value>& res) -> absl::Status {
                  AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                  DispatchDType(t, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    if constexpr (std::is_integral_v<T>) {
                      const T* a = in[0].data<T>();
                      const T* b = in.size() > 1 ? in[1].data<T>() : a;
                      const int64_t sb = in.size() > 1 ? s[1] : 0;
                      T* o = res[0].mutable_data<T>();
                      for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                        const T x = a[i * s[0]], y = b[i * sb];
                        if constexpr (std::is_same_v<T, bool>) {
                          o[i] = op == '&' ? (x && y) : op == '|' ? (x || y) : !x;
                        } else {
                          o[i] = static_cast<T>(op == '&' ? (x & y) : op == '|' ? (x | y) : ~x);
                        }
                      }
                    }
                  });
                  return absl::OkStatus();
                });
}

absl::StatusOr<std::optional<BuiltKernel>> BuildIsFinite(const EqnView& v) {
  const DType t = v.in[0].dtype();
  if (!IsHeld(t) || !IsFloatingPoint(t)) return std::nullopt;
  const ir::ShapedArray out = v.out[0];
  return Simple("is_finite", 2 * NumElements(out),
                [t, out](const RunContext& ctx, absl::Span<const Value> in,
                         std::vector<Value>& res) -> absl::Status {
                  AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
                  DispatchDType(t, [&](auto tag) {
                    using T = typename decltype(tag)::type;
                    const T* a = in[0].data<T>();
                    bool* o = res[0].mutable_data<bool>();
                    for (int64_t i = 0; i < res[0].num_elements(); ++i) {
                      o[i] = std::isfinite(static_cast<double>(ToDouble(a[i])));
                    }
                  });
                  return absl::OkStatus();
                });
}

}  // namespace

void AddCompareSelectKernels(KernelTable& table) {
  const std::pair<const char*, Cmp> comparisons[] = {
      {"eq", Cmp::kEq},      {"ne", Cmp::kNe},      {"lt", Cmp::kLt},
      {"le", Cmp::kLe},      {"gt", Cmp::kGt},      {"ge", Cmp::kGe},
      {"eq_to", Cmp::kEqTo}, {"le_to", Cmp::kLeTo}, {"lt_to", Cmp::kLtTo}};
  for (const auto& [name, c] : comparisons) {
    Cmp cmp = c;
    table[name] = [cmp](const EqnView& v) { return BuildCompare(v, cmp); };
  }
  table["select_n"] = BuildSelect;
  table["convert_element_type"] = BuildConvert;
  table["and"] = [](const EqnView& v) { return BuildBitwise(v, '&'); };
  table["or"] = [](const EqnView& v) { return BuildBitwise(v, '|'); };
  table["not"] = [](const EqnView& v) { return BuildBitwise(v, '~'); };
  table["is_finite"] = BuildIsFinite;
}

}  // namespace axe::exec::internal
