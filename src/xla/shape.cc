#include "axe/xla/shape.h"

#include <algorithm>

namespace axe::xla {

Shape Shape::Array(PrimitiveType type, std::vector<int64_t> dims, std::vector<bool> dynamic,
                   std::optional<Layout> layout) {
  Shape s;
  s.kind_ = ShapeKind::kArray;
  s.element_type_ = type;
  if (dynamic.empty()) dynamic.assign(dims.size(), false);
  s.dims_ = std::move(dims);
  s.dynamic_ = std::move(dynamic);
  s.layout_ = std::move(layout);
  return s;
}

Shape Shape::Tuple(std::vector<Shape> elements) {
  Shape s;
  s.elements_ = std::move(elements);
  return s;
}

Shape Shape::Token() {
  Shape s;
  s.kind_ = ShapeKind::kToken;
  s.element_type_ = PrimitiveType::kToken;
  return s;
}

Shape Shape::Opaque() {
  Shape s;
  s.kind_ = ShapeKind::kOpaque;
  s.element_type_ = PrimitiveType::kOpaque;
  return s;
}

Shape Shape::Buffer(Shape array) {
  Shape s;
  s.kind_ = ShapeKind::kBuffer;
  s.element_type_ = PrimitiveType::kBuffer;
  s.elements_.push_back(std::move(array));
  return s;
}

bool Shape::is_static() const {
  if (std::find(dynamic_.begin(), dynamic_.end(), true) != dynamic_.end()) return false;
  return std::all_of(elements_.begin(), elements_.end(),
                     [](const Shape& e) { return e.is_static(); });
}

bool Shape::is_unbounded_dynamic() const {
  for (size_t i = 0; i < dims_.size(); ++i) {
    if (is_unbounded_dynamic_dimension(i)) return true;
  }
  return std::any_of(elements_.begin(), elements_.end(),
                     [](const Shape& e) { return e.is_unbounded_dynamic(); });
}

Shape Shape::WithLayout(Layout layout) const {
  Shape s = *this;
  s.layout_ = std::move(layout);
  return s;
}

Shape Shape::WithoutLayout() const {
  Shape s = *this;
  s.layout_.reset();
  return s;
}

Shape Shape::WithElementType(PrimitiveType type) const {
  Shape s = *this;
  s.element_type_ = type;
  return s;
}

}  // namespace axe::xla
