// axe.Layout: the Axe layout L = (D, R, O) (include/axe/layout/layout.h) and its algebra.
// Physical coordinates cross the boundary as dicts {axis name: value}.
#include <cstdint>
#include <string>
#include <vector>

#include <nanobind/nanobind.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/variant.h>
#include <nanobind/stl/vector.h>

#include "absl/hash/hash.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/coord.h"
#include "axe/layout/group.h"
#include "axe/layout/inverse.h"
#include "axe/layout/layout.h"
#include "axe/layout/slice.h"
#include "axe/layout/tile.h"
#include "bindings.h"
#include "status.h"

namespace nb = nanobind;

namespace axe::python {
namespace {

using Index = std::variant<int64_t, std::vector<int64_t>>;

nb::dict CoordToDict(const PhysCoord& coord) {
  nb::dict out;
  for (const auto& [axis, value] : coord.entries()) {
    out[nb::str(std::string(axis.name()).c_str())] = value;
  }
  return out;
}

// A dict {axis: value} or the text "warp=6,lane=8".
PhysCoord CoordFromPython(const nb::handle& point) {
  if (nb::isinstance<nb::str>(point)) return Unwrap(PhysCoord::Parse(nb::cast<std::string>(point)));
  if (!nb::isinstance<nb::dict>(point)) {
    throw nb::type_error("a physical point is a dict {axis name: int} or a text 'a=1,b=2'");
  }
  std::string text;
  for (auto [key, value] : nb::cast<nb::dict>(point)) {
    if (!nb::isinstance<nb::str>(key)) throw nb::type_error("axis names are str");
    std::string axis = nb::cast<std::string>(key);
    absl::StrAppend(&text, text.empty() ? "" : ",", axis, "=",
                    ToInt64(value, "the value of axis '" + axis + "'"));
  }
  return Unwrap(PhysCoord::Parse(text));
}

// The flat logical index of `index` (an int, or a coordinate of `shape`).
int64_t FlatIndex(const Layout& layout, const Index& index,
                  const std::optional<std::vector<int64_t>>& shape) {
  if (const int64_t* flat = std::get_if<int64_t>(&index)) return *flat;
  const auto& coord = std::get<std::vector<int64_t>>(index);
  if (!shape) throw nb::value_error("a coordinate index needs the logical shape (shape=...)");
  ThrowIfError(CheckShapeAdmitted(layout, *shape));
  return Unwrap(FlattenCoord(*shape, coord));
}

nb::list Apply(const Layout& layout, const Index& index,
               const std::optional<std::vector<int64_t>>& shape) {
  nb::list out;
  for (const PhysCoord& p : Unwrap(axe::Apply(layout, FlatIndex(layout, index, shape)))) {
    out.append(CoordToDict(p));
  }
  return out;
}

nb::list Inverse(const Layout& layout, const nb::handle& point,
                 const std::optional<std::vector<int64_t>>& shape) {
  PhysCoord p = CoordFromPython(point);
  nb::list out;
  if (!shape) {
    for (int64_t flat : Unwrap(InverseFlat(layout, p))) out.append(flat);
    return out;
  }
  for (const std::vector<int64_t>& coord : Unwrap(axe::Inverse(layout, *shape, p))) {
    out.append(nb::tuple(nb::cast(coord)));
  }
  return out;
}

// A region: a sequence of (start, stop) pairs, or the text "0:8,8:24".
std::vector<Interval> RegionFromPython(const nb::handle& region) {
  if (nb::isinstance<nb::str>(region)) return Unwrap(ParseBox(nb::cast<std::string>(region)));
  std::vector<Interval> out;
  for (const auto& [begin, end] : nb::cast<std::vector<std::pair<int64_t, int64_t>>>(region)) {
    out.push_back(Interval{begin, end});
  }
  return out;
}

Layout Slice(const Layout& layout, const std::vector<int64_t>& shape, const nb::handle& region) {
  MaybeLayout result = Unwrap(axe::Slice(layout, shape, RegionFromPython(region)));
  if (!result) throw nb::value_error(("no layout for this slice: " + result.reason).c_str());
  return *result;
}

nb::tuple Group(const Layout& layout, const std::vector<int64_t>& shape) {
  Grouped grouped = Unwrap(axe::Group(layout, shape));
  return nb::make_tuple(grouped.layout, nb::tuple(nb::cast(grouped.seps)));
}

std::vector<std::string> AxisNames(const Layout& layout) {
  std::vector<std::string> names;
  for (Axis a : layout.axes()) names.emplace_back(a.name());
  return names;
}

// The span on the axis of `layout` named `name`; ValueError naming the axis when the layout
// has no such axis.
int64_t Span(const Layout& layout, const std::string& name) {
  for (Axis a : layout.axes()) {
    if (a.name() == name) return layout.span(a);
  }
  if (!Axis::IsValidName(name)) throw nb::value_error(("invalid axis name '" + name + "'").c_str());
  throw nb::value_error(
      ("the layout has no axis '" + name + "'; its axes: " + absl::StrJoin(AxisNames(layout), ", "))
          .c_str());
}

}  // namespace

void BindLayout(nb::module_& m) {
  nb::class_<Layout>(m, "Layout", "An Axe layout L = (D, R, O) (docs/notation.md).")
      .def(
          "__init__",
          [](Layout* self, const std::string& text) {
            new (self) Layout(Unwrap(Layout::Parse(text)));
          },
          nb::arg("text"), "Parses the text form, e.g. Layout('S[(8,8):(1,8)]').")
      .def_static(
          "parse", [](const std::string& text) { return Unwrap(Layout::Parse(text)); },
          nb::arg("text"))
      .def_static(
          "row_major",
          [](const std::vector<int64_t>& extents) { return Unwrap(Layout::RowMajor(extents)); },
          nb::arg("extents"), "The compact row-major layout of `extents` on memory.")
      .def("__str__", &Layout::ToString)
      .def("__repr__", [](const Layout& l) { return "Layout('" + l.ToString() + "')"; })
      .def("__eq__", [](const Layout& a, const Layout& b) { return a == b; })
      .def("__eq__", [](const Layout&, nb::handle) { return false; })
      .def("__hash__", [](const Layout& l) { return absl::HashOf(l); })
      .def_prop_ro(
          "size", [](const Layout& l) { return l.size(); }, "E_D: the logical points.")
      .def_prop_ro("replica_size", &Layout::replica_size)
      .def_prop_ro("axes", &AxisNames, "The axes used, in print order.")
      .def("span", &Span, nb::arg("axis"), "The offset-free span on the axis named `axis`.")
      .def("apply", &Apply, nb::arg("index"), nb::arg("shape").none() = nb::none(),
           "The physical points of a logical index (flat int, or a coordinate of `shape`).")
      .def("inverse", &Inverse, nb::arg("point"), nb::arg("shape").none() = nb::none(),
           "The logical points mapping to a physical point (flat indices, or coordinates of "
           "`shape`).")
      .def("canonicalize", [](const Layout& l) { return Canonicalize(l); })
      .def(
          "equivalent", [](const Layout& a, const Layout& b) { return Unwrap(Equivalent(a, b)); },
          nb::arg("other"), "True iff both induce the same map.")
      .def("group", &Group, nb::arg("shape"), "(refined layout, block separators) for `shape`.")
      .def("slice", &Slice, nb::arg("shape"), nb::arg("region"),
           "The layout of the box `region` ((start, stop) per dimension, or '0:8,8:24').");

  m.def(
      "tile",
      [](const Layout& outer, const std::vector<int64_t>& outer_shape, const Layout& inner,
         const std::vector<int64_t>& inner_shape) {
        return Unwrap(Tile(outer, outer_shape, inner, inner_shape));
      },
      nb::arg("outer"), nb::arg("outer_shape"), nb::arg("inner"), nb::arg("inner_shape"),
      "The Kronecker product outer (x) inner (canonical).");
  m.def(
      "tile_to",
      [](const Layout& layout, const std::vector<int64_t>& to_shape,
         const std::vector<int64_t>& cur_shape) {
        return Unwrap(TileTo(layout, to_shape, cur_shape));
      },
      nb::arg("layout"), nb::arg("to_shape"), nb::arg("cur_shape"));
}

}  // namespace axe::python
