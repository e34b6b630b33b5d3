// Boxes of indices: one half-open interval [begin, end) per dimension, and the one text
// form every box is printed in (slice regions, device maps, reshard plans, error texts).
//
//   std::vector<Interval> box{{0, 4}, {4, 8}};
//   BoxToString(box);              // [[0, 4], [4, 8]]
//   *ParseBox("[[0, 4], [4, 8]]");  // the same box
//   *ParseBox("0:4,4:8");           // the same box, in the short form people type
//   *ParseBox("3,0:8");             // [[3, 4], [0, 8]]: a single index is one element
//
// JSON carries a box as the same nested list ([[0, 4], [4, 8]]).
#ifndef AXE_LAYOUT_BOX_H_
#define AXE_LAYOUT_BOX_H_

#include <compare>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"

namespace axe {

// The half-open interval [begin, end).
struct Interval {
  int64_t begin = 0;
  int64_t end = 0;

  int64_t size() const { return end - begin; }
  // Ordered by begin, then end.
  friend auto operator<=>(const Interval&, const Interval&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const Interval& r) {
    return H::combine(std::move(h), r.begin, r.end);
  }
};

// "[[0, 4], [4, 8]]" ("[]" for a box of rank 0).
std::string BoxToString(absl::Span<const Interval> box);

// Reads BoxToString's form or the short form "0:8,8:24" (start:stop per dimension; a single
// index "3" means 3:4), with any whitespace. Nothing is checked beyond the syntax (an
// interval may be empty or reversed; Slice and the runtime check boxes against shapes).
// Errors (InvalidArgument) name the character position.
absl::StatusOr<std::vector<Interval>> ParseBox(absl::string_view text);

}  // namespace axe

#endif  // AXE_LAYOUT_BOX_H_
