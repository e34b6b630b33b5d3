#include "axe/xla/equal.h"

namespace axe::xla {

LayoutEqualOptions LayoutEqualOptions::MinorToMajorOnly() {
  return {.ignore_tiles = true,
          .ignore_tail_padding_alignment_in_elements = true,
          .ignore_index_primitive_type = true,
          .ignore_pointer_primitive_type = true,
          .ignore_memory_space = true,
          .ignore_split_configs = true,
          .ignore_physical_shape = true,
          .ignore_element_size = true};
}

bool XlaEqual(const Layout& a, const Layout& b, const LayoutEqualOptions& o) {
  if (a.minor_to_major() != b.minor_to_major()) return false;
  if (a.dim_levels() != b.dim_levels()) return false;
  if (!o.ignore_tiles && a.tiles() != b.tiles()) return false;
  if (!o.ignore_tail_padding_alignment_in_elements &&
      a.tail_padding_alignment_in_elements() != b.tail_padding_alignment_in_elements()) {
    return false;
  }
  if (!o.ignore_index_primitive_type && a.index_primitive_type() != b.index_primitive_type())
    return false;
  if (!o.ignore_pointer_primitive_type && a.pointer_primitive_type() != b.pointer_primitive_type())
    return false;
  if (!o.ignore_element_size && a.element_size_in_bits() != b.element_size_in_bits()) return false;
  if (!o.ignore_memory_space && a.memory_space() != b.memory_space()) return false;
  if (!o.ignore_split_configs && a.split_configs() != b.split_configs()) return false;
  if (!o.ignore_physical_shape && (a.has_physical_shape() || b.has_physical_shape())) {
    if (a.has_physical_shape() != b.has_physical_shape()) return false;
    if (!XlaEqual(a.physical_shape(), b.physical_shape())) return false;
  }
  return true;
}

bool XlaEqual(const Shape& a, const Shape& b, const ShapeEqualOptions& o) {
  if (a.kind() != b.kind()) return false;
  switch (a.kind()) {
    case ShapeKind::kToken:
    case ShapeKind::kOpaque: return true;
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer:
      if (a.tuple_shapes().size() != b.tuple_shapes().size()) return false;
      for (size_t i = 0; i < a.tuple_shapes().size(); ++i) {
        if (!XlaEqual(a.tuple_shapes(i), b.tuple_shapes(i), o)) return false;
      }
      return true;
    case ShapeKind::kArray: break;
  }
  if (!o.ignore_element_type) {
    const bool fp_match = o.ignore_fp_precision && IsFloatingPoint(a.element_type()) &&
                          IsFloatingPoint(b.element_type());
    if (a.element_type() != b.element_type() && !fp_match) return false;
  }
  if (a.rank() != b.rank()) return false;
  if (!o.ignore_dimensions) {
    for (size_t i = 0; i < a.dimensions().size(); ++i) {
      if (o.ignore_dynamic_dimension &&
          (a.is_unbounded_dynamic_dimension(i) || b.is_unbounded_dynamic_dimension(i))) {
        continue;
      }
      if (a.dimensions(i) != b.dimensions(i)) return false;
    }
  }
  if (!o.ignore_layout) {
    if (a.has_layout() != b.has_layout()) return false;
    if (a.has_layout()) {
      LayoutEqualOptions lo{
          .ignore_tiles = o.ignore_tiles_in_layout,
          .ignore_tail_padding_alignment_in_elements = o.ignore_tail_padding_alignment_in_elements,
          .ignore_memory_space = o.ignore_memory_space_in_layout,
          .ignore_split_configs = o.ignore_split_config_in_layout,
          .ignore_element_size = o.ignore_element_size_in_layout};
      if (!XlaEqual(a.layout(), b.layout(), lo)) return false;
    }
  }
  if (!o.ignore_dynamic_dimension && a.dynamic_dimensions() != b.dynamic_dimensions()) return false;
  return true;
}

bool Compatible(const Shape& a, const Shape& b) {
  return XlaEqual(a, b, {.ignore_layout = true, .ignore_dynamic_dimension = true});
}

}  // namespace axe::xla
