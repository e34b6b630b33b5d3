// axe xla explain|offset|check: XLA shapes and layouts as people paste them from HLO dumps.
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/xla/memory_space.h"
#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "axe/xla/validate.h"
#include "cli.h"

namespace axe::cli {
namespace {

using xla::Shape;

struct ShapeArgs {
  std::string shape;
  bool lenient = false;
};

void AddShapeArgs(CLI::App* cmd, ShapeArgs& args) {
  cmd->add_option("shape", args.shape, "An XLA shape in HLO text, e.g. 'bf16[16,256]{1,0:T(8,128)(2,1)}'")
      ->required();
  cmd->add_flag("--lenient", args.lenient,
                "Check a standalone array only for its minor_to_major length, as XLA's parser does");
}

absl::StatusOr<Shape> ParseShapeArgs(const ShapeArgs& args) {
  absl::StatusOr<Shape> s = xla::ParseShape(args.shape, {.lenient = args.lenient});
  if (!s.ok()) return absl::InvalidArgumentError(absl::StrCat("shape: ", s.status().message()));
  return s;
}

// The array a leaf describes (a buffer's array), or null for token/opaque.
const Shape* ArrayOf(const Shape& leaf) {
  if (leaf.IsBuffer()) return &leaf.buffer_shape();
  return leaf.IsArray() ? &leaf : nullptr;
}

template <typename T>
Json OrNull(const absl::StatusOr<T>& v) {
  return v.ok() ? Json(*v) : Json(nullptr);
}

// "<value><suffix>", or "n/a (<why>)".
std::string Describe(const absl::StatusOr<int64_t>& v, absl::string_view suffix = "") {
  return v.ok() ? absl::StrCat(*v, suffix) : absl::StrCat("n/a (", v.status().message(), ")");
}

std::string DimText(const Shape& a, size_t d) {
  if (a.is_unbounded_dynamic_dimension(d)) return "?";
  return absl::StrCat(a.is_dynamic_dimension(d) ? "<=" : "", a.dimensions(d));
}

// "dim 1 (size 1), dim 0 (size 8), ...; dim 3 varies fastest".
std::string PhysicalOrderInWords(const Shape& a) {
  if (a.rank() == 0) return "a scalar: one element";
  std::vector<std::string> parts;
  absl::Span<const int64_t> m2m = a.layout().minor_to_major();
  for (size_t p = m2m.size(); p-- > 0;) {
    const int64_t d = m2m[p];
    parts.push_back(absl::StrCat("dim ", d, " (size ", DimText(a, static_cast<size_t>(d)), ")"));
  }
  return absl::StrCat("major to minor: ", absl::StrJoin(parts, ", "), "; dim ", m2m[0],
                      " varies fastest (minor_to_major {", absl::StrJoin(m2m, ","), "} lists the fastest dim first)");
}

std::vector<int64_t> MajorToMinor(const Shape& a) {
  absl::Span<const int64_t> m2m = a.layout().minor_to_major();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

struct LeafFacts {
  absl::StatusOr<int64_t> elements, byte_size, array_size, padded;
  absl::StatusOr<xla::AxeForm> axe;
};

LeafFacts Facts(const Shape& leaf) {
  const Shape& a = *ArrayOf(leaf);
  LeafFacts f{xla::ElementsIn(a), xla::ByteSizeOf(a), xla::ArraySize(a), xla::NestedPaddedElements(a), xla::ToAxe(a)};
  return f;
}

// The stable fields in order; `linear_index` (with --index) follows axe_domain, then extras.
Json LeafJson(const Shape& leaf, std::optional<int64_t> linear = std::nullopt) {
  const Shape* a = ArrayOf(leaf);
  Json j = {{"shape", leaf.ToString()}};
  if (a == nullptr) {
    j["element_type"] = std::string(xla::PrimitiveTypeName(leaf.element_type()));
    for (const char* k : {"bit_width", "elements_in"}) j[k] = nullptr;
    j["byte_size_of"] = leaf.IsToken() ? Json(0) : Json(nullptr);
    for (const char* k : {"array_size_bytes", "padded_elements", "memory_space", "memory_space_name", "axe",
                          "axe_domain"}) {
      j[k] = nullptr;
    }
    return j;
  }
  LeafFacts f = Facts(leaf);
  const int64_t space = a->has_layout() ? a->layout().memory_space() : 0;
  j["element_type"] = std::string(xla::PrimitiveTypeName(a->element_type()));
  j["bit_width"] = xla::BitWidth(a->element_type());
  j["elements_in"] = OrNull(f.elements);
  j["byte_size_of"] = OrNull(f.byte_size);
  j["array_size_bytes"] = OrNull(f.array_size);
  j["padded_elements"] = OrNull(f.padded);
  j["memory_space"] = space;
  j["memory_space_name"] = std::string(xla::MemorySpaceName(space));
  j["axe"] = f.axe.ok() ? Json(f.axe->layout.ToString()) : Json(nullptr);
  j["axe_domain"] = f.axe.ok() ? Json(f.axe->domain) : Json(nullptr);
  if (linear) j["linear_index"] = *linear;
  if (!f.axe.ok()) j["axe_error"] = std::string(f.axe.status().message());
  if (a->has_layout() && xla::ValidateShape(*a).ok()) j["major_to_minor"] = MajorToMinor(*a);
  return j;
}

Json ShapeJson(const Shape& s) {
  if (!s.IsTuple()) return LeafJson(s);
  Json elements = Json::array();
  for (const Shape& e : s.tuple_shapes()) elements.push_back(ShapeJson(e));
  return {{"shape", s.ToString()}, {"tuple", elements}};
}

void PrintLeaf(const Shape& leaf, std::ostream& os) {
  const Shape* a = ArrayOf(leaf);
  if (a == nullptr) {
    os << "shape           " << leaf.ToString() << "\n"
       << "kind            " << xla::PrimitiveTypeName(leaf.element_type())
       << (leaf.IsToken() ? " (an ordering token: no data, 0 bytes)\n" : " (an opaque handle: one pointer)\n");
    return;
  }
  LeafFacts f = Facts(leaf);
  const int64_t space = a->has_layout() ? a->layout().memory_space() : 0;
  const std::string unit = xla::ByteWidth(a->element_type()) == 1 ? "byte" : "bytes";
  os << "shape           " << leaf.ToString() << "\n"
     << "element type    " << xla::PrimitiveTypeName(a->element_type()) << ": "
     << xla::PrimitiveTypeKind(a->element_type()) << ", " << xla::BitWidth(a->element_type()) << " bits ("
     << xla::ByteWidth(a->element_type()) << " " << unit << " per element unless E(n) packs it)\n";
  if (absl::Status valid = xla::ValidateShape(*a); !valid.ok()) {
    os << "invalid         " << valid.message() << "\n";
  } else if (a->has_layout()) {
    os << "physical order  " << PhysicalOrderInWords(*a) << "\n";
    const xla::Layout& l = a->layout();
    if (!l.tiles().empty()) {
      absl::StatusOr<xla::TilingMap> m = xla::TilingMap::Create(*a);
      if (m.ok()) {
        for (size_t k = 0; k < m->levels().size(); ++k) {
          const xla::TilingLevel& lv = m->levels()[k];
          os << (k == 0 ? "tiling          " : "                ") << "level " << k + 1 << ": " << lv.tile.ToString()
             << " tiles " << FormatTuple(lv.folded) << " of " << FormatTuple(lv.input) << " -> "
             << FormatTuple(lv.output) << "\n";
        }
      }
    }
  }
  os << "memory space    " << space << ": " << xla::MemorySpaceDescription(space) << "\n"
     << "elements_in     " << Describe(f.elements) << "\n"
     << "byte_size_of    " << Describe(f.byte_size, " bytes (elements x element size; ignores tiles, L, M, S)") << "\n"
     << "array_size      " << Describe(f.array_size, " bytes (XLA's allocation: first tile level and L padding)")
     << "\n"
     << "padded_elements " << Describe(f.padded, " (the buffer after every tile level and L)") << "\n";
  if (f.axe.ok()) {
    os << "axe             " << f.axe->layout.ToString() << " over " << FormatTuple(f.axe->domain);
    if (f.axe->padded()) os << " (padded domain; the real box is " << FormatTuple(f.axe->real_dims) << ")";
    os << "\n";
  } else {
    os << "axe             " << f.axe.status().message() << "\n";
  }
}

// One line per leaf, prefixed by its tuple index.
void PrintTupleLines(const Shape& s, const std::string& index, std::ostream& os) {
  if (s.IsTuple()) {
    if (s.tuple_shapes().empty()) os << "{" << index << "} () (an empty tuple)\n";
    for (size_t i = 0; i < s.tuple_shapes().size(); ++i) {
      PrintTupleLines(s.tuple_shapes(i), index.empty() ? absl::StrCat(i) : absl::StrCat(index, ",", i), os);
    }
    return;
  }
  os << "{" << index << "} " << s.ToString();
  const Shape* a = ArrayOf(s);
  if (a == nullptr) {
    os << ": " << xla::PrimitiveTypeName(s.element_type()) << "\n";
    return;
  }
  LeafFacts f = Facts(s);
  const int64_t space = a->has_layout() ? a->layout().memory_space() : 0;
  os << ": " << Describe(f.elements) << " elements, byte_size_of " << Describe(f.byte_size) << ", array_size "
     << Describe(f.array_size) << ", padded_elements " << Describe(f.padded) << ", memory space " << space << " ("
     << xla::MemorySpaceName(space) << "), axe "
     << (f.axe.ok() ? absl::StrCat(f.axe->layout.ToString(), " over ", FormatTuple(f.axe->domain))
                  : "n/a (not expressible)") << "\n";
}

void AddExplain(CLI::App& group, Selected& selected) {
  struct Args : ShapeArgs {
    std::string index;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "explain", "Element type, sizes, memory space, physical order, tiling and the Axe form of a shape");
  AddShapeArgs(cmd, *args);
  CLI::Option* index = cmd->add_option("--index", args->index, "A logical index, e.g. 2,3: its offset and tile");
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, index, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Shape s, ParseShapeArgs(*args));
    const Shape* a = ArrayOf(s);
    std::vector<int64_t> idx;
    int64_t linear = 0;
    std::vector<xla::LevelPosition> where;
    if (index->count() > 0) {
      if (a == nullptr) return absl::InvalidArgumentError("--index needs an array shape, got " + s.ToString());
      AXE_ASSIGN_OR_RETURN(idx, ParseIntListOption(args->index, "--index"));
      AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(*a));
      absl::StatusOr<int64_t> lin = m.LinearIndex(idx);
      if (!lin.ok()) return absl::InvalidArgumentError(absl::StrCat("--index: ", lin.status().message()));
      linear = *lin;
      AXE_ASSIGN_OR_RETURN(where, m.Locate(idx));
    }
    if (selected.json) {
      Json j = index->count() > 0 ? LeafJson(s, linear) : ShapeJson(s);
      if (index->count() > 0) {
        Json levels = Json::array();
        for (const xla::LevelPosition& p : where) levels.push_back({{"tile_index", p.tile_index}, {"within", p.within}});
        j["tile_position"] = levels;
      }
      PrintJson(j);
      return absl::OkStatus();
    }
    if (s.IsTuple()) {
      std::cout << "tuple           " << s.ToString() << "\n";
      PrintTupleLines(s, "", std::cout);
      return absl::OkStatus();
    }
    PrintLeaf(s, std::cout);
    if (index->count() > 0) {
      std::cout << "index           " << FormatTuple(idx) << " -> linear offset " << linear << " (elements";
      if (a->layout().element_size_in_bits() == 0) {
        std::cout << "; byte " << linear * xla::ByteWidth(a->element_type());
      }
      std::cout << ")\n";
      for (size_t k = 0; k < where.size(); ++k) {
        std::cout << "                level " << k + 1 << ": tile " << FormatTuple(where[k].tile_index)
                  << ", position " << FormatTuple(where[k].within) << " inside it\n";
      }
    }
    return absl::OkStatus();
  });
}

