// Permutations of dimension numbers, with XLA's conventions.
//
//   ComposePermutations(p1, p2)[i] == p1[p2[i]]
//   InversePermutation(p)[p[i]] == i
//   InversePermutation({1, 2, 0});   // {2, 0, 1}
#ifndef AXE_XLA_PERMUTATION_H_
#define AXE_XLA_PERMUTATION_H_

#include <cstdint>
#include <vector>

#include "absl/types/span.h"

namespace axe::xla {

// True iff p holds each of 0..size-1 exactly once.
bool IsPermutation(absl::Span<const int64_t> p);

// Requires IsPermutation(p).
std::vector<int64_t> InversePermutation(absl::Span<const int64_t> p);

// result[i] = p1[p2[i]]. Requires every p2[i] to index p1.
std::vector<int64_t> ComposePermutations(absl::Span<const int64_t> p1,
                                         absl::Span<const int64_t> p2);

// result[i] = values[p[i]] (XLA's Permute with this convention is ComposePermutations).
// Requires every p[i] to index values.
template <typename T>
std::vector<T> PermuteValues(absl::Span<const T> values, absl::Span<const int64_t> p) {
  std::vector<T> out;
  out.reserve(p.size());
  for (int64_t i : p) out.push_back(values[static_cast<size_t>(i)]);
  return out;
}

}  // namespace axe::xla

#endif  // AXE_XLA_PERMUTATION_H_
