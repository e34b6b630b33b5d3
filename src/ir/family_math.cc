// More of lax's elementwise functions, with all their rules: JAX's printing (an `accuracy`
// param where JAX has one, shown only when set), typing in JAX's words, the interpreter's impl
// (in double, rounded to the result's type; integers bit-exact in their own width), JAX's JVP
// rules and elementwise batching.
//
//   floating   erf erfc erf_inv expm1 tan atan asin acos sinh cosh asinh acosh atanh cbrt
//              exp2 lgamma digamma bessel_i0e bessel_i1e (unary), atan2 nextafter igamma
//              igammac (binary)
//   integer    shift_left shift_right_logical shift_right_arithmetic (XLA's: an amount of
//              the bit width or more gives 0, or the sign fill for the arithmetic shift),
//              xor (bool too), population_count clz
//
// nextafter has no JVP rule, as in JAX ("Differentiation rule for 'nextafter' not
// implemented"), nor digamma (JAX's is polygamma(1, x), not modelled), bessel_i0e, bessel_i1e,
// igamma and igammac (not modelled yet: JAX's need igamma_grad_a and random_gamma_grad); none
// of them is linear.
#include <bit>
#include <cmath>
#include <numbers>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace math_family {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

const Primitive* Define(std::string name, bool with_accuracy) {
  Primitive::Options o;
  o.name = std::move(name);
  if (with_accuracy) {
    // JAX's pp rule drops accuracy=None.
    o.printed_params = [](const Params& params) {
      Params shown = params;
      auto it = shown.find("accuracy");
      if (it != shown.end() && it->second.is_none()) shown.erase(it);
      return shown;
    };
    o.complete_parsed_params = [](Params& params, absl::Span<const ShapedArray>) {
      params.try_emplace("accuracy", Param::None());
    };
  }
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();
  return *p;
}

// ---- typing ----

enum class Accepts { kFloating, kInteger, kIntegerOrBool };

const char* AcceptedNames(Accepts a) {
  switch (a) {
    case Accepts::kFloating: return "floating";
    case Accepts::kInteger: return "integer";
    case Accepts::kIntegerOrBool: return "integer, bool";
  }
  return "";
}

bool Accepted(Accepts a, DType t) {
  switch (a) {
    case Accepts::kFloating: return IsFloatingPoint(t);
    case Accepts::kInteger: return IsIntegral(t);
    case Accepts::kIntegerOrBool: return IsIntegral(t) || t == DType::kPred;
  }
  return false;
}

// JAX's standard_naryop dtype rule, then lax's broadcasting (equal dtypes).
Rule Nary(std::string name, size_t arity, Accepts accepts) {
  return [name, arity, accepts](absl::Span<const ShapedArray> avals, const Params&) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(name, avals, arity));
    for (size_t i = 0; i < avals.size(); ++i) {
      if (Accepted(accepts, avals[i].dtype())) continue;
      if (arity == 1) {
        return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(avals[i].dtype()),
                                      ". Accepted dtypes are subtypes of ", AcceptedNames(accepts),
                                      "."));
      }
      return TypeError(absl::StrCat(name, " does not accept dtype ", DTypeName(avals[i].dtype()),
                                    " at position ", i, ". Accepted dtypes at position ", i,
                                    " are subtypes of ", AcceptedNames(accepts), "."));
    }
    AXE_ASSIGN_OR_RETURN(ShapedArray out, BroadcastOperands(name, avals));
    return One(std::move(out));
  };
}

// ---- the interpreter's values ----

// The digits of a float type (with the implicit bit), the exponent of its least subnormal
// and its largest exponent.
struct FloatFormat {
  int digits, min_subnormal_exp, max_exp;
};

FloatFormat FormatOf(DType t) {
  switch (t) {
    case DType::kF16: return {11, -24, 15};
    case DType::kBF16: return {8, -133, 127};
    case DType::kF32: return {24, -149, 127};
    default: return {53, -1074, 1023};
  }
}

