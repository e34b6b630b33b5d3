// The Axe layout L = (D, R, O) of arXiv 2601.19092: an ordered list D of shard iters, a
// multiset R of replica iters and a per-axis offset O. A logical flat index x in [0, E_D)
// is unflattened row-major by the extents of D (last iter fastest) and maps to the set
//   L(x) = { f_D(x) + O + f_R(r) : r in the replica digits }.
//
// Layouts are small immutable values: == is structural (D in order, R as a multiset, O),
// they hash, and ToString() prints the one canonical text form that Parse() reads back:
//
//   absl::StatusOr<Layout> l = Layout::Parse(
//       "S[(8,2,4,2):(4@lane,1@warp,1@lane,1@reg)] + R[2:4@warp] + 5@warp");
//   l->size();                  // 128
//   l->span(Axis::Get("warp")); // 6
//
// Equality of induced maps is `Equivalent()` (canonical.h). The grammar is in
// docs/notation.md.
#ifndef AXE_LAYOUT_LAYOUT_H_
#define AXE_LAYOUT_LAYOUT_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/hash/hash.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/axis.h"
#include "axe/layout/axis_catalog.h"
#include "axe/layout/coord.h"
#include "axe/layout/iter.h"

namespace axe {

class Layout {
 public:
  // Validates and builds a layout. Errors (InvalidArgument) name the offending iter:
  //  - D is empty;
  //  - two axes share a name (with different kinds: x as a thread and as a device axis);
  //  - an extent < 1;
  //  - a replica stride of 0 (a shard stride of 0 is a broadcast dimension and is fine);
  //  - E_D, E_R, a span, the memory span over all memory axes, or any mapped value
  //    (O + the extreme sums of strides) overflows int64.
  static absl::StatusOr<Layout> Create(std::vector<Iter> shard, std::vector<Iter> replica = {},
                                       PhysCoord offset = {});

  // Parses the text form (docs/notation.md). Bare axis names take their kind from `catalog`
  // unless the text's `where` clause names it. Errors give the 0-based position and what
  // was expected, e.g. "position 4: expected ')' or ',', found ']' in \"S[(8]\"".
  static absl::StatusOr<Layout> Parse(absl::string_view text,
                                      const AxisCatalog& catalog = AxisCatalog::Standard());

  // The compact row-major layout S[(e0,...)] on `axis` (last stride 1).
  static absl::StatusOr<Layout> RowMajor(absl::Span<const int64_t> extents,
                                         Axis axis = Axis::Memory());

  const std::vector<Iter>& shard() const { return shard_; }
  const std::vector<Iter>& replica() const { return replica_; }
  const PhysCoord& offset() const { return offset_; }

  // E_D: the number of logical points.
  int64_t size() const { return size_; }
  // Product of the extents of the shard iters on `a` (1 if none).
  int64_t size(Axis a) const;
  // E_R: the number of replica digit combinations (1 when R is empty).
  int64_t replica_size() const;
  // Offset-free span on `a`: 1 + sum over D and R iters on a of |s|(e-1) (1 if unused).
  int64_t span(Axis a) const;
  // The same over all memory axes together.
  int64_t span_memory() const;
  // Axes used by D, R or O, in print order: first use in D, then in R, then the rest of
  // O sorted by name.
  std::vector<Axis> axes() const;
  // True if some iter of D or R, or O, is on `a`.
  bool uses(Axis a) const;

  // The canonical text of this value (not of its canonical form; see Canonicalize()).
  std::string ToString() const;

  friend bool operator==(const Layout& a, const Layout& b);
  template <typename H>
  friend H AbslHashValue(H h, const Layout& l) {
    h = H::combine_contiguous(std::move(h), l.shard_.data(), l.shard_.size());
    std::vector<Iter> r = l.SortedReplica();
    h = H::combine_contiguous(std::move(h), r.data(), r.size());
    return H::combine(std::move(h), l.shard_.size(), r.size(), l.offset_);
  }
  friend std::ostream& operator<<(std::ostream& os, const Layout& l) { return os << l.ToString(); }

 private:
  Layout() = default;
  // R sorted by (axis name, stride, extent): the multiset's canonical order.
  std::vector<Iter> SortedReplica() const;

  std::vector<Iter> shard_;
  std::vector<Iter> replica_;
  PhysCoord offset_;
  int64_t size_ = 1;
};

// Sorts iters by (axis name, stride, extent).
void SortReplicaIters(std::vector<Iter>& iters);

// The bracket contents of S[...] / R[...]: "e:s@a" for one iter, else "(e,...):(s@a,...)".
std::string FormatIters(absl::Span<const Iter> iters);

// " where x:device, ..." for the axes among `axes` whose kind is not the one the standard
// catalogue gives their name ("" when there are none).
std::string FormatAxisKinds(absl::Span<const Axis> axes);

// Prints the text form of raw parts (also for parts that do not form a valid layout; used
// in error messages).
std::string FormatLayoutParts(absl::Span<const Iter> shard, absl::Span<const Iter> replica,
                              const PhysCoord& offset);

}  // namespace axe

#endif  // AXE_LAYOUT_LAYOUT_H_
