// The collectives, with every rule: psum (legacy, check_vma off) psum_invariant pmax pmin pvary
// all_gather all_gather_invariant reduce_scatter (psum_scatter) all_to_all ppermute axis_index.
// Typing follows shard_map's variance rules (JAX's words); the impl reports the unbound axis
// name outside a shard_map evaluation; the linear ones transpose to their partner (psum_invariant
// and pvary, all_gather and reduce_scatter, all_to_all and ppermute to themselves); batching
// shifts their dimension params past the batch dimension.
#include <algorithm>
#include <memory>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/batching.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"

#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

absl::StatusOr<std::vector<std::string>> AxesParam(const Params& params, absl::string_view prim,
                                                   absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, name));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, p->AsAxisNames(name));
  for (size_t i = 0; i < axes.size(); ++i) {
    if (std::find(axes.begin(), axes.begin() + i, axes[i]) != axes.begin() + i) {
      return TypeError(absl::StrCat(prim, ": the axis name '", axes[i], "' is repeated in ", name,
                                    "=", p->ToString()));
    }
  }
  return axes;
}

// The user-level API name JAX's unbound-axis message names.
std::string ApiName(absl::string_view prim) {
  if (prim == "psum_invariant") return "psum";
  if (prim == "reduce_scatter") return "psum_scatter";
  return std::string(prim);
}

// psum_invariant, pmax, pmin: variant -> invariant, one result per operand.
Rule Reducing(std::string prim) {
  return [prim](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, prim, "axes"));
    AXE_RETURN_IF_ERROR(ManualAxesSize(axes, ApiName(prim)).status());
    std::vector<ShapedArray> out;
    for (const ShapedArray& a : avals) {
      if (!VarianceTypingOn()) {
        out.push_back(a.WithVma({}));
        continue;
      }
      bool any = std::any_of(axes.begin(), axes.end(),
                             [&](const std::string& n) { return a.IsVaryingOver(n); });
      if (!any) {
        // JAX's pmax and pmin share psum_invariant's rule, and its message names psum.
        const std::string api = "psum";
        return absl::InvalidArgumentError(absl::StrCat(
            api,
            " is a variant->invariant collective. This means that the axis names "
            "mentioned in `axes` passed to `",
            api,
            "` must be present in "
            "`jax.typeof(inp).mat.varying`. Got axes=",
            NamesTupleRepr(axes), " and jax.typeof(inp).mat.varying=", FrozensetRepr(a.vma())));
      }
      out.push_back(a.WithVma(VmaMinus(a.vma(), axes)));
    }
    return out;
  };
}

// The legacy psum of check_vma=False: types unchanged.
Result LegacyPsumShapes(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "psum", "axes"));
  AXE_RETURN_IF_ERROR(ManualAxesSize(axes, "psum").status());
  return std::vector<ShapedArray>(avals.begin(), avals.end());
}

Result Pvary(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "pvary", "axes"));
  if (CurrentAxisEnv() == nullptr) {
    return absl::InvalidArgumentError("pvary should be called under jax.shard_map.");
  }
  AXE_RETURN_IF_ERROR(ManualAxesSize(axes, "pvary").status());
  std::vector<ShapedArray> out;
  for (const ShapedArray& a : avals) {
    if (!VarianceTypingOn()) {
      out.push_back(a.WithVma({}));
      continue;
    }
    for (const std::string& n : axes) {
      if (a.IsVaryingOver(n)) {
        return absl::InvalidArgumentError(
            absl::StrCat("pvary is a invariant->variant collective. This means that the axis names "
                         "mentioned in `axes` passed to `pvary` must not be present in "
                         "`jax.typeof(inp).mat.varying`. Got axes=",
                         NamesTupleRepr(axes), " and jax.typeof(inp)=", a.Str()));
      }
    }
    out.push_back(a.WithVma(VmaUnion(a.vma(), axes)));
  }
  return out;
}

