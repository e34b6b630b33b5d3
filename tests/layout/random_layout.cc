#include "layout/random_layout.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include "axe/base/check.h"
#include "gtest/gtest.h"

namespace axe::testing {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}

Axis RandomAxis(std::mt19937_64& rng, bool memory_only) {
  if (memory_only) return Axis::Memory();
  static const Axis kAxes[] = {Axis::Memory(), Axis::Get("lane"), Axis::Get("warp")};
  return kAxes[Uniform(rng, 0, 2)];
}

}  // namespace

Layout RandomLayout(std::mt19937_64& rng, const RandomLayoutOptions& o) {
  while (true) {
    std::vector<Iter> shard, replica;
    PhysCoord offset;
    int n = static_cast<int>(Uniform(rng, 1, o.max_shard_iters));
    bool structured = Uniform(rng, 0, 1) == 0;
    int64_t size = 1;
    for (int k = 0; k < n; ++k) {
      int64_t e = Uniform(rng, 1, o.max_extent);
      size *= e;
      shard.push_back(Iter{e, 0, RandomAxis(rng, o.memory_only)});
    }
    if (size > o.max_size) continue;
    if (structured) {
      // Row-major per axis, then occasionally permuted or negated.
      std::map<Axis, int64_t> next;
      for (size_t k = shard.size(); k-- > 0;) {
        int64_t& s = next.try_emplace(shard[k].axis, 1).first->second;
        shard[k].stride = s;
        s *= shard[k].extent;
      }
      if (Uniform(rng, 0, 3) == 0) std::shuffle(shard.begin(), shard.end(), rng);
      if (Uniform(rng, 0, 5) == 0) shard[Uniform(rng, 0, n - 1)].stride *= -1;
    } else {
      for (Iter& it : shard) {
        it.stride = Uniform(rng, -o.max_abs_stride, o.max_abs_stride);
        if (it.stride == 0 && !o.allow_broadcast) it.stride = 1;
      }
    }
    int r = static_cast<int>(Uniform(rng, 0, o.max_replica_iters));
    int64_t rsize = 1;
    for (int k = 0; k < r; ++k) {
      int64_t e = Uniform(rng, 1, 3);
      int64_t s = 0;
      while (s == 0) s = Uniform(rng, -o.max_abs_stride, o.max_abs_stride);
      rsize *= e;
      replica.push_back(Iter{e, s, RandomAxis(rng, o.memory_only)});
    }
    if (rsize > o.max_replica_size) continue;
    if (o.allow_offsets) {
      int k = static_cast<int>(Uniform(rng, 0, 2));
      for (int i = 0; i < k; ++i) offset.add(RandomAxis(rng, o.memory_only), Uniform(rng, -5, 5));
    }
    absl::StatusOr<Layout> l = Layout::Create(shard, replica, offset);
    AXE_CHECK(l.ok()) << l.status();
    return *l;
  }
}

