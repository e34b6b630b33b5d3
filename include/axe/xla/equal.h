// XLA's equality of layouts and shapes, with its Ignore* options.
//
// The value types' operator== compares EVERY field (regular-value semantics). XlaEqual
// reproduces XLA's Layout::Equal / Shape::Equal: M(n) (the dynamic-shape metadata prefix) is
// never compared, and the options ignore further fields.
//
//   XlaEqual(*ParseLayout("{0:S(1)}"), *ParseLayout("{0:S(3)}"));                    // false
//   XlaEqual(*ParseLayout("{0:S(1)}"), *ParseLayout("{0:S(3)}"), {.ignore_memory_space = true}); //
//   true
#ifndef AXE_XLA_EQUAL_H_
#define AXE_XLA_EQUAL_H_

#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

struct LayoutEqualOptions {
  bool ignore_tiles = false;
  bool ignore_tail_padding_alignment_in_elements = false;
  bool ignore_index_primitive_type = false;
  bool ignore_pointer_primitive_type = false;
  bool ignore_memory_space = false;
  bool ignore_split_configs = false;
  bool ignore_physical_shape = false;
  bool ignore_element_size = false;

  // Everything but minor_to_major ignored.
  static LayoutEqualOptions MinorToMajorOnly();
};

// minor_to_major, tiles, L, index and pointer types, E, S, split configs, and the physical
// shape (when either has one), less what the options ignore. Dim level types (when
// preserved) are compared too.
bool XlaEqual(const Layout& a, const Layout& b, const LayoutEqualOptions& options = {});

struct ShapeEqualOptions {
  bool ignore_layout = false;
  bool ignore_tiles_in_layout = false;
  bool ignore_element_size_in_layout = false;
  bool ignore_memory_space_in_layout = false;
  bool ignore_tail_padding_alignment_in_elements = false;
  bool ignore_split_config_in_layout = false;
  bool ignore_element_type = false;
  bool ignore_fp_precision = false;       // any two floating-point types match
  bool ignore_dimensions = false;         // the rank is still compared
  bool ignore_dynamic_dimension = false;  // `?` matches any size; dynamic flags not compared
};

// Tuples element-wise; token/opaque by kind; buffers by their arrays; arrays: element type,
// rank and dims, the same presence of a layout and XlaEqual layouts, and the dynamic flags.
bool XlaEqual(const Shape& a, const Shape& b, const ShapeEqualOptions& options = {});

// XlaEqual ignoring layouts and dynamic dimensions.
bool Compatible(const Shape& a, const Shape& b);

}  // namespace axe::xla

#endif  // AXE_XLA_EQUAL_H_
