#include "axe/xla/layout_util.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/xla/equal.h"
#include "axe/xla/tiling.h"
#include "axe/xla/validate.h"
#include "checks.h"

namespace axe::xla {
namespace {

absl::StatusOr<size_t> PositionOf(const Layout& layout, int64_t dimension, absl::string_view op) {
  absl::Span<const int64_t> m2m = layout.minor_to_major();
  auto it = std::find(m2m.begin(), m2m.end(), dimension);
  if (it == m2m.end()) {
    return absl::InvalidArgumentError(absl::StrCat(
        op, ": dimension ", dimension, " is not in the minor_to_major of ", layout.ToString()));
  }
  return static_cast<size_t>(it - m2m.begin());
}

}  // namespace

Layout LayoutUtil::MakeLayout(std::vector<int64_t> minor_to_major, std::vector<Tile> tiles,
                              int64_t tail_padding_alignment_in_elements,
                              PrimitiveType index_primitive_type,
                              PrimitiveType pointer_primitive_type, int64_t element_size_in_bits,
                              int64_t memory_space, std::vector<SplitConfig> split_configs,
                              std::optional<Shape> physical_shape,
                              int64_t dynamic_shape_metadata_prefix_bytes) {
  Layout l = Layout(std::move(minor_to_major), std::move(tiles))
                 .WithTailPaddingAlignmentInElements(tail_padding_alignment_in_elements)
                 .WithIndexPrimitiveType(index_primitive_type)
                 .WithPointerPrimitiveType(pointer_primitive_type)
                 .WithElementSizeInBits(element_size_in_bits)
                 .WithMemorySpace(memory_space)
                 .WithSplitConfigs(std::move(split_configs))
                 .WithDynamicShapeMetadataPrefixBytes(dynamic_shape_metadata_prefix_bytes);
  if (physical_shape) l = l.WithPhysicalShape(*std::move(physical_shape));
  return l;
}

Layout LayoutUtil::MakeLayoutFromMajorToMinor(absl::Span<const int64_t> major_to_minor) {
  return Layout(std::vector<int64_t>(major_to_minor.rbegin(), major_to_minor.rend()));
}

Layout LayoutUtil::MakeDescendingLayout(int64_t rank) {
  std::vector<int64_t> m2m;
  for (int64_t i = rank - 1; i >= 0; --i) m2m.push_back(i);
  return Layout(std::move(m2m));
}

Layout LayoutUtil::MakeAscendingLayout(int64_t rank) {
  std::vector<int64_t> m2m;
  for (int64_t i = 0; i < rank; ++i) m2m.push_back(i);
  return Layout(std::move(m2m));
}

bool LayoutUtil::HasDescendingLayout(const Layout& layout) {
  absl::Span<const int64_t> m = layout.minor_to_major();
  for (size_t i = 1; i < m.size(); ++i) {
    if (m[i] >= m[i - 1]) return false;
  }
  return true;
}

bool LayoutUtil::HasAscendingLayout(const Layout& layout) {
  absl::Span<const int64_t> m = layout.minor_to_major();
  for (size_t i = 1; i < m.size(); ++i) {
    if (m[i] <= m[i - 1]) return false;
  }
  return true;
}

int64_t LayoutUtil::Major(const Layout& layout, int64_t physical) {
  const int64_t rank = static_cast<int64_t>(layout.minor_to_major().size());
  AXE_CHECK(physical >= 0 && physical < rank)
      << "Major: physical dim " << physical << " of rank " << rank;
  return layout.minor_to_major(static_cast<size_t>(rank - 1 - physical));
}

int64_t LayoutUtil::Minor(const Layout& layout, int64_t physical) {
  const int64_t rank = static_cast<int64_t>(layout.minor_to_major().size());
  AXE_CHECK(physical >= 0 && physical < rank)
      << "Minor: physical dim " << physical << " of rank " << rank;
  return layout.minor_to_major(static_cast<size_t>(physical));
}

std::vector<int64_t> LayoutUtil::MakeLogicalToPhysical(const Layout& layout) {
  const int64_t rank = static_cast<int64_t>(layout.minor_to_major().size());
  std::vector<int64_t> r(static_cast<size_t>(rank));
  for (int64_t p = 0; p < rank; ++p) {
    const int64_t d = Major(layout, p);
    AXE_CHECK(d >= 0 && d < rank) << "MakeLogicalToPhysical: " << layout.ToString()
                                  << " is not a permutation";
    r[static_cast<size_t>(d)] = p;
  }
  return r;
}

absl::StatusOr<Layout> LayoutUtil::MoveDimToMajor(const Layout& layout, int64_t dimension) {
  AXE_ASSIGN_OR_RETURN(size_t pos, PositionOf(layout, dimension, "MoveDimToMajor"));
  std::vector<int64_t> m2m(layout.minor_to_major().begin(), layout.minor_to_major().end());
  m2m.erase(m2m.begin() + static_cast<std::ptrdiff_t>(pos));
  m2m.push_back(dimension);
  return layout.WithMinorToMajor(std::move(m2m));
}

absl::StatusOr<Layout> LayoutUtil::MoveDimToMinor(const Layout& layout, int64_t dimension) {
  AXE_ASSIGN_OR_RETURN(size_t pos, PositionOf(layout, dimension, "MoveDimToMinor"));
  std::vector<int64_t> m2m(layout.minor_to_major().begin(), layout.minor_to_major().end());
  m2m.erase(m2m.begin() + static_cast<std::ptrdiff_t>(pos));
  m2m.insert(m2m.begin(), dimension);
  return layout.WithMinorToMajor(std::move(m2m));
}

absl::StatusOr<Layout> LayoutUtil::DeleteDimension(const Layout& layout, int64_t dimension) {
  AXE_ASSIGN_OR_RETURN(size_t pos, PositionOf(layout, dimension, "DeleteDimension"));
  const int64_t rank = static_cast<int64_t>(layout.minor_to_major().size());
  const int64_t physical = rank - 1 - static_cast<int64_t>(pos);
  std::vector<int64_t> m2m;
  for (int64_t d : layout.minor_to_major()) {
    if (d != dimension) m2m.push_back(d > dimension ? d - 1 : d);
  }
  std::vector<SplitConfig> splits;
  for (const SplitConfig& c : layout.split_configs()) {
    if (c.dimension() == physical) continue;
    const int64_t p = c.dimension() > physical ? c.dimension() - 1 : c.dimension();
    splits.emplace_back(p,
                        std::vector<int64_t>(c.split_indices().begin(), c.split_indices().end()));
  }
  return layout.WithMinorToMajor(std::move(m2m)).WithSplitConfigs(std::move(splits));
}

bool LayoutUtil::AreDimensionsConsecutive(const Layout& layout, absl::Span<const int64_t> dims) {
  std::vector<int64_t> positions;
  for (int64_t d : dims) {
    absl::StatusOr<size_t> pos = PositionOf(layout, d, "");
    if (!pos.ok()) return false;
    positions.push_back(static_cast<int64_t>(*pos));
  }
  std::sort(positions.begin(), positions.end());
  for (size_t i = 1; i < positions.size(); ++i) {
    if (positions[i] != positions[i - 1] + 1) return false;
  }
  return true;
}

bool LayoutUtil::IsUntiledLayout(absl::Span<const Tile> tiles,
                                 absl::Span<const int64_t> physical_dims) {
  std::vector<int64_t> cur(physical_dims.begin(), physical_dims.end());
  for (const Tile& tile : tiles) {
    if (tile.rank() == 0) return false;
    if (tile.rank() > cur.size()) cur.insert(cur.begin(), tile.rank() - cur.size(), 1);
    const size_t prefix = cur.size() - tile.rank();
    std::vector<int64_t> outer(cur.begin(), cur.begin() + static_cast<std::ptrdiff_t>(prefix));
    std::vector<int64_t> inner;
    bool seen_non_unit = false;
    int64_t folded = 1;
    for (size_t i = 0; i < tile.rank(); ++i) {
      std::optional<int64_t> f = CheckedMul(folded, cur[prefix + i]);
      if (!f) return false;
      folded = *f;
      const int64_t b = tile.dimension(i);
      if (b == Tile::kCombineDimension) continue;
      if (b <= 0 || folded % b != 0) return false;
      if (seen_non_unit && b != folded) return false;
      if (b != 1) seen_non_unit = true;
      outer.push_back(folded / b);
      inner.push_back(b);
      folded = 1;
    }
    if (tile.dimension(tile.rank() - 1) == Tile::kCombineDimension) return false;
    outer.insert(outer.end(), inner.begin(), inner.end());
    cur = std::move(outer);
  }
  return true;
}

bool LayoutUtil::ByteStridesIsMajorToMinor(absl::Span<const int64_t> byte_strides,
                                           absl::Span<const int64_t> dims, PrimitiveType type) {
  if (byte_strides.size() != dims.size()) return false;
  if (dims.empty()) return true;
  if (byte_strides.back() != ByteWidth(type)) return false;
  for (size_t i = dims.size() - 1; i-- > 0;) {
    std::optional<int64_t> expected = CheckedMul(byte_strides[i + 1], dims[i + 1]);
    if (!expected || byte_strides[i] != *expected) return false;
  }
  return true;
}

absl::StatusOr<int64_t> LayoutUtil::MaxSplitSize(const Shape& shape, int64_t dimension) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "MaxSplitSize"));
  if (dimension < 0 || dimension >= shape.rank()) {
    return absl::InvalidArgumentError(
        absl::StrCat("MaxSplitSize: dimension ", dimension, " is outside ", shape.ToString()));
  }
  const int64_t size = shape.dimensions(static_cast<size_t>(dimension));
  for (const SplitConfig& c : shape.layout().split_configs()) {
    if (Major(shape.layout(), c.dimension()) != dimension) continue;
    int64_t largest = 0, start = 0;
    for (int64_t i : c.split_indices()) {
      largest = std::max(largest, i - start);
      start = i;
    }
    return std::max(largest, size - start);
  }
  return size;
}

