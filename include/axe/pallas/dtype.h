// Element types of Pallas operands: axe::DType (axe/base/dtype.h), printed by their NumPy
// names ("int32", "float32", "bool") as JAX prints them; ParseDType accepts the XLA, NumPy
// and jaxpr spellings. Every array type can be validated against the backend rules (by its
// bit width); arrays can hold, and kernels run on, the types with a C++ element type.
//
//   IsStorable(DType::kF32);      // true: float
//   IsStorable(DType::kBF16);     // false: validated only
//   DTypeOf<int32_t>;             // DType::kS32
//   VisitDType(DType::kS8, [](auto tag) { using T = typename decltype(tag)::type; ... });
#ifndef AXE_PALLAS_DTYPE_H_
#define AXE_PALLAS_DTYPE_H_

#include <cstdint>
#include <limits>
#include <type_traits>

#include "axe/base/check.h"
#include "axe/base/dtype.h"

namespace axe::pallas {

using ::axe::DType;

// True for the types arrays can hold: pred (bool), s8..s64, u8..u64, f32, f64.
constexpr bool IsStorable(DType t) {
  switch (t) {
    case DType::kPred:
    case DType::kS8:
    case DType::kS16:
    case DType::kS32:
    case DType::kS64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kF32:
    case DType::kF64: return true;
    default: return false;
  }
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
AXE_PALLAS_DTYPE_TRAIT_(bool, DType::kPred);
AXE_PALLAS_DTYPE_TRAIT_(int8_t, DType::kS8);
AXE_PALLAS_DTYPE_TRAIT_(int16_t, DType::kS16);
AXE_PALLAS_DTYPE_TRAIT_(int32_t, DType::kS32);
AXE_PALLAS_DTYPE_TRAIT_(int64_t, DType::kS64);
AXE_PALLAS_DTYPE_TRAIT_(uint8_t, DType::kU8);
AXE_PALLAS_DTYPE_TRAIT_(uint16_t, DType::kU16);
AXE_PALLAS_DTYPE_TRAIT_(uint32_t, DType::kU32);
AXE_PALLAS_DTYPE_TRAIT_(uint64_t, DType::kU64);
AXE_PALLAS_DTYPE_TRAIT_(float, DType::kF32);
AXE_PALLAS_DTYPE_TRAIT_(double, DType::kF64);
#undef AXE_PALLAS_DTYPE_TRAIT_

template <typename T>
inline constexpr DType DTypeOf = DTypeTraits<std::remove_cv_t<T>>::kDType;

// The value interpret mode fills outputs and padding with (JAX's HLO interpreter): NaN for
// floating types, the minimum for integers (0 for unsigned), false for bool, and 0 for int16
// (JAX's interpreter treats int16 buffers as semaphores, which start at 0).
template <typename T>
constexpr T UninitializedValue() {
  if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::quiet_NaN();
  } else if constexpr (std::is_same_v<T, int16_t>) {
    return 0;
  } else {
    return std::numeric_limits<T>::lowest();
  }
}

// Calls f(std::type_identity<T>{}) with the C++ type of a storable dtype and returns its
// result. Requires IsStorable(t) (checked).
template <typename F>
decltype(auto) VisitDType(DType t, F&& f) {
  switch (t) {
    case DType::kPred: return f(std::type_identity<bool>{});
    case DType::kS8: return f(std::type_identity<int8_t>{});
    case DType::kS16: return f(std::type_identity<int16_t>{});
    case DType::kS32: return f(std::type_identity<int32_t>{});
    case DType::kS64: return f(std::type_identity<int64_t>{});
    case DType::kU8: return f(std::type_identity<uint8_t>{});
    case DType::kU16: return f(std::type_identity<uint16_t>{});
    case DType::kU32: return f(std::type_identity<uint32_t>{});
    case DType::kU64: return f(std::type_identity<uint64_t>{});
    case DType::kF32: return f(std::type_identity<float>{});
    case DType::kF64: return f(std::type_identity<double>{});
    default: break;
  }
  AXE_CHECK(false) << "VisitDType: " << NumpyName(t) << " has no C++ element type";
  return f(std::type_identity<float>{});  // not reached
}

}  // namespace axe::pallas

#endif  // AXE_PALLAS_DTYPE_H_
