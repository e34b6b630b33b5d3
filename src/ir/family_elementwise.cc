// The elementwise primitives, with every rule: their definitions (JAX's params and printing),
// typing in JAX's words (lax's broadcasting: rank-0 operands broadcast, equal ranks otherwise,
// equal dtypes), the interpreter's impl (in double, rounded to the result's type; integers
// wrap, division truncates, x / 0 is -1 as XLA's), JAX's JVP rules, the transposes of the
// linear ones and elementwise batching (batch dimensions moved to the front; an unbatched
// operand of rank > 0 gets a size-1 leading dimension, a batched scalar size-1 trailing ones).
//
//   arithmetic   add sub mul div max min pow rem add_any (binary; add_any is linear)
//   unary        neg abs sign (integers too), exp log sin cos tanh sqrt rsqrt log1p logistic
//                (floating point), integer_pow square
//   comparisons  eq ne lt le gt ge (bool results)
//   constant     and or not, is_finite, round floor ceil, stop_gradient (zero tangents)
//   selection    clamp, select_n; convert_element_type (linear)
//
// Sections hold the typing rules, then the impl, JVP, transpose and batching rules; the
// Register functions at the end register each primitive's rules together.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/eval.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"

#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

// NumPy-style broadcasting as lax does it: rank-0 operands (literals such as 2.0:f32[])
// broadcast to any shape; the others have equal ranks and each dimension is equal or 1. Dtypes
// are equal. The result is weak only when every operand is.
absl::StatusOr<ShapedArray> Broadcasting(absl::string_view name,
                                         absl::Span<const ShapedArray> avals,
                                         absl::string_view tip) {
  if (avals.empty()) return TypeError(absl::StrCat(name, " takes at least one operand"));
  std::vector<size_t> ranks;
  for (const ShapedArray& a : avals) {
    if (a.rank() > 0 && std::find(ranks.begin(), ranks.end(), a.rank()) == ranks.end()) {
      ranks.push_back(a.rank());
    }
  }
  std::sort(ranks.begin(), ranks.end());
  if (ranks.size() > 1) {
    std::vector<size_t> all;
    for (const ShapedArray& a : avals) {
      if (std::find(all.begin(), all.end(), a.rank()) == all.end()) all.push_back(a.rank());
    }
    std::sort(all.begin(), all.end());
    return TypeError(absl::StrCat(name, ": arrays must have the same number of dimensions, got {",
                                  absl::StrJoin(all, ", "), "}"));
  }
  std::vector<int64_t> shape(ranks.empty() ? 0 : ranks[0], 1);
  for (const ShapedArray& a : avals) {
    if (a.rank() == 0) continue;
    for (size_t d = 0; d < shape.size(); ++d) {
      int64_t s = a.shape()[d];
      if (s == shape[d] || s == 1) continue;
      if (shape[d] != 1) {
        std::vector<std::string> shapes;
        for (const ShapedArray& b : avals) shapes.push_back(PyTuple(b.shape()));
        return TypeError(absl::StrCat(
            name, " got incompatible shapes for broadcasting: ", absl::StrJoin(shapes, ", "), "."));
      }
      shape[d] = s;
    }
  }
  for (const ShapedArray& a : avals) {
    if (a.dtype() != avals[0].dtype()) {
      std::vector<std::string> names;
      for (const ShapedArray& b : avals) names.push_back(DTypeName(b.dtype()));
      return TypeError(absl::StrCat("lax.", name,
                                    " requires arguments to have the same dtypes, got ",
                                    absl::StrJoin(names, ", "), ".", tip));
    }
  }
  bool weak = true;
  for (const ShapedArray& a : avals) weak = weak && a.weak_type();
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(name, avals));
  return ShapedArray(std::move(shape), avals[0].dtype(), weak, std::move(vma));
}

Rule Arithmetic(std::string name, std::string jnp_name) {
  std::string tip = jnp_name.empty()
                        ? ""
                        : absl::StrCat(" (Tip: jnp.", jnp_name,
                                       " is a similar function that does automatic type "
                                       "promotion on inputs).");
  return [name, tip](absl::Span<const ShapedArray> avals,
                     const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 2));
    for (size_t i = 0; i < avals.size(); ++i) {
      if (!IsKeyType(avals[i].dtype())) continue;
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(avals[i].dtype()),
                                    " at position ", i, ". Accepted dtypes at position ", i,
                                    " are subtypes of integer, complexfloating, floating."));
    }
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, tip));
    return One(std::move(out));
  };
}

// pow: operands of one dtype (integers too: they wrap), or a floating-point or complex base
// with an integer exponent (the result has the base's dtype), as JAX's _pow_dtype_rule.
Rule PowRule() {
  Rule same = Arithmetic("pow", "power");
  return [same](absl::Span<const ShapedArray> avals,
                const Params& params) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity("pow", avals, 2));
    DType x = avals[0].dtype(), y = avals[1].dtype();
    if (x == y) return same(avals, params);
    if (!IsFloatingPoint(x) && !IsComplex(x)) {
      return TypeError(absl::StrCat("pow does not accept dtype ", DTypeName(x),
                                    " at position 0. Accepted dtypes at position 0 are subtypes "
                                    "of floating, complexfloating."));
    }
    if (!IsIntegral(y)) {
      return TypeError(absl::StrCat(
          "the first argument to pow must have an inexact dtype (float or complex), and the "
          "second argument must have an inexact or integer dtype, and two inexact dtypes must "
          "match, but got ",
          DTypeName(x), " and ", DTypeName(y), " respectively."));
    }
    std::vector<ShapedArray> as_base = {avals[0], avals[1].WithDType(x)};
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting("pow", as_base, ""));
    return One(out.WithWeakType(avals[0].weak_type()));
  };
}

Rule Comparison(std::string name) {
  return [name](absl::Span<const ShapedArray> avals,
                const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 2));
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, ""));
    return One(out.WithDType(DType::kPred).WithWeakType(false));
  };
}

// Unary math on floating-point (and, for neg/abs/sign, integer) operands.
Rule UnaryRule(std::string name, bool integers_allowed) {
  return [name, integers_allowed](absl::Span<const ShapedArray> avals,
                                  const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, 1));
    DType t = avals[0].dtype();
    bool ok = IsFloatingPoint(t) || IsComplex(t) || (integers_allowed && IsIntegral(t));
    if (!ok) {
      return TypeError(absl::StrCat(
          name, " does not accept dtype ", DTypeName(t), ". Accepted dtypes are subtypes of ",
          integers_allowed ? "integer, " : "", "floating, complexfloating."));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma(name, avals));
    return One(avals[0].WithVma(std::move(vma)));
  };
}

