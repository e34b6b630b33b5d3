// Transpose rules of the non-collective linear primitives and of shard_map (§8).
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Cts = absl::StatusOr<std::vector<std::optional<Tracer>>>;

absl::Status SameShape(absl::string_view prim, const ShapedArray& operand, const Tracer& ct) {
  if (operand.shape() == ct.aval.shape()) return absl::OkStatus();
  return absl::UnimplementedError(absl::StrCat("the transpose of ", prim,
                                               " with a broadcast operand (", operand.Str(),
                                               " into ", ct.aval.Str(), ") is not implemented"));
}

// The cotangent of an operand that was broadcast into the result: `ct` summed over the
// dimensions the operand did not have (a rank-0 operand) or had with size 1, as JAX's
// _unbroadcast does.
absl::StatusOr<Tracer> Unbroadcast(absl::string_view prim, const ShapedArray& operand,
                                   const Tracer& ct) {
  if (operand.shape() == ct.aval.shape()) return ct;
  std::vector<int64_t> axes;
  if (operand.rank() == 0) {
    for (size_t d = 0; d < ct.aval.rank(); ++d) axes.push_back(static_cast<int64_t>(d));
    return ReduceSum(ct, axes);
  }
  if (operand.rank() != ct.aval.rank()) return SameShape(prim, operand, ct);
  for (size_t d = 0; d < operand.rank(); ++d) {
    if (operand.shape()[d] == ct.aval.shape()[d]) continue;
    if (operand.shape()[d] != 1) return SameShape(prim, operand, ct);
    axes.push_back(static_cast<int64_t>(d));
  }
  AXE_ASSIGN_OR_RETURN(Tracer summed, ReduceSum(ct, axes));
  return Reshape(summed, operand.shape());
}

Cts AddTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(out[i], Unbroadcast("add", args[i].aval, *cts[0]));
  }
  return out;
}

Cts SubTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!args[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(Tracer ct, Unbroadcast("sub", args[i].aval, *cts[0]));
    if (i == 0) {
      out[i] = ct;
    } else {
      AXE_ASSIGN_OR_RETURN(Tracer n, Neg(ct));
      out[i] = n;
    }
  }
  return out;
}

Cts NegTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer n, Neg(*cts[0]));
  out[0] = n;
  return out;
}

Cts MulTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (args.size() != 2 || (args[0].is_undefined_primal() && args[1].is_undefined_primal())) {
    return absl::InvalidArgumentError("mul is linear in one operand only");
  }
  if (!cts[0]) return out;
  size_t lin = args[0].is_undefined_primal() ? 0 : 1;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> r,
                       BindWithAutoPvary(*Builtins().mul, {*cts[0], *args[1 - lin].value}));
  AXE_ASSIGN_OR_RETURN(out[lin], Unbroadcast("mul", args[lin].aval, r[0]));
  return out;
}

// Linear in the numerator: ct / denominator.
Cts DivTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                 absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (args.size() != 2 || args[1].is_undefined_primal()) {
    return absl::InvalidArgumentError("div is linear in its numerator only");
  }
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> r,
                       BindWithAutoPvary(*Builtins().div, {*cts[0], *args[1].value}));
  AXE_ASSIGN_OR_RETURN(out[0], Unbroadcast("div", args[0].aval, r[0]));
  return out;
}

Cts ConvertTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                     absl::Span<const TransposeArg> args, const Params&) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer c, ConvertElementType(*cts[0], args[0].aval.dtype()));
  out[0] = c;
  return out;
}

Cts ReduceSumTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                       absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, "reduce_sum", "axes"));
  std::vector<int64_t> kept;
  for (int64_t d = 0; d < static_cast<int64_t>(args[0].aval.rank()); ++d) {
    if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
  }
  AXE_ASSIGN_OR_RETURN(Tracer r, BroadcastInDim(*cts[0], args[0].aval.shape(), kept));
  out[0] = r;
  return out;
}

Cts BroadcastTranspose(Builder&, absl::Span<const std::optional<Tracer>> cts,
                       absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "broadcast_dimensions", {}));
  const ShapedArray& in = args[0].aval;
  std::vector<int64_t> summed;
  for (int64_t d = 0; d < static_cast<int64_t>(cts[0]->aval.rank()); ++d) {
    if (std::find(dims.begin(), dims.end(), d) == dims.end()) summed.push_back(d);
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (in.shape()[i] != cts[0]->aval.shape()[dims[i]]) {
      return absl::UnimplementedError(
          "the transpose of broadcast_in_dim that expands size-1 dimensions is not implemented");
    }
  }
  AXE_ASSIGN_OR_RETURN(Tracer r, ReduceSum(*cts[0], summed));
  out[0] = r;
  return out;
}

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

}  // namespace

void RegisterLinearRules(const BuiltinPrimitives& p) {
  RegisterTranspose(*p.add, AddTranspose);
  RegisterTranspose(*p.sub, SubTranspose);
  RegisterTranspose(*p.neg, NegTranspose);
  RegisterTranspose(*p.mul, MulTranspose);
  RegisterTranspose(*p.div, DivTranspose);
  RegisterTranspose(*p.convert_element_type, ConvertTranspose);
  RegisterTranspose(*p.reduce_sum, ReduceSumTranspose);
  RegisterTranspose(*p.broadcast_in_dim, BroadcastTranspose);
  RegisterTranspose(*p.shard_map, ShardMapTranspose);
}

}  // namespace axe::ir::internal
