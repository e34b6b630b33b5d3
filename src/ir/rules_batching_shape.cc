// Batching rules of the structural primitives: the operand's batch dimension moved to the
// front and the params shifted by one.
#include <numeric>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "indexing_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Ints = std::vector<int64_t>;
using BatchRuleResult = absl::StatusOr<BatchResult>;

Ints Shifted(const Ints& v, int64_t by = 1) {
  Ints out;
  for (int64_t d : v) out.push_back(d + by);
  return out;
}

Ints Prepend(int64_t first, const Ints& rest) {
  Ints out = {first};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

// The one-operand rule: operand at 0, params rewritten by `edit`, result at 0.
using ParamEdit = std::function<absl::Status(Params&, int64_t size, const Params& old)>;

BatchingRule Unary(const Primitive* prim, ParamEdit edit) {
  return [prim, edit](Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                      const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
    Params p = params;
    AXE_RETURN_IF_ERROR(edit(p, x.aval.shape()[0], params));
    std::vector<Tracer> ops = {x};
    ops.insert(ops.end(), args.begin() + 1, args.end());
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, ops, p));
    return BatchResult{outs, {0}};
  };
}

ParamEdit ShiftInts(const char* prim, const char* name) {
  return [prim, name](Params& p, int64_t, const Params& old) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Ints v, RequiredInts(old, prim, name));
    p[name] = Param::Ints(Shifted(v));
    return absl::OkStatus();
  };
}

// The cumulative reductions' `axis`, one further.
ParamEdit ShiftAxis(std::string prim) {
  return [prim](Params& p, int64_t, const Params& old) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(old, prim, "axis"));
    p["axis"] = Param::Int(axis + 1);
    return absl::OkStatus();
  };
}

absl::Status BroadcastEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Ints shape, RequiredInts(old, "broadcast_in_dim", "shape"));
  AXE_ASSIGN_OR_RETURN(Ints dims, OptionalInts(old, "broadcast_dimensions", {}));
  p["shape"] = Param::Ints(Prepend(size, shape));
  p["broadcast_dimensions"] = Param::Ints(Prepend(0, Shifted(dims)));
  return absl::OkStatus();
}

absl::Status ReshapeEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Ints sizes, RequiredInts(old, "reshape", "new_sizes"));
  AXE_ASSIGN_OR_RETURN(Ints dims, OptionalInts(old, "dimensions", {}));
  p["new_sizes"] = Param::Ints(Prepend(size, sizes));
  // dimensions=() of a scalar operand is a permutation too: (0,) once batched.
  if (Given(old, "dimensions")) {
    p["dimensions"] = Param::Ints(Prepend(0, Shifted(dims)));
  }
  return absl::OkStatus();
}

absl::Status TransposeEdit(Params& p, int64_t, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Ints perm, RequiredInts(old, "transpose", "permutation"));
  p["permutation"] = Param::Ints(Prepend(0, Shifted(perm)));
  return absl::OkStatus();
}

absl::Status SliceEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Ints start, RequiredInts(old, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(Ints limit, RequiredInts(old, "slice", "limit_indices"));
  AXE_ASSIGN_OR_RETURN(Ints strides, OptionalInts(old, "strides", {}));
  p["start_indices"] = Param::Ints(Prepend(0, start));
  p["limit_indices"] = Param::Ints(Prepend(size, limit));
  if (!strides.empty()) p["strides"] = Param::Ints(Prepend(1, strides));
  return absl::OkStatus();
}

absl::Status NoBatchedIndices(absl::string_view prim, absl::Span<const BDim> dims, size_t first) {
  for (size_t i = first; i < dims.size(); ++i) {
    if (dims[i]) {
      return absl::UnimplementedError(absl::StrCat("Batching rule for '", prim,
                                                   "' with batched start indices not implemented"));
    }
  }
  return absl::OkStatus();
}

