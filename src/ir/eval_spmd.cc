// The lockstep SPMD interpreter: environment, equation dispatch, ordinary equations.
#include "eval_spmd.h"

#include <algorithm>
#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
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

bool SpmdExecutor::IsLive(const sharding::Mesh&, int64_t) const { return true; }

absl::StatusOr<Replicas> SpmdExecutor::ShareBlocks(const sharding::Mesh&, Replicas blocks) {
  return blocks;
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
  Env(const Jaxpr& jaxpr, int64_t count, MemoryMeter* meter)
      : count_(count), values_(jaxpr.vars.size()), meter_(meter) {}
  Env(const Env&) = delete;
  Env& operator=(const Env&) = delete;
  ~Env() {
    if (meter_ != nullptr) meter_->live -= charged_;
  }

  // Binds `value` to `id`, charging its bytes to the meter (refused past the budget).
  absl::Status Bind(VarId id, Replicas value) {
    if (id < 0 || static_cast<size_t>(id) >= values_.size()) {
      return absl::InternalError(absl::StrCat("variable ", id, " is not in the jaxpr's table"));
    }
    std::optional<Replicas>& slot = values_[static_cast<size_t>(id)];
    if (meter_ != nullptr) {
      const int64_t old = slot ? ValueBytes(*slot) : 0;
      const int64_t bytes = ValueBytes(value);
      meter_->live -= old;
      charged_ -= old;
      AXE_RETURN_IF_ERROR(meter_->Reserve(bytes, "holding the program's values"));
      meter_->live += bytes;
      charged_ += bytes;
    }
    slot = std::move(value);
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
  MemoryMeter* meter_;
  int64_t charged_ = 0;  // the bytes of values_, counted in meter_->live
};

// Reserves the copies of an equation's operands and its results before it runs.
absl::Status ReserveEqn(const Jaxpr& jaxpr, const Eqn& eqn, const SpmdScope& scope) {
  if (scope.memory == nullptr) return absl::OkStatus();
  std::optional<int64_t> total = 0;
  auto add = [&](const ShapedArray& aval) {
    std::optional<int64_t> bytes = ValueBytes(aval, scope.count);
    total = total && bytes ? CheckedAdd(*total, *bytes) : std::nullopt;
  };
  for (const Atom& a : eqn.inputs) {
    if (a.is_literal()) {
      add(a.literal->aval());
    } else if (a.var >= 0 && static_cast<size_t>(a.var) < jaxpr.vars.size()) {
      add(jaxpr.aval(a.var));
    }
  }
  for (VarId v : eqn.outputs) {
    if (v < 0 || static_cast<size_t>(v) >= jaxpr.vars.size()) continue;
    std::optional<int64_t> n = jaxpr.aval(v).NumElements();
    // A result over the per-value cap is refused as such when the equation creates it.
    if (!n || *n > kMaxEvalElements) return absl::OkStatus();
    add(jaxpr.aval(v));
  }
  return scope.memory->Reserve(total, absl::StrCat("evaluating ", eqn.primitive->name()));
}

// Positions this process does not compute get a copy of a live one's value.
absl::Status CopyToDeadPositions(std::vector<Replicas>& values, const SpmdScope& scope) {
  if (scope.mesh == nullptr) return absl::OkStatus();
  std::optional<size_t> live;
  std::vector<bool> dead;
  for (int64_t p = 0; p < scope.count; ++p) {
    bool is_live = scope.executor->IsLive(*scope.mesh, scope.first_position + p);
    dead.push_back(!is_live);
    if (is_live && !live) live = static_cast<size_t>(p);
  }
  if (!live) {
    if (scope.count == 0) return absl::OkStatus();
    return absl::FailedPreconditionError("this process computes no position of the mesh");
  }
  for (Replicas& r : values) {
    for (size_t p = 0; p < dead.size(); ++p) {
      if (dead[p]) r[p] = r[*live];
    }
  }
  return absl::OkStatus();
}

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
  AXE_RETURN_IF_ERROR(CopyToDeadPositions(out, scope));
  return out;
}