// The next value of type `t` after x towards y (XLA's nextafter; -0 and +0 step to the least
// subnormal).
double NextAfter(double x, double y, DType t) {
  if (std::isnan(x) || std::isnan(y)) return NAN;
  if (x == y) return y;
  const FloatFormat f = FormatOf(t);
  const double tiny = std::ldexp(1.0, f.min_subnormal_exp);
  if (x == 0) return y > 0 ? tiny : -tiny;
  if (std::isinf(x)) {  // the largest finite value of the type
    const double largest = std::ldexp(2 - std::ldexp(1.0, 1 - f.digits), f.max_exp);
    return std::copysign(largest, x);
  }
  int e = 0;
  const double m = std::frexp(std::fabs(x), &e);  // |x| = m 2^e, m in [0.5, 1)
  const double ulp = std::max(std::ldexp(1.0, e - f.digits), tiny);
  const bool away = (y > x) == (x > 0);
  const double step = !away && m == 0.5 ? std::max(ulp / 2, tiny) : ulp;
  return x + (y > x ? step : -step);
}

ElementFn Unary(double (*fn)(double)) {
  return [fn](absl::Span<const double> v, DType, const Params&) { return fn(v[0]); };
}

double Erf(double x) { return std::erf(x); }
double Erfc(double x) { return std::erfc(x); }
double Expm1(double x) { return std::expm1(x); }
double Tan(double x) { return std::tan(x); }
double Atan(double x) { return std::atan(x); }
double Asin(double x) { return std::asin(x); }
double Acos(double x) { return std::acos(x); }
double Sinh(double x) { return std::sinh(x); }
double Cosh(double x) { return std::cosh(x); }
double Asinh(double x) { return std::asinh(x); }
double Acosh(double x) { return std::acosh(x); }
double Atanh(double x) { return std::atanh(x); }
double Cbrt(double x) { return std::cbrt(x); }
double Exp2(double x) { return std::exp2(x); }
double LGamma(double x) { return std::lgamma(x); }

// exp(-|x|) I_nu(|x|) for nu in {0, 1}: the power series through the C++ library below 50, the
// asymptotic series 1/sqrt(2 pi x) sum_k (-1)^k a_k(nu) / x^k above (its terms shrink until
// k ~ 2x, so 12 of them are exact in double there).
double ScaledBesselI(int nu, double x) {
  const double ax = std::fabs(x);
  if (std::isnan(x)) return x;
  if (ax < 1e-10) return nu == 0 ? 1 - ax : ax / 2;  // the library's series fails near 0
  if (ax < 50) return std::cyl_bessel_i(static_cast<double>(nu), ax) * std::exp(-ax);
  const double mu = 4.0 * nu * nu;
  double term = 1, sum = 1;
  for (int k = 1; k <= 12; ++k) {
    term *= -(mu - (2.0 * k - 1) * (2.0 * k - 1)) / (k * 8.0 * ax);
    sum += term;
  }
  return sum / std::sqrt(2 * std::numbers::pi * ax);
}

double BesselI0e(double x) { return ScaledBesselI(0, x); }
double BesselI1e(double x) { return std::copysign(ScaledBesselI(1, x), x); }

