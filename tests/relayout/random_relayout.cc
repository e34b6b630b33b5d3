#include "relayout/random_relayout.h"

#include <algorithm>
#include <numeric>

#include "axe/base/check.h"
#include "axe/layout/layout.h"

namespace axe::testing {
namespace {

int64_t Uniform(std::mt19937_64& rng, int64_t lo, int64_t hi) {
  return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
}
bool Chance(std::mt19937_64& rng, double p) { return std::bernoulli_distribution(p)(rng); }
int64_t RoundUp(int64_t v, int64_t m) { return (v + m - 1) / m * m; }

// Splits n into 1..4 factors (a random grouping of its prime factors).
std::vector<int64_t> RandomFactors(std::mt19937_64& rng, int64_t n) {
  std::vector<int64_t> primes;
  for (int64_t p = 2; p * p <= n; ++p) {
    while (n % p == 0) {
      primes.push_back(p);
      n /= p;
    }
  }
  if (n > 1) primes.push_back(n);
  std::shuffle(primes.begin(), primes.end(), rng);
  const int64_t parts = Uniform(rng, 1, 4);
  std::vector<int64_t> out(static_cast<size_t>(parts), 1);
  for (int64_t p : primes) out[static_cast<size_t>(Uniform(rng, 0, parts - 1))] *= p;
  return out;
}

}  // namespace

std::vector<int64_t> RandomShape(std::mt19937_64& rng, int max_rank, int64_t max_extent,
                                 int64_t max_elements) {
  const int rank = static_cast<int>(Uniform(rng, 1, max_rank));
  std::vector<int64_t> shape(static_cast<size_t>(rank));
  for (int64_t& e : shape) e = Chance(rng, 0.03) ? 0 : Uniform(rng, 1, max_extent);
  auto product = [&] {
    int64_t p = 1;
    for (int64_t e : shape) p *= std::max<int64_t>(e, 1);
    return p;
  };
  while (product() > max_elements) {
    auto it = std::max_element(shape.begin(), shape.end());
    *it = std::max<int64_t>(1, *it / 2);
  }
  return shape;
}

relayout::BufferLayout RandomBufferLayout(std::mt19937_64& rng, const std::vector<int64_t>& shape,
                                          const RandomBufferOptions& options) {
  const size_t r = shape.size();
  std::vector<int64_t> domain(r);
  std::vector<int64_t> extents;  // digits in logical order
  std::vector<int> outer;        // 1 for a dimension's tile-index digit (XLA-like ordering)
  const bool flat = options.allow_flat && r > 1 && Chance(rng, 0.08);
  for (size_t d = 0; d < r; ++d) {
    const int64_t s = std::max<int64_t>(shape[d], 1);
    const double pick = std::uniform_real_distribution<double>(0, 1)(rng);
    std::vector<int64_t> digits;
    if (flat || pick < 0.45) {
      domain[d] = s + (Chance(rng, 0.15) ? Uniform(rng, 1, 3) : 0);
      digits = {domain[d]};
    } else if (pick < 0.8) {
      const int64_t t = std::vector<int64_t>{2, 3, 4, 8}[static_cast<size_t>(Uniform(rng, 0, 3))];
      domain[d] = RoundUp(s, t) + (Chance(rng, 0.1) ? t : 0);
      digits = {domain[d] / t, t};
    } else {
      const auto [t1, t2] = std::vector<std::pair<int64_t, int64_t>>{
          {4, 2}, {8, 2}, {8, 4}, {6, 3}, {6, 2}}[static_cast<size_t>(Uniform(rng, 0, 4))];
      domain[d] = RoundUp(s, t1);
      digits = {domain[d] / t1, t1 / t2, t2};
    }
    for (size_t k = 0; k < digits.size(); ++k) {
      extents.push_back(digits[k]);
      outer.push_back(k == 0 ? 1 : 0);
    }
  }
  if (flat) {  // re-split the whole domain without regard to its dimensions
    int64_t total = 1;
    for (int64_t e : domain) total *= e;
    extents = RandomFactors(rng, total);
    outer.assign(extents.size(), 0);
  }
  const size_t n = extents.size();
  std::vector<size_t> order(n);  // memory order, outermost first
  std::iota(order.begin(), order.end(), 0);
  const double style = std::uniform_real_distribution<double>(0, 1)(rng);
  if (style < 0.3) {
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return outer[a] > outer[b]; });
  } else if (style < 0.5) {
    // logical order: row-major
  } else {
    std::shuffle(order.begin(), order.end(), rng);
  }
  std::vector<int64_t> strides(n);
  int64_t running = 1, offset = Uniform(rng, 0, 4);
  for (size_t k = n; k-- > 0;) {
    const size_t digit = order[k];
    strides[digit] = running;
    running = running * extents[digit] + (Chance(rng, 0.15) ? Uniform(rng, 1, 3) : 0);
  }
  for (size_t k = 0; k < n; ++k) {
    if (extents[k] > 1 && Chance(rng, 0.1)) {
      offset += (extents[k] - 1) * strides[k];
      strides[k] = -strides[k];
    } else if (!options.destination && extents[k] > 1 && Chance(rng, 0.04)) {
      strides[k] = 0;  // broadcast source dimension
    }
  }
  std::vector<Iter> shard, replica;
  for (size_t k = 0; k < n; ++k) shard.push_back(Iter{extents[k], strides[k], Axis::Memory()});
  if (Chance(rng, 0.1)) {
    // Destination: a second, disjoint copy after the first. Source: any copy.
    replica.push_back(
        Iter{2, options.destination ? running + offset + 1 : Uniform(rng, 1, 5), Axis::Memory()});
  }
  absl::StatusOr<Layout> l = Layout::Create(shard, replica, PhysCoord{{Axis::Memory(), offset}});
  AXE_CHECK(l.ok()) << l.status().message();
  const bool default_domain =
      domain == std::vector<int64_t>(shape.begin(), shape.end()) && Chance(rng, 0.5);
  if (default_domain) return relayout::BufferLayout(*l);
  return relayout::BufferLayout(*l, domain);
}

std::pair<int64_t, int64_t> AddressRange(const relayout::BufferLayout& b,
                                         const std::vector<int64_t>& /*shape*/) {
  int64_t lo = 0, hi = 0;
  for (const auto& [axis, value] : b.layout.offset().entries()) lo = hi = value;
  auto add = [&](const Iter& it) {
    const int64_t reach = (it.extent - 1) * it.stride;
    (reach < 0 ? lo : hi) += reach;
  };
  for (const Iter& it : b.layout.shard()) add(it);
  for (const Iter& it : b.layout.replica()) add(it);
  return {lo, hi};
}

GuardedBuffer::GuardedBuffer(const relayout::BufferLayout& b, const std::vector<int64_t>& shape,
                             int element_bytes, uint64_t seed) {
  constexpr int64_t kGuard = 64;
  const auto [lo, hi] = AddressRange(b, shape);
  bytes_.resize(static_cast<size_t>((hi - lo + 1) * element_bytes + 2 * kGuard));
  origin_ = static_cast<size_t>(kGuard - lo * element_bytes);
  std::mt19937_64 rng(seed);
  for (uint8_t& x : bytes_) x = static_cast<uint8_t>(rng());
}

}  // namespace axe::testing
