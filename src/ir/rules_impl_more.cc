// Impl rules of the primitives added after the first set (primitives.h, "more"): elementwise
// rem, add_any, and/or/not, integer_pow, square, rsqrt, log1p, logistic, is_finite, round,
// clamp, stop_gradient; argmax/argmin and the logical and cumulative reductions
// (rules_impl_cumulative.cc; reduce_min and reduce_prod fold with reduce_sum in
// rules_impl_shape.cc). The custom calls run through the interpreter (rules_impl_calls.cc).
#include <cmath>
#include <cstdint>
#include <functional>

#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Impl = absl::StatusOr<std::vector<HostArray>>;
using Fn = std::function<double(absl::Span<const double> operands, DType in, const Params&)>;

// An n-ary elementwise impl: `fn` on the operands' elements (x's dtype is the last operand's
// for clamp, the first's otherwise).
ImplRule ElementwiseImpl(const Primitive& prim, Fn fn, size_t typed_operand = 0) {
  return
      [&prim, fn, typed_operand](absl::Span<const HostArray> args, const Params& params) -> Impl {
        AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
        AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
        DType in = args[typed_operand].aval.dtype();
        std::vector<double> operands(args.size());
        std::vector<int64_t> index(aval.rank(), 0);
        for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
          for (size_t k = 0; k < args.size(); ++k) operands[k] = BroadcastElementAt(args[k], index);
          out.values[i] = RoundToDType(fn(operands, in, params), aval.dtype());
        }
        return OneArray(std::move(out));
      };
}

// XLA's remainder: the sign of the dividend; x rem 0 is x for integers.
double RemValue(absl::Span<const double> v, DType t, const Params&) {
  if (!IsIntegral(t)) return std::fmod(v[0], v[1]);
  if (v[1] == 0) return v[0];
  if (IsUnsignedIntegral(t)) {
    return static_cast<double>(static_cast<uint64_t>(AsInt64(v[0])) %
                               static_cast<uint64_t>(AsInt64(v[1])));
  }
  if (v[1] == -1) return 0;
  return static_cast<double>(AsInt64(v[0]) % AsInt64(v[1]));
}

Fn BitwiseFn(char op) {
  return [op](absl::Span<const double> v, DType t, const Params&) -> double {
    if (t == DType::kPred) {
      bool a = v[0] != 0, b = v.size() > 1 && v[1] != 0;
      return op == '&' ? (a && b) : op == '|' ? (a || b) : !a;
    }
    uint64_t a = static_cast<uint64_t>(AsInt64(v[0])),
             b = v.size() > 1 ? static_cast<uint64_t>(AsInt64(v[1])) : 0;
    uint64_t r = op == '&' ? (a & b) : op == '|' ? (a | b) : ~a;
    if (IsUnsignedIntegral(t)) return static_cast<double>(r & UnsignedMask(t));
    return static_cast<double>(static_cast<int64_t>(r));
  };
}

// x ** y for an integer constant y (wrapping for integers; 1 / x**-y for negative y).
double IntegerPowValue(absl::Span<const double> v, DType t, const Params& params) {
  auto it = params.find("y");
  int64_t y = 0;
  if (it != params.end()) y = it->second.AsInt("y").value_or(0);
  if (!IsIntegral(t)) {
    // As XLA expands it: square and multiply in the type, rounding after every product.
    const bool invert = y < 0;
    uint64_t e = invert ? 0 - static_cast<uint64_t>(y) : static_cast<uint64_t>(y);
    double result = 1, base = v[0];
    for (; e > 0; e >>= 1) {
      if ((e & 1) != 0) result = RoundToDType(result * base, t);
      base = RoundToDType(base * base, t);
    }
    return invert ? 1 / result : result;
  }
  if (y < 0) return 0;  // typing forbids it for integers in JAX; a defined value here
  return IntegerFromBits(
      WrappingPow(static_cast<uint64_t>(AsInt64(v[0])), static_cast<uint64_t>(y)), t);
}