// The start indices of dynamic_slice/dynamic_update_slice (args[first:]) batched into one
// [n, rank] array of index vectors, in the type of the first.
absl::StatusOr<Tracer> BatchedStarts(absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                                     size_t first, int64_t n) {
  const DType index = args[first].aval.dtype();
  std::vector<Tracer> columns;
  for (size_t i = first; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer start, Materialize(args[i], dims[i], n));  // [n]
    if (start.aval.dtype() != index) {
      AXE_ASSIGN_OR_RETURN(start, ConvertElementType(start, index));
    }
    AXE_ASSIGN_OR_RETURN(Tracer column, BroadcastInDim(start, {n, 1}, {0}));
    columns.push_back(column);
  }
  if (columns.size() == 1) return columns[0];
  return Concatenate(columns, 1);
}

// dynamic_slice with batched start indices, as JAX batches it: a gather whose index vectors
// are the starts (one row per batch element, clamped into the operand: mode CLIP), the operand's
// batch dimension, when it has one, an operand batching dimension.
BatchRuleResult DynamicSliceBatchedStarts(absl::Span<const Tracer> args,
                                          absl::Span<const BDim> dims, const Ints& sizes) {
  const int64_t n = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer starts, BatchedStarts(args, dims, 1, n));  // [n, rank]
  const auto rank = static_cast<int64_t>(sizes.size());
  internal::IndexDims d;
  Ints slice_sizes = sizes;
  Tracer operand = args[0];
  for (int64_t i = 0; i < rank; ++i) d.window_dims.push_back(i + 1);
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(operand, MoveBatchDim(args[0], *dims[0], 0));
    d.operand_batching_dims = {0};
    d.indices_batching_dims = {0};
    slice_sizes.insert(slice_sizes.begin(), 1);
    for (int64_t i = 0; i < rank; ++i) d.start_index_map.push_back(i + 1);
  } else {
    for (int64_t i = 0; i < rank; ++i) d.start_index_map.push_back(i);
  }
  Params p;
  p["dimension_numbers"] = internal::GatherDimensionNumbersParam(d);
  p["fill_value"] = Param::None();
  p["indices_are_sorted"] = Param::Bool(false);
  p["mode"] = internal::ModeParam(internal::IndexMode::kClip);
  p["slice_sizes"] = Param::Ints(slice_sizes);
  p["unique_indices"] = Param::Bool(false);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().gather, {operand, starts}, p));
  return BatchResult{outs, {0}};
}

BatchRuleResult DynamicSliceBatch(Builder& b, absl::Span<const Tracer> args,
                                  absl::Span<const BDim> dims, const Params& params) {
  if (args.size() > 1 && !NoBatchedIndices("dynamic_slice", dims, 1).ok()) {
    AXE_ASSIGN_OR_RETURN(Ints starts_sizes, RequiredInts(params, "dynamic_slice", "slice_sizes"));
    return DynamicSliceBatchedStarts(args, dims, starts_sizes);
  }
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(Ints sizes, RequiredInts(params, "dynamic_slice", "slice_sizes"));
  DType index = args.size() > 1 ? args[1].aval.dtype() : DType::kS32;
  std::vector<Tracer> ops = {x, b.Scalar(0, index)};
  ops.insert(ops.end(), args.begin() + 1, args.end());
  Params p = params;
  p["slice_sizes"] = Param::Ints(Prepend(x.aval.shape()[0], sizes));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().dynamic_slice, ops, p));
  return BatchResult{outs, {0}};
}

// dynamic_update_slice with batched start indices, as JAX batches it: a scatter of the
// (batched) update into the (batched) operand, one window per batch element at its starts,
// clamped so that the window fits (mode CLIP); the batch dimension is an operand and index
// batching dimension.
BatchRuleResult DynamicUpdateSliceBatchedStarts(absl::Span<const Tracer> args,
                                                absl::Span<const BDim> dims) {
  const int64_t n = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer operand, Materialize(args[0], dims[0], n));
  AXE_ASSIGN_OR_RETURN(Tracer update, Materialize(args[1], dims[1], n));
  AXE_ASSIGN_OR_RETURN(Tracer starts, BatchedStarts(args, dims, 2, n));
  const auto rank = static_cast<int64_t>(update.aval.rank()) - 1;
  internal::IndexDims d;
  for (int64_t i = 0; i < rank; ++i) {
    d.window_dims.push_back(i + 1);
    d.start_index_map.push_back(i + 1);
  }
  d.operand_batching_dims = {0};
  d.indices_batching_dims = {0};
  Params p;
  p["dimension_numbers"] = internal::ScatterDimensionNumbersParam(d);
  p["indices_are_sorted"] = Param::Bool(true);
  p["mode"] = internal::ModeParam(internal::IndexMode::kClip);
  p["unique_indices"] = Param::Bool(true);
  p["update_consts"] = Param::Tuple({});
  p["update_jaxpr"] = Param::None();
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().scatter, {operand, starts, update}, p));
  return BatchResult{outs, {0}};
}