// and / or / not: booleans or integers.
Rule Bitwise(std::string name, size_t arity) {
  return [name, arity](absl::Span<const ShapedArray> avals,
                       const Params&) -> absl::StatusOr<std::vector<ShapedArray>> {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, arity));
    DType t = avals[0].dtype();
    if (t != DType::kPred && !IsIntegral(t)) {
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(t),
                                    ". Accepted dtypes are subtypes of integer, bool."));
    }
    AXE_ASSIGN_OR_RETURN(ShapedArray out, Broadcasting(name, avals, ""));
    return One(std::move(out));
  };
}

// is_finite: floating-point operand, boolean result.
absl::StatusOr<std::vector<ShapedArray>> IsFiniteRule(absl::Span<const ShapedArray> avals,
                                                      const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out, UnaryRule("is_finite", false)(avals, params));
  return One(out[0].WithDType(DType::kPred).WithWeakType(false));
}

// stop_gradient: any operand, unchanged type.
absl::StatusOr<std::vector<ShapedArray>> IdentityRule(absl::Span<const ShapedArray> avals,
                                                      const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("stop_gradient", avals, 1));
  return One(avals[0]);
}

// clamp(min, x, max): min and max are scalars or shaped like x, all of x's dtype.
absl::StatusOr<std::vector<ShapedArray>> ClampRule(absl::Span<const ShapedArray> avals,
                                                   const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("clamp", avals, 3));
  const ShapedArray& x = avals[1];
  for (size_t i : {0, 2}) {
    const char* which = i == 0 ? "min" : "max";
    if (avals[i].rank() > 0 && avals[i].shape() != x.shape()) {
      return TypeError(absl::StrCat("clamp requires ", which, ".shape == operand.shape or ", which,
                                    ".shape == (), got ", PyTuple(avals[i].shape()), "."));
    }
    if (avals[i].dtype() != x.dtype()) {
      return TypeError(absl::StrCat("lax.clamp requires arguments to have the same dtypes, got ",
                                    DTypeName(avals[0].dtype()), ", ", DTypeName(x.dtype()), ", ",
                                    DTypeName(avals[2].dtype()), "."));
    }
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("clamp", avals));
  return One(x.WithVma(std::move(vma)));
}

using Result = absl::StatusOr<std::vector<ShapedArray>>;

Result ConvertElementType(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("convert_element_type", avals, 1));
  AXE_ASSIGN_OR_RETURN(const Param* t, GetParam(params, "convert_element_type", "new_dtype"));
  AXE_ASSIGN_OR_RETURN(DType dtype, t->AsDType("new_dtype"));
  if (IsKeyType(avals[0].dtype()) != IsKeyType(dtype)) {
    return TypeError(absl::StrCat("Cannot convert_element_type from ", DTypeName(avals[0].dtype()),
                                  " to ", DTypeName(dtype)));
  }
  bool weak = false;
  if (auto it = params.find("weak_type"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(weak, it->second.AsBool("weak_type"));
  }
  return One(avals[0].WithDType(dtype).WithWeakType(weak));
}

Result SelectN(absl::Span<const ShapedArray> avals, const Params&) {
  if (avals.size() < 2) return TypeError("select_n requires at least one case");
  const ShapedArray& which = avals[0];
  if (which.dtype() != DType::kPred && !IsIntegral(which.dtype())) {
    return TypeError(absl::StrCat("select `which` must be boolean or integer type, got ",
                                  DTypeName(which.dtype()), "."));
  }
  if (which.dtype() == DType::kPred && avals.size() > 3) {
    return TypeError(absl::StrCat("select with boolean `which` cannot have > 2 cases, got ",
                                  avals.size() - 1, "."));
  }
  auto cases = avals.subspan(1);
  for (const ShapedArray& c : cases) {
    if (c.shape() != cases[0].shape()) {
      return TypeError(
          absl::StrCat("select cases must have the same shapes, got [", Shapes(cases), "]."));
    }
  }
  for (const ShapedArray& c : cases) {
    if (c.dtype() != cases[0].dtype()) {
      std::vector<std::string> names;
      for (const ShapedArray& d : cases) names.push_back(DTypeName(d.dtype()));
      return TypeError(absl::StrCat("select cases must have the same dtypes, got [",
                                    absl::StrJoin(names, ", "), "]."));
    }
  }
  if (which.rank() != 0 && which.shape() != cases[0].shape()) {
    return TypeError(absl::StrCat(
        "select `which` must be scalar or have the same shape as cases, got `which` shape ",
        PyTuple(which.shape()), " but case shape ", PyTuple(cases[0].shape()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("select_n", avals));
  bool weak = true;
  for (const ShapedArray& c : cases) weak = weak && c.weak_type();
  return One(cases[0].WithVma(std::move(vma)).WithWeakType(weak));
}

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

Impl ConvertImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval,
                       ResultAval(*Builtins().convert_element_type, args, params));
  HostArray out{aval, args[0].values};
  for (double& v : out.values) v = ConvertValue(v, args[0].aval.dtype(), aval.dtype());
  return OneArray(std::move(out));
}

Impl SelectImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().select_n, args, params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  const HostArray& which = args[0];
  int64_t last = static_cast<int64_t>(args.size()) - 2;
  for (size_t i = 0; i < out.values.size(); ++i) {
    double w = which.values[which.aval.rank() == 0 ? 0 : i];
    int64_t c = std::clamp<int64_t>(
        std::isnan(w) ? 0 : static_cast<int64_t>(std::clamp(w, -1.0, 1e9)), 0, last);
    out.values[i] = args[static_cast<size_t>(c) + 1].values[i];
  }
  return OneArray(std::move(out));
}

const BuiltinPrimitives& P() { return Builtins(); }

// d out = f(x, out) * dx for a unary primitive whose derivative is written with x and out.
using UnaryDeriv = std::function<absl::StatusOr<Tracer>(Builder&, const Tracer& x,
                                                        const Tracer& out, const Tracer& dx)>;

JvpRule UnaryJvp(const Primitive* prim, UnaryDeriv deriv) {
  return [prim, deriv](Builder& b, absl::Span<const Tracer> primals,
                       absl::Span<const OptTracer> tangents,
                       const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, b.Bind1(*prim, primals, params));
    JvpResult r{{out}, {std::nullopt}};
    if (!tangents[0]) return r;
    AXE_ASSIGN_OR_RETURN(Tracer t, deriv(b, primals[0], out, *tangents[0]));
    r.tangents_out[0] = t;
    return r;
  };
}

Tracer Lit(Builder& b, double v, const Tracer& like) { return b.Scalar(v, like.aval.dtype()); }

absl::StatusOr<Tracer> Times(const Tracer& a, const Tracer& c) { return Op(*P().mul, {a, c}); }

// Binary rules: the tangent as a function of the primals, the output and the tangents.
using BinaryDeriv = std::function<absl::StatusOr<OptTracer>(
    Builder&, const Tracer& x, const Tracer& y, const Tracer& out, const OptTracer& dx,
    const OptTracer& dy)>;

