// shard_map, with every rule: its definition (the body runs with the mesh's axes manual), its
// typing (in_specs and out_specs against the mesh, JAX's words), the impl (the interpreter's
// simulated mesh), JVP (a shard_map of the body's JVP), transpose (a shard_map of the body's
// backward pass, dividing or psum'ing what the specs replicate when check_vma is off) and
// batching (a leading None in every spec).
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/batching.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"

#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

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

// The primal outputs come from the original shard_map; a second one takes (primals...,
// tangents...) and returns the tangents of the float outputs.
absl::StatusOr<JvpResult> ShardMapJvp(Builder& b, absl::Span<const Tracer> primals,
                                      absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body,
                       BodyParam(params, "shard_map", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(ShardMapSpec spec, ShardMapSpecOfParams(params));
  std::vector<Tracer> args(primals.begin(), primals.end());
  std::vector<bool> has(primals.size());
  for (size_t i = 0; i < primals.size() && i < spec.in_specs.size(); ++i) {
    has[i] = tangents[i].has_value();
    if (!has[i]) continue;
    args.push_back(*tangents[i]);
    spec.in_specs.push_back(spec.in_specs[i]);
  }
  const Jaxpr& bj = body->jaxpr;
  std::vector<bool> float_out(bj.outvars.size());
  std::vector<sharding::PartitionSpec> out_specs;
  for (size_t k = 0; k < bj.outvars.size() && k < spec.out_specs.size(); ++k) {
    float_out[k] = Differentiable(bj.aval(bj.outvars[k]).dtype());
    if (float_out[k]) out_specs.push_back(spec.out_specs[k]);
  }
  spec.out_specs = out_specs;
  ShardMapBody fn = [&](Builder& inner,
                        absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    std::vector<Tracer> in_p(xs.begin(), xs.begin() + primals.size());
    std::vector<OptTracer> in_t(primals.size());
    size_t next = primals.size();
    for (size_t i = 0; i < primals.size(); ++i) {
      if (has[i]) in_t[i] = xs[next++];
    }
    AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(inner, *body, in_p, in_t));
    std::vector<Tracer> outs;
    for (size_t k = 0; k < r.tangents_out.size(); ++k) {
      if (!float_out[k]) continue;
      AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(inner, r.tangents_out[k], r.primals_out[k].aval));
      outs.push_back(t);
    }
    return outs;
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*Builtins().shard_map, primals, params));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> ts, ShardMap(args, spec, fn));
  JvpResult r{outs, std::vector<OptTracer>(outs.size())};
  for (size_t k = 0, next = 0; k < outs.size(); ++k) {
    if (float_out[k]) r.tangents_out[k] = ts[next++];
  }
  return r;
}

using Cts = absl::StatusOr<std::vector<std::optional<Tracer>>>;

// A shard_map equation's spec and body.
struct ShardMapParts {
  ShardMapSpec spec;
  std::shared_ptr<const ClosedJaxpr> body;
};

absl::StatusOr<ShardMapParts> ReadShardMap(const Params& params) {
  ShardMapParts s;
  AXE_ASSIGN_OR_RETURN(s.spec, ShardMapSpecOfParams(params));
  AXE_ASSIGN_OR_RETURN(const Param* body, GetParam(params, "shard_map", "jaxpr"));
  s.body = body->jaxpr();
  if (s.body == nullptr) return absl::InvalidArgumentError("shard_map without a body");
  return s;
}

// The mesh axes a spec does not name, and the product of their sizes.
std::pair<std::vector<std::string>, int64_t> Unmentioned(const sharding::Mesh& mesh,
                                                         const sharding::PartitionSpec& spec) {
  std::vector<std::string> names;
  int64_t product = 1;
  for (const sharding::MeshAxis& a : mesh.axes()) {
    bool named = false;
    for (const auto& e : spec.entries()) {
      named = named || std::find(e.begin(), e.end(), a.name) != e.end();
    }
    if (!named) {
      names.push_back(a.name);
      product *= a.size;  // at most Mesh::kMaxDevices
    }
  }
  return {names, product};
}

