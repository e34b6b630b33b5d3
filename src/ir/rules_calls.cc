// Abstract evaluation of the primitives that hold jaxprs: jit, closed_call, cond, scan,
// shard_map. Their bodies are checked by check_jaxpr; these rules check how the operands meet
// the body and derive the result types.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

absl::StatusOr<const ClosedJaxpr*> CalledJaxprParam(const Params& params, absl::string_view prim,
                                                    absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, name));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return TypeError(absl::StrCat("parameter ", name, " of ", prim, " must be a jaxpr"));
  }
  return p->jaxpr().get();
}

// JAX's _check_call: operand count and types against the body's invars.
absl::Status CheckOperands(absl::string_view prim, absl::Span<const ShapedArray> avals,
                           const Jaxpr& body) {
  if (avals.size() != body.invars.size()) {
    return TypeError(absl::StrCat("Call primitive ", prim, " with ", avals.size(),
                                  " operands cannot call jaxpr with ", body.invars.size(),
                                  " inputs"));
  }
  for (size_t i = 0; i < avals.size(); ++i) {
    if (!TypesMatch(avals[i], body.aval(body.invars[i]))) {
      return TypeError(absl::StrCat("Call primitive ", prim, " passes operand ", i, " of type ",
                                    avals[i].Str(), " to jaxpr expecting type ",
                                    body.aval(body.invars[i]).Str()));
    }
  }
  return absl::OkStatus();
}

Rule Call(std::string prim, std::string param) {
  return [prim, param](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, CalledJaxprParam(params, prim, param));
    AXE_RETURN_IF_ERROR(CheckOperands(prim, avals, body->jaxpr));
    return body->jaxpr.out_avals();
  };
}

std::string MatList(const Jaxpr& j) {
  std::vector<std::string> sets;
  for (const ShapedArray& a : j.out_avals()) sets.push_back(FrozensetRepr(a.vma()));
  return absl::StrCat("[", absl::StrJoin(sets, ", "), "]");
}

Result Cond(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  if (!branches->IsJaxprTuple()) {
    return TypeError("parameter branches of cond must be a tuple of jaxprs");
  }
  if (avals.empty() || avals[0].rank() != 0 ||
      (avals[0].dtype() != DType::kPred && !IsIntegral(avals[0].dtype()))) {
    return TypeError(absl::StrCat("cond index must be an integer or boolean scalar, got ",
                                  avals.empty() ? "no operands" : avals[0].Str()));
  }
  const Jaxpr& first = branches->items()[0].jaxpr()->jaxpr;
  for (const Param& b : branches->items()) {
    const Jaxpr& j = b.jaxpr()->jaxpr;
    AXE_RETURN_IF_ERROR(CheckOperands("cond", avals.subspan(1), j));
    std::vector<ShapedArray> outs = j.out_avals(), first_outs = first.out_avals();
    bool same = outs.size() == first_outs.size();
    for (size_t i = 0; same && i < outs.size(); ++i) {
      same = outs[i].shape() == first_outs[i].shape() && outs[i].dtype() == first_outs[i].dtype();
    }
    if (!same) return TypeError("cond branches must have equal output types but they differ.");
    if (MatList(j) != MatList(first)) {
      return TypeError(absl::StrCat(
          "The branches of cond produced mismatched varying manual axes. Got ", MatList(first),
          " and ", MatList(j),
          ". Please open an issue at https://github.com/jax-ml/jax/issues, "
          "and as a temporary workaround pass the check_vma=False argument to `jax.shard_map`"));
    }
  }
  return first.out_avals();
}

