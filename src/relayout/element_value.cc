#include "axe/relayout/element_value.h"

#include <cfenv>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <utility>

#include "absl/numeric/int128.h"
#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "axe/base/scanner.h"

namespace axe::relayout {
namespace {

// `value` rounded to a binary format with `exponent_bits` and `mantissa_bits` (at most 23)
// fraction bits, ties to even, as its bit pattern. `above`: the number to round is a little
// (less than a double ulp) larger in magnitude than `value`, which breaks a tie upward.
uint16_t RoundToSmallFloatBits(double value, int exponent_bits, int mantissa_bits,
                               bool above = false) {
  uint64_t d;
  std::memcpy(&d, &value, sizeof(d));
  const uint32_t sign = static_cast<uint32_t>(d >> 63) << (exponent_bits + mantissa_bits);
  const int double_exponent = static_cast<int>((d >> 52) & 0x7ff);
  const uint64_t double_fraction = d & ((uint64_t{1} << 52) - 1);
  const uint32_t all_ones = (uint32_t{1} << exponent_bits) - 1;
  if (double_exponent == 0x7ff) {  // inf or NaN
    const uint32_t fraction = double_fraction != 0 ? uint32_t{1} << (mantissa_bits - 1) : 0;
    return static_cast<uint16_t>(sign | (all_ones << mantissa_bits) | fraction);
  }
  // Doubles below 2^-1022 are far below half the smallest subnormal of these formats.
  if (double_exponent == 0) return static_cast<uint16_t>(sign);
  const int bias = static_cast<int>(all_ones >> 1);
  const int exponent = double_exponent - 1023;
  const int min_normal_exponent = 1 - bias;
  const uint64_t significand = (uint64_t{1} << 52) | double_fraction;  // 53 bits
  int shift = 52 - mantissa_bits;
  if (exponent < min_normal_exponent) shift += min_normal_exponent - exponent;
  uint64_t kept = 0;
  if (shift < 54) {  // else the value is below half the smallest subnormal: zero
    kept = significand >> shift;
    const uint64_t rest = significand & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rest > half || (rest == half && (above || (kept & 1) != 0))) ++kept;
  }
  uint64_t bits = kept;  // a subnormal (or, rounded up, the smallest normal)
  if (exponent >= min_normal_exponent) {
    // A carry out of the fraction moves into the exponent, up to infinity.
    bits = (static_cast<uint64_t>(exponent + bias) << mantissa_bits) + kept -
           (uint64_t{1} << mantissa_bits);
  }
  const uint64_t infinity = uint64_t{all_ones} << mantissa_bits;
  if (bits > infinity) bits = infinity;
  return static_cast<uint16_t>(sign | bits);
}

template <typename T>
std::vector<uint8_t> BytesOf(T value) {
  std::vector<uint8_t> out(sizeof(T));
  std::memcpy(out.data(), &value, sizeof(T));
  return out;
}

bool IsDecimalInteger(absl::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  if (text.empty()) return false;
  for (char c : text) {
    if (!absl::ascii_isdigit(static_cast<unsigned char>(c))) return false;
  }
  return true;
}

std::string Quoted(absl::string_view text) { return absl::StrCat("'", ElideForMessage(text), "'"); }

absl::StatusOr<std::vector<uint8_t>> ParseInteger(absl::string_view text, DType type) {
  const int bits = BitWidth(type);
  const bool is_signed = IsSignedIntegral(type);
  const int magnitude_bits = is_signed ? bits - 1 : bits;  // at most 64
  const uint64_t max = magnitude_bits == 64 ? std::numeric_limits<uint64_t>::max()
                                            : (uint64_t{1} << magnitude_bits) - 1;
  const int64_t min = is_signed ? -static_cast<int64_t>(max) - 1 : 0;
  const std::string range = absl::StrCat(min, " to ", max);
  if (!IsDecimalInteger(text)) {
    return absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not an integer; ",
                                                   XlaName(type), " holds integers from ", range));
  }
  absl::int128 value = 0;
  // Integers of more than 38 digits fail to parse: out of every range.
  if (!absl::SimpleAtoi(text, &value) || value < absl::int128(min) || value > absl::int128(max)) {
    return absl::OutOfRangeError(
        absl::StrCat(Quoted(text), " is out of range for ", XlaName(type), " (", range, ")"));
  }
  const uint64_t low = absl::Int128Low64(value);  // two's complement, truncated below
  switch (ByteWidth(type)) {
    case 1: return BytesOf(static_cast<uint8_t>(low));
    case 2: return BytesOf(static_cast<uint16_t>(low));
    case 4: return BytesOf(static_cast<uint32_t>(low));
    default: return BytesOf(low);
  }
}