double RoundValue(absl::Span<const double> v, DType, const Params& params) {
  auto it = params.find("rounding_method");
  int64_t method = 0;
  if (it != params.end()) method = it->second.AsInt("rounding_method").value_or(0);
  if (method == 0) return std::round(v[0]);  // away from zero; keeps the sign of a zero
  // To nearest even (the default rounding mode); a result of zero keeps x's sign, so
  // round(-0.3) is -0.0 as in XLA.
  return std::copysign(std::nearbyint(v[0]), v[0]);
}

double ClampValue(absl::Span<const double> v, DType, const Params&) {
  if (std::isnan(v[0]) || std::isnan(v[1]) || std::isnan(v[2])) return NAN;
  return std::min(std::max(v[1], v[0]), v[2]);
}

Fn MathFn(double (*fn)(double)) {
  return [fn](absl::Span<const double> v, DType, const Params&) { return fn(v[0]); };
}

double LogisticValue(double x) { return 1 / (1 + std::exp(-x)); }
double RsqrtValue(double x) { return 1 / std::sqrt(x); }
double IdentityValue(double x) { return x; }
double Log1pValue(double x) { return std::log1p(x); }
double FloorValue(double x) { return std::floor(x); }
double CeilValue(double x) { return std::ceil(x); }
double IsFiniteValue(double x) { return std::isfinite(x) ? 1 : 0; }

double SquareValue(absl::Span<const double> v, DType t, const Params&) {
  if (!IsIntegral(t)) return v[0] * v[0];
  uint64_t a = static_cast<uint64_t>(AsInt64(v[0]));
  return IntegerFromBits(a * a, t);
}

double AddAnyValue(absl::Span<const double> v, DType t, const Params&) {
  if (!IsIntegral(t)) return v[0] + v[1];
  uint64_t s = static_cast<uint64_t>(AsInt64(v[0])) + static_cast<uint64_t>(AsInt64(v[1]));
  return IntegerFromBits(s, t);
}

}  // namespace

void RegisterReductionImpls(const BuiltinPrimitives& p);

void RegisterMoreImpls(const BuiltinPrimitives& p) {
  RegisterImpl(*p.rem, ElementwiseImpl(*p.rem, RemValue));
  RegisterImpl(*p.add_any, ElementwiseImpl(*p.add_any, AddAnyValue));
  RegisterImpl(*p.and_, ElementwiseImpl(*p.and_, BitwiseFn('&')));
  RegisterImpl(*p.or_, ElementwiseImpl(*p.or_, BitwiseFn('|')));
  RegisterImpl(*p.not_, ElementwiseImpl(*p.not_, BitwiseFn('~')));
  RegisterImpl(*p.integer_pow, ElementwiseImpl(*p.integer_pow, IntegerPowValue));
  RegisterImpl(*p.square, ElementwiseImpl(*p.square, SquareValue));
  RegisterImpl(*p.rsqrt, ElementwiseImpl(*p.rsqrt, MathFn(RsqrtValue)));
  RegisterImpl(*p.log1p, ElementwiseImpl(*p.log1p, MathFn(Log1pValue)));
  RegisterImpl(*p.logistic, ElementwiseImpl(*p.logistic, MathFn(LogisticValue)));
  RegisterImpl(*p.is_finite, ElementwiseImpl(*p.is_finite, MathFn(IsFiniteValue)));
  RegisterImpl(*p.round, ElementwiseImpl(*p.round, RoundValue));
  RegisterImpl(*p.floor, ElementwiseImpl(*p.floor, MathFn(FloorValue)));
  RegisterImpl(*p.ceil, ElementwiseImpl(*p.ceil, MathFn(CeilValue)));
  RegisterImpl(*p.clamp, ElementwiseImpl(*p.clamp, ClampValue, 1));
  RegisterImpl(*p.stop_gradient, ElementwiseImpl(*p.stop_gradient, MathFn(IdentityValue)));
  RegisterReductionImpls(p);
}

ImplRule ElementwiseImplRule(const Primitive& prim, ElementFn fn) {
  return ElementwiseImpl(prim, std::move(fn));
}

}  // namespace axe::ir::internal
