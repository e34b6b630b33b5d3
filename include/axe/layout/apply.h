// The forward map of a layout: logical coordinate -> physical coordinates.
//
// A logical shape S is admitted by L iff prod(S) == E_D; a coordinate of S is flattened
// row-major and then unflattened by the extents of D (last iter fastest).
//
//   Layout la = *Layout::Parse("S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp");
//   ApplyBase(la, {8, 16}, {2, 9});  // {lane:8, reg:1, warp:6}
//   Apply(la, {8, 16}, {2, 9});      // {lane:8, reg:1, warp:6}, {lane:8, reg:1, warp:10}
#ifndef AXE_LAYOUT_APPLY_H_
#define AXE_LAYOUT_APPLY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/coord.h"
#include "axe/layout/layout.h"

namespace axe {

// Upper bound on the number of points that apply/inverse/equivalence enumerate before
// failing with ResourceExhausted (instead of running out of memory or time).
inline constexpr int64_t kMaxEnumeratedPoints = int64_t{1} << 20;

// OK iff prod(shape) == layout.size(); the error prints both numbers and the layout.
absl::Status CheckShapeAdmitted(const Layout& layout, absl::Span<const int64_t> shape);

// Row-major flat index of `coord` in `shape`. Errors: rank mismatch, or a coordinate
// outside [0, shape[d]) (naming dimension d).
absl::StatusOr<int64_t> FlattenCoord(absl::Span<const int64_t> shape,
                                     absl::Span<const int64_t> coord);
// Inverse of FlattenCoord; requires 0 <= flat < prod(shape).
std::vector<int64_t> UnflattenIndex(absl::Span<const int64_t> shape, int64_t flat);

// f_D(x) + O for a flat index x in [0, E_D) (OutOfRange otherwise).
absl::StatusOr<PhysCoord> ApplyBase(const Layout& layout, int64_t flat);
absl::StatusOr<PhysCoord> ApplyBase(const Layout& layout, absl::Span<const int64_t> shape,
                                    absl::Span<const int64_t> coord);

// The set L(x) of distinct physical points (base point plus every replica combination, the
// Cartesian product over R), sorted. ResourceExhausted if the distinct replica point set
// exceeds kMaxEnumeratedPoints.
absl::StatusOr<std::vector<PhysCoord>> Apply(const Layout& layout, int64_t flat);
absl::StatusOr<std::vector<PhysCoord>> Apply(const Layout& layout, absl::Span<const int64_t> shape,
                                             absl::Span<const int64_t> coord);

// The distinct points {O + f_R(r)}, sorted (the single point O when R is empty).
absl::StatusOr<std::vector<PhysCoord>> ReplicaPoints(const Layout& layout);

}  // namespace axe

#endif  // AXE_LAYOUT_APPLY_H_
