// The structural primitives, with every rule: broadcast_in_dim reshape squeeze transpose
// (reshapings), slice dynamic_slice dynamic_update_slice (slicing; start indices clamp as
// XLA's), concatenate rev split pad iota and layout_constraint (whose typing, transpose and
// batching live in layout_constraint.cc). All but iota are linear in their array operands:
// their JVP applies the primitive to the tangents and their transposes embed, reverse or
// split the cotangent back.
//
// Sections hold the typing rules, then the impl, JVP, transpose and batching rules, then rev,
// split and pad (each with all its rules); the Register functions at the end register each
// primitive's rules together.
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <memory>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/dims.h"
#include "axe/base/numerics.h"
#include "axe/base/status_macros.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/eval.h"
#include "axe/ir/layout_constraint.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"

#include "batching_util.h"
#include "eval_util.h"
#include "indexing_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

Result BroadcastInDim(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("broadcast_in_dim", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape,
                       RequiredInts(params, "broadcast_in_dim", "shape"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "broadcast_dimensions", {}));
  const ShapedArray& x = avals[0];
  if (dims.size() != x.rank()) {
    return TypeError(absl::StrCat(
        "broadcast_in_dim broadcast_dimensions must have length equal to operand ndim; got "
        "broadcast_dimensions ",
        PyTuple(dims), " for operand ndim ", x.rank(), "."));
  }
  for (int64_t d : shape) {
    if (d < 0)
      return TypeError(
          absl::StrCat("broadcast_in_dim shape ", PyTuple(shape), " has a negative dimension"));
  }
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0 || dims[i] >= static_cast<int64_t>(shape.size())) {
      return TypeError(absl::StrCat("broadcast_in_dim broadcast_dimensions must be in range [0, ",
                                    shape.size(), "); got broadcast_dimensions ", PyTuple(dims),
                                    "."));
    }
    if (i > 0 && dims[i] <= dims[i - 1]) {
      return TypeError(
          absl::StrCat("broadcast_in_dim broadcast_dimensions must be strictly increasing; got "
                       "broadcast_dimensions ",
                       PyTuple(dims)));
    }
    if (x.shape()[i] != 1 && x.shape()[i] != shape[dims[i]]) {
      return TypeError(absl::StrCat(
          "broadcast_in_dim operand dimension sizes must either be 1, or be equal to their "
          "corresponding dimensions in the target broadcast shape; got operand of shape ",
          PyTuple(x.shape()), ", target broadcast shape ", PyTuple(shape),
          ", broadcast_dimensions ", PyTuple(dims), " "));
    }
  }
  return One(x.WithShape(std::move(shape)));
}

Result Reshape(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("reshape", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, RequiredInts(params, "reshape", "new_sizes"));
  for (int64_t d : sizes) {
    if (d < 0) {
      return TypeError(
          absl::StrCat("reshape new_sizes must all be positive, got ", PyTuple(sizes), "."));
    }
  }
  // dimensions: the operand is read in this order of its dimensions (a transpose first). JAX
  // compares sets, so it would pass (0, 1, 1) for a rank-2 operand; axe asks for a permutation.
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "dimensions", {}));
  if (Given(params, "dimensions")) {
    std::vector<int64_t> sorted = dims;
    std::sort(sorted.begin(), sorted.end());
    bool permutation = sorted.size() == avals[0].rank();
    for (size_t i = 0; permutation && i < sorted.size(); ++i) {
      permutation = sorted[i] == static_cast<int64_t>(i);
    }
    if (!permutation) {
      return TypeError(absl::StrCat(
          "reshape dimensions must be a permutation of operand dimensions, got dimensions ",
          PyTuple(dims), " for shape ", PyTuple(avals[0].shape()), "."));
    }
  }
  std::optional<int64_t> old_total = avals[0].NumElements();
  std::optional<int64_t> new_total = CheckedProduct(sizes);
  if (!old_total || !new_total || *old_total != *new_total) {
    return TypeError(absl::StrCat("reshape total size must be unchanged, got new_sizes ",
                                  PyTuple(sizes), " (of total size ",
                                  new_total ? absl::StrCat(*new_total) : "overflowing",
                                  ") for shape ", PyTuple(avals[0].shape()), " (of total size ",
                                  old_total ? absl::StrCat(*old_total) : "overflowing", ")."));
  }
  return One(avals[0].WithShape(std::move(sizes)));
}

Result Squeeze(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("squeeze", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RequiredInts(params, "squeeze", "dimensions"));
  const ShapedArray& x = avals[0];
  std::vector<bool> drop(x.rank(), false);
  for (int64_t d : dims) {
    int64_t c = d < 0 ? d + Rank(x) : d;
    if (c < 0 || c >= Rank(x)) {
      return TypeError(
          absl::StrCat("axis ", d, " is out of bounds for array of dimension ", x.rank()));
    }
    if (x.shape()[c] != 1) {
      return TypeError(absl::StrCat(
          "cannot select an axis to squeeze out which has size not equal to one, got shape=",
          PyTuple(x.shape()), " and dimensions=", PyTuple(dims)));
    }
    drop[c] = true;
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (!drop[i]) shape.push_back(x.shape()[i]);
  }
  return One(x.WithShape(std::move(shape)));
}

Result Transpose(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("transpose", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, RequiredInts(params, "transpose", "permutation"));
  const ShapedArray& x = avals[0];
  std::vector<int64_t> sorted = perm;
  std::sort(sorted.begin(), sorted.end());
  bool ok = perm.size() == x.rank();
  for (size_t i = 0; ok && i < sorted.size(); ++i) ok = sorted[i] == static_cast<int64_t>(i);
  if (!ok) {
    return TypeError(absl::StrCat(
        "transpose permutation isn't a permutation of operand dimensions, got permutation ",
        PyTuple(perm), " for operand shape ", PyTuple(x.shape()), "."));
  }
  std::vector<int64_t> shape;
  for (int64_t p : perm) shape.push_back(x.shape()[p]);
  return One(x.WithShape(std::move(shape)));
}

