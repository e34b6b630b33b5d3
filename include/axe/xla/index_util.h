// XLA's IndexUtil: multi-index <-> linear index under minor_to_major, IGNORING tiles (the
// tiled map is tiling.h's NestedLinearIndex). Bounded dynamic dims count as their bound;
// unbounded dims are an error.
//
//   Shape s = *ParseShape("f32[10,20,30]{1,2,0}");
//   IndexUtil::MultidimensionalIndexToLinearIndex(s, {3, 5, 7});   // 5 + 20·(7 + 30·3) = 1945
#ifndef AXE_XLA_INDEX_UTIL_H_
#define AXE_XLA_INDEX_UTIL_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/xla/shape.h"

namespace axe::xla {

class IndexUtil {
 public:
  // With L = minor_to_major: idx[L0] + D[L0]·(idx[L1] + D[L1]·(idx[L2] + ...)); 0 for rank 0.
  // Errors: not a valid array with a layout, wrong rank, an index out of bounds (naming the
  // dimension).
  static absl::StatusOr<int64_t> MultidimensionalIndexToLinearIndex(
      const Shape& shape, absl::Span<const int64_t> index);

  // The inverse: for dims in minor_to_major order, idx[d] = (linear / divisor) mod D[d].
  // Errors: as above, or linear outside [0, ElementsIn).
  static absl::StatusOr<std::vector<int64_t>> LinearIndexToMultidimensionalIndex(const Shape& shape,
                                                                                 int64_t linear);

  // Odometer step in LOGICAL order (last dim fastest, whatever the layout). Returns false
  // and leaves `indices` unchanged at the last index. Errors: wrong rank or out of bounds.
  static absl::StatusOr<bool> BumpIndices(const Shape& shape, absl::Span<int64_t> indices);

  // Elements between consecutive indices of `dimension`: the product of the sizes of the
  // dims before it in minor_to_major.
  static absl::StatusOr<int64_t> GetDimensionStride(const Shape& shape, int64_t dimension);

  // Same rank and 0 <= index[d] < dims[d] for all d (XLA omits the >= 0 part).
  static bool IndexInBounds(const Shape& shape, absl::Span<const int64_t> index);

  // Lexicographic from dim 0: -1 if lhs < rhs, +1 if lhs > rhs, 0 if equal (XLA's code; its
  // header comment has the sign reversed). A proper prefix compares less.
  static int CompareIndices(absl::Span<const int64_t> lhs, absl::Span<const int64_t> rhs);
};

}  // namespace axe::xla

#endif  // AXE_XLA_INDEX_UTIL_H_
