// The direct sum of two layouts (paper Appendix F): a tile without span scaling.
//
//   (A + B)(x ‖ y) = A(x) + B(y)
//
// A is grouped by S_A and B by S_B (same rank r); the domain is the interleaved shape
// (S_A[0], S_B[0], ..., S_A[r-1], S_B[r-1]) with natural logical shape (S_A[j] * S_B[j])_j;
// replicas are concatenated, offsets added, the result canonicalized. It describes strided
// atoms that are not tiles (tile(A, B) == direct_sum(A ⊙ span(B), B)).
//
//   DirectSum(S[(2,2):(8,2)], {2, 2}, S[(2,2):(4,1)], {2, 2})   // S[16:1]
#ifndef AXE_LAYOUT_DIRECT_SUM_H_
#define AXE_LAYOUT_DIRECT_SUM_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"

namespace axe {

// Errors (InvalidArgument): ranks differ, a shape does not admit or group its layout, or an
// offset overflows int64.
absl::StatusOr<Layout> DirectSum(const Layout& a, absl::Span<const int64_t> a_shape,
                                 const Layout& b, absl::Span<const int64_t> b_shape);

}  // namespace axe

#endif  // AXE_LAYOUT_DIRECT_SUM_H_
