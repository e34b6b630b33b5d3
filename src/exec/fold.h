// The folds of reduce_sum, reduce_max and reduce_min (internal to src/exec): along a contiguous
// row, float sums are pairwise in numerics.h's order (the interpreter's too); integer sums wrap
// in their width; max and min propagate NaN.
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

enum class Fold { kSum, kMax, kMin, kProd };  // kProd: integers only (reduce.cc)

// The fold of a reduction primitive, by name; nullopt for other primitives.
inline std::optional<Fold> FoldOf(std::string_view primitive) {
  if (primitive == "reduce_sum") return Fold::kSum;
  if (primitive == "reduce_max") return Fold::kMax;
  if (primitive == "reduce_min") return Fold::kMin;
  return std::nullopt;
}

// XLA's max and min of floats: NaN in either operand propagates, and +0 is above -0.
template <typename F>
F FloatMax(F x, F y) {
  if (x > y || x != x) return x;
  if (x == y) return std::signbit(x) ? y : x;
  return y;
}
template <typename F>
F FloatMin(F x, F y) {
  if (x < y || x != x) return x;
  if (x == y) return std::signbit(x) ? x : y;
  return y;
}

template <typename T>
T Combine(Fold f, T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    if (f == Fold::kSum) return static_cast<T>(static_cast<U>(a) + static_cast<U>(b));
    if (f == Fold::kProd) {  // wraps in the type's width (64-bit unsigned: no promotion to int)
      return static_cast<T>(static_cast<uint64_t>(static_cast<U>(a)) * static_cast<U>(b));
    }
    return f == Fold::kMax ? std::max(a, b) : std::min(a, b);
  } else {
    if (f == Fold::kSum) return a + b;
    if (f == Fold::kProd) return a * b;
    return f == Fold::kMax ? FloatMax(a, b) : FloatMin(a, b);
  }
}

template <typename T>
T Identity(Fold f) {
  if (f == Fold::kSum) return T(0);
  if (f == Fold::kProd) return T(1);
  if constexpr (std::is_floating_point_v<T>) {
    return f == Fold::kMax ? -std::numeric_limits<T>::infinity()
                           : std::numeric_limits<T>::infinity();
  } else {
    return f == Fold::kMax ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
}

template <typename T>
T FoldRow(Fold f, const T* x, int64_t n) {
  if (f == Fold::kSum && std::is_floating_point_v<T>) {
    return PairwiseSum<T>(
        static_cast<size_t>(n), [x](size_t i) { return x[i]; }, [](T s) { return s; });
  }
  T acc = Identity<T>(f);
  for (int64_t i = 0; i < n; ++i) acc = Combine(f, acc, x[i]);
  return acc;
}

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_FOLD_H_