JvpRule BinaryJvp(const Primitive* prim, BinaryDeriv deriv) {
  return [prim, deriv](Builder& b, absl::Span<const Tracer> primals,
                       absl::Span<const OptTracer> tangents,
                       const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    OptTracer dx = tangents[0], dy = tangents[1];
    if (dx) {
      AXE_ASSIGN_OR_RETURN(dx, FitTo(*dx, out.aval));
    }
    if (dy) {
      AXE_ASSIGN_OR_RETURN(dy, FitTo(*dy, out.aval));
    }
    AXE_ASSIGN_OR_RETURN(OptTracer t, deriv(b, primals[0], primals[1], out, dx, dy));
    if (t) {
      AXE_ASSIGN_OR_RETURN(Tracer fitted, FitTo(*t, out.aval));
      t = fitted;
    }
    return JvpResult{{out}, {t}};
  };
}

absl::StatusOr<OptTracer> AddDeriv(Builder&, const Tracer&, const Tracer&, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  return AddTangents(dx, dy, out.aval);
}

absl::StatusOr<OptTracer> SubDeriv(Builder&, const Tracer&, const Tracer&, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  if (!dy) return AddTangents(dx, std::nullopt, out.aval);
  if (!dx) {
    AXE_ASSIGN_OR_RETURN(Tracer n, Op(*P().neg, {*dy}));
    return OptTracer(n);
  }
  AXE_ASSIGN_OR_RETURN(Tracer d, Op(*P().sub, {*dx, *dy}));
  return OptTracer(d);
}

absl::StatusOr<OptTracer> MulDeriv(Builder&, const Tracer& x, const Tracer& y, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  OptTracer a, c;
  if (dx) {
    AXE_ASSIGN_OR_RETURN(a, Times(*dx, y));
  }
  if (dy) {
    AXE_ASSIGN_OR_RETURN(c, Times(x, *dy));
  }
  return AddTangents(a, c, out.aval);
}

// d(x / y) = dx / y - dy * out / y.
absl::StatusOr<OptTracer> DivDeriv(Builder&, const Tracer&, const Tracer& y, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  OptTracer a, c;
  if (dx) {
    AXE_ASSIGN_OR_RETURN(a, Op(*P().div, {*dx, y}));
  }
  if (dy) {
    AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {out, y}));
    AXE_ASSIGN_OR_RETURN(Tracer nq, Op(*P().neg, {q}));
    AXE_ASSIGN_OR_RETURN(c, Times(*dy, nq));
  }
  return AddTangents(a, c, out.aval);
}

// The scalar `v` of `aval`'s dtype, broadcast to its shape.
absl::StatusOr<Tracer> Full(Builder& b, double v, const ShapedArray& aval) {
  return FitTo(b.Scalar(v, aval.dtype()), aval);
}

// JAX's _balanced_eq(a, out, c): 1 where a is the result, halved where c is too, else 0.
absl::StatusOr<Tracer> BalancedEq(Builder& b, const Tracer& a, const Tracer& out, const Tracer& c) {
  const ShapedArray& aval = out.aval;
  AXE_ASSIGN_OR_RETURN(Tracer zero, Full(b, 0, aval));
  AXE_ASSIGN_OR_RETURN(Tracer one, Full(b, 1, aval));
  AXE_ASSIGN_OR_RETURN(Tracer two, Full(b, 2, aval));
  AXE_ASSIGN_OR_RETURN(Tracer a_is, Op(*P().eq, {a, out}));
  AXE_ASSIGN_OR_RETURN(Tracer c_is, Op(*P().eq, {c, out}));
  AXE_ASSIGN_OR_RETURN(Tracer num, Op(*P().select_n, {a_is, zero, one}));
  AXE_ASSIGN_OR_RETURN(Tracer den, Op(*P().select_n, {c_is, one, two}));
  return Op(*P().div, {num, den});
}

// max / min, as JAX differentiates them: the tangent of the operand that is the result, each
// operand's halved on ties (so that the gradient of max(x, x) is x's whole tangent).
absl::StatusOr<OptTracer> BalancedDeriv(Builder& b, const Tracer& x, const Tracer& y,
                                        const Tracer& out, const OptTracer& dx,
                                        const OptTracer& dy) {
  AXE_ASSIGN_OR_RETURN(Tracer xf, FitTo(x, out.aval));
  AXE_ASSIGN_OR_RETURN(Tracer yf, FitTo(y, out.aval));
  OptTracer a, c;
  if (dx) {
    AXE_ASSIGN_OR_RETURN(Tracer w, BalancedEq(b, xf, out, yf));
    AXE_ASSIGN_OR_RETURN(a, Times(*dx, w));
  }
  if (dy) {
    AXE_ASSIGN_OR_RETURN(Tracer w, BalancedEq(b, yf, out, xf));
    AXE_ASSIGN_OR_RETURN(c, Times(*dy, w));
  }
  return AddTangents(a, c, out.aval);
}

// d(x ** y) by x, as JAX writes it: y * x ** (y - 1), and 0 where an integer y is 0 (so that
// 0 ** 0 has a zero derivative rather than 0 * inf).
absl::StatusOr<Tracer> PowJacobianByBase(Builder& b, const Tracer& x, const Tracer& y,
                                         const ShapedArray& aval) {
  Tracer yf = y;
  if (y.aval.dtype() != aval.dtype()) {
    AXE_ASSIGN_OR_RETURN(yf, ConvertElementType(y, aval.dtype()));
  }
  AXE_ASSIGN_OR_RETURN(yf, FitTo(yf, aval));
  AXE_ASSIGN_OR_RETURN(Tracer xf, FitTo(x, aval));
  AXE_ASSIGN_OR_RETURN(Tracer one, Full(b, 1, aval));
  AXE_ASSIGN_OR_RETURN(Tracer ym1, Op(*P().sub, {yf, one}));
  AXE_ASSIGN_OR_RETURN(Tracer p, Op(*P().pow, {xf, ym1}));
  AXE_ASSIGN_OR_RETURN(Tracer jac, Times(yf, p));
  if (!IsIntegral(y.aval.dtype())) return jac;
  AXE_ASSIGN_OR_RETURN(Tracer zero, Full(b, 0, aval));
  AXE_ASSIGN_OR_RETURN(Tracer y_is_0, Op(*P().eq, {yf, zero}));
  return Op(*P().select_n, {y_is_0, jac, zero});
}

