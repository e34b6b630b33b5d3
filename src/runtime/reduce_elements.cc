#include "axe/runtime/reduce_elements.h"

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstring>
#include <type_traits>

#include "absl/strings/str_cat.h"
#include "axe/relayout/element_value.h"

namespace axe::runtime {

using relayout::RoundToBF16Bits;
using relayout::RoundToF16Bits;

namespace {

constexpr int64_t kChunk = 512;

template <ReduceOp kOp, typename A>
A Combine(A a, A b) {
  if constexpr (std::is_integral_v<A>) {
    using U = std::make_unsigned_t<A>;
    if constexpr (kOp == ReduceOp::kSum) {
      return static_cast<A>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
    } else if constexpr (kOp == ReduceOp::kMax) {
      return std::max(a, b);
    } else {
      return std::min(a, b);
    }
  } else {
    if constexpr (kOp == ReduceOp::kSum) {
      return a + b;
    } else {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
      if constexpr (kOp == ReduceOp::kMax) return a < b ? b : a;
      return b < a ? b : a;
    }
  }
}

// Storage type T, accumulator A; Load: T -> A, Store: A -> T. In chunks that stay in the L1
// cache: the first input loaded, every other one combined in input order (the op is a
// template argument so that the inner loops vectorize).
template <ReduceOp kOp, typename T, typename A, typename Load, typename Store>
void FoldOp(absl::Span<const uint8_t* const> inputs, int64_t elements, uint8_t* out, Load load,
            Store store) {
  constexpr auto kSize = static_cast<int64_t>(sizeof(T));
  A acc[kChunk];
  for (int64_t base = 0; base < elements; base += kChunk) {
    const int64_t n = std::min(kChunk, elements - base);
    const uint8_t* first = inputs[0] + base * kSize;
    for (int64_t i = 0; i < n; ++i) {
      T v;
      std::memcpy(&v, first + i * kSize, sizeof(T));
      acc[i] = load(v);
    }
    for (size_t k = 1; k < inputs.size(); ++k) {
      const uint8_t* in = inputs[k] + base * kSize;
      for (int64_t i = 0; i < n; ++i) {
        T v;
        std::memcpy(&v, in + i * kSize, sizeof(T));
        acc[i] = Combine<kOp, A>(acc[i], load(v));
      }
    }
    for (int64_t i = 0; i < n; ++i) {
      T v = store(acc[i]);
      std::memcpy(out + (base + i) * kSize, &v, sizeof(T));
    }
  }
}

template <typename T, typename A, typename Load, typename Store>
void Fold(ReduceOp op, absl::Span<const uint8_t* const> inputs, int64_t elements, uint8_t* out,
          Load load, Store store) {
  switch (op) {
    case ReduceOp::kSum: return FoldOp<ReduceOp::kSum, T, A>(inputs, elements, out, load, store);
    case ReduceOp::kMax: return FoldOp<ReduceOp::kMax, T, A>(inputs, elements, out, load, store);
    case ReduceOp::kMin: return FoldOp<ReduceOp::kMin, T, A>(inputs, elements, out, load, store);
  }
}

template <typename T>
void FoldNative(ReduceOp op, absl::Span<const uint8_t* const> inputs, int64_t elements,
                uint8_t* out) {
  Fold<T, T>(
      op, inputs, elements, out, [](T v) { return v; }, [](T v) { return v; });
}

// Complex sums: the real and imaginary parts are summed as 2n independent elements.
template <typename F>
void FoldComplexSum(absl::Span<const uint8_t* const> inputs, int64_t elements, uint8_t* out) {
  FoldNative<F>(ReduceOp::kSum, inputs, elements * 2, out);
}

void FoldPred(ReduceOp op, absl::Span<const uint8_t* const> inputs, int64_t elements,
              uint8_t* out) {
  const bool all = op == ReduceOp::kMin;
  for (int64_t i = 0; i < elements; ++i) {
    bool r = all;
    for (const uint8_t* in : inputs) r = all ? (r && in[i] != 0) : (r || in[i] != 0);
    out[i] = r ? 1 : 0;
  }
}

}  // namespace

absl::string_view ReduceOpName(ReduceOp op) {
  switch (op) {
    case ReduceOp::kSum: return "sum";
    case ReduceOp::kMax: return "max";
    case ReduceOp::kMin: return "min";
  }
  return "?";
}

float F16BitsToFloat(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  const uint32_t mantissa = bits & 0x3ffu;
  float magnitude;
  if (exponent == 0) {
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);  // zero and subnormals
  } else if (exponent == 31) {
    uint32_t f = 0x7f800000u | (mantissa << 13);  // infinity, NaN (payload kept)
    std::memcpy(&magnitude, &f, 4);
  } else {
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u), static_cast<int>(exponent) - 25);
  }
  uint32_t f;
  std::memcpy(&f, &magnitude, 4);
  f |= sign;
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

