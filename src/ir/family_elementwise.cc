// JVP rules of the elementwise primitives (add ... pow, the unary functions, comparisons).
#include <functional>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"

namespace axe::ir::internal {
namespace {

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

void RegisterUnaryJvps(const BuiltinPrimitives& p) {
  RegisterIfMissing(p.neg, UnaryJvp(p.neg, [](Builder&, const Tracer&, const Tracer&,
                                              const Tracer& dx) { return Op(*P().neg, {dx}); }));
  RegisterIfMissing(p.exp, UnaryJvp(p.exp, [](Builder&, const Tracer&, const Tracer& out,
                                              const Tracer& dx) { return Times(dx, out); }));
  RegisterIfMissing(p.log,
                    UnaryJvp(p.log, [](Builder&, const Tracer& x, const Tracer&, const Tracer& dx) {
                      return Op(*P().div, {dx, x});
                    }));
  RegisterIfMissing(p.sin, UnaryJvp(p.sin,
                                    [](Builder&, const Tracer& x, const Tracer&,
                                       const Tracer& dx) -> absl::StatusOr<Tracer> {
                                      AXE_ASSIGN_OR_RETURN(Tracer c, Unary(*P().cos, x));
                                      return Times(dx, c);
                                    }));
  RegisterIfMissing(p.cos, UnaryJvp(p.cos,
                                    [](Builder&, const Tracer& x, const Tracer&,
                                       const Tracer& dx) -> absl::StatusOr<Tracer> {
                                      AXE_ASSIGN_OR_RETURN(Tracer s, Unary(*P().sin, x));
                                      AXE_ASSIGN_OR_RETURN(Tracer ns, Op(*P().neg, {s}));
                                      return Times(dx, ns);
                                    }));
  RegisterIfMissing(p.tanh,
                    UnaryJvp(p.tanh,
                             [](Builder& b, const Tracer&, const Tracer& out,
                                const Tracer& dx) -> absl::StatusOr<Tracer> {
                               AXE_ASSIGN_OR_RETURN(Tracer sq, Times(out, out));
                               AXE_ASSIGN_OR_RETURN(Tracer d, Op(*P().sub, {Lit(b, 1, out), sq}));
                               return Times(dx, d);
                             }));
  // d sqrt(x) = dx * (0.5 / out), as JAX writes it (inf at 0).
  RegisterIfMissing(
      p.sqrt, UnaryJvp(p.sqrt,
                       [](Builder& b, const Tracer&, const Tracer& out,
                          const Tracer& dx) -> absl::StatusOr<Tracer> {
                         AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {Lit(b, 0.5, out), out}));
                         return Times(dx, q);
                       }));
  RegisterIfMissing(p.abs, UnaryJvp(p.abs, AbsDeriv));
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

void RegisterMoreUnaryJvps(const BuiltinPrimitives& p) {
  RegisterIfMissing(p.square, UnaryJvp(p.square,
                                       [](Builder& b, const Tracer& x, const Tracer&,
                                          const Tracer& dx) -> absl::StatusOr<Tracer> {
                                         AXE_ASSIGN_OR_RETURN(Tracer twice, Times(Lit(b, 2, x), x));
                                         return Times(dx, twice);
                                       }));
  // d rsqrt(x) = dx * (-0.5 * out / x), as JAX writes it.
  RegisterIfMissing(p.rsqrt, UnaryJvp(p.rsqrt,
                                      [](Builder& b, const Tracer& x, const Tracer& out,
                                         const Tracer& dx) -> absl::StatusOr<Tracer> {
                                        AXE_ASSIGN_OR_RETURN(Tracer q, Op(*P().div, {out, x}));
                                        AXE_ASSIGN_OR_RETURN(Tracer h, Times(Lit(b, -0.5, x), q));
                                        return Times(dx, h);
                                      }));
  RegisterIfMissing(p.log1p,
                    UnaryJvp(p.log1p,
                             [](Builder& b, const Tracer& x, const Tracer&,
                                const Tracer& dx) -> absl::StatusOr<Tracer> {
                               AXE_ASSIGN_OR_RETURN(Tracer s, Op(*P().add, {x, Lit(b, 1, x)}));
                               return Op(*P().div, {dx, s});
                             }));
  RegisterIfMissing(
      p.logistic, UnaryJvp(p.logistic,
                           [](Builder& b, const Tracer&, const Tracer& out,
                              const Tracer& dx) -> absl::StatusOr<Tracer> {
                             AXE_ASSIGN_OR_RETURN(Tracer rest, Op(*P().sub, {Lit(b, 1, out), out}));
                             AXE_ASSIGN_OR_RETURN(Tracer d, Times(out, rest));
                             return Times(dx, d);
                           }));
}

}  // namespace

void RegisterElementwiseJvps(const BuiltinPrimitives& p) {
  RegisterUnaryJvps(p);
  RegisterMoreUnaryJvps(p);
  RegisterMoreJvps(p);
  RegisterIfMissing(p.rem, BinaryJvp(p.rem, RemDeriv));
  for (const Primitive* z :
       {p.and_, p.or_, p.not_, p.is_finite, p.round, p.floor, p.ceil, p.stop_gradient, p.argmax,
        p.argmin, p.reduce_or, p.reduce_and, p.reduce_xor}) {
    RegisterIfMissing(z, ZeroTangentJvp(z));
  }
  RegisterIfMissing(p.add, BinaryJvp(p.add, AddDeriv));
  RegisterIfMissing(p.sub, BinaryJvp(p.sub, SubDeriv));
  RegisterIfMissing(p.mul, BinaryJvp(p.mul, MulDeriv));
  RegisterIfMissing(p.div, BinaryJvp(p.div, DivDeriv));
  RegisterIfMissing(p.max, BinaryJvp(p.max, BalancedDeriv));
  RegisterIfMissing(p.min, BinaryJvp(p.min, BalancedDeriv));
  RegisterIfMissing(p.pow, BinaryJvp(p.pow, PowDeriv));
  for (const Primitive* z : {p.sign, p.eq, p.ne, p.lt, p.le, p.gt, p.ge, p.iota, p.axis_index}) {
    RegisterIfMissing(z, ZeroTangentJvp(z));
  }
}

JvpRule UnaryJvpRule(const Primitive* prim, UnaryDerivFn deriv) {
  return UnaryJvp(prim, std::move(deriv));
}

JvpRule BinaryJvpRule(const Primitive* prim, BinaryDerivFn deriv) {
  return BinaryJvp(prim, std::move(deriv));
}

JvpRule ZeroTangentJvpRule(const Primitive* prim) { return ZeroTangentJvp(prim); }

}  // namespace axe::ir::internal