Result Concatenate(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty()) return TypeError("concatenate requires at least one operand");
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  const ShapedArray& x = avals[0];
  if (dim < 0 || dim >= Rank(x)) {
    return TypeError(absl::StrCat("concatenate dimension out of bounds: dimension ", dim,
                                  " for shapes ", Shapes(avals), "."));
  }
  int64_t total = 0;
  for (const ShapedArray& a : avals) {
    bool same = a.rank() == x.rank();
    for (int64_t i = 0; same && i < Rank(x); ++i) same = i == dim || a.shape()[i] == x.shape()[i];
    if (!same) {
      return TypeError(absl::StrCat(
          "Cannot concatenate arrays with shapes that differ in dimensions other than the one "
          "being concatenated: concatenating along dimension ",
          dim, " for shapes ", Shapes(avals), "."));
    }
    if (a.dtype() != x.dtype()) {
      return TypeError(
          absl::StrCat("lax.concatenate requires arguments to have the same dtypes, got ",
                       DTypeName(x.dtype()), ", ", DTypeName(a.dtype()), "."));
    }
    std::optional<int64_t> t = CheckedAdd(total, a.shape()[dim]);
    if (!t) return TypeError("concatenate: the result dimension overflows int64");
    total = *t;
  }
  std::vector<int64_t> shape = x.shape();
  shape[dim] = total;
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("concatenate", avals));
  return One(x.WithShape(std::move(shape)).WithVma(std::move(vma)));
}

Result Iota(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("iota", avals, 0));
  AXE_ASSIGN_OR_RETURN(const Param* t, GetParam(params, "iota", "dtype"));
  AXE_ASSIGN_OR_RETURN(DType dtype, t->AsDType("dtype"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> shape, RequiredInts(params, "iota", "shape"));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "iota", "dimension"));
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size())) {
    return TypeError(absl::StrCat("iota dimension must be between 0 and len(shape), got ", dim,
                                  " for shape ", PyTuple(shape)));
  }
  for (int64_t d : shape) {
    if (d < 0)
      return TypeError(absl::StrCat("iota shape must be non-negative, got ", PyTuple(shape)));
  }
  return One(ShapedArray(std::move(shape), dtype));
}

Result Slice(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("slice", avals, 1));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> limit, RequiredInts(params, "slice", "limit_indices"));
  const ShapedArray& x = avals[0];
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       OptionalInts(params, "strides", std::vector<int64_t>(x.rank(), 1)));
  if (start.size() != x.rank() || limit.size() != x.rank() || strides.size() != x.rank()) {
    return TypeError(absl::StrCat(
        "slice start_indices, limit_indices and strides must have length equal to the number of "
        "dimensions of the operand, got start_indices ",
        PyTuple(start), ", limit_indices ", PyTuple(limit), " for operand shape ",
        PyTuple(x.shape()), "."));
  }
  std::vector<int64_t> shape;
  for (size_t i = 0; i < x.rank(); ++i) {
    if (limit[i] > x.shape()[i]) {
      return TypeError(absl::StrCat(
          "slice limit_indices must be less than or equal to operand shape, got limit_indices ",
          PyTuple(limit), " for operand shape ", PyTuple(x.shape()), "."));
    }
    if (start[i] < 0) {
      return TypeError(absl::StrCat(
          "slice start_indices must be greater than or equal to zero, got start_indices ",
          PyTuple(start), "."));
    }
    if (limit[i] < start[i]) {
      return TypeError(
          absl::StrCat("slice limit_indices must be greater than or equal to start_indices, got "
                       "start_indices ",
                       PyTuple(start), " and limit_indices ", PyTuple(limit), "."));
    }
    if (strides[i] <= 0) {
      return TypeError(absl::StrCat("slice strides must be positive, got ", PyTuple(strides)));
    }
    shape.push_back(CeilDiv(limit[i] - start[i], strides[i]));
  }
  return One(x.WithShape(std::move(shape)));
}

absl::Status CheckIndices(absl::string_view name, absl::Span<const ShapedArray> indices,
                          size_t rank) {
  if (indices.size() != rank) {
    return TypeError(absl::StrCat(name,
                                  " start_indices must have length equal to the number of "
                                  "dimensions of the operand, got ",
                                  indices.size(), " indices for an operand of rank ", rank, "."));
  }
  for (const ShapedArray& i : indices) {
    if (i.rank() != 0 || !IsIntegral(i.dtype())) {
      return TypeError(
          absl::StrCat(name, " start indices must be integer scalars, got ", i.Str(), "."));
    }
  }
  return absl::OkStatus();
}