absl::StatusOr<std::vector<uint8_t>> ParsePred(absl::string_view text) {
  if (text == "1" || text == "true") return std::vector<uint8_t>{1};
  if (text == "0" || text == "false") return std::vector<uint8_t>{0};
  return absl::InvalidArgumentError(
      absl::StrCat(Quoted(text), " is not a pred value: use 0, 1, true or false"));
}

// The decimal `text` (which SimpleAtod read as `nearest`) as the double next to it toward
// zero, and whether that is below the decimal's exact magnitude. Rounding that pair to f16
// or bf16 is one correct rounding of the decimal; rounding `nearest` would be two, wrong
// for decimals within half a double ulp of a tie. Reads `nearest` back when the C library
// disagrees with it (another locale's decimal point, say).
std::pair<double, bool> TowardZeroAndInexact(absl::string_view text, double nearest) {
  if (!std::isfinite(nearest)) return {nearest, false};
  const std::string copy(text);
  auto parse = [&](int mode) {
    const int saved = std::fegetround();
    std::fesetround(mode);
    char* end = nullptr;
    const double value = std::strtod(copy.c_str(), &end);
    std::fesetround(saved);
    return end == copy.c_str() + copy.size() ? value : std::nan("");
  };
  const double down = parse(FE_DOWNWARD), up = parse(FE_UPWARD), zero = parse(FE_TOWARDZERO);
  if (!(down <= nearest && nearest <= up && (zero == down || zero == up))) {
    return {nearest, false};
  }
  return {zero, down != up};
}

bool NamesInfinity(absl::string_view text) {
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) text.remove_prefix(1);
  return absl::EqualsIgnoreCase(text, "inf") || absl::EqualsIgnoreCase(text, "infinity");
}

absl::Status FloatOutOfRange(absl::string_view text, DType type, absl::string_view largest) {
  return absl::OutOfRangeError(absl::StrCat(Quoted(text), " is out of range for ", XlaName(type),
                                            " (largest finite magnitude ", largest, ")"));
}

absl::StatusOr<std::vector<uint8_t>> ParseFloat(absl::string_view text, DType type) {
  const absl::Status not_a_number =
      absl::InvalidArgumentError(absl::StrCat(Quoted(text), " is not a number (", XlaName(type),
                                              " takes a decimal number, inf, -inf or nan)"));
  if (type == DType::kF32) {  // parsed straight to float: one correct rounding
    float f = 0;
    if (!absl::SimpleAtof(text, &f)) return not_a_number;
    if (std::isinf(f) && !NamesInfinity(text)) {
      return FloatOutOfRange(text, type, "3.4028235e38");
    }
    return BytesOf(f);
  }
  double d = 0;
  if (!absl::SimpleAtod(text, &d)) return not_a_number;
  const bool overflowed = std::isinf(d) && !NamesInfinity(text);
  if (type == DType::kF64) {
    if (overflowed) return FloatOutOfRange(text, type, "1.7976931348623157e308");
    return BytesOf(d);
  }
  const bool half = type == DType::kF16;
  const auto [toward_zero, inexact] = TowardZeroAndInexact(text, d);
  const uint16_t bits = half ? RoundToSmallFloatBits(toward_zero, 5, 10, inexact)
                             : RoundToSmallFloatBits(toward_zero, 8, 7, inexact);
  const uint16_t exponent_mask = half ? 0x7c00 : 0x7f80;
  const bool rounded_to_inf = (bits & exponent_mask) == exponent_mask && std::isfinite(d);
  if (overflowed || rounded_to_inf) {
    return FloatOutOfRange(text, type, half ? "65504" : "3.3895314e38");
  }
  return BytesOf(bits);
}

}  // namespace

uint16_t RoundToF16Bits(double value) { return RoundToSmallFloatBits(value, 5, 10); }
uint16_t RoundToBF16Bits(double value) { return RoundToSmallFloatBits(value, 8, 7); }

absl::StatusOr<std::vector<uint8_t>> ParseElementValue(absl::string_view text, DType type) {
  text = absl::StripAsciiWhitespace(text);
  if (type == DType::kPred) return ParsePred(text);
  if (IsIntegral(type) && !IsSubByteNonPred(type)) return ParseInteger(text, type);
  if (type == DType::kF16 || type == DType::kBF16 || type == DType::kF32 || type == DType::kF64) {
    return ParseFloat(text, type);
  }
  return absl::UnimplementedError(absl::StrCat(
      "element values of type ", XlaName(type),
      " cannot be given yet; supported: pred, s8 to s64, u8 to u64, f16, bf16, f32, f64"));
}

}  // namespace axe::relayout
