#include "axe/xla/primitive_type.h"

#include <array>

namespace axe::xla {
namespace {

struct TypeInfo {
  PrimitiveType type;
  absl::string_view name;
  int bit_width;  // 0: not an array type
  absl::string_view kind;
};

using T = PrimitiveType;
constexpr std::array<TypeInfo, 37> kTypes = {{
    {T::kInvalid, "invalid", 0, "invalid"},
    {T::kPred, "pred", 1, "bool"},
    {T::kS8, "s8", 8, "signed int"},
    {T::kS16, "s16", 16, "signed int"},
    {T::kS32, "s32", 32, "signed int"},
    {T::kS64, "s64", 64, "signed int"},
    {T::kU8, "u8", 8, "unsigned int"},
    {T::kU16, "u16", 16, "unsigned int"},
    {T::kU32, "u32", 32, "unsigned int"},
    {T::kU64, "u64", 64, "unsigned int"},
    {T::kF16, "f16", 16, "float"},
    {T::kF32, "f32", 32, "float"},
    {T::kF64, "f64", 64, "float"},
    {T::kTuple, "tuple", 0, "tuple"},
    {T::kOpaque, "opaque", 0, "opaque"},
    {T::kC64, "c64", 64, "complex"},
    {T::kBF16, "bf16", 16, "float"},
    {T::kToken, "token", 0, "token"},
    {T::kC128, "c128", 128, "complex"},
    {T::kF8E5M2, "f8e5m2", 8, "float"},
    {T::kF8E4M3FN, "f8e4m3fn", 8, "float"},
    {T::kS4, "s4", 4, "signed int"},
    {T::kU4, "u4", 4, "unsigned int"},
    {T::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", 8, "float"},
    {T::kF8E5M2FNUZ, "f8e5m2fnuz", 8, "float"},
    {T::kF8E4M3FNUZ, "f8e4m3fnuz", 8, "float"},
    {T::kS2, "s2", 2, "signed int"},
    {T::kU2, "u2", 2, "unsigned int"},
    {T::kF8E4M3, "f8e4m3", 8, "float"},
    {T::kF8E3M4, "f8e3m4", 8, "float"},
    {T::kS1, "s1", 1, "signed int"},
    {T::kU1, "u1", 1, "unsigned int"},
    {T::kF4E2M1FN, "f4e2m1fn", 4, "float"},
    {T::kF8E8M0FNU, "f8e8m0fnu", 8, "float"},
    {T::kBuffer, "buffer", 0, "buffer"},
    {T::kF6E3M2FN, "f6e3m2fn", 8, "float"},
    {T::kF6E2M3FN, "f6e2m3fn", 8, "float"},
}};

const TypeInfo& Info(PrimitiveType type) {
  int v = static_cast<int>(type);
  if (v < 0 || v >= static_cast<int>(kTypes.size())) return kTypes[0];
  return kTypes[static_cast<size_t>(v)];
}

constexpr std::array<PrimitiveType, 36> kAll = [] {
  std::array<PrimitiveType, 36> all{};
  for (size_t i = 1; i < kTypes.size(); ++i) all[i - 1] = kTypes[i].type;
  return all;
}();

}  // namespace

absl::string_view PrimitiveTypeName(PrimitiveType type) { return Info(type).name; }

std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name) {
  for (const TypeInfo& info : kTypes) {
    if (info.name != name) continue;
    if (info.type == T::kInvalid || info.type == T::kTuple || info.type == T::kBuffer) return std::nullopt;
    return info.type;
  }
  return std::nullopt;
}

absl::Span<const PrimitiveType> AllPrimitiveTypes() { return kAll; }

bool IsArrayType(PrimitiveType type) { return Info(type).bit_width > 0; }
int BitWidth(PrimitiveType type) { return Info(type).bit_width; }
int ByteWidth(PrimitiveType type) { return (Info(type).bit_width + 7) / 8; }

int IfrtBitSize(PrimitiveType type) {
  switch (type) {
    case T::kPred:
      return 8;
    case T::kF6E3M2FN:
    case T::kF6E2M3FN:
      return 6;
    default:
      return BitWidth(type);
  }
}

bool IsSignedIntegral(PrimitiveType type) { return Info(type).kind == "signed int"; }
bool IsUnsignedIntegral(PrimitiveType type) { return Info(type).kind == "unsigned int"; }
bool IsIntegral(PrimitiveType type) { return IsSignedIntegral(type) || IsUnsignedIntegral(type); }
bool IsFloatingPoint(PrimitiveType type) { return Info(type).kind == "float"; }
bool IsComplex(PrimitiveType type) { return Info(type).kind == "complex"; }
bool IsSubByteNonPred(PrimitiveType type) {
  return type != T::kPred && IsArrayType(type) && BitWidth(type) < 8;
}
absl::string_view PrimitiveTypeKind(PrimitiveType type) { return Info(type).kind; }

}  // namespace axe::xla
