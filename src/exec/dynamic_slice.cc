// dynamic_slice, dynamic_update_slice and split on every dtype the executor holds: copies of
// contiguous runs of the elements' bytes. The start indices of the dynamic slices are read at
// run time from their scalars (any integer type) and clamped into [0, dim - size], as XLA
// does; split cuts the operand along `axis` into pieces of `sizes`.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace dynamic_slice_kernels {

using Ints = std::vector<int64_t>;

// A box of `size` elements within an array of `shape`.
struct Box {
  Ints shape, size;
  size_t bytes = 1;
};

int64_t ReadIndex(const Value& v) {
  int64_t out = 0;
  DispatchDType(v.aval().dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool>) {
      out = static_cast<int64_t>(v.data<T>()[0]);
    }
  });
  return out;
}

// Copies the box at the clamped `start` of an array of box.shape out of `from` into the dense
// `to` (kOut), or the dense `from` into that box of the array `to`.
template <bool kOut>
void CopyBox(const Box& box, Ints start, const std::byte* from, std::byte* to) {
  const size_t rank = box.shape.size();
  if (rank == 0) {
    std::memcpy(to, from, box.bytes);
    return;
  }
  for (size_t d = 0; d < rank; ++d) {
    start[d] = std::clamp<int64_t>(start[d], 0, box.shape[d] - box.size[d]);
  }
  const Ints strides = RowMajorStrides(box.shape);
  int64_t count = 1;
  for (int64_t s : box.size) count *= s;
  if (count == 0) return;
  const int64_t width = box.size[rank - 1];
  const size_t row_bytes = static_cast<size_t>(width) * box.bytes;
  Ints at(rank, 0);  // the row's position within the box (the last dimension stays 0)
  for (int64_t row = 0; row < count / width; ++row) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank; ++d) offset += (start[d] + at[d]) * strides[d];
    const size_t array_at = static_cast<size_t>(offset) * box.bytes;
    const size_t box_at = static_cast<size_t>(row) * row_bytes;
    if constexpr (kOut) {
      std::memcpy(to + box_at, from + array_at, row_bytes);
    } else {
      std::memcpy(to + array_at, from + box_at, row_bytes);
    }
    for (size_t d = rank - 1; d > 0; --d) {
      if (++at[d - 1] < box.size[d - 1]) break;
      at[d - 1] = 0;
    }
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildDynamicSlice(const EqnView& v, bool update) {
  const ir::ShapedArray& x = v.in[0];
  const size_t first_index = update ? 2 : 1;
  if (!IsHeld(x.dtype()) || v.in.size() != first_index + x.rank() ||
      v.out[0].dtype() != x.dtype()) {
    return std::nullopt;
  }
  for (size_t k = first_index; k < v.in.size(); ++k) {
    if (!IsIntegral(v.in[k].dtype()) || v.in[k].rank() != 0) return std::nullopt;
  }
  Box box;
  box.shape = x.shape();
  box.size = update ? v.in[1].shape() : v.out[0].shape();
  AXE_ASSIGN_OR_RETURN(box.bytes, ElementBytes(x.dtype()));
  if (box.size.size() != x.rank()) return std::nullopt;
  for (size_t d = 0; d < x.rank(); ++d) {
    if (box.size[d] > box.shape[d]) return std::nullopt;
  }
  BuiltKernel k;
  k.description = update ? "dynamic update slice" : "dynamic slice";
  k.work = 2 * (update ? NumElements(x) : NumElements(v.out[0])) * static_cast<int64_t>(box.bytes);
  auto shared = std::make_shared<const Box>(std::move(box));
  const ir::ShapedArray aval = v.out[0];
  k.kernel = [shared, aval, update, first_index](const RunContext& ctx, absl::Span<const Value> in,
                                                 std::vector<Value>& out) -> absl::Status {
    Ints start;
    for (size_t k = first_index; k < in.size(); ++k) start.push_back(ReadIndex(in[k]));
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(aval));
    if (!update) {
      CopyBox<true>(*shared, start, in[0].bytes(), out[0].mutable_bytes());
      return absl::OkStatus();
    }
    std::memcpy(out[0].mutable_bytes(), in[0].bytes(), in[0].num_bytes());
    CopyBox<false>(*shared, start, in[1].bytes(), out[0].mutable_bytes());
    return absl::OkStatus();
  };
  return k;
}

absl::StatusOr<std::optional<BuiltKernel>> BuildSplit(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  auto axis_param = v.eqn.params.find("axis");
  if (v.in.size() != 1 || !IsHeld(x.dtype()) || axis_param == v.eqn.params.end()) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(int64_t axis, axis_param->second.AsInt("axis"));
  if (axis < 0 || axis >= static_cast<int64_t>(x.rank())) return std::nullopt;
  int64_t outer = 1, inner = 1, total = 0;
  for (int64_t d = 0; d < static_cast<int64_t>(x.rank()); ++d) {
    if (d < axis) outer *= x.shape()[static_cast<size_t>(d)];
    if (d > axis) inner *= x.shape()[static_cast<size_t>(d)];
  }
  Ints sizes;
  for (const ir::ShapedArray& o : v.out) {
    if (o.dtype() != x.dtype() || o.rank() != x.rank()) return std::nullopt;
    sizes.push_back(o.shape()[static_cast<size_t>(axis)]);
    total += sizes.back();
  }
  if (total != x.shape()[static_cast<size_t>(axis)]) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(x.dtype()));
  BuiltKernel k;
  k.description = "split";
  k.work = 2 * NumElements(x) * static_cast<int64_t>(bytes);
  const std::vector<ir::ShapedArray> avals = v.out;
  k.kernel = [avals, sizes, outer, inner, total, bytes](const RunContext& ctx,
                                                        absl::Span<const Value> in,
                                                        std::vector<Value>& out) -> absl::Status {
    const size_t line = static_cast<size_t>(total * inner) * bytes;
    int64_t before = 0;
    for (size_t p = 0; p < avals.size(); ++p) {
      AXE_ASSIGN_OR_RETURN(out[p], ctx.Allocate(avals[p]));
      const size_t piece = static_cast<size_t>(sizes[p] * inner) * bytes;
      const std::byte* from = in[0].bytes() + static_cast<size_t>(before * inner) * bytes;
      for (int64_t o = 0; o < outer && piece > 0; ++o) {
        std::memcpy(out[p].mutable_bytes() + static_cast<size_t>(o) * piece,
                    from + static_cast<size_t>(o) * line, piece);
      }
      before += sizes[p];
    }
    return absl::OkStatus();
  };
  return k;
}

}  // namespace dynamic_slice_kernels

void AddDynamicSliceKernels(KernelTable& table) {
  using dynamic_slice_kernels::BuildDynamicSlice;
  table["dynamic_slice"] = [](const EqnView& v) { return BuildDynamicSlice(v, false); };
  table["dynamic_update_slice"] = [](const EqnView& v) { return BuildDynamicSlice(v, true); };
  table["split"] = dynamic_slice_kernels::BuildSplit;
}

}  // namespace axe::exec::internal
