// JVP rules of integer_pow, clamp and cumlogsumexp, and the linear rules
// (JVP and transpose) of add_any and cumsum (cumprod, cummax and cummin: rules_jvp_cumulative.cc).
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Cts = absl::StatusOr<std::vector<OptTracer>>;

const BuiltinPrimitives& MorePrims() { return Builtins(); }

void RegisterJvpIfMissing(const Primitive* p, JvpRule rule) {
  if (!GetJvpRule(*p).ok()) RegisterJvp(*p, std::move(rule));
}

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

// d out_i = sum_{j <= i} exp(x_j - out_i) dx_j, computed as
// cumsum(exp(x - m) * dx) * exp(m - out) with m the maximum along the axis.
absl::StatusOr<JvpResult> CumLogSumExpJvp(Builder&, absl::Span<const Tracer> primals,
                                          absl::Span<const OptTracer> tangents,
                                          const Params& params) {
  const Tracer& x = primals[0];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*MorePrims().cumlogsumexp, {x}, params));
  if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "cumlogsumexp", "axis"));
  AXE_ASSIGN_OR_RETURN(Tracer m, ReduceMax(x, {axis}));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
    if (d != axis) kept.push_back(d);
  }
  AXE_ASSIGN_OR_RETURN(Tracer wide, BroadcastInDim(m, x.aval.shape(), kept));
  AXE_ASSIGN_OR_RETURN(Tracer shifted, Op(*MorePrims().sub, {x, wide}));
  AXE_ASSIGN_OR_RETURN(Tracer weights, Op(*MorePrims().exp, {shifted}));
  AXE_ASSIGN_OR_RETURN(Tracer weighted, Op(*MorePrims().mul, {weights, *tangents[0]}));
  Params cumsum_params = params;
  cumsum_params.erase("reverse");
  if (auto it = params.find("reverse"); it != params.end()) cumsum_params["reverse"] = it->second;
  AXE_ASSIGN_OR_RETURN(Tracer sums, Op(*MorePrims().cumsum, {weighted}, cumsum_params));
  AXE_ASSIGN_OR_RETURN(Tracer back, Op(*MorePrims().sub, {wide, out}));
  AXE_ASSIGN_OR_RETURN(Tracer scale, Op(*MorePrims().exp, {back}));
  AXE_ASSIGN_OR_RETURN(Tracer t, Op(*MorePrims().mul, {sums, scale}));
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

// cumsum's transpose runs the other way along the axis.
Cts CumsumTranspose(Builder&, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                    const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  bool reverse = false;
  if (auto it = params.find("reverse"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(reverse, it->second.AsBool("reverse"));
  }
  Params flipped = params;
  flipped["reverse"] = Param::Bool(!reverse);
  AXE_ASSIGN_OR_RETURN(out[0], Op(*MorePrims().cumsum, {*cts[0]}, flipped));
  return out;
}

}  // namespace

void RegisterMoreLinearRules(const BuiltinPrimitives& p) {
  DefLinear2(*p.add_any, AddAnyTranspose);
  DefLinear2(*p.cumsum, CumsumTranspose);
}

void RegisterMoreJvps(const BuiltinPrimitives& p) {
  RegisterJvpIfMissing(p.integer_pow, IntegerPowJvp);
  RegisterJvpIfMissing(p.clamp, ClampJvp);
  RegisterJvpIfMissing(p.cumlogsumexp, CumLogSumExpJvp);
  RegisterCumulativeJvps(p);
  RegisterCustomCallJvps(p);
}

}  // namespace axe::ir::internal
