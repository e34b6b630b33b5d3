// Slicing a layout to a box region (paper §3.3, Appendix E): L[R : S].
//
// For an admitted shape S and a box R = Π_i [begin_i, end_i), find the layout of the
// sub-tensor: a layout on shape (end_i - begin_i)_i with f(u) = f_L(u + begin). L is
// canonicalized and grouped by S; per dimension block (iters E_k:S_k@a_k, start b, length T)
// the result is produced only in the paper's two sufficient forms:
//  - no wrap: after peeling the fastest digits that start at 0 and whose extents divide the
//    remaining length, the pivot digit d0_k + rem <= E_k gives (rem, S_k@a_k);
//  - symmetric one wrap: rem even and d0_k + rem/2 == E_k gives (2, Δ), (rem/2, S_k@a_k)
//    where Δ = f_block(b + (rem/2) B_k) - f_block(b) must be non-zero on exactly one axis
//    (this also covers carries past digit k-1).
// A single-iter block needs no modulo: (T, S_0@a_0) with offset b S_0. R is kept; O grows
// by f(begin). Otherwise there is no answer (a MaybeLayout with a reason, not an error).
// The result is canonical.
//
//   Slice(S[(4,4,4,4):(64,4,16,1)], {16, 16}, {{2, 3}, {6, 10}})   // S[(2,2):(14,1)] + 26
#ifndef AXE_LAYOUT_SLICE_H_
#define AXE_LAYOUT_SLICE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/layout/box.h"
#include "axe/layout/layout.h"
#include "axe/layout/maybe_layout.h"

namespace axe {

// Errors (InvalidArgument): the shape is not admitted; the region's rank differs from the
// shape's; a dimension with begin < 0, end <= begin or end > S_i (naming the dimension).
// No answer: S does not group L, or a dimension fits neither sufficient form.
absl::StatusOr<MaybeLayout> Slice(const Layout& layout, absl::Span<const int64_t> shape,
                                  absl::Span<const Interval> region);

}  // namespace axe

#endif  // AXE_LAYOUT_SLICE_H_