// The varying -> varying requirement of all_gather, reduce_scatter, all_to_all, ppermute.
absl::Status RequireVarying(absl::string_view prim, const ShapedArray& a,
                            const std::vector<std::string>& axes) {
  if (!VarianceTypingOn()) return absl::OkStatus();
  for (const std::string& n : axes) {
    if (!a.IsVaryingOver(n)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Collective ", prim, " must be applied to a device-varying  type, but got ",
          FrozensetRepr(a.vma()), " for collective acting over axis name ", NamesTupleRepr(axes),
          ". Please open an issue at https://github.com/jax-ml/jax/issues and as a temporary "
          "workaround pass the check_vma=False argument to `jax.shard_map`"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> Dimension(const Params& params, absl::string_view prim,
                                  absl::string_view name, const ShapedArray& a, bool one_past) {
  AXE_ASSIGN_OR_RETURN(int64_t d, RequiredInt(params, prim, name));
  int64_t limit = static_cast<int64_t>(a.rank()) + (one_past ? 1 : 0);
  if (d < 0 || d >= limit) {
    return TypeError(absl::StrCat(prim, " ", name, " ", d, " is out of range for ", a.Str()));
  }
  return d;
}

bool Tiled(const Params& params) {
  auto it = params.find("tiled");
  return it != params.end() && it->second.kind() == Param::Kind::kBool && it->second.bool_value();
}

Rule AllGather(std::string prim, bool invariant) {
  return [prim, invariant](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_RETURN_IF_ERROR(ExpectArity(prim, avals, 1));
    const ShapedArray& x = avals[0];
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, prim, "axis_name"));
    AXE_ASSIGN_OR_RETURN(int64_t n, ManualAxesSize(axes, "all_gather"));
    bool tiled = Tiled(params);
    AXE_ASSIGN_OR_RETURN(int64_t dim, Dimension(params, prim, "all_gather_dimension", x, !tiled));
    AXE_RETURN_IF_ERROR(RequireVarying(prim, x, axes));
    std::vector<int64_t> shape = x.shape();
    if (tiled) {
      std::optional<int64_t> d = CheckedMul(shape[dim], n);
      if (!d) return TypeError(absl::StrCat(prim, ": the gathered dimension overflows int64"));
      shape[dim] = *d;
    } else {
      shape.insert(shape.begin() + dim, n);
    }
    std::vector<std::string> vma = invariant ? VmaMinus(x.vma(), axes) : x.vma();
    if (!VarianceTypingOn()) vma.clear();
    return One(x.WithShape(std::move(shape)).WithVma(std::move(vma)));
  };
}

Result ReduceScatterRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("reduce_scatter", avals, 1));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes,
                       AxesParam(params, "reduce_scatter", "axis_name"));
  AXE_ASSIGN_OR_RETURN(int64_t n, ManualAxesSize(axes, "psum_scatter"));
  AXE_ASSIGN_OR_RETURN(int64_t dim,
                       Dimension(params, "reduce_scatter", "scatter_dimension", x, false));
  AXE_RETURN_IF_ERROR(RequireVarying("reduce_scatter", x, axes));
  std::vector<int64_t> shape = x.shape();
  if (Tiled(params)) {
    if (shape[dim] % n != 0) {
      return TypeError(absl::StrCat("psum_scatter operand dimension ", dim, " of size ", shape[dim],
                                    " is not divisible by the axis size ", n));
    }
    shape[dim] /= n;
  } else {
    if (shape[dim] != n) {
      return TypeError(absl::StrCat("psum_scatter operand dimension ", dim, " has size ",
                                    shape[dim], " but the axis size is ", n,
                                    " (untiled psum_scatter needs them equal)"));
    }
    shape.erase(shape.begin() + dim);
  }
  return One(x.WithShape(std::move(shape))
                 .WithVma(VarianceTypingOn() ? x.vma() : std::vector<std::string>{}));
}

Result AllToAllRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("all_to_all", avals, 1));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "all_to_all", "axis_name"));
  AXE_ASSIGN_OR_RETURN(int64_t n, ManualAxesSize(axes, "all_to_all"));
  AXE_ASSIGN_OR_RETURN(int64_t split, Dimension(params, "all_to_all", "split_axis", x, false));
  AXE_RETURN_IF_ERROR(RequireVarying("all_to_all", x, axes));
  AXE_ASSIGN_OR_RETURN(int64_t concat, Dimension(params, "all_to_all", "concat_axis", x, false));
  std::vector<int64_t> shape = x.shape();
  // The primitive has the tiled shapes whatever `tiled` says (lax.all_to_all inserts and
  // squeezes the axes of its untiled form around it).
  if (shape[split] % n != 0) {
    return TypeError(absl::StrCat("The size of all_to_all split_axis (", shape[split],
                                  ") has to be divisible by the size of the named axis ",
                                  absl::StrJoin(axes, ","), " (", n, ")"));
  }
  shape[split] /= n;
  std::optional<int64_t> c = CheckedMul(shape[concat], n);
  if (!c) return TypeError("all_to_all: the concatenated dimension overflows int64");
  shape[concat] = *c;
  return One(x.WithShape(std::move(shape))
                 .WithVma(VarianceTypingOn() ? x.vma() : std::vector<std::string>{}));
}