// d(x ** y) = dx * y * x ** (y - 1) + dy * log(x) * out, with log(x) read as 0 where x is 0
// (JAX's _replace_zero), so that 0 ** y has a zero derivative by y.
absl::StatusOr<OptTracer> PowDeriv(Builder& b, const Tracer& x, const Tracer& y, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  OptTracer a, c;
  if (dx) {
    AXE_ASSIGN_OR_RETURN(Tracer jac, PowJacobianByBase(b, x, y, out.aval));
    AXE_ASSIGN_OR_RETURN(a, Times(*dx, jac));
  }
  if (dy) {
    AXE_ASSIGN_OR_RETURN(Tracer xf, FitTo(x, out.aval));
    AXE_ASSIGN_OR_RETURN(Tracer zero, Full(b, 0, out.aval));
    AXE_ASSIGN_OR_RETURN(Tracer one, Full(b, 1, out.aval));
    AXE_ASSIGN_OR_RETURN(Tracer x_is_0, Op(*P().eq, {xf, zero}));
    AXE_ASSIGN_OR_RETURN(Tracer safe, Op(*P().select_n, {x_is_0, xf, one}));
    AXE_ASSIGN_OR_RETURN(Tracer lx, Unary(*P().log, safe));
    AXE_ASSIGN_OR_RETURN(Tracer lo, Times(lx, out));
    AXE_ASSIGN_OR_RETURN(c, Times(*dy, lo));
  }
  return AddTangents(a, c, out.aval);
}

JvpRule ZeroTangentJvp(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> primals, absl::Span<const OptTracer>,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, primals, params));
    return JvpResult{outs, std::vector<OptTracer>(outs.size())};
  };
}

// d|x| = dx where x >= 0 (0 included, as JAX), else -dx; x * sign(x) for complex x.
absl::StatusOr<Tracer> AbsDeriv(Builder& b, const Tracer& x, const Tracer&, const Tracer& dx) {
  if (IsComplex(x.aval.dtype())) {
    AXE_ASSIGN_OR_RETURN(Tracer s, Unary(*P().sign, x));
    return Times(dx, s);
  }
  AXE_ASSIGN_OR_RETURN(Tracer nonneg, Op(*P().ge, {x, Lit(b, 0, x)}));
  AXE_ASSIGN_OR_RETURN(Tracer ndx, Op(*P().neg, {dx}));
  return Op(*P().select_n, {nonneg, ndx, dx});
}

// d rem(x, y) = dx - dy * trunc(x / y), with trunc(x / y) = (x - out) / y.
absl::StatusOr<OptTracer> RemDeriv(Builder&, const Tracer& x, const Tracer& y, const Tracer& out,
                                   const OptTracer& dx, const OptTracer& dy) {
  OptTracer c;
  if (dy) {
    AXE_ASSIGN_OR_RETURN(Tracer diff, Op(*P().sub, {x, out}));
    AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {diff, y}));
    AXE_ASSIGN_OR_RETURN(Tracer nq, Op(*P().neg, {q}));
    AXE_ASSIGN_OR_RETURN(c, Times(*dy, nq));
  }
  return AddTangents(dx, c, out.aval);
}

using Cts = absl::StatusOr<std::vector<OptTracer>>;

const BuiltinPrimitives& MorePrims() { return Builtins(); }

// d x**y = dx * (y * x**(y-1)); y == 0 has a zero tangent (JAX's rule).
absl::StatusOr<JvpResult> IntegerPowJvp(Builder& b, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const Tracer& x = primals[0];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*MorePrims().integer_pow, {x}, params));
  AXE_ASSIGN_OR_RETURN(int64_t y, RequiredInt(params, "integer_pow", "y"));
  if (!tangents[0] || y == 0) return JvpResult{{out}, {std::nullopt}};
  Tracer power = x;
  if (y - 1 != 1) {
    AXE_ASSIGN_OR_RETURN(power, Op(*MorePrims().integer_pow, {x}, {{"y", Param::Int(y - 1)}}));
  }
  AXE_ASSIGN_OR_RETURN(
      Tracer scaled,
      Op(*MorePrims().mul, {b.Scalar(static_cast<double>(y), x.aval.dtype()), power}));
  AXE_ASSIGN_OR_RETURN(Tracer t, Op(*MorePrims().mul, {*tangents[0], scaled}));
  return JvpResult{{out}, {t}};
}

// `g` where `pick` holds, else zeros (g and pick fitted to the result's shape).
absl::StatusOr<Tracer> SelectOrZeros(Builder& b, const Tracer& pick, const Tracer& g,
                                     const ShapedArray& aval) {
  AXE_ASSIGN_OR_RETURN(Tracer gf, FitTo(g, aval));
  AXE_ASSIGN_OR_RETURN(Tracer pf, FitTo(pick, aval.WithDType(DType::kPred)));
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, aval));
  return Op(*MorePrims().select_n, {pf, zeros, gf});
}

// clamp(lo, x, hi): x's tangent strictly inside (lo, hi), lo's below lo when lo < hi, hi's
// above hi; none at the bounds themselves (JAX's rule).
absl::StatusOr<JvpResult> ClampJvp(Builder& b, absl::Span<const Tracer> primals,
                                   absl::Span<const OptTracer> tangents, const Params& params) {
  const Tracer &lo = primals[0], &x = primals[1], &hi = primals[2];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*MorePrims().clamp, primals, params));
  const ShapedArray& aval = out.aval;
  OptTracer t;
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(Tracer above, Op(*MorePrims().gt, {x, lo}));
    AXE_ASSIGN_OR_RETURN(Tracer below, Op(*MorePrims().lt, {x, hi}));
    AXE_ASSIGN_OR_RETURN(Tracer inside, Op(*MorePrims().and_, {above, below}));
    AXE_ASSIGN_OR_RETURN(t, SelectOrZeros(b, inside, *tangents[1], aval));
  }
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(Tracer above, Op(*MorePrims().gt, {lo, x}));
    AXE_ASSIGN_OR_RETURN(Tracer below, Op(*MorePrims().lt, {lo, hi}));
    AXE_ASSIGN_OR_RETURN(Tracer pick, Op(*MorePrims().and_, {above, below}));
    AXE_ASSIGN_OR_RETURN(Tracer part, SelectOrZeros(b, pick, *tangents[0], aval));
    AXE_ASSIGN_OR_RETURN(t, AddTangents(t, part, aval));
  }
  if (tangents[2]) {
    AXE_ASSIGN_OR_RETURN(Tracer pick, Op(*MorePrims().lt, {hi, x}));
    AXE_ASSIGN_OR_RETURN(Tracer part, SelectOrZeros(b, pick, *tangents[2], aval));
    AXE_ASSIGN_OR_RETURN(t, AddTangents(t, part, aval));
  }
  return JvpResult{{out}, {t}};
}

Cts AddAnyTranspose(Builder&, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                    const Params&) {
  std::vector<OptTracer> out(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_undefined_primal()) out[i] = cts[0];
  }
  return out;
}

