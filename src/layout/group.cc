#include "axe/layout/group.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"

namespace axe {

absl::StatusOr<Grouped> Group(const Layout& layout, absl::Span<const int64_t> shape) {
  AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, shape));
  const Layout canonical = Canonicalize(layout);
  auto cannot = [&](size_t j) {
    return absl::InvalidArgumentError(absl::StrCat(
        "cannot group ", layout.ToString(), " by shape ", FormatTuple(shape),
        ": cannot form shape entry ", j, " (= ", shape[j], ") without reordering iters"));
  };
  std::vector<Iter> out;
  std::vector<size_t> seps = {0};
  size_t j = 0;
  int64_t p = 1;  // product of the extents taken since the last closed entry
  for (const Iter& it : canonical.shard()) {
    p *= it.extent;  // p <= E_D
    Iter rest = it;
    while (j < shape.size() && p % shape[j] == 0) {
      int64_t c = p / shape[j];  // the part of `rest` that belongs to later entries
      if (rest.extent % c != 0) return cannot(j);
      out.push_back(Iter{rest.extent / c, rest.stride * c, rest.axis});  // within the iter's reach
      rest = Iter{c, rest.stride, rest.axis};
      p = c;
      ++j;
      seps.push_back(out.size());
    }
    if (rest.extent > 1) out.push_back(rest);
  }
  if (j != shape.size()) return cannot(j);
  // Unit iters of trailing entries of 1 closed above; every block is accounted for.
  absl::StatusOr<Layout> refined =
      Layout::Create(std::move(out), layout.replica(), layout.offset());
  if (!refined.ok()) return refined.status();
  return Grouped{*std::move(refined), std::move(seps)};
}

absl::StatusOr<GroupedMany> GroupMany(const Layout& layout,
                                      const std::vector<std::vector<int64_t>>& shapes) {
  std::vector<int64_t> prefixes;
  for (const std::vector<int64_t>& s : shapes) {
    AXE_RETURN_IF_ERROR(CheckShapeAdmitted(layout, s));
    int64_t p = 1;
    for (int64_t e : s) {
      p *= e;
      prefixes.push_back(p);
    }
  }
  std::sort(prefixes.begin(), prefixes.end());
  prefixes.erase(std::unique(prefixes.begin(), prefixes.end()), prefixes.end());
  std::vector<int64_t> meet;
  int64_t prev = 1;
  for (int64_t p : prefixes) {
    if (p % prev != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "shapes have no common refinement: prefix product ", prev, " does not divide ", p));
    }
    if (p != prev) meet.push_back(p / prev);
    prev = p;
  }
  if (meet.empty()) meet.push_back(1);
  AXE_ASSIGN_OR_RETURN(Grouped g, Group(layout, meet));
  GroupedMany result{g.layout, meet, {}};
  for (const std::vector<int64_t>& s : shapes) {
    std::vector<size_t> seps = {0};
    int64_t p = 1, q = 1;
    size_t k = 0;  // meet entries consumed
    for (int64_t e : s) {
      p *= e;
      while (q != p) q *= meet[k++];  // p is one of the prefixes, so this stops
      seps.push_back(g.seps[k]);
    }
    result.seps.push_back(std::move(seps));
  }
  return result;
}

}  // namespace axe