Result PpermuteRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("ppermute", avals, 1));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "ppermute", "axis_name"));
  AXE_ASSIGN_OR_RETURN(int64_t n, ManualAxesSize(axes, "ppermute"));
  AXE_ASSIGN_OR_RETURN(const Param* perm, GetParam(params, "ppermute", "perm"));
  std::vector<bool> src(static_cast<size_t>(n), false), dst(static_cast<size_t>(n), false);
  bool ok = perm->kind() == Param::Kind::kTuple || perm->kind() == Param::Kind::kList;
  for (size_t i = 0; ok && i < perm->items().size(); ++i) {
    absl::StatusOr<std::vector<int64_t>> pair = perm->items()[i].AsInts("perm");
    ok = pair.ok() && pair->size() == 2 && (*pair)[0] >= 0 && (*pair)[0] < n && (*pair)[1] >= 0 &&
         (*pair)[1] < n && !src[(*pair)[0]] && !dst[(*pair)[1]];
    if (ok) src[(*pair)[0]] = dst[(*pair)[1]] = true;
  }
  if (!ok) {
    return TypeError(absl::StrCat("ppermute perm must be (source, destination) pairs in [0, ", n,
                                  ") with unique sources and destinations, got ",
                                  perm->ToString()));
  }
  AXE_RETURN_IF_ERROR(RequireVarying("ppermute", x, axes));
  return One(VarianceTypingOn() ? x : x.WithVma({}));
}

Result AxisIndex(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("axis_index", avals, 0));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "axis_index", "axis_name"));
  AXE_RETURN_IF_ERROR(ManualAxesSize(axes, "axis_index").status());
  std::vector<std::string> vma =
      VarianceTypingOn() ? InMeshOrder(axes) : std::vector<std::string>{};
  return One(ShapedArray({}, DType::kS32, false, std::move(vma)));
}

JvpRule ExtremumJvp(const Primitive* prim) {
  return [prim](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*prim, primals, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    AXE_ASSIGN_OR_RETURN(const Param* axes_param, GetParam(params, prim->name(), "axes"));
    AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, axes_param->AsAxisNames("axes"));
    const BuiltinPrimitives& p = Builtins();
    AXE_ASSIGN_OR_RETURN(Tracer hit, Op(*p.eq, {primals[0], out}));
    AXE_ASSIGN_OR_RETURN(Tracer mask, ConvertElementType(hit, primals[0].aval.dtype()));
    AXE_ASSIGN_OR_RETURN(Tracer picked, Op(*p.mul, {*tangents[0], mask}));
    AXE_ASSIGN_OR_RETURN(Tracer num, Psum(picked, axes));
    AXE_ASSIGN_OR_RETURN(Tracer den, Psum(mask, axes));
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*p.div, {num, den}));
    return JvpResult{{out}, {t}};
  };
}

using Cts = absl::StatusOr<std::vector<std::optional<Tracer>>>;

// The transpose of a one-operand collective: ct -> bind(to, ct, params of `to`).
TransposeRule Swap(const Primitive* to, std::function<Params(const Params&)> params_of) {
  return [to, params_of](Builder& b, absl::Span<const std::optional<Tracer>> cts,
                         absl::Span<const TransposeArg> args, const Params& params) -> Cts {
    std::vector<std::optional<Tracer>> out(args.size());
    for (size_t i = 0; i < args.size() && i < cts.size(); ++i) {
      if (!cts[i]) continue;  // a symbolic zero transposes to a symbolic zero
      AXE_ASSIGN_OR_RETURN(Tracer t, b.Bind1(*to, {*cts[i]}, params_of(params)));
      out[i] = t;
    }
    return out;
  };
}

Params Keep(const Params& p, std::initializer_list<const char*> names) {
  Params out;
  for (const char* n : names) {
    auto it = p.find(n);
    if (it != p.end()) out.emplace(n, it->second);
  }
  return out;
}

