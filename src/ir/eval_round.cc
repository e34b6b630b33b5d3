// Rounding a double to a dtype's values (RoundToDType) and convert_element_type's value
// semantics (ConvertValue).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "axe/base/dtype.h"
#include "axe/ir/eval.h"
#include "eval_util.h"

namespace axe::ir {
namespace {

// Rounds to a binary float format with `mantissa` fraction bits, minimum normal exponent
// `emin` and maximum exponent `emax`, ties to even; beyond the largest finite value: inf.
double RoundBinary(double v, int mantissa, int emin, int emax) {
  if (!std::isfinite(v) || v == 0.0) return v;
  int exp = 0;
  std::frexp(v, &exp);  // |v| = m * 2^exp, m in [0.5, 1): the leading bit is 2^(exp - 1)
  int lead = std::max(exp - 1, emin);
  double quantum = std::ldexp(1.0, lead - mantissa);
  double rounded = std::nearbyint(v / quantum) * quantum;  // default mode: ties to even
  double max_finite = std::ldexp(2.0 - std::ldexp(1.0, -mantissa), emax);
  if (std::fabs(rounded) > max_finite) return std::copysign(HUGE_VAL, v);
  return rounded;
}

// v (an integral value) modulo 2^BitWidth(t), in t's range.
double WrapInteger(double v, DType t) {
  if (!std::isfinite(v)) return 0.0;
  double r = std::fmod(std::trunc(v), std::ldexp(1.0, 64));  // exact; |r| < 2^64
  uint64_t u = 0;
  if (r >= 0) {
    u = static_cast<uint64_t>(r);
  } else if (r >= -std::ldexp(1.0, 63)) {
    u = static_cast<uint64_t>(static_cast<int64_t>(r));  // two's complement
  } else {
    u = static_cast<uint64_t>(r + std::ldexp(1.0, 64));  // exact: |r| >= 2^63
  }
  return internal::IntegerFromBits(u, t);
}

double Saturate(double v, int bits, bool is_signed) {
  if (std::isnan(v)) return 0.0;
  double t = std::trunc(v);
  double lo = is_signed ? -std::ldexp(1.0, bits - 1) : 0.0;
  double hi = is_signed ? std::ldexp(1.0, bits - 1) - 1 : std::ldexp(1.0, bits) - 1;
  if (t < lo) return lo;
  if (t > hi) return hi;  // 64 bits: hi is 2^63 / 2^64 here (see ConvertValue)
  return t;
}

}  // namespace

double RoundToDType(double value, DType dtype) {
  switch (dtype) {
    case DType::kPred: return value != 0.0 ? 1.0 : 0.0;
    case DType::kF64: return value;
    case DType::kF32: return RoundBinary(value, 23, -126, 127);
    case DType::kF16: return RoundBinary(value, 10, -14, 15);
    case DType::kBF16: return RoundBinary(value, 7, -126, 127);
    default: break;
  }
  if (IsIntegral(dtype)) return WrapInteger(value, dtype);
  return value;
}

double ConvertValue(double value, DType from, DType to) {
  if (to == DType::kPred) return value != 0.0 ? 1.0 : 0.0;
  if (IsIntegral(to) && IsFloatingPoint(from)) {
    int bits = BitWidth(to);
    double s = Saturate(value, bits, IsSignedIntegral(to));
    if (bits == 64) {
      // 2^63 - 1 and 2^64 - 1 are not doubles: the saturated top stays 2^63 / 2^64 - ulp.
      double top = IsSignedIntegral(to) ? std::ldexp(1.0, 63) : std::ldexp(1.0, 64);
      if (s >= top) return std::nextafter(top, 0.0);
    }
    return s;
  }
  return RoundToDType(value, to);
}

}  // namespace axe::ir
