#include "axe/layout/apply.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "point_set.h"

namespace axe {

absl::Status CheckShapeAdmitted(const Layout& layout, absl::Span<const int64_t> shape) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 1) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", FormatTuple(shape), " dimension ", d,
                                                     " has size ", shape[d],
                                                     "; sizes must be >= 1"));
    }
  }
  std::optional<int64_t> product = CheckedProduct(shape);
  if (!product || *product != layout.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", FormatTuple(shape), " has ",
                     product ? absl::StrCat(*product) : std::string("more than 2^63"),
                     " elements but the layout ", layout.ToString(), " has size ", layout.size()));
  }
  return absl::OkStatus();
}

absl::StatusOr<int64_t> FlattenCoord(absl::Span<const int64_t> shape,
                                     absl::Span<const int64_t> coord) {
  if (coord.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("coordinate ", FormatTuple(coord), " has rank ",
                                                   coord.size(), " but the shape ",
                                                   FormatTuple(shape), " has rank ", shape.size()));
  }
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (coord[d] < 0 || coord[d] >= shape[d]) {
      return absl::OutOfRangeError(absl::StrCat("coordinate ", FormatTuple(coord), ": dimension ",
                                                d, " value ", coord[d], " is outside [0, ",
                                                shape[d], ") of shape ", FormatTuple(shape)));
    }
    // flat < prod(shape[..d]) * shape[d]; fits when the shape's product does.
    std::optional<int64_t> f = CheckedMul(flat, shape[d]);
    if (!f)
      return absl::InvalidArgumentError(
          absl::StrCat("shape ", FormatTuple(shape), " overflows int64"));
    flat = *f + coord[d];
  }
  return flat;
}

std::vector<int64_t> UnflattenIndex(absl::Span<const int64_t> shape, int64_t flat) {
  std::vector<int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = flat % shape[d];
    flat /= shape[d];
  }
  return coord;
}

absl::StatusOr<PhysCoord> ApplyBase(const Layout& layout, int64_t flat) {
  if (flat < 0 || flat >= layout.size()) {
    return absl::OutOfRangeError(absl::StrCat("flat index ", flat, " is outside [0, ",
                                              layout.size(), ") of ", layout.ToString()));
  }
  PhysCoord out = layout.offset();
  const std::vector<Iter>& d = layout.shard();
  for (size_t k = d.size(); k-- > 0;) {
    const Iter& it = d[k];
    out.add(it.axis, (flat % it.extent) * it.stride);
    flat /= it.extent;
  }
  return out;
}

absl::StatusOr<PhysCoord> ApplyBase(const Layout& layout, absl::Span<const int64_t> shape,
                                    absl::Span<const int64_t> coord) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(int64_t flat, FlattenCoord(shape, coord));
  return ApplyBase(layout, flat);
}

absl::StatusOr<std::vector<PhysCoord>> ReplicaPoints(const Layout& layout) {
  AXE_ASSIGN_OR_RETURN(std::vector<internal::AxisValues> per_axis,
                       internal::ReplicaValuesPerAxis(layout, kMaxEnumeratedPoints));
  int64_t total = 1;
  for (const auto& av : per_axis) {
    std::optional<int64_t> t = CheckedMul(total, static_cast<int64_t>(av.values.size()));
    if (!t || *t > kMaxEnumeratedPoints) {
      return absl::ResourceExhaustedError(absl::StrCat("the replicas of ", layout.ToString(),
                                                       " have more than ", kMaxEnumeratedPoints,
                                                       " distinct points"));
    }
    total = *t;
  }
  // Cartesian product, first axis (by name) slowest: the result is sorted.
  std::vector<PhysCoord> points(1);
  for (const auto& av : per_axis) {
    std::vector<PhysCoord> next;
    next.reserve(points.size() * av.values.size());
    for (const PhysCoord& p : points) {
      for (int64_t v : av.values) {
        PhysCoord q = p;
        q.set(av.axis, v);
        next.push_back(std::move(q));
      }
    }
    points = std::move(next);
  }
  std::sort(points.begin(), points.end());  // zero entries are dropped, so re-sort
  return points;
}

absl::StatusOr<std::vector<PhysCoord>> Apply(const Layout& layout, int64_t flat) {
  AXE_ASSIGN_OR_RETURN(PhysCoord base, ApplyBase(layout, flat));
  if (layout.replica().empty()) return std::vector<PhysCoord>{base};
  AXE_ASSIGN_OR_RETURN(std::vector<PhysCoord> points, ReplicaPoints(layout));
  // base = f_D(x) + O and every replica point already contains O.
  PhysCoord fd = *CheckedDifference(base, layout.offset());
  for (PhysCoord& p : points) {
    for (const auto& [axis, value] : fd.entries()) p.add(axis, value);
  }
  std::sort(points.begin(), points.end());
  return points;
}

absl::StatusOr<std::vector<PhysCoord>> Apply(const Layout& layout, absl::Span<const int64_t> shape,
                                             absl::Span<const int64_t> coord) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  AXE_ASSIGN_OR_RETURN(int64_t flat, FlattenCoord(shape, coord));
  return Apply(layout, flat);
}

}  // namespace axe
