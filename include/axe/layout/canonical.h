// Canonical form and equivalence of layouts (paper §3.3 and Appendix A).
//
// Canonicalize applies, until nothing changes:
//   D0  delete a shard iter of extent 1 (keeping (1, 1, axis of the first iter) if none is left)
//   D1  merge adjacent shard iters on the same axis when s_i == e_{i+1} * s_{i+1}
//   C0  delete a replica iter of extent 1
//   C1  make a negative replica stride positive: (e, -s, a) -> (e, s, a), O[a] -= (e-1)s
//   C2  absorb multiples: (E1, σ) and (E2, qσ) on one axis with 1 <= q <= E1 become
//       ((E1-1) + q(E2-1) + 1, σ)
//   Z   drop zero offsets
// then sorts R by (axis name, stride, extent). The result induces the same map.
//
//   Canonicalize(*Layout::Parse("S[(8,8,8,4,2):(512,64,8,2,1)]"))  // S[4096:1]
#ifndef AXE_LAYOUT_CANONICAL_H_
#define AXE_LAYOUT_CANONICAL_H_

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

struct CanonicalizeOptions {
  // Rewrite the CUDA thread axes (tx, warpid, laneid, wgid, tid_in_wg, wid_in_wg) into their
  // coarsest common axis before merging (tx = 32 warpid + laneid, tx = 128 wgid + tid_in_wg,
  // tid_in_wg = 32 wid_in_wg + laneid, warpid = 4 wgid + wid_in_wg). Off by default.
  bool fuse_thread_scopes = false;
};

Layout Canonicalize(const Layout& layout);

// With options. Errors: with fuse_thread_scopes, thread axes that lie on no common scope
// chain (e.g. wgid with laneid but neither wid_in_wg nor tid_in_wg), or a scaled stride that
// overflows int64.
absl::StatusOr<Layout> Canonicalize(const Layout& layout, const CanonicalizeOptions& options);

// True iff the (canonical) replica iters of every axis satisfy the gap condition: with the
// axis's distinct strides σ_1 < ... < σ_m and extents E_k, E_k σ_k < σ_{k+1}. Then every
// replica point is reached by exactly one digit combination.
bool SatisfiesGapCondition(const Layout& canonical);

// True iff a and b induce the same map: E_D equal and a(x) == b(x) as sets for every x.
// Decided structurally (canonical D equal, and per axis canonical R and O equal when the
// gap condition holds on both sides); otherwise the per-axis replica point sets are
// compared, which fails with ResourceExhausted beyond kMaxEnumeratedPoints values.
absl::StatusOr<bool> Equivalent(const Layout& a, const Layout& b);

}  // namespace axe

#endif  // AXE_LAYOUT_CANONICAL_H_
