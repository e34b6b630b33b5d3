// Grouping a layout by a logical shape (the paper's L‖S).
//
// A shape S (prod(S) == E_D) groups L when the canonical shard D can be split into
// rank(S) consecutive blocks whose extent products are S_0, ..., S_{r-1}, by splitting
// iters (e1*e2, s, a) -> (e1, e2*s, a), (e2, s, a) but never reordering them. R and O are
// unchanged. The result is the refined layout plus separators: block i is
// shard()[seps[i] : seps[i+1]] (rank + 1 entries). A shape entry of 1 gives a unit iter so
// that every block exists. Among all groupings this one has the fewest iters.
//
//   Group(*Layout::Parse("S[(32,2):(1@laneid,1)]"), {8, 8})
//   // layout S[(8,4,2):(4@laneid,1@laneid,1)], seps {0, 1, 3}
#ifndef AXE_LAYOUT_GROUP_H_
#define AXE_LAYOUT_GROUP_H_

#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"

namespace axe {

struct Grouped {
  Layout layout;             // D refined into the blocks
  std::vector<size_t> seps;  // rank + 1 block boundaries into layout.shard()
};

// Errors (InvalidArgument): the shape has an entry < 1, its product differs from E_D, or
// an entry cannot be formed ("cannot form shape entry j (= S_j) ...").
absl::StatusOr<Grouped> Group(const Layout& layout, absl::Span<const int64_t> shape);

struct GroupedMany {
  Layout layout;                          // D refined by the meet of all shapes
  std::vector<int64_t> meet_shape;        // the common refinement of the shapes
  std::vector<std::vector<size_t>> seps;  // per input shape, its block boundaries
};

// Refines D by the common block boundaries of several shapes (all with product E_D): the
// sorted union of their prefix products must form a divisor chain (each divides the
// next), whose ratios are the meet shape. Errors: a shape that is not admitted, prefix
// products that are not a divisor chain (naming the two values), or Group's errors.
//
//   GroupMany(*Layout::Parse("S[30:1]"), {{6, 5}, {2, 15}})
//   // S[(2,3,5):(15,5,1)], meet (2,3,5), seps {{0,2,3}, {0,1,3}}
absl::StatusOr<GroupedMany> GroupMany(const Layout& layout,
                                      const std::vector<std::vector<int64_t>>& shapes);

}  // namespace axe

#endif  // AXE_LAYOUT_GROUP_H_
