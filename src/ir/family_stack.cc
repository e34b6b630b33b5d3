// stack, unstack and tile (JAX's stack_p, unstack_p and tile_p: `jnp.stack`, the transpose of
// stack, `jnp.tile`), with every rule. stack joins equal operands along a new axis `axis`;
// unstack splits an array along `axis` into its slices (one result each); tile repeats an
// array `reps[d]` times along each dimension d. All three are linear: stack and unstack
// transpose into each other, tile into a reshape that interleaves the repeats with the
// dimensions, then a sum over the repeats, as JAX's rules do.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/ir/builder.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace stack_family {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

const BuiltinPrimitives& B() { return Builtins(); }

Params AxisParam(int64_t axis) {
  Params p;
  p["axis"] = Param::Int(axis);
  return p;
}

// The number of elements before and after dimension `axis` of `shape` (row-major).
std::pair<int64_t, int64_t> OuterInner(absl::Span<const int64_t> shape, size_t axis) {
  int64_t outer = 1, inner = 1;
  for (size_t d = 0; d < shape.size(); ++d) (d < axis ? outer : inner) *= shape[d];
  return {outer, inner};
}

// ---- stack ----

Result StackRule(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty()) return absl::InvalidArgumentError("stack needs at least one operand");
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "stack", "axis"));
  for (const ShapedArray& a : avals) {
    if (a.dtype() != avals[0].dtype()) {
      std::vector<std::string> names;
      for (const ShapedArray& b : avals) names.push_back(DTypeName(b.dtype()));
      return TypeError(absl::StrCat("stack requires arguments to have the same dtypes, got ",
                                    absl::StrJoin(names, ", "), "."));
    }
    if (a.shape() != avals[0].shape()) {
      std::vector<std::string> shapes;
      for (const ShapedArray& b : avals) shapes.push_back(PyTuple(b.shape()));
      return absl::InvalidArgumentError(absl::StrCat(
          "All input arrays must have the same shape. Got ", absl::StrJoin(shapes, ", "), "."));
    }
  }
  std::vector<int64_t> shape = avals[0].shape();
  if (axis < 0 || axis > static_cast<int64_t>(shape.size())) {
    return absl::InvalidArgumentError(absl::StrCat("stack axis ", axis, " is out of bounds for ",
                                                   shape.size() + 1, " dimensions"));
  }
  shape.insert(shape.begin() + axis, static_cast<int64_t>(avals.size()));
  return One(avals[0].WithShape(std::move(shape)));
}

absl::StatusOr<std::vector<HostArray>> StackImpl(absl::Span<const HostArray> args,
                                                 const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out_aval, StackRule(PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(out_aval[0]));
  const int64_t axis = params.at("axis").AsInt("axis").value();
  const auto [outer, inner] = OuterInner(args[0].aval.shape(), static_cast<size_t>(axis));
  const int64_t n = static_cast<int64_t>(args.size());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k = 0; k < n; ++k) {
      for (int64_t i = 0; i < inner; ++i) {
        out.values[(o * n + k) * inner + i] = args[k].values[o * inner + i];
      }
    }
  }
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<OptTracer>> StackTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                      absl::Span<const TransposeArg> args,
                                                      const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> parts, b.Bind(*B().unstack, {*cts[0]}, params));
  for (size_t i = 0; i < args.size() && i < parts.size(); ++i) {
    if (!args[i].value) out[i] = parts[i];
  }
  return out;
}

// JAX's rule: every operand batched at the same dimension stacks there; otherwise each is
// moved (or broadcast) to 0 and the stack axis shifts by one.
absl::StatusOr<BatchResult> StackBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "stack", "axis"));
  const BDim first = dims[0];
  bool same = first.has_value();
  for (const BDim& d : dims) same = same && d == first;
  if (same) {
    const int64_t out_axis = axis <= *first ? axis : axis + 1;
    const int64_t out_bdim = axis <= *first ? *first + 1 : *first;
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*B().stack, args, AxisParam(out_axis)));
    return BatchResult{{out}, {out_bdim}};
  }
  int64_t size = 0;
  for (size_t i = 0; i < args.size(); ++i) {
    if (dims[i]) size = args[i].aval.shape()[*dims[i]];
  }
  std::vector<Tracer> ops;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[i], dims[i], size));
    ops.push_back(x);
  }
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*B().stack, ops, AxisParam(axis + 1)));
  return BatchResult{{out}, {0}};
}

// ---- unstack ----

Result UnstackRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("unstack", avals, 1));
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "unstack", "axis"));
  std::vector<int64_t> shape = avals[0].shape();
  if (axis < 0 || axis >= static_cast<int64_t>(shape.size())) {
    return absl::InvalidArgumentError(
        absl::StrCat("unstack axis ", axis, " is out of bounds for array of rank ", shape.size()));
  }
  const int64_t n = shape[axis];
  shape.erase(shape.begin() + axis);
  return std::vector<ShapedArray>(static_cast<size_t>(n), avals[0].WithShape(std::move(shape)));
}

