// Impl rules of argmax / argmin, the logical reductions (reduce_or, reduce_and, reduce_xor) and
// the cumulative reductions (cumsum, cumprod, cummax, cummin, cumlogsumexp along `axis`, from
// the end when `reverse`). reduce_sum, reduce_prod, reduce_max and reduce_min: rules_impl_shape.cc.
#include <cmath>
#include <cstdint>
#include <limits>

#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Impl = absl::StatusOr<std::vector<HostArray>>;

// reduce_or / reduce_and / reduce_xor ('|', '&', '^'): bitwise over an integer type's bits,
// logical over bool; an empty reduction gives the identity (0, all ones, 0).
ImplRule LogicalReduceImpl(const Primitive& prim, char op) {
  return [&prim, op](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, prim.name(), "axes"));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    const DType t = aval.dtype();
    std::vector<uint64_t> acc(out.values.size(), op == '&' ? ~uint64_t{0} : 0);
    const std::vector<int64_t> at = ReducedPositions(args[0], axes);
    for (size_t i = 0; i < at.size(); ++i) {
      const double v = args[0].values[i];
      const uint64_t bits = t == DType::kPred ? (v != 0) : static_cast<uint64_t>(AsInt64(v));
      uint64_t& a = acc[static_cast<size_t>(at[i])];
      a = op == '|' ? (a | bits) : op == '&' ? (a & bits) : (a ^ bits);
    }
    for (size_t o = 0; o < acc.size(); ++o) {
      if (t == DType::kPred) {
        out.values[o] = static_cast<double>(acc[o] & 1);
      } else if (IsUnsignedIntegral(t)) {
        out.values[o] = static_cast<double>(acc[o] & UnsignedMask(t));
      } else {  // sign-extended operands give a sign-extended result
        out.values[o] = static_cast<double>(static_cast<int64_t>(acc[o]));
      }
    }
    return OneArray(std::move(out));
  };
}

// The index of the first maximum (minimum) along the axis; a NaN counts as the extreme.
ImplRule ArgImpl(const Primitive& prim, bool is_max) {
  return [&prim, is_max](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, prim.name(), "axes"));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    std::vector<double> best(out.values.size(), 0);
    std::vector<bool> seen(out.values.size(), false);
    const ShapedArray& x = args[0].aval;
    size_t axis = static_cast<size_t>(axes[0]);
    std::vector<int64_t> at = ReducedPositions(args[0], axes);
    std::vector<int64_t> index(x.rank(), 0);
    for (size_t i = 0; i < at.size(); ++i, NextIndex(index, x.shape())) {
      size_t o = static_cast<size_t>(at[i]);
      double v = args[0].values[i];
      bool take = !seen[o] ||
                  (!std::isnan(best[o]) && (std::isnan(v) || (is_max ? v > best[o] : v < best[o])));
      if (take) {
        seen[o] = true;
        best[o] = v;
        out.values[o] = static_cast<double>(index[axis]);
      }
    }
    return OneArray(std::move(out));
  };
}

enum class Cum { kSum, kProd, kMax, kMin, kLogSumExp };

double Combine(Cum op, double acc, double v, DType t) {
  switch (op) {
    case Cum::kSum: return RoundToDType(acc + v, t);
    case Cum::kProd: return RoundToDType(acc * v, t);
    case Cum::kMax: return std::isnan(acc) || std::isnan(v) ? NAN : std::max(acc, v);
    case Cum::kMin: return std::isnan(acc) || std::isnan(v) ? NAN : std::min(acc, v);
    case Cum::kLogSumExp: {
      if (std::isnan(acc) || std::isnan(v)) return NAN;
      double m = std::max(acc, v);
      if (m == -HUGE_VAL) return -HUGE_VAL;
      if (m == HUGE_VAL) return HUGE_VAL;
      return RoundToDType(m + std::log1p(std::exp(std::min(acc, v) - m)), t);
    }
  }
  return v;
}

ImplRule CumulativeImpl(const Primitive& prim, Cum op) {
  return [&prim, op](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, prim.name(), "axis"));
    bool reverse = false;
    if (auto it = params.find("reverse"); it != params.end()) {
      AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
    }
    HostArray out{aval, args[0].values};
    const std::vector<int64_t>& shape = aval.shape();
    int64_t n = shape[static_cast<size_t>(axis)];
    int64_t inner = 1, outer = 1;
    for (size_t d = 0; d < shape.size(); ++d) {
      if (static_cast<int64_t>(d) < axis) outer *= shape[d];
      if (static_cast<int64_t>(d) > axis) inner *= shape[d];
    }
    // Integer sums and products run in 64-bit accumulators: exact two's complement wrap-around.
    const DType t = aval.dtype();
    const bool wrap = IsIntegral(t) && (op == Cum::kSum || op == Cum::kProd);
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t in = 0; in < inner; ++in) {
        uint64_t run = 0;
        for (int64_t k = 0; k < n; ++k) {
          int64_t cur = reverse ? n - 1 - k : k, prev = reverse ? cur + 1 : cur - 1;
          size_t c = static_cast<size_t>((o * n + cur) * inner + in);
          if (wrap) {
            const uint64_t v = static_cast<uint64_t>(AsInt64(out.values[c]));
            run = k == 0 ? v : (op == Cum::kSum ? run + v : run * v);
            out.values[c] = IntegerFromBits(run, t);
          } else if (k > 0) {
            size_t p = static_cast<size_t>((o * n + prev) * inner + in);
            out.values[c] = Combine(op, out.values[p], out.values[c], t);
          }
        }
      }
    }
    for (double& v : out.values) v = RoundToDType(v, aval.dtype());
    return OneArray(std::move(out));
  };
}

}  // namespace

void RegisterReductionImpls(const BuiltinPrimitives& p) {
  RegisterImpl(*p.argmax, ArgImpl(*p.argmax, true));
  RegisterImpl(*p.argmin, ArgImpl(*p.argmin, false));
  RegisterImpl(*p.reduce_or, LogicalReduceImpl(*p.reduce_or, '|'));
  RegisterImpl(*p.reduce_and, LogicalReduceImpl(*p.reduce_and, '&'));
  RegisterImpl(*p.reduce_xor, LogicalReduceImpl(*p.reduce_xor, '^'));
  RegisterImpl(*p.cumsum, CumulativeImpl(*p.cumsum, Cum::kSum));
  RegisterImpl(*p.cumprod, CumulativeImpl(*p.cumprod, Cum::kProd));
  RegisterImpl(*p.cummax, CumulativeImpl(*p.cummax, Cum::kMax));
  RegisterImpl(*p.cummin, CumulativeImpl(*p.cummin, Cum::kMin));
  RegisterImpl(*p.cumlogsumexp, CumulativeImpl(*p.cumlogsumexp, Cum::kLogSumExp));
}

}  // namespace axe::ir::internal
