// Abstract evaluation of the collectives (spec ir-and-shard-map.md §5): shapes from the
// manual axis sizes of the current AxisEnv, variance sets by the §5 rules when check_vma is on.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
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

Result ReduceScatter(absl::Span<const ShapedArray> avals, const Params& params) {
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

Result AllToAll(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("all_to_all", avals, 1));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> axes, AxesParam(params, "all_to_all", "axis_name"));
  AXE_ASSIGN_OR_RETURN(int64_t n, ManualAxesSize(axes, "all_to_all"));
  AXE_ASSIGN_OR_RETURN(int64_t split, Dimension(params, "all_to_all", "split_axis", x, false));
  AXE_RETURN_IF_ERROR(RequireVarying("all_to_all", x, axes));
  std::vector<int64_t> shape = x.shape();
  if (shape[split] % n != 0) {
    return TypeError(absl::StrCat("all_to_all split_axis ", split, " of size ", shape[split],
                                  " is not divisible by the axis size ", n));
  }
  if (Tiled(params)) {
    AXE_ASSIGN_OR_RETURN(int64_t concat, Dimension(params, "all_to_all", "concat_axis", x, false));
    shape[split] /= n;
    std::optional<int64_t> c = CheckedMul(shape[concat], n);
    if (!c) return TypeError("all_to_all: the concatenated dimension overflows int64");
    shape[concat] = *c;
  } else {
    if (shape[split] != n) {
      return TypeError(absl::StrCat("all_to_all split_axis ", split, " has size ", shape[split],
                                    " but the axis size is ", n,
                                    " (untiled all_to_all needs them equal)"));
    }
    shape.erase(shape.begin() + split);
    AXE_ASSIGN_OR_RETURN(int64_t concat, RequiredInt(params, "all_to_all", "concat_axis"));
    if (concat < 0 || concat > static_cast<int64_t>(shape.size())) {
      return TypeError(absl::StrCat("all_to_all concat_axis ", concat, " is out of range"));
    }
    shape.insert(shape.begin() + concat, n);
  }
  return One(x.WithShape(std::move(shape))
                 .WithVma(VarianceTypingOn() ? x.vma() : std::vector<std::string>{}));
}

Result Ppermute(absl::Span<const ShapedArray> avals, const Params& params) {
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

}  // namespace

void RegisterCollectiveRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.psum, LegacyPsumShapes);
  RegisterAbstractEval(*p.psum_invariant, Reducing("psum_invariant"));
  RegisterAbstractEval(*p.pmax, Reducing("pmax"));
  RegisterAbstractEval(*p.pmin, Reducing("pmin"));
  RegisterAbstractEval(*p.pvary, Pvary);
  RegisterAbstractEval(*p.all_gather, AllGather("all_gather", false));
  RegisterAbstractEval(*p.all_gather_invariant, AllGather("all_gather_invariant", true));
  RegisterAbstractEval(*p.reduce_scatter, ReduceScatter);
  RegisterAbstractEval(*p.all_to_all, AllToAll);
  RegisterAbstractEval(*p.ppermute, Ppermute);
  RegisterAbstractEval(*p.axis_index, AxisIndex);
}

}  // namespace axe::ir::internal