// The global type of a shard_map output whose per-device type is `local`: every dimension
// times the sizes of the mesh axes its out_spec entry names.
absl::StatusOr<ShapedArray> GlobalOutputType(const sharding::Mesh& mesh,
                                             const sharding::PartitionSpec& spec,
                                             const ShapedArray& local) {
  std::vector<int64_t> shape = local.shape();
  for (size_t d = 0; d < spec.size() && d < shape.size(); ++d) {
    for (const std::string& name : spec.entry(d)) {
      std::optional<size_t> axis = mesh.AxisIndex(name);
      if (!axis) return absl::InvalidArgumentError(absl::StrCat("unbound axis name: ", name));
      std::optional<int64_t> grown = CheckedMul(shape[d], mesh.axes()[*axis].size);
      if (!grown) return absl::InvalidArgumentError("shard_map: an output's size overflows");
      shape[d] = *grown;
    }
  }
  return ShapedArray(std::move(shape), local.dtype(), local.weak_type());
}

Cts ShardMapTranspose(Builder& b, absl::Span<const std::optional<Tracer>> cts,
                      absl::Span<const TransposeArg> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShardMapParts s, ReadShardMap(params));
  const Jaxpr& body = s.body->jaxpr;
  ShardMapSpec spec{s.spec.mesh, {}, {}, s.spec.check_vma, "transpose"};
  std::vector<Tracer> operands;
  std::vector<size_t> linear;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].is_undefined_primal()) {
      linear.push_back(i);
      spec.out_specs.push_back(s.spec.in_specs[i]);
    } else {
      operands.push_back(*args[i].value);
      spec.in_specs.push_back(s.spec.in_specs[i]);
    }
  }
  size_t num_nonlinear = operands.size();
  for (size_t k = 0; k < cts.size(); ++k) {
    Tracer ct;
    if (cts[k]) {
      ct = *cts[k];
    } else {  // a zero at the shard_map's global output type (the body's is per device)
      AXE_ASSIGN_OR_RETURN(ShapedArray global, GlobalOutputType(s.spec.mesh, s.spec.out_specs[k],
                                                                body.aval(body.outvars[k])));
      AXE_ASSIGN_OR_RETURN(ct, ZerosLike(b, global));
    }
    int64_t n = Unmentioned(s.spec.mesh, s.spec.out_specs[k]).second;
    if (!s.spec.check_vma && n > 1) {
      AXE_ASSIGN_OR_RETURN(ct, Div(ct, b.Scalar(n, ct.aval.dtype())));
    }
    operands.push_back(ct);
    spec.in_specs.push_back(s.spec.out_specs[k]);
  }
  ShardMapBody transposed =
      [&](Builder& inner, absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    std::vector<Tracer> consts;
    for (const HostArray& c : s.body->consts) consts.push_back(inner.Const(c));
    std::vector<std::optional<Tracer>> inputs(args.size());
    size_t next = 0;
    for (size_t i = 0; i < args.size(); ++i) {
      if (!args[i].is_undefined_primal()) inputs[i] = xs[next++];
    }
    std::vector<std::optional<Tracer>> inner_cts(xs.begin() + num_nonlinear, xs.end());
    AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                         BackwardPass(inner, body, consts, inputs, inner_cts));
    std::vector<Tracer> outs;
    for (size_t i : linear) {
      Tracer ct;
      if (in_cts[i]) {
        ct = *in_cts[i];
      } else {
        AXE_ASSIGN_OR_RETURN(ct, ZerosLike(inner, body.aval(body.invars[i])));
      }
      std::vector<std::string> unnamed = Unmentioned(s.spec.mesh, s.spec.in_specs[i]).first;
      if (!s.spec.check_vma && !unnamed.empty()) {
        AXE_ASSIGN_OR_RETURN(ct, Psum(ct, unnamed));
      }
      outs.push_back(ct);
    }
    return outs;
  };
  std::vector<std::optional<Tracer>> out(args.size());
  if (linear.empty()) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> results, ShardMap(operands, spec, transposed));
  for (size_t k = 0; k < linear.size(); ++k) out[linear[k]] = results[k];
  return out;
}

