#include "axe/pallas/dtype.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace axe::pallas {
namespace {

struct DTypeInfo {
  DType type;
  absl::string_view name;
  int bits;
};

constexpr std::array<DTypeInfo, 13> kInfos = {{
    {DType::kBool, "bool", 8},
    {DType::kInt8, "int8", 8},
    {DType::kInt16, "int16", 16},
    {DType::kInt32, "int32", 32},
    {DType::kInt64, "int64", 64},
    {DType::kUInt8, "uint8", 8},
    {DType::kUInt16, "uint16", 16},
    {DType::kUInt32, "uint32", 32},
    {DType::kUInt64, "uint64", 64},
    {DType::kBFloat16, "bfloat16", 16},
    {DType::kFloat16, "float16", 16},
    {DType::kFloat32, "float32", 32},
    {DType::kFloat64, "float64", 64},
}};

// Short spellings (NumPy names are matched separately).
constexpr std::array<std::pair<absl::string_view, DType>, 23> kAliases = {{
    {"pred", DType::kBool},      {"i8", DType::kInt8},       {"s8", DType::kInt8},
    {"i16", DType::kInt16},      {"s16", DType::kInt16},     {"i32", DType::kInt32},
    {"s32", DType::kInt32},      {"i64", DType::kInt64},     {"s64", DType::kInt64},
    {"u8", DType::kUInt8},       {"u16", DType::kUInt16},    {"u32", DType::kUInt32},
    {"u64", DType::kUInt64},     {"bf16", DType::kBFloat16}, {"f16", DType::kFloat16},
    {"half", DType::kFloat16},   {"f32", DType::kFloat32},   {"float", DType::kFloat32},
    {"f64", DType::kFloat64},    {"double", DType::kFloat64}, {"int", DType::kInt32},
    {"uint", DType::kUInt32},    {"boolean", DType::kBool},
}};

const DTypeInfo& Info(DType t) {
  const DTypeInfo& info = kInfos[static_cast<size_t>(t)];
  AXE_CHECK(info.type == t) << "dtype table out of order";
  return info;
}

}  // namespace

absl::string_view DTypeName(DType t) { return Info(t).name; }

int BitWidth(DType t) { return Info(t).bits; }

bool IsFloating(DType t) {
  return t == DType::kBFloat16 || t == DType::kFloat16 || t == DType::kFloat32 || t == DType::kFloat64;
}

bool IsStorable(DType t) { return t != DType::kBFloat16 && t != DType::kFloat16; }

absl::StatusOr<DType> ParseDType(absl::string_view text) {
  std::string lower = absl::AsciiStrToLower(absl::StripAsciiWhitespace(text));
  for (const DTypeInfo& info : kInfos) {
    if (lower == info.name) return info.type;
  }
  for (const auto& [alias, type] : kAliases) {
    if (lower == alias) return type;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown dtype '", text,
      "'; expected bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, bfloat16, float16, "
      "float32, float64 (or i32/s32, u8, bf16, f16, f32, f64, ...)"));
}

}  // namespace axe::pallas
