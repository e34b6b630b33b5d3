// Element types of Pallas operands. Names follow NumPy ("int32", "float32", "bool"); the
// parser also accepts the short spellings i32/s32, u8, f32, bf16, pred (XLA's bool).
// bfloat16 and float16 exist for the backend block-shape rules (their bit width); arrays
// of them cannot be created or run.
//
//   absl::StatusOr<DType> t = ParseDType("f32");   // DType::kFloat32
//   DTypeName(*t);                                 // "float32"
//   BitWidth(DType::kBFloat16);                    // 16
#ifndef AXE_PALLAS_DTYPE_H_
#define AXE_PALLAS_DTYPE_H_

#include <cstdint>
#include <limits>
#include <ostream>
#include <type_traits>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/base/check.h"

namespace axe::pallas {

enum class DType : uint8_t {
  kBool,
  kInt8,
  kInt16,
  kInt32,
  kInt64,
  kUInt8,
  kUInt16,
  kUInt32,
  kUInt64,
  kBFloat16,
  kFloat16,
  kFloat32,
  kFloat64,
};

// The NumPy name: "bool", "int8", ..., "uint64", "bfloat16", "float16", "float32", "float64".
absl::string_view DTypeName(DType t);
// Parses a NumPy name or a short spelling (i8..i64, s8..s64, u8..u64, bf16, f16, f32, f64,
// pred, half, float, double). Errors list the accepted names.
absl::StatusOr<DType> ParseDType(absl::string_view text);
// Bits per element (bool: 8, its storage size; the TPU rule counts bool as 32 itself).
int BitWidth(DType t);
bool IsFloating(DType t);
// True for the types Array can hold: every type but bfloat16 and float16.
bool IsStorable(DType t);

inline std::ostream& operator<<(std::ostream& os, DType t) { return os << DTypeName(t); }
template <typename Sink>
void AbslStringify(Sink& sink, DType t) {
  sink.Append(DTypeName(t));
}

// DTypeOf<T>: the DType of a storable C++ element type (bool, int8_t ... uint64_t, float,
// double).
template <typename T>
struct DTypeTraits;
#define AXE_PALLAS_DTYPE_TRAIT_(type, value) \
  template <>                                \
  struct DTypeTraits<type> {                 \
    static constexpr DType kDType = value;   \
  }
AXE_PALLAS_DTYPE_TRAIT_(bool, DType::kBool);
AXE_PALLAS_DTYPE_TRAIT_(int8_t, DType::kInt8);
AXE_PALLAS_DTYPE_TRAIT_(int16_t, DType::kInt16);
AXE_PALLAS_DTYPE_TRAIT_(int32_t, DType::kInt32);
AXE_PALLAS_DTYPE_TRAIT_(int64_t, DType::kInt64);
AXE_PALLAS_DTYPE_TRAIT_(uint8_t, DType::kUInt8);
AXE_PALLAS_DTYPE_TRAIT_(uint16_t, DType::kUInt16);
AXE_PALLAS_DTYPE_TRAIT_(uint32_t, DType::kUInt32);
AXE_PALLAS_DTYPE_TRAIT_(uint64_t, DType::kUInt64);
AXE_PALLAS_DTYPE_TRAIT_(float, DType::kFloat32);
AXE_PALLAS_DTYPE_TRAIT_(double, DType::kFloat64);
#undef AXE_PALLAS_DTYPE_TRAIT_

template <typename T>
inline constexpr DType DTypeOf = DTypeTraits<std::remove_cv_t<T>>::kDType;

// The value interpret mode fills outputs and padding with (JAX's HLO interpreter): NaN for
// floating types, the minimum for integers (0 for unsigned), false for bool.
template <typename T>
constexpr T UninitializedValue() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// Calls f(std::type_identity<T>{}) with the C++ type of a storable dtype and returns its
// result. Requires IsStorable(t) (checked).
template <typename F>
decltype(auto) VisitDType(DType t, F&& f) {
  switch (t) {
    case DType::kBool: return f(std::type_identity<bool>{});
    case DType::kInt8: return f(std::type_identity<int8_t>{});
    case DType::kInt16: return f(std::type_identity<int16_t>{});
    case DType::kInt32: return f(std::type_identity<int32_t>{});
    case DType::kInt64: return f(std::type_identity<int64_t>{});
    case DType::kUInt8: return f(std::type_identity<uint8_t>{});
    case DType::kUInt16: return f(std::type_identity<uint16_t>{});
    case DType::kUInt32: return f(std::type_identity<uint32_t>{});
    case DType::kUInt64: return f(std::type_identity<uint64_t>{});
    case DType::kFloat32: return f(std::type_identity<float>{});
    case DType::kFloat64: return f(std::type_identity<double>{});
    case DType::kBFloat16:
    case DType::kFloat16: break;
  }
  AXE_CHECK(false) << "VisitDType: " << DTypeName(t) << " has no C++ element type";
  return f(std::type_identity<float>{});  // not reached
}

}  // namespace axe::pallas

#endif  // AXE_PALLAS_DTYPE_H_
