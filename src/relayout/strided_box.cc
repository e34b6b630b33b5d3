#include "axe/relayout/strided_box.h"

#include <optional>
#include <utility>
#include <vector>

#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/axis.h"
#include "axe/layout/iter.h"

namespace axe::relayout {

namespace {

// The sliced layout's shard iters as (extent, stride in elements) on the memory axis, and
// its offset; nullopt for replicas, other axes or a non-positive stride.
std::optional<std::pair<std::vector<StridedDim>, int64_t>> MemoryNest(const Layout& layout) {
  if (!layout.replica().empty()) return std::nullopt;
  for (const auto& [axis, value] : layout.offset().entries()) {
    if (axis != Axis::Memory() && value != 0) return std::nullopt;
  }
  std::vector<StridedDim> dims;
  for (const Iter& it : layout.shard()) {
    if (it.extent == 1) continue;
    if (it.axis != Axis::Memory() || it.stride <= 0) return std::nullopt;
    dims.push_back({it.extent, it.stride});
  }
  return std::make_pair(std::move(dims), layout.offset().get(Axis::Memory()));
}

}  // namespace

int64_t StridedBox::bytes() const {
  int64_t n = run_bytes;
  for (const StridedDim& d : dims) n *= d.extent;  // checked when described
  return n;
}

absl::StatusOr<std::optional<StridedBox>> DescribeStridedBox(const BufferLayout& layout,
                                                             absl::Span<const int64_t> shape,
                                                             absl::Span<const Interval> box,
                                                             int element_bytes) {
  const std::vector<int64_t> domain = layout.DomainFor(shape);
  AXE_ASSIGN_OR_RETURN(MaybeLayout sliced, Slice(layout.layout, domain, box));
  if (!sliced.has_value() || element_bytes < 1) return std::optional<StridedBox>();
  auto nest = MemoryNest(*sliced.layout);
  if (!nest) return std::optional<StridedBox>();
  // Merge neighbours that walk on as one: (e1, s1), (e2, s2) with s1 == e2 * s2.
  std::vector<StridedDim> merged;
  for (const StridedDim& d : nest->first) {
    if (!merged.empty()) {
      std::optional<int64_t> span = CheckedMul(d.extent, d.stride_bytes);
      if (span && *span == merged.back().stride_bytes) {
        std::optional<int64_t> extent = CheckedMul(merged.back().extent, d.extent);
        if (!extent) return std::optional<StridedBox>();
        merged.back() = {*extent, d.stride_bytes};
        continue;
      }
    }
    merged.push_back(d);
  }
  StridedBox out;
  std::optional<int64_t> offset = CheckedMul(nest->second, element_bytes);
  if (!offset || *offset < 0) return std::optional<StridedBox>();
  out.offset_bytes = *offset;
  out.run_bytes = element_bytes;
  if (!merged.empty() && merged.back().stride_bytes == 1) {
    std::optional<int64_t> run = CheckedMul(merged.back().extent, element_bytes);
    if (!run) return std::optional<StridedBox>();
    out.run_bytes = *run;
    merged.pop_back();
  }
  int64_t total = out.run_bytes;
  for (StridedDim& d : merged) {
    std::optional<int64_t> stride = CheckedMul(d.stride_bytes, element_bytes);
    std::optional<int64_t> next = CheckedMul(total, d.extent);
    if (!stride || !next) return std::optional<StridedBox>();
    d.stride_bytes = *stride;
    total = *next;
  }
  out.dims = std::move(merged);
  return std::optional<StridedBox>(std::move(out));
}

}  // namespace axe::relayout