Params GatherToScatter(const Params& p) {
  Params out = Keep(p, {"axis_index_groups", "axis_name", "axis_size", "tiled"});
  if (auto it = p.find("all_gather_dimension"); it != p.end()) {
    out.emplace("scatter_dimension", it->second);
  }
  return out;
}

Params ScatterToGather(const Params& p) {
  Params out = Keep(p, {"axis_index_groups", "axis_name", "axis_size", "tiled"});
  if (auto it = p.find("scatter_dimension"); it != p.end()) {
    out.emplace("all_gather_dimension", it->second);
  }
  return out;
}

Params SwapSplitConcat(const Params& p) {
  Params out = p;
  auto s = p.find("split_axis");
  auto c = p.find("concat_axis");
  if (s != p.end() && c != p.end()) {
    out["split_axis"] = c->second;
    out["concat_axis"] = s->second;
  }
  return out;
}

Params InversePerm(const Params& p) {
  Params out = p;
  auto it = p.find("perm");
  if (it == p.end()) return out;
  std::vector<Param> inverse;
  for (const Param& pair : it->second.items()) {
    if (pair.items().size() == 2)
      inverse.push_back(Param::Tuple({pair.items()[1], pair.items()[0]}));
  }
  out["perm"] = Param::Tuple(std::move(inverse));
  return out;
}

// all_gather_invariant's transpose (the JEP's pscatter): pvary the cotangent, then take this
// member's piece with dynamic_slice at axis_index * size along the gathered dimension.
Cts AllGatherInvariantTranspose(Builder& b, absl::Span<const std::optional<Tracer>> cts,
                                absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<std::optional<Tracer>> out(args.size());
  if (cts.empty() || !cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(const Param* axis_param,
                       GetParam(params, "all_gather_invariant", "axis_name"));
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, axis_param->AsAxisNames("axis_name"));
  AXE_ASSIGN_OR_RETURN(int64_t dim,
                       RequiredInt(params, "all_gather_invariant", "all_gather_dimension"));
  bool tiled = params.count("tiled") != 0 && params.at("tiled").kind() == Param::Kind::kBool &&
               params.at("tiled").bool_value();
  const ShapedArray& in = args[0].aval;
  Tracer ct = *cts[0];
  if (VarianceTypingOn()) {
    std::vector<std::string> missing = VmaMinus(InMeshOrder(axes), ct.aval.vma());
    if (!missing.empty()) {
      AXE_ASSIGN_OR_RETURN(ct, Pvary(ct, missing));
    }
  }
  Tracer index;
  if (axes.size() == 1) {
    AXE_ASSIGN_OR_RETURN(index, AxisIndex(b, axes[0]));
  } else {
    AXE_ASSIGN_OR_RETURN(index,
                         b.Bind1(*Builtins().axis_index, {}, {{"axis_name", Param::Names(axes)}}));
  }
  int64_t piece = tiled ? in.shape()[dim] : 1;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> start,
                       BindWithAutoPvary(*Builtins().mul, {index, b.Scalar(piece, DType::kS32)}));
  std::vector<Tracer> operands = {ct};
  std::vector<int64_t> sizes = ct.aval.shape();
  for (size_t d = 0; d < ct.aval.rank(); ++d) {
    operands.push_back(static_cast<int64_t>(d) == dim ? start[0] : b.Scalar(0, DType::kS32));
  }
  sizes[dim] = piece;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> sliced,
                       BindWithAutoPvary(*Builtins().dynamic_slice, operands,
                                         {{"slice_sizes", Param::Ints(sizes)}}));
  Tracer result = sliced[0];
  if (!tiled) {
    AXE_ASSIGN_OR_RETURN(result, Squeeze(result, {dim}));
  }
  out[0] = result;
  return out;
}

Params AxesOnly(const Params& p) { return Keep(p, {"axes"}); }

Params LegacyPsum(const Params& p) { return Keep(p, {"axes", "axis_index_groups"}); }

using BatchRuleResult = absl::StatusOr<BatchResult>;

BatchingRule InPlace(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, args, params));
    return BatchResult{outs, std::vector<BDim>(outs.size(), dims[0])};
  };
}

BatchingRule ShiftedDims(const Primitive* prim, std::vector<const char*> names) {
  return [prim, names](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                       const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
    Params p = params;
    for (const char* name : names) {
      AXE_ASSIGN_OR_RETURN(int64_t d, RequiredInt(params, prim->name(), name));
      p[name] = Param::Int(d + 1);
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, {x}, p));
    return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
  };
}

}  // namespace

