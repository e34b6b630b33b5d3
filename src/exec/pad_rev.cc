// pad and rev on every dtype the executor holds: both only move elements, so they run on the
// elements' bytes. pad fills the result with the padding value, then copies the part of the
// operand that lands inside it (negative lo/hi crop; interior padding spreads the elements) by
// one strided copy; rev walks the result row by row, reading each row from its mirrored
// position (element by element when the last dimension is reversed).
#include <algorithm>
#include <cstring>
#include <memory>
#include <utility>
#include <vector>

#include "absl/numeric/int128.h"
#include "axe/base/status_macros.h"
#include "exec/dtype_switch.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace pad_rev_kernels {

struct Pad {
  ir::ShapedArray out;
  size_t bytes = 1;
  int64_t src_offset = 0, dst_offset = 0;  // elements
  std::optional<StridedCopy> copy;         // none when no operand element lands in the result
};

// In 128 bits: paddings near 2^63 must not overflow on the way.
using Wide = absl::int128;

// Floor of a / b for b > 0.
Wide FloorDiv(Wide a, Wide b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

absl::StatusOr<std::optional<BuiltKernel>> BuildPad(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  const DType t = x.dtype();
  auto config = v.eqn.params.find("padding_config");
  if (v.in.size() != 2 || v.in[1].dtype() != t || v.in[1].rank() != 0 || v.out[0].dtype() != t ||
      !IsHeld(t) || config == v.eqn.params.end() || config->second.items().size() != x.rank()) {
    return std::nullopt;  // the interpreter's typing error
  }
  Pad pad;
  pad.out = v.out[0];
  AXE_ASSIGN_OR_RETURN(pad.bytes, ElementBytes(t));
  const std::vector<int64_t> in_strides = RowMajorStrides(x.shape());
  const std::vector<int64_t> out_strides = RowMajorStrides(pad.out.shape());
  std::vector<int64_t> box(x.rank()), src(x.rank()), dst(x.rank());
  bool empty = NumElements(x) == 0 || NumElements(pad.out) == 0;
  for (size_t d = 0; d < x.rank(); ++d) {
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lhi,
                         config->second.items()[d].AsInts("padding_config"));
    if (lhi.size() != 3 || lhi[2] < 0) return std::nullopt;
    const Wide lo = lhi[0], step = Wide(lhi[2]) + 1, n = x.shape()[d], m = pad.out.shape()[d];
    // Operand positions i with 0 <= lo + i * step < m, within [0, n).
    const Wide first = std::max<Wide>(0, FloorDiv(-lo + step - 1, step));
    const Wide last = std::min<Wide>(n - 1, FloorDiv(m - 1 - lo, step));
    if (last < first) {
      empty = true;
      continue;
    }
    // Within the result from here on: every value below fits in 64 bits.
    box[d] = static_cast<int64_t>(last - first + 1);
    src[d] = in_strides[d];
    dst[d] = box[d] > 1 ? out_strides[d] * static_cast<int64_t>(step) : 0;
    pad.src_offset += static_cast<int64_t>(first) * in_strides[d];
    pad.dst_offset += static_cast<int64_t>(lo + first * step) * out_strides[d];
  }
  if (!empty) {
    AXE_ASSIGN_OR_RETURN(
        StridedCopy copy,
        StridedCopy::Plan(box, src, dst, static_cast<int>(pad.bytes), v.options.num_threads));
    pad.copy = std::move(copy);
  }
  BuiltKernel k;
  k.description = "pad";
  k.work = 2 * NumElements(pad.out) * static_cast<int64_t>(pad.bytes);
  auto shared = std::make_shared<const Pad>(std::move(pad));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    const Pad& p = *shared;
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(p.out));
    std::byte* o = out[0].mutable_bytes();
    const std::byte* value = in[1].bytes();
    const int64_t n = NumElements(p.out);
    for (int64_t i = 0; i < n; ++i) std::memcpy(o + i * p.bytes, value, p.bytes);
    if (!p.copy) return absl::OkStatus();
    return p.copy->Run(in[0].bytes() + p.src_offset * static_cast<int64_t>(p.bytes),
                       o + p.dst_offset * static_cast<int64_t>(p.bytes));
  };
  return k;
}