Layout RandomEquivalentRewrite(const Layout& l, std::mt19937_64& rng) {
  std::vector<Iter> shard;
  for (const Iter& it : l.shard()) {
    // Split (e1*e2, s) into (e1, e2*s), (e2, s) when possible.
    int64_t e2 = 0;
    for (int64_t d = 2; d < it.extent; ++d) {
      if (it.extent % d == 0 && Uniform(rng, 0, 1) == 0) {
        e2 = d;
        break;
      }
    }
    if (e2 != 0) {
      shard.push_back(Iter{it.extent / e2, it.stride * e2, it.axis});
      shard.push_back(Iter{e2, it.stride, it.axis});
    } else {
      shard.push_back(it);
    }
    // A broadcast iter maps to 0 on any axis.
    if (shard.back().stride == 0 && Uniform(rng, 0, 1) == 0)
      shard.back().axis = RandomAxis(rng, false);
    if (Uniform(rng, 0, 4) == 0)
      shard.push_back(Iter{1, Uniform(rng, -3, 3), RandomAxis(rng, false)});
  }
  std::vector<Iter> replica;
  PhysCoord offset = l.offset();
  for (const Iter& it : l.replica()) {
    Iter r = it;
    if (Uniform(rng, 0, 1) == 0) {
      // (e, s) has the same points as (e, -s) shifted by (e-1)s.
      offset.add(r.axis, r.stride * (r.extent - 1));
      r.stride = -r.stride;
    }
    if (r.extent >= 3 && r.extent % 2 == 1 && Uniform(rng, 0, 1) == 0) {
      // (2k+1, s) == (k+1, s) + (2, k s): C2 with q = k <= k+1.
      int64_t k = (r.extent - 1) / 2;
      replica.push_back(Iter{k + 1, r.stride, r.axis});
      replica.push_back(Iter{2, k * r.stride, r.axis});
    } else {
      replica.push_back(r);
    }
    if (Uniform(rng, 0, 4) == 0) replica.push_back(Iter{1, 7, RandomAxis(rng, false)});
  }
  std::shuffle(replica.begin(), replica.end(), rng);
  absl::StatusOr<Layout> out = Layout::Create(shard, replica, offset);
  AXE_CHECK(out.ok()) << out.status();
  return *out;
}

std::set<PhysCoord> OracleApply(const Layout& l, int64_t x) {
  // Digits c_k = floor(x / B_k) mod e_k with B_k the product of later extents.
  PhysCoord base = l.offset();
  const std::vector<Iter>& d = l.shard();
  for (size_t k = 0; k < d.size(); ++k) {
    int64_t b = 1;
    for (size_t j = k + 1; j < d.size(); ++j) b *= d[j].extent;
    base.add(d[k].axis, ((x / b) % d[k].extent) * d[k].stride);
  }
  std::set<PhysCoord> out;
  const std::vector<Iter>& r = l.replica();
  std::vector<int64_t> digit(r.size(), 0);
  while (true) {
    PhysCoord p = base;
    for (size_t t = 0; t < r.size(); ++t) p.add(r[t].axis, digit[t] * r[t].stride);
    out.insert(p);
    size_t t = 0;
    while (t < r.size() && ++digit[t] == r[t].extent) digit[t++] = 0;
    if (t == r.size()) break;
  }
  return out;
}

std::vector<int64_t> OracleInverse(const Layout& l, const PhysCoord& p) {
  std::vector<int64_t> out;
  for (int64_t x = 0; x < l.size(); ++x) {
    if (OracleApply(l, x).count(p)) out.push_back(x);
  }
  return out;
}

bool OracleEquivalent(const Layout& a, const Layout& b) {
  if (a.size() != b.size()) return false;
  for (int64_t x = 0; x < a.size(); ++x) {
    if (OracleApply(a, x) != OracleApply(b, x)) return false;
  }
  return true;
}

bool OracleInjective(const Layout& l) {
  std::map<PhysCoord, int64_t> owner;
  for (int64_t x = 0; x < l.size(); ++x) {
    for (const PhysCoord& p : OracleApply(l, x)) {
      auto [it, inserted] = owner.emplace(p, x);
      if (!inserted && it->second != x) return false;
    }
  }
  return true;
}

std::vector<int64_t> RandomFactorization(int64_t n, size_t rank, std::mt19937_64& rng) {
  std::vector<int64_t> shape;
  int64_t rest = n;
  for (size_t k = 0; k + 1 < rank; ++k) {
    std::vector<int64_t> divisors;
    for (int64_t d = 1; d <= rest; ++d) {
      if (rest % d == 0) divisors.push_back(d);
    }
    int64_t d =
        divisors[static_cast<size_t>(Uniform(rng, 0, static_cast<int64_t>(divisors.size()) - 1))];
    shape.push_back(d);
    rest /= d;
  }
  shape.push_back(rest);
  return shape;
}

