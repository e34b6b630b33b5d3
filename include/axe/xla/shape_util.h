// XLA's ShapeUtil: building shapes, permuting and inserting/deleting dims, deciding whether
// a reshape or transpose is a bitcast (no data movement), and byte strides.
//
// Permutation conventions (permutation.h): ComposePermutations(p1, p2)[i] = p1[p2[i]],
// InversePermutation(p)[p[i]] = i. The bitcast decisions use untiled index math (XLA
// backends with tiles override them through their own callbacks).
//
//   ShapeUtil::PermuteDimensions({1, 2, 0}, *ParseShape("f32[10,100,1000]{2,1,0}"));
//   // f32[100,1000,10]{1,0,2}: the transpose is a bitcast
#ifndef AXE_XLA_SHAPE_UTIL_H_
#define AXE_XLA_SHAPE_UTIL_H_

#include <cstdint>
#include <optional>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/xla/layout.h"
#include "axe/xla/shape.h"

namespace axe::xla {

class ShapeUtil {
 public:
  // An array with the default descending layout, validated.
  static absl::StatusOr<Shape> MakeShape(PrimitiveType type, absl::Span<const int64_t> dims);
  static absl::StatusOr<Shape> MakeShapeWithDescendingLayout(PrimitiveType type,
                                                             absl::Span<const int64_t> dims);
  // Validated; an element size equal to the type's natural width (E(32) for f32) becomes 0.
  static absl::StatusOr<Shape> MakeShapeWithDenseLayout(
      PrimitiveType type, absl::Span<const int64_t> dims, absl::Span<const int64_t> minor_to_major,
      std::vector<Tile> tiles = {}, int64_t tail_padding_alignment_in_elements = 1,
      int64_t element_size_in_bits = 0, int64_t memory_space = 0,
      std::vector<SplitConfig> split_configs = {});

  // Dims of size > 1.
  static int64_t TrueNumDimensions(const Shape& shape);

  // new.dims[i] = dims[P[i]] (dynamic flags too), new.m2m[i] = InversePermutation(P)[m2m[i]]:
  // the physical layout is unchanged, so the transpose is a bitcast. Errors: not an array,
  // P not a permutation of the rank.
  static absl::StatusOr<Shape> PermuteDimensions(absl::Span<const int64_t> permutation,
                                                 const Shape& shape);
  // The same dims, the layout left as it is.
  static absl::StatusOr<Shape> PermuteDimensionsIgnoringLayout(
      absl::Span<const int64_t> permutation, const Shape& shape);
  // The same mapping as PermuteDimensions.
  static absl::StatusOr<Shape> ReorderLogicalDimensions(const Shape& shape,
                                                        absl::Span<const int64_t> permutation);

  // Output dim i is input dim mapping[i]: a bitcast iff the element types match (unless
  // ignored) and mapping[out.m2m[i]] == in.m2m[i] for all i (tiles ignored).
  static absl::StatusOr<bool> TransposeIsBitcast(const Shape& input, const Shape& output,
                                                 absl::Span<const int64_t> dimension_mapping,
                                                 bool ignore_element_type = false);
  // perm = ComposePermutations(in.m2m, InversePermutation(out.m2m)) when out.dims[i] ==
  // in.dims[perm[i]] for all i; nullopt otherwise (or when the ranks differ).
  static absl::StatusOr<std::optional<std::vector<int64_t>>> DeduceTransposeDimensionsForBitcast(
      const Shape& input, const Shape& output);
  // Same element type (unless ignored) and count; every unit index of either side keeps its
  // physical position under the row-major logical correspondence.
  static absl::StatusOr<bool> ReshapeIsBitcast(const Shape& input, const Shape& output,
                                               bool ignore_element_type = false);
  static absl::StatusOr<bool> IsReshapeOrTransposeBitcast(const Shape& a, const Shape& b,
                                                          bool ignore_element_type = false);