struct Rev {
  ir::ShapedArray out;
  size_t bytes = 1;
  std::vector<int64_t> shape, strides;
  std::vector<bool> reversed;
};

// Copies row `r` of the result (all dimensions but the last fixed) from its mirrored row.
void RevRow(const Rev& r, int64_t row, const std::byte* x, std::byte* o) {
  const size_t rank = r.shape.size();
  const int64_t width = r.shape[rank - 1];
  int64_t src = 0;
  for (size_t d = rank - 1, rest = static_cast<size_t>(row); d > 0; --d) {
    const int64_t extent = r.shape[d - 1];
    const int64_t i = static_cast<int64_t>(rest % static_cast<size_t>(extent));
    rest /= static_cast<size_t>(extent);
    src += (r.reversed[d - 1] ? extent - 1 - i : i) * r.strides[d - 1];
  }
  std::byte* dst = o + row * width * static_cast<int64_t>(r.bytes);
  const std::byte* from = x + src * static_cast<int64_t>(r.bytes);
  if (!r.reversed[rank - 1]) {
    std::memcpy(dst, from, static_cast<size_t>(width) * r.bytes);
    return;
  }
  for (int64_t j = 0; j < width; ++j) {
    std::memcpy(dst + j * static_cast<int64_t>(r.bytes),
                from + (width - 1 - j) * static_cast<int64_t>(r.bytes), r.bytes);
  }
}

absl::StatusOr<std::optional<BuiltKernel>> BuildRev(const EqnView& v) {
  const ir::ShapedArray& x = v.in[0];
  if (v.in.size() != 1 || !IsHeld(x.dtype()) || v.out[0].dtype() != x.dtype() ||
      v.out[0].shape() != x.shape()) {
    return std::nullopt;
  }
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> dims, IntsParam(v.eqn, "dimensions"));
  Rev r;
  r.out = v.out[0];
  AXE_ASSIGN_OR_RETURN(r.bytes, ElementBytes(x.dtype()));
  r.shape = x.shape();
  r.strides = RowMajorStrides(x.shape());
  r.reversed.assign(x.rank(), false);
  for (int64_t d : dims) {
    if (d < 0 || d >= static_cast<int64_t>(x.rank())) return std::nullopt;
    r.reversed[static_cast<size_t>(d)] = true;
  }
  BuiltKernel k;
  k.description = "rev";
  k.work = 2 * NumElements(r.out) * static_cast<int64_t>(r.bytes);
  if (x.rank() == 0 || NumElements(x) == 0) {
    k.kernel = [out_aval = r.out](const RunContext&, absl::Span<const Value> in,
                                  std::vector<Value>& out) -> absl::Status {
      out[0] = in[0].Relabeled(out_aval);
      return absl::OkStatus();
    };
    return k;
  }
  auto shared = std::make_shared<const Rev>(std::move(r));
  k.kernel = [shared](const RunContext& ctx, absl::Span<const Value> in,
                      std::vector<Value>& out) -> absl::Status {
    const Rev& r = *shared;
    AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(r.out));
    const int64_t rows = NumElements(r.out) / r.shape.back();
    for (int64_t row = 0; row < rows; ++row) RevRow(r, row, in[0].bytes(), out[0].mutable_bytes());
    return absl::OkStatus();
  };
  return k;
}

}  // namespace pad_rev_kernels

void AddPadRevKernels(KernelTable& table) {
  table["pad"] = pad_rev_kernels::BuildPad;
  table["rev"] = pad_rev_kernels::BuildRev;
}

}  // namespace axe::exec::internal