// The regularized lower incomplete gamma P(a, x) (upper: Q = 1 - P): the power series for
// x < a + 1, else Q's continued fraction (Lentz's method). At the edges, JAX's values: NaN for
// a < 0, x < 0 and a = x = 0; P(a, inf) = 1, P(a, 0) = 0, P(0, x) = 1 from x = 1 on (NaN
// below), Q(0, x) = 0, P(inf, x) = 0 below x = 1 (NaN from there on).
double IncompleteGamma(double a, double x, bool upper) {
  if (std::isnan(a) || std::isnan(x) || a < 0 || x < 0 || (a == 0 && x == 0)) return NAN;
  if (std::isinf(x)) return upper ? 0 : 1;
  if (x == 0) return upper ? 1 : 0;
  if (a == 0) return upper ? 0 : (x >= 1 ? 1 : NAN);
  if (std::isinf(a)) return x < 1 ? (upper ? 1 : 0) : NAN;
  const double log_prefix = a * std::log(x) - x - std::lgamma(a);
  constexpr double kEps = 1e-17;
  if (x < a + 1) {
    double term = 1 / a, sum = term;
    for (int n = 1; n < 2000 && std::fabs(term) > std::fabs(sum) * kEps; ++n) {
      term *= x / (a + n);
      sum += term;
    }
    const double p = sum * std::exp(log_prefix);
    return upper ? 1 - p : p;
  }
  constexpr double kTiny = 1e-300;
  double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
  for (int n = 1; n < 2000; ++n) {
    const double an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (std::fabs(d) < kTiny) d = kTiny;
    c = b + an / c;
    if (std::fabs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double delta = d * c;
    h *= delta;
    if (std::fabs(delta - 1) < kEps) break;
  }
  const double q = std::exp(log_prefix) * h;
  return upper ? q : 1 - q;
}

// The operand's bits in its own width.
uint64_t Bits(double v, DType t) { return static_cast<uint64_t>(AsInt64(v)) & UnsignedMask(t); }

enum class Shift { kLeft, kRightLogical, kRightArithmetic };

ElementFn ShiftFn(Shift kind) {
  return [kind](absl::Span<const double> v, DType t, const Params&) {
    const int bits = BitWidth(t);
    const uint64_t mask = UnsignedMask(t), x = Bits(v[0], t), s = Bits(v[1], t);
    const bool negative = ((x >> (bits - 1)) & 1) != 0;
    const uint64_t fill = kind == Shift::kRightArithmetic && negative ? mask : 0;
    if (s >= static_cast<uint64_t>(bits)) return IntegerFromBits(fill, t);
    uint64_t r = 0;
    switch (kind) {
      case Shift::kLeft: r = (x << s) & mask; break;
      case Shift::kRightLogical: r = x >> s; break;
      case Shift::kRightArithmetic:
        r = (x >> s) | (s == 0 ? 0 : (fill << (bits - static_cast<int>(s))) & mask);
        break;
    }
    return IntegerFromBits(r, t);
  };
}

double XorValue(absl::Span<const double> v, DType t, const Params&) {
  if (t == DType::kPred) return (v[0] != 0) != (v[1] != 0) ? 1 : 0;
  return IntegerFromBits(Bits(v[0], t) ^ Bits(v[1], t), t);
}

double PopulationCount(absl::Span<const double> v, DType t, const Params&) {
  return std::popcount(Bits(v[0], t));
}

double CountLeadingZeros(absl::Span<const double> v, DType t, const Params&) {
  return std::countl_zero(Bits(v[0], t)) - (64 - BitWidth(t));
}

// ---- JVP rules (JAX's) ----

Tracer Lit(Builder& b, double v, const Tracer& like) { return b.Scalar(v, like.aval.dtype()); }
const BuiltinPrimitives& B() { return Builtins(); }
absl::StatusOr<Tracer> Product(const Tracer& a, const Tracer& c) { return Op(*B().mul, {a, c}); }
absl::StatusOr<Tracer> Square(const Tracer& a) { return Op(*B().mul, {a, a}); }

// dx * c * exp(sign * v^2): erf (c = 2/sqrt(pi), v = x, sign -1), erfc (c = -2/sqrt(pi)),
// erf_inv (c = sqrt(pi)/2, v = out, sign +1).
UnaryDerivFn GaussianDeriv(double c, bool of_out, double sign) {
  return [c, of_out, sign](Builder& b, const Tracer& x, const Tracer& out,
                           const Tracer& dx) -> absl::StatusOr<Tracer> {
    AXE_ASSIGN_OR_RETURN(Tracer sq, Square(of_out ? out : x));
    AXE_ASSIGN_OR_RETURN(Tracer arg, Product(Lit(b, sign, sq), sq));
    AXE_ASSIGN_OR_RETURN(Tracer e, Op(*B().exp, {arg}));
    AXE_ASSIGN_OR_RETURN(Tracer d, Product(Lit(b, c, e), e));
    return Product(dx, d);
  };
}

// dx * f(x, out) with f built from the primals.
UnaryDerivFn Times(
    std::function<absl::StatusOr<Tracer>(Builder&, const Tracer&, const Tracer&)> f) {
  return [f](Builder& b, const Tracer& x, const Tracer& out,
             const Tracer& dx) -> absl::StatusOr<Tracer> {
    AXE_ASSIGN_OR_RETURN(Tracer d, f(b, x, out));
    return Product(dx, d);
  };
}

// dx / f(x, out).
UnaryDerivFn Over(std::function<absl::StatusOr<Tracer>(Builder&, const Tracer&, const Tracer&)> f) {
  return [f](Builder& b, const Tracer& x, const Tracer& out,
             const Tracer& dx) -> absl::StatusOr<Tracer> {
    AXE_ASSIGN_OR_RETURN(Tracer d, f(b, x, out));
    return Op(*B().div, {dx, d});
  };
}

// 1 + sign * v^2.
absl::StatusOr<Tracer> OnePlus(Builder& b, const Tracer& v, double sign) {
  AXE_ASSIGN_OR_RETURN(Tracer sq, Square(v));
  AXE_ASSIGN_OR_RETURN(Tracer s, Product(Lit(b, sign, sq), sq));
  return Op(*B().add, {Lit(b, 1, s), s});
}

// d atan2(x, y) = (dx * y - dy * x) / (x^2 + y^2).
absl::StatusOr<OptTracer> Atan2Deriv(Builder&, const Tracer& x, const Tracer& y, const Tracer& out,
                                     const OptTracer& dx, const OptTracer& dy) {
  AXE_ASSIGN_OR_RETURN(Tracer xx, Square(x));
  AXE_ASSIGN_OR_RETURN(Tracer yy, Square(y));
  AXE_ASSIGN_OR_RETURN(Tracer denom, Op(*B().add, {xx, yy}));
  OptTracer a, c;
  if (dx) {
    AXE_ASSIGN_OR_RETURN(Tracer q, Op(*B().div, {y, denom}));
    AXE_ASSIGN_OR_RETURN(a, Product(*dx, q));
  }
  if (dy) {
    AXE_ASSIGN_OR_RETURN(Tracer q, Op(*B().div, {x, denom}));
    AXE_ASSIGN_OR_RETURN(Tracer nq, Op(*B().neg, {q}));
    AXE_ASSIGN_OR_RETURN(c, Product(*dy, nq));
  }
  return AddTangents(a, c, out.aval);
}

void RegisterFloatingJvps(const BuiltinPrimitives& p) {
  const double two_over_sqrt_pi = 2 / std::sqrt(std::numbers::pi);
  RegisterJvp(*p.erf, UnaryJvpRule(p.erf, GaussianDeriv(two_over_sqrt_pi, false, -1)));
  RegisterJvp(*p.erfc, UnaryJvpRule(p.erfc, GaussianDeriv(-two_over_sqrt_pi, false, -1)));
  RegisterJvp(*p.erf_inv,
              UnaryJvpRule(p.erf_inv, GaussianDeriv(std::sqrt(std::numbers::pi) / 2, true, 1)));
  RegisterJvp(*p.expm1,
              UnaryJvpRule(p.expm1, Times([](Builder& b, const Tracer&, const Tracer& out) {
                             return Op(*B().add, {out, Lit(b, 1, out)});
                           })));
  RegisterJvp(*p.tan, UnaryJvpRule(p.tan, Times([](Builder& b, const Tracer&, const Tracer& out) {
                                     return OnePlus(b, out, 1);
                                   })));
  RegisterJvp(*p.atan, UnaryJvpRule(p.atan, Over([](Builder& b, const Tracer& x, const Tracer&) {
                                      return OnePlus(b, x, 1);
                                    })));
  // asin: dx * rsqrt(1 - x^2); acos: -dx * rsqrt(1 - x^2); asinh: dx * rsqrt(x^2 + 1).
  auto rsqrt_of = [](double sign_sq, double scale) {
    return Times(
        [sign_sq, scale](Builder& b, const Tracer& x, const Tracer&) -> absl::StatusOr<Tracer> {
          AXE_ASSIGN_OR_RETURN(Tracer s, OnePlus(b, x, sign_sq));
          AXE_ASSIGN_OR_RETURN(Tracer r, Op(*B().rsqrt, {s}));
          return Product(Lit(b, scale, r), r);
        });
  };
  RegisterJvp(*p.asin, UnaryJvpRule(p.asin, rsqrt_of(-1, 1)));
  RegisterJvp(*p.acos, UnaryJvpRule(p.acos, rsqrt_of(-1, -1)));
  RegisterJvp(*p.asinh, UnaryJvpRule(p.asinh, rsqrt_of(1, 1)));
  // acosh: dx * rsqrt((x - 1) (x + 1)).
  RegisterJvp(*p.acosh,
              UnaryJvpRule(p.acosh, Times([](Builder& b, const Tracer& x,
                                             const Tracer&) -> absl::StatusOr<Tracer> {
                             AXE_ASSIGN_OR_RETURN(Tracer lo, Op(*B().sub, {x, Lit(b, 1, x)}));
                             AXE_ASSIGN_OR_RETURN(Tracer hi, Op(*B().add, {x, Lit(b, 1, x)}));
                             AXE_ASSIGN_OR_RETURN(Tracer prod, Product(lo, hi));
                             return Op(*B().rsqrt, {prod});
                           })));
  RegisterJvp(*p.atanh, UnaryJvpRule(p.atanh, Over([](Builder& b, const Tracer& x, const Tracer&) {
                                       return OnePlus(b, x, -1);
                                     })));
  RegisterJvp(*p.sinh, UnaryJvpRule(p.sinh, Times([](Builder&, const Tracer& x, const Tracer&) {
                                      return Op(*B().cosh, {x});
                                    })));
  RegisterJvp(*p.cosh, UnaryJvpRule(p.cosh, Times([](Builder&, const Tracer& x, const Tracer&) {
                                      return Op(*B().sinh, {x});
                                    })));
  // cbrt: dx * (1/3) * out^-2.
  RegisterJvp(*p.cbrt, UnaryJvpRule(p.cbrt, Times([](Builder& b, const Tracer&,
                                                     const Tracer& out) -> absl::StatusOr<Tracer> {
                                      Params y;
                                      y["y"] = Param::Int(-2);
                                      AXE_ASSIGN_OR_RETURN(Tracer inv,
                                                           Op(*B().integer_pow, {out}, y));
                                      return Product(Lit(b, 1.0 / 3.0, inv), inv);
                                    })));
  // exp2: dx * out * log(2).
  RegisterJvp(*p.exp2, UnaryJvpRule(p.exp2, Times([](Builder& b, const Tracer&, const Tracer& out) {
                                      return Product(out, Lit(b, std::numbers::ln2, out));
                                    })));
  RegisterJvp(*p.atan2, BinaryJvpRule(p.atan2, Atan2Deriv));
  // lgamma: dx * digamma(x). (digamma's own, polygamma(1, x), is not modelled.)
  RegisterJvp(*p.lgamma, UnaryJvpRule(p.lgamma, Times([](Builder&, const Tracer& x, const Tracer&) {
                                        return Op(*B().digamma, {x});
                                      })));
}

struct Entry {
  const Primitive* BuiltinPrimitives::*field;
  const char* name;
  bool accuracy;
  size_t arity;
  Accepts accepts;
  ElementFn impl;
};

std::vector<Entry> Entries() {
  using P = BuiltinPrimitives;
  const Accepts f = Accepts::kFloating, i = Accepts::kInteger;
  return {
      {&P::erf, "erf", false, 1, f, Unary(Erf)},
      {&P::erfc, "erfc", false, 1, f, Unary(Erfc)},
      {&P::erf_inv, "erf_inv", false, 1, f, Unary(axe::ErfInv)},
      {&P::expm1, "expm1", true, 1, f, Unary(Expm1)},
      {&P::tan, "tan", true, 1, f, Unary(Tan)},
      {&P::atan, "atan", false, 1, f, Unary(Atan)},
      {&P::asin, "asin", false, 1, f, Unary(Asin)},
      {&P::acos, "acos", false, 1, f, Unary(Acos)},
      {&P::sinh, "sinh", false, 1, f, Unary(Sinh)},
      {&P::cosh, "cosh", false, 1, f, Unary(Cosh)},
      {&P::asinh, "asinh", false, 1, f, Unary(Asinh)},
      {&P::acosh, "acosh", false, 1, f, Unary(Acosh)},
      {&P::atanh, "atanh", false, 1, f, Unary(Atanh)},
      {&P::cbrt, "cbrt", true, 1, f, Unary(Cbrt)},
      {&P::exp2, "exp2", true, 1, f, Unary(Exp2)},
      {&P::lgamma, "lgamma", false, 1, f, Unary(LGamma)},
      {&P::digamma, "digamma", false, 1, f, Unary(axe::Digamma)},
      {&P::bessel_i0e, "bessel_i0e", false, 1, f, Unary(BesselI0e)},
      {&P::bessel_i1e, "bessel_i1e", false, 1, f, Unary(BesselI1e)},
      {&P::igamma, "igamma", false, 2, f,
       [](absl::Span<const double> v, DType, const Params&) {
         return IncompleteGamma(v[0], v[1], false);
       }},
      {&P::igammac, "igammac", false, 2, f,
       [](absl::Span<const double> v, DType, const Params&) {
         return IncompleteGamma(v[0], v[1], true);
       }},
      {&P::atan2, "atan2", false, 2, f,
       [](absl::Span<const double> v, DType, const Params&) { return std::atan2(v[0], v[1]); }},
      {&P::nextafter, "nextafter", false, 2, f,
       [](absl::Span<const double> v, DType t, const Params&) { return NextAfter(v[0], v[1], t); }},
      {&P::shift_left, "shift_left", false, 2, i, ShiftFn(Shift::kLeft)},
      {&P::shift_right_logical, "shift_right_logical", false, 2, i, ShiftFn(Shift::kRightLogical)},
      {&P::shift_right_arithmetic, "shift_right_arithmetic", false, 2, i,
       ShiftFn(Shift::kRightArithmetic)},
      {&P::xor_, "xor", false, 2, Accepts::kIntegerOrBool, XorValue},
      {&P::population_count, "population_count", false, 1, i, PopulationCount},
      {&P::clz, "clz", false, 1, i, CountLeadingZeros},
  };
}

}  // namespace math_family

void DefineMath(BuiltinPrimitives& p) {
  for (const math_family::Entry& e : math_family::Entries()) {
    p.*e.field = math_family::Define(e.name, e.accuracy);
  }
}

void RegisterMathRules(const BuiltinPrimitives& p) {
  for (const math_family::Entry& e : math_family::Entries()) {
    const Primitive* prim = p.*e.field;
    RegisterAbstractEval(*prim, math_family::Nary(e.name, e.arity, e.accepts));
    RegisterImpl(*prim, ElementwiseImplRule(*prim, e.impl));
    RegisterBatching(*prim, ElementwiseBatching(prim));
    if (e.accepts != math_family::Accepts::kFloating) {
      RegisterJvp(*prim, ZeroTangentJvpRule(prim));
    }
  }
  math_family::RegisterFloatingJvps(p);
}

}  // namespace axe::ir::internal
