#include "axe/relayout/relayout_reference.h"

#include <cstring>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/relayout/element_type.h"

namespace axe::relayout {
namespace {

// The memory offset of a physical point of a memory-only layout.
absl::StatusOr<int64_t> Offset(const PhysCoord& p) {
  int64_t v = 0;
  for (const auto& [axis, value] : p.entries()) {
    if (!axis.is_memory()) {
      return absl::InvalidArgumentError(
          absl::StrCat("point ", p.ToString(), " is not on a memory axis"));
    }
    v += value;
  }
  return v;
}

int64_t FlattenIn(const std::vector<int64_t>& domain, const std::vector<int64_t>& coord) {
  int64_t flat = 0;
  for (size_t d = 0; d < domain.size(); ++d) flat = flat * domain[d] + coord[d];
  return flat;
}

}  // namespace

absl::Status ReferenceRelayout(const BufferLayout& src, const BufferLayout& dst,
                               absl::Span<const int64_t> shape, int element_bytes,
                               const void* src_ptr, void* dst_ptr,
                               const std::optional<std::vector<uint8_t>>& padding_value,
                               ThreadPool* pool) {
  AXE_RETURN_IF_ERROR(CheckElementBytes(element_bytes));
  AXE_RETURN_IF_ERROR(CheckBufferLayout(src, shape, "source"));
  AXE_RETURN_IF_ERROR(CheckBufferLayout(dst, shape, "destination"));
  if (padding_value && static_cast<int>(padding_value->size()) != element_bytes) {
    return absl::InvalidArgumentError("padding value size differs from the element size");
  }
  std::vector<int64_t> box(shape.begin(), shape.end());
  std::vector<int64_t> sdom = src.DomainFor(shape), ddom = dst.DomainFor(shape);
  if (box.empty()) box = sdom = ddom = {1};
  const auto* in = static_cast<const uint8_t*>(src_ptr);
  auto* out = static_cast<uint8_t*>(dst_ptr);
  const int64_t b = element_bytes;

  // Every destination domain point, in row-major order, is copied or filled.
  int64_t points = 1;
  for (int64_t e : ddom) points *= e;
  constexpr int64_t kPerTask = 4096;
  const int64_t tasks = (points + kPerTask - 1) / kPerTask;
  std::vector<absl::Status> errors(static_cast<size_t>(tasks));
  // L(x) = f_D(x) + {O + f_R(r)}: the replica points once, then one ApplyBase per element.
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> replica_points, ReplicaPoints(dst.layout));
  std::vector<int64_t> copies;
  for (const PhysCoord& p : replica_points) {
    AXE_ASSIGN_OR_RETURN(int64_t at, Offset(p));
    copies.push_back(at);
  }
  AXE_ASSIGN_OR_RETURN(const int64_t dst_offset, Offset(dst.layout.offset()));
  auto run = [&](int64_t task) {
    std::vector<int64_t> coord(ddom.size());
    for (int64_t flat = task * kPerTask; flat < std::min(points, (task + 1) * kPerTask); ++flat) {
      int64_t rest = flat;
      bool inside = true;
      for (size_t d = ddom.size(); d-- > 0;) {
        coord[d] = rest % ddom[d];
        rest /= ddom[d];
        inside = inside && coord[d] < box[d];
      }
      if (!inside && !padding_value) continue;
      absl::StatusOr<PhysCoord> to = ApplyBase(dst.layout, flat);
      absl::StatusOr<int64_t> base = to.ok() ? Offset(*to) : to.status();
      if (!base.ok()) {
        errors[static_cast<size_t>(task)] = base.status();
        return;
      }
      const uint8_t* value = nullptr;
      if (inside) {
        absl::StatusOr<PhysCoord> from = ApplyBase(src.layout, FlattenIn(sdom, coord));
        absl::StatusOr<int64_t> at = from.ok() ? Offset(*from) : from.status();
        if (!at.ok()) {
          errors[static_cast<size_t>(task)] = at.status();
          return;
        }
        value = in + *at * b;
      } else {
        value = padding_value->data();
      }
      for (int64_t copy : copies) {
        std::memcpy(out + (*base - dst_offset + copy) * b, value, static_cast<size_t>(b));
      }
    }
  };
  if (pool != nullptr) {
    pool->ParallelFor(tasks, run);
  } else {
    for (int64_t t = 0; t < tasks; ++t) run(t);
  }
  for (const absl::Status& s : errors) AXE_RETURN_IF_ERROR(s);
  return absl::OkStatus();
}

}  // namespace axe::relayout
