// JVP rules of custom_jvp_call and custom_vjp_call. A printed jaxpr names their custom rules
// (jvp=..., fwd=..., bwd=...) but does not carry them: they are Python functions. jax.nn's
// relu and relu6 have their rules here (JAX's own, exact at the kinks); the other custom_jvp
// functions of JAX's own library (logaddexp, softmax, xlogy, ...), whose rules are their
// bodies' derivatives made stable, are differentiated through their call_jaxpr. A user's
// custom_jvp_call or any custom_vjp_call, whose rule may be anything (gradient clipping,
// straight-through estimators, surrogate gradients), is refused.
#include <string>

#include "absl/container/flat_hash_set.h"
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

// The custom_jvp functions of JAX's own library (jax.nn, jax.numpy, jax.scipy.special) whose
// rule is the derivative of their body, written to be stable: differentiating the call_jaxpr
// gives their numbers.
bool IsJaxLibraryCustomJvp(const std::string& name) {
  static const auto* names = new absl::flat_hash_set<std::string>{
      "logaddexp",      "logaddexp2", "logit",    "xlogy",       "xlog1py",
      "_xlogx",         "log1mexp",   "_softmax", "log_ndtr",    "_sinc_maclaurin",
      "_erfcx",         "_i0",        "_dawsn",   "expi",        "fresnel",
      "sici",           "zeta",       "poch",     "_wofz",       "_owens_t_impl",
      "expn",           "_frexp",     "_det",     "_slogdet_lu", "_slogdet_qr",
      "_slogdet_small", "_pinv"};
  return names->contains(name);
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
  if (!known && IsJaxLibraryCustomJvp(name)) {
    AXE_ASSIGN_OR_RETURN(JvpRule call, GetJvpRule(*CustomPrims().closed_call));
    return call(b, primals, tangents, params);
  }
  if (!known) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot differentiate custom_jvp_call (name=", name,
        "): its custom rule (jvp=", CustomCallParam(params, "jvp"),
        ") is a Python function that the printed jaxpr does not carry, and differentiating its "
        "call_jaxpr instead would ignore the rule; differentiate with JAX and pass the printed "
        "gradient jaxpr"));
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