void DefineCollectives(BuiltinPrimitives& p) {
  auto collective = [&](std::string name, bool multiple, std::string axes_param) {
    Primitive::Options o =
        MultiResultOptions(std::move(name), {{std::move(axes_param), ParamType::kAxisNames}});
    o.multiple_results = multiple;
    return DefineBuiltin(std::move(o));
  };
  p.psum = collective("psum", true, "axes");
  p.psum_invariant = collective("psum_invariant", true, "axes");
  p.pmax = collective("pmax", true, "axes");
  p.pmin = collective("pmin", true, "axes");
  p.pvary = collective("pvary", true, "axes");
  p.all_gather = collective("all_gather", false, "axis_name");
  p.all_gather_invariant = collective("all_gather_invariant", false, "axis_name");
  p.reduce_scatter = collective("reduce_scatter", false, "axis_name");
  p.all_to_all = collective("all_to_all", false, "axis_name");
  p.ppermute = collective("ppermute", false, "axis_name");
  p.axis_index = collective("axis_index", false, "axis_name");
}

// Each collective's impl reports its unbound axis (they run inside a shard_map's evaluation);
// the linear ones transpose to their partner collective (psum_invariant and pvary, all_gather
// and reduce_scatter, ...).
void RegisterCollectiveRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.psum, LegacyPsumShapes);
  DefLinear2(*p.psum, Swap(p.psum, LegacyPsum));
  RegisterBatching(*p.psum, InPlace(p.psum));

  RegisterAbstractEval(*p.psum_invariant, Reducing("psum_invariant"));
  DefLinear2(*p.psum_invariant, Swap(p.pvary, AxesOnly));
  RegisterBatching(*p.psum_invariant, InPlace(p.psum_invariant));

  RegisterAbstractEval(*p.pvary, Pvary);
  DefLinear2(*p.pvary, Swap(p.psum_invariant, AxesOnly));
  RegisterBatching(*p.pvary, InPlace(p.pvary));

  for (const Primitive* prim : {p.pmax, p.pmin}) {
    RegisterAbstractEval(*prim, Reducing(prim->name()));
    RegisterJvp(*prim, ExtremumJvp(prim));
    RegisterBatching(*prim, InPlace(prim));
  }

  RegisterAbstractEval(*p.all_gather, AllGather("all_gather", false));
  DefLinear2(*p.all_gather, Swap(p.reduce_scatter, GatherToScatter));
  RegisterBatching(*p.all_gather, ShiftedDims(p.all_gather, {"all_gather_dimension"}));

  RegisterAbstractEval(*p.all_gather_invariant, AllGather("all_gather_invariant", true));
  DefLinear2(*p.all_gather_invariant, AllGatherInvariantTranspose);
  RegisterBatching(*p.all_gather_invariant,
                   ShiftedDims(p.all_gather_invariant, {"all_gather_dimension"}));

  RegisterAbstractEval(*p.reduce_scatter, ReduceScatterRule);
  DefLinear2(*p.reduce_scatter, Swap(p.all_gather, ScatterToGather));
  RegisterBatching(*p.reduce_scatter, ShiftedDims(p.reduce_scatter, {"scatter_dimension"}));

  RegisterAbstractEval(*p.all_to_all, AllToAllRule);
  DefLinear2(*p.all_to_all, Swap(p.all_to_all, SwapSplitConcat));
  RegisterBatching(*p.all_to_all, ShiftedDims(p.all_to_all, {"split_axis", "concat_axis"}));

  RegisterAbstractEval(*p.ppermute, PpermuteRule);
  DefLinear2(*p.ppermute, Swap(p.ppermute, InversePerm));
  RegisterBatching(*p.ppermute, InPlace(p.ppermute));

  RegisterAbstractEval(*p.axis_index, AxisIndex);
  RegisterJvp(*p.axis_index, ZeroTangentJvpRule(p.axis_index));

  for (const Primitive* prim :
       {p.psum, p.psum_invariant, p.pmax, p.pmin, p.pvary, p.all_gather, p.all_gather_invariant,
        p.reduce_scatter, p.all_to_all, p.ppermute, p.axis_index}) {
    RegisterImpl(*prim, ViaInterpreter(*prim));
  }
}

}  // namespace axe::ir::internal
