#include "axe/base/dtype.h"

#include <array>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"

namespace axe {
namespace {

enum class Kind { kNone, kBool, kSigned, kUnsigned, kFloat, kComplex, kKey };

struct DTypeInfo {
  DType type;
  absl::string_view xla_name;
  absl::string_view numpy_name;  // empty: not an array type
  absl::string_view jaxpr_name;
  int bit_width;  // 0: not an array type
  Kind kind;
};

using T = DType;
// Indexed by enumerator value.
constexpr std::array<DTypeInfo, 38> kTypes = {{
    {T::kInvalid, "invalid", "", "", 0, Kind::kNone},
    {T::kPred, "pred", "bool", "bool", 1, Kind::kBool},
    {T::kS8, "s8", "int8", "i8", 8, Kind::kSigned},
    {T::kS16, "s16", "int16", "i16", 16, Kind::kSigned},
    {T::kS32, "s32", "int32", "i32", 32, Kind::kSigned},
    {T::kS64, "s64", "int64", "i64", 64, Kind::kSigned},
    {T::kU8, "u8", "uint8", "u8", 8, Kind::kUnsigned},
    {T::kU16, "u16", "uint16", "u16", 16, Kind::kUnsigned},
    {T::kU32, "u32", "uint32", "u32", 32, Kind::kUnsigned},
    {T::kU64, "u64", "uint64", "u64", 64, Kind::kUnsigned},
    {T::kF16, "f16", "float16", "f16", 16, Kind::kFloat},
    {T::kF32, "f32", "float32", "f32", 32, Kind::kFloat},
    {T::kF64, "f64", "float64", "f64", 64, Kind::kFloat},
    {T::kTuple, "tuple", "", "", 0, Kind::kNone},
    {T::kOpaque, "opaque", "", "", 0, Kind::kNone},
    {T::kC64, "c64", "complex64", "c64", 64, Kind::kComplex},
    {T::kBF16, "bf16", "bfloat16", "bf16", 16, Kind::kFloat},
    {T::kToken, "token", "", "", 0, Kind::kNone},
    {T::kC128, "c128", "complex128", "c128", 128, Kind::kComplex},
    {T::kF8E5M2, "f8e5m2", "float8_e5m2", "f8_e5m2", 8, Kind::kFloat},
    {T::kF8E4M3FN, "f8e4m3fn", "float8_e4m3fn", "f8_e4m3fn", 8, Kind::kFloat},
    {T::kS4, "s4", "int4", "i4", 4, Kind::kSigned},
    {T::kU4, "u4", "uint4", "u4", 4, Kind::kUnsigned},
    {T::kF8E4M3B11FNUZ, "f8e4m3b11fnuz", "float8_e4m3b11fnuz", "f8_e4m3b11fnuz", 8, Kind::kFloat},
    {T::kF8E5M2FNUZ, "f8e5m2fnuz", "float8_e5m2fnuz", "f8_e5m2fnuz", 8, Kind::kFloat},
    {T::kF8E4M3FNUZ, "f8e4m3fnuz", "float8_e4m3fnuz", "f8_e4m3fnuz", 8, Kind::kFloat},
    {T::kS2, "s2", "int2", "i2", 2, Kind::kSigned},
    {T::kU2, "u2", "uint2", "u2", 2, Kind::kUnsigned},
    {T::kF8E4M3, "f8e4m3", "float8_e4m3", "f8_e4m3", 8, Kind::kFloat},
    {T::kF8E3M4, "f8e3m4", "float8_e3m4", "f8_e3m4", 8, Kind::kFloat},
    {T::kS1, "s1", "int1", "i1", 1, Kind::kSigned},
    {T::kU1, "u1", "uint1", "u1", 1, Kind::kUnsigned},
    {T::kF4E2M1FN, "f4e2m1fn", "float4_e2m1fn", "f4_e2m1fn", 4, Kind::kFloat},
    {T::kF8E8M0FNU, "f8e8m0fnu", "float8_e8m0fnu", "f8_e8m0fnu", 8, Kind::kFloat},
    {T::kBuffer, "buffer", "", "", 0, Kind::kNone},
    {T::kF6E3M2FN, "f6e3m2fn", "float6_e3m2fn", "f6_e3m2fn", 8, Kind::kFloat},
    {T::kF6E2M3FN, "f6e2m3fn", "float6_e2m3fn", "f6_e2m3fn", 8, Kind::kFloat},
    {T::kKeyFry, "key<fry>", "key<fry>", "key<fry>", 64, Kind::kKey},
}};

constexpr bool TableInEnumOrder() {
  for (size_t i = 0; i < kTypes.size(); ++i) {
    if (static_cast<size_t>(kTypes[i].type) != i) return false;
  }
  return true;
}
static_assert(TableInEnumOrder(), "kTypes must be indexed by enumerator value");

const DTypeInfo& Info(DType type) {
  int v = static_cast<int>(type);
  if (v < 0 || v >= static_cast<int>(kTypes.size())) return kTypes[0];
  return kTypes[static_cast<size_t>(v)];
}

constexpr std::array<DType, 36> kAll = [] {
  std::array<DType, 36> all{};
  for (size_t i = 1; i < all.size() + 1; ++i) all[i - 1] = kTypes[i].type;
  return all;
}();

}  // namespace

absl::string_view XlaName(DType type) { return Info(type).xla_name; }
absl::string_view NumpyName(DType type) { return Info(type).numpy_name; }
absl::string_view JaxprName(DType type) { return Info(type).jaxpr_name; }

std::optional<DType> DTypeFromXlaName(absl::string_view name) {
  for (const DTypeInfo& info : kTypes) {
    if (info.xla_name != name) continue;
    if (info.type == T::kInvalid || info.type == T::kTuple || info.type == T::kBuffer ||
        info.kind == Kind::kKey) {
      return std::nullopt;
    }
    return info.type;
  }
  return std::nullopt;
}

absl::StatusOr<DType> ParseDType(absl::string_view text) {
  for (const DTypeInfo& info : kTypes) {
    if (info.bit_width == 0 || info.kind == Kind::kKey) continue;
    if (text == info.xla_name || text == info.numpy_name || text == info.jaxpr_name) {
      return info.type;
    }
  }
  std::vector<absl::string_view> names;
  for (const DTypeInfo& info : kTypes) {
    if (info.bit_width > 0 && info.kind != Kind::kKey) names.push_back(info.xla_name);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown element type '", ElideForMessage(text, 40), "'; known: ", absl::StrJoin(names, ", "),
      " (or their NumPy names: float32, bfloat16, int4, bool, ...)"));
}

