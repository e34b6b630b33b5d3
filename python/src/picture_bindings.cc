// axe._axe.picture: the SVG pictures of the picture module (include/axe/picture) and their
// TikZ form, for the notebook displays of python/axe/_display.py.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/array.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include "axe/layout/layout.h"
#include "axe/picture/layout_picture.h"
#include "axe/picture/sharding_picture.h"
#include "axe/picture/tikz.h"
#include "axe/picture/xla_picture.h"
#include "axe/sharding/explain.h"
#include "axe/sharding/mesh.h"
#include "axe/xla/shape.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

std::string LayoutPicture(const Layout& layout, std::optional<std::array<int64_t, 2>> shape,
                          std::optional<std::string> color_by,
                          std::optional<std::array<int64_t, 4>> zoom, int64_t max_rows,
                          int64_t max_cols, std::optional<std::array<int64_t, 4>> physical_zoom) {
  picture::LayoutPictureOptions options{.shape = shape, .max_rows = max_rows, .max_cols = max_cols};
  if (color_by) {
    for (Axis a : layout.axes()) {
      if (a.name() == *color_by) options.colour_axis = a;
    }
    if (!options.colour_axis) {
      throw nb::value_error(("color_by: the layout " + layout.ToString() +
                             " does not use the axis '" + *color_by + "'")
                                .c_str());
    }
  }
  if (zoom) options.zoom = picture::GridZoom{(*zoom)[0], (*zoom)[1], (*zoom)[2], (*zoom)[3]};
  if (physical_zoom) {
    const std::array<int64_t, 4>& z = *physical_zoom;
    options.physical_zoom = picture::GridZoom{z[0], z[1], z[2], z[3]};
  }
  return Unwrap(picture::LayoutSvg(layout, options));
}

}  // namespace

void BindPicture(nb::module_& m) {
  m.def("layout_svg", &LayoutPicture, nb::arg("layout"), nb::arg("shape").none() = nb::none(),
        nb::arg("color_by").none() = nb::none(), nb::arg("zoom").none() = nb::none(),
        nb::arg("max_rows") = 32, nb::arg("max_cols") = 32,
        nb::arg("physical_zoom").none() = nb::none(),
        "The picture of `axe layout show --svg`; zoom: (row0, row1, col0, col1), half-open; "
        "physical_zoom: the same over the physical view's row and column axis values.");
  m.def(
      "xla_svg", [](const xla::Shape& shape) { return Unwrap(picture::TiledArraySvg(shape)); },
      nb::arg("shape"), "The picture of `axe xla explain --svg`.");
  m.def(
      "sharding_svg",
      [](const sharding::ShardingExplanation& e, std::optional<sharding::Mesh> mesh,
         const std::vector<std::string>& notes) { return picture::ShardingSvg(e, mesh, notes); },
      nb::arg("explanation"), nb::arg("mesh").none() = nb::none(),
      nb::arg("notes") = std::vector<std::string>{}, "The picture of `axe shard explain --svg`.");
  m.def(
      "to_latex", [](const std::string& svg) { return Unwrap(picture::SvgToTikz(svg)); },
      nb::arg("svg"), "A picture's SVG as a standalone LaTeX (TikZ) document.");
}

}  // namespace axe::python