absl::Status SameShape(absl::string_view prim, const ShapedArray& operand, const Tracer& ct) {
  if (operand.shape() == ct.aval.shape()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("the transpose of ", prim,
                                               " with a broadcast operand (", operand.Str(),
                                               " into ", ct.aval.Str(), ") is not implemented"));
}

// The cotangent of an operand that was broadcast into the result: `ct` summed over the
// dimensions the operand did not have (a rank-0 operand) or had with size 1, as JAX's
// _unbroadcast does.
absl::StatusOr<Tracer> Unbroadcast(absl::string_view prim, const ShapedArray& operand,
                                   const Tracer& ct) {
  if (operand.shape() == ct.aval.shape()) return ct;
  std::vector<int64_t> axes;
  if (operand.rank() == 0) {
    for (size_t d = 0; d < ct.aval.rank(); ++d) axes.push_back(static_cast<int64_t>(d));
    return ReduceSum(ct, axes);
  }
  if (operand.rank() != ct.aval.rank()) return SameShape(prim, operand, ct);
  for (size_t d = 0; d < operand.rank(); ++d) {
    if (operand.shape()[d] == ct.aval.shape()[d]) continue;
    if (operand.shape()[d] != 1) return SameShape(prim, operand, ct);
    axes.push_back(static_cast<int64_t>(d));
  }
  AXE_ASSIGN_OR_RETURN(Tracer summed, ReduceSum(ct, axes));
  return Reshape(summed, operand.shape());
}

Cts AddTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(out[i], Unbroadcast("add", args[i].aval, *cts[0]));
  }
  return out;
}

Cts SubTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(Tracer ct, Unbroadcast("sub", args[i].aval, *cts[0]));
    if (i == 0) {
      out[i] = ct;
    } else {
      AXE_ASSIGN_OR_RETURN(Tracer n, Neg(ct));
      out[i] = n;
    }
  }
  return out;
}

Cts NegTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer n, Neg(*cts[0]));
  out[0] = n;
  return out;
}

Cts MulTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (args.size() != 2 || (args[0].is_undefined_primal() && args[1].is_undefined_primal())) {
    return absl::InvalidArgumentError("mul is linear in one operand only");
  }
  if (!cts[0]) return out;
  size_t lin = args[0].is_undefined_primal() ? 0 : 1;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> r,
                       BindWithAutoPvary(*Builtins().mul, {*cts[0], *args[1 - lin].value}));
  AXE_ASSIGN_OR_RETURN(out[lin], Unbroadcast("mul", args[lin].aval, r[0]));
  return out;
}

// Linear in the numerator: ct / denominator.
Cts DivTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (args.size() != 2 || args[1].is_undefined_primal()) {
    return absl::InvalidArgumentError("div is linear in its numerator only");
  }
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> r,
                       BindWithAutoPvary(*Builtins().div, {*cts[0], *args[1].value}));
  AXE_ASSIGN_OR_RETURN(out[0], Unbroadcast("div", args[0].aval, r[0]));
  return out;
}

Cts ConvertTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                     absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer c, ConvertElementType(*cts[0], args[0].aval.dtype()));
  out[0] = c;
  return out;
}

// case i: the cotangent where `which` picks i, zeros elsewhere.
Cts SelectNTranspose(Builder& b, absl::Span<const OptTracer> cts,
                     absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  if (args[0].is_undefined_primal()) {
    return absl::InvalidArgumentError("select_n is not linear in its selector");
  }
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, cts[0]->aval));
  for (size_t i = 1; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    std::vector<Tracer> a = {*args[0].value};
    for (size_t k = 1; k < args.size(); ++k) a.push_back(k == i ? *cts[0] : zeros);
    AXE_ASSIGN_OR_RETURN(out[i], Op(*Builtins().select_n, a, params));
  }
  return out;
}

absl::StatusOr<Tracer> Expanded(const Tracer& x, int64_t size, size_t rank) {
  std::vector<int64_t> shape(rank + 1, 1);
  shape[0] = size;
  return BroadcastInDim(x, shape, {0});
}

absl::StatusOr<Tracer> LeadingOne(const Tracer& x) {
  std::vector<int64_t> shape = x.aval.shape();
  shape.insert(shape.begin(), 1);
  std::vector<int64_t> dims(x.aval.rank());
  std::iota(dims.begin(), dims.end(), 1);
  return BroadcastInDim(x, shape, dims);
}

// The operands aligned at batch dimension 0; `full` broadcasts every one to the full shape
// (select_n needs that for its selector).
absl::StatusOr<std::vector<Tracer>> Align(absl::Span<const Tracer> args,
                                          absl::Span<const BDim> dims) {
  int64_t size = BatchSize(args, dims);
  size_t rank = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    rank = std::max(rank, args[i].aval.rank() - (dims[i] ? 1 : 0));
  }
  std::vector<Tracer> out;
  for (size_t i = 0; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      if (x.aval.rank() == 1 && rank > 0) {
        AXE_ASSIGN_OR_RETURN(x, Expanded(x, size, rank));
      }
    } else if (x.aval.rank() > 0) {
      AXE_ASSIGN_OR_RETURN(x, LeadingOne(x));
    }
    out.push_back(x);
  }
  return out;
}

BatchingRule Elementwise(const Primitive* prim) {
  return [prim](Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> absl::StatusOr<BatchResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> aligned, Align(args, dims));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, aligned, params));
    return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
  };
}

// select_n(which, *cases): the cases materialized at 0; a batched selector broadcast to the
// cases' shape, an unbatched one of rank > 0 too.
absl::StatusOr<BatchResult> SelectNBatch(Builder&, absl::Span<const Tracer> args,
                                         absl::Span<const BDim> dims, const Params& params) {
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  for (size_t i = 1; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer c, Materialize(args[i], dims[i], size));
    ops.push_back(c);
  }
  if (ops.empty()) return absl::InvalidArgumentError("select_n without cases");
  const std::vector<int64_t>& full = ops[0].aval.shape();
  Tracer which = args[0];
  if (dims[0] || which.aval.rank() > 0) {
    AXE_ASSIGN_OR_RETURN(which, Materialize(which, dims[0], size));
    std::vector<int64_t> keep(which.aval.rank());
    std::iota(keep.begin(), keep.end(), 0);
    if (which.aval.shape() != full) {
      AXE_ASSIGN_OR_RETURN(which, BroadcastInDim(which, full, keep));
    }
  }
  ops.insert(ops.begin(), which);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().select_n, ops, params));
  return BatchResult{outs, {0}};
}

