#include "axe/xla/validate.h"

#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "checks.h"

namespace axe::xla {
namespace {

absl::Status Invalid(absl::string_view what, const Layout& layout, const Shape* shape) {
  std::string msg = absl::StrCat("layout ", what, ": ", ElideForMessage(layout.ToString()));
  if (shape != nullptr) absl::StrAppend(&msg, "; shape: ", ElideForMessage(shape->ToString()));
  return absl::InvalidArgumentError(msg);
}

// Checks 3, 5, 6 and M >= 0.
absl::Status ValidateShapeIndependent(const Layout& layout, const Shape* shape) {
  if (layout.tail_padding_alignment_in_elements() < 1) {
    return Invalid(absl::StrCat("tail_padding_alignment_in_elements must be >= 1, got ",
                                layout.tail_padding_alignment_in_elements()),
                   layout, shape);
  }
  for (size_t i = 0; i < layout.tiles().size(); ++i) {
    const Tile& t = layout.tiles()[i];
    if (t.rank() == 0)
      return Invalid(absl::StrCat("has invalid tiles: tile ", i, " is empty"), layout, shape);
    for (int64_t b : t.dimensions()) {
      if (b <= 0 && b != Tile::kCombineDimension) {
        return Invalid(
            absl::StrCat("has invalid tiles: tile ", i, " ", ElideForMessage(t.ToString()),
                         " has bound ", b, " (bounds are >= 1 or '*')"),
            layout, shape);
      }
    }
    // `*` combines a dim into the next more-minor one; the last bound has none.
    if (t.dimensions().back() == Tile::kCombineDimension) {
      return Invalid(
          absl::StrCat("has invalid tiles: tile ", i, " ", ElideForMessage(t.ToString()),
                       " ends with '*' (there is no more-minor dimension to combine it into)"),
          layout, shape);
    }
  }
  if (layout.element_size_in_bits() < 0) {
    return Invalid(
        absl::StrCat("element_size_in_bits must be >= 0, got ", layout.element_size_in_bits()),
        layout, shape);
  }
  if (layout.dynamic_shape_metadata_prefix_bytes() < 0) {
    return Invalid(absl::StrCat("dynamic_shape_metadata_prefix_bytes must be >= 0, got ",
                                layout.dynamic_shape_metadata_prefix_bytes()),
                   layout, shape);
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status ValidateLayout(const Layout& layout) {
  return ValidateShapeIndependent(layout, nullptr);
}

absl::Status ValidateLayoutForShape(const Layout& layout, const Shape& shape) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a layout describes an array shape, not ", ElideForMessage(shape.ToString(false)),
        " (layout ", ElideForMessage(layout.ToString()), ")"));
  }
  const size_t rank = shape.dimensions().size();
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  if (m2m.size() != rank) {
    return Invalid(absl::StrCat("minor_to_major field contains ", m2m.size(),
                                " elements, but shape has ", rank, " dimensions"),
                   layout, &shape);
  }
  std::vector<bool> seen(rank, false);
  for (int64_t d : m2m) {
    if (d < 0 || d >= static_cast<int64_t>(rank)) {
      return Invalid(absl::StrCat("minor_to_major field has out-of-bounds value ", d), layout,
                     &shape);
    }
    if (seen[static_cast<size_t>(d)]) {
      return Invalid(absl::StrCat("minor_to_major field has duplicate values (", d, ")"), layout,
                     &shape);
    }
    seen[static_cast<size_t>(d)] = true;
  }
  if (!layout.dim_levels().empty() && layout.dim_levels().size() != rank) {
    return Invalid(absl::StrCat("has ", layout.dim_levels().size(), " dim level types for ", rank,
                                " dimensions"),
                   layout, &shape);
  }
  AXE_RETURN_IF_ERROR(ValidateShapeIndependent(layout, &shape));
  if (!layout.is_sparse()) {
    if (layout.index_primitive_type() != PrimitiveType::kInvalid) {
      return Invalid("has an index primitive type, but is not a sparse array", layout, &shape);
    }
    if (layout.pointer_primitive_type() != PrimitiveType::kInvalid) {
      return Invalid("has a pointer primitive type, but is not a sparse array", layout, &shape);
    }
    if (layout.has_physical_shape())
      return Invalid("has a physical shape, but is not a sparse array", layout, &shape);
  } else if (!layout.tiles().empty()) {
    return Invalid("has tiles, but is for a sparse array", layout, &shape);
  }
  std::vector<bool> split_seen(rank, false);
  for (const SplitConfig& c : layout.split_configs()) {
    const int64_t p = c.dimension();
    if (p < 0 || p >= static_cast<int64_t>(rank)) {
      return Invalid(absl::StrCat("split config ", ElideForMessage(c.ToString()),
                                  " names physical dimension ", p, " outside [0, ", rank, ")"),
                     layout, &shape);
    }
    if (split_seen[static_cast<size_t>(p)]) {
      return Invalid(absl::StrCat("has two split configs on physical dimension ", p), layout,
                     &shape);
    }
    split_seen[static_cast<size_t>(p)] = true;
    const int64_t logical = m2m[rank - 1 - static_cast<size_t>(p)];
    const int64_t size = shape.dimensions(static_cast<size_t>(logical));
    int64_t prev = 0;
    for (int64_t i : c.split_indices()) {
      if (i <= prev || i >= size) {
        return Invalid(absl::StrCat("split config ", ElideForMessage(c.ToString()),
                                    ": split indices must increase strictly and lie in (0, ", size,
                                    ") (the size of logical dimension ", logical, ")"),
                       layout, &shape);
      }
      prev = i;
    }
  }
  return absl::OkStatus();
}

