#include "axe/ir/builder.h"

#include <algorithm>
#include <atomic>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"

namespace axe::ir {
namespace {

uint64_t NextTraceId() {
  static std::atomic<uint64_t> next{1};
  return next.fetch_add(1);
}

}  // namespace

Builder::Builder() : trace_id_(NextTraceId()) {}

Tracer Builder::NewVar(ShapedArray aval) {
  VarId id = static_cast<VarId>(jaxpr_.vars.size());
  jaxpr_.vars.push_back(Var{aval, false});
  return Tracer{this, trace_id_, id, std::nullopt, std::move(aval)};
}

Tracer Builder::Arg(ShapedArray aval) {
  Tracer t = NewVar(std::move(aval));
  jaxpr_.invars.push_back(t.var);
  return t;
}

Tracer Builder::Const(HostArray value) {
  Tracer t = NewVar(value.aval);
  jaxpr_.constvars.push_back(t.var);
  consts_.push_back(std::move(value));
  return t;
}

Tracer Builder::Lit(Literal literal) {
  ShapedArray aval = literal.aval();
  return Tracer{this, trace_id_, -1, std::move(literal), std::move(aval)};
}

Tracer Builder::Scalar(double value, DType dtype) { return Lit(Literal::OfDType(value, dtype)); }

absl::StatusOr<Atom> Builder::ToAtom(absl::string_view prim, const Tracer& t,
                                     size_t position) const {
  bool ours = t.builder == this && t.trace_id == trace_id_;
  if (ours && t.is_literal()) return Atom::OfLiteral(*t.literal);
  if (ours && t.var >= 0 && static_cast<size_t>(t.var) < jaxpr_.vars.size()) {
    return Atom::OfVar(t.var);
  }
  std::string type = t.builder == nullptr ? "an unbound Tracer" : "a Tracer of another Builder";
  return absl::InvalidArgumentError(absl::StrCat(
      "Error interpreting argument to ", prim, " as a JAX value. The problematic value is of type ",
      type, " and was passed to ", prim, " at position ", position, "."));
}

absl::StatusOr<std::vector<Tracer>> Builder::Bind(const Primitive& prim,
                                                  absl::Span<const Tracer> args, Params params) {
  std::vector<ShapedArray> avals;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_RETURN_IF_ERROR(ToAtom(prim.name(), args[i], i).status());
    avals.push_back(args[i].aval);
  }
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> outs, AbstractEval(prim, avals, params));
  return BindTyped(prim, args, std::move(params), std::move(outs));
}

absl::StatusOr<Tracer> Builder::Bind1(const Primitive& prim, absl::Span<const Tracer> args,
                                      Params params) {
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, Bind(prim, args, std::move(params)));
  if (outs.size() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("primitive ", prim.name(), " returned ", outs.size(), " results, not 1"));
  }
  return outs[0];
}

absl::StatusOr<std::vector<Tracer>> Builder::BindTyped(const Primitive& prim,
                                                       absl::Span<const Tracer> args, Params params,
                                                       std::vector<ShapedArray> out_avals) {
  if (jaxpr_.eqns.size() >= kMaxEqns) {
    return absl::ResourceExhaustedError(
        absl::StrCat("a jaxpr of more than ", kMaxEqns, " equations"));
  }
  Eqn eqn;
  eqn.primitive = &prim;
  eqn.params = std::move(params);
  eqn.effects = prim.options().effects;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Atom a, ToAtom(prim.name(), args[i], i));
    eqn.inputs.push_back(std::move(a));
  }
  std::vector<Tracer> outs;
  for (ShapedArray& aval : out_avals) {
    outs.push_back(NewVar(std::move(aval)));
    eqn.outputs.push_back(outs.back().var);
  }
  for (const std::string& e : eqn.effects) {
    if (std::find(jaxpr_.effects.begin(), jaxpr_.effects.end(), e) == jaxpr_.effects.end()) {
      jaxpr_.effects.push_back(e);
    }
  }
  std::sort(jaxpr_.effects.begin(), jaxpr_.effects.end());
  jaxpr_.eqns.push_back(std::move(eqn));
  return outs;
}

absl::StatusOr<ClosedJaxpr> Builder::Build(absl::Span<const Tracer> outs) const {
  Jaxpr j = jaxpr_;
  j.outvars.clear();
  for (size_t i = 0; i < outs.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Atom a, ToAtom("the jaxpr's outputs", outs[i], i));
    j.outvars.push_back(std::move(a));
  }
  return ClosedJaxpr{j.Canonical(), consts_};
}

}  // namespace axe::ir