// clamp(lo, x, hi): x at 0; lo and hi stay scalars when unbatched scalars, else they are
// broadcast to x's batched shape.
absl::StatusOr<BatchResult> ClampBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  int64_t size = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[1], dims[1], size));
  std::vector<Tracer> ops = {args[0], x, args[2]};
  for (size_t i : {0, 2}) {
    if (!dims[i] && args[i].aval.rank() == 0) continue;
    AXE_ASSIGN_OR_RETURN(Tracer bound, Materialize(args[i], dims[i], size));
    if (bound.aval.shape() != x.aval.shape()) {
      AXE_ASSIGN_OR_RETURN(bound, BroadcastInDim(bound, x.aval.shape(), {0}));
    }
    ops[i] = bound;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().clamp, ops, params));
  return BatchResult{outs, {0}};
}

// Typing, impl, JVP, transpose and batching of the binary arithmetic primitives.
void RegisterArithmetic(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.add, Arithmetic("add", "add"));
  RegisterImpl(*p.add, BinaryImpl(*p.add, Arith('+')));
  RegisterJvp(*p.add, BinaryJvp(p.add, AddDeriv));
  RegisterTranspose(*p.add, AddTranspose);
  RegisterBatching(*p.add, Elementwise(p.add));

  RegisterAbstractEval(*p.sub, Arithmetic("sub", "subtract"));
  RegisterImpl(*p.sub, BinaryImpl(*p.sub, Arith('-')));
  RegisterJvp(*p.sub, BinaryJvp(p.sub, SubDeriv));
  RegisterTranspose(*p.sub, SubTranspose);
  RegisterBatching(*p.sub, Elementwise(p.sub));

  RegisterAbstractEval(*p.mul, Arithmetic("mul", "multiply"));
  RegisterImpl(*p.mul, BinaryImpl(*p.mul, Arith('*')));
  RegisterJvp(*p.mul, BinaryJvp(p.mul, MulDeriv));
  RegisterTranspose(*p.mul, MulTranspose);
  RegisterBatching(*p.mul, Elementwise(p.mul));

  RegisterAbstractEval(*p.div, Arithmetic("div", "divide"));
  RegisterImpl(*p.div, BinaryImpl(*p.div, Arith('/')));
  RegisterJvp(*p.div, BinaryJvp(p.div, DivDeriv));
  RegisterTranspose(*p.div, DivTranspose);
  RegisterBatching(*p.div, Elementwise(p.div));

  RegisterAbstractEval(*p.max, Arithmetic("max", "maximum"));
  RegisterImpl(*p.max, BinaryImpl(*p.max, Arith('>')));
  RegisterJvp(*p.max, BinaryJvp(p.max, BalancedDeriv));
  RegisterBatching(*p.max, Elementwise(p.max));

  RegisterAbstractEval(*p.min, Arithmetic("min", "minimum"));
  RegisterImpl(*p.min, BinaryImpl(*p.min, Arith('<')));
  RegisterJvp(*p.min, BinaryJvp(p.min, BalancedDeriv));
  RegisterBatching(*p.min, Elementwise(p.min));

  RegisterAbstractEval(*p.pow, PowRule());
  RegisterImpl(*p.pow, BinaryImpl(*p.pow, Arith('^')));
  RegisterJvp(*p.pow, BinaryJvp(p.pow, PowDeriv));
  RegisterBatching(*p.pow, Elementwise(p.pow));

  RegisterAbstractEval(*p.rem, Arithmetic("rem", "remainder"));
  RegisterImpl(*p.rem, ElementwiseImpl(*p.rem, RemValue));
  RegisterJvp(*p.rem, BinaryJvp(p.rem, RemDeriv));
  RegisterBatching(*p.rem, Elementwise(p.rem));

  RegisterAbstractEval(*p.add_any, Arithmetic("add_any", ""));
  RegisterImpl(*p.add_any, ElementwiseImpl(*p.add_any, AddAnyValue));
  DefLinear2(*p.add_any, AddAnyTranspose);
  RegisterBatching(*p.add_any, Elementwise(p.add_any));
}

// neg, abs and sign (integers too), with every rule.
void RegisterSignRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.neg, UnaryRule("neg", true));
  RegisterImpl(*p.neg, UnaryImpl(*p.neg, [](double v, DType t) {
    return IsIntegral(t) ? IntegerFromBits(0 - U(v), t) : -v;
  }));
  RegisterJvp(*p.neg, UnaryJvp(p.neg, [](Builder&, const Tracer&, const Tracer&, const Tracer& dx) {
    return Op(*P().neg, {dx});
  }));
  RegisterTranspose(*p.neg, NegTranspose);
  RegisterBatching(*p.neg, Elementwise(p.neg));

  RegisterAbstractEval(*p.abs, UnaryRule("abs", true));
  RegisterImpl(*p.abs, UnaryImpl(*p.abs, [](double v, DType t) {
    return IsIntegral(t) && v < 0 ? IntegerFromBits(0 - U(v), t) : std::fabs(v);
  }));
  RegisterJvp(*p.abs, UnaryJvp(p.abs, AbsDeriv));
  RegisterBatching(*p.abs, Elementwise(p.abs));

  RegisterAbstractEval(*p.sign, UnaryRule("sign", true));
  RegisterImpl(*p.sign, UnaryImpl(*p.sign, Sign));
  RegisterJvp(*p.sign, ZeroTangentJvp(p.sign));
  RegisterBatching(*p.sign, Elementwise(p.sign));
}

// exp, log, sin and cos (floating point), with every rule.
void RegisterExpLogTrig(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.exp, UnaryRule("exp", false));
  RegisterImpl(*p.exp, UnaryImpl(*p.exp, Math(std::exp)));
  RegisterJvp(*p.exp, UnaryJvp(p.exp, [](Builder&, const Tracer&, const Tracer& out,
                                         const Tracer& dx) { return Times(dx, out); }));
  RegisterBatching(*p.exp, Elementwise(p.exp));

  RegisterAbstractEval(*p.log, UnaryRule("log", false));
  RegisterImpl(*p.log, UnaryImpl(*p.log, Math(std::log)));
  RegisterJvp(*p.log,
              UnaryJvp(p.log, [](Builder&, const Tracer& x, const Tracer&, const Tracer& dx) {
                return Op(*P().div, {dx, x});
              }));
  RegisterBatching(*p.log, Elementwise(p.log));

  RegisterAbstractEval(*p.sin, UnaryRule("sin", false));
  RegisterImpl(*p.sin, UnaryImpl(*p.sin, Math(std::sin)));
  RegisterJvp(*p.sin, UnaryJvp(p.sin,
                               [](Builder&, const Tracer& x, const Tracer&,
                                  const Tracer& dx) -> absl::StatusOr<Tracer> {
                                 AXE_ASSIGN_OR_RETURN(Tracer c, Unary(*P().cos, x));
                                 return Times(dx, c);
                               }));
  RegisterBatching(*p.sin, Elementwise(p.sin));

  RegisterAbstractEval(*p.cos, UnaryRule("cos", false));
  RegisterImpl(*p.cos, UnaryImpl(*p.cos, Math(std::cos)));
  RegisterJvp(*p.cos, UnaryJvp(p.cos,
                               [](Builder&, const Tracer& x, const Tracer&,
                                  const Tracer& dx) -> absl::StatusOr<Tracer> {
                                 AXE_ASSIGN_OR_RETURN(Tracer s, Unary(*P().sin, x));
                                 AXE_ASSIGN_OR_RETURN(Tracer ns, Op(*P().neg, {s}));
                                 return Times(dx, ns);
                               }));
  RegisterBatching(*p.cos, Elementwise(p.cos));
}

