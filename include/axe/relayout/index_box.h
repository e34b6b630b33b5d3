// Boxes of global indices (one half-open interval per dimension) and the set operations a
// reshard plan needs: intersection, difference (as disjoint boxes), element counts. A box
// prints and parses in one form everywhere: BoxToString and ParseBox (axe/layout/box.h).
//
//   IndexBox a{{0, 4}, {0, 8}}, b{{0, 8}, {4, 8}};
//   Intersect(a, b);   // [[0, 4], [4, 8]]
//   Subtract(a, b);    // {[[0, 4], [0, 4]]}: the part of a outside b
#ifndef AXE_RELAYOUT_INDEX_BOX_H_
#define AXE_RELAYOUT_INDEX_BOX_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/types/span.h"
#include "axe/layout/slice.h"

namespace axe::relayout {

using IndexBox = std::vector<Interval>;

// The number of elements (0 when some interval is empty); nullopt on overflow.
std::optional<int64_t> BoxElements(absl::Span<const Interval> box);

// The whole box [0, shape).
IndexBox WholeBox(absl::Span<const int64_t> shape);

// a ∩ b, or nullopt when empty (boxes of the same rank).
std::optional<IndexBox> Intersect(absl::Span<const Interval> a, absl::Span<const Interval> b);

// a \ b as at most 2 * rank disjoint non-empty boxes (boxes of the same rank): dimension by
// dimension, the slabs of a below and above b, then the rest is narrowed to b.
std::vector<IndexBox> Subtract(absl::Span<const Interval> a, absl::Span<const Interval> b);

// `box` moved by -origin (into the coordinates of a shard whose box starts at `origin`).
IndexBox Relative(absl::Span<const Interval> box, absl::Span<const Interval> origin);

// Cuts `box` into boxes of at most `max_elements` (>= 1) elements each, appended to `out`
// in row-major order: slabs of whole slices of its outermost dimension of extent > 1, or
// single slices of it cut the same way, recursively, when one slice is already too big. An
// empty box adds nothing.
//   SplitBox({{0, 4}, {0, 8}}, 16, out);   // [[0, 2], [0, 8]], [[2, 4], [0, 8]]
void SplitBox(absl::Span<const Interval> box, int64_t max_elements, std::vector<IndexBox>& out);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_INDEX_BOX_H_
