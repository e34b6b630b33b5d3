#include "axe/layout/permute.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"

namespace axe {
namespace {

absl::Status CheckPermutation(absl::Span<const int64_t> perm, size_t rank) {
  std::vector<bool> seen(rank, false);
  bool ok = perm.size() == rank;
  for (int64_t p : perm) {
    if (!ok) break;
    ok = p >= 0 && static_cast<size_t>(p) < rank && !seen[static_cast<size_t>(p)];
    if (ok) seen[static_cast<size_t>(p)] = true;
  }
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "permute: ", FormatTuple(perm), " is not a permutation of the ", rank, " dimensions"));
}

}  // namespace

std::vector<int64_t> PermuteShape(absl::Span<const int64_t> shape, absl::Span<const int64_t> perm) {
  std::vector<int64_t> out;
  for (int64_t p : perm) out.push_back(shape[static_cast<size_t>(p)]);
  return out;
}

absl::StatusOr<Layout> PermuteByGroups(const Layout& layout, absl::Span<const size_t> seps,
                                       absl::Span<const int64_t> perm) {
  if (seps.empty() || seps.front() != 0 || seps.back() != layout.shard().size()) {
    return absl::InvalidArgumentError(absl::StrCat("permute: separators must run from 0 to the ",
                                                   layout.shard().size(), " shard iters of ",
                                                   layout.ToString()));
  }
  for (size_t i = 0; i + 1 < seps.size(); ++i) {
    if (seps[i] > seps[i + 1])
      return absl::InvalidArgumentError("permute: separators must be non-decreasing");
  }
  AXE_RETURN_IF_ERROR(CheckPermutation(perm, seps.size() - 1));
  std::vector<Iter> shard;
  for (int64_t p : perm) {
    const size_t b = static_cast<size_t>(p);
    shard.insert(shard.end(), layout.shard().begin() + static_cast<std::ptrdiff_t>(seps[b]),
                 layout.shard().begin() + static_cast<std::ptrdiff_t>(seps[b + 1]));
  }
  if (shard.empty()) shard.push_back(Iter{1, 1, layout.shard().front().axis});
  return Layout::Create(std::move(shard), layout.replica(), layout.offset());
}

absl::StatusOr<Layout> PermuteDims(const Layout& layout, absl::Span<const int64_t> shape,
                                   absl::Span<const int64_t> perm) {
  AXE_RETURN_IF_ERROR(CheckPermutation(perm, shape.size()));
  absl::StatusOr<Grouped> g = Group(layout, shape);
  if (!g.ok()) return internal::Annotate(g.status(), "permute: ");
  AXE_ASSIGN_OR_RETURN(Layout out, PermuteByGroups(g->layout, g->seps, perm));
  return Canonicalize(out);
}

}  // namespace axe