Result Scan(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, CalledJaxprParam(params, "scan", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(int64_t length, RequiredInt(params, "scan", "length"));
  AXE_ASSIGN_OR_RETURN(int64_t num_consts, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t num_carry, RequiredInt(params, "scan", "num_carry"));
  const Jaxpr& j = body->jaxpr;
  int64_t n = static_cast<int64_t>(avals.size());
  AXE_RETURN_IF_ERROR(CheckScanLength(length));
  if (num_consts < 0 || num_carry < 0 || num_consts > n - num_carry ||
      static_cast<int64_t>(j.outvars.size()) < num_carry) {
    return TypeError(absl::StrCat("scan with ", n, " operands cannot have num_consts=", num_consts,
                                  " and num_carry=", num_carry));
  }
  std::vector<ShapedArray> body_in(avals.begin(), avals.begin() + num_consts + num_carry);
  for (int64_t i = num_consts + num_carry; i < n; ++i) {
    const ShapedArray& x = avals[i];
    if (x.rank() == 0 || x.shape()[0] != length) {
      return TypeError(absl::StrCat("scan got operand ", i, " of type ", x.Str(),
                                    " whose leading axis is not of the length ", length));
    }
    body_in.push_back(x.WithShape({x.shape().begin() + 1, x.shape().end()}));
  }
  AXE_RETURN_IF_ERROR(CheckOperands("scan", body_in, j));
  std::vector<ShapedArray> outs = j.out_avals();
  for (int64_t i = 0; i < num_carry; ++i) {
    if (!TypesMatch(outs[i], body_in[num_consts + i])) {
      return TypeError(absl::StrCat(
          "scan body function carry input and carry output must have equal types, but they "
          "differ: carry[",
          i, "] is ", body_in[num_consts + i].Str(), " in and ", outs[i].Str(), " out"));
    }
  }
  for (size_t i = static_cast<size_t>(num_carry); i < outs.size(); ++i) {
    std::vector<int64_t> shape = {length};
    shape.insert(shape.end(), outs[i].shape().begin(), outs[i].shape().end());
    outs[i] = outs[i].WithShape(std::move(shape));
  }
  return outs;
}

absl::StatusOr<std::vector<sharding::PartitionSpec>> Specs(const Params& params,
                                                           absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "shard_map", name));
  if (p->kind() != Param::Kind::kTuple) {
    return TypeError(absl::StrCat("parameter ", name, " of shard_map must be a tuple of P(...)"));
  }
  std::vector<sharding::PartitionSpec> out;
  for (const Param& s : p->items()) {
    AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec spec, s.AsPartitionSpec(name));
    out.push_back(std::move(spec));
  }
  return out;
}

// The factor by which spec entry `dim` divides (in) or multiplies (out) that dimension.
absl::StatusOr<int64_t> EntryFactor(const sharding::Mesh& mesh, const sharding::PartitionSpec& spec,
                                    size_t dim) {
  int64_t f = 1;
  for (const std::string& name : spec.entry(dim)) {
    std::optional<size_t> a = mesh.AxisIndex(name);
    if (!a) {
      return TypeError(absl::StrCat("the spec ", spec.ToString(), " names the axis '", name,
                                    "', which is not in the mesh ", mesh.ToString()));
    }
    std::optional<int64_t> p = CheckedMul(f, mesh.axes()[*a].size);
    if (!p) return TypeError("shard_map: the product of the axis sizes overflows int64");
    f = *p;
  }
  return f;
}

// JAX's shard_map typecheck (check_vma on): an output varying over a mesh axis its out_spec
// does not name would need a replication the body does not prove.
absl::Status CheckOutputsReplicated(const Jaxpr& j,
                                    const std::vector<sharding::PartitionSpec>& out_specs,
                                    const std::vector<std::string>& axes, const Params& params) {
  auto it = params.find("check_vma");
  bool check_vma = true;
  if (it != params.end()) {
    AXE_ASSIGN_OR_RETURN(check_vma, it->second.AsBool("check_vma"));
  }
  if (!check_vma) return absl::OkStatus();
  for (size_t i = 0; i < j.outvars.size() && i < out_specs.size(); ++i) {
    const ShapedArray& inner = j.aval(j.outvars[i]);
    for (const std::string& axis : axes) {
      bool named = false;
      for (const sharding::PartitionSpec::Entry& e : out_specs[i].entries()) {
        named = named || std::find(e.begin(), e.end(), axis) != e.end();
      }
      if (!named && inner.IsVaryingOver(axis)) {
        // JAX raises it as a JaxprTypeError (a Python TypeError).
        return axe::TypeError("shard_map can't prove output is sufficiently replicated");
      }
    }
  }
  return absl::OkStatus();
}

