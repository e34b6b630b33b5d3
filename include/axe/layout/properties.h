// Derived properties of layouts: injectivity, the storage (memory-only) view, triviality.
//
//   Storage(*Layout::Parse("S[(8,4,2):(4@laneid,1@laneid,1)]"))   // S[2:1]
#ifndef AXE_LAYOUT_PROPERTIES_H_
#define AXE_LAYOUT_PROPERTIES_H_

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"

namespace axe {

// True iff no two distinct logical points share a physical point: L(x) ∩ L(y) = ∅ for all
// x != y (replica copies of one point do not count). Decided per axis: a mixed radix over
// the axis's shard and (gap-condition) replica iters is injective; otherwise the axis's
// values are enumerated, which fails with ResourceExhausted beyond kMaxEnumeratedPoints.
absl::StatusOr<bool> IsInjective(const Layout& layout);

// The projection onto memory axes: drops every iter of D and R on a non-memory axis and
// every non-memory offset, then canonicalizes. On a thread- or device-distributed layout
// this is the local view one thread or device holds. A layout with no memory iter gives
// S[1:1] (plus its memory offsets).
Layout Storage(const Layout& layout);

// True for a single memory iter of stride 1 on `m` with no R and no O (S[n:1]).
bool IsTrivial(const Layout& layout);

}  // namespace axe

#endif  // AXE_LAYOUT_PROPERTIES_H_