Result DynamicSlice(absl::Span<const ShapedArray> avals, const Params& params) {
  if (avals.empty()) return TypeError("dynamic_slice takes an operand and its start indices");
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes,
                       RequiredInts(params, "dynamic_slice", "slice_sizes"));
  const ShapedArray& x = avals[0];
  AXE_RETURN_IF_ERROR(CheckIndices("dynamic_slice", avals.subspan(1), x.rank()));
  bool ok = sizes.size() == x.rank();
  for (size_t i = 0; ok && i < sizes.size(); ++i) ok = sizes[i] >= 0 && sizes[i] <= x.shape()[i];
  if (!ok) {
    return TypeError(absl::StrCat(
        "slice slice_sizes must be less than or equal to operand shape, got slice_sizes ",
        PyTuple(sizes), " for operand shape ", PyTuple(x.shape()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dynamic_slice", avals));
  return One(x.WithShape(std::move(sizes)).WithVma(std::move(vma)));
}

Result DynamicUpdateSlice(absl::Span<const ShapedArray> avals, const Params&) {
  if (avals.size() < 2) {
    return TypeError("dynamic_update_slice takes an operand, an update and start indices");
  }
  const ShapedArray& x = avals[0];
  const ShapedArray& u = avals[1];
  AXE_RETURN_IF_ERROR(CheckIndices("dynamic_update_slice", avals.subspan(2), x.rank()));
  bool ok = u.rank() == x.rank();
  for (size_t i = 0; ok && i < x.rank(); ++i) ok = u.shape()[i] <= x.shape()[i];
  if (!ok) {
    return TypeError(absl::StrCat(
        "dynamic_update_slice update shape must be smaller than operand shape, got update shape ",
        PyTuple(u.shape()), " for operand shape ", PyTuple(x.shape()), "."));
  }
  if (u.dtype() != x.dtype()) {
    return TypeError(
        absl::StrCat("lax.dynamic_update_slice requires arguments to have the same dtypes, got ",
                     DTypeName(x.dtype()), ", ", DTypeName(u.dtype()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("dynamic_update_slice", avals));
  return One(x.WithVma(std::move(vma)));
}

using Impl = absl::StatusOr<std::vector<HostArray>>;

using OutputToInput = std::function<int64_t(const std::vector<int64_t>& out_index)>;

// out[i] = in[map(multi-index of i)].
Impl Gather(const HostArray& in, const ShapedArray& aval, const OutputToInput& map) {
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    out.values[i] = in.values[static_cast<size_t>(map(index))];
  }
  return OneArray(std::move(out));
}

ImplRule SameValues(const Primitive& prim) {
  return [&prim](absl::Span<const HostArray> args, const Params& params) -> Impl {
    AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(prim, args, params));
    return OneArray(HostArray{aval, args[0].values});
  };
}

Impl BroadcastImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().broadcast_in_dim, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "broadcast_dimensions", {}));
  const HostArray& x = args[0];
  std::vector<int64_t> strides = Strides(x.aval.shape());
  return Gather(x, aval, [&](const std::vector<int64_t>& out) {
    int64_t flat = 0;
    for (size_t i = 0; i < dims.size(); ++i) {
      if (x.aval.shape()[i] != 1) flat += out[static_cast<size_t>(dims[i])] * strides[i];
    }
    return flat;
  });
}

Impl TransposeImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().transpose, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, RequiredInts(params, "transpose", "permutation"));
  std::vector<int64_t> strides = Strides(args[0].aval.shape());
  return Gather(args[0], aval, [&](const std::vector<int64_t>& out) {
    int64_t flat = 0;
    for (size_t j = 0; j < perm.size(); ++j) flat += out[j] * strides[perm[j]];
    return flat;
  });
}

// reshape: the same values in row-major order, read in the order of `dimensions` when given
// (a transpose first, as JAX's reshape with dimensions).
Impl ReshapeImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().reshape, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, OptionalInts(params, "dimensions", {}));
  if (dims.empty()) return OneArray(HostArray{aval, args[0].values});
  AXE_ASSIGN_OR_RETURN(std::vector<HostArray> moved,
                       TransposeImpl(args, {{"permutation", Param::Ints(dims)}}));
  return OneArray(HostArray{aval, std::move(moved[0].values)});
}

Impl IotaImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().iota, args, params));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "iota", "dimension"));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    out.values[i] = RoundToDType(static_cast<double>(index[dim]), aval.dtype());
  }
  return OneArray(std::move(out));
}

Impl ConcatenateImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().concatenate, args, params));
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> out_strides = Strides(aval.shape());
  int64_t offset = 0;
  for (const HostArray& a : args) {
    std::vector<int64_t> index(a.aval.rank(), 0);
    for (size_t i = 0; i < a.values.size(); ++i, NextIndex(index, a.aval.shape())) {
      int64_t flat = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        flat += (index[d] + (static_cast<int64_t>(d) == dim ? offset : 0)) * out_strides[d];
      }
      out.values[static_cast<size_t>(flat)] = a.values[i];
    }
    offset += a.aval.shape()[static_cast<size_t>(dim)];
  }
  return OneArray(std::move(out));
}

// Copies the window of `x` starting at `start` with `strides` into an array of `aval`.
absl::StatusOr<HostArray> Window(const HostArray& x, const ShapedArray& aval,
                                 const std::vector<int64_t>& start,
                                 const std::vector<int64_t>& strides) {
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> in_strides = Strides(x.aval.shape());
  std::vector<int64_t> index(aval.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      flat += (start[d] + index[d] * strides[d]) * in_strides[d];
    }
    out.values[i] = x.values[static_cast<size_t>(flat)];
  }
  return out;
}

Impl SliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().slice, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> strides,
                       OptionalInts(params, "strides", std::vector<int64_t>(aval.rank(), 1)));
  AXE_ASSIGN_OR_RETURN(HostArray out, Window(args[0], aval, start, strides));
  return OneArray(std::move(out));
}

// XLA's clamping: each start index is clamped into [0, operand dim - window dim].
std::vector<int64_t> ClampedStarts(absl::Span<const HostArray> indices,
                                   const std::vector<int64_t>& dims,
                                   const std::vector<int64_t>& window) {
  std::vector<int64_t> start;
  for (size_t d = 0; d < dims.size(); ++d) {
    start.push_back(std::clamp<int64_t>(ScalarIndex(indices[d]), 0, dims[d] - window[d]));
  }
  return start;
}

