// Kernels of the structural primitives: reshape and squeeze relabel the same storage;
// broadcast_in_dim, transpose, slice and concatenate are strided copies through the relayout
// engine, planned once at compile time; iota fills.
#include <memory>

#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

absl::StatusOr<int> Bytes(DType t) {
  AXE_ASSIGN_OR_RETURN(size_t b, ElementBytes(t));
  return static_cast<int>(b);
}

BuiltKernel Relabel(const ir::ShapedArray& out_aval) {
  BuiltKernel k;
  k.description = "relabel";
  k.relabel = true;
  k.kernel = [out_aval](const RunContext&, absl::Span<const Value> in,
                        std::vector<Value>& out) -> absl::Status {
    out[0] = in[0].Relabeled(out_aval);
    return absl::OkStatus();
  };
  return k;
}

// Copies operand 0, advanced by `offset` elements, through `copy` into a new value.
BuiltKernel CopyKernel(const char* description, StridedCopy copy, int64_t offset,
                       const ir::ShapedArray& out_aval, int bytes) {
  BuiltKernel k;
  k.description = description;
  k.work = 2 * NumElements(out_aval) * bytes;
  auto shared = std::make_shared<const StridedCopy>(std::move(copy));
  k.kernel = [shared, offset, out_aval, bytes](const RunContext& ctx, absl::Span<const Value> in,
                                               std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(out_aval));
    return shared->Run(in[0].bytes() + offset * bytes, out[0].mutable_bytes());
  };
  return k;
}

// reshape (and squeeze): a relabel; reshape's `dimensions`, when given, transposes first.
absl::StatusOr<std::optional<BuiltKernel>> BuildReshape(const EqnView& v) {
  if (v.in.empty() || v.in[0].dtype() != v.out[0].dtype() || !IsHeld(v.out[0].dtype()) ||
      NumElements(v.in[0]) != NumElements(v.out[0])) {
    return std::nullopt;
  }
  auto dims = v.eqn.params.find("dimensions");
  if (v.eqn.primitive->name() != "reshape" || dims == v.eqn.params.end() ||
      dims->second.is_none()) {
    return Relabel(v.out[0]);
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, dims->second.AsInts("dimensions"));
  if (perm.size() != v.in[0].rank()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(v.out[0].dtype()));
  AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                       PlanPermute(v.in[0].shape(), perm, bytes, v.options.num_threads));
  return CopyKernel("transpose then relabel", std::move(copy), 0, v.out[0], bytes);
}

absl::StatusOr<std::optional<BuiltKernel>> BuildBroadcast(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  const ir::ShapedArray& y = v.out[0];
  if (!IsHeld(y.dtype()) || x.dtype() != y.dtype()) return std::nullopt;
  if (NumElements(x) == NumElements(y)) return Relabel(y);  // only adds dimensions of size 1
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntsParam(v.eqn, "broadcast_dimensions"));
  if (dims.size() != x.rank()) return std::nullopt;
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  std::vector<int64_t> strides(y.rank(), 0);
  for (size_t k = 0; k < dims.size(); ++k) {
    if (x.shape()[k] != 1) strides[static_cast<size_t>(dims[k])] = in_strides[k];
  }
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(y.dtype()));
  AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                       StridedCopy::Plan(y.shape(), strides, RowMajorStrides(y.shape()), bytes,
                                         v.options.num_threads));
  return CopyKernel("broadcast", std::move(copy), 0, y, bytes);
}

absl::StatusOr<std::optional<BuiltKernel>> BuildTranspose(const EqnView& v) {
  if (!IsHeld(v.out[0].dtype())) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> perm, IntsParam(v.eqn, "permutation"));
  if (perm.size() != v.in[0].rank()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(v.out[0].dtype()));
  AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                       PlanPermute(v.in[0].shape(), perm, bytes, v.options.num_threads));
  return CopyKernel("transpose", std::move(copy), 0, v.out[0], bytes);
}

absl::StatusOr<std::optional<BuiltKernel>> BuildSlice(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  if (!IsHeld(x.dtype())) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> start, IntsParam(v.eqn, "start_indices"));
  std::vector<int64_t> step(x.rank(), 1);
  auto it = v.eqn.params.find("strides");
  if (it != v.eqn.params.end() && !it->second.is_none()) {
    AXE_ASSIGN_OR_RETURN(step, it->second.AsInts("strides"));
  }
  if (start.size() != x.rank() || step.size() != x.rank()) return std::nullopt;
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  std::vector<int64_t> src(x.rank());
  int64_t offset = 0;
  for (size_t k = 0; k < x.rank(); ++k) {
    src[k] = in_strides[k] * step[k];
    offset += start[k] * in_strides[k];
  }
  const ir::ShapedArray& y = v.out[0];
  if (NumElements(y) == 0) offset = 0;
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(y.dtype()));
  AXE_ASSIGN_OR_RETURN(
      StridedCopy copy,
      StridedCopy::Plan(y.shape(), src, RowMajorStrides(y.shape()), bytes, v.options.num_threads));
  return CopyKernel("slice", std::move(copy), offset, y, bytes);
}

