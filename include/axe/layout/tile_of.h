// Tile-of (paper Appendix D): is A a tiling, A ≡ tile(C, S_C, B, S_B)? In both directions:
//
//  - TileOfInner(A, S_A, B, S_B): the inner layout B is known; find the outer C on the
//    shape S_C = S_A / S_B (elementwise; every S_B[j] must divide S_A[j]).
//  - TileOfOuter(A, S_A, C, S_C): the outer layout C is known; find the inner B on the
//    shape S_B = S_A / S_C.
//
// A is grouped by the interleaved shape (S_C[0], S_B[0], ...); each rank's block pair gives
// the outer and inner parts. Inner direction: the inner parts must induce B's blocks, the
// outer strides are divided by W = span(B) per axis. Outer direction: the inner parts form
// B's shard and W follows from the replica widths. Replicas and offsets are split
// structurally (multiset difference) or, failing that, through their per-axis point sets.
// Every candidate is verified by re-tiling: a returned layout always satisfies
// Equivalent(Tile(C, S_C, B, S_B), A). When there is none the result is a MaybeLayout
// without value and a reason (not an error). The result is canonical.
//
//   TileOfInner(S[(8,2,32):(64,1,2)], {16, 32}, S[(2,4):(1,2)], {2, 4})  // S[(8,8):(8,1)]
//   TileOfInner(S[16:1], {4, 4}, S[(2,2):(4,1)], {2, 2})                 // none (Example 51)
#ifndef AXE_LAYOUT_TILE_OF_H_
#define AXE_LAYOUT_TILE_OF_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/layout/maybe_layout.h"

namespace axe {

// Errors (InvalidArgument): the shapes have different ranks, or a shape is not admitted by
// its layout. Everything else (S_B does not divide S_A, no grouping, mismatching parts,
// verification) is "no answer".
absl::StatusOr<MaybeLayout> TileOfInner(const Layout& a, absl::Span<const int64_t> a_shape,
                                        const Layout& inner, absl::Span<const int64_t> inner_shape);
absl::StatusOr<MaybeLayout> TileOfOuter(const Layout& a, absl::Span<const int64_t> a_shape,
                                        const Layout& outer, absl::Span<const int64_t> outer_shape);

// a_shape / part_shape elementwise, or nullopt when ranks differ or a division is inexact:
// the shape of the layout tile-of finds.
std::optional<std::vector<int64_t>> QuotientShape(absl::Span<const int64_t> a_shape,
                                                  absl::Span<const int64_t> part_shape);

}  // namespace axe

#endif  // AXE_LAYOUT_TILE_OF_H_
