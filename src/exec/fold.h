// The folds of reduce_sum, reduce_max, reduce_min, reduce_prod, reduce_and, reduce_or and
// reduce_xor and of the windowed reductions (internal to src/exec): along a contiguous row,
// float sums are pairwise in numerics.h's order (the interpreter's too); integer sums and
// products wrap in their width; max and min propagate NaN.
#ifndef AXE_SRC_EXEC_FOLD_H_
#define AXE_SRC_EXEC_FOLD_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <type_traits>

#include "axe/base/numerics.h"

namespace axe::exec::internal {

enum class Fold { kSum, kMax, kMin, kProd, kAnd, kOr, kXor };

// The fold of a reduction primitive, by name; nullopt for other primitives.
inline std::optional<Fold> FoldOf(std::string_view primitive) {
  if (primitive == "reduce_sum") return Fold::kSum;
  if (primitive == "reduce_max") return Fold::kMax;
  if (primitive == "reduce_min") return Fold::kMin;
  return std::nullopt;
}

// XLA's max and min of floats (16-bit ones too): NaN in either operand propagates, and +0 is
// above -0.
template <typename F>
F FloatMax(F x, F y) {
  if (x > y || x != x) return x;
  if (x == y) return std::signbit(static_cast<double>(x)) ? y : x;
  return y;
}
template <typename F>
F FloatMin(F x, F y) {
  if (x < y || x != x) return x;
  if (x == y) return std::signbit(static_cast<double>(x)) ? x : y;
  return y;
}

// a (f) b in T: integers wrap in their width (products too), 16-bit floats round after the
// operation, max and min as FloatMax and FloatMin; bool's sum and max are or, its product and
// min and. The bitwise folds (and, or, xor) are for integers and bool only.
template <typename T>
T Combine(Fold f, T a, T b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (f) {
      case Fold::kSum:
      case Fold::kMax:
      case Fold::kOr: return a || b;
      case Fold::kXor: return a != b;
      default: return a && b;
    }
  } else if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    switch (f) {
      case Fold::kSum: return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
      case Fold::kProd:  // in 64 bits, kept modulo T's width (no promoted signed overflow)
        return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
      case Fold::kMax: return std::max(a, b);
      case Fold::kMin: return std::min(a, b);
      case Fold::kAnd: return static_cast<T>(a & b);
      case Fold::kOr: return static_cast<T>(a | b);
      case Fold::kXor: return static_cast<T>(a ^ b);
    }
    return a;
  } else {
    switch (f) {
      case Fold::kSum: return static_cast<T>(a + b);
      case Fold::kProd: return static_cast<T>(a * b);
      case Fold::kMax: return FloatMax(a, b);
      case Fold::kMin: return FloatMin(a, b);
      default: return a;  // no bitwise fold on floats
    }
  }
}

template <typename T>
T Identity(Fold f) {
  using Limits = std::numeric_limits<T>;
  switch (f) {
    case Fold::kProd: return T(1);
    case Fold::kAnd:
      if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) return static_cast<T>(~T(0));
      return T(1);
    case Fold::kMax: return Limits::has_infinity ? T(-Limits::infinity()) : Limits::lowest();
    case Fold::kMin: return Limits::has_infinity ? Limits::infinity() : Limits::max();
    default: return T(0);
  }
}

template <typename T>
T FoldRow(Fold f, const T* x, int64_t n) {
  if constexpr (std::is_floating_point_v<T>) {
    if (f == Fold::kSum) {
      return PairwiseSum<T>(
          static_cast<size_t>(n), [x](size_t i) { return x[i]; }, [](T s) { return s; });
    }
  }
  T acc = Identity<T>(f);
  for (int64_t i = 0; i < n; ++i) acc = Combine(f, acc, x[i]);
  return acc;
}

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_FOLD_H_
