// Test support: seeded random layouts and a naive brute-force oracle for the layout core.
// The oracle is written directly from the definitions (docs/layout.md) and shares no code
// with the library beyond the Layout value itself.
#ifndef AXE_TESTS_LAYOUT_RANDOM_LAYOUT_H_
#define AXE_TESTS_LAYOUT_RANDOM_LAYOUT_H_

#include <cstdint>
#include <random>
#include <set>
#include <vector>

#include "axe/layout/layout.h"

namespace axe::testing {

struct RandomLayoutOptions {
  int max_shard_iters = 4;
  int max_extent = 4;
  int max_replica_iters = 2;
  int64_t max_abs_stride = 8;
  bool allow_broadcast = true;   // shard stride 0
  bool allow_offsets = true;
  bool memory_only = false;      // every iter on m
  int64_t max_size = 256;        // E_D
  int64_t max_replica_size = 16; // E_R
};

// A random valid layout mixing three axes (m, lane, warp), negative strides, replicas and
// offsets. Half of the draws are "structured" (row-major-like strides, so that D1 merges).
Layout RandomLayout(std::mt19937_64& rng, const RandomLayoutOptions& options = {});

// A random layout inducing the same map as `l` (splits shard iters, reorders and splits
// replicas, flips replica signs, adds unit iters).
Layout RandomEquivalentRewrite(const Layout& l, std::mt19937_64& rng);

// Naive oracle: L(x) as a set, by the definition (Cartesian product over all replica digits).
std::set<PhysCoord> OracleApply(const Layout& l, int64_t x);
// Naive oracle: all x with p in L(x), by scanning the domain.
std::vector<int64_t> OracleInverse(const Layout& l, const PhysCoord& p);
// Naive oracle: same E_D and L1(x) == L2(x) for every x.
bool OracleEquivalent(const Layout& a, const Layout& b);
// Naive oracle: no physical point is shared by two distinct logical points.
bool OracleInjective(const Layout& l);

}  // namespace axe::testing

#endif  // AXE_TESTS_LAYOUT_RANDOM_LAYOUT_H_