void AddOffset(CLI::App& group, Selected& selected) {
  struct Args : ShapeArgs {
    int64_t linear = 0;
  };
  auto args = std::make_shared<Args>();
  CLI::App* cmd = group.add_subcommand(
      "offset", "The logical index stored at a linear offset (in elements) of the tiled buffer, or padding");
  AddShapeArgs(cmd, *args);
  cmd->add_option("--linear", args->linear, "Offset in elements, in [0, padded_elements)")->required();
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Shape s, ParseShapeArgs(*args));
    const Shape* a = ArrayOf(s);
    if (a == nullptr) return absl::InvalidArgumentError("offset needs an array shape, got " + s.ToString());
    AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(*a));
    absl::StatusOr<xla::DelinearizedIndex> r = m.Delinearize(args->linear);
    if (!r.ok()) return absl::InvalidArgumentError(absl::StrCat("--linear: ", r.status().message()));
    if (selected.json) {
      PrintJson(r->padding ? Json{{"index", nullptr}, {"padding", true}} : Json{{"index", r->index}});
    } else {
      std::cout << (r->padding ? std::string("padding") : FormatTuple(r->index)) << "\n";
    }
    return absl::OkStatus();
  });
}

void AddCheck(CLI::App& group, Selected& selected) {
  auto args = std::make_shared<ShapeArgs>();
  CLI::App* cmd = group.add_subcommand("check", "Validate a shape: prints ok, or the error (exit code 2)");
  AddShapeArgs(cmd, *args);
  AddJsonFlag(cmd, selected);
  OnSelect(cmd, selected, [args, &selected]() -> absl::Status {
    AXE_ASSIGN_OR_RETURN(Shape s, ParseShapeArgs(*args));
    if (selected.json) {
      PrintJson({{"ok", true}, {"shape", s.ToString()}});
    } else {
      std::cout << "ok\n";
    }
    return absl::OkStatus();
  });
}

void AddXlaCommands(CLI::App& app, Selected& selected) {
  CLI::App* group = app.add_subcommand("xla", "XLA shapes and layouts: explain, offset, check");
  group->require_subcommand(1);
  AddExplain(*group, selected);
  AddOffset(*group, selected);
  AddCheck(*group, selected);
}

AXE_CLI_COMMAND_GROUP(20, AddXlaCommands);

}  // namespace
}  // namespace axe::cli
