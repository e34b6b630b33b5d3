// XLA element types (xla_data.proto PrimitiveType) with their HLO spelling and widths.
//
// BitWidth follows XLA's primitive_util: sub-byte types report their packed width (s4 -> 4),
// the two F6 types report their storage width 8, PRED reports 1. ByteWidth is
// ceil(BitWidth / 8): a sub-byte element takes one byte unless the layout packs it (E(n)).
//
//   PrimitiveTypeFromName("bf16");   // PrimitiveType::kBF16
//   BitWidth(PrimitiveType::kS4);    // 4
//   ByteWidth(PrimitiveType::kS4);   // 1
#ifndef AXE_XLA_PRIMITIVE_TYPE_H_
#define AXE_XLA_PRIMITIVE_TYPE_H_

#include <optional>

#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe::xla {

// Enumerator values are those of xla_data.proto.
enum class PrimitiveType : int {
  kInvalid = 0,
  kPred = 1,
  kS8 = 2,
  kS16 = 3,
  kS32 = 4,
  kS64 = 5,
  kU8 = 6,
  kU16 = 7,
  kU32 = 8,
  kU64 = 9,
  kF16 = 10,
  kF32 = 11,
  kF64 = 12,
  kTuple = 13,
  kOpaque = 14,
  kC64 = 15,
  kBF16 = 16,
  kToken = 17,
  kC128 = 18,
  kF8E5M2 = 19,
  kF8E4M3FN = 20,
  kS4 = 21,
  kU4 = 22,
  kF8E4M3B11FNUZ = 23,
  kF8E5M2FNUZ = 24,
  kF8E4M3FNUZ = 25,
  kS2 = 26,
  kU2 = 27,
  kF8E4M3 = 28,
  kF8E3M4 = 29,
  kS1 = 30,
  kU1 = 31,
  kF4E2M1FN = 32,
  kF8E8M0FNU = 33,
  kBuffer = 34,
  kF6E3M2FN = 35,
  kF6E2M3FN = 36,
};

// The HLO spelling: "pred", "s4", "bf16", "f8e4m3fn", ..., "token", "opaque" (OPAQUE_TYPE),
// "tuple", "buffer", "invalid".
absl::string_view PrimitiveTypeName(PrimitiveType type);

// The type a type token of HLO text names (case-sensitive). "tuple", "buffer", "invalid"
// and "opaque_type" are not type tokens: nullopt.
std::optional<PrimitiveType> PrimitiveTypeFromName(absl::string_view name);

// Every enumerator with a meaning (kInvalid excluded), in enum order.
absl::Span<const PrimitiveType> AllPrimitiveTypes();

// True for element types of arrays: everything but kInvalid, kTuple, kOpaque, kToken, kBuffer.
bool IsArrayType(PrimitiveType type);

// XLA's BitWidth (the table in docs/xla.md); 0 for non-array types.
int BitWidth(PrimitiveType type);
// ceil(BitWidth / 8); 0 for non-array types.
int ByteWidth(PrimitiveType type);
// IFRT's DType::bit_size(): like BitWidth except PRED -> 8 and the F6 types -> 6.
int IfrtBitSize(PrimitiveType type);

bool IsSignedIntegral(PrimitiveType type);
bool IsUnsignedIntegral(PrimitiveType type);
bool IsIntegral(PrimitiveType type);          // signed or unsigned (not pred)
bool IsFloatingPoint(PrimitiveType type);     // f16, bf16, f32, f64 and every f8/f6/f4 type
bool IsComplex(PrimitiveType type);           // c64, c128
// Sub-byte types other than pred (s1, s2, s4, u1, u2, u4, f4e2m1fn): the ones E(n) packs.
bool IsSubByteNonPred(PrimitiveType type);

// "signed int", "unsigned int", "float", "complex", "bool", or the kind of a non-array type.
absl::string_view PrimitiveTypeKind(PrimitiveType type);

}  // namespace axe::xla

#endif  // AXE_XLA_PRIMITIVE_TYPE_H_
