// Validation of XLA shapes and layouts (XLA's ValidateShape / ValidateLayoutForShape, which
// axe applies to every parsed shape unless the parser is lenient).
//
// For an array with a layout, in this order:
//   1. minor_to_major has one entry per dim;
//   2. its entries are in [0, rank) and distinct;
//   3. L (tail padding alignment) >= 1;
//   4. index / pointer primitive types and the physical shape are set only for sparse arrays;
//   5. every tile is non-empty with bounds > 0 or `*` (a tile may be longer than the rank);
//   6. E (element size in bits) >= 0;
//   7. split configs: physical dim in [0, rank), no dim twice, indices strictly increasing,
//      each > 0 and < the size of the logical dim Major(layout, dim).
// Also: M >= 0; dim level types (when preserved) one per dim and no tiles on sparse arrays.
// Shapes: array element type, dims >= 0 or unbounded (`?`, dynamic only), the byte size
// Π dims × ByteWidth fits int64, a layout present (unless allowed missing); tuples element
// by element; a buffer wraps an array. Token and opaque always pass.
//
//   ValidateShape(Shape::Array(kF32, {2, 3}, {}, Layout({0, 0})));
//   // InvalidArgument "layout minor_to_major field has duplicate values: {0,0}; shape:
//   f32[2,3]{0,0}"
#ifndef AXE_XLA_VALIDATE_H_
#define AXE_XLA_VALIDATE_H_

#include "absl/status/status.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

struct ValidateOptions {
  // Accept arrays without a layout (otherwise "shape f32[2,3] does not have a layout").
  bool allow_missing_layouts = false;
};

absl::Status ValidateShape(const Shape& shape, const ValidateOptions& options = {});

// Checks 1-7 of `layout` against the array `shape` (whose own layout is ignored). Errors for
// a non-array shape.
absl::Status ValidateLayoutForShape(const Layout& layout, const Shape& shape);

// The shape-independent checks of a bare layout: 3, 5, 6 and M >= 0.
absl::Status ValidateLayout(const Layout& layout);

}  // namespace axe::xla

#endif  // AXE_XLA_VALIDATE_H_