float BF16BitsToFloat(uint16_t bits) {
  uint32_t f = static_cast<uint32_t>(bits) << 16;
  float out;
  std::memcpy(&out, &f, 4);
  return out;
}

absl::Status CheckReduction(ReduceOp op, DType type) {
  switch (type) {
    case DType::kPred:
    case DType::kS8:
    case DType::kS16:
    case DType::kS32:
    case DType::kS64:
    case DType::kU8:
    case DType::kU16:
    case DType::kU32:
    case DType::kU64:
    case DType::kF16:
    case DType::kBF16:
    case DType::kF32:
    case DType::kF64: return absl::OkStatus();
    case DType::kC64:
    case DType::kC128:
      if (op == ReduceOp::kSum) return absl::OkStatus();
      return absl::UnimplementedError(absl::StrCat("a ", ReduceOpName(op), " reduction of ",
                                                   XlaName(type),
                                                   ": complex values have no order"));
    default:
      return absl::UnimplementedError(absl::StrCat("a ", ReduceOpName(op), " reduction of ",
                                                   XlaName(type), " is not supported yet"));
  }
}

absl::Status ReduceElements(ReduceOp op, DType type, absl::Span<const uint8_t* const> inputs,
                            int64_t elements, uint8_t* out) {
  if (absl::Status s = CheckReduction(op, type); !s.ok()) return s;
  if (inputs.empty()) return absl::InvalidArgumentError("a reduction of no inputs");
  switch (type) {
    case DType::kPred: FoldPred(op, inputs, elements, out); break;
    case DType::kS8: FoldNative<int8_t>(op, inputs, elements, out); break;
    case DType::kS16: FoldNative<int16_t>(op, inputs, elements, out); break;
    case DType::kS32: FoldNative<int32_t>(op, inputs, elements, out); break;
    case DType::kS64: FoldNative<int64_t>(op, inputs, elements, out); break;
    case DType::kU8: FoldNative<uint8_t>(op, inputs, elements, out); break;
    case DType::kU16: FoldNative<uint16_t>(op, inputs, elements, out); break;
    case DType::kU32: FoldNative<uint32_t>(op, inputs, elements, out); break;
    case DType::kU64: FoldNative<uint64_t>(op, inputs, elements, out); break;
    case DType::kF32: FoldNative<float>(op, inputs, elements, out); break;
    case DType::kF64: FoldNative<double>(op, inputs, elements, out); break;
    case DType::kF16:
      Fold<uint16_t, float>(op, inputs, elements, out, F16BitsToFloat,
                            [](float v) { return RoundToF16Bits(v); });
      break;
    case DType::kBF16:
      Fold<uint16_t, float>(op, inputs, elements, out, BF16BitsToFloat,
                            [](float v) { return RoundToBF16Bits(v); });
      break;
    case DType::kC64: FoldComplexSum<float>(inputs, elements, out); break;
    case DType::kC128: FoldComplexSum<double>(inputs, elements, out); break;
    default: break;  // refused by CheckReduction
  }
  return absl::OkStatus();
}

}  // namespace axe::runtime
