// Numerics shared by every computation in axe: integer arithmetic that wraps in its own width,
// and float accumulation in a fixed pairwise order.
//
//   WrapBits(uint64_t{123456789} * 123456789, 32, true)   // -1757895751, as an i32 multiply
//   PairwiseSum(values, [](double s) { return RoundToF32(s); })
//
// Integers: the result of +, -, * and powers of an n-bit integer type is the low n bits of the
// exact result (two's complement), which 64-bit unsigned arithmetic gives for every n <= 64;
// WrapBits then reads those bits as the type's value. Computing in a wider type and wrapping
// afterwards through a double would round a 64-bit product before the wrap, which is why the
// wrap happens on the bits.
//
// Floats: PairwiseSum adds blocks of kPairwiseBlock values left to right and combines the block
// sums as a balanced binary tree, rounding to the accumulator's type after every addition (the
// `round` callback). Its error grows with log2(n) instead of n: summing 4096 copies of
// 0.1f in f32 gives 409.60004f, an ulp from 409.6f (a left-to-right fold gives 409.61578f). The
// order depends only on n, never on threads or timing, so the same input always gives the same
// bits.
#ifndef AXE_BASE_NUMERICS_H_
#define AXE_BASE_NUMERICS_H_

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>

#include "absl/types/span.h"