Impl DynamicSliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().dynamic_slice, args, params));
  const HostArray& x = args[0];
  std::vector<int64_t> start = ClampedStarts(args.subspan(1), x.aval.shape(), aval.shape());
  AXE_ASSIGN_OR_RETURN(HostArray out, Window(x, aval, start, std::vector<int64_t>(aval.rank(), 1)));
  return OneArray(std::move(out));
}

Impl DynamicUpdateSliceImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval,
                       ResultAval(*Builtins().dynamic_update_slice, args, params));
  HostArray out{aval, args[0].values};
  const HostArray& update = args[1];
  std::vector<int64_t> start = ClampedStarts(args.subspan(2), aval.shape(), update.aval.shape());
  std::vector<int64_t> strides = Strides(aval.shape());
  std::vector<int64_t> index(update.aval.rank(), 0);
  for (size_t i = 0; i < update.values.size(); ++i, NextIndex(index, update.aval.shape())) {
    int64_t flat = 0;
    for (size_t d = 0; d < index.size(); ++d) flat += (start[d] + index[d]) * strides[d];
    out.values[static_cast<size_t>(flat)] = update.values[i];
  }
  return OneArray(std::move(out));
}

using Cts = absl::StatusOr<std::vector<OptTracer>>;

Cts TransposeTranspose(Builder&, absl::Span<const OptTracer> cts,
                       absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Dims perm, RequiredInts(params, "transpose", "permutation"));
  AXE_ASSIGN_OR_RETURN(Tracer t, Transpose(*cts[0], InversePermutation(perm)));
  out[0] = t;
  return out;
}

// squeeze: the cotangent reshaped back to the operand's shape.
Cts SqueezeBack(Builder&, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(out[0], Reshape(*cts[0], args[0].aval.shape()));
  return out;
}

// reshape: likewise; with `dimensions`, reshaped to the operand's dimensions in that order,
// then transposed back.
Cts ReshapeBack(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                const Params& params) {
  AXE_ASSIGN_OR_RETURN(Dims dims, OptionalInts(params, "dimensions", {}));
  if (dims.empty() || !cts[0]) return SqueezeBack(b, cts, args, params);
  std::vector<OptTracer> out(args.size());
  const std::vector<int64_t>& shape = args[0].aval.shape();
  Dims moved_shape;
  for (int64_t d : dims) moved_shape.push_back(shape[static_cast<size_t>(d)]);
  AXE_ASSIGN_OR_RETURN(Tracer moved, Reshape(*cts[0], moved_shape));
  AXE_ASSIGN_OR_RETURN(out[0], Transpose(moved, InversePermutation(dims)));
  return out;
}

// The cotangent written into zeros of the operand's shape at `starts`.
absl::StatusOr<Tracer> Embed(Builder& b, const Tracer& ct, const ShapedArray& operand,
                             std::vector<Tracer> starts) {
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, operand.WithVma(ct.aval.vma())));
  std::vector<Tracer> args = {zeros, ct};
  args.insert(args.end(), starts.begin(), starts.end());
  return Op(*Builtins().dynamic_update_slice, args);
}

Cts SliceTranspose(Builder& b, absl::Span<const OptTracer> cts, absl::Span<const TransposeArg> args,
                   const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Dims start, RequiredInts(params, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(Dims strides, OptionalInts(params, "strides", {}));
  if (std::any_of(strides.begin(), strides.end(), [](int64_t s) { return s != 1; })) {
    // Strided: the cotangent spread out by pad, stride - 1 zeros between its elements.
    const ShapedArray& x = args[0].aval;
    const std::vector<int64_t>& got = cts[0]->aval.shape();
    std::vector<Param> config;
    for (size_t d = 0; d < x.rank(); ++d) {
      const int64_t stride = d < strides.size() ? strides[d] : 1;
      const int64_t end = got[d] == 0 ? start[d] : start[d] + 1 + (got[d] - 1) * stride;
      config.push_back(Param::Ints({start[d], x.shape()[d] - end, stride - 1}));
    }
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().pad, {*cts[0], b.Scalar(0, x.dtype())},
                                    {{"padding_config", Param::Tuple(std::move(config))}}));
    return out;
  }
  std::vector<Tracer> starts;
  for (int64_t s : start) starts.push_back(b.Scalar(static_cast<double>(s), DType::kS32));
  AXE_ASSIGN_OR_RETURN(Tracer t, Embed(b, *cts[0], args[0].aval, starts));
  out[0] = t;
  return out;
}

std::vector<Tracer> Starts(absl::Span<const TransposeArg> args, size_t first) {
  std::vector<Tracer> s;
  for (size_t i = first; i < args.size(); ++i) s.push_back(*args[i].value);
  return s;
}

Cts DynamicSliceTranspose(Builder& b, absl::Span<const OptTracer> cts,
                          absl::Span<const TransposeArg> args, const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(Tracer t, Embed(b, *cts[0], args[0].aval, Starts(args, 1)));
  out[0] = t;
  return out;
}

// operand: the cotangent with the updated window zeroed; update: that window.
Cts DynamicUpdateSliceTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                absl::Span<const TransposeArg> args, const Params&) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  std::vector<Tracer> starts = Starts(args, 2);
  const ShapedArray& update = args[1].aval;
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, update.WithVma(cts[0]->aval.vma())));
    std::vector<Tracer> a = {*cts[0], z};
    a.insert(a.end(), starts.begin(), starts.end());
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().dynamic_update_slice, a));
  }
  if (args[1].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(out[1], DynamicSlice(*cts[0], starts, update.shape()));
  }
  return out;
}

