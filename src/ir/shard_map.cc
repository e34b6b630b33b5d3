#include "axe/ir/shard_map.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"

namespace axe::ir {
namespace {

std::vector<std::string> MentionedAxes(const sharding::Mesh& mesh,
                                       const sharding::PartitionSpec& spec) {
  std::vector<std::string> out;
  for (const sharding::MeshAxis& a : mesh.axes()) {
    for (const auto& entry : spec.entries()) {
      if (std::find(entry.begin(), entry.end(), a.name) != entry.end()) {
        out.push_back(a.name);
        break;
      }
    }
  }
  return out;
}

std::string MeshShapeTuple(const sharding::Mesh& mesh) {
  std::vector<int64_t> sizes;
  for (const sharding::MeshAxis& a : mesh.axes()) sizes.push_back(a.size);
  return absl::StrCat("(", absl::StrJoin(sizes, ", "), sizes.size() == 1 ? ",)" : ")");
}

std::string MeshHeader(const sharding::Mesh& mesh) {
  return absl::StrCat("The mesh given has shape ", MeshShapeTuple(mesh),
                      " with corresponding axis names ", mesh.AxisNamesTuple(), ".\n\n");
}

std::string Key(size_t i, size_t n) { return n == 1 ? "" : absl::StrCat("[", i, "]"); }

absl::StatusOr<int64_t> AxisSize(const sharding::Mesh& mesh, const std::string& name) {
  std::optional<size_t> a = mesh.AxisIndex(name);
  if (!a) {
    return absl::InvalidArgumentError(absl::StrCat("shard_map: the spec names the axis '", name,
                                                   "', which is not in the mesh ",
                                                   mesh.ToString()));
  }
  return mesh.axes()[*a].size;
}

// The body's view of argument i, or the non-divisibility message items.
absl::StatusOr<ShapedArray> ShardArg(const ShardMapSpec& spec, const Tracer& arg, size_t i,
                                     std::vector<std::string>& msgs) {
  const sharding::PartitionSpec& ps = spec.in_specs[i];
  if (ps.size() > arg.aval.rank()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_map: in_specs", Key(i, spec.in_specs.size()), " is ", ps.ToString(),
        ", which has more entries than argument ", i, " of type ", arg.aval.Str(), " has axes"));
  }
  std::vector<int64_t> shape = arg.aval.shape();
  for (size_t d = 0; d < ps.size(); ++d) {
    const auto& names = ps.entry(d);
    if (names.empty()) continue;
    int64_t size = 1;
    for (const std::string& n : names) {
      AXE_ASSIGN_OR_RETURN(int64_t s, AxisSize(spec.mesh, n));
      std::optional<int64_t> product = CheckedMul(size, s);  // a spec may repeat a name
      if (!product)
        return absl::InvalidArgumentError("shard_map: an in_spec's axis product overflows");
      size = *product;
    }
    if (shape[d] % size != 0) {
      std::string axis = names.size() > 1
                             ? absl::StrCat("axes ", sharding::PartitionSpec::EntryToString(names))
                             : absl::StrCat("axis '", names[0], "'");
      msgs.push_back(absl::StrCat("* the passed args[", i, "] of shape ", arg.aval.ShortString(),
                                  " corresponds to in_specs", Key(i, spec.in_specs.size()),
                                  " of value ", ps.ToString(), ", which maps array axis ", d,
                                  " (of size ", shape[d], ") to mesh ", axis, " (of ",
                                  names.size() > 1 ? "total " : "", "size ", size, "), but ", size,
                                  " does not evenly divide ", shape[d]));
      continue;
    }
    shape[d] /= size;
  }
  std::vector<std::string> vma;
  if (spec.check_vma) vma = VmaUnion(arg.aval.vma(), MentionedAxes(spec.mesh, ps));
  return ShapedArray(std::move(shape), arg.aval.dtype(), arg.aval.weak_type(), std::move(vma));
}

std::string JoinMsgs(std::vector<std::string> msgs) {
  if (msgs.size() == 1) msgs[0] = msgs[0].substr(2);  // a single item has no bullet
  return absl::StrJoin(msgs, "\n\n");
}