// tanh, sqrt and rsqrt (floating point), with every rule.
void RegisterTanhSqrt(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.tanh, UnaryRule("tanh", false));
  RegisterImpl(*p.tanh, UnaryImpl(*p.tanh, Math(std::tanh)));
  RegisterJvp(*p.tanh,
              UnaryJvp(p.tanh,
                       [](Builder& b, const Tracer&, const Tracer& out,
                          const Tracer& dx) -> absl::StatusOr<Tracer> {
                         AXE_ASSIGN_OR_RETURN(Tracer sq, Times(out, out));
                         AXE_ASSIGN_OR_RETURN(Tracer d, Op(*P().sub, {Lit(b, 1, out), sq}));
                         return Times(dx, d);
                       }));
  RegisterBatching(*p.tanh, Elementwise(p.tanh));

  RegisterAbstractEval(*p.sqrt, UnaryRule("sqrt", false));
  RegisterImpl(*p.sqrt, UnaryImpl(*p.sqrt, Math(std::sqrt)));
  // d sqrt(x) = dx * (0.5 / out), as JAX writes it (inf at 0).
  RegisterJvp(*p.sqrt,
              UnaryJvp(p.sqrt,
                       [](Builder& b, const Tracer&, const Tracer& out,
                          const Tracer& dx) -> absl::StatusOr<Tracer> {
                         AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {Lit(b, 0.5, out), out}));
                         return Times(dx, q);
                       }));
  RegisterBatching(*p.sqrt, Elementwise(p.sqrt));

  RegisterAbstractEval(*p.rsqrt, UnaryRule("rsqrt", false));
  RegisterImpl(*p.rsqrt, ElementwiseImpl(*p.rsqrt, MathFn(RsqrtValue)));
  // d rsqrt(x) = dx * (-0.5 * out / x), as JAX writes it.
  RegisterJvp(*p.rsqrt, UnaryJvp(p.rsqrt,
                                 [](Builder& b, const Tracer& x, const Tracer& out,
                                    const Tracer& dx) -> absl::StatusOr<Tracer> {
                                   AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {out, x}));
                                   AXE_ASSIGN_OR_RETURN(Tracer h, Times(Lit(b, -0.5, x), q));
                                   return Times(dx, h);
                                 }));
  RegisterBatching(*p.rsqrt, Elementwise(p.rsqrt));
}

// log1p and logistic (floating point), integer_pow and square (integers too), with every rule.
void RegisterPowersAndLogistic(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.log1p, UnaryRule("log1p", false));
  RegisterImpl(*p.log1p, ElementwiseImpl(*p.log1p, MathFn(Log1pValue)));
  RegisterJvp(*p.log1p, UnaryJvp(p.log1p,
                                 [](Builder& b, const Tracer& x, const Tracer&,
                                    const Tracer& dx) -> absl::StatusOr<Tracer> {
                                   AXE_ASSIGN_OR_RETURN(Tracer s, Op(*P().add, {x, Lit(b, 1, x)}));
                                   return Op(*P().div, {dx, s});
                                 }));
  RegisterBatching(*p.log1p, Elementwise(p.log1p));

  RegisterAbstractEval(*p.logistic, UnaryRule("logistic", false));
  RegisterImpl(*p.logistic, ElementwiseImpl(*p.logistic, MathFn(LogisticValue)));
  RegisterJvp(*p.logistic,
              UnaryJvp(p.logistic,
                       [](Builder& b, const Tracer&, const Tracer& out,
                          const Tracer& dx) -> absl::StatusOr<Tracer> {
                         AXE_ASSIGN_OR_RETURN(Tracer rest, Op(*P().sub, {Lit(b, 1, out), out}));
                         AXE_ASSIGN_OR_RETURN(Tracer d, Times(out, rest));
                         return Times(dx, d);
                       }));
  RegisterBatching(*p.logistic, Elementwise(p.logistic));

  RegisterAbstractEval(*p.integer_pow, UnaryRule("integer_pow", true));
  RegisterImpl(*p.integer_pow, ElementwiseImpl(*p.integer_pow, IntegerPowValue));
  RegisterJvp(*p.integer_pow, IntegerPowJvp);
  RegisterBatching(*p.integer_pow, Elementwise(p.integer_pow));

  RegisterAbstractEval(*p.square, UnaryRule("square", true));
  RegisterImpl(*p.square, ElementwiseImpl(*p.square, SquareValue));
  RegisterJvp(*p.square, UnaryJvp(p.square,
                                  [](Builder& b, const Tracer& x, const Tracer&,
                                     const Tracer& dx) -> absl::StatusOr<Tracer> {
                                    AXE_ASSIGN_OR_RETURN(Tracer twice, Times(Lit(b, 2, x), x));
                                    return Times(dx, twice);
                                  }));
  RegisterBatching(*p.square, Elementwise(p.square));
}

// The comparisons: bool results, zero tangents.
void RegisterComparisons(const BuiltinPrimitives& p) {
  const std::pair<const Primitive*, std::function<bool(double, double)>> comparisons[] = {
      {p.eq, std::equal_to<double>()}, {p.ne, std::not_equal_to<double>()},
      {p.lt, std::less<double>()},     {p.le, std::less_equal<double>()},
      {p.gt, std::greater<double>()},  {p.ge, std::greater_equal<double>()}};
  for (const auto& [prim, cmp] : comparisons) {
    RegisterAbstractEval(*prim, Comparison(prim->name()));
    RegisterImpl(*prim, BinaryImpl(*prim, Compare(cmp)));
    RegisterJvp(*prim, ZeroTangentJvp(prim));
    RegisterBatching(*prim, Elementwise(prim));
  }
}

