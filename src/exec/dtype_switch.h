// The executor's element types (internal to src/exec): one C++ type per dtype it holds, and a
// switch from a runtime DType to a template instantiation.
//
//   DispatchDType(dtype, [&](auto tag) { using T = typename decltype(tag)::type; ... });
//
// f16 and bf16 are Eigen::half and Eigen::bfloat16 (their 16 bits; conversions round to
// nearest even); arithmetic on them runs in float and rounds back after every operation, as
// XLA:CPU does.
#ifndef AXE_SRC_EXEC_DTYPE_SWITCH_H_
#define AXE_SRC_EXEC_DTYPE_SWITCH_H_

#include <cmath>
#include <cstdint>
#include <type_traits>

#include "Eigen/Core"
#include "axe/base/check.h"
#include "axe/base/dtype.h"
#include "axe/exec/value.h"

namespace axe::exec {

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename T>
inline constexpr bool kIsHalf =
    std::is_same_v<T, Eigen::half> || std::is_same_v<T, Eigen::bfloat16>;

// The type arithmetic on T runs in.
template <typename T>
using ComputeType = std::conditional_t<kIsHalf<T>, float, T>;

template <typename Fn>
void DispatchDType(DType dtype, Fn&& fn) {
  switch (dtype) {
    case DType::kPred: return fn(TypeTag<bool>{});
    case DType::kS8: return fn(TypeTag<int8_t>{});
    case DType::kS16: return fn(TypeTag<int16_t>{});
    case DType::kS32: return fn(TypeTag<int32_t>{});
    case DType::kS64: return fn(TypeTag<int64_t>{});
    case DType::kU8: return fn(TypeTag<uint8_t>{});
    case DType::kU16: return fn(TypeTag<uint16_t>{});
    case DType::kU32: return fn(TypeTag<uint32_t>{});
    case DType::kU64: return fn(TypeTag<uint64_t>{});
    case DType::kF16: return fn(TypeTag<Eigen::half>{});
    case DType::kBF16: return fn(TypeTag<Eigen::bfloat16>{});
    case DType::kF32: return fn(TypeTag<float>{});
    case DType::kF64: return fn(TypeTag<double>{});
    // A PRNG key's two u32 words, moved and compared as one 64-bit value (the typing rules
    // allow no arithmetic on keys).
    case DType::kKeyFry: return fn(TypeTag<uint64_t>{});
    default: break;
  }
  AXE_CHECK(false) << "DispatchDType: the executor does not hold " << dtype;
}

// A dtype the executor holds (DispatchDType's cases): the types ElementBytes sizes.
inline bool IsHeld(DType dtype) { return ElementBytes(dtype).ok(); }

template <typename T>
double ToDouble(T v) {
  if constexpr (kIsHalf<T>) {
    return static_cast<double>(static_cast<float>(v));
  } else {
    return static_cast<double>(v);
  }
}

// `v` is already a value of T (the interpreter rounded it): integers go through their 64-bit
// two's complement bits, so u64 values past 2^63 keep them.
template <typename T>
T FromDouble(double v) {
  if constexpr (std::is_same_v<T, bool>) {
    return v != 0;
  } else if constexpr (kIsHalf<T>) {
    return T(static_cast<float>(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else if constexpr (std::is_unsigned_v<T>) {
    if (v >= 0x1p63) return static_cast<T>(static_cast<uint64_t>(v));
    return static_cast<T>(static_cast<uint64_t>(static_cast<int64_t>(v)));
  } else {
    return static_cast<T>(static_cast<int64_t>(v));
  }
}

}  // namespace axe::exec

#endif  // AXE_SRC_EXEC_DTYPE_SWITCH_H_
