// Internal: precondition checks shared by the index, size and conversion functions. Every
// public function that takes a user's shape validates it first, so a lenient-parsed or
// hand-built invalid shape gives an error instead of a wrong answer.
#ifndef AXE_SRC_XLA_CHECKS_H_
#define AXE_SRC_XLA_CHECKS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/xla/shape.h"

namespace axe::xla::internal {

// OK iff `shape` is a valid array with a layout and no unbounded (`?`) dim; the error names
// `op`. Bounded dynamic dims count as their bound.
absl::Status CheckArrayWithLayout(const Shape& shape, absl::string_view op);

// OK iff index has one entry per dim and 0 <= index[d] < dims[d]; errors name the dim.
absl::Status CheckIndexInBounds(const Shape& shape, absl::Span<const int64_t> index,
                                absl::string_view op);
absl::Status CheckIndexInBounds(absl::Span<const int64_t> dims, absl::Span<const int64_t> index,
                                absl::string_view op);

// Π dims of a validated array (0 if some dim is 0; validation rules out overflow otherwise).
int64_t DenseElements(const Shape& shape);

// Per logical dim of a validated array, its largest split piece (the dim itself when no
// split config names it): O(rank + total split indices).
std::vector<int64_t> MaxSplitSizes(const Shape& shape);

// The physical (major-to-minor) order of the logical dims: Major(layout, p) for each p.
std::vector<int64_t> MajorToMinor(const Shape& shape);

// Applies f (Shape -> StatusOr<Shape>, or Shape) to every array of a shape, rebuilding the
// tuples and buffers around the results; tokens and opaques are kept.
template <typename F>
absl::StatusOr<Shape> MapArrays(const Shape& shape, const F& f) {
  switch (shape.kind()) {
    case ShapeKind::kArray: return f(shape);
    case ShapeKind::kTuple: {
      std::vector<Shape> elements;
      for (const Shape& e : shape.tuple_shapes()) {
        absl::StatusOr<Shape> m = MapArrays(e, f);
        if (!m.ok()) return m.status();
        elements.push_back(*std::move(m));
      }
      return Shape::Tuple(std::move(elements));
    }
    case ShapeKind::kBuffer: {
      absl::StatusOr<Shape> m = MapArrays(shape.buffer_shape(), f);
      if (!m.ok()) return m.status();
      return Shape::Buffer(*std::move(m));
    }
    default: return shape;
  }
}

}  // namespace axe::xla::internal

#endif  // AXE_SRC_XLA_CHECKS_H_
