// Forward-mode differentiation of jaxprs: JvpTrace and Jvp (ad.h).

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"

namespace axe::ir {
namespace {

using internal::OptTracer;

struct JvpEnv {
  std::vector<std::optional<Tracer>> primal;
  std::vector<OptTracer> tangent;
};

absl::Status JvpEqn(Builder& b, const Jaxpr& j, JvpEnv& env, const Eqn& e) {
  std::vector<Tracer> primals;
  std::vector<OptTracer> tangents;
  bool any = false;
  for (const Atom& a : e.inputs) {
    primals.push_back(a.is_literal() ? b.Lit(*a.literal) : *env.primal[a.var]);
    tangents.push_back(a.is_literal() ? std::nullopt : env.tangent[a.var]);
    any = any || tangents.back().has_value();
  }
  JvpResult r;
  if (!any) {
    AXE_ASSIGN_OR_RETURN(r.primals_out, b.Bind(*e.primitive, primals, e.params));
    r.tangents_out.resize(r.primals_out.size());
  } else {
    AXE_ASSIGN_OR_RETURN(JvpRule rule, GetJvpRule(*e.primitive));
    AXE_ASSIGN_OR_RETURN(r, rule(b, primals, tangents, e.params));
  }
  if (r.primals_out.size() != e.outputs.size() || r.tangents_out.size() != e.outputs.size()) {
    return absl::InternalError(absl::StrCat("the JVP rule of ", e.primitive->name(),
                                            " returned the wrong number of results"));
  }
  for (size_t k = 0; k < e.outputs.size(); ++k) {
    env.primal[e.outputs[k]] = r.primals_out[k];
    const OptTracer& t = r.tangents_out[k];
    bool keep = t.has_value() && internal::Differentiable(j.aval(e.outputs[k]).dtype());
    env.tangent[e.outputs[k]] = keep ? t : std::nullopt;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<JvpResult> JvpTrace(Builder& b, const ClosedJaxpr& jaxpr,
                                   absl::Span<const Tracer> primals,
                                   absl::Span<const std::optional<Tracer>> tangents) {
  AXE_RETURN_IF_ERROR(internal::CheckConstValues(jaxpr, "jvp"));
  const Jaxpr& j = jaxpr.jaxpr;
  if (primals.size() != j.invars.size() || tangents.size() != j.invars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("jvp: the jaxpr takes ", j.invars.size(),
                                                   " inputs, got ", primals.size(), " primals and ",
                                                   tangents.size(), " tangents"));
  }
  JvpEnv env{std::vector<std::optional<Tracer>>(j.vars.size()),
             std::vector<OptTracer>(j.vars.size())};
  for (size_t i = 0; i < jaxpr.consts.size(); ++i) {
    env.primal[j.constvars[i]] = b.Const(jaxpr.consts[i]);
  }
  for (size_t i = 0; i < primals.size(); ++i) {
    env.primal[j.invars[i]] = primals[i];
    if (internal::Differentiable(primals[i].aval.dtype())) env.tangent[j.invars[i]] = tangents[i];
  }
  for (const Eqn& e : j.eqns) AXE_RETURN_IF_ERROR(JvpEqn(b, j, env, e));
  JvpResult r;
  for (const Atom& a : j.outvars) {
    r.primals_out.push_back(a.is_literal() ? b.Lit(*a.literal) : *env.primal[a.var]);
    r.tangents_out.push_back(a.is_literal() ? std::nullopt : env.tangent[a.var]);
  }
  return r;
}

absl::StatusOr<ClosedJaxpr> Jvp(const ClosedJaxpr& jaxpr, std::vector<bool> with_tangent) {
  const Jaxpr& j = jaxpr.jaxpr;
  if (with_tangent.empty()) with_tangent.assign(j.invars.size(), true);
  if (with_tangent.size() != j.invars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "jvp: ", with_tangent.size(), " tangent flags for ", j.invars.size(), " inputs"));
  }
  Builder b;
  std::vector<Tracer> primals;
  for (VarId v : j.invars) primals.push_back(b.Arg(j.aval(v)));
  std::vector<OptTracer> tangents(primals.size());
  for (size_t i = 0; i < primals.size(); ++i) {
    if (with_tangent[i]) tangents[i] = b.Arg(j.aval(j.invars[i]));
  }
  AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(b, jaxpr, primals, tangents));
  std::vector<Tracer> outs = r.primals_out;
  for (size_t k = 0; k < r.tangents_out.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer t,
                         internal::Instantiate(b, r.tangents_out[k], r.primals_out[k].aval));
    outs.push_back(t);
  }
  return b.Build(outs);
}

}  // namespace axe::ir