absl::StatusOr<int64_t> LayoutUtil::MaxElementsInPerSplit(const Shape& shape) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "MaxElementsInPerSplit"));
  const std::vector<int64_t> sizes = internal::MaxSplitSizes(shape);  // one pass, not per dim
  for (int64_t s : sizes) {
    if (s == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;  // each piece is at most its dim; validation bounds Π dims
  return n;
}

absl::StatusOr<int64_t> LayoutUtil::LinearIndex(const Shape& shape,
                                                absl::Span<const int64_t> index) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "LinearIndex"));
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(shape, index, "LinearIndex"));
  if (shape.rank() == 0) return 0;
  if (shape.rank() == 1) return index[0];
  AXE_ASSIGN_OR_RETURN(TilingMap m, TilingMap::Create(shape, /*max_levels=*/1));
  return m.LinearIndex(index);
}

absl::StatusOr<Shape> LayoutUtil::CopyLayoutBetweenShapes(const Shape& src, const Shape& dst) {
  auto fail = [&](absl::string_view why) {
    return absl::InvalidArgumentError(absl::StrCat("cannot copy layout from shape ", src.ToString(),
                                                   " to shape ", dst.ToString(), ": ", why));
  };
  if (src.kind() != dst.kind()) return fail("the kinds differ");
  switch (src.kind()) {
    case ShapeKind::kToken:
    case ShapeKind::kOpaque: return dst;
    case ShapeKind::kTuple:
    case ShapeKind::kBuffer: {
      if (src.tuple_shapes().size() != dst.tuple_shapes().size())
        return fail("the tuple sizes differ");
      std::vector<Shape> elements;
      for (size_t i = 0; i < src.tuple_shapes().size(); ++i) {
        AXE_ASSIGN_OR_RETURN(Shape e,
                             CopyLayoutBetweenShapes(src.tuple_shapes(i), dst.tuple_shapes(i)));
        elements.push_back(std::move(e));
      }
      return src.IsTuple() ? Shape::Tuple(std::move(elements))
                           : Shape::Buffer(std::move(elements[0]));
    }
    case ShapeKind::kArray: break;
  }
  if (src.rank() != dst.rank()) return fail("the ranks differ");
  if (!src.has_layout()) return dst.WithoutLayout();
  if (absl::Status st = ValidateLayoutForShape(src.layout(), dst); !st.ok())
    return fail(st.message());
  return dst.WithLayout(src.layout());
}

