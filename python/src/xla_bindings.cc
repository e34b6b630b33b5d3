// axe.xla.Shape: XLA shapes with layouts (include/axe/xla): parse, print, sizes, index math
// and the Axe form of an array's memory layout.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "absl/hash/hash.h"
#include "axe/base/dtype.h"
#include "axe/xla/index_util.h"
#include "axe/xla/shape.h"
#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using xla::Shape;

nb::tuple Dimensions(const Shape& shape) {
  return nb::tuple(
      nb::cast(std::vector<int64_t>(shape.dimensions().begin(), shape.dimensions().end())));
}

nb::object MinorToMajor(const Shape& shape) {
  if (!shape.IsArray() || !shape.has_layout()) return nb::none();
  auto m2m = shape.layout().minor_to_major();
  return nb::tuple(nb::cast(std::vector<int64_t>(m2m.begin(), m2m.end())));
}

void RequireArray(const Shape& shape, const char* what) {
  if (!shape.IsArray()) {
    throw nb::value_error(
        (std::string(what) + " needs an array shape, not " + shape.ToString()).c_str());
  }
}

}  // namespace

void BindXla(nb::module_& m) {
  nb::class_<xla::AxeForm>(m, "AxeForm",
                           "The Axe layout of an array's memory over its (padded) domain.")
      .def_prop_ro("layout", [](const xla::AxeForm& f) { return f.layout; })
      .def_prop_ro("domain", [](const xla::AxeForm& f) { return f.domain; })
      .def_prop_ro("dimensions", [](const xla::AxeForm& f) { return f.real_dims; })
      .def_prop_ro("padded", &xla::AxeForm::padded)
      .def("__repr__", [](const xla::AxeForm& f) {
        std::string domain;
        for (int64_t d : f.domain) domain += (domain.empty() ? "" : ", ") + std::to_string(d);
        return "AxeForm(layout=Layout('" + f.layout.ToString() + "'), domain=(" + domain + "))";
      });

  nb::class_<Shape>(m, "Shape", "An XLA shape, e.g. Shape('f32[8,128]{0,1:T(8,128)}').")
      .def(
          "__init__",
          [](Shape* self, const std::string& text) {
            new (self) Shape(Unwrap(xla::ParseShape(text)));
          },
          nb::arg("text"))
      .def_static(
          "parse", [](const std::string& text) { return Unwrap(xla::ParseShape(text)); },
          nb::arg("text"))
      .def("__str__", [](const Shape& s) { return s.ToString(); })
      .def("__repr__", [](const Shape& s) { return "Shape('" + s.ToString() + "')"; })
      .def("to_string", &Shape::ToString, nb::arg("print_layout") = true)
      .def("__eq__", [](const Shape& a, const Shape& b) { return a == b; })
      .def("__eq__", [](const Shape&, nb::handle) { return false; })
      .def("__hash__", [](const Shape& s) { return absl::HashOf(s); })
      .def_prop_ro("dimensions", &Dimensions)
      .def_prop_ro("rank", &Shape::rank)
      .def_prop_ro("element_type",
                   [](const Shape& s) { return std::string(XlaName(s.element_type())); })
      .def_prop_ro(
          "dtype", [](const Shape& s) { return std::string(NumpyName(s.element_type())); },
          "The NumPy name of the element type.")
      .def_prop_ro("minor_to_major", &MinorToMajor)
      .def("is_array", &Shape::IsArray)
      .def("is_tuple", &Shape::IsTuple)
      .def_prop_ro("tuple_shapes",
                   [](const Shape& s) {
                     return std::vector<Shape>(s.tuple_shapes().begin(), s.tuple_shapes().end());
                   })
      .def(
          "elements", [](const Shape& s) { return Unwrap(xla::ElementsIn(s)); },
          "The number of elements (XLA's ShapeUtil::ElementsIn).")
      .def(
          "byte_size", [](const Shape& s) { return Unwrap(xla::ByteSizeOf(s)); },
          "ShapeUtil::ByteSizeOf: elements x element bytes (ignores tiles).")
      .def(
          "array_size", [](const Shape& s) { return Unwrap(xla::ArraySize(s)); },
          "XLA's ShapeUtil::ArraySize in bytes (tiling padding included).")
      .def(
          "linear_index",
          [](const Shape& s, const std::vector<int64_t>& index) {
            RequireArray(s, "linear_index");
            return Unwrap(xla::IndexUtil::MultidimensionalIndexToLinearIndex(s, index));
          },
          nb::arg("index"),
          "XLA's IndexUtil::MultidimensionalIndexToLinearIndex: the offset in minor_to_major "
          "order, ignoring tiles as XLA's function does (offset() applies them).")
      .def(
          "offset",
          [](const Shape& s, const std::vector<int64_t>& index) {
            RequireArray(s, "offset");
            return Unwrap(xla::NestedLinearIndex(s, index));
          },
          nb::arg("index"),
          "The element offset of `index` in the buffer XLA stores, every tile level applied "
          "(what `axe xla explain --index` prints).")
      .def(
          "index_at",
          [](const Shape& s, int64_t offset) -> nb::object {
            RequireArray(s, "index_at");
            xla::DelinearizedIndex at = Unwrap(xla::NestedDelinearize(s, offset));
            if (at.padding) return nb::none();
            return nb::tuple(nb::cast(at.index));
          },
          nb::arg("offset"),
          "The index stored at an element offset of the tiled buffer, or None for padding "
          "(the inverse of offset()).")
      .def(
          "multi_index",
          [](const Shape& s, int64_t linear) {
            RequireArray(s, "multi_index");
            return nb::tuple(
                nb::cast(Unwrap(xla::IndexUtil::LinearIndexToMultidimensionalIndex(s, linear))));
          },
          nb::arg("linear"), "IndexUtil::LinearIndexToMultidimensionalIndex.")
      .def(
          "to_axe", [](const Shape& s) { return Unwrap(xla::ToAxe(s)); },
          "The Axe form of the array's memory layout (tiles, padding).");
}

}  // namespace axe::python