// pvary's each output up to the axes its out_spec names; checks the unnamed ones.
absl::StatusOr<std::vector<Tracer>> FinishOutputs(const ShardMapSpec& spec,
                                                  std::vector<Tracer> outs) {
  if (!spec.check_vma) return outs;
  std::vector<std::string> msgs;
  for (size_t i = 0; i < outs.size(); ++i) {
    const sharding::PartitionSpec& ps = spec.out_specs[i];
    std::vector<std::string> mentioned = MentionedAxes(spec.mesh, ps);
    std::vector<std::string> missing = VmaMinus(mentioned, outs[i].aval.vma());
    if (!missing.empty()) {
      AXE_ASSIGN_OR_RETURN(outs[i], Pvary(outs[i], missing));
    }
    std::vector<std::string> unmentioned;
    for (const sharding::MeshAxis& a : spec.mesh.axes()) {
      if (std::find(mentioned.begin(), mentioned.end(), a.name) == mentioned.end()) {
        unmentioned.push_back(a.name);
      }
    }
    std::vector<std::string> bad;
    for (const std::string& n : unmentioned) {
      if (outs[i].aval.IsVaryingOver(n)) bad.push_back(n);
    }
    if (bad.empty()) continue;
    std::string key = Key(i, spec.out_specs.size());
    if (unmentioned.size() > 1) {
      msgs.push_back(absl::StrCat(
          "* out_specs", key, " is ", ps.ToString(),
          " which implies that the corresponding output value is only varying across mesh axes {",
          absl::StrJoin(mentioned, ","), "} and not {", absl::StrJoin(bad, ","),
          "}, but it was inferred to be possibly varying over {",
          absl::StrJoin(InMeshOrder(outs[i].aval.vma()), ","), "}"));
    } else {
      msgs.push_back(absl::StrCat(
          "* out_specs", key, " is ", ps.ToString(),
          " which implies that the corresponding output value is replicated across mesh axis '",
          unmentioned[0], "', but could not infer replication over any axes"));
    }
  }
  if (msgs.empty()) return outs;
  return absl::InvalidArgumentError(absl::StrCat(
      "shard_map applied to the function '", spec.function_name,
      "' was given out_specs which require replication which can't be statically inferred "
      "given the mesh:\n\n",
      MeshHeader(spec.mesh), JoinMsgs(std::move(msgs)),
      "\n\nCheck if these output values are meant to be replicated over those mesh axes. If "
      "not, consider revising the corresponding out_specs entries. If so, consider disabling "
      "the check by passing the check_vma=False argument to `jax.shard_map`."));
}

Params ShardMapParams(const ShardMapSpec& spec, std::shared_ptr<const ClosedJaxpr> body) {
  std::vector<Param> in, out, manual;
  for (const auto& s : spec.in_specs) in.push_back(Param::OfPartitionSpec(s));
  for (const auto& s : spec.out_specs) out.push_back(Param::OfPartitionSpec(s));
  for (const sharding::MeshAxis& a : spec.mesh.axes()) manual.push_back(Param::String(a.name));
  return {{"check_vma", Param::Bool(spec.check_vma)},
          {"in_specs", Param::Tuple(std::move(in))},
          {"jaxpr", Param::Jaxpr(std::move(body))},
          {"mesh", Param::OfMesh(spec.mesh)},
          {"newly_manual_axes", Param::Call("frozenset", {Param::Set(std::move(manual))})},
          {"out_specs", Param::Tuple(std::move(out))}};
}

}  // namespace

absl::StatusOr<std::vector<Tracer>> ShardMap(absl::Span<const Tracer> args,
                                             const ShardMapSpec& spec, const ShardMapBody& body) {
  if (spec.in_specs.size() != args.size()) {
    return absl::InvalidArgumentError(absl::StrCat("shard_map: ", spec.in_specs.size(),
                                                   " in_specs for ", args.size(), " arguments"));
  }
  if (args.empty()) return absl::InvalidArgumentError("shard_map: no arguments");
  Builder* outer = args[0].builder;
  if (outer == nullptr) return absl::InvalidArgumentError("shard_map: an unbound argument");
  std::vector<std::string> msgs;
  std::vector<ShapedArray> inner_avals;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(ShapedArray a, ShardArg(spec, args[i], i, msgs));
    inner_avals.push_back(std::move(a));
  }
  if (!msgs.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shard_map applied to the function '", spec.function_name,
        "' was given argument arrays with axis sizes that are not evenly divisible by the "
        "corresponding mesh axis sizes:\n\n",
        MeshHeader(spec.mesh), JoinMsgs(std::move(msgs)),
        "\n\nArray arguments' axis sizes must be evenly divisible by the mesh axis or axes "
        "indicated by the corresponding elements of the argument's in_specs entry. Consider "
        "checking that in_specs are correct, and if so consider changing the mesh axis sizes or "
        "else padding the input and adapting '",
        spec.function_name, "' appropriately."));
  }
  AxisEnv env;
  if (const AxisEnv* enclosing = CurrentAxisEnv()) env = *enclosing;
  env.check_vma = spec.check_vma;
  for (const sharding::MeshAxis& a : spec.mesh.axes()) env.axes.push_back({a.name, a.size});
  std::shared_ptr<const ClosedJaxpr> jaxpr;
  {
    ScopedAxisEnv scope(std::move(env));
    Builder inner;
    std::vector<Tracer> inner_args;
    for (ShapedArray& a : inner_avals) inner_args.push_back(inner.Arg(std::move(a)));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, body(inner, inner_args));
    if (outs.size() != spec.out_specs.size()) {
      return absl::InvalidArgumentError(absl::StrCat("shard_map: the body returned ", outs.size(),
                                                     " values for ", spec.out_specs.size(),
                                                     " out_specs"));
    }
    AXE_ASSIGN_OR_RETURN(outs, FinishOutputs(spec, std::move(outs)));
    AXE_ASSIGN_OR_RETURN(ClosedJaxpr built, inner.Build(outs));
    jaxpr = std::make_shared<const ClosedJaxpr>(std::move(built));
  }
  return outer->Bind(*Builtins().shard_map, args, ShardMapParams(spec, std::move(jaxpr)));
}

