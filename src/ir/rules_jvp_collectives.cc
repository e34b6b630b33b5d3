// JVP rules of pmax / pmin (the linear collectives get theirs from DefLinear2): the tangent
// of the members holding the extremum, averaged over ties (psum of the masked tangent over
// psum of the mask).
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

JvpRule ExtremumJvp(const Primitive* prim) {
  return [prim](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    AXE_ASSIGN_OR_RETURN(const Param* axes_param, GetParam(params, prim->name(), "axes"));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, axes_param->AsAxisNames("axes"));
    const BuiltinPrimitives& p = Builtins();
    AXE_ASSIGN_OR_RETURN(Tracer hit, Op(*p.eq, {primals[0], out}));
    AXE_ASSIGN_OR_RETURN(Tracer mask, ConvertElementType(hit, primals[0].aval.dtype()));
    AXE_ASSIGN_OR_RETURN(Tracer picked, Op(*p.mul, {*tangents[0], mask}));
    AXE_ASSIGN_OR_RETURN(Tracer num, Psum(picked, axes));
    AXE_ASSIGN_OR_RETURN(Tracer den, Psum(mask, axes));
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*p.div, {num, den}));
    return JvpResult{{out}, {t}};
  };
}

}  // namespace

void RegisterCollectiveJvps(const BuiltinPrimitives& p) {
  for (const Primitive* prim : {p.pmax, p.pmin}) {
    if (!GetJvpRule(*prim).ok()) RegisterJvp(*prim, ExtremumJvp(prim));
  }
}

}  // namespace axe::ir::internal
