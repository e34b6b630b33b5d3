#include "axe/ir/check.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitive.h"
#include "axe/ir/printer.h"

namespace axe::ir {
namespace {

constexpr int kMaxDepth = 64;

// JAX raises JaxprTypeError (a TypeError) for the checker's own findings (unbound or rebound
// variables, inconsistent binder types); errors of a primitive's typing rule keep their kind.
absl::Status JaxprTypeError(absl::string_view message) { return axe::TypeError(message); }

// `s` with `context` appended to its message, still marked as a TypeError if it was one.
absl::Status WithContext(const absl::Status& s, absl::string_view context) {
  std::string message = absl::StrCat(s.message(), context);
  return IsTypeError(s) ? axe::TypeError(message) : absl::InvalidArgumentError(message);
}

absl::Status CheckAt(const Jaxpr& jaxpr, int depth);

// `jaxpr` as check_jaxpr names it in its messages: JAX seeds the names of the equation outputs
// that nothing reads with "_" (core._dropvars), so they print like drop vars.
Jaxpr UnusedAsDropped(const Jaxpr& jaxpr) {
  Jaxpr named = jaxpr;
  std::vector<bool> used(jaxpr.vars.size(), false);
  auto use = [&](const Atom& a) {
    if (!a.is_literal() && a.var >= 0 && static_cast<size_t>(a.var) < used.size()) {
      used[a.var] = true;
    }
  };
  for (const Atom& a : jaxpr.outvars) use(a);
  for (const Eqn& e : jaxpr.eqns) {
    for (const Atom& a : e.inputs) use(a);
  }
  for (const Eqn& e : jaxpr.eqns) {
    for (VarId v : e.outputs) {
      if (v >= 0 && static_cast<size_t>(v) < used.size() && !used[v]) named.vars[v].dropped = true;
    }
  }
  return named;
}

// The name check_jaxpr's messages give variable `v` of `jaxpr`.
std::string NameOf(const Jaxpr& jaxpr, VarId v) {
  std::vector<std::string> names = PrintedVarNames(UnusedAsDropped(jaxpr));
  if (v < 0 || static_cast<size_t>(v) >= names.size() || names[v].empty()) {
    return absl::StrCat("#", v);
  }
  return names[v];
}

absl::Status CheckParamForms(const Eqn& e) {
  for (const ParamSpec& spec : e.primitive->param_specs()) {
    auto it = e.params.find(spec.name);
    if (it == e.params.end()) {
      if (!spec.required) continue;
      return absl::InvalidArgumentError(absl::StrCat("primitive '", e.primitive->name(),
                                                     "' needs the parameter '", spec.name, "'"));
    }
    const Param& p = it->second;
    absl::Status s;
    switch (spec.type) {
      case ParamType::kAny: break;
      case ParamType::kInt: s = p.AsInt(spec.name).status(); break;
      case ParamType::kBool: s = p.AsBool(spec.name).status(); break;
      case ParamType::kInts: s = p.AsInts(spec.name).status(); break;
      case ParamType::kDType: s = p.AsDType(spec.name).status(); break;
      case ParamType::kAxisNames: s = p.AsAxisNames(spec.name).status(); break;
      case ParamType::kMesh: s = p.AsMesh(spec.name).status(); break;
      case ParamType::kJaxpr:
        if (p.kind() != Param::Kind::kJaxpr) {
          s = absl::InvalidArgumentError(absl::StrCat("parameter ", spec.name, " must be a jaxpr"));
        }
        break;
      case ParamType::kJaxprs:
        if (!p.IsJaxprTuple()) {
          s = absl::InvalidArgumentError(
              absl::StrCat("parameter ", spec.name, " must be a tuple of jaxprs"));
        }
        break;
      case ParamType::kPartitionSpecs:
        if (p.kind() != Param::Kind::kTuple) {
          s = absl::InvalidArgumentError(
              absl::StrCat("parameter ", spec.name, " must be a tuple of P(...)"));
        }
        for (const Param& item : p.items()) {
          if (s.ok()) s = item.AsPartitionSpec(spec.name).status();
        }
        break;
    }
    AXE_RETURN_IF_ERROR(s);
  }
  return absl::OkStatus();
}

absl::Status CheckNested(const Eqn& e, int depth) {
  std::optional<ScopedAxisEnv> scope;
  if (e.primitive->options().body_axis_env) {
    AXE_ASSIGN_OR_RETURN(std::optional<AxisEnv> env,
                         e.primitive->options().body_axis_env(e.params));
    if (env) scope.emplace(std::move(*env));
  }
  for (const auto& [name, p] : e.params) {
    std::vector<const Param*> jaxprs;
    if (p.kind() == Param::Kind::kJaxpr) jaxprs.push_back(&p);
    if (p.IsJaxprTuple()) {
      for (const Param& item : p.items()) jaxprs.push_back(&item);
    }
    for (const Param* j : jaxprs) {
      if (j->jaxpr() == nullptr) continue;
      absl::Status s = CheckAt(j->jaxpr()->jaxpr, depth + 1);
      if (!s.ok()) {
        return WithContext(s, absl::StrCat("\n\nin the jaxpr of parameter ", name));
      }
    }
  }
  return absl::OkStatus();
}

absl::Status CheckEqn(const Jaxpr& jaxpr, const Eqn& e, const std::vector<bool>& bound, int depth) {
  if (e.primitive == nullptr) return absl::InvalidArgumentError("an equation has no primitive");
  std::vector<ShapedArray> in_avals;
  for (const Atom& a : e.inputs) {
    if (!a.is_literal()) {
      if (a.var < 0 || static_cast<size_t>(a.var) >= jaxpr.vars.size() || !bound[a.var]) {
        return JaxprTypeError(absl::StrCat("Variable '", NameOf(jaxpr, a.var), "' not defined"));
      }
    }
    in_avals.push_back(jaxpr.aval(a));
  }
  AXE_RETURN_IF_ERROR(CheckParamForms(e));
  AXE_RETURN_IF_ERROR(CheckNested(e, depth));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> outs,
                       AbstractEval(*e.primitive, in_avals, e.params));
  if (outs.size() != e.outputs.size()) {
    return JaxprTypeError(absl::StrCat("the equation binds ", e.outputs.size(), " outputs but ",
                                       e.primitive->name(), " produces ", outs.size()));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    VarId v = e.outputs[i];
    if (v < 0 || static_cast<size_t>(v) >= jaxpr.vars.size()) {
      return absl::InvalidArgumentError("an equation output is not in the variable table");
    }
    if (bound[v]) {
      return JaxprTypeError(absl::StrCat("Variable '", NameOf(jaxpr, v), "' already bound"));
    }
    if (!TypesMatch(jaxpr.aval(v), outs[i])) {
      return JaxprTypeError(absl::StrCat("Value for variable '", NameOf(jaxpr, v),
                                         "' inconsistently typed as ", outs[i].ShortString(),
                                         " for let-binder of type ", jaxpr.aval(v).ShortString()));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckAt(const Jaxpr& jaxpr, int depth) {
  if (depth > kMaxDepth) {
    return absl::InvalidArgumentError(
        absl::StrCat("jaxprs nested deeper than ", kMaxDepth, " levels"));
  }
  std::vector<bool> bound(jaxpr.vars.size(), false);
  auto bind = [&](VarId v) -> absl::Status {
    if (v < 0 || static_cast<size_t>(v) >= jaxpr.vars.size()) {
      return absl::InvalidArgumentError("a binder is not in the variable table");
    }
    if (bound[v]) {
      return JaxprTypeError(absl::StrCat("Variable '", NameOf(jaxpr, v), "' already bound"));
    }
    bound[v] = !jaxpr.vars[v].dropped;
    return absl::OkStatus();
  };
  for (VarId v : jaxpr.constvars) AXE_RETURN_IF_ERROR(bind(v));
  for (VarId v : jaxpr.invars) AXE_RETURN_IF_ERROR(bind(v));
  for (size_t i = 0; i < jaxpr.eqns.size(); ++i) {
    absl::Status s = CheckEqn(jaxpr, jaxpr.eqns[i], bound, depth);
    if (!s.ok()) {
      return WithContext(s,
                         absl::StrCat("\n\nin equation:\n\n", PrintEqn(UnusedAsDropped(jaxpr), i)));
    }
    for (VarId v : jaxpr.eqns[i].outputs) bound[v] = !jaxpr.vars[v].dropped;
  }
  for (const Atom& a : jaxpr.outvars) {
    if (!a.is_literal() &&
        (a.var < 0 || static_cast<size_t>(a.var) >= jaxpr.vars.size() || !bound[a.var])) {
      return JaxprTypeError(absl::StrCat("Variable '", NameOf(jaxpr, a.var), "' not defined"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status CheckJaxpr(const Jaxpr& jaxpr) { return CheckAt(jaxpr, 0); }
absl::Status CheckJaxpr(const ClosedJaxpr& jaxpr) {
  if (jaxpr.consts.size() != jaxpr.jaxpr.constvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("the closed jaxpr has ", jaxpr.consts.size(),
                                                   " consts for ", jaxpr.jaxpr.constvars.size(),
                                                   " constvars"));
  }
  return CheckJaxpr(jaxpr.jaxpr);
}

}  // namespace axe::ir
