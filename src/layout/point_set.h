// Internal: distinct sums of iters on one axis (replica point sets, injectivity checks).
#ifndef AXE_SRC_LAYOUT_POINT_SET_H_
#define AXE_SRC_LAYOUT_POINT_SET_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/iter.h"
#include "axe/layout/layout.h"

namespace axe::internal {

// The sorted distinct values {base + sum_k c_k s_k : 0 <= c_k < e_k} over `iters` (all on
// one axis; the axis is ignored). The caller guarantees the values fit int64 (they do for
// the iters of a valid layout). ResourceExhausted when more than `limit` values would have
// to be held.
absl::StatusOr<std::vector<int64_t>> DistinctSums(int64_t base, absl::Span<const Iter> iters,
                                                  int64_t limit);

// Per axis used by R or O: the sorted distinct values of O[a] + f_R restricted to a.
struct AxisValues {
  Axis axis;
  std::vector<int64_t> values;
};
absl::StatusOr<std::vector<AxisValues>> ReplicaValuesPerAxis(const Layout& layout, int64_t limit);

}  // namespace axe::internal

#endif  // AXE_SRC_LAYOUT_POINT_SET_H_