bool LayoutUtil::LayoutsInShapesEqual(const Shape& a, const Shape& b) {
  if (a.kind() != b.kind()) return false;
  if (!a.IsArray()) {
    if (a.tuple_shapes().size() != b.tuple_shapes().size()) return false;
    for (size_t i = 0; i < a.tuple_shapes().size(); ++i) {
      if (!LayoutsInShapesEqual(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.rank() != b.rank() || a.has_layout() != b.has_layout()) return false;
  return !a.has_layout() || XlaEqual(a.layout(), b.layout());
}

namespace {

template <typename P>
bool AllArrays(const Shape& shape, const P& p) {
  if (shape.IsArray()) return p(shape);
  for (const Shape& e : shape.tuple_shapes()) {
    if (!AllArrays(e, p)) return false;
  }
  return true;
}

}  // namespace

Shape LayoutUtil::ClearLayout(const Shape& shape) {
  return *internal::MapArrays(shape, [](const Shape& s) { return s.WithoutLayout(); });
}

Shape LayoutUtil::ClearTiles(const Shape& shape) {
  return *internal::MapArrays(shape, [](const Shape& s) {
    return s.has_layout() ? s.WithLayout(s.layout().WithTiles({})) : s;
  });
}

Shape LayoutUtil::SetToDefaultLayout(const Shape& shape) {
  return *internal::MapArrays(
      shape, [](const Shape& s) { return s.WithLayout(MakeDescendingLayout(s.rank())); });
}

bool LayoutUtil::HasLayout(const Shape& shape) {
  return AllArrays(shape, [](const Shape& s) { return s.has_layout(); });
}

bool LayoutUtil::HasCustomElementSizeInBits(const Shape& shape) {
  return !AllArrays(shape, [](const Shape& s) {
    return !s.has_layout() || s.layout().element_size_in_bits() == 0;
  });
}

}  // namespace axe::xla
