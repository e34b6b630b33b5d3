// xla::Shape: an array (element type, dims, dynamic flags, optional layout), a tuple of
// shapes, a token, an opaque value, or a buffer b(<array>).
//
// Dims: static (>= 0), bounded dynamic (is_dynamic, size = the bound, printed `<=N`) or
// unbounded dynamic (is_dynamic, size = kUnboundedSize, printed `?`). Shapes are immutable
// values; the factories do not validate (see validate.h; ParseShape validates).
//
//   Shape s = Shape::Array(PrimitiveType::kF32, {2, 3}, {}, Layout({1, 0}));
//   s.ToString();        // "f32[2,3]{1,0}"
//   s.ToString(false);   // "f32[2,3]"
#ifndef AXE_XLA_SHAPE_H_
#define AXE_XLA_SHAPE_H_

#include <cstdint>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "axe/xla/layout.h"
#include "axe/xla/primitive_type.h"

namespace axe::xla {

enum class ShapeKind : uint8_t { kArray, kTuple, kToken, kOpaque, kBuffer };

class Shape {
 public:
  static constexpr int64_t kUnboundedSize = std::numeric_limits<int64_t>::min();

  // The empty tuple `()`.
  Shape() = default;

  // An array. `dynamic` is empty (all static) or has one flag per dim.
  static Shape Array(PrimitiveType type, std::vector<int64_t> dims, std::vector<bool> dynamic = {},
                     std::optional<Layout> layout = std::nullopt);
  static Shape Tuple(std::vector<Shape> elements);
  static Shape Token();
  static Shape Opaque();
  // b(array); `array` should be an array shape (ValidateShape checks).
  static Shape Buffer(Shape array);

  ShapeKind kind() const { return kind_; }
  bool IsArray() const { return kind_ == ShapeKind::kArray; }
  bool IsTuple() const { return kind_ == ShapeKind::kTuple; }
  bool IsToken() const { return kind_ == ShapeKind::kToken; }
  bool IsOpaque() const { return kind_ == ShapeKind::kOpaque; }
  bool IsBuffer() const { return kind_ == ShapeKind::kBuffer; }

  // kTuple, kToken, kOpaque, kBuffer for the non-array kinds.
  PrimitiveType element_type() const { return element_type_; }
  absl::Span<const int64_t> dimensions() const { return dims_; }
  int64_t dimensions(size_t i) const { return dims_[i]; }
  int64_t rank() const { return static_cast<int64_t>(dims_.size()); }
  // One flag per dim (all false for a static shape).
  const std::vector<bool>& dynamic_dimensions() const { return dynamic_; }
  bool is_dynamic_dimension(size_t i) const { return dynamic_[i]; }
  bool is_unbounded_dynamic_dimension(size_t i) const {
    return dynamic_[i] && dims_[i] == kUnboundedSize;
  }
  // No dynamic dim (recursively for tuples and buffers).
  bool is_static() const;
  // Some unbounded dim (recursively).
  bool is_unbounded_dynamic() const;

  bool has_layout() const { return layout_.has_value(); }
  // Requires has_layout().
  const Layout& layout() const { return *layout_; }
  Shape WithLayout(Layout layout) const;
  Shape WithoutLayout() const;
  Shape WithElementType(PrimitiveType type) const;

  // Tuple elements; a buffer's single inner array.
  absl::Span<const Shape> tuple_shapes() const { return elements_; }
  const Shape& tuple_shapes(size_t i) const { return elements_[i]; }
  // Requires IsBuffer().
  const Shape& buffer_shape() const { return elements_[0]; }
  // The shape whose array facts apply: a buffer's inner array, otherwise the shape itself
  // (callers check IsArray() on the result when the shape may be a tuple, token or opaque).
  const Shape& array_shape() const { return IsBuffer() ? buffer_shape() : *this; }

  // The HLO text form (text.cc). With print_layout, array layouts are printed except a
  // scalar's empty layout; tuples are joined by ", " with /*index=N*/ before elements
  // 5, 10, ...
  std::string ToString(bool print_layout = true) const;

  friend bool operator==(const Shape&, const Shape&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Shape& s) {
    h = H::combine(std::move(h), s.kind_, s.element_type_, s.dims_, s.dynamic_,
                   s.layout_.has_value());
    if (s.layout_) h = H::combine(std::move(h), *s.layout_);
    for (const Shape& e : s.elements_) h = H::combine(std::move(h), e);
    return H::combine(std::move(h), s.elements_.size());
  }
  friend std::ostream& operator<<(std::ostream& os, const Shape& s) { return os << s.ToString(); }

 private:
  ShapeKind kind_ = ShapeKind::kTuple;
  PrimitiveType element_type_ = PrimitiveType::kTuple;
  std::vector<int64_t> dims_;
  std::vector<bool> dynamic_;
  std::optional<Layout> layout_;
  std::vector<Shape> elements_;
};

}  // namespace axe::xla

#endif  // AXE_XLA_SHAPE_H_
