// XLA's LayoutUtil: building, inspecting and rewriting layouts.
//
// Conventions: minor_to_major lists the FASTEST-varying dim first; Major(l, p) is the
// logical dim at physical position p counted from the most major (p = 0), Minor(l, p) from
// the most minor. For 2-D, {1,0} is row-major (dim 0 major).
//
//   LayoutUtil::MakeLayoutFromMajorToMinor({0, 1, 2});   // {2,1,0}
//   LayoutUtil::MoveDimToMajor(Layout({2, 1, 0}), 1);     // {2,0,1}
#ifndef AXE_XLA_LAYOUT_UTIL_H_
#define AXE_XLA_LAYOUT_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

class LayoutUtil {
 public:
  static Layout MakeLayout(std::vector<int64_t> minor_to_major, std::vector<Tile> tiles = {},
                           int64_t tail_padding_alignment_in_elements = 1,
                           PrimitiveType index_primitive_type = PrimitiveType::kInvalid,
                           PrimitiveType pointer_primitive_type = PrimitiveType::kInvalid,
                           int64_t element_size_in_bits = 0, int64_t memory_space = 0,
                           std::vector<SplitConfig> split_configs = {},
                           std::optional<Shape> physical_shape = std::nullopt,
                           int64_t dynamic_shape_metadata_prefix_bytes = 0);
  // minor_to_major = reversed(major_to_minor).
  static Layout MakeLayoutFromMajorToMinor(absl::Span<const int64_t> major_to_minor);
  // {n-1, ..., 0}: the default (row-major); {} for n = 0.
  static Layout MakeDescendingLayout(int64_t rank);
  // {0, ..., n-1}.
  static Layout MakeAscendingLayout(int64_t rank);

  // minor_to_major strictly decreasing (vacuous for rank <= 1); tiles ignored.
  static bool HasDescendingLayout(const Layout& layout);
  static bool IsMonotonicWithDim0Major(const Layout& layout) { return HasDescendingLayout(layout); }
  // minor_to_major strictly increasing.
  static bool HasAscendingLayout(const Layout& layout);
  static bool IsMonotonicWithDim0Minor(const Layout& layout) { return HasAscendingLayout(layout); }

  // Requires 0 <= p < rank: minor_to_major[rank-1-p] and minor_to_major[p].
  static int64_t Major(const Layout& layout, int64_t physical);
  static int64_t Minor(const Layout& layout, int64_t physical);
  // r with r[Major(l, p)] = p. Requires a permutation minor_to_major.
  static std::vector<int64_t> MakeLogicalToPhysical(const Layout& layout);

  // Moves dim d to the most major (minor) position; other fields kept. Error: d not in
  // minor_to_major.
  static absl::StatusOr<Layout> MoveDimToMajor(const Layout& layout, int64_t dimension);
  static absl::StatusOr<Layout> MoveDimToMinor(const Layout& layout, int64_t dimension);
  // Removes logical dim d: renumbers the higher dims, drops the split config on d's physical
  // dim and renumbers later physical dims. Tiles are kept. Error: d not in minor_to_major.
  static absl::StatusOr<Layout> DeleteDimension(const Layout& layout, int64_t dimension);

  // The positions of `dims` in minor_to_major, sorted, form one contiguous run (false when a
  // dim is not in minor_to_major).
  static bool AreDimensionsConsecutive(const Layout& layout, absl::Span<const int64_t> dims);

  // True iff the tiled linearisation of `physical_dims` (major -> minor) equals the untiled
  // one: at every level (on the expanded shape, `*` dims folded) every bound divides its dim,
  // and once a bound != 1 has been seen (scanning major -> minor) every further bound equals
  // its dim.
  static bool IsUntiledLayout(absl::Span<const Tile> tiles,
                              absl::Span<const int64_t> physical_dims);

  // True iff the byte strides are those of a dense row-major array of `type`.
  static bool ByteStridesIsMajorToMinor(absl::Span<const int64_t> byte_strides,
                                        absl::Span<const int64_t> dims, PrimitiveType type);

  // The size of the largest piece of logical dim d under its split config (the dim size
  // without one). Errors: not a valid array with a layout, d out of range.
  static absl::StatusOr<int64_t> MaxSplitSize(const Shape& shape, int64_t dimension);
  // Π MaxSplitSize over all dims.
  static absl::StatusOr<int64_t> MaxElementsInPerSplit(const Shape& shape);

  // XLA's top-level-only LinearIndex: rank 0 -> 0; rank 1 -> index[0] (tiles ignored);
  // otherwise only the FIRST tile level is applied (the full map is NestedLinearIndex).
  static absl::StatusOr<int64_t> LinearIndex(const Shape& shape, absl::Span<const int64_t> index);

  // `dst` with the layouts of `src` (recursively; the tuple structure and ranks must match).
  // Errors contain "cannot copy layout from shape".
  static absl::StatusOr<Shape> CopyLayoutBetweenShapes(const Shape& src, const Shape& dst);
  // Layouts equal in structure (element types ignored); token/opaque are trivially equal.
  static bool LayoutsInShapesEqual(const Shape& a, const Shape& b);
  static Shape ClearLayout(const Shape& shape);  // recursive
  static Shape ClearTiles(const Shape& shape);   // recursive
  // Every array gets the default descending layout (scalars {}), recursively.
  static Shape SetToDefaultLayout(const Shape& shape);
  // Arrays: has_layout; tuples and buffers: every leaf; token/opaque: true.
  static bool HasLayout(const Shape& shape);
  // Some array leaf has E != 0.
  static bool HasCustomElementSizeInBits(const Shape& shape);
};

}  // namespace axe::xla

#endif  // AXE_XLA_LAYOUT_UTIL_H_
