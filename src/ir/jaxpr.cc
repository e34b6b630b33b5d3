#include "axe/ir/jaxpr.h"

#include <vector>

namespace axe::ir {

std::vector<ShapedArray> Jaxpr::in_avals() const {
  std::vector<ShapedArray> out;
  for (VarId v : invars) out.push_back(aval(v));
  return out;
}

std::vector<ShapedArray> Jaxpr::out_avals() const {
  std::vector<ShapedArray> out;
  for (const Atom& a : outvars) out.push_back(aval(a));
  return out;
}

Jaxpr Jaxpr::Canonical() const {
  std::vector<VarId> new_id(vars.size(), -1);
  Jaxpr out;
  auto bind = [&](VarId v) -> VarId {
    if (v < 0 || static_cast<size_t>(v) >= vars.size()) return v;
    if (new_id[v] < 0) {
      new_id[v] = static_cast<VarId>(out.vars.size());
      out.vars.push_back(vars[v]);
    }
    return new_id[v];
  };
  for (VarId v : constvars) out.constvars.push_back(bind(v));
  for (VarId v : invars) out.invars.push_back(bind(v));
  std::vector<std::vector<VarId>> outputs;
  for (const Eqn& e : eqns) {
    std::vector<VarId> outs;
    for (VarId v : e.outputs) outs.push_back(bind(v));
    outputs.push_back(std::move(outs));
  }
  auto atom = [&](const Atom& a) { return a.is_literal() ? a : Atom::OfVar(bind(a.var)); };
  for (size_t i = 0; i < eqns.size(); ++i) {
    Eqn e = eqns[i];
    for (Atom& a : e.inputs) a = atom(a);
    e.outputs = std::move(outputs[i]);
    out.eqns.push_back(std::move(e));
  }
  for (const Atom& a : outvars) out.outvars.push_back(atom(a));
  out.effects = effects;
  return out;
}

}  // namespace axe::ir
