// Arrays, indices and result types for the interpreter.
#include "eval_util.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"

namespace axe::ir::internal {

absl::Status CheckEvalDType(DType dtype) {
  switch (dtype) {
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
    case DType::kF64:
    case DType::kKeyFry: return absl::OkStatus();
    default:
      return absl::UnimplementedError(
          absl::StrCat("the interpreter does not evaluate values of dtype ", JaxprName(dtype),
                       " (it holds bool, integers, f16, bf16, f32 and f64)"));
  }
}

absl::StatusOr<HostArray> ZeroArray(const ShapedArray& aval) {
  AXE_RETURN_IF_ERROR(CheckEvalDType(aval.dtype()));
  std::optional<int64_t> n = aval.NumElements();
  if (!n || *n > kMaxEvalElements) {
    return absl::InvalidArgumentError(absl::StrCat("cannot evaluate a value of type ",
                                                   aval.ShortString(), ": more than ",
                                                   kMaxEvalElements, " elements"));
  }
  return HostArray{aval.WithVma({}), std::vector<double>(static_cast<size_t>(*n), 0.0)};
}

std::vector<int64_t> Strides(absl::Span<const int64_t> shape) {
  std::vector<int64_t> strides(shape.size(), 1);
  for (size_t i = shape.size(); i > 1; --i) strides[i - 2] = strides[i - 1] * shape[i - 1];
  return strides;
}

bool NextIndex(std::vector<int64_t>& index, absl::Span<const int64_t> shape) {
  for (size_t i = index.size(); i > 0; --i) {
    if (++index[i - 1] < shape[i - 1]) return true;
    index[i - 1] = 0;
  }
  return false;
}

std::vector<ShapedArray> PlainAvals(absl::Span<const HostArray> args) {
  std::vector<ShapedArray> avals;
  avals.reserve(args.size());
  for (const HostArray& a : args) avals.push_back(a.aval.WithVma({}));
  return avals;
}

absl::StatusOr<ShapedArray> ResultAval(const Primitive& prim, absl::Span<const HostArray> args,
                                       const Params& params) {
  for (const HostArray& a : args) AXE_RETURN_IF_ERROR(CheckEvalDType(a.aval.dtype()));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, AbstractEval(prim, PlainAvals(args), params));
  if (out.size() != 1) {
    return absl::InternalError(absl::StrCat(prim.name(), " has ", out.size(), " results"));
  }
  AXE_RETURN_IF_ERROR(CheckEvalDType(out[0].dtype()));
  return out[0].WithVma({});
}

int64_t AsInt64(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 0x1p63)
    return static_cast<int64_t>(static_cast<uint64_t>(std::min(v, 0x1.fffffffffffffp63)));
  if (v < -0x1p63) return INT64_MIN;
  return static_cast<int64_t>(v);
}

uint64_t UnsignedMask(DType t) {
  int bits = BitWidth(t);
  return bits >= 64 ? ~uint64_t{0} : (uint64_t{1} << bits) - 1;
}

std::vector<int64_t> ReducedPositions(const HostArray& array, const std::vector<int64_t>& axes) {
  const ShapedArray& x = array.aval;
  std::vector<bool> reduced(x.rank(), false);
  for (int64_t a : axes) reduced[static_cast<size_t>(a)] = true;
  std::vector<int64_t> out;
  out.reserve(array.values.size());
  std::vector<int64_t> index(x.rank(), 0);
  for (size_t i = 0; i < array.values.size(); ++i, NextIndex(index, x.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      if (!reduced[d]) flat = flat * x.shape()[d] + index[d];
    }
    out.push_back(flat);
  }
  return out;
}

double IntegerFromBits(uint64_t bits, DType t) {
  const int width = BitWidth(t);
  const uint64_t low = bits & UnsignedMask(t);
  // A 64-bit value past 2^53 rounds to a double; one that would round up to 2^64 (unsigned)
  // or 2^63 (signed), outside the type, stays just below it, so that wrapping a wrapped
  // value (RoundToDType) changes nothing.
  if (IsUnsignedIntegral(t)) return std::min(static_cast<double>(low), std::nextafter(0x1p64, 0.0));
  const bool negative = ((low >> (width - 1)) & 1) != 0;
  if (!negative) return std::min(static_cast<double>(low), std::nextafter(0x1p63, 0.0));
  return -static_cast<double>((UnsignedMask(t) - low) + 1);
}

int64_t ScalarIndex(const HostArray& a) {
  double v = a.values.empty() ? 0.0 : a.values[0];
  if (std::isnan(v)) return 0;
  if (v >= 9.2e18) return int64_t{9200000000000000000};
  if (v <= -9.2e18) return -int64_t{9200000000000000000};
  return static_cast<int64_t>(v);
}

}  // namespace axe::ir::internal
