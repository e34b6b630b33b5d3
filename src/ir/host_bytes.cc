#include "axe/ir/host_bytes.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/relayout/element_value.h"
#include "axe/runtime/reduce_elements.h"
#include "eval_util.h"

namespace axe::ir {
namespace {

template <typename T>
double Load(const uint8_t* in) {
  T v;
  std::memcpy(&v, in, sizeof(T));
  return static_cast<double>(v);
}

template <typename T>
void Store(T v, uint8_t* out) {
  std::memcpy(out, &v, sizeof(T));
}

double Decode(const uint8_t* in, DType t) {
  switch (t) {
    case DType::kPred: return in[0] != 0;
    case DType::kS8: return Load<int8_t>(in);
    case DType::kS16: return Load<int16_t>(in);
    case DType::kS32: return Load<int32_t>(in);
    case DType::kS64: return Load<int64_t>(in);
    case DType::kU8: return Load<uint8_t>(in);
    case DType::kU16: return Load<uint16_t>(in);
    case DType::kU32: return Load<uint32_t>(in);
    case DType::kU64: return Load<uint64_t>(in);
    case DType::kF16: {
      uint16_t bits;
      std::memcpy(&bits, in, 2);
      return runtime::F16BitsToFloat(bits);
    }
    case DType::kBF16: {
      uint16_t bits;
      std::memcpy(&bits, in, 2);
      return runtime::BF16BitsToFloat(bits);
    }
    case DType::kF32: return Load<float>(in);
    default: return Load<double>(in);
  }
}

// `v` is rounded to `t` first, so every cast is exact and in range (64-bit integers go
// through ConvertValue, which saturates).
void Encode(double v, DType t, uint8_t* out) {
  v = RoundToDType(v, t);
  switch (t) {
    case DType::kPred: out[0] = v != 0; break;
    case DType::kS8: Store(static_cast<int8_t>(v), out); break;
    case DType::kS16: Store(static_cast<int16_t>(v), out); break;
    case DType::kS32: Store(static_cast<int32_t>(v), out); break;
    case DType::kS64: Store(static_cast<int64_t>(ConvertValue(v, DType::kF64, t)), out); break;
    case DType::kU8: Store(static_cast<uint8_t>(v), out); break;
    case DType::kU16: Store(static_cast<uint16_t>(v), out); break;
    case DType::kU32: Store(static_cast<uint32_t>(v), out); break;
    case DType::kU64: Store(static_cast<uint64_t>(ConvertValue(v, DType::kF64, t)), out); break;
    case DType::kF16: Store(relayout::RoundToF16Bits(v), out); break;
    case DType::kBF16: Store(relayout::RoundToBF16Bits(v), out); break;
    case DType::kF32: Store(static_cast<float>(v), out); break;
    default: Store(v, out); break;
  }
}

}  // namespace

absl::StatusOr<HostArray> HostArrayFromBytes(ShapedArray aval, absl::Span<const uint8_t> bytes) {
  AXE_RETURN_IF_ERROR(internal::CheckEvalDType(aval.dtype()));
  const size_t width = static_cast<size_t>(ByteWidth(aval.dtype()));
  const std::optional<int64_t> elements = aval.NumElements();
  if (!elements || bytes.size() / width != static_cast<size_t>(*elements) ||
      bytes.size() % width != 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a value of type ", aval.ShortString(), " cannot be read from ", bytes.size(), " bytes"));
  }
  HostArray out{std::move(aval), std::vector<double>(static_cast<size_t>(*elements))};
  for (size_t i = 0; i < out.values.size(); ++i) {
    out.values[i] = Decode(bytes.data() + i * width, out.aval.dtype());
  }
  return out;
}

absl::StatusOr<HostArray> HostArrayFromBytesExact(ShapedArray aval,
                                                  absl::Span<const uint8_t> bytes) {
  const DType dtype = aval.dtype();
  AXE_ASSIGN_OR_RETURN(HostArray out, HostArrayFromBytes(std::move(aval), bytes));
  if (dtype != DType::kS64 && dtype != DType::kU64) return out;
  for (size_t i = 0; i < out.values.size(); ++i) {
    int64_t s = 0;
    uint64_t u = 0;
    std::memcpy(&s, bytes.data() + i * 8, 8);
    std::memcpy(&u, bytes.data() + i * 8, 8);
    const bool exact = dtype == DType::kS64 ? FitsDoubleExactly(s) : FitsDoubleExactly(u);
    if (!exact) {
      return absl::InvalidArgumentError(
          absl::StrCat("element ", i, " of ", out.aval.ShortString(), " is ",
                       dtype == DType::kS64 ? absl::StrCat(s) : absl::StrCat(u),
                       ", past 2^53: the interpreter holds ", JaxprName(dtype),
                       " values exactly only up to 2^53"));
    }
  }
  return out;
}

absl::StatusOr<std::vector<uint8_t>> HostArrayToBytes(const HostArray& array) {
  AXE_RETURN_IF_ERROR(internal::CheckEvalDType(array.aval.dtype()));
  const size_t width = static_cast<size_t>(ByteWidth(array.aval.dtype()));
  std::vector<uint8_t> out(array.values.size() * width);
  for (size_t i = 0; i < array.values.size(); ++i) {
    Encode(array.values[i], array.aval.dtype(), out.data() + i * width);
  }
  return out;
}

}  // namespace axe::ir
