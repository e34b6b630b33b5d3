// reduce_precision on each float's own bits (base/numerics.h's ReducePrecisionBits), so the
// result is XLA's whatever the thread's float mode: a denormal kept by the operand's own
// precision stays, as in XLA, where the executor otherwise flushes denormals. NaN stays NaN.
#include <cstdint>
#include <cstring>

#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

struct FloatBits {
  int exponent = 0, mantissa = 0;
};

// The exponent and mantissa widths of a float dtype; nullopt for other dtypes.
std::optional<FloatBits> BitsOf(DType t) {
  switch (t) {
    case DType::kF16: return FloatBits{5, 10};
    case DType::kBF16: return FloatBits{8, 7};
    case DType::kF32: return FloatBits{8, 23};
    case DType::kF64: return FloatBits{11, 52};
    default: return std::nullopt;
  }
}

template <typename Bits>
void ReduceEach(const std::byte* in, std::byte* out, int64_t n, FloatBits own, int64_t exponent,
                int64_t mantissa) {
  const Bits magnitude_mask = static_cast<Bits>(static_cast<Bits>(~Bits{0}) >> 1);
  const Bits infinity = static_cast<Bits>(((Bits{1} << own.exponent) - 1) << own.mantissa);
  for (int64_t i = 0; i < n; ++i) {
    Bits bits;
    std::memcpy(&bits, in + i * sizeof(Bits), sizeof(Bits));
    if ((bits & magnitude_mask) <= infinity) {  // NaN keeps its bits
      bits = ReducePrecisionBits(bits, own.exponent, own.mantissa, exponent, mantissa);
    }
    std::memcpy(out + i * sizeof(Bits), &bits, sizeof(Bits));
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildReducePrecision(const EqnView& v) {
  const std::optional<FloatBits> own = BitsOf(v.out[0].dtype());
  if (!own || v.in.size() != 1 || v.in[0].dtype() != v.out[0].dtype()) return std::nullopt;
  auto exponent_param = v.eqn.params.find("exponent_bits");
  auto mantissa_param = v.eqn.params.find("mantissa_bits");
  if (exponent_param == v.eqn.params.end() || mantissa_param == v.eqn.params.end()) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(int64_t exponent, exponent_param->second.AsInt("exponent_bits"));
  AXE_ASSIGN_OR_RETURN(int64_t mantissa, mantissa_param->second.AsInt("mantissa_bits"));
  if (exponent < 1 || mantissa < 0) return std::nullopt;  // the typing rule's error
  BuiltKernel k;
  k.description = "reduce_precision";
  const ir::ShapedArray out = v.out[0];
  const int64_t n = NumElements(out);
  k.work = 2 * n;
  const FloatBits bits = *own;
  k.kernel = [out, n, bits, exponent, mantissa](const RunContext& ctx, absl::Span<const Value> in,
                                                std::vector<Value>& res) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(res[0], ctx.Allocate(out));
    const std::byte* x = in[0].bytes();
    std::byte* o = res[0].mutable_bytes();
    switch (bits.exponent + bits.mantissa + 1) {
      case 16: ReduceEach<uint16_t>(x, o, n, bits, exponent, mantissa); break;
      case 32: ReduceEach<uint32_t>(x, o, n, bits, exponent, mantissa); break;
      default: ReduceEach<uint64_t>(x, o, n, bits, exponent, mantissa); break;
    }
    return absl::OkStatus();
  };
  return k;
}

}  // namespace

void AddReducePrecisionKernels(KernelTable& table) {
  table["reduce_precision"] = BuildReducePrecision;
}

}  // namespace axe::exec::internal
