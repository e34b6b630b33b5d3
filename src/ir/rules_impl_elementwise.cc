// Impl rules of the elementwise primitives: binary arithmetic (integers wrap, division
// truncates, x / 0 is -1 as XLA's), unary math, comparisons; rank-0 and size-1 operands
// broadcast as the abstract rule allows.
#include <algorithm>
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
using BinaryFn = std::function<double(double, double, DType)>;
using UnaryFn = std::function<double(double, DType)>;

// Wrapping integer arithmetic on two's complement 64-bit values.
// A value of an integer type as int64 (u64 values past 2^63 keep their bits).
int64_t I(double v) { return AsInt64(v); }
uint64_t U(double v) { return static_cast<uint64_t>(AsInt64(v)); }

double IntDiv(double a, double b, DType t) {
  if (b == 0) return IsSignedIntegral(t) ? -1.0 : RoundToDType(-1.0, t);
  if (IsSignedIntegral(t) && b == -1) return IntegerFromBits(0 - U(a), t);
  if (IsUnsignedIntegral(t)) {
    return static_cast<double>(static_cast<uint64_t>(I(a)) / static_cast<uint64_t>(I(b)));
  }
  return static_cast<double>(I(a) / I(b));
}

double IntPow(double a, double b, DType t) {
  int64_t e = I(b);
  if (e < 0) return a == 1 ? 1 : (a == -1 ? (e % 2 == 0 ? 1 : -1) : 0);
  return IntegerFromBits(WrappingPow(static_cast<uint64_t>(I(a)), static_cast<uint64_t>(e)), t);
}

double MaxNan(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b); }
double MinNan(double a, double b) { return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b); }

BinaryFn Arith(char op) {
  return [op](double a, double b, DType t) -> double {
    bool integral = IsIntegral(t);
    switch (op) {
      // Integers wrap on their bits in their own width, before any double sees the result.
      case '+': return integral ? IntegerFromBits(U(a) + U(b), t) : a + b;
      case '-': return integral ? IntegerFromBits(U(a) - U(b), t) : a - b;
      case '*': return integral ? IntegerFromBits(U(a) * U(b), t) : a * b;
      case '/': return integral ? IntDiv(a, b, t) : a / b;
      case '^': return integral ? IntPow(a, b, t) : std::pow(a, b);
      case '>': return MaxNan(a, b);
      default: return MinNan(a, b);
    }
  };
}

BinaryFn Compare(std::function<bool(double, double)> cmp) {
  return [cmp](double a, double b, DType) { return cmp(a, b) ? 1.0 : 0.0; };
}

ImplRule BinaryImpl(const Primitive& prim, BinaryFn fn) {
  return [&prim, fn](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    DType in_type = args[0].aval.dtype();
    std::vector<int64_t> index(aval.rank(), 0);
    for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
      double v =
          fn(BroadcastElementAt(args[0], index), BroadcastElementAt(args[1], index), in_type);
      out.values[i] = RoundToDType(v, aval.dtype());
    }
    return OneArray(std::move(out));
  };
}

double Sign(double v, DType t) {
  if (std::isnan(v) || v == 0) return v;
  (void)t;
  return v > 0 ? 1.0 : -1.0;
}

ImplRule UnaryImpl(const Primitive& prim, UnaryFn fn) {
  return [&prim, fn](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
    for (size_t i = 0; i < out.values.size(); ++i) {
      out.values[i] = RoundToDType(fn(args[0].values[i], aval.dtype()), aval.dtype());
    }
    return OneArray(std::move(out));
  };
}

UnaryFn Math(double (*fn)(double)) {
  return [fn](double v, DType) { return fn(v); };
}

}  // namespace

void RegisterElementwiseImpls(const BuiltinPrimitives& p) {
  RegisterMoreImpls(p);
  RegisterImpl(*p.add, BinaryImpl(*p.add, Arith('+')));
  RegisterImpl(*p.sub, BinaryImpl(*p.sub, Arith('-')));
  RegisterImpl(*p.mul, BinaryImpl(*p.mul, Arith('*')));
  RegisterImpl(*p.div, BinaryImpl(*p.div, Arith('/')));
  RegisterImpl(*p.pow, BinaryImpl(*p.pow, Arith('^')));
  RegisterImpl(*p.max, BinaryImpl(*p.max, Arith('>')));
  RegisterImpl(*p.min, BinaryImpl(*p.min, Arith('<')));
  RegisterImpl(*p.eq, BinaryImpl(*p.eq, Compare(std::equal_to<double>())));
  RegisterImpl(*p.ne, BinaryImpl(*p.ne, Compare(std::not_equal_to<double>())));
  RegisterImpl(*p.lt, BinaryImpl(*p.lt, Compare(std::less<double>())));
  RegisterImpl(*p.le, BinaryImpl(*p.le, Compare(std::less_equal<double>())));
  RegisterImpl(*p.gt, BinaryImpl(*p.gt, Compare(std::greater<double>())));
  RegisterImpl(*p.ge, BinaryImpl(*p.ge, Compare(std::greater_equal<double>())));
  RegisterImpl(*p.neg, UnaryImpl(*p.neg, [](double v, DType t) {
    return IsIntegral(t) ? IntegerFromBits(0 - U(v), t) : -v;
  }));
  RegisterImpl(*p.abs, UnaryImpl(*p.abs, [](double v, DType t) {
    return IsIntegral(t) && v < 0 ? IntegerFromBits(0 - U(v), t) : std::fabs(v);
  }));
  RegisterImpl(*p.sign, UnaryImpl(*p.sign, Sign));
  RegisterImpl(*p.sin, UnaryImpl(*p.sin, Math(std::sin)));
  RegisterImpl(*p.cos, UnaryImpl(*p.cos, Math(std::cos)));
  RegisterImpl(*p.exp, UnaryImpl(*p.exp, Math(std::exp)));
  RegisterImpl(*p.log, UnaryImpl(*p.log, Math(std::log)));
  RegisterImpl(*p.tanh, UnaryImpl(*p.tanh, Math(std::tanh)));
  RegisterImpl(*p.sqrt, UnaryImpl(*p.sqrt, Math(std::sqrt)));
}

}  // namespace axe::ir::internal
