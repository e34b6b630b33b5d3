#include "axe/ir/transpose.h"

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitive.h"
#include "axe/ir/shard_map.h"

namespace axe::ir {
namespace {

struct Env {
  std::vector<std::optional<Tracer>> value;  // forward values of non-linear variables
  std::vector<bool> linear;                  // depends on a linear input
  std::vector<std::optional<Tracer>> ct;     // accumulated cotangents
};

absl::Status Accumulate(Env& env, VarId v, const Tracer& ct) {
  if (!env.ct[v]) {
    env.ct[v] = ct;
    return absl::OkStatus();
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sum,
                       BindWithAutoPvary(*Primitive::Find("add"), {*env.ct[v], ct}));
  env.ct[v] = sum[0];
  return absl::OkStatus();
}

Tracer AtomTracer(Builder& b, const Env& env, const Atom& a) {
  return a.is_literal() ? b.Lit(*a.literal) : *env.value[a.var];
}

// Re-emits a non-linear equation forward.
absl::Status Forward(Builder& b, Env& env, const Eqn& e) {
  std::vector<Tracer> args;
  for (const Atom& a : e.inputs) args.push_back(AtomTracer(b, env, a));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*e.primitive, args, e.params));
  for (size_t i = 0; i < outs.size() && i < e.outputs.size(); ++i)
    env.value[e.outputs[i]] = outs[i];
  return absl::OkStatus();
}

absl::Status Backward(Builder& b, const Jaxpr& j, Env& env, const Eqn& e) {
  std::vector<std::optional<Tracer>> cts;
  bool any = false;
  for (VarId o : e.outputs) {
    cts.push_back(j.vars[o].dropped ? std::nullopt : env.ct[o]);
    any = any || cts.back().has_value();
  }
  if (!any) return absl::OkStatus();
  std::vector<TransposeArg> args;
  for (const Atom& a : e.inputs) {
    if (!a.is_literal() && env.linear[a.var]) {
      args.push_back(TransposeArg::Undefined(j.aval(a.var)));
    } else {
      args.push_back(TransposeArg::Defined(AtomTracer(b, env, a)));
    }
  }
  AXE_ASSIGN_OR_RETURN(TransposeRule rule, GetTransposeRule(*e.primitive));
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts, rule(b, cts, args, e.params));
  for (size_t i = 0; i < e.inputs.size() && i < in_cts.size(); ++i) {
    if (in_cts[i] && args[i].is_undefined_primal()) {
      AXE_RETURN_IF_ERROR(Accumulate(env, e.inputs[i].var, *in_cts[i]));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<std::vector<std::optional<Tracer>>> BackwardPass(
    Builder& b, const Jaxpr& j, absl::Span<const Tracer> consts,
    absl::Span<const std::optional<Tracer>> inputs, absl::Span<const std::optional<Tracer>> cts) {
  if (inputs.size() != j.invars.size() || cts.size() != j.outvars.size() ||
      consts.size() != j.constvars.size()) {
    return absl::InvalidArgumentError("BackwardPass: input, const or cotangent count mismatch");
  }
  Env env{std::vector<std::optional<Tracer>>(j.vars.size()), std::vector<bool>(j.vars.size()),
          std::vector<std::optional<Tracer>>(j.vars.size())};
  for (size_t i = 0; i < consts.size(); ++i) env.value[j.constvars[i]] = consts[i];
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (inputs[i]) {
      env.value[j.invars[i]] = inputs[i];
    } else {
      env.linear[j.invars[i]] = true;
    }
  }
  std::vector<bool> eqn_linear(j.eqns.size(), false);
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    const Eqn& e = j.eqns[k];
    for (const Atom& a : e.inputs) {
      if (!a.is_literal() && env.linear[a.var]) eqn_linear[k] = true;
    }
    if (eqn_linear[k]) {
      for (VarId o : e.outputs) env.linear[o] = true;
    } else {
      AXE_RETURN_IF_ERROR(Forward(b, env, e));
    }
  }
  for (size_t i = 0; i < cts.size(); ++i) {
    const Atom& a = j.outvars[i];
    if (cts[i] && !a.is_literal() && env.linear[a.var]) {
      AXE_RETURN_IF_ERROR(Accumulate(env, a.var, *cts[i]));
    }
  }
  for (size_t k = j.eqns.size(); k-- > 0;) {
    if (!eqn_linear[k]) continue;
    absl::Status s = Backward(b, j, env, j.eqns[k]);
    if (!s.ok()) return s;
  }
  std::vector<std::optional<Tracer>> out;
  for (size_t i = 0; i < inputs.size(); ++i) {
    out.push_back(inputs[i] ? std::nullopt : env.ct[j.invars[i]]);
  }
  return out;
}

absl::StatusOr<ClosedJaxpr> LinearTranspose(const ClosedJaxpr& jaxpr,
                                            const std::vector<bool>& linear) {
  const Jaxpr& j = jaxpr.jaxpr;
  if (linear.size() != j.invars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("LinearTranspose: ", linear.size(),
                                                   " flags for ", j.invars.size(), " inputs"));
  }
  Builder b;
  std::vector<Tracer> consts;
  for (const HostArray& c : jaxpr.consts) consts.push_back(b.Const(c));
  std::vector<std::optional<Tracer>> inputs;
  for (size_t i = 0; i < linear.size(); ++i) {
    inputs.push_back(linear[i] ? std::nullopt : std::optional<Tracer>(b.Arg(j.aval(j.invars[i]))));
  }
  std::vector<std::optional<Tracer>> cts;
  for (const Atom& a : j.outvars) cts.push_back(b.Arg(j.aval(a)));
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                       BackwardPass(b, j, consts, inputs, cts));
  std::vector<Tracer> outs;
  for (size_t i = 0; i < linear.size(); ++i) {
    if (!linear[i]) continue;
    if (in_cts[i]) {
      outs.push_back(*in_cts[i]);
    } else {
      AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, j.aval(j.invars[i])));
      outs.push_back(z);
    }
  }
  return b.Build(outs);
}

}  // namespace axe::ir