// Takes the equation's cost (its results' elements, at least kEvalEqnCost for the
// interpreter's own work per equation, times the positions) from the budget.
int64_t EqnCost(const Jaxpr& jaxpr, const Eqn& eqn) {
  int64_t cost = kEvalEqnCost;
  for (VarId v : eqn.outputs) {
    if (v < 0 || static_cast<size_t>(v) >= jaxpr.vars.size()) continue;  // EvalEqn reports it
    std::optional<int64_t> n = jaxpr.aval(v).NumElements();
    cost = std::max(cost, n.value_or(kEvalBudget));
  }
  return cost;
}

int64_t SaturatingAdd(int64_t a, int64_t b) { return std::min(kEvalBudget + 1, a + b); }
int64_t SaturatingMul(int64_t a, int64_t b) {
  std::optional<int64_t> p = CheckedMul(a, b);
  return p ? std::min(kEvalBudget + 1, *p) : kEvalBudget + 1;
}

int64_t TotalCost(const Jaxpr& jaxpr);

// What the nested jaxprs of an equation cost when it runs: a scan's body `length` times, a
// shard_map's body on every device, the costliest cond branch, a call's body.
int64_t NestedCost(const Eqn& eqn) {
  int64_t nested = 0;
  for (const auto& [name, param] : eqn.params) {
    if (param.kind() == Param::Kind::kJaxpr && param.jaxpr() != nullptr) {
      nested = SaturatingAdd(nested, TotalCost(param.jaxpr()->jaxpr));
    }
    for (const Param& item : param.items()) {
      if (item.kind() == Param::Kind::kJaxpr && item.jaxpr() != nullptr) {
        nested = std::max(nested, TotalCost(item.jaxpr()->jaxpr));
      }
    }
  }
  const Param* times = nullptr;
  if (auto it = eqn.params.find("length"); it != eqn.params.end()) times = &it->second;
  if (times != nullptr && times->kind() == Param::Kind::kInt) {
    nested = SaturatingMul(nested, std::max<int64_t>(times->int_value(), 0));
  }
  if (auto it = eqn.params.find("mesh"); it != eqn.params.end()) {
    absl::StatusOr<sharding::Mesh> mesh = it->second.AsMesh("mesh");
    if (mesh.ok()) nested = SaturatingMul(nested, mesh->num_devices());
  }
  return nested;
}

// The largest `length` of a scan in `jaxpr` or the jaxprs nested in it (0: none).
int64_t LongestScan(const Jaxpr& jaxpr) {
  int64_t longest = 0;
  for (const Eqn& eqn : jaxpr.eqns) {
    for (const auto& [name, param] : eqn.params) {
      if (name == "length" && param.kind() == Param::Kind::kInt) {
        longest = std::max(longest, param.int_value());
      }
      if (param.kind() == Param::Kind::kJaxpr && param.jaxpr() != nullptr) {
        longest = std::max(longest, LongestScan(param.jaxpr()->jaxpr));
      }
      for (const Param& item : param.items()) {
        if (item.kind() == Param::Kind::kJaxpr && item.jaxpr() != nullptr) {
          longest = std::max(longest, LongestScan(item.jaxpr()->jaxpr));
        }
      }
    }
  }
  return longest;
}

int64_t TotalCost(const Jaxpr& jaxpr) {
  int64_t cost = 0;
  for (const Eqn& eqn : jaxpr.eqns) {
    cost = SaturatingAdd(cost, SaturatingAdd(EqnCost(jaxpr, eqn), NestedCost(eqn)));
  }
  return cost;
}