Cts ConcatenateTranspose(Builder&, absl::Span<const OptTracer> cts,
                         absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(int64_t dim, RequiredInt(params, "concatenate", "dimension"));
  Dims start(cts[0]->aval.rank(), 0), limit = cts[0]->aval.shape();
  for (size_t i = 0; i < args.size(); ++i) {
    limit[dim] = start[dim] + args[i].aval.shape()[dim];
    if (args[i].is_undefined_primal()) {
      AXE_ASSIGN_OR_RETURN(out[i], Slice(*cts[0], start, limit));
    }
    start[dim] = limit[dim];
  }
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

using BatchRuleResult = absl::StatusOr<BatchResult>;

Dims Prepend(int64_t first, const Dims& rest) {
  Dims out = {first};
  out.insert(out.end(), rest.begin(), rest.end());
  return out;
}

absl::Status BroadcastEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Dims shape, RequiredInts(old, "broadcast_in_dim", "shape"));
  AXE_ASSIGN_OR_RETURN(Dims dims, OptionalInts(old, "broadcast_dimensions", {}));
  p["shape"] = Param::Ints(Prepend(size, shape));
  p["broadcast_dimensions"] = Param::Ints(Prepend(0, ShiftedAxes(dims)));
  return absl::OkStatus();
}

absl::Status ReshapeEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Dims sizes, RequiredInts(old, "reshape", "new_sizes"));
  AXE_ASSIGN_OR_RETURN(Dims dims, OptionalInts(old, "dimensions", {}));
  p["new_sizes"] = Param::Ints(Prepend(size, sizes));
  // dimensions=() of a scalar operand is a permutation too: (0,) once batched.
  if (Given(old, "dimensions")) {
    p["dimensions"] = Param::Ints(Prepend(0, ShiftedAxes(dims)));
  }
  return absl::OkStatus();
}

absl::Status TransposeEdit(Params& p, int64_t, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Dims perm, RequiredInts(old, "transpose", "permutation"));
  p["permutation"] = Param::Ints(Prepend(0, ShiftedAxes(perm)));
  return absl::OkStatus();
}

absl::Status SliceEdit(Params& p, int64_t size, const Params& old) {
  AXE_ASSIGN_OR_RETURN(Dims start, RequiredInts(old, "slice", "start_indices"));
  AXE_ASSIGN_OR_RETURN(Dims limit, RequiredInts(old, "slice", "limit_indices"));
  AXE_ASSIGN_OR_RETURN(Dims strides, OptionalInts(old, "strides", {}));
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
                                          absl::Span<const BDim> dims, const Dims& sizes) {
  const int64_t n = BatchSize(args, dims);
  AXE_ASSIGN_OR_RETURN(Tracer starts, BatchedStarts(args, dims, 1, n));  // [n, rank]
  const auto rank = static_cast<int64_t>(sizes.size());
  internal::IndexDims d;
  Dims slice_sizes = sizes;
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
    AXE_ASSIGN_OR_RETURN(Dims starts_sizes, RequiredInts(params, "dynamic_slice", "slice_sizes"));
    return DynamicSliceBatchedStarts(args, dims, starts_sizes);
  }
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(Dims sizes, RequiredInts(params, "dynamic_slice", "slice_sizes"));
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

using Avals = absl::StatusOr<std::vector<ShapedArray>>;

using Arrays = absl::StatusOr<std::vector<HostArray>>;

using Cotangents = absl::StatusOr<std::vector<OptTracer>>;

const BuiltinPrimitives& Prims() { return Builtins(); }

absl::StatusOr<std::vector<int64_t>> RevDims(const Params& params, size_t rank) {
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RequiredInts(params, "rev", "dimensions"));
  std::vector<bool> seen(rank, false);
  for (int64_t d : dims) {
    if (d < 0 || static_cast<size_t>(d) >= rank || seen[static_cast<size_t>(d)]) {
      return TypeError(absl::StrCat("rev dimensions must be unique and in range, got ",
                                    PyTuple(dims), " for an operand of rank ", rank));
    }
    seen[static_cast<size_t>(d)] = true;
  }
  return dims;
}

Avals RevRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("rev", avals, 1));
  AXE_RETURN_IF_ERROR(RevDims(params, avals[0].rank()).status());
  return One(avals[0]);
}

Arrays RevImpl(absl::Span<const HostArray> args, const Params& params) {
  const ShapedArray& a = args[0].aval;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, RevDims(params, a.rank()));
  HostArray out{a, args[0].values};
  std::vector<bool> flip(a.rank(), false);
  for (int64_t d : dims) flip[static_cast<size_t>(d)] = true;
  std::vector<int64_t> strides = Strides(a.shape());
  std::vector<int64_t> index(a.rank(), 0);
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, a.shape())) {
    int64_t from = 0;
    for (size_t d = 0; d < index.size(); ++d) {
      from += (flip[d] ? a.shape()[d] - 1 - index[d] : index[d]) * strides[d];
    }
    out.values[i] = args[0].values[static_cast<size_t>(from)];
  }
  return std::vector<HostArray>{std::move(out)};
}

Cotangents RevTranspose(Builder&, absl::Span<const OptTracer> cts,
                        absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(out[0], Op(*Prims().rev, {*cts[0]}, params));
  return out;
}

struct SplitSpec {
  int64_t axis = 0;
  std::vector<int64_t> sizes;
};

