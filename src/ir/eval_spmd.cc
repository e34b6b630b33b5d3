// The lockstep SPMD interpreter: environment, equation dispatch, ordinary equations.
#include "eval_spmd.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "axe/ir/primitive.h"
#include "axe/ir/primitives.h"
#include "eval_control.h"
#include "eval_util.h"

namespace axe::ir::internal {

absl::Status SpmdExecutor::ForEachPosition(const SpmdScope& scope,
                                           const std::function<absl::Status(int64_t)>& fn) {
  for (int64_t i = 0; i < scope.count; ++i) AXE_RETURN_IF_ERROR(fn(i));
  return absl::OkStatus();
}

absl::StatusOr<Replicas> SpmdExecutor::Collective(const sharding::Mesh& mesh, const Eqn& eqn,
                                                  const Replicas& x, const ShapedArray& out_aval) {
  return HostCollective(mesh, eqn, x, out_aval);
}

SpmdExecutor& HostExecutor() {
  static SpmdExecutor* executor = new SpmdExecutor();
  return *executor;
}

namespace {

absl::StatusOr<HostArray> LiteralArray(const Literal& literal) {
  if (literal.kind() == Literal::Kind::kElided) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot evaluate the elided constant [...]:", literal.aval().ShortString()));
  }
  AXE_ASSIGN_OR_RETURN(HostArray a, ZeroArray(literal.aval()));
  a.values[0] = RoundToDType(literal.AsDouble(), literal.aval().dtype());
  return a;
}

class Env {
 public:
  Env(const Jaxpr& jaxpr, int64_t count) : count_(count), values_(jaxpr.vars.size()) {}

  absl::Status Bind(VarId id, Replicas value) {
    if (id < 0 || static_cast<size_t>(id) >= values_.size()) {
      return absl::InternalError(absl::StrCat("variable ", id, " is not in the jaxpr's table"));
    }
    values_[static_cast<size_t>(id)] = std::move(value);
    return absl::OkStatus();
  }

  absl::StatusOr<Replicas> Read(const Atom& atom) const {
    if (atom.is_literal()) {
      AXE_ASSIGN_OR_RETURN(HostArray a, LiteralArray(*atom.literal));
      return Replicas(static_cast<size_t>(count_), a);
    }
    if (atom.var < 0 || static_cast<size_t>(atom.var) >= values_.size() ||
        !values_[static_cast<size_t>(atom.var)]) {
      return absl::InvalidArgumentError(
          absl::StrCat("variable ", atom.var, " is read before it is bound"));
    }
    return *values_[static_cast<size_t>(atom.var)];
  }

 private:
  int64_t count_;
  std::vector<std::optional<Replicas>> values_;
};

// An ordinary equation: the impl rule at every position.
absl::StatusOr<std::vector<Replicas>> EvalLocal(const Eqn& eqn, const std::vector<Replicas>& in,
                                                const SpmdScope& scope) {
  AXE_ASSIGN_OR_RETURN(ImplRule rule, GetImplRule(*eqn.primitive));
  std::vector<Replicas> out(eqn.outputs.size(), Replicas(static_cast<size_t>(scope.count)));
  AXE_RETURN_IF_ERROR(scope.executor->ForEachPosition(scope, [&](int64_t p) -> absl::Status {
    std::vector<HostArray> args;
    for (const Replicas& r : in) args.push_back(r[static_cast<size_t>(p)]);
    AXE_ASSIGN_OR_RETURN(std::vector<HostArray> results, rule(args, eqn.params));
    if (results.size() != out.size()) {
      return absl::InternalError(absl::StrCat("the impl rule of ", eqn.primitive->name(),
                                              " returned ", results.size(), " results, not ",
                                              out.size()));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      out[i][static_cast<size_t>(p)] = std::move(results[i]);
    }
    return absl::OkStatus();
  }));
  return out;
}

absl::StatusOr<std::vector<Replicas>> EvalEqn(const Jaxpr& jaxpr, const Eqn& eqn,
                                              std::vector<Replicas> in, const SpmdScope& scope) {
  std::vector<ShapedArray> out_avals;
  for (VarId v : eqn.outputs) {
    if (v < 0 || static_cast<size_t>(v) >= jaxpr.vars.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("variable ", v, " is not in the jaxpr's table"));
    }
    out_avals.push_back(jaxpr.aval(v).WithVma({}));
  }
  std::optional<absl::StatusOr<std::vector<Replicas>>> special =
      EvalSpecial(eqn, in, out_avals, scope);
  if (special) return std::move(*special);
  return EvalLocal(eqn, in, scope);
}

}  // namespace

absl::StatusOr<std::vector<Replicas>> EvalSpmd(const ClosedJaxpr& closed,
                                               std::vector<Replicas> args, const SpmdScope& scope) {
  const Jaxpr& jaxpr = closed.jaxpr;
  if (args.size() != jaxpr.invars.size() || closed.consts.size() != jaxpr.constvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a jaxpr with ", jaxpr.invars.size(), " inputs and ", jaxpr.constvars.size(),
        " constants got ", args.size(), " arguments and ", closed.consts.size(), " constants"));
  }
  Env env(jaxpr, scope.count);
  for (size_t i = 0; i < jaxpr.constvars.size(); ++i) {
    AXE_RETURN_IF_ERROR(
        env.Bind(jaxpr.constvars[i], Replicas(static_cast<size_t>(scope.count), closed.consts[i])));
  }
  for (size_t i = 0; i < jaxpr.invars.size(); ++i) {
    AXE_RETURN_IF_ERROR(env.Bind(jaxpr.invars[i], std::move(args[i])));
  }
  for (const Eqn& eqn : jaxpr.eqns) {
    std::vector<Replicas> in;
    for (const Atom& a : eqn.inputs) {
      AXE_ASSIGN_OR_RETURN(Replicas r, env.Read(a));
      in.push_back(std::move(r));
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Replicas> out, EvalEqn(jaxpr, eqn, std::move(in), scope));
    if (out.size() != eqn.outputs.size()) {
      return absl::InternalError(absl::StrCat(eqn.primitive->name(), " gave ", out.size(),
                                              " results for ", eqn.outputs.size(), " outputs"));
    }
    for (size_t i = 0; i < out.size(); ++i) {
      AXE_RETURN_IF_ERROR(env.Bind(eqn.outputs[i], std::move(out[i])));
    }
  }
  std::vector<Replicas> results;
  for (const Atom& a : jaxpr.outvars) {
    AXE_ASSIGN_OR_RETURN(Replicas r, env.Read(a));
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace axe::ir::internal