absl::StatusOr<std::vector<HostArray>> UnstackImpl(absl::Span<const HostArray> args,
                                                   const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, UnstackRule(PlainAvals(args), params));
  const int64_t axis = params.at("axis").AsInt("axis").value();
  const auto [outer, inner_with_axis] = OuterInner(args[0].aval.shape(), static_cast<size_t>(axis));
  const int64_t n = static_cast<int64_t>(avals.size());
  const int64_t inner = n == 0 ? 0 : inner_with_axis / n;
  std::vector<HostArray> outs;
  for (int64_t k = 0; k < n; ++k) {
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(avals[k]));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        out.values[o * inner + i] = args[0].values[(o * n + k) * inner + i];
      }
    }
    outs.push_back(std::move(out));
  }
  return outs;
}

absl::StatusOr<std::vector<OptTracer>> UnstackTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                        absl::Span<const TransposeArg> args,
                                                        const Params& params) {
  std::vector<Tracer> parts;
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, UnstackRule({args[0].aval}, params));
  for (size_t i = 0; i < cts.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, cts[i], avals[i]));
    parts.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*B().stack, parts, params));
  return std::vector<OptTracer>{out};
}

absl::StatusOr<BatchResult> UnstackBatch(Builder& b, absl::Span<const Tracer> args,
                                         absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "unstack", "axis"));
  const int64_t bdim = *dims[0];
  const int64_t in_axis = axis < bdim ? axis : axis + 1;
  const int64_t out_bdim = axis < bdim ? bdim - 1 : bdim;
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*B().unstack, args, AxisParam(in_axis)));
  return BatchResult{outs, std::vector<BDim>(outs.size(), out_bdim)};
}

// ---- tile ----

Result TileRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("tile", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, RequiredInts(params, "tile", "reps"));
  std::vector<int64_t> shape = avals[0].shape();
  if (reps.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("tile: reps ", PyTuple(reps), " must have ",
                                                   shape.size(), " entries, one per dimension"));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (reps[d] < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile: reps[", d, "] = ", reps[d], " is negative"));
    }
    std::optional<int64_t> n = CheckedMul(shape[d], reps[d]);
    if (!n) return absl::InvalidArgumentError(absl::StrCat("tile: dimension ", d, " overflows"));
    shape[d] = *n;
  }
  return One(avals[0].WithShape(std::move(shape)));
}

absl::StatusOr<std::vector<HostArray>> TileImpl(absl::Span<const HostArray> args,
                                                const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, TileRule(PlainAvals(args), params));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(avals[0]));
  const std::vector<int64_t>& in_shape = args[0].aval.shape();
  const std::vector<int64_t>& out_shape = avals[0].shape();
  std::vector<int64_t> index(out_shape.size(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, out_shape)) {
    int64_t from = 0;
    for (size_t d = 0; d < in_shape.size(); ++d) from = from * in_shape[d] + index[d] % in_shape[d];
    out.values[i] = args[0].values[from];
  }
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<OptTracer>> TileTranspose(Builder&, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params& params) {
  std::vector<OptTracer> out(1);
  if (!cts[0] || args[0].value) return out;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, RequiredInts(params, "tile", "reps"));
  std::vector<int64_t> interleaved, axes;
  for (size_t d = 0; d < reps.size(); ++d) {
    axes.push_back(static_cast<int64_t>(2 * d));
    interleaved.push_back(reps[d]);
    interleaved.push_back(args[0].aval.shape()[d]);
  }
  AXE_ASSIGN_OR_RETURN(Tracer r, Reshape(*cts[0], interleaved));
  AXE_ASSIGN_OR_RETURN(out[0], ReduceSum(r, axes));
  return out;
}

absl::StatusOr<BatchResult> TileBatch(Builder&, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, RequiredInts(params, "tile", "reps"));
  reps.insert(reps.begin() + *dims[0], 1);
  Params p = params;
  p["reps"] = Param::Ints(reps);
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*B().tile, args, p));
  return BatchResult{{out}, {dims[0]}};
}

const Primitive* Define(std::string name, bool multiple_results) {
  Primitive::Options o;
  o.name = std::move(name);
  o.multiple_results = multiple_results;
  absl::StatusOr<const Primitive*> p = DefinePrimitive(std::move(o));
  AXE_CHECK(p.ok()) << p.status();  // fixed identifiers, defined once
  return *p;
}

}  // namespace stack_family

void DefineStack(BuiltinPrimitives& p) {
  p.stack = stack_family::Define("stack", false);
  p.unstack = stack_family::Define("unstack", true);
  p.tile = stack_family::Define("tile", false);
}

void RegisterStackRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.stack, stack_family::StackRule);
  RegisterImpl(*p.stack, stack_family::StackImpl);
  DefLinear2(*p.stack, stack_family::StackTranspose);
  RegisterBatching(*p.stack, stack_family::StackBatch);
  RegisterAbstractEval(*p.unstack, stack_family::UnstackRule);
  RegisterImpl(*p.unstack, stack_family::UnstackImpl);
  DefLinear2(*p.unstack, stack_family::UnstackTranspose);
  RegisterBatching(*p.unstack, stack_family::UnstackBatch);
  RegisterAbstractEval(*p.tile, stack_family::TileRule);
  RegisterImpl(*p.tile, stack_family::TileImpl);
  DefLinear2(*p.tile, stack_family::TileTranspose);
  RegisterBatching(*p.tile, stack_family::TileBatch);
}

}  // namespace axe::ir::internal