absl::StatusOr<SplitSpec> ReadSplit(const Params& params, const ShapedArray& x) {
  SplitSpec s;
  AXE_ASSIGN_OR_RETURN(s.axis, RequiredInt(params, "split", "axis"));
  AXE_ASSIGN_OR_RETURN(s.sizes, RequiredInts(params, "split", "sizes"));
  if (s.axis < 0 || static_cast<size_t>(s.axis) >= x.rank()) {
    return TypeError(absl::StrCat("split axis ", s.axis,
                                  " is out of bounds for an operand of "
                                  "rank ",
                                  x.rank()));
  }
  int64_t total = 0;
  for (int64_t n : s.sizes) {
    std::optional<int64_t> t = n < 0 ? std::nullopt : CheckedAdd(total, n);
    if (!t)
      return TypeError(absl::StrCat("split sizes must be non-negative, got ", PyTuple(s.sizes)));
    total = *t;
  }
  if (total != x.shape()[static_cast<size_t>(s.axis)]) {
    return TypeError(absl::StrCat("Sum of sizes ", total, " must be equal to dimension ",
                                  x.shape()[static_cast<size_t>(s.axis)], " of the operand ",
                                  "shape ", PyTuple(x.shape())));
  }
  return s;
}

Avals SplitRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("split", avals, 1));
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, avals[0]));
  std::vector<ShapedArray> outs;
  for (int64_t n : s.sizes) {
    std::vector<int64_t> shape = avals[0].shape();
    shape[static_cast<size_t>(s.axis)] = n;
    outs.push_back(avals[0].WithShape(std::move(shape)));
  }
  return outs;
}

Arrays SplitImpl(absl::Span<const HostArray> args, const Params& params) {
  const ShapedArray& a = args[0].aval;
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, a));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, SplitRule({a}, params));
  std::vector<int64_t> strides = Strides(a.shape());
  std::vector<HostArray> outs;
  int64_t offset = 0;
  for (size_t k = 0; k < avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(avals[k].WithVma({})));
    std::vector<int64_t> index(a.rank(), 0);
    for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, out.aval.shape())) {
      int64_t from = 0;
      for (size_t d = 0; d < index.size(); ++d) {
        from += (index[d] + (static_cast<int64_t>(d) == s.axis ? offset : 0)) * strides[d];
      }
      out.values[i] = args[0].values[static_cast<size_t>(from)];
    }
    offset += s.sizes[k];
    outs.push_back(std::move(out));
  }
  return outs;
}

// The cotangents concatenated along the axis (zeros for symbolic zeros).
Cotangents SplitTranspose(Builder& b, absl::Span<const OptTracer> cts,
                          absl::Span<const TransposeArg> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(SplitSpec s, ReadSplit(params, args[0].aval));
  AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> avals, SplitRule({args[0].aval}, params));
  std::vector<Tracer> pieces;
  for (size_t k = 0; k < avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer piece, Instantiate(b, cts[k], avals[k]));
    pieces.push_back(piece);
  }
  std::vector<OptTracer> out(args.size());
  AXE_ASSIGN_OR_RETURN(out[0], Concatenate(pieces, s.axis));
  return out;
}

absl::StatusOr<BatchResult> SplitBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(int64_t axis, RequiredInt(params, "split", "axis"));
  Params p = params;
  p["axis"] = Param::Int(axis + 1);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().split, {x}, p));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

absl::StatusOr<BatchResult> RevBatch(Builder&, absl::Span<const Tracer> args,
                                     absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rev, RequiredInts(params, "rev", "dimensions"));
  for (int64_t& d : rev) ++d;
  Params p = params;
  p["dimensions"] = Param::Ints(rev);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().rev, {x}, p));
  return BatchResult{outs, {0}};
}

struct PadDim {
  int64_t lo = 0, hi = 0, interior = 0;
};

// padding_config, one (lo, hi, interior) per dimension (np.int64(...) items read as ints).
absl::StatusOr<std::vector<PadDim>> ReadPad(const Params& params, size_t rank) {
  AXE_ASSIGN_OR_RETURN(const Param* config, GetParam(params, "pad", "padding_config"));
  if (config->kind() != Param::Kind::kTuple || config->items().size() != rank) {
    return TypeError(
        absl::StrCat("pad: padding_config must have one (lo, hi, interior) per "
                     "dimension of the operand (rank ",
                     rank, ")"));
  }
  std::vector<PadDim> out;
  for (const Param& item : config->items()) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> v, item.AsInts("padding_config"));
    if (v.size() != 3) return TypeError("pad: each padding_config entry is (lo, hi, interior)");
    if (v[2] < 0) {
      return TypeError(
          absl::StrCat("interior padding in padding_config must be nonnegative, got ", PyTuple(v)));
    }
    out.push_back({v[0], v[1], v[2]});
  }
  return out;
}

Avals PadRule(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_RETURN_IF_ERROR(ExpectArity("pad", avals, 2));
  const ShapedArray &x = avals[0], &v = avals[1];
  if (v.rank() != 0) return TypeError("pad: padding_value must be a scalar");
  if (v.dtype() != x.dtype()) {
    return TypeError(absl::StrCat("pad operand and padding_value must be same dtype: got ",
                                  DTypeName(x.dtype()), " and ", DTypeName(v.dtype()), "."));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, x.rank()));
  std::vector<int64_t> shape;
  for (size_t d = 0; d < x.rank(); ++d) {
    int64_t n = x.shape()[d];
    std::optional<int64_t> gaps = CheckedMul(n > 0 ? n - 1 : 0, pad[d].interior);
    std::optional<int64_t> size = gaps ? CheckedAdd(n, *gaps) : std::nullopt;
    size = size ? CheckedAdd(*size, pad[d].lo) : std::nullopt;
    size = size ? CheckedAdd(*size, pad[d].hi) : std::nullopt;
    if (!size || *size < 0) {
      return TypeError(absl::StrCat(
          "Dimension size after padding is not at least 0, got "
          "padding ",
          pad[d].lo, ", ", pad[d].hi, ", ", pad[d].interior, " for dimension ", d, " of size ", n));
    }
    shape.push_back(*size);
  }
  AXE_ASSIGN_OR_RETURN(std::vector<std::string> vma, NaryVma("pad", avals));
  return One(x.WithShape(std::move(shape)).WithVma(std::move(vma)));
}