namespace axe {

// The low `width` bits of `bits` as a signed (two's complement) or unsigned value of that
// width, returned in 64 bits. width in [1, 64].
constexpr int64_t WrapBits(uint64_t bits, int width, bool is_signed) {
  const uint64_t mask = width >= 64 ? ~uint64_t{0} : (uint64_t{1} << width) - 1;
  const uint64_t low = bits & mask;
  if (!is_signed || width >= 64) return static_cast<int64_t>(low);
  const uint64_t sign = uint64_t{1} << (width - 1);
  return static_cast<int64_t>((low ^ sign) - sign);  // sign-extends without overflow
}

// 2^53: every integer of magnitude up to it is a double exactly (the interpreter's values);
// past it, doubles skip integers.
inline constexpr uint64_t kMaxExactDoubleInteger = uint64_t{1} << 53;

// True when |value| <= 2^53, so that the double holds `value` exactly.
constexpr bool FitsDoubleExactly(int64_t value) {
  constexpr auto kLimit = static_cast<int64_t>(kMaxExactDoubleInteger);
  return value >= -kLimit && value <= kLimit;
}
constexpr bool FitsDoubleExactly(uint64_t value) { return value <= kMaxExactDoubleInteger; }

// a ** e for e >= 0 in wrapping 64-bit arithmetic (square and multiply); wrap the result with
// WrapBits for a narrower type.
constexpr uint64_t WrappingPow(uint64_t a, uint64_t e) {
  uint64_t result = 1;
  for (; e > 0; e >>= 1) {
    if ((e & 1) != 0) result *= a;
    a *= a;
  }
  return result;
}

inline constexpr size_t kPairwiseLanes = 8;
inline constexpr size_t kPairwiseBlock = 128;

// The sum of load(0) ... load(n - 1) in the pairwise order above, accumulated in Acc with
// `round(s)` applied to every partial sum (the identity when Acc is the element type itself).
// A block of up to kPairwiseBlock values is summed in kPairwiseLanes interleaved lanes (value
// i goes to lane i % 8, each lane left to right), the lanes then combined as a balanced tree;
// longer runs split at a multiple of the block size and add their halves. The empty sum is 0.
template <typename Acc, typename Load, typename Round>
Acc PairwiseSum(size_t n, const Load& load, const Round& round, size_t first = 0) {
  if (n <= kPairwiseBlock) {
    Acc lanes[kPairwiseLanes] = {};
    for (size_t i = 0; i < n; ++i) {
      Acc& lane = lanes[i % kPairwiseLanes];
      lane = round(lane + load(first + i));
    }
    for (size_t width = kPairwiseLanes / 2; width >= 1; width /= 2) {
      for (size_t j = 0; j < width; ++j) lanes[j] = round(lanes[2 * j] + lanes[2 * j + 1]);
    }
    return lanes[0];
  }
  size_t blocks = (n + kPairwiseBlock - 1) / kPairwiseBlock;
  size_t half = (blocks / 2) * kPairwiseBlock;
  return round(PairwiseSum<Acc>(half, load, round, first) +
               PairwiseSum<Acc>(n - half, load, round, first + half));
}

// The same over doubles.
template <typename Round>
double PairwiseSum(absl::Span<const double> values, const Round& round) {
  return PairwiseSum<double>(
      values.size(), [values](size_t i) { return values[i]; }, round);
}

// The inverse of std::erf in double (lax.erf_inv): a first guess (Winitzki's approximation,
// relative error about 2e-3) refined by Newton's method; +-inf at +-1, NaN outside [-1, 1].
inline double ErfInv(double x) {
  if (std::isnan(x) || x < -1 || x > 1) return NAN;
  if (x == 1) return HUGE_VAL;
  if (x == -1) return -HUGE_VAL;
  const double a = 0.147, l = std::log1p(-x * x);
  const double t = 2 / (std::numbers::pi * a) + l / 2;
  double y = std::copysign(std::sqrt(std::sqrt(t * t - l / a) - t), x);
  for (int i = 0; i < 4; ++i) {
    const double slope = 2 / std::sqrt(std::numbers::pi) * std::exp(-y * y);
    if (slope == 0) break;
    y -= (std::erf(y) - x) / slope;
  }
  return y;
}

// The digamma function (lax.digamma, the derivative of lgamma) in double: NaN at the poles
// (0, -1, -2, ...), reflection below 0, the recurrence up to 10, then the asymptotic series.
inline double Digamma(double x) {
  if (std::isnan(x) || x == -HUGE_VAL) return NAN;
  if (x <= 0 && x == std::floor(x)) return NAN;
  if (x < 0) return Digamma(1 - x) - std::numbers::pi / std::tan(std::numbers::pi * x);
  double shift = 0;
  for (; x < 10; x += 1) shift -= 1 / x;
  const double r = 1 / (x * x);  // the asymptotic series to r^7: below 1e-16 from x = 10 on
  const double series =
      r * (1.0 / 12 -
           r * (1.0 / 120 -
                r * (1.0 / 252 -
                     r * (1.0 / 240 - r * (1.0 / 132 - r * (691.0 / 32760 - r * (1.0 / 12)))))));
  return shift + std::log(x) - 0.5 / x - series;
}

// XLA's ReducePrecision on a float's bits (`Bits` an unsigned integer of the float's width, with
// `own_exponent` and `own_mantissa` bits): the mantissa rounded to nearest even at `mantissa`
// bits, then the exponent range cut to `exponent` bits (overflow a signed infinity, at or below
// the smallest normal exponent a signed zero). Integer operations only, so a denormal operand is
// read as it is whatever the thread's float mode. NaN is the caller's to keep.
template <typename Bits>
constexpr Bits ReducePrecisionBits(Bits bits, int own_exponent, int own_mantissa, int64_t exponent,
                                   int64_t mantissa) {
  if (mantissa < own_mantissa) {
    const int shift = own_mantissa - static_cast<int>(mantissa);
    const Bits last = static_cast<Bits>(Bits{1} << shift);
    const Bits bias = static_cast<Bits>(((last >> 1) - 1) + ((bits & last) >> shift));
    bits = static_cast<Bits>((bits + bias) & ~static_cast<Bits>(last - 1));
  }
  if (exponent < own_exponent) {
    const int width = own_exponent + own_mantissa + 1;
    const Bits sign = static_cast<Bits>(Bits{1} << (width - 1));
    const Bits exponent_mask = static_cast<Bits>(((Bits{1} << own_exponent) - 1) << own_mantissa);
    const Bits own_bias = static_cast<Bits>((Bits{1} << (own_exponent - 1)) - 1);
    const Bits reduced_bias = static_cast<Bits>((Bits{1} << (exponent - 1)) - 1);
    const Bits e = bits & exponent_mask;
    if (e > static_cast<Bits>((own_bias + reduced_bias) << own_mantissa)) {
      bits = static_cast<Bits>((bits & sign) | exponent_mask);
    } else if (e <= static_cast<Bits>((own_bias - reduced_bias) << own_mantissa)) {
      bits = static_cast<Bits>(bits & sign);
    }
  }
  return bits;
}

}  // namespace axe

#endif  // AXE_BASE_NUMERICS_H_
