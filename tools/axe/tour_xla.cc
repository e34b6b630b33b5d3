// The XLA part of `axe tour`: shapes from HLO dumps, tiled layouts, sizes, memory spaces and
// their exact Axe form. Everything shown is computed by the library.
#include <iomanip>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/xla/layout_util.h"
#include "axe/xla/memory_space.h"
#include "axe/xla/sizes.h"
#include "axe/xla/text.h"
#include "axe/xla/tiling.h"
#include "axe/xla/to_axe.h"
#include "tour.h"

namespace axe::cli {
namespace tour_xla {
namespace {

using xla::Shape;

std::string PhysicalOrder(const Shape& s) {
  std::vector<std::string> parts;
  for (int64_t p = 0; p < s.rank(); ++p) {
    const int64_t d = xla::LayoutUtil::Major(s.layout(), p);
    parts.push_back(absl::StrCat("dim ", d, " (", s.dimensions(static_cast<size_t>(d)), ")"));
  }
  return absl::StrJoin(parts, ", ");
}

absl::Status PrintTiling(const xla::TilingMap& m, std::ostream& os) {
  for (size_t k = 0; k < m.levels().size(); ++k) {
    const xla::TilingLevel& l = m.levels()[k];
    os << "  level " << k + 1 << ": " << l.tile << " covers the minor dims "
       << FormatTuple(l.covered) << ": " << FormatTuple(l.counts) << " tiles of "
       << FormatTuple(l.bounds) << "\n";
  }
  os << "  expanded shape " << FormatTuple(m.expanded_shape()) << "\n";
  return absl::OkStatus();
}

// A self-check of the tour: a mismatch fails the command instead of printing a wrong claim.
absl::Status Expect(bool holds, absl::string_view what) {
  if (holds) return absl::OkStatus();
  return absl::InternalError(absl::StrCat("tour self-check failed: ", what));
}

absl::Status Reading(std::ostream& os) {
  const char* text = "bf16[8,1,1280,16384]{3,2,0,1:T(8,128)(2,1)}";
  AXE_ASSIGN_OR_RETURN(Shape s, xla::ParseShape(text));
  AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(s));
  os << "A shape from an HLO dump:\n\n  " << text << "\n\n"
     << "bf16 elements, dims (8,1,1280,16384). The layout {3,2,0,1} is minor_to_major: the\n"
        "FASTEST dim comes first. Read backwards, the physical order from the most major is\n  "
     << PhysicalOrder(s) << "\n"
     << "(JAX's major_to_minor lists the same order the other way round.) T(8,128)(2,1) tiles\n"
        "the physical dims level by level; each level tiles a suffix of the previous "
        "expansion:\n\n";
  AXE_RETURN_IF_ERROR(PrintTiling(m, os));
  os << "\nThe first level cuts (1280,16384) into 8x128 tiles; the second splits each tile's 8 "
        "rows\n"
        "into 4 pairs and interleaves the pair (the TPU packing of two 16-bit values per\n"
        "32-bit word). The buffer is the final expansion, row-major.\n";
  const std::vector<int64_t> idx = {3, 0, 17, 200};
  AXE_ASSIGN_OR_RETURN(int64_t off, m.LinearIndex(idx));
  AXE_ASSIGN_OR_RETURN(std::vector<xla::LevelPosition> where, m.Locate(idx));
  os << "\nElement " << FormatTuple(idx) << " is at element offset " << off << " (byte "
     << off * xla::ByteWidth(s.element_type()) << "): level-1 tile "
     << FormatTuple(where[0].tile_index) << ", position " << FormatTuple(where[0].within)
     << " inside it.\n";
  AXE_ASSIGN_OR_RETURN(xla::DelinearizedIndex back, m.Delinearize(off));
  AXE_RETURN_IF_ERROR(
      Expect(!back.padding && back.index == idx, "Delinearize(LinearIndex(i)) == i"));
  os << "The inverse maps offset " << off << " back to " << FormatTuple(back.index) << ".\n";
  AXE_ASSIGN_OR_RETURN(xla::AxeForm f, xla::ToAxe(s));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> domain_index, f.DomainIndex(idx));
  AXE_ASSIGN_OR_RETURN(PhysCoord p, ApplyBase(f.layout, f.domain, domain_index));
  AXE_ASSIGN_OR_RETURN(PhysCoord expected, PhysCoord::Parse(absl::StrCat("m=", off)));
  AXE_RETURN_IF_ERROR(Expect(p == expected, "the Axe form gives the tiled offset"));
  os << "\nIts exact Axe form (memory axis m, offsets in elements):\n\n  " << f.layout << "  over "
     << FormatTuple(f.domain) << "\n\n"
     << "Axe apply of " << FormatTuple(idx) << " gives " << p
     << ", the same offset: the Axe layout IS\n"
        "the tiled layout, so the Axe algebra (canonical forms, inverses, relayouts) applies to "
        "it.\n";
  return absl::OkStatus();
}

absl::Status Figures(std::ostream& os) {
  for (const char* text : {"f32[3,5]{1,0:T(2,2)}", "f32[4,8]{1,0:T(2,4)(2,1)}"}) {
    AXE_ASSIGN_OR_RETURN(Shape s, xla::ParseShape(text));
    AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(s));
    os << text << ": the offset of each element (rows = dim 0)\n";
    for (int64_t i = 0; i < s.dimensions(0); ++i) {
      os << "  ";
      for (int64_t j = 0; j < s.dimensions(1); ++j) {
        AXE_ASSIGN_OR_RETURN(int64_t off, m.LinearIndex({i, j}));
        os << std::setw(4) << off;
      }
      os << "\n";
    }
    AXE_ASSIGN_OR_RETURN(xla::AxeForm f, xla::ToAxe(s));
    os << "  Axe form " << f.layout << " over " << FormatTuple(f.domain);
    if (f.padded()) os << " (the 3x5 array is padded to whole 2x2 tiles)";
    os << "\n\n";
  }
  AXE_ASSIGN_OR_RETURN(Shape fig1, xla::ParseShape("f32[3,5]{1,0:T(2,2)}"));
  AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(fig1));
  AXE_ASSIGN_OR_RETURN(xla::DelinearizedIndex pad, m.Delinearize(9));
  os << "Offset 9 of the first holds " << (pad.padding ? "padding" : FormatTuple(pad.index))
     << " (row 3 of the padded 4x6 box).\n";
  return absl::OkStatus();
}