Arrays PadImpl(absl::Span<const HostArray> args, const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Prims().pad, args, params));
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, aval.rank()));
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::fill(out.values.begin(), out.values.end(), args[1].values[0]);
  const ShapedArray& x = args[0].aval;
  std::vector<int64_t> out_strides = Strides(aval.shape());
  std::vector<int64_t> index(x.rank(), 0);
  for (size_t i = 0; i < args[0].values.size(); ++i, NextIndex(index, x.shape())) {
    int64_t to = 0;
    bool inside = true;
    for (size_t d = 0; d < index.size() && inside; ++d) {
      int64_t at = pad[d].lo + index[d] * (pad[d].interior + 1);  // bounded by the out size
      inside = at >= 0 && at < aval.shape()[d];
      to += at * out_strides[d];
    }
    if (inside) out.values[static_cast<size_t>(to)] = args[0].values[i];
  }
  return OneArray(std::move(out));
}

// The operand's cotangent: the cotangent un-padded (negated lo/hi) and strided by
// interior + 1; the padding value's: what is left of the cotangent's sum.
Cotangents PadTranspose(Builder& b, absl::Span<const OptTracer> cts,
                        absl::Span<const TransposeArg> args, const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (!cts[0]) return out;
  const ShapedArray& x = args[0].aval;
  AXE_ASSIGN_OR_RETURN(std::vector<PadDim> pad, ReadPad(params, x.rank()));
  std::vector<Param> unpad;
  std::vector<int64_t> strides;
  for (const PadDim& d : pad) {
    unpad.push_back(Param::Ints({-d.lo, -d.hi, 0}));
    strides.push_back(d.interior + 1);
  }
  Tracer zero = b.Scalar(0, x.dtype());
  AXE_ASSIGN_OR_RETURN(Tracer unpadded, Op(*Prims().pad, {*cts[0], zero},
                                           {{"padding_config", Param::Tuple(unpad)}}));
  std::vector<int64_t> start(x.rank(), 0);
  AXE_ASSIGN_OR_RETURN(Tracer t, Op(*Prims().slice, {unpadded},
                                    {{"start_indices", Param::Ints(start)},
                                     {"limit_indices", Param::Ints(unpadded.aval.shape())},
                                     {"strides", Param::Ints(strides)}}));
  if (args[0].is_undefined_primal()) out[0] = t;
  if (args[1].is_undefined_primal()) {
    std::vector<int64_t> all(x.rank());
    std::iota(all.begin(), all.end(), 0);
    AXE_ASSIGN_OR_RETURN(Tracer total, ReduceSum(*cts[0], all));
    AXE_ASSIGN_OR_RETURN(Tracer kept, ReduceSum(t, all));
    AXE_ASSIGN_OR_RETURN(out[1], Op(*Prims().sub, {total, kept}));
  }
  return out;
}

absl::StatusOr<BatchResult> PadBatch(Builder&, absl::Span<const Tracer> args,
                                     absl::Span<const BDim> dims, const Params& params) {
  if (dims[1]) return absl::UnimplementedError("batching pad over its padding value");
  AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
  AXE_ASSIGN_OR_RETURN(const Param* config, GetParam(params, "pad", "padding_config"));
  std::vector<Param> items = {Param::Ints({0, 0, 0})};
  if (config->kind() == Param::Kind::kTuple) {
    items.insert(items.end(), config->items().begin(), config->items().end());
  }
  Params p = params;
  p["padding_config"] = Param::Tuple(std::move(items));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Prims().pad, {x, args[1]}, p));
  return BatchResult{outs, {0}};
}

// broadcast_in_dim, reshape, squeeze and transpose: linear in their operand, batched by
// shifting their params.
void RegisterReshapings(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.broadcast_in_dim, BroadcastInDim);
  RegisterImpl(*p.broadcast_in_dim, BroadcastImpl);
  RegisterJvp(*p.broadcast_in_dim, LinearJvp(p.broadcast_in_dim, LinearOperands::kFirst));
  RegisterTranspose(*p.broadcast_in_dim, BroadcastTranspose);
  RegisterBatching(*p.broadcast_in_dim, OneOperandBatching(p.broadcast_in_dim, BroadcastEdit));

  RegisterAbstractEval(*p.reshape, Reshape);
  RegisterImpl(*p.reshape, ReshapeImpl);
  RegisterJvp(*p.reshape, LinearJvp(p.reshape, LinearOperands::kFirst));
  RegisterTranspose(*p.reshape, ReshapeBack);
  RegisterBatching(*p.reshape, OneOperandBatching(p.reshape, ReshapeEdit));

  RegisterAbstractEval(*p.squeeze, Squeeze);
  RegisterImpl(*p.squeeze, SameValues(*p.squeeze));
  RegisterJvp(*p.squeeze, LinearJvp(p.squeeze, LinearOperands::kFirst));
  RegisterTranspose(*p.squeeze, SqueezeBack);
  RegisterBatching(*p.squeeze, OneOperandBatching(p.squeeze, ShiftInts("squeeze", "dimensions")));

  RegisterAbstractEval(*p.transpose, Transpose);
  RegisterImpl(*p.transpose, TransposeImpl);
  RegisterJvp(*p.transpose, LinearJvp(p.transpose, LinearOperands::kFirst));
  RegisterTranspose(*p.transpose, TransposeTranspose);
  RegisterBatching(*p.transpose, OneOperandBatching(p.transpose, TransposeEdit));
}