// The operands, of shapes `in_shapes`, joined along dimension d of the output `y`: concatenate,
// and stack (each operand with a dimension of 1 inserted at d).
absl::StatusOr<std::optional<BuiltKernel>> BuildJoin(
    const EqnView& v, const char* description, const std::vector<std::vector<int64_t>>& in_shapes,
    size_t d) {
  const ir::ShapedArray& y = v.out[0];
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(y.dtype()));
  const std::vector<int64_t> out_strides = RowMajorStrides(y.shape());
  std::vector<std::pair<StridedCopy, int64_t>> parts;  // copy, destination offset
  int64_t at = 0;
  for (const std::vector<int64_t>& shape : in_shapes) {
    AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                         StridedCopy::Plan(shape, RowMajorStrides(shape), out_strides, bytes,
                                           v.options.num_threads));
    int64_t elements = 1;
    for (int64_t n : shape) elements *= n;
    parts.emplace_back(std::move(copy), elements == 0 ? 0 : at * out_strides[d]);
    at += shape[d];
  }
  BuiltKernel k;
  k.description = description;
  k.work = 2 * NumElements(y) * bytes;
  auto shared = std::make_shared<const decltype(parts)>(std::move(parts));
  k.kernel = [shared, y, bytes](const RunContext& ctx, absl::Span<const Value> in,
                                std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(y));
    for (size_t i = 0; i < shared->size(); ++i) {
      const auto& [copy, offset] = (*shared)[i];
      AXE_RETURN_IF_ERROR(copy.Run(in[i].bytes(), out[0].mutable_bytes() + offset * bytes));
    }
    return absl::OkStatus();
  };
  return k;
}

// iota: each element is its index along `dimension`, in the result's type.
absl::StatusOr<std::optional<BuiltKernel>> BuildIota(const EqnView& v) {
  if (!v.in.empty() || v.out.size() != 1 || !IsHeld(v.out[0].dtype()) ||
      v.out[0].dtype() == DType::kKeyFry) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dim, IntsParam(v.eqn, "dimension"));
  const ir::ShapedArray aval = v.out[0];
  if (dim.size() != 1 || dim[0] < 0 || static_cast<size_t>(dim[0]) >= aval.rank()) {
    return std::nullopt;
  }
  const int64_t size = aval.shape()[static_cast<size_t>(dim[0])];
  const int64_t inner = RowMajorStrides(aval.shape())[static_cast<size_t>(dim[0])];
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(aval.dtype()));
  BuiltKernel k;
  k.description = "iota";
  k.work = NumElements(aval) * bytes;
  k.kernel = [aval, size, inner](const RunContext& ctx, absl::Span<const Value>,
                                 std::vector<Value>& out) -> absl::Status {
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    const int64_t n = out[0].num_elements();
    DispatchDType(aval.dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* p = out[0].mutable_data<T>();
      for (int64_t i = 0; i < n; ++i) p[i] = FromDouble<T>(static_cast<double>((i / inner) % size));
    });
    return absl::OkStatus();
  };
  return k;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildConcatenate(const EqnView& v) {
  if (!IsHeld(v.out[0].dtype())) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dim, IntsParam(v.eqn, "dimension"));
  if (dim.size() != 1) return std::nullopt;
  std::vector<std::vector<int64_t>> shapes;
  for (const ir::ShapedArray& x : v.in) shapes.push_back(x.shape());
  return BuildJoin(v, "concatenate", shapes, static_cast<size_t>(dim[0]));
}

absl::StatusOr<std::optional<BuiltKernel>> BuildStack(const EqnView& v) {
  if (!IsHeld(v.out[0].dtype())) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axis, IntsParam(v.eqn, "axis"));
  if (axis.size() != 1) return std::nullopt;
  std::vector<std::vector<int64_t>> shapes;
  for (const ir::ShapedArray& x : v.in) {
    std::vector<int64_t> shape = x.shape();
    shape.insert(shape.begin() + axis[0], 1);
    shapes.push_back(std::move(shape));
  }
  return BuildJoin(v, "stack", shapes, static_cast<size_t>(axis[0]));
}

// tile: the operand broadcast to (reps[0], d0, reps[1], d1, ...), whose row-major order is
// the output's.
absl::StatusOr<std::optional<BuiltKernel>> BuildTile(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  if (!IsHeld(x.dtype())) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> reps, IntsParam(v.eqn, "reps"));
  if (reps.size() != x.rank()) return std::nullopt;
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  std::vector<int64_t> shape, src;
  for (size_t d = 0; d < x.rank(); ++d) {
    shape.insert(shape.end(), {reps[d], x.shape()[d]});
    src.insert(src.end(), {0, in_strides[d]});
  }
  AXE_ASSIGN_OR_RETURN(int bytes, Bytes(x.dtype()));
  AXE_ASSIGN_OR_RETURN(StridedCopy copy, StridedCopy::Plan(shape, src, RowMajorStrides(shape),
                                                           bytes, v.options.num_threads));
  return CopyKernel("tile", std::move(copy), 0, v.out[0], bytes);
}

}  // namespace

void AddShapeKernels(KernelTable& table) {
  table["reshape"] = BuildReshape;
  table["squeeze"] = BuildReshape;
  table["broadcast_in_dim"] = BuildBroadcast;
  table["transpose"] = BuildTranspose;
  table["slice"] = BuildSlice;
  table["concatenate"] = BuildConcatenate;
  table["stack"] = BuildStack;
  table["tile"] = BuildTile;
  table["reshard"] = BuildReshape;  // the identity on values: a relabel
  table["iota"] = BuildIota;
  table["copy"] = BuildReshape;  // values are immutable here: a relabel of the same storage
  table["name"] = BuildReshape;  // checkpoint_name: the identity on values
}

}  // namespace axe::exec::internal