absl::Status Sizes(std::ostream& os) {
  os << "Four numbers that people confuse:\n\n"
     << "  shape                            ElementsIn ByteSizeOf ArraySize NestedPadded\n";
  for (const char* text :
       {"f32[3,5]{1,0:T(2,2)}", "f32[8,128]{1,0:T(8,128)(3,1)}", "f32[5]{0:L(8)}",
        "f32[5]{0:T(1)L(8)}", "s4[123,456]{1,0:T(2,128)E(4)}"}) {
    AXE_ASSIGN_OR_RETURN(Shape s, xla::ParseShape(text));
    AXE_ASSIGN_OR_RETURN(int64_t n, xla::ElementsIn(s));
    AXE_ASSIGN_OR_RETURN(int64_t b, xla::ByteSizeOf(s));
    AXE_ASSIGN_OR_RETURN(int64_t a, xla::ArraySize(s));
    AXE_ASSIGN_OR_RETURN(int64_t p, xla::NestedPaddedElements(s));
    os << "  " << std::left << std::setw(32) << text << std::right << std::setw(11) << n
       << std::setw(11) << b << std::setw(10) << a << std::setw(13) << p << "\n";
  }
  os << "\nElementsIn counts elements; ByteSizeOf (bytes) ignores tiles; ArraySize (bytes) is "
        "XLA's\n"
        "allocation, padded by the FIRST tile level and L only, and without tiles it is "
        "ByteSizeOf\n"
        "(XLA ignores L there: compare the third and fourth rows); NestedPadded (elements) counts\n"
        "the buffer after every level: the second shape's (3,1) sub-tile pads 8 rows to 9 per "
        "tile,\n"
        "which ArraySize does not see.\n";
  return absl::OkStatus();
}

