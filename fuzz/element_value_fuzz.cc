// Element values (relayout::ParseElementValue, `axe relayout --fill`). The input is
// `<element type> <value>`. Laws: the bytes have the type's width; the value they hold,
// printed exactly (integers in decimal, floats with enough digits, inf and nan by name),
// parses back to the same bytes (a NaN to a NaN); f16 and bf16 values round to themselves.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "axe/base/dtype.h"
#include "axe/relayout/element_value.h"
#include "fuzz_check.h"

namespace {

using axe::DType;

uint64_t LittleEndianBits(const std::vector<uint8_t>& bytes) {
  uint64_t bits = 0;
  std::memcpy(&bits, bytes.data(), bytes.size());  // the machine's order, little-endian here
  return bits;
}

double HalfToDouble(uint16_t bits) {
  const int exponent = (bits >> 10) & 0x1f;
  const int mantissa = bits & 0x3ff;
  const double sign = (bits & 0x8000) ? -1.0 : 1.0;
  if (exponent == 0x1f) return mantissa ? std::nan("") : sign * INFINITY;
  if (exponent == 0) return sign * std::ldexp(mantissa, -24);
  return sign * std::ldexp(mantissa + 1024, exponent - 25);
}

double BFloat16ToDouble(uint16_t bits) {
  const uint32_t wide = uint32_t{bits} << 16;
  float f;
  std::memcpy(&f, &wide, sizeof f);
  return f;
}

std::string PrintDouble(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char text[64];
  std::snprintf(text, sizeof text, "%.17g", v);
  return text;
}

// The value the bytes hold, as text ParseElementValue reads; empty for types not covered.
std::string ValueText(const std::vector<uint8_t>& bytes, DType type) {
  const uint64_t bits = LittleEndianBits(bytes);
  const int width = 8 * static_cast<int>(bytes.size());
  if (type == DType::kPred || axe::IsUnsignedIntegral(type)) return std::to_string(bits);
  if (axe::IsSignedIntegral(type)) {
    const uint64_t sign = uint64_t{1} << (width - 1);
    const int64_t value = (bits & sign) && width < 64
                              ? static_cast<int64_t>(bits) - static_cast<int64_t>(sign << 1)
                              : static_cast<int64_t>(bits);
    return std::to_string(value);
  }
  switch (type) {
    case DType::kF16: return PrintDouble(HalfToDouble(static_cast<uint16_t>(bits)));
    case DType::kBF16: return PrintDouble(BFloat16ToDouble(static_cast<uint16_t>(bits)));
    case DType::kF32: {
      float f;
      std::memcpy(&f, bytes.data(), sizeof f);
      return PrintDouble(f);
    }
    case DType::kF64: {
      double d;
      std::memcpy(&d, bytes.data(), sizeof d);
      return PrintDouble(d);
    }
    default: return "";
  }
}

bool IsNaN(const std::vector<uint8_t>& bytes, DType type) {
  return ValueText(bytes, type) == "nan";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const absl::string_view input = axe::fuzz::AsText(data, size);
  const size_t space = input.find(' ');
  if (space == absl::string_view::npos) return 0;
  absl::StatusOr<DType> type = axe::ParseDType(input.substr(0, space));
  if (!type.ok()) return 0;
  absl::StatusOr<std::vector<uint8_t>> bytes =
      axe::relayout::ParseElementValue(input.substr(space + 1), *type);
  if (!bytes.ok()) return 0;
  const std::string name(axe::XlaName(*type));
  AXE_FUZZ_CHECK(bytes->size() == static_cast<size_t>(axe::ByteWidth(*type)) && !bytes->empty(),
                 "the bytes have the width of " + name);
  const std::string text = ValueText(*bytes, *type);
  if (text.empty()) return 0;
  absl::StatusOr<std::vector<uint8_t>> again = axe::relayout::ParseElementValue(text, *type);
  AXE_FUZZ_CHECK(again.ok(), "the value's text parses: " + name + " " + text);
  AXE_FUZZ_CHECK(IsNaN(*bytes, *type) ? IsNaN(*again, *type) : *again == *bytes,
                 "the value's text reads back to the same bytes: " + name + " " + text);
  const uint16_t bits16 = static_cast<uint16_t>(LittleEndianBits(*bytes));
  if (*type == DType::kF16 && text != "nan") {
    AXE_FUZZ_CHECK(axe::relayout::RoundToF16Bits(HalfToDouble(bits16)) == bits16,
                   "an f16 value rounds to itself: " + text);
  }
  if (*type == DType::kBF16 && text != "nan") {
    AXE_FUZZ_CHECK(axe::relayout::RoundToBF16Bits(BFloat16ToDouble(bits16)) == bits16,
                   "a bf16 value rounds to itself: " + text);
  }
  return 0;
}
