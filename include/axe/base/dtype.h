// The element types of axe: one vocabulary for XLA, NumPy/JAX and jaxprs.
//
// DType is XLA's PrimitiveType (enumerator values are those of xla_data.proto), so every XLA
// element type is here, with its widths and the names each ecosystem uses for it:
//
//   ecosystem          f32        bf16       s4     pred   f8e4m3fn
//   XLA (HLO text)     f32        bf16       s4     pred   f8e4m3fn
//   NumPy / JAX        float32    bfloat16   int4   bool   float8_e4m3fn
//   jaxpr short form   f32        bf16       i4     bool   f8_e4m3fn
//
// The non-array types (tuple, token, opaque, buffer) are DTypes too, because XLA shapes carry
// them; they have no width and no NumPy name.
//
// kKeyFry is the one DType that is not XLA's: the element type of JAX's PRNG key arrays
// (`key<fry>[2]` in a jaxpr). It lives only in jaxprs: it has all three names "key<fry>", a
// width of 64 bits (the key data, two u32 words), is not an array type for XLA, is not in
// AllDTypes() and ParseDType does not accept it (ParseJaxprDType does).
//
//   absl::StatusOr<DType> t = ParseDType("bfloat16");   // DType::kBF16; "bf16" gives it too
//   XlaName(*t);    // "bf16"
//   NumpyName(*t);  // "bfloat16"
//   BitWidth(DType::kS4), ByteWidth(DType::kS4);        // 4, 1
#ifndef AXE_BASE_DTYPE_H_
#define AXE_BASE_DTYPE_H_

#include <cstdint>
#include <optional>
#include <ostream>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe {

enum class DType : int {
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
  // Not an XLA type: JAX's typed PRNG key of the threefry2x32 implementation, printed
  // key<fry>. One element is one key, whose data is two u32 words (8 bytes).
  kKeyFry = 37,
};

// The HLO spelling: "pred", "s4", "bf16", "f8e4m3fn", ..., "token", "opaque" (OPAQUE_TYPE),
// "tuple", "buffer", "invalid".
absl::string_view XlaName(DType type);
// The NumPy/JAX dtype name: "bool", "int4", "bfloat16", "float8_e4m3fn", "complex64", ...;
// empty for the non-array types.
absl::string_view NumpyName(DType type);
// The short name jaxprs print: "f32", "i32", "u8", "bf16", "bool", "f8_e4m3fn", "c64", ...;
// empty for the non-array types.
absl::string_view JaxprName(DType type);

// The type an HLO type token names (case-sensitive; "opaque" included). "tuple", "buffer",
// "invalid" are not type tokens: nullopt.
std::optional<DType> DTypeFromXlaName(absl::string_view name);
// Any array type by any of its three names (XLA, NumPy, jaxpr), e.g. "f32", "float32",
// "s32", "int32", "i32", "pred", "bool". Error (InvalidArgument): "unknown element type
// 'f128'; known: ..." listing the XLA names.
absl::StatusOr<DType> ParseDType(absl::string_view text);

// A jaxpr's element type by its short name: ParseDType's names and "key<fry>".
absl::StatusOr<DType> ParseJaxprDType(absl::string_view text);

// Every XLA enumerator with a meaning (kInvalid and kKeyFry excluded), in enum order.
absl::Span<const DType> AllDTypes();

// True for element types of arrays: everything but kInvalid, kTuple, kOpaque, kToken, kBuffer.
bool IsArrayType(DType type);
// True for JAX's PRNG key element types (kKeyFry).
bool IsKeyType(DType type);
// The u32 words of one key's data: 2 for kKeyFry, 0 for every other type.
int KeyDataWords(DType type);
// XLA's BitWidth: sub-byte types report their packed width (s4 -> 4), the two F6 types their
// storage width 8, pred 1; 0 for non-array types.
int BitWidth(DType type);
// ceil(BitWidth / 8): the bytes an unpacked element takes; 0 for non-array types.
int ByteWidth(DType type);
// IFRT's DType::bit_size(): like BitWidth except pred -> 8 and the F6 types -> 6.
int IfrtBitSize(DType type);

bool IsSignedIntegral(DType type);
bool IsUnsignedIntegral(DType type);
bool IsIntegral(DType type);       // signed or unsigned (not pred)
bool IsFloatingPoint(DType type);  // f16, bf16, f32, f64 and every f8/f6/f4 type
bool IsComplex(DType type);        // c64, c128
// Sub-byte types other than pred (s1, s2, s4, u1, u2, u4, f4e2m1fn): the ones E(n) packs.
bool IsSubByteNonPred(DType type);
// "signed int", "unsigned int", "float", "complex", "bool", or the kind of a non-array type.
absl::string_view DTypeKind(DType type);

// Printing uses the XLA name.
inline std::ostream& operator<<(std::ostream& os, DType t) { return os << XlaName(t); }
template <typename Sink>
void AbslStringify(Sink& sink, DType t) {
  sink.Append(XlaName(t));
}

}  // namespace axe

#endif  // AXE_BASE_DTYPE_H_
