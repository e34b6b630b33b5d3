// Reordering the logical dimensions of a layout.
//
// PermuteDims(L, S, perm) groups L by S and reorders the blocks: the result L' on the shape
// S' = (S[perm[0]], ..., S[perm[r-1]]) satisfies L'(y) = L(x) with x[perm[i]] = y[i].
//
//   PermuteDims(S[(4,8):(8,1)], {4, 8}, {1, 0})   // S[(8,4):(1,8)] (the transpose)
#ifndef AXE_LAYOUT_PERMUTE_H_
#define AXE_LAYOUT_PERMUTE_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"

namespace axe {

// Errors (InvalidArgument): perm is not a permutation of [0, rank), the shape is not
// admitted or does not group L. The result is canonical.
absl::StatusOr<Layout> PermuteDims(const Layout& layout, absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> perm);

// The same with given block separators into layout.shard() (seps[0] == 0, non-decreasing,
// seps.back() == shard size, perm.size() == seps.size() - 1). The result is not
// canonicalized, so that its blocks stay visible.
absl::StatusOr<Layout> PermuteByGroups(const Layout& layout, absl::Span<const size_t> seps,
                                       absl::Span<const int64_t> perm);

// The permuted shape (shape[perm[0]], ...); requires a valid permutation.
std::vector<int64_t> PermuteShape(absl::Span<const int64_t> shape, absl::Span<const int64_t> perm);

}  // namespace axe

#endif  // AXE_LAYOUT_PERMUTE_H_
