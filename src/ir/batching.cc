// Vmap and BatchTrace (batching.h).
#include "axe/ir/batching.h"

#include <map>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir {
namespace {

using internal::BDim;

struct BatchEnv {
  std::vector<std::optional<Tracer>> value;
  std::vector<BDim> dim;
};

absl::Status BatchEqn(Builder& b, BatchEnv& env, const Eqn& e) {
  std::vector<Tracer> args;
  std::vector<BDim> dims;
  bool any = false;
  for (const Atom& a : e.inputs) {
    args.push_back(a.is_literal() ? b.Lit(*a.literal) : *env.value[a.var]);
    dims.push_back(a.is_literal() ? std::nullopt : env.dim[a.var]);
    any = any || dims.back().has_value();
  }
  BatchResult r;
  if (!any) {
    AXE_ASSIGN_OR_RETURN(r.outs, b.Bind(*e.primitive, args, e.params));
    r.out_dims.resize(r.outs.size());
  } else {
    AXE_ASSIGN_OR_RETURN(BatchingRule rule, GetBatchingRule(*e.primitive));
    AXE_ASSIGN_OR_RETURN(r, rule(b, args, dims, e.params));
  }
  if (r.outs.size() != e.outputs.size() || r.out_dims.size() != e.outputs.size()) {
    return absl::InternalError(absl::StrCat("the batching rule of ", e.primitive->name(),
                                            " returned the wrong number of results"));
  }
  for (size_t k = 0; k < e.outputs.size(); ++k) {
    env.value[e.outputs[k]] = r.outs[k];
    env.dim[e.outputs[k]] = r.out_dims[k];
  }
  return absl::OkStatus();
}

// JAX's _mapped_axis_size over the batched argument types: the one size of the mapped axes,
// or its error.
absl::StatusOr<int64_t> MappedAxisSize(const std::vector<ShapedArray>& types,
                                       const std::vector<BDim>& axes,
                                       std::optional<int64_t> axis_size) {
  std::vector<std::pair<int64_t, size_t>> counts;  // size, first argument, in first-seen order
  std::map<int64_t, size_t> count;
  for (size_t i = 0; i < axes.size() && i < types.size(); ++i) {
    if (!axes[i]) continue;
    int64_t size = types[i].shape()[*axes[i]];
    if (count[size]++ == 0) counts.push_back({size, i});
  }
  if (counts.empty() || (counts.size() == 1 && (!axis_size || *axis_size == counts[0].first))) {
    if (!counts.empty()) return counts[0].first;
    if (axis_size) return *axis_size;
    return absl::InvalidArgumentError(
        "vmap must have at least one non-None value in in_axes or axis_size must be specified");
  }
  std::stable_sort(counts.begin(), counts.end(),
                   [&](const auto& a, const auto& b) { return count[a.first] > count[b.first]; });
  std::string msg = "vmap got inconsistent sizes for array axes to be mapped:\n";
  if (axis_size) absl::StrAppend(&msg, "  * the `axis_size` argument was ", *axis_size, ";\n");
  for (size_t k = 0; k < counts.size(); ++k) {
    auto [size, i] = counts[k];
    std::string where =
        absl::StrCat("axis ", *axes[i], " of args[", i, "] of type ", types[i].ShortString());
    size_t n = count[size];
    if (n == 1) {
      absl::StrAppend(&msg, "  * one axis had size ", size, ": ", where, ";\n");
    } else {
      absl::StrAppend(&msg, k == 0 ? "  * most axes (" : "  * some axes (", n,
                      " of them) had size ", size, ", e.g. ", where, ";\n");
    }
  }
  msg.resize(msg.size() - 2);
  return absl::InvalidArgumentError(msg);
}

// Negative axes normalized against the batched types; JAX's rank error.
absl::StatusOr<std::vector<BDim>> NormalizeInAxes(const std::vector<ShapedArray>& types,
                                                  std::vector<BDim> in_axes) {
  for (size_t i = 0; i < in_axes.size(); ++i) {
    if (!in_axes[i]) continue;
    const ShapedArray& a = types[i];
    int64_t rank = static_cast<int64_t>(a.rank()), axis = *in_axes[i];
    if (axis >= rank || axis < -rank) {
      // axis + 1 or -axis, computed unsigned (no overflow at the int64 limits).
      uint64_t min_rank =
          axis >= 0 ? static_cast<uint64_t>(axis) + 1 : static_cast<uint64_t>(-(axis + 1)) + 1;
      return absl::InvalidArgumentError(absl::StrCat(
          "vmap was requested to map its argument along axis ", axis,
          ", which implies that its rank should be at least ", min_rank, ", but is only ", rank,
          " (its shape is ", internal::PyTuple(a.shape()), ")"));
    }
    if (axis < 0) in_axes[i] = axis + rank;
  }
  return in_axes;
}

ShapedArray Unmapped(const ShapedArray& t, const BDim& axis) {
  if (!axis) return t;
  std::vector<int64_t> shape = t.shape();
  shape.erase(shape.begin() + *axis);
  return t.WithShape(std::move(shape));
}

// The batched argument types: given ones checked against the inputs, else the inputs with
// axis_size inserted (negative in axes count in the batched rank).
absl::StatusOr<std::vector<ShapedArray>> ArgTypes(const Jaxpr& j, const VmapOptions& o) {
  if (!o.arg_types.empty()) {
    if (o.arg_types.size() != j.invars.size()) {
      return absl::InvalidArgumentError(absl::StrCat("vmap got ", o.arg_types.size(),
                                                     " argument types for a function of ",
                                                     j.invars.size(), " inputs"));
    }
    return o.arg_types;
  }
  if (!o.axis_size) {
    bool any = false;
    for (const BDim& a : o.in_axes) any = any || a.has_value();
    if (!any) {
      return absl::InvalidArgumentError(
          "vmap must have at least one non-None value in in_axes or axis_size must be "
          "specified");
    }
    return absl::InvalidArgumentError(
        "vmap of a jaxpr needs the mapped size: axis_size or the batched argument types");
  }
  if (*o.axis_size < 0) return absl::InvalidArgumentError("vmap axis_size must be >= 0");
  std::vector<ShapedArray> out;
  for (size_t i = 0; i < j.invars.size(); ++i) {
    const ShapedArray& a = j.aval(j.invars[i]);
    if (!o.in_axes[i]) {
      out.push_back(a);
      continue;
    }
    int64_t rank = static_cast<int64_t>(a.rank()) + 1, axis = *o.in_axes[i];
    if (axis >= rank || axis < -rank) {
      out.push_back(a);  // NormalizeInAxes reports it
      continue;
    }
    std::vector<int64_t> shape = a.shape();
    shape.insert(shape.begin() + (axis < 0 ? axis + rank : axis), *o.axis_size);
    out.push_back(a.WithShape(std::move(shape)));
  }
  return out;
}

}  // namespace

