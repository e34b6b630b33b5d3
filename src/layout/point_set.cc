#include "point_set.h"

#include <algorithm>
#include <climits>
#include <optional>

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"

namespace axe::internal {

absl::StatusOr<std::vector<int64_t>> DistinctSums(int64_t base, absl::Span<const Iter> iters,
                                                  int64_t limit) {
  // Bounds of the values (valid layouts guarantee they fit).
  int64_t lo = base, hi = base;
  for (const Iter& it : iters) {
    int64_t reach = it.stride * (it.extent - 1);
    (reach < 0 ? lo : hi) += reach;
  }
  std::optional<int64_t> width = CheckedSub(hi, lo);
  // The number of sums before deduplication, saturated: when the window is much wider than
  // that, the dense walk's passes over every slot cost more than sorting the sums.
  int64_t sums = 1;
  for (const Iter& it : iters) sums = CheckedMul(sums, it.extent).value_or(INT64_MAX);
  if (width && *width < 8 * limit && *width / 64 <= sums) {
    // Dense: the values live in [lo, hi], a window of fewer than 8 * limit slots. For each
    // iter (e, s), the new set is the union over the old values v of the progression
    // v, v+|s|, ..., v+(e-1)|s|; walking the old values in increasing order and remembering,
    // per residue class mod |s|, how far the class is already covered, every new value is
    // produced once: O(|old| + |new|) per iter.
    const size_t slots = static_cast<size_t>(*width) + 1;
    std::vector<int64_t> cur = {base - lo};
    std::vector<bool> mark(slots);
    for (const Iter& it : iters) {
      if (it.extent == 1) continue;
      int64_t step = it.stride < 0 ? -it.stride : it.stride;
      int64_t shift = it.stride < 0 ? it.stride * (it.extent - 1) : 0;  // <= 0
      if (step == 0) continue;
      std::vector<int64_t> covered(static_cast<size_t>(std::min<int64_t>(step, *width + 1)), -1);
      std::fill(mark.begin(), mark.end(), false);
      int64_t count = 0;
      for (int64_t v0 : cur) {
        int64_t v = v0 + shift;  // the progression starts here and goes up
        size_t r = static_cast<size_t>(v % step);
        int64_t end = v + step * (it.extent - 1);
        int64_t from = covered[r] < v ? v : covered[r] + step;
        for (int64_t w = from; w <= end; w += step) {
          mark[static_cast<size_t>(w)] = true;
          if (++count > limit) {
            return absl::ResourceExhaustedError(
                absl::StrCat("more than ", limit, " distinct points to enumerate"));
          }
        }
        if (end > covered[r]) covered[r] = end;
      }
      cur.clear();
      for (size_t w = 0; w < slots; ++w) {
        if (mark[w]) cur.push_back(static_cast<int64_t>(w));
      }
    }
    for (int64_t& v : cur) v += lo;
    return cur;
  }
  // Sparse: sort and deduplicate after every iter.
  std::vector<int64_t> cur = {base};
  for (const Iter& it : iters) {
    if (static_cast<double>(cur.size()) * static_cast<double>(it.extent) >
        4.0 * static_cast<double>(limit)) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than ", limit, " distinct points to enumerate"));
    }
    std::vector<int64_t> next;
    next.reserve(cur.size() * static_cast<size_t>(it.extent));
    for (int64_t v : cur) {
      for (int64_t c = 0; c < it.extent; ++c) next.push_back(v + c * it.stride);
    }
    std::sort(next.begin(), next.end());
    next.erase(std::unique(next.begin(), next.end()), next.end());
    if (static_cast<int64_t>(next.size()) > limit) {
      return absl::ResourceExhaustedError(
          absl::StrCat("more than ", limit, " distinct points to enumerate"));
    }
    cur = std::move(next);
  }
  return cur;
}

absl::StatusOr<std::vector<AxisValues>> ReplicaValuesPerAxis(const Layout& layout, int64_t limit) {
  std::vector<AxisValues> out;
  std::vector<Axis> axes;
  for (const Iter& it : layout.replica()) {
    if (std::find(axes.begin(), axes.end(), it.axis) == axes.end()) axes.push_back(it.axis);
  }
  for (const auto& e : layout.offset().entries()) {
    if (std::find(axes.begin(), axes.end(), e.first) == axes.end()) axes.push_back(e.first);
  }
  std::sort(axes.begin(), axes.end());
  for (Axis a : axes) {
    std::vector<Iter> iters;
    for (const Iter& it : layout.replica()) {
      if (it.axis == a) iters.push_back(it);
    }
    absl::StatusOr<std::vector<int64_t>> values =
        DistinctSums(layout.offset().get(a), iters, limit);
    if (!values.ok()) {
      return absl::ResourceExhaustedError(absl::StrCat("replica points of ", layout.ToString(),
                                                       " on axis ", a.name(), ": ",
                                                       values.status().message()));
    }
    out.push_back(AxisValues{a, *std::move(values)});
  }
  return out;
}

}  // namespace axe::internal
