// DropVarianceTyping (drop_vma.h): a structural rewrite of the jaxpr and its nested bodies.
#include "axe/ir/drop_vma.h"

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/ir/check.h"
#include "axe/ir/primitives.h"

namespace axe::ir {
namespace {

constexpr int kMaxDropDepth = 64;

absl::StatusOr<Jaxpr> Rewrite(const Jaxpr& jaxpr, int depth);

absl::StatusOr<Param> RewriteParam(const Param& p, int depth) {
  if (p.kind() == Param::Kind::kJaxpr && p.jaxpr() != nullptr) {
    AXE_ASSIGN_OR_RETURN(Jaxpr body, Rewrite(p.jaxpr()->jaxpr, depth + 1));
    return Param::Jaxpr(
        std::make_shared<const ClosedJaxpr>(ClosedJaxpr{std::move(body), p.jaxpr()->consts}));
  }
  if (p.IsJaxprTuple()) {
    std::vector<Param> items;
    for (const Param& item : p.items()) {
      AXE_ASSIGN_OR_RETURN(Param q, RewriteParam(item, depth));
      items.push_back(std::move(q));
    }
    return Param::Tuple(std::move(items));
  }
  return p;
}

// The equation as check_vma = false binds it; nullopt for a pvary (dropped).
absl::StatusOr<std::optional<Eqn>> RewriteEqn(const Eqn& eqn, int depth) {
  const BuiltinPrimitives& b = Builtins();
  if (eqn.primitive == b.pvary) return std::optional<Eqn>();
  Eqn out = eqn;
  for (auto& [name, param] : out.params) {
    AXE_ASSIGN_OR_RETURN(param, RewriteParam(param, depth));
  }
  if (eqn.primitive == b.shard_map) out.params["check_vma"] = Param::Bool(false);
  if (eqn.primitive == b.psum_invariant) {
    out.primitive = b.psum;
    out.params["axis_index_groups"] = Param::None();
  }
  if (eqn.primitive == b.all_gather_invariant) out.primitive = b.all_gather;
  return std::optional<Eqn>(std::move(out));
}

absl::StatusOr<Jaxpr> Rewrite(const Jaxpr& jaxpr, int depth) {
  if (depth > kMaxDropDepth) {
    return absl::InvalidArgumentError("DropVarianceTyping: jaxprs nested over 64 deep");
  }
  Jaxpr out = jaxpr;
  for (Var& v : out.vars) v.aval = v.aval.WithVma({});
  out.eqns.clear();
  std::unordered_map<VarId, Atom> alias;  // a dropped pvary's output -> its operand
  auto resolve = [&](Atom a) {
    if (a.is_literal()) return a;
    auto it = alias.find(a.var);
    return it == alias.end() ? a : it->second;
  };
  for (const Eqn& eqn : jaxpr.eqns) {
    AXE_ASSIGN_OR_RETURN(std::optional<Eqn> e, RewriteEqn(eqn, depth));
    if (!e) {
      for (size_t i = 0; i < eqn.outputs.size() && i < eqn.inputs.size(); ++i) {
        alias[eqn.outputs[i]] = resolve(eqn.inputs[i]);
      }
      continue;
    }
    for (Atom& a : e->inputs) a = resolve(a);
    out.eqns.push_back(std::move(*e));
  }
  for (Atom& a : out.outvars) a = resolve(a);
  return out.Canonical();
}

}  // namespace

absl::StatusOr<ClosedJaxpr> DropVarianceTyping(const ClosedJaxpr& jaxpr) {
  AXE_ASSIGN_OR_RETURN(Jaxpr body, Rewrite(jaxpr.jaxpr, 0));
  ClosedJaxpr out{std::move(body), jaxpr.consts};
  AXE_RETURN_IF_ERROR(CheckJaxpr(out));
  return out;
}

}  // namespace axe::ir
