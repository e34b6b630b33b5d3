// Dead-code elimination of the programs reverse mode builds: equations none of whose outputs
// is used (and that have no effects) are dropped, inside shard_map and jit bodies too (their
// outputs are kept). The forward pass re-emitted by BackwardPass computes values, such as the
// primal output, that the gradient does not need.
#include <memory>

#include "axe/ir/primitive.h"
#include "jvp_util.h"

namespace axe::ir::internal {
namespace {

Jaxpr Eliminate(const Jaxpr& j);

// The equation with the bodies of its jaxpr-valued "jaxpr" param cleaned.
Eqn CleanBody(const Eqn& e) {
  Eqn out = e;
  auto it = out.params.find("jaxpr");
  if (it == out.params.end() || it->second.jaxpr() == nullptr) return out;
  const ClosedJaxpr& body = *it->second.jaxpr();
  it->second = Param::Jaxpr(
      std::make_shared<const ClosedJaxpr>(ClosedJaxpr{Eliminate(body.jaxpr), body.consts}));
  return out;
}

Jaxpr Eliminate(const Jaxpr& j) {
  std::vector<bool> used(j.vars.size(), false);
  for (const Atom& a : j.outvars) {
    if (!a.is_literal()) used[a.var] = true;
  }
  std::vector<bool> keep(j.eqns.size(), false);
  for (size_t k = j.eqns.size(); k-- > 0;) {
    const Eqn& e = j.eqns[k];
    bool live = !e.effects.empty();
    for (VarId o : e.outputs) live = live || used[o];
    if (!live) continue;
    keep[k] = true;
    for (const Atom& a : e.inputs) {
      if (!a.is_literal()) used[a.var] = true;
    }
  }
  Jaxpr out = j;
  out.eqns.clear();
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    if (!keep[k]) continue;
    Eqn e = CleanBody(j.eqns[k]);
    for (VarId o : e.outputs) {
      if (!used[o]) out.vars[o].dropped = true;
    }
    out.eqns.push_back(std::move(e));
  }
  return out.Canonical();
}

}  // namespace

ClosedJaxpr DeadCodeEliminated(const ClosedJaxpr& jaxpr) {
  return ClosedJaxpr{Eliminate(jaxpr.jaxpr), jaxpr.consts};
}

}  // namespace axe::ir::internal
