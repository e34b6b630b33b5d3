#include "axe/ir/linear.h"

#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "rule_util.h"

namespace axe::ir {

absl::StatusOr<Tracer> ZerosLike(Builder& builder, const ShapedArray& aval) {
  Tracer zero = builder.Scalar(0, aval.dtype());
  AXE_ASSIGN_OR_RETURN(Tracer z, BroadcastInDim(zero, aval.shape(), {}));
  if (VarianceTypingOn() && !aval.vma().empty()) {
    AXE_ASSIGN_OR_RETURN(z, Pvary(z, aval.vma()));
  }
  return z;
}

void DefLinear2(const Primitive& prim, TransposeRule transpose) {
  const Primitive* p = &prim;
  RegisterJvp(prim,
              [p](Builder& b, absl::Span<const Tracer> primals,
                  absl::Span<const std::optional<Tracer>> tangents,
                  const Params& params) -> absl::StatusOr<JvpResult> {
                AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*p, primals, params));
                bool all_zero = true;
                for (const auto& t : tangents) all_zero = all_zero && !t.has_value();
                JvpResult r{outs, std::vector<std::optional<Tracer>>(outs.size())};
                if (all_zero) return r;
                std::vector<Tracer> ts;
                for (size_t i = 0; i < tangents.size(); ++i) {
                  if (tangents[i]) {
                    ts.push_back(*tangents[i]);
                  } else {
                    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, primals[i].aval));
                    ts.push_back(z);
                  }
                }
                AXE_ASSIGN_OR_RETURN(std::vector<Tracer> touts, b.Bind(*p, ts, params));
                for (size_t i = 0; i < touts.size(); ++i) r.tangents_out[i] = touts[i];
                return r;
              });
  RegisterTranspose(prim, std::move(transpose));
}

namespace internal {
namespace {

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

}  // namespace

void RegisterCollectiveTransposes(const BuiltinPrimitives& p) {
  DefLinear2(*p.pvary, Swap(p.psum_invariant, AxesOnly));
  DefLinear2(*p.psum_invariant, Swap(p.pvary, AxesOnly));
  DefLinear2(*p.psum, Swap(p.psum, LegacyPsum));
  DefLinear2(*p.all_gather, Swap(p.reduce_scatter, GatherToScatter));
  DefLinear2(*p.reduce_scatter, Swap(p.all_gather, ScatterToGather));
  DefLinear2(*p.all_to_all, Swap(p.all_to_all, SwapSplitConcat));
  DefLinear2(*p.ppermute, Swap(p.ppermute, InversePerm));
  DefLinear2(*p.all_gather_invariant, AllGatherInvariantTranspose);
}

}  // namespace internal
}  // namespace axe::ir
