// Group (axe/layout/group.h) that also takes a scalar's shape (internal to axe::sharding).
#ifndef AXE_SRC_SHARDING_GROUP_BY_SHAPE_H_
#define AXE_SRC_SHARDING_GROUP_BY_SHAPE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/group.h"
#include "axe/layout/layout.h"

namespace axe::sharding::internal {

// Group(layout, shape); for the shape () of a scalar, the layout (whose shard part must be
// one point, e.g. S[1:1]) with no blocks. Errors: Group's.
inline absl::StatusOr<Grouped> GroupByShape(const Layout& layout, absl::Span<const int64_t> shape) {
  if (!shape.empty()) return Group(layout, shape);
  const int64_t one[] = {1};
  absl::StatusOr<Grouped> point = Group(layout, one);
  if (!point.ok()) return point.status();
  return Grouped{layout, {0}};
}

}  // namespace axe::sharding::internal

#endif  // AXE_SRC_SHARDING_GROUP_BY_SHAPE_H_
