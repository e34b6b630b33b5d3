// Tiling (the paper's Kronecker product A ⊗ B) and tile_to.
//
// T = tile(A, S_A, B, S_B): A is the outer (inter-tile) layout on shape S_A, B the inner
// (intra-tile) layout on S_B, rank(S_A) == rank(S_B) = r. T's domain is the interleaved
// shape (S_A[0], S_B[0], ..., S_A[r-1], S_B[r-1]); its natural logical shape is
// (S_A[j] * S_B[j])_j, coordinate_j = x_j * S_B[j] + y_j. As sets of points,
//
//   T(x, y) = Σ ⊙ A(x) + B(y),    Σ[a] = span_a(B) (offset-free, over B's D and R; 1 if unused)
//
// where ⊙ scales per axis: A's shard strides, replica strides and offset are all scaled
// (the paper's semantics; TVM scales only A's shard strides and includes O in the span).
// The result is canonicalized.
//
//   Tile(S[(8,8):(8,1)], {8, 8}, S[(2,3):(3,1)], {2, 3})   // S[(8,2,8,3):(48,3,6,1)]
#ifndef AXE_LAYOUT_TILE_H_
#define AXE_LAYOUT_TILE_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"

namespace axe {

// Errors (InvalidArgument): the shapes have different ranks; a shape is not admitted by its
// layout or does not group it ("cannot form shape entry j"); a scaled stride or offset
// overflows int64. Messages say whether the outer or the inner layout is at fault.
absl::StatusOr<Layout> Tile(const Layout& outer, absl::Span<const int64_t> outer_shape,
                            const Layout& inner, absl::Span<const int64_t> inner_shape);

// The natural logical shape of a tile: (outer_shape[j] * inner_shape[j])_j (same rank
// required; InvalidArgument otherwise or on overflow).
absl::StatusOr<std::vector<int64_t>> TiledShape(absl::Span<const int64_t> outer_shape,
                                                absl::Span<const int64_t> inner_shape);

// Tiles `layout` (the inner layout, on cur_shape) by the compact row-major outer layout
// S[(to/cur)] on m, so that the result covers to_shape. Errors: ranks differ, or some
// cur_shape[j] does not divide to_shape[j].
//
//   TileTo(S[(2,3):(3,1)], {16, 24}, {2, 3})   // S[(8,2,8,3):(48,3,6,1)]
absl::StatusOr<Layout> TileTo(const Layout& layout, absl::Span<const int64_t> to_shape,
                              absl::Span<const int64_t> cur_shape);

}  // namespace axe

#endif  // AXE_LAYOUT_TILE_H_
