#include "axe/layout/canonical.h"

#include <algorithm>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "point_set.h"

namespace axe {
namespace {

// D0 + D1 on a shard list (one left-to-right pass reaches the fixpoint: a merge only
// creates an iter whose stride is its right neighbour's old stride).
std::vector<Iter> NormalizeShard(const std::vector<Iter>& shard) {
  std::vector<Iter> out;
  for (const Iter& it : shard) {
    if (it.extent == 1) continue;
    if (!out.empty()) {
      Iter& prev = out.back();
      // prev.stride == it.extent * it.stride, checked (overflow means they cannot be equal).
      std::optional<int64_t> product = CheckedMul(it.extent, it.stride);
      if (prev.axis == it.axis && product && prev.stride == *product) {
        prev = Iter{prev.extent * it.extent, it.stride, it.axis};  // bounded by E_D
        continue;
      }
    }
    out.push_back(it);
  }
  if (out.empty()) out.push_back(Iter{1, 1, shard.front().axis});
  return out;
}

// C0, C1, C2 and Z on the replica list and offset.
void NormalizeReplica(std::vector<Iter>& replica, PhysCoord& offset) {
  std::vector<Iter> r;
  for (const Iter& it : replica) {
    if (it.extent == 1) continue;                        // C0
    if (it.stride < 0) {                                 // C1
      offset.add(it.axis, it.stride * (it.extent - 1));  // within the validated range
      r.push_back(Iter{it.extent, -it.stride, it.axis});
    } else {
      r.push_back(it);
    }
  }
  // C2 to a fixpoint. Each merge removes an iter, so this terminates.
  bool changed = true;
  while (changed) {
    changed = false;
    SortReplicaIters(r);
    for (size_t i = 0; i < r.size() && !changed; ++i) {
      for (size_t j = 0; j < r.size() && !changed; ++j) {
        if (i == j || r[i].axis != r[j].axis) continue;
        // r[i] = (E1, σ), r[j] = (E2, qσ) with 1 <= q <= E1 (ties: i < j).
        const int64_t sigma = r[i].stride;
        if (r[j].stride % sigma != 0) continue;
        const int64_t q = r[j].stride / sigma;
        if (q < 1 || q > r[i].extent || (q == 1 && j < i)) continue;
        // The merged extent times σ equals the pair's combined reach: it fits.
        const int64_t extent = (r[i].extent - 1) + q * (r[j].extent - 1) + 1;
        r[i] = Iter{extent, sigma, r[i].axis};
        r.erase(r.begin() + static_cast<std::ptrdiff_t>(j));
        changed = true;
      }
    }
  }
  SortReplicaIters(r);
  replica = std::move(r);
}

// The replica iters of one axis, sorted by stride.
std::vector<Iter> ReplicaOn(const Layout& l, Axis a) {
  std::vector<Iter> out;
  for (const Iter& it : l.replica()) {
    if (it.axis == a) out.push_back(it);
  }
  SortReplicaIters(out);
  return out;
}

bool GapConditionOn(const std::vector<Iter>& sorted) {
  for (size_t k = 0; k + 1 < sorted.size(); ++k) {
    std::optional<int64_t> reach = CheckedMul(sorted[k].extent, sorted[k].stride);
    if (!reach || *reach >= sorted[k + 1].stride) return false;
  }
  return true;
}

// Thread-scope fusion (CanonicalizeOptions::fuse_thread_scopes).
absl::StatusOr<Layout> FuseThreadScopes(const Layout& l) {
  const Axis tx = Axis::Get("tx"), warpid = Axis::Get("warpid"), laneid = Axis::Get("laneid"),
             wgid = Axis::Get("wgid"), tid_in_wg = Axis::Get("tid_in_wg"),
             wid_in_wg = Axis::Get("wid_in_wg");
  const Axis scoped[] = {tx, warpid, laneid, wgid, tid_in_wg, wid_in_wg};
  std::vector<Axis> present;
  for (Axis a : scoped) {
    if (l.uses(a)) present.push_back(a);
  }
  if (present.size() <= 1) return l;
  auto has = [&present](Axis a) {
    return std::find(present.begin(), present.end(), a) != present.end();
  };
  absl::flat_hash_map<Axis, int64_t> scale;
  Axis target;
  if (has(tx) || has(warpid) || has(wgid)) {
    target = tx;
    if (has(warpid) && (has(wgid) || has(tid_in_wg) || has(wid_in_wg))) {
      return absl::InvalidArgumentError(absl::StrCat(
          "thread scope fusion: warpid cannot be combined with wgid, tid_in_wg or wid_in_wg in ",
          l.ToString()));
    }
    if (has(wgid) && has(laneid) && !has(wid_in_wg) && !has(tid_in_wg)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "thread scope fusion: wgid and laneid lie on no common scope chain without wid_in_wg "
          "or tid_in_wg in ",
          l.ToString()));
    }
    scale = {{tx, 1}, {warpid, 32}, {laneid, 1}, {wgid, 128}, {tid_in_wg, 1}, {wid_in_wg, 32}};
  } else {
    target = tid_in_wg;
    scale = {{tid_in_wg, 1}, {wid_in_wg, 32}, {laneid, 1}};
  }
  auto rewrite = [&](std::vector<Iter> iters) -> absl::StatusOr<std::vector<Iter>> {
    for (Iter& it : iters) {
      auto s = scale.find(it.axis);
      if (s == scale.end()) continue;
      std::optional<int64_t> stride = CheckedMul(it.stride, s->second);
      if (!stride) {
        return absl::InvalidArgumentError(
            absl::StrCat("thread scope fusion: stride of ", it.ToString(), " overflows int64"));
      }
      it = Iter{it.extent, *stride, target};
    }
    return iters;
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Iter> shard, rewrite(l.shard()));
  AXE_ASSIGN_OR_RETURN(std::vector<Iter> replica, rewrite(l.replica()));
  PhysCoord offset;
  for (const auto& [axis, value] : l.offset().entries()) {
    auto s = scale.find(axis);
    std::optional<int64_t> v = s == scale.end() ? value : CheckedMul(value, s->second);
    std::optional<int64_t> sum =
        v ? CheckedAdd(offset.get(s == scale.end() ? axis : target), *v) : std::nullopt;
    if (!sum) return absl::InvalidArgumentError("thread scope fusion: offset overflows int64");
    offset.set(s == scale.end() ? axis : target, *sum);
  }
  return Layout::Create(std::move(shard), std::move(replica), std::move(offset));
}

}  // namespace