std::vector<int64_t> RandomGroupingShape(const Layout& l, size_t rank, std::mt19937_64& rng) {
  std::vector<int64_t> extents;
  for (const Iter& it : l.shard()) {
    std::vector<int64_t> parts =
        RandomFactorization(it.extent, static_cast<size_t>(Uniform(rng, 1, 2)), rng);
    extents.insert(extents.end(), parts.begin(), parts.end());
  }
  // rank - 1 sorted cut positions in [0, extents.size()].
  std::vector<int64_t> cuts;
  for (size_t k = 0; k + 1 < rank; ++k)
    cuts.push_back(Uniform(rng, 0, static_cast<int64_t>(extents.size())));
  std::sort(cuts.begin(), cuts.end());
  cuts.push_back(static_cast<int64_t>(extents.size()));
  std::vector<int64_t> shape;
  int64_t from = 0;
  for (int64_t cut : cuts) {
    int64_t p = 1;
    for (int64_t i = from; i < cut; ++i) p *= extents[static_cast<size_t>(i)];
    shape.push_back(p);
    from = cut;
  }
  return shape;
}

RandomPair RandomLayoutPair(std::mt19937_64& rng, const RandomLayoutOptions& options,
                            int max_rank) {
  RandomPair p{RandomLayout(rng, options), RandomLayout(rng, options), {}, {}};
  const size_t rank = static_cast<size_t>(Uniform(rng, 1, max_rank));
  p.sa = RandomGroupingShape(p.a, rank, rng);
  p.sb = RandomGroupingShape(p.b, rank, rng);
  return p;
}

Layout ParseOrFail(absl::string_view text) {
  absl::StatusOr<Layout> l = Layout::Parse(text);
  if (l.ok()) return *l;
  ADD_FAILURE() << "bad layout literal in a test: " << l.status();
  return *Layout::Parse("S[1:1]");
}

int64_t OracleTiledIndex(const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, int64_t x,
                         int64_t y) {
  std::vector<int64_t> cx = OracleUnflatten(sa, x), cy = OracleUnflatten(sb, y), c(sa.size()),
                       shape(sa.size());
  for (size_t j = 0; j < sa.size(); ++j) {
    c[j] = cx[j] * sb[j] + cy[j];
    shape[j] = sa[j] * sb[j];
  }
  return OracleFlatten(shape, c);
}

int64_t OracleSpan(const Layout& l, Axis a) {
  int64_t span = 1;
  for (const std::vector<Iter>* iters : {&l.shard(), &l.replica()}) {
    for (const Iter& it : *iters) {
      if (it.axis == a) span += std::abs(it.stride) * (it.extent - 1);
    }
  }
  return span;
}

std::set<PhysCoord> OracleTileApply(const Layout& a, int64_t xa, const Layout& b, int64_t xb,
                                    bool scale) {
  std::set<PhysCoord> out;
  for (const PhysCoord& p : OracleApply(a, xa)) {
    for (const PhysCoord& q : OracleApply(b, xb)) {
      PhysCoord sum = q;
      for (const auto& [axis, value] : p.entries())
        sum.add(axis, value * (scale ? OracleSpan(b, axis) : 1));
      out.insert(sum);
    }
  }
  return out;
}

int64_t OracleFlatten(const std::vector<int64_t>& shape, const std::vector<int64_t>& coord) {
  int64_t flat = 0;
  for (size_t d = 0; d < shape.size(); ++d) flat = flat * shape[d] + coord[d];
  return flat;
}

std::vector<int64_t> OracleUnflatten(const std::vector<int64_t>& shape, int64_t flat) {
  std::vector<int64_t> coord(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    coord[d] = flat % shape[d];
    flat /= shape[d];
  }
  return coord;
}

int64_t OracleSwizzle(int64_t m, int per_element, int swizzle_len, int atom_len, bool inner) {
  const int64_t unit = int64_t{1} << per_element;
  const int64_t x = m >> per_element;  // arithmetic shift (floor) for negative addresses too
  const int64_t bits = (int64_t{1} << swizzle_len) - 1;
  const int64_t x2 =
      inner ? x ^ ((x & (bits << atom_len)) >> atom_len) : x ^ ((x & bits) << atom_len);
  return x2 * unit + (m & (unit - 1));
}

}  // namespace axe::testing
