// Overflow-checked int64 arithmetic. Every size, span and mapped value in axe is computed
// with these so that an overflowing input is reported instead of wrapping silently.
//
//   std::optional<int64_t> n = CheckedMul(a, b);   // nullopt on overflow
#ifndef AXE_BASE_CHECKED_MATH_H_
#define AXE_BASE_CHECKED_MATH_H_

#include <cstdint>
#include <optional>

#include "absl/numeric/int128.h"
#include "absl/types/span.h"

namespace axe {

inline std::optional<int64_t> CheckedAdd(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedSub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) return std::nullopt;
  return r;
}

inline std::optional<int64_t> CheckedMul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) return std::nullopt;
  return r;
}

// |a|; nullopt for INT64_MIN.
inline std::optional<int64_t> CheckedAbs(int64_t a) {
  if (a == INT64_MIN) return std::nullopt;
  return a < 0 ? -a : a;
}

// Product of all values (1 for an empty list); nullopt on overflow.
inline std::optional<int64_t> CheckedProduct(absl::Span<const int64_t> values) {
  int64_t p = 1;
  for (int64_t v : values) {
    if (__builtin_mul_overflow(p, v, &p)) return std::nullopt;
  }
  return p;
}

// Floor division, ceiling division and the floor modulo (the result has the sign of b, as
// in Python), for every int64 a and b != 0 except a = INT64_MIN, b = -1 (whose quotient does
// not fit). No intermediate overflows.
inline int64_t FloorDiv(int64_t a, int64_t b) {
  int64_t r = a % b;
  return a / b - ((r != 0 && ((r < 0) != (b < 0))) ? 1 : 0);
}
inline int64_t CeilDiv(int64_t a, int64_t b) {
  int64_t r = a % b;
  return a / b + ((r != 0 && ((r < 0) == (b < 0))) ? 1 : 0);
}
inline int64_t FloorMod(int64_t a, int64_t b) {
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// floor(a * b / c) for c > 0, with the product taken in 128 bits; nullopt when the quotient
// does not fit int64. Scales a count to pixels or permille: `MulDivFloor(extent, 640, total)`.
inline std::optional<int64_t> MulDivFloor(int64_t a, int64_t b, int64_t c) {
  const absl::int128 product = absl::int128(a) * b;
  absl::int128 q = product / c;  // truncates toward zero
  if (q * c != product && product < 0) q -= 1;
  if (q > absl::int128(INT64_MAX) || q < absl::int128(INT64_MIN)) return std::nullopt;
  return static_cast<int64_t>(q);
}

}  // namespace axe

#endif  // AXE_BASE_CHECKED_MATH_H_