Layout Canonicalize(const Layout& layout) {
  std::vector<Iter> replica = layout.replica();
  PhysCoord offset = layout.offset();
  NormalizeReplica(replica, offset);
  absl::StatusOr<Layout> out =
      Layout::Create(NormalizeShard(layout.shard()), std::move(replica), std::move(offset));
  AXE_CHECK(out.ok()) << "canonical form of " << layout << " is invalid: " << out.status();
  return *std::move(out);
}

absl::StatusOr<Layout> Canonicalize(const Layout& layout, const CanonicalizeOptions& options) {
  if (!options.fuse_thread_scopes) return Canonicalize(layout);
  AXE_ASSIGN_OR_RETURN(Layout fused, FuseThreadScopes(layout));
  return Canonicalize(fused);
}

bool SatisfiesGapCondition(const Layout& canonical) {
  for (Axis a : canonical.axes()) {
    if (!GapConditionOn(ReplicaOn(canonical, a))) return false;
  }
  return true;
}

absl::StatusOr<bool> Equivalent(const Layout& a, const Layout& b) {
  if (a.size() != b.size()) return false;
  Layout ca = Canonicalize(a), cb = Canonicalize(b);
  // A broadcast iter (stride 0) and an iter of extent 1 map to 0 whatever their axis and
  // stride: make every one 0@m, so that S[(2,4):(0@warp,1)] and S[(2,4):(0,1)], or S[1:1]
  // and S[1:1@gpuid], compare equal, then merge again (D1).
  auto broadcast_on_m = [](const Layout& l) {
    std::vector<Iter> d = l.shard();
    for (Iter& it : d) {
      if (it.stride == 0 || it.extent == 1) it = Iter{it.extent, 0, Axis::Memory()};
    }
    return NormalizeShard(d);
  };
  if (broadcast_on_m(ca) != broadcast_on_m(cb)) return false;
  std::vector<Axis> axes = ca.axes();
  for (Axis x : cb.axes()) {
    if (std::find(axes.begin(), axes.end(), x) == axes.end()) axes.push_back(x);
  }
  for (Axis x : axes) {
    std::vector<Iter> ra = ReplicaOn(ca, x), rb = ReplicaOn(cb, x);
    if (GapConditionOn(ra) && GapConditionOn(rb)) {
      if (ra != rb || ca.offset().get(x) != cb.offset().get(x)) return false;
      continue;
    }
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> va,
                         internal::DistinctSums(ca.offset().get(x), ra, kMaxEnumeratedPoints));
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> vb,
                         internal::DistinctSums(cb.offset().get(x), rb, kMaxEnumeratedPoints));
    if (va != vb) return false;
  }
  return true;
}

}  // namespace axe