absl::StatusOr<DType> ParseJaxprDType(absl::string_view text) {
  if (text == JaxprName(T::kKeyFry)) return T::kKeyFry;
  return ParseDType(text);
}

absl::Span<const DType> AllDTypes() { return kAll; }

bool IsArrayType(DType type) { return Info(type).bit_width > 0 && !IsKeyType(type); }
bool IsKeyType(DType type) { return Info(type).kind == Kind::kKey; }
int KeyDataWords(DType type) { return IsKeyType(type) ? 2 : 0; }
int BitWidth(DType type) { return Info(type).bit_width; }
int ByteWidth(DType type) { return (Info(type).bit_width + 7) / 8; }

int IfrtBitSize(DType type) {
  switch (type) {
    case T::kPred: return 8;
    case T::kF6E3M2FN:
    case T::kF6E2M3FN: return 6;
    default: return BitWidth(type);
  }
}

bool IsSignedIntegral(DType type) { return Info(type).kind == Kind::kSigned; }
bool IsUnsignedIntegral(DType type) { return Info(type).kind == Kind::kUnsigned; }
bool IsIntegral(DType type) { return IsSignedIntegral(type) || IsUnsignedIntegral(type); }
bool IsFloatingPoint(DType type) { return Info(type).kind == Kind::kFloat; }
bool IsComplex(DType type) { return Info(type).kind == Kind::kComplex; }
bool IsSubByteNonPred(DType type) {
  return type != T::kPred && IsArrayType(type) && BitWidth(type) < 8;
}
absl::string_view DTypeKind(DType type) {
  switch (Info(type).kind) {
    case Kind::kBool: return "bool";
    case Kind::kSigned: return "signed int";
    case Kind::kUnsigned: return "unsigned int";
    case Kind::kFloat: return "float";
    case Kind::kComplex: return "complex";
    case Kind::kKey: return "key";
    case Kind::kNone: break;
  }
  return XlaName(type);  // the non-array types are their own kind
}

}  // namespace axe