  struct BitcastReshape {
    friend bool operator==(const BitcastReshape&, const BitcastReshape&) = default;
  };
  struct BitcastTranspose {
    std::vector<int64_t> transpose_dims;
    friend bool operator==(const BitcastTranspose&, const BitcastTranspose&) = default;
  };
  // transpose(t1) -> reshape -> transpose(t2).
  struct BitcastTrt {
    std::vector<int64_t> transpose1_dims;  // Major(in.layout, i)
    Shape transpose1_shape;                // in's dims in physical order, descending layout
    Shape reshape_shape;                   // out's dims in physical order, descending layout
    std::vector<int64_t> transpose2_dims;  // InversePermutation(Major(out.layout, i))
    friend bool operator==(const BitcastTrt&, const BitcastTrt&) = default;
  };
  using BitcastDecomposition = std::variant<BitcastReshape, BitcastTranspose, BitcastTrt>;
  // Reshape if ReshapeIsBitcast, else Transpose if a transpose is deducible, else TRT.
  // Error: the element counts differ.
  static absl::StatusOr<BitcastDecomposition> DecomposeBitcast(const Shape& input,
                                                               const Shape& output);

  // The layout for `output`'s dims that makes reshape(input) a bitcast, or nullopt.
  static absl::StatusOr<std::optional<Shape>> AlignLayouts(const Shape& input, const Shape& output);

  // Deletes every size-1 dim; minor_to_major keeps the others in order, renumbered.
  static absl::StatusOr<Shape> DropDegenerateDimensions(const Shape& shape);
  // Deletes the given dims (order irrelevant), as LayoutUtil::DeleteDimension does.
  static absl::StatusOr<Shape> DeleteDimensions(absl::Span<const int64_t> dims, const Shape& shape);
  // Dims in physical (major -> minor) order with a descending layout; keeps tiles, E, L, S;
  // permutes the dynamic flags.
  static absl::StatusOr<Shape> MakeShapeWithDescendingLayoutAndSamePhysicalLayout(
      const Shape& shape);
  // dims [b] + dims, m2m = [m+1 for m in m2m] + [0] (the rest of the layout dropped, as XLA).
  static absl::StatusOr<Shape> PrependMajorDimension(int64_t bound, const Shape& shape);
  // dims + [b], m2m = [rank] + m2m (other layout fields kept, as XLA).
  static absl::StatusOr<Shape> AppendMinorDimension(int64_t bound, const Shape& shape);
  // Inserts dims at logical position `index`; existing m2m entries >= index shift up; the new
  // dims become the most major, in decreasing index order.
  static absl::StatusOr<Shape> InsertDimensionAtIndex(const Shape& shape, int64_t index,
                                                      int64_t bound);
  static absl::StatusOr<Shape> InsertDimensionsAtIndex(const Shape& shape, int64_t index,
                                                       absl::Span<const int64_t> bounds);
  // Arrays (recursively): a plain layout (minor_to_major only; tiles, E, S dropped) with dim d
  // moved to the most major position; a missing layout counts as the default one. Unlike
  // LayoutUtil::MoveDimToMajor, which keeps the other fields.
  static absl::StatusOr<Shape> MoveDimToMajor(const Shape& shape, int64_t dimension);
  // Every dim more major than d in the layout has size 1.
  static absl::StatusOr<bool> IsEffectivelyMostMajorDimension(const Shape& shape,
                                                              int64_t dimension);

  // Arrays (recursively): a sub-byte non-pred type keeps E = BitWidth if E was set; any other
  // type clears E.
  static absl::StatusOr<Shape> ChangeElementType(const Shape& shape, PrimitiveType type);
  // E = BitWidth for sub-byte non-pred types when `pack`, else 0.
  static absl::StatusOr<Shape> UpdateElementSizeInBits(const Shape& shape, bool pack);
  // E if set, else 8 × ByteWidth.
  static absl::StatusOr<int64_t> ElementSizeInBits(const Shape& shape);
  // Per logical dim, the byte stride with ByteWidth-byte elements (E ignored); tiles ignored.
  static absl::StatusOr<std::vector<int64_t>> UnpackedByteStrides(const Shape& shape);
  // The same with ElementSizeInBits; nullopt when that is not a multiple of 8.
  static absl::StatusOr<std::optional<std::vector<int64_t>>> ByteStrides(const Shape& shape);

  // No tiles, S = 0, no physical shape, E = 0, L = 1, M = 0 anywhere (recursively).
  static bool DeviceShapeIsHostShape(const Shape& shape);
  // Clears those fields.
  static Shape DeviceShapeToHostShape(const Shape& shape);
};

}  // namespace axe::xla

#endif  // AXE_XLA_SHAPE_UTIL_H_
