#include "algebra_internal.h"

#include <algorithm>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/layout/canonical.h"

namespace axe::internal {

absl::Status Annotate(const absl::Status& status, absl::string_view prefix) {
  if (status.ok()) return status;
  return absl::Status(status.code(), absl::StrCat(prefix, status.message()));
}

absl::Status CheckSameRank(absl::Span<const int64_t> a, absl::string_view what_a,
                           absl::Span<const int64_t> b, absl::string_view what_b) {
  if (a.size() == b.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(what_a, " ", FormatTuple(a), " has rank ",
                                                 a.size(), " but ", what_b, " ", FormatTuple(b),
                                                 " has rank ", b.size()));
}

std::vector<Iter> Block(const Grouped& g, size_t i) {
  const std::vector<Iter>& d = g.layout.shard();
  return std::vector<Iter>(d.begin() + static_cast<std::ptrdiff_t>(g.seps[i]),
                           d.begin() + static_cast<std::ptrdiff_t>(g.seps[i + 1]));
}

std::vector<Iter> NormalizedIters(absl::Span<const Iter> iters) {
  std::vector<Iter> nonunit;
  for (const Iter& it : iters) {
    if (it.extent > 1) nonunit.push_back(it);
  }
  if (nonunit.empty()) return {};
  absl::StatusOr<Layout> l = Layout::Create(std::move(nonunit));
  if (!l.ok())
    return std::vector<Iter>(iters.begin(), iters.end());  // cannot happen for valid parts
  return Canonicalize(*l).shard();
}

absl::StatusOr<Iter> ScaleIter(const Iter& it, int64_t factor) {
  std::optional<int64_t> s = CheckedMul(it.stride, factor);
  if (!s) {
    return absl::InvalidArgumentError(
        absl::StrCat("scaling the stride of ", it.ToString(), " by ", factor, " overflows int64"));
  }
  return Iter{it.extent, *s, it.axis};
}

std::vector<Iter> ItersOn(absl::Span<const Iter> iters, Axis a) {
  std::vector<Iter> out;
  for (const Iter& it : iters) {
    if (it.axis == a) out.push_back(it);
  }
  return out;
}

std::vector<Axis> ReplicaOrOffsetAxes(std::initializer_list<const Layout*> layouts) {
  std::vector<Axis> out;
  auto note = [&out](Axis a) {
    if (std::find(out.begin(), out.end(), a) == out.end()) out.push_back(a);
  };
  for (const Layout* l : layouts) {
    for (const Iter& it : l->replica()) note(it.axis);
    for (const auto& e : l->offset().entries()) note(e.first);
  }
  return out;
}

std::optional<ReplicaDecomposition> DecomposePointSet(const std::vector<int64_t>& values,
                                                      Axis axis) {
  if (values.empty()) return std::nullopt;
  const int64_t origin = values.front();
  std::vector<int64_t> v;
  v.reserve(values.size());
  for (int64_t x : values) {
    std::optional<int64_t> d = CheckedSub(x, origin);
    if (!d) return std::nullopt;
    v.push_back(*d);
  }
  const absl::flat_hash_set<int64_t> in_v(v.begin(), v.end());
  std::vector<int64_t> g = {0};
  absl::flat_hash_set<int64_t> in_g = {0};
  ReplicaDecomposition out{{}, origin};
  size_t next = 1;
  while (g.size() < v.size()) {
    while (next < v.size() && in_g.contains(v[next])) ++next;
    if (next == v.size()) return std::nullopt;
    const int64_t sigma = v[next];  // > 0: v is sorted and v[0] = 0 is in g
    // The largest e with g + k*sigma inside v for every k < e (at least 2: sigma = 0 + sigma).
    int64_t e = 1;
    while (true) {
      std::optional<int64_t> shift = CheckedMul(e, sigma);
      bool inside = shift.has_value();
      for (size_t i = 0; inside && i < g.size(); ++i) {
        std::optional<int64_t> y = CheckedAdd(g[i], *shift);
        inside = y && in_v.contains(*y);
      }
      if (!inside) break;
      ++e;
    }
    // No progression from sigma extends the whole generated set: the points are not a sum
    // of replica iters (without this, the same sigma would be retried forever).
    if (e == 1) return std::nullopt;
    const size_t before = g.size();
    for (int64_t k = 1; k < e; ++k) {
      for (size_t i = 0; i < before; ++i) {
        int64_t y = g[i] + k * sigma;  // in v, so it fits
        if (in_g.insert(y).second) g.push_back(y);
      }
    }
    out.iters.push_back(Iter{e, sigma, axis});
  }
  return out;
}

}  // namespace axe::internal