absl::Status MemorySpaces(std::ostream& os) {
  const char* text = "bf16[32,32,4096]{2,1,0:T(8,128)(2,1)S(1)}";
  AXE_ASSIGN_OR_RETURN(Shape s, xla::ParseShape(text));
  AXE_ASSIGN_OR_RETURN(xla::AxeForm f, xla::ToAxe(s));
  AXE_ASSIGN_OR_RETURN(int64_t a, xla::ArraySize(s));
  const int64_t space = s.layout().memory_space();
  os << text << "\n\n"
     << "S(" << space << ") is the memory space: " << xla::MemorySpaceDescription(space) << ".\n"
     << "It is part of layout equality but changes no offset and no size: ArraySize " << a
     << " bytes,\n"
     << "Axe form " << f.layout << " over " << FormatTuple(f.domain) << ".\n";
  AXE_ASSIGN_OR_RETURN(xla::TilingMap m, xla::TilingMap::Create(s));
  os << "The (2,1) level packs rows in pairs: offsets";
  for (std::vector<int64_t> idx :
       {std::vector<int64_t>{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 2, 0}}) {
    AXE_ASSIGN_OR_RETURN(int64_t off, m.LinearIndex(idx));
    os << " " << FormatTuple(idx) << "->" << off;
  }
  os << ":\nrows 0 and 1 of a column share one 32-bit word.\n\nThe spaces:\n";
  for (int64_t n : {0, 1, 5, 6, 3}) {
    os << "  S(" << n << ")  " << std::left << std::setw(16) << xla::MemorySpaceName(n)
       << std::right << xla::MemorySpaceDescription(n) << "\n";
  }
  os << "\nTry: axe xla explain '" << text << "' --index 1,9,300\n"
     << "     axe xla offset 'f32[3,5]{1,0:T(2,2)}' --linear 9\n";
  return absl::OkStatus();
}

absl::Status Back(std::ostream& os) {
  AXE_ASSIGN_OR_RETURN(Layout l, Layout::Parse("S[(2,2,2,4):(16,1,8,2)]"));
  AXE_ASSIGN_OR_RETURN(xla::Layout x, xla::FromAxe(l, {4, 8}));
  AXE_ASSIGN_OR_RETURN(xla::AxeForm round_trip,
                       xla::ToAxe(Shape::Array(xla::PrimitiveType::kF32, {4, 8}, {}, x)));
  AXE_ASSIGN_OR_RETURN(bool same, Equivalent(round_trip.layout, l));
  AXE_RETURN_IF_ERROR(Expect(same, "ToAxe(FromAxe(layout)) is the layout"));
  os << "from_axe goes back: the Axe layout " << l
     << " over (4,8) is realised by the XLA layout\n  " << x
     << "\n(tried in order: untiled, one tile level, one level plus (q,1); the answer is verified\n"
        "with to_axe, so a returned layout is always exact). A layout with replicas, or one that "
        "no\n"
        "tiling produces, is reported as not expressible with the reason.\n";
  return absl::OkStatus();
}

std::vector<TourSection> XlaTour() {
  return {
      {"xla", "XLA shapes: minor_to_major, tiles, and the exact Axe form", Reading},
      {"xla", "Tiling, the two figures of the XLA docs", Figures},
      {"xla", "Four sizes: ElementsIn, ByteSizeOf, ArraySize, nested padded", Sizes},
      {"xla", "Memory spaces and TPU packing", MemorySpaces},
      {"xla", "From an Axe layout back to an XLA layout", Back},
  };
}

AXE_TOUR_PART(20, XlaTour);

}  // namespace
}  // namespace tour_xla
}  // namespace axe::cli
