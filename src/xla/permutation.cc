#include "axe/xla/permutation.h"

#include "axe/base/check.h"

namespace axe::xla {

bool IsPermutation(absl::Span<const int64_t> p) {
  std::vector<bool> seen(p.size(), false);
  for (int64_t v : p) {
    if (v < 0 || v >= static_cast<int64_t>(p.size()) || seen[static_cast<size_t>(v)]) return false;
    seen[static_cast<size_t>(v)] = true;
  }
  return true;
}

std::vector<int64_t> InversePermutation(absl::Span<const int64_t> p) {
  AXE_CHECK(IsPermutation(p)) << "InversePermutation of a non-permutation";
  std::vector<int64_t> inv(p.size());
  for (size_t i = 0; i < p.size(); ++i) inv[static_cast<size_t>(p[i])] = static_cast<int64_t>(i);
  return inv;
}

std::vector<int64_t> ComposePermutations(absl::Span<const int64_t> p1,
                                         absl::Span<const int64_t> p2) {
  std::vector<int64_t> out;
  out.reserve(p2.size());
  for (int64_t i : p2) {
    AXE_CHECK(i >= 0 && i < static_cast<int64_t>(p1.size()))
        << "ComposePermutations: index " << i << " out of range";
    out.push_back(p1[static_cast<size_t>(i)]);
  }
  return out;
}

}  // namespace axe::xla
