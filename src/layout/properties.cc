#include "axe/layout/properties.h"

#include <algorithm>
#include <cstdlib>
#include <optional>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "point_set.h"

namespace axe {
namespace {

// Sorted by |stride| descending, each |stride| exceeds the largest value of the smaller ones.
bool IsMixedRadix(std::vector<Iter> iters) {
  std::sort(iters.begin(), iters.end(),
            [](const Iter& a, const Iter& b) { return std::abs(a.stride) > std::abs(b.stride); });
  int64_t reach = 0;
  for (size_t i = iters.size(); i-- > 0;) {
    int64_t s = std::abs(iters[i].stride);
    if (s < 1 + reach) return false;
    reach += s * (iters[i].extent - 1);
  }
  return true;
}

// Are all values sum_k c_k s_k + p (digits of `shard`, p in `points`) distinct?
absl::StatusOr<bool> AllSumsDistinct(const std::vector<Iter>& shard,
                                     const std::vector<int64_t>& points, int64_t span) {
  int64_t count = static_cast<int64_t>(points.size());
  for (const Iter& it : shard) {
    std::optional<int64_t> c = CheckedMul(count, it.extent);
    // More values than slots: two must collide.
    if (!c || *c > span) return false;
    count = *c;
  }
  if (count > kMaxEnumeratedPoints) {
    return absl::ResourceExhaustedError(absl::StrCat("injectivity check needs to enumerate ", count,
                                                     " values (limit ", kMaxEnumeratedPoints, ")"));
  }
  std::vector<int64_t> values = points;
  for (const Iter& it : shard) {
    std::vector<int64_t> next;
    next.reserve(values.size() * static_cast<size_t>(it.extent));
    for (int64_t v : values) {
      for (int64_t c = 0; c < it.extent; ++c) next.push_back(v + c * it.stride);
    }
    values = std::move(next);
  }
  std::sort(values.begin(), values.end());
  return std::adjacent_find(values.begin(), values.end()) == values.end();
}

}  // namespace

absl::StatusOr<bool> IsInjective(const Layout& layout) {
  Layout c = Canonicalize(layout);
  for (Axis a : c.axes()) {
    std::vector<Iter> shard, replica;
    for (const Iter& it : c.shard()) {
      if (it.axis == a && it.extent > 1) shard.push_back(it);
    }
    if (shard.empty()) continue;
    for (const Iter& it : c.replica()) {
      if (it.axis == a) replica.push_back(it);
    }
    std::vector<Iter> sorted_replica = replica;
    SortReplicaIters(sorted_replica);
    bool gap = true;
    for (size_t k = 0; k + 1 < sorted_replica.size(); ++k) {
      std::optional<int64_t> reach = CheckedMul(sorted_replica[k].extent, sorted_replica[k].stride);
      if (!reach || *reach >= sorted_replica[k + 1].stride) gap = false;
    }
    std::vector<Iter> all = shard;
    if (gap) all.insert(all.end(), replica.begin(), replica.end());
    if (gap && IsMixedRadix(all)) continue;
    std::vector<int64_t> points = {0};
    if (!gap) {
      AXE_ASSIGN_OR_RETURN(points, internal::DistinctSums(0, replica, kMaxEnumeratedPoints));
    }
    AXE_ASSIGN_OR_RETURN(bool distinct, AllSumsDistinct(gap ? all : shard, points, c.span(a)));
    if (!distinct) return false;
  }
  return true;
}

Layout Storage(const Layout& layout) {
  std::vector<Iter> shard, replica;
  for (const Iter& it : layout.shard()) {
    if (it.axis.is_memory()) shard.push_back(it);
  }
  for (const Iter& it : layout.replica()) {
    if (it.axis.is_memory()) replica.push_back(it);
  }
  PhysCoord offset;
  for (const auto& [axis, value] : layout.offset().entries()) {
    if (axis.is_memory()) offset.set(axis, value);
  }
  if (shard.empty()) shard.push_back(Iter{1, 1, Axis::Memory()});
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  AXE_CHECK(out.ok()) << "storage of " << layout << ": " << out.status();
  return Canonicalize(*out);
}

bool IsTrivial(const Layout& layout) {
  return layout.shard().size() == 1 && layout.shard()[0].stride == 1 &&
         layout.shard()[0].axis == Axis::Memory() && layout.replica().empty() &&
         layout.offset().empty();
}

}  // namespace axe
