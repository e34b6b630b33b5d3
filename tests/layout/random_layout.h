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
  bool allow_broadcast = true;  // shard stride 0
  bool allow_offsets = true;
  bool memory_only = false;       // every iter on m
  int64_t max_size = 256;         // E_D
  int64_t max_replica_size = 16;  // E_R
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

// --- Support for the layout algebra (tile, tile-of, direct sum, slice, swizzle) ---

// A random shape of `rank` entries that groups `l`: the raw shard extents are refined by
// random factor splits and cut into `rank` consecutive segments (an empty segment gives 1).
std::vector<int64_t> RandomGroupingShape(const Layout& l, size_t rank, std::mt19937_64& rng);
// A random factorization of n into `rank` entries (it need not group anything).
std::vector<int64_t> RandomFactorization(int64_t n, size_t rank, std::mt19937_64& rng);
// Two random layouts with grouping shapes of one common random rank in [1, max_rank].
struct RandomPair {
  Layout a, b;
  std::vector<int64_t> sa, sb;
};
RandomPair RandomLayoutPair(std::mt19937_64& rng, const RandomLayoutOptions& options, int max_rank);
// Parses a layout literal of a test; a typo fails the test (and yields S[1:1]).
Layout ParseOrFail(absl::string_view text);

// Naive oracle: span_a = 1 + sum over D and R on a of |s|(e-1).
int64_t OracleSpan(const Layout& l, Axis a);
// Naive oracle of the paper's tile: { Σ ⊙ p + q : p in A(xa), q in B(xb) } with
// Σ[a] = OracleSpan(B, a); with scale = false the direct sum { p + q }.
std::set<PhysCoord> OracleTileApply(const Layout& a, int64_t xa, const Layout& b, int64_t xb,
                                    bool scale = true);
// The flat index, in a tile's natural shape (sa[j] * sb[j])_j, of outer index x (shape sa)
// and inner index y (shape sb): coordinate_j = x_j * sb[j] + y_j.
int64_t OracleTiledIndex(const std::vector<int64_t>& sa, const std::vector<int64_t>& sb, int64_t x,
                         int64_t y);
// Row-major flat index <-> coordinate (no error checking).
int64_t OracleFlatten(const std::vector<int64_t>& shape, const std::vector<int64_t>& coord);
std::vector<int64_t> OracleUnflatten(const std::vector<int64_t>& shape, int64_t flat);

// Naive oracle of a swizzle, written as the spec states it in element units:
//   x = m >> M; x2 = x ^ ((x & (((1 << B) - 1) << S)) >> S)   (inner), or
//               x2 = x ^ ((x & ((1 << B) - 1)) << S)          (not inner);
//   address = x2 * 2^M + (m & (2^M - 1)).
int64_t OracleSwizzle(int64_t m, int per_element, int swizzle_len, int atom_len, bool inner = true);

}  // namespace axe::testing

#endif  // AXE_TESTS_LAYOUT_RANDOM_LAYOUT_H_