using BatchRuleResult = absl::StatusOr<BatchResult>;

absl::StatusOr<sharding::PartitionSpec> WithLeadingNone(const sharding::PartitionSpec& spec) {
  std::vector<sharding::PartitionSpec::Entry> entries = spec.entries();
  entries.insert(entries.begin(), sharding::PartitionSpec::Entry{});
  return sharding::PartitionSpec::Create(std::move(entries));
}

BatchRuleResult ShardMapBatch(Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                              const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* body_param, GetParam(params, "shard_map", "jaxpr"));
  if (body_param->jaxpr() == nullptr) return absl::InvalidArgumentError("shard_map: no body");
  std::shared_ptr<const ClosedJaxpr> body = body_param->jaxpr();
  AXE_ASSIGN_OR_RETURN(ShardMapSpec spec, ShardMapSpecOfParams(params));
  if (spec.in_specs.size() != args.size()) {
    return absl::InvalidArgumentError("shard_map: in_specs and operands differ in number");
  }
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> body_dims;
  for (size_t i = 0; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      AXE_ASSIGN_OR_RETURN(spec.in_specs[i], WithLeadingNone(spec.in_specs[i]));
    }
    ops.push_back(x);
    body_dims.push_back(dims[i] ? BDim(0) : std::nullopt);
  }
  for (sharding::PartitionSpec& out : spec.out_specs) {
    AXE_ASSIGN_OR_RETURN(out, WithLeadingNone(out));
  }
  ShardMapBody fn = [&](Builder& inner,
                        absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(inner, *body, xs, body_dims));
    std::vector<Tracer> outs;
    for (size_t k = 0; k < r.outs.size(); ++k) {
      AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
      outs.push_back(o);
    }
    return outs;
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, ShardMap(ops, spec, fn));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

absl::StatusOr<std::optional<AxisEnv>> ShardMapAxisEnv(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* mesh_param, GetParam(params, "shard_map", "mesh"));
  AXE_ASSIGN_OR_RETURN(sharding::Mesh mesh, mesh_param->AsMesh("mesh"));
  bool check_vma = true;
  if (auto it = params.find("check_vma"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(check_vma, it->second.AsBool("check_vma"));
  }
  AxisEnv env;
  if (const AxisEnv* outer = CurrentAxisEnv()) env = *outer;
  env.check_vma = check_vma;
  for (const sharding::MeshAxis& a : mesh.axes()) {
    bool known = false;
    for (const ManualAxis& m : env.axes) known = known || m.name == a.name;
    if (!known) env.axes.push_back({a.name, a.size});
  }
  return std::optional<AxisEnv>(std::move(env));
}

}  // namespace

void DefineShardMap(BuiltinPrimitives& p) {
  Primitive::Options shard_map =
      MultiResultOptions("shard_map", {{"jaxpr", ParamType::kJaxpr},
                                       {"mesh", ParamType::kMesh},
                                       {"in_specs", ParamType::kPartitionSpecs},
                                       {"out_specs", ParamType::kPartitionSpecs}});
  shard_map.body_axis_env = ShardMapAxisEnv;
  p.shard_map = DefineBuiltin(std::move(shard_map));
}

void RegisterShardMapRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.shard_map, ShardMap);
  RegisterImpl(*p.shard_map, ViaInterpreter(*p.shard_map));
  RegisterJvp(*p.shard_map, ShardMapJvp);
  RegisterTranspose(*p.shard_map, ShardMapTranspose);
  RegisterBatching(*p.shard_map, ShardMapBatch);
}

}  // namespace axe::ir::internal
