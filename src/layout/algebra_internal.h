// Internal helpers shared by the layout algebra (tile, tile-of, direct sum, slice, ...).
#ifndef AXE_SRC_LAYOUT_ALGEBRA_INTERNAL_H_
#define AXE_SRC_LAYOUT_ALGEBRA_INTERNAL_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/group.h"
#include "axe/layout/layout.h"

namespace axe::internal {

// The same status with `prefix` put in front of its message.
absl::Status Annotate(const absl::Status& status, absl::string_view prefix);

// InvalidArgument unless both shapes have the same rank (names them `what_a`, `what_b`).
absl::Status CheckSameRank(absl::Span<const int64_t> a, absl::string_view what_a,
                           absl::Span<const int64_t> b, absl::string_view what_b);

// The iters of block i of a grouping.
std::vector<Iter> Block(const Grouped& g, size_t i);

// D0 + D1 on a list of iters; empty when every iter has extent 1. Two lists induce the same
// map iff their normalized forms are equal.
std::vector<Iter> NormalizedIters(absl::Span<const Iter> iters);

// (e, s * factor, a), or an error naming the iter when the stride overflows.
absl::StatusOr<Iter> ScaleIter(const Iter& it, int64_t factor);

// The iters of `iters` on axis `a`.
std::vector<Iter> ItersOn(absl::Span<const Iter> iters, Axis a);

// Axes used by R or O of any of the layouts, in first-use order.
std::vector<Axis> ReplicaOrOffsetAxes(std::initializer_list<const Layout*> layouts);

// Finds iters with positive strides and an offset whose point set {o + f_R(r)} is exactly
// `values` (sorted, distinct): greedily, smallest missing value first. nullopt when the
// greedy decomposition does not reproduce the set (it always succeeds on sets whose
// replica iters satisfy the gap condition).
struct ReplicaDecomposition {
  std::vector<Iter> iters;
  int64_t offset = 0;
};
std::optional<ReplicaDecomposition> DecomposePointSet(const std::vector<int64_t>& values,
                                                      Axis axis);

}  // namespace axe::internal

#endif  // AXE_SRC_LAYOUT_ALGEBRA_INTERNAL_H_