absl::StatusOr<BatchResult> BatchTrace(Builder& b, const ClosedJaxpr& jaxpr,
                                       absl::Span<const Tracer> args,
                                       absl::Span<const std::optional<int64_t>> dims) {
  AXE_RETURN_IF_ERROR(internal::CheckConstValues(jaxpr, "vmap"));
  const Jaxpr& j = jaxpr.jaxpr;
  if (args.size() != j.invars.size() || dims.size() != j.invars.size()) {
    return absl::InvalidArgumentError("vmap: argument count mismatch");
  }
  BatchEnv env{std::vector<std::optional<Tracer>>(j.vars.size()), std::vector<BDim>(j.vars.size())};
  for (size_t i = 0; i < jaxpr.consts.size(); ++i)
    env.value[j.constvars[i]] = b.Const(jaxpr.consts[i]);
  for (size_t i = 0; i < args.size(); ++i) {
    env.value[j.invars[i]] = args[i];
    env.dim[j.invars[i]] = dims[i];
  }
  for (const Eqn& e : j.eqns) AXE_RETURN_IF_ERROR(BatchEqn(b, env, e));
  BatchResult r;
  for (const Atom& a : j.outvars) {
    r.outs.push_back(a.is_literal() ? b.Lit(*a.literal) : *env.value[a.var]);
    r.out_dims.push_back(a.is_literal() ? std::nullopt : env.dim[a.var]);
  }
  return r;
}

absl::StatusOr<ClosedJaxpr> Vmap(const ClosedJaxpr& jaxpr, VmapOptions o) {
  const Jaxpr& j = jaxpr.jaxpr;
  if (o.in_axes.empty()) o.in_axes.assign(j.invars.size(), 0);
  if (o.in_axes.size() != j.invars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("vmap in_axes has ", o.in_axes.size(),
                                                   " entries for a function of ", j.invars.size(),
                                                   " inputs"));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> types, ArgTypes(j, o));
  AXE_ASSIGN_OR_RETURN(std::vector<BDim> in_axes, NormalizeInAxes(types, o.in_axes));
  AXE_ASSIGN_OR_RETURN(int64_t size, MappedAxisSize(types, in_axes, o.axis_size));
  for (size_t i = 0; i < types.size(); ++i) {
    ShapedArray want = j.aval(j.invars[i]);
    ShapedArray got = Unmapped(types[i], in_axes[i]);
    if (got.shape() != want.shape() || got.dtype() != want.dtype()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "vmap: argument ", i, " of type ", types[i].ShortString(), " mapped along axis ",
          in_axes[i] ? absl::StrCat(*in_axes[i]) : "None", " gives ", got.ShortString(),
          ", not the function's input type ", want.ShortString()));
    }
  }
  std::vector<int64_t> out_axes = o.out_axes;
  if (out_axes.empty()) out_axes.assign(j.outvars.size(), 0);
  if (out_axes.size() != j.outvars.size()) {
    return absl::InvalidArgumentError(absl::StrCat("vmap out_axes has ", out_axes.size(),
                                                   " entries for ", j.outvars.size(), " outputs"));
  }
  Builder b;
  std::vector<Tracer> args;
  for (const ShapedArray& t : types) args.push_back(b.Arg(t));
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(b, jaxpr, args, in_axes));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    int64_t rank = static_cast<int64_t>(r.outs[k].aval.rank()) + (r.out_dims[k] ? 0 : 1);
    int64_t axis = out_axes[k] < 0 ? out_axes[k] + rank : out_axes[k];
    if (axis < 0 || axis >= rank) {
      return absl::InvalidArgumentError(absl::StrCat("vmap out_axes[", k, "] = ", out_axes[k],
                                                     " is out of range for an output of rank ",
                                                     rank));
    }
    Tracer out = r.outs[k];
    if (r.out_dims[k]) {
      AXE_ASSIGN_OR_RETURN(out, internal::MoveBatchDim(out, *r.out_dims[k], axis));
    } else {
      AXE_ASSIGN_OR_RETURN(out, internal::BroadcastBatched(out, size, axis));
    }
    outs.push_back(out);
  }
  return b.Build(outs);
}

}  // namespace axe::ir