Result ShardMap(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, CalledJaxprParam(params, "shard_map", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(const Param* mesh_param, GetParam(params, "shard_map", "mesh"));
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, mesh_param->AsMesh("mesh"));
  AXE_ASSIGN_OR_RETURN(std::vector<sharding::PartitionSpec> in_specs, Specs(params, "in_specs"));
  AXE_ASSIGN_OR_RETURN(std::vector<sharding::PartitionSpec> out_specs, Specs(params, "out_specs"));
  const Jaxpr& j = body->jaxpr;
  if (in_specs.size() != avals.size() || j.invars.size() != avals.size() ||
      out_specs.size() != j.outvars.size()) {
    return TypeError(absl::StrCat("shard_map has ", avals.size(), " operands, ", in_specs.size(),
                                  " in_specs, a body of ", j.invars.size(), " inputs and ",
                                  j.outvars.size(), " outputs, and ", out_specs.size(),
                                  " out_specs"));
  }
  for (size_t i = 0; i < avals.size(); ++i) {
    const ShapedArray& inner = j.aval(j.invars[i]);
    bool ok = inner.rank() == avals[i].rank() && inner.dtype() == avals[i].dtype();
    for (size_t d = 0; ok && d < inner.rank(); ++d) {
      AXE_ASSIGN_OR_RETURN(int64_t f, EntryFactor(mesh, in_specs[i], d));
      ok = avals[i].shape()[d] % f == 0 && avals[i].shape()[d] / f == inner.shape()[d];
    }
    if (!ok) {
      return TypeError(absl::StrCat("shard_map operand ", i, " of type ", avals[i].Str(),
                                    " with in_spec ", in_specs[i].ToString(),
                                    " does not give the body's input type ", inner.Str()));
    }
  }
  std::vector<std::string> manual;
  for (const sharding::MeshAxis& a : mesh.axes()) manual.push_back(a.name);
  AXE_RETURN_IF_ERROR(CheckOutputsReplicated(j, out_specs, manual, params));
  std::vector<ShapedArray> outs;
  for (size_t i = 0; i < j.outvars.size(); ++i) {
    const ShapedArray& inner = j.aval(j.outvars[i]);
    std::vector<int64_t> shape = inner.shape();
    for (size_t d = 0; d < shape.size(); ++d) {
      AXE_ASSIGN_OR_RETURN(int64_t f, EntryFactor(mesh, out_specs[i], d));
      std::optional<int64_t> s = CheckedMul(shape[d], f);
      if (!s) return TypeError("shard_map: an output dimension overflows int64");
      shape[d] = *s;
    }
    outs.push_back(inner.WithShape(std::move(shape)).WithVma(VmaMinus(inner.vma(), manual)));
  }
  return outs;
}

}  // namespace

AbstractEvalRule CallRule(std::string prim, std::string param) {
  return Call(std::move(prim), std::move(param));
}

void RegisterCallRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.jit, Call("jit", "jaxpr"));
  RegisterAbstractEval(*p.closed_call, Call("closed_call", "call_jaxpr"));
  RegisterAbstractEval(*p.custom_jvp_call, Call("custom_jvp_call", "call_jaxpr"));
  RegisterAbstractEval(*p.custom_vjp_call, Call("custom_vjp_call", "call_jaxpr"));
  RegisterAbstractEval(*p.cond, Cond);
  RegisterAbstractEval(*p.scan, Scan);
  RegisterAbstractEval(*p.shard_map, ShardMap);
}

}  // namespace axe::ir::internal