absl::StatusOr<std::vector<Tracer>> BindWithAutoPvary(const Primitive& prim,
                                                      absl::Span<const Tracer> args,
                                                      Params params) {
  std::vector<Tracer> xs(args.begin(), args.end());
  Builder* b = nullptr;
  for (const Tracer& t : xs) b = b != nullptr ? b : t.builder;
  if (b == nullptr)
    return absl::InvalidArgumentError(absl::StrCat(prim.name(), ": no traced operand"));
  if (VarianceTypingOn()) {
    std::vector<std::string> all;
    for (const Tracer& t : xs) all = VmaUnion(all, t.aval.vma());
    for (Tracer& t : xs) {
      std::vector<std::string> missing = VmaMinus(all, t.aval.vma());
      if (!missing.empty()) {
        AXE_ASSIGN_OR_RETURN(t, Pvary(t, missing));
      }
    }
  }
  return b->Bind(prim, xs, std::move(params));
}

absl::StatusOr<Tracer> Psum(const Tracer& x, std::vector<std::string> axes) {
  if (!VarianceTypingOn()) {
    if (x.builder == nullptr) return absl::InvalidArgumentError("psum: an unbound operand");
    return x.builder->Bind1(*Builtins().psum, {x},
                            {{"axes", Param::Names(axes)}, {"axis_index_groups", Param::None()}});
  }
  Tracer y = x;
  std::vector<std::string> missing = VmaMinus(InMeshOrder(axes), x.aval.vma());
  // Check the axes are bound before inserting anything (the unbound-axis error names psum).
  AXE_RETURN_IF_ERROR(ManualAxesSize(axes, "psum").status());
  if (!missing.empty()) {
    AXE_ASSIGN_OR_RETURN(y, Pvary(y, missing));
  }
  return PsumInvariant(y, std::move(axes));
}

absl::StatusOr<Tracer> PcastVarying(const Tracer& x, std::vector<std::string> axes) {
  return Pvary(x, std::move(axes));
}

absl::StatusOr<Tracer> AllGather(const Tracer& x, std::vector<std::string> axes, int64_t dim,
                                 bool tiled, bool to_invariant) {
  AXE_ASSIGN_OR_RETURN(int64_t size, ManualAxesSize(axes, "all_gather"));
  Tracer y = x;
  if (VarianceTypingOn()) {
    std::vector<std::string> missing = VmaMinus(InMeshOrder(axes), x.aval.vma());
    if (!missing.empty()) {
      AXE_ASSIGN_OR_RETURN(y, Pvary(y, missing));
    }
  }
  const Primitive& p = to_invariant ? *Builtins().all_gather_invariant : *Builtins().all_gather;
  return y.builder->Bind1(p, {y},
                          {{"all_gather_dimension", Param::Int(dim)},
                           {"axis_index_groups", Param::None()},
                           {"axis_name", Param::Names(axes)},
                           {"axis_size", Param::Int(size)},
                           {"tiled", Param::Bool(tiled)}});
}

absl::StatusOr<ShardMapSpec> ShardMapSpecOfParams(const Params& params) {
  ShardMapSpec s;
  AXE_ASSIGN_OR_RETURN(const Param* mesh, GetParam(params, "shard_map", "mesh"));
  AXE_ASSIGN_OR_RETURN(s.mesh, mesh->AsMesh("mesh"));
  for (const char* name : {"in_specs", "out_specs"}) {
    AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "shard_map", name));
    for (const Param& item : p->items()) {
      AXE_ASSIGN_OR_RETURN(sharding::PartitionSpec spec, item.AsPartitionSpec(name));
      (std::string(name) == "in_specs" ? s.in_specs : s.out_specs).push_back(std::move(spec));
    }
  }
  if (auto it = params.find("check_vma"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(s.check_vma, it->second.AsBool("check_vma"));
  }
  return s;
}

}  // namespace axe::ir