absl::Status Charge(const Jaxpr& jaxpr, const Eqn& eqn, const SpmdScope& scope) {
  if (scope.budget == nullptr) return absl::OkStatus();
  std::optional<int64_t> total = CheckedMul(EqnCost(jaxpr, eqn), std::max<int64_t>(scope.count, 1));
  if (!total || *total > *scope.budget) {
    return absl::ResourceExhaustedError(
        absl::StrCat("evaluation stopped at ", eqn.primitive->name(),
                     ": the program needs more than ", kEvalBudget, " element operations"));
  }
  *scope.budget -= *total;
  return absl::OkStatus();
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

absl::Status MemoryMeter::Reserve(std::optional<int64_t> more, absl::string_view what) const {
  std::optional<int64_t> total = more ? CheckedAdd(live, *more) : std::nullopt;
  return budget.Check(total, absl::StrCat(what, " (with the values already held)"));
}

std::optional<int64_t> ValueBytes(const ShapedArray& aval, int64_t count) {
  std::optional<int64_t> n = aval.NumElements();
  std::optional<int64_t> bytes = n ? CheckedMul(*n, int64_t{sizeof(double)}) : std::nullopt;
  if (bytes) bytes = CheckedAdd(*bytes, kValueOverheadBytes);
  return bytes ? CheckedMul(*bytes, std::max<int64_t>(count, 1)) : std::nullopt;
}

int64_t ValueBytes(const Replicas& values) {
  int64_t bytes = 0;
  for (const HostArray& a : values) {
    bytes += static_cast<int64_t>(a.values.size() * sizeof(double)) + kValueOverheadBytes;
  }
  return bytes;
}

absl::Status CheckAffordable(int64_t times, const Jaxpr& body, const SpmdScope& scope) {
  if (scope.budget == nullptr) return absl::OkStatus();
  std::optional<int64_t> total = CheckedMul(TotalCost(body), times);
  if (total) total = CheckedMul(*total, std::max<int64_t>(scope.count, 1));
  if (!total || *total > *scope.budget) {
    return absl::ResourceExhaustedError(absl::StrCat("evaluation stopped: a loop of ", times,
                                                     " iterations needs more than ", kEvalBudget,
                                                     " element operations"));
  }
  return absl::OkStatus();
}

absl::Status CheckProgramAffordable(const Jaxpr& program, const SpmdScope& scope) {
  if (scope.budget == nullptr) return absl::OkStatus();
  std::optional<int64_t> total = CheckedMul(TotalCost(program), std::max<int64_t>(scope.count, 1));
  if (total && *total <= *scope.budget) return absl::OkStatus();
  std::string why;
  if (int64_t longest = LongestScan(program); longest > 1) {
    why = absl::StrCat(" (it holds a scan of length ", longest, ")");
  }
  return absl::ResourceExhaustedError(absl::StrCat(
      "evaluation refused: the program needs more than ", kEvalBudget, " element operations", why));
}

absl::StatusOr<std::vector<Replicas>> EvalSpmd(const ClosedJaxpr& closed,
                                               std::vector<Replicas> args, const SpmdScope& scope) {
  const Jaxpr& jaxpr = closed.jaxpr;
  if (args.size() != jaxpr.invars.size() || closed.consts.size() != jaxpr.constvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a jaxpr with ", jaxpr.invars.size(), " inputs and ", jaxpr.constvars.size(),
        " constants got ", args.size(), " arguments and ", closed.consts.size(), " constants"));
  }
  Env env(jaxpr, scope.count, scope.memory);
  for (size_t i = 0; i < jaxpr.constvars.size(); ++i) {
    AXE_RETURN_IF_ERROR(
        env.Bind(jaxpr.constvars[i], Replicas(static_cast<size_t>(scope.count), closed.consts[i])));
  }
  for (size_t i = 0; i < jaxpr.invars.size(); ++i) {
    AXE_RETURN_IF_ERROR(env.Bind(jaxpr.invars[i], std::move(args[i])));
  }
  for (const Eqn& eqn : jaxpr.eqns) {
    AXE_RETURN_IF_ERROR(Charge(jaxpr, eqn, scope));
    AXE_RETURN_IF_ERROR(ReserveEqn(jaxpr, eqn, scope));
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
  int64_t result_bytes = 0;
  for (const Atom& a : jaxpr.outvars) {
    if (scope.memory != nullptr && !a.is_literal() && a.var >= 0 &&
        static_cast<size_t>(a.var) < jaxpr.vars.size()) {
      std::optional<int64_t> bytes = ValueBytes(jaxpr.aval(a.var), scope.count);
      AXE_RETURN_IF_ERROR(scope.memory->Reserve(
          bytes ? CheckedAdd(*bytes, result_bytes) : std::nullopt, "copying the results"));
      result_bytes += *bytes;
    }
    AXE_ASSIGN_OR_RETURN(Replicas r, env.Read(a));
    results.push_back(std::move(r));
  }
  return results;
}

}  // namespace axe::ir::internal