// slice, dynamic_slice and dynamic_update_slice (linear in the operand and the update).
void RegisterSlicing(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.slice, Slice);
  RegisterImpl(*p.slice, SliceImpl);
  RegisterJvp(*p.slice, LinearJvp(p.slice, LinearOperands::kFirst));
  RegisterTranspose(*p.slice, SliceTranspose);
  RegisterBatching(*p.slice, OneOperandBatching(p.slice, SliceEdit));

  RegisterAbstractEval(*p.dynamic_slice, DynamicSlice);
  RegisterImpl(*p.dynamic_slice, DynamicSliceImpl);
  RegisterJvp(*p.dynamic_slice, LinearJvp(p.dynamic_slice, LinearOperands::kFirst));
  RegisterTranspose(*p.dynamic_slice, DynamicSliceTranspose);
  RegisterBatching(*p.dynamic_slice, DynamicSliceBatch);

  RegisterAbstractEval(*p.dynamic_update_slice, DynamicUpdateSlice);
  RegisterImpl(*p.dynamic_update_slice, DynamicUpdateSliceImpl);
  RegisterJvp(*p.dynamic_update_slice,
              LinearJvp(p.dynamic_update_slice, LinearOperands::kFirstTwo));
  RegisterTranspose(*p.dynamic_update_slice, DynamicUpdateSliceTranspose);
  RegisterBatching(*p.dynamic_update_slice, DynamicUpdateSliceBatch);
}

// concatenate, rev, split and pad (linear), iota (no operands) and layout_constraint (the
// identity on values; its typing, transpose and batching are in layout_constraint.cc).
void RegisterAssembling(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.concatenate, Concatenate);
  RegisterImpl(*p.concatenate, ConcatenateImpl);
  RegisterJvp(*p.concatenate, LinearJvp(p.concatenate, LinearOperands::kAll));
  RegisterTranspose(*p.concatenate, ConcatenateTranspose);
  RegisterBatching(*p.concatenate, ConcatenateBatch);

  RegisterAbstractEval(*p.rev, RevRule);
  RegisterImpl(*p.rev, RevImpl);
  DefLinear2(*p.rev, RevTranspose);
  RegisterBatching(*p.rev, RevBatch);

  RegisterAbstractEval(*p.split, SplitRule);
  RegisterImpl(*p.split, SplitImpl);
  DefLinear2(*p.split, SplitTranspose);
  RegisterBatching(*p.split, SplitBatch);

  RegisterAbstractEval(*p.pad, PadRule);
  RegisterImpl(*p.pad, PadImpl);
  DefLinear2(*p.pad, PadTranspose);
  RegisterBatching(*p.pad, PadBatch);

  RegisterAbstractEval(*p.iota, Iota);
  RegisterImpl(*p.iota, IotaImpl);
  RegisterJvp(*p.iota, ZeroTangentJvpRule(p.iota));

  RegisterLayoutConstraintRules(*p.with_layout_constraint);
  RegisterImpl(*p.with_layout_constraint, SameValues(*p.with_layout_constraint));
  RegisterJvp(*p.with_layout_constraint,
              LinearJvp(p.with_layout_constraint, LinearOperands::kFirst));
}

const Primitive* BroadcastInDimPrimitive() {
  Primitive::Options o;
  o.name = "broadcast_in_dim";
  o.params = {{"shape", ParamType::kInts}, {"broadcast_dimensions", ParamType::kInts}};
  // JAX: shape and sharding are implied by the binder's type; () dimensions are not shown.
  o.printed_params = [](const Params& params) {
    Params shown = params;
    shown.erase("shape");
    shown.erase("sharding");
    auto it = shown.find("broadcast_dimensions");
    if (it != shown.end() && it->second.kind() == Param::Kind::kTuple &&
        it->second.items().empty()) {
      shown.erase(it);
    }
    return shown;
  };
  o.complete_parsed_params = [](Params& params, absl::Span<const ShapedArray> outs) {
    if (outs.size() == 1) params.try_emplace("shape", Param::Ints(outs[0].shape()));
    params.try_emplace("broadcast_dimensions", Param::Tuple({}));
    params.try_emplace("sharding", Param::None());
  };
  return DefineBuiltin(std::move(o));
}

}  // namespace

void DefineShape(BuiltinPrimitives& p) {
  p.broadcast_in_dim = BroadcastInDimPrimitive();
  p.reshape = DefineOneResult("reshape", {{"new_sizes", ParamType::kInts}});
  p.squeeze = DefineOneResult("squeeze", {{"dimensions", ParamType::kInts}});
  p.transpose = DefineOneResult("transpose", {{"permutation", ParamType::kInts}});
  p.slice = DefineOneResult(
      "slice", {{"start_indices", ParamType::kInts}, {"limit_indices", ParamType::kInts}});
  p.dynamic_slice = DefineOneResult("dynamic_slice", {{"slice_sizes", ParamType::kInts}});
  p.dynamic_update_slice = DefineOneResult("dynamic_update_slice");
  p.concatenate = DefineOneResult("concatenate", {{"dimension", ParamType::kInt}});
  p.rev = DefineOneResult("rev", {{"dimensions", ParamType::kInts}});
  p.split = DefineBuiltin(
      MultiResultOptions("split", {{"axis", ParamType::kInt}, {"sizes", ParamType::kInts}}));
  p.pad = DefineOneResult("pad", {{"padding_config", ParamType::kAny}});
  p.iota = DefineOneResult(
      "iota",
      {{"dtype", ParamType::kDType}, {"shape", ParamType::kInts}, {"dimension", ParamType::kInt}});
  p.with_layout_constraint = DefineOneResult("layout_constraint");
}

void RegisterShapeRules(const BuiltinPrimitives& p) {
  RegisterReshapings(p);
  RegisterSlicing(p);
  RegisterAssembling(p);
}

}  // namespace axe::ir::internal
