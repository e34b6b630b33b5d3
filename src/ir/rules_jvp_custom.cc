// JVP rules of custom_jvp_call and custom_vjp_call. A printed jaxpr names their custom rules
// (jvp=..., fwd=..., bwd=...) but does not carry them: they are Python functions. jax.nn's
// relu and relu6 have their rules here (JAX's own, exact at the kinks); any other
// custom_jvp_call is differentiated through its call_jaxpr, and a custom_vjp_call, whose
// backward rule may be anything (gradient clipping, straight-through estimators), is refused.
#include <string>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"

namespace axe::ir::internal {
namespace {

const BuiltinPrimitives& CustomPrims() { return Builtins(); }

std::string CustomCallParam(const Params& params, const std::string& key) {
  auto it = params.find(key);
  return it == params.end() ? std::string() : it->second.ToString();
}

// The tangent of jax.nn.relu (`relu6` false) or jax.nn.relu6 (`relu6` true): dx where
// 0 < x (and x < 6), else 0; so 0 at the kinks, as JAX's custom rules give.
absl::StatusOr<Tracer> ReluTangent(Builder& b, const Tracer& x, const Tracer& dx, bool relu6) {
  DType t = x.aval.dtype();
  AXE_ASSIGN_OR_RETURN(Tracer pass, Op(*CustomPrims().gt, {x, b.Scalar(0, t)}));
  if (relu6) {
    AXE_ASSIGN_OR_RETURN(Tracer below, Op(*CustomPrims().lt, {x, b.Scalar(6, t)}));
    AXE_ASSIGN_OR_RETURN(pass, Op(*CustomPrims().and_, {pass, below}));
  }
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, dx.aval));
  return Op(*CustomPrims().select_n, {pass, zeros, dx});
}

absl::StatusOr<JvpResult> CustomJvpCallJvp(Builder& b, absl::Span<const Tracer> primals,
                                           absl::Span<const OptTracer> tangents,
                                           const Params& params) {
  std::string name = CustomCallParam(params, "name");
  bool known = (name == "relu" || name == "relu6") && primals.size() == 1 &&
               IsFloatingPoint(primals[0].aval.dtype());
  if (!known) {
    AXE_ASSIGN_OR_RETURN(JvpRule call, GetJvpRule(*CustomPrims().closed_call));
    return call(b, primals, tangents, params);
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       b.Bind(*CustomPrims().custom_jvp_call, primals, params));
  if (outs.size() != 1 || outs[0].aval.shape() != primals[0].aval.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom_jvp_call ", name, ": expected one result of its operand's shape"));
  }
  JvpResult r{outs, {std::nullopt}};
  if (!tangents[0]) return r;
  AXE_ASSIGN_OR_RETURN(Tracer t, ReluTangent(b, primals[0], *tangents[0], name == "relu6"));
  r.tangents_out[0] = t;
  return r;
}

absl::StatusOr<JvpResult> CustomVjpCallJvp(Builder&, absl::Span<const Tracer>,
                                           absl::Span<const OptTracer>, const Params& params) {
  return absl::UnimplementedError(absl::StrCat(
      "cannot differentiate custom_vjp_call (name=", CustomCallParam(params, "name"),
      "): its custom rule (fwd=", CustomCallParam(params, "fwd"),
      ", bwd=", CustomCallParam(params, "bwd"),
      ") is a Python function that the printed jaxpr does not carry, and differentiating its "
      "call_jaxpr instead would ignore the rule; differentiate with JAX and pass the printed "
      "gradient jaxpr"));
}

}  // namespace

void RegisterCustomCallJvps(const BuiltinPrimitives& p) {
  RegisterIfMissing(p.custom_jvp_call, CustomJvpCallJvp);
  RegisterIfMissing(p.custom_vjp_call, CustomVjpCallJvp);
}

}  // namespace axe::ir::internal
