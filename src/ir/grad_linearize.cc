// Linearize (ad.h): the JVP jaxpr split by partial evaluation into the equations that need
// only primals and those that involve tangents.
#include "absl/container/flat_hash_set.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"

namespace axe::ir {
namespace {

struct Split {
  std::vector<bool> unknown;      // per variable: depends on a tangent input
  std::vector<bool> eqn_unknown;  // per equation
  std::vector<VarId> residuals;   // known variables the linear part reads, first-use order
};

Split Partition(const Jaxpr& j, size_t num_primals, size_t num_outs) {
  Split s{std::vector<bool>(j.vars.size()), std::vector<bool>(j.eqns.size()), {}};
  for (size_t i = num_primals; i < j.invars.size(); ++i) s.unknown[j.invars[i]] = true;
  absl::flat_hash_set<VarId> seen;
  auto use = [&](const Atom& a) {
    if (!a.is_literal() && !s.unknown[a.var] && seen.insert(a.var).second) {
      s.residuals.push_back(a.var);
    }
  };
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    for (const Atom& a : j.eqns[k].inputs) {
      if (!a.is_literal() && s.unknown[a.var]) s.eqn_unknown[k] = true;
    }
    if (!s.eqn_unknown[k]) continue;
    for (VarId o : j.eqns[k].outputs) s.unknown[o] = true;
    for (const Atom& a : j.eqns[k].inputs) use(a);
  }
  for (size_t k = num_outs; k < j.outvars.size(); ++k) use(j.outvars[k]);
  return s;
}

}  // namespace

absl::StatusOr<Linearized> Linearize(const ClosedJaxpr& f) {
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr jvp, Jvp(f));
  const Jaxpr& j = jvp.jaxpr;
  size_t n = f.jaxpr.invars.size(), m = f.jaxpr.outvars.size();
  Split s = Partition(j, n, m);
  for (size_t k = 0; k < m; ++k) {
    const Atom& a = j.outvars[k];
    if (!a.is_literal() && s.unknown[a.var]) {
      return absl::InternalError("linearize: a primal output depends on a tangent");
    }
  }
  Jaxpr primal = j, linear = j;
  primal.invars.assign(j.invars.begin(), j.invars.begin() + n);
  primal.eqns.clear();
  linear.eqns.clear();
  for (size_t k = 0; k < j.eqns.size(); ++k) {
    (s.eqn_unknown[k] ? linear : primal).eqns.push_back(j.eqns[k]);
  }
  primal.outvars.assign(j.outvars.begin(), j.outvars.begin() + m);
  for (VarId r : s.residuals) primal.outvars.push_back(Atom::OfVar(r));
  linear.constvars.clear();
  linear.invars = s.residuals;
  linear.invars.insert(linear.invars.end(), j.invars.begin() + n, j.invars.end());
  linear.outvars.assign(j.outvars.begin() + m, j.outvars.end());
  Linearized out;
  out.primal = ClosedJaxpr{primal.Canonical(), jvp.consts};
  out.linear = ClosedJaxpr{linear.Canonical(), {}};
  out.num_residuals = s.residuals.size();
  return out;
}

}  // namespace axe::ir