absl::Status ValidateShape(const Shape& shape, const ValidateOptions& options) {
  switch (shape.kind()) {
    case ShapeKind::kToken:
    case ShapeKind::kOpaque: return absl::OkStatus();
    case ShapeKind::kTuple:
      for (size_t i = 0; i < shape.tuple_shapes().size(); ++i) {
        if (absl::Status st = ValidateShape(shape.tuple_shapes(i), options); !st.ok()) {
          return absl::InvalidArgumentError(absl::StrCat("tuple element ", i, ": ", st.message()));
        }
      }
      return absl::OkStatus();
    case ShapeKind::kBuffer:
      if (shape.tuple_shapes().size() != 1 || !shape.buffer_shape().IsArray()) {
        return absl::InvalidArgumentError(absl::StrCat("a buffer wraps exactly one array shape: ",
                                                       ElideForMessage(shape.ToString())));
      }
      return ValidateShape(shape.buffer_shape(), options);
    case ShapeKind::kArray: break;
  }
  if (!IsArrayType(shape.element_type())) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape has no array element type: ", PrimitiveTypeName(shape.element_type())));
  }
  if (shape.dynamic_dimensions().size() != shape.dimensions().size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "shape ", ElideForMessage(shape.ToString(false)), " has ",
        shape.dynamic_dimensions().size(), " dynamic flags for ", shape.rank(), " dimensions"));
  }
  int64_t bytes = ByteWidth(shape.element_type());
  bool overflow = false;
  for (size_t i = 0; i < shape.dimensions().size(); ++i) {
    const int64_t d = shape.dimensions(i);
    if (shape.is_unbounded_dynamic_dimension(i)) continue;
    if (d < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ",
                                                     ElideForMessage(shape.ToString(false)),
                                                     " has invalid size ", d, " in dimension ", i));
    }
    std::optional<int64_t> next = CheckedMul(bytes, d);
    if (!next) overflow = true;
    bytes = next.value_or(0);
  }
  const bool has_zero = std::find(shape.dimensions().begin(), shape.dimensions().end(), 0) !=
                        shape.dimensions().end();
  if (overflow && !has_zero) {
    return absl::InvalidArgumentError(
        absl::StrCat("Shape ", ElideForMessage(shape.ToString()), " size may overflow int64_t."));
  }
  if (!shape.has_layout()) {
    if (options.allow_missing_layouts) return absl::OkStatus();
    return absl::InvalidArgumentError(
        absl::StrCat("shape ", ElideForMessage(shape.ToString(false)), " does not have a layout"));
  }
  return ValidateLayoutForShape(shape.layout(), shape);
}

}  // namespace axe::xla
