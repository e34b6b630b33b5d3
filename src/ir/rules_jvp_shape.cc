// JVP rules of the structural primitives: those linear in some operands (the tangent is the
// primitive applied to the tangents), dot_general (bilinear) and reduce_max.
#include <numeric>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

enum class LinearOperands { kFirst, kFirstTwo, kAll, kAllButFirst };

bool IsLinear(LinearOperands which, size_t i) {
  switch (which) {
    case LinearOperands::kFirst: return i == 0;
    case LinearOperands::kFirstTwo: return i < 2;
    case LinearOperands::kAll: return true;
    case LinearOperands::kAllButFirst: return i > 0;
  }
  return false;
}

// out = prim(primals); tangent = prim(primals with the linear operands replaced by their
// tangents, symbolic zeros instantiated), or a symbolic zero when every one is zero.
JvpRule LinearJvp(const Primitive* prim, LinearOperands which) {
  return [prim, which](Builder& b, absl::Span<const Tracer> primals,
                       absl::Span<const OptTracer> tangents,
                       const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, primals, params));
    JvpResult r{outs, std::vector<OptTracer>(outs.size())};
    bool any = false;
    std::vector<Tracer> args(primals.begin(), primals.end());
    for (size_t i = 0; i < primals.size(); ++i) {
      if (!IsLinear(which, i)) continue;
      any = any || tangents[i].has_value();
      AXE_ASSIGN_OR_RETURN(args[i], Instantiate(b, tangents[i], primals[i].aval));
    }
    if (!any) return r;
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> touts, BindWithAutoPvary(*prim, args, params));
    for (size_t k = 0; k < touts.size(); ++k) r.tangents_out[k] = touts[k];
    return r;
  };
}

absl::StatusOr<JvpResult> DotGeneralJvp(Builder&, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const Primitive& dot = *Builtins().dot_general;
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(dot, primals, params));
  OptTracer a, c;
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(a, Op(dot, {*tangents[0], primals[1]}, params));
  }
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(c, Op(dot, {primals[0], *tangents[1]}, params));
  }
  AXE_ASSIGN_OR_RETURN(OptTracer t, AddTangents(a, c, out.aval));
  return JvpResult{{out}, {t}};
}

// The tangent at the maximal positions, averaged over ties (JAX's location-indicator rule).
// reduce_min likewise at the minimal positions.
JvpRule ReduceExtremumJvp(const Primitive* reduce) {
  return [reduce](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                  const Params& params) -> absl::StatusOr<JvpResult> {
    const BuiltinPrimitives& p = Builtins();
    const Tracer& x = primals[0];
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*reduce, {x}, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, reduce->name(), "axes"));
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
    }
    AXE_ASSIGN_OR_RETURN(Tracer wide, BroadcastInDim(out, x.aval.shape(), kept));
    AXE_ASSIGN_OR_RETURN(Tracer hit, Op(*p.eq, {x, wide}));
    AXE_ASSIGN_OR_RETURN(Tracer mask, ConvertElementType(hit, x.aval.dtype()));
    AXE_ASSIGN_OR_RETURN(Tracer picked, Op(*p.mul, {*tangents[0], mask}));
    AXE_ASSIGN_OR_RETURN(Tracer num, ReduceSum(picked, axes));
    AXE_ASSIGN_OR_RETURN(Tracer count, ReduceSum(mask, axes));
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*p.div, {num, count}));
    return JvpResult{{out}, {t}};
  };
}

}  // namespace

void RegisterShapeJvps() {
  const BuiltinPrimitives& p = Builtins();
  for (const Primitive* prim :
       {p.convert_element_type, p.broadcast_in_dim, p.reshape, p.squeeze, p.transpose, p.reduce_sum,
        p.slice, p.dynamic_slice, p.with_layout_constraint}) {
    RegisterIfMissing(prim, LinearJvp(prim, LinearOperands::kFirst));
  }
  RegisterIfMissing(p.dynamic_update_slice,
                    LinearJvp(p.dynamic_update_slice, LinearOperands::kFirstTwo));
  RegisterIfMissing(p.concatenate, LinearJvp(p.concatenate, LinearOperands::kAll));
  RegisterIfMissing(p.select_n, LinearJvp(p.select_n, LinearOperands::kAllButFirst));
  RegisterIfMissing(p.dot_general, DotGeneralJvp);
  RegisterIfMissing(p.reduce_max, ReduceExtremumJvp(p.reduce_max));
  RegisterIfMissing(p.reduce_min, ReduceExtremumJvp(p.reduce_min));
}

}  // namespace axe::ir::internal