BatchRuleResult DynamicUpdateSliceBatch(Builder& b, absl::Span<const Tracer> args,
                                        absl::Span<const BDim> dims, const Params& params) {
  if (!NoBatchedIndices("dynamic_update_slice", dims, 2).ok()) {
    return DynamicUpdateSliceBatchedStarts(args, dims);
  }
  int64_t size = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[0], dims[0], size));
  AXE_ASSIGN_OR_RETURN(Tracer u, Materialize(args[1], dims[1], size));
  DType index = args.size() > 2 ? args[2].aval.dtype() : DType::kS32;
  std::vector<Tracer> ops = {x, u, b.Scalar(0, index)};
  ops.insert(ops.end(), args.begin() + 2, args.end());
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().dynamic_update_slice, ops, params));
  return BatchResult{outs, {0}};
}

BatchRuleResult ConcatenateBatch(Builder&, absl::Span<const Tracer> args,
                                 absl::Span<const BDim> dims, const Params& params) {
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  for (size_t i = 0; i < args.size(); ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer x, Materialize(args[i], dims[i], size));
    ops.push_back(x);
  }
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  Params p = params;
  p["dimension"] = Param::Int(dim + 1);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().concatenate, ops, p));
  return BatchResult{outs, {0}};
}

}  // namespace

BatchRuleResult DotGeneralBatch(Builder&, absl::Span<const Tracer> args,
                                absl::Span<const BDim> dims, const Params& params);

void RegisterShapeBatching(const BuiltinPrimitives& p) {
  auto add = [](const Primitive* prim, BatchingRule rule) {
    if (!GetBatchingRule(*prim).ok()) RegisterBatching(*prim, std::move(rule));
  };
  add(p.broadcast_in_dim, Unary(p.broadcast_in_dim, BroadcastEdit));
  add(p.reshape, Unary(p.reshape, ReshapeEdit));
  add(p.squeeze, Unary(p.squeeze, ShiftInts("squeeze", "dimensions")));
  add(p.transpose, Unary(p.transpose, TransposeEdit));
  add(p.reduce_sum, Unary(p.reduce_sum, ShiftInts("reduce_sum", "axes")));
  add(p.reduce_max, Unary(p.reduce_max, ShiftInts("reduce_max", "axes")));
  add(p.reduce_min, Unary(p.reduce_min, ShiftInts("reduce_min", "axes")));
  add(p.reduce_prod, Unary(p.reduce_prod, ShiftInts("reduce_prod", "axes")));
  add(p.argmax, Unary(p.argmax, ShiftInts("argmax", "axes")));
  add(p.argmin, Unary(p.argmin, ShiftInts("argmin", "axes")));
  for (const Primitive* prim : {p.reduce_or, p.reduce_and, p.reduce_xor}) {
    add(prim, Unary(prim, ShiftInts(prim->name().c_str(), "axes")));  // names live as long as prim
  }
  for (const Primitive* prim : {p.cumsum, p.cumprod, p.cummax, p.cummin, p.cumlogsumexp}) {
    add(prim, Unary(prim, ShiftAxis(prim->name())));
  }
  add(p.slice, Unary(p.slice, SliceEdit));
  add(p.dynamic_slice, DynamicSliceBatch);
  add(p.dynamic_update_slice, DynamicUpdateSliceBatch);
  add(p.concatenate, ConcatenateBatch);
  add(p.dot_general, DotGeneralBatch);
}

}  // namespace axe::ir::internal