// and / or / not, is_finite, the roundings and stop_gradient: zero tangents.
void RegisterPiecewiseConstant(const BuiltinPrimitives& p) {
  const std::pair<const Primitive*, char> bitwise[] = {{p.and_, '&'}, {p.or_, '|'}, {p.not_, '~'}};
  for (auto [prim, op] : bitwise) {
    RegisterAbstractEval(*prim, Bitwise(prim->name(), prim == p.not_ ? 1 : 2));
    RegisterImpl(*prim, ElementwiseImpl(*prim, BitwiseFn(op)));
    RegisterJvp(*prim, ZeroTangentJvp(prim));
    RegisterBatching(*prim, Elementwise(prim));
  }
  RegisterAbstractEval(*p.is_finite, IsFiniteRule);
  RegisterImpl(*p.is_finite, ElementwiseImpl(*p.is_finite, MathFn(IsFiniteValue)));
  RegisterJvp(*p.is_finite, ZeroTangentJvp(p.is_finite));
  RegisterBatching(*p.is_finite, Elementwise(p.is_finite));

  RegisterAbstractEval(*p.round, UnaryRule("round", false));
  RegisterImpl(*p.round, ElementwiseImpl(*p.round, RoundValue));
  RegisterJvp(*p.round, ZeroTangentJvp(p.round));
  RegisterBatching(*p.round, Elementwise(p.round));

  RegisterAbstractEval(*p.floor, UnaryRule("floor", false));
  RegisterImpl(*p.floor, ElementwiseImpl(*p.floor, MathFn(FloorValue)));
  RegisterJvp(*p.floor, ZeroTangentJvp(p.floor));
  RegisterBatching(*p.floor, Elementwise(p.floor));

  RegisterAbstractEval(*p.ceil, UnaryRule("ceil", false));
  RegisterImpl(*p.ceil, ElementwiseImpl(*p.ceil, MathFn(CeilValue)));
  RegisterJvp(*p.ceil, ZeroTangentJvp(p.ceil));
  RegisterBatching(*p.ceil, Elementwise(p.ceil));

  RegisterAbstractEval(*p.stop_gradient, IdentityRule);
  RegisterImpl(*p.stop_gradient, ElementwiseImpl(*p.stop_gradient, MathFn(IdentityValue)));
  RegisterJvp(*p.stop_gradient, ZeroTangentJvp(p.stop_gradient));
  RegisterBatching(*p.stop_gradient, Elementwise(p.stop_gradient));
}

// clamp, select_n and convert_element_type, with every rule.
void RegisterSelectConvert(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.clamp, ClampRule);
  RegisterImpl(*p.clamp, ElementwiseImpl(*p.clamp, ClampValue, 1));
  RegisterJvp(*p.clamp, ClampJvp);
  RegisterBatching(*p.clamp, ClampBatch);

  RegisterAbstractEval(*p.select_n, SelectN);
  RegisterImpl(*p.select_n, SelectImpl);
  RegisterJvp(*p.select_n, LinearJvp(p.select_n, LinearOperands::kAllButFirst));
  RegisterTranspose(*p.select_n, SelectNTranspose);
  RegisterBatching(*p.select_n, SelectNBatch);

  RegisterAbstractEval(*p.convert_element_type, ConvertElementType);
  RegisterImpl(*p.convert_element_type, ConvertImpl);
  RegisterJvp(*p.convert_element_type, LinearJvp(p.convert_element_type, LinearOperands::kFirst));
  RegisterTranspose(*p.convert_element_type, ConvertTranspose);
  RegisterBatching(*p.convert_element_type, Elementwise(p.convert_element_type));
}

}  // namespace

Rule UnaryMathRule(std::string name, bool integers_allowed) {
  return UnaryRule(std::move(name), integers_allowed);
}

absl::StatusOr<ShapedArray> BroadcastOperands(absl::string_view name,
                                              absl::Span<const ShapedArray> avals) {
  return Broadcasting(name, avals, "");
}

ImplRule ElementwiseImplRule(const Primitive& prim, ElementFn fn) {
  return ElementwiseImpl(prim, std::move(fn));
}

JvpRule UnaryJvpRule(const Primitive* prim, UnaryDerivFn deriv) {
  return UnaryJvp(prim, std::move(deriv));
}

JvpRule BinaryJvpRule(const Primitive* prim, BinaryDerivFn deriv) {
  return BinaryJvp(prim, std::move(deriv));
}

JvpRule ZeroTangentJvpRule(const Primitive* prim) { return ZeroTangentJvp(prim); }

BatchingRule ElementwiseBatching(const Primitive* prim) { return Elementwise(prim); }

void DefineElementwise(BuiltinPrimitives& p) {
  p.add = DefineOneResult("add");
  p.sub = DefineOneResult("sub");
  p.mul = DefineOneResult("mul");
  p.div = DefineOneResult("div");
  p.max = DefineOneResult("max");
  p.min = DefineOneResult("min");
  p.pow = DefineOneResult("pow");
  p.rem = DefineOneResult("rem");
  p.add_any = DefineOneResult("add_any");
  p.neg = DefineOneResult("neg");
  p.abs = DefineOneResult("abs");
  p.sign = DefineOneResult("sign");
  p.sin = DefineUnaryWithAccuracy("sin");
  p.cos = DefineUnaryWithAccuracy("cos");
  p.exp = DefineUnaryWithAccuracy("exp");
  p.log = DefineUnaryWithAccuracy("log");
  p.tanh = DefineUnaryWithAccuracy("tanh");
  p.sqrt = DefineUnaryWithAccuracy("sqrt");
  p.rsqrt = DefineUnaryWithAccuracy("rsqrt");
  p.log1p = DefineUnaryWithAccuracy("log1p");
  p.logistic = DefineUnaryWithAccuracy("logistic");
  p.integer_pow = DefineOneResult("integer_pow", {{"y", ParamType::kInt}});
  p.square = DefineOneResult("square");
  p.eq = DefineOneResult("eq");
  p.ne = DefineOneResult("ne");
  p.lt = DefineOneResult("lt");
  p.le = DefineOneResult("le");
  p.gt = DefineOneResult("gt");
  p.ge = DefineOneResult("ge");
  p.and_ = DefineOneResult("and");
  p.or_ = DefineOneResult("or");
  p.not_ = DefineOneResult("not");
  p.is_finite = DefineOneResult("is_finite");
  p.round = DefineOneResult("round", {{"rounding_method", ParamType::kInt}});
  p.floor = DefineOneResult("floor");
  p.ceil = DefineOneResult("ceil");
  p.stop_gradient = DefineOneResult("stop_gradient");
  p.clamp = DefineOneResult("clamp");
  p.select_n = DefineOneResult("select_n");
  Primitive::Options convert;
  convert.name = "convert_element_type";
  convert.params = {{"new_dtype", ParamType::kDType}};
  convert.printed_params = DropIfNone({"sharding"});
  convert.complete_parsed_params = DefaultNone({"sharding"});
  p.convert_element_type = DefineBuiltin(std::move(convert));
}

void RegisterElementwiseRules(const BuiltinPrimitives& p) {
  RegisterArithmetic(p);
  RegisterSignRules(p);
  RegisterExpLogTrig(p);
  RegisterTanhSqrt(p);
  RegisterPowersAndLogistic(p);
  RegisterComparisons(p);
  RegisterPiecewiseConstant(p);
  RegisterSelectConvert(p);
}

}  // namespace axe::ir::internal
