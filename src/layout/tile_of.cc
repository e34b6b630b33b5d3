#include "axe/layout/tile_of.h"

#include <algorithm>
#include <string>
#include <variant>

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"
#include "axe/layout/tile.h"
#include "point_set.h"

namespace axe {
namespace {

// Point sets enumerated by the set-based replica split are limited to this many values.
constexpr int64_t kMaxSplitPoints = int64_t{1} << 16;

std::string Describe(absl::Span<const Iter> iters) {
  std::vector<Iter> n = internal::NormalizedIters(iters);
  return n.empty() ? std::string("(a single point)") : FormatIters(n);
}

// The outer and inner parts of A per rank, from grouping A by the interleaved shape.
struct Parts {
  std::vector<std::vector<Iter>> outer, inner;
};

std::optional<Parts> SplitTiled(const Layout& a, absl::Span<const int64_t> outer_shape,
                                absl::Span<const int64_t> inner_shape, std::string* reason) {
  std::vector<int64_t> interleaved;
  for (size_t j = 0; j < outer_shape.size(); ++j) {
    interleaved.push_back(outer_shape[j]);
    interleaved.push_back(inner_shape[j]);
  }
  absl::StatusOr<Grouped> g = Group(a, interleaved);
  if (!g.ok()) {
    *reason = absl::StrCat("A cannot be grouped by the interleaved shape ",
                           FormatTuple(interleaved), ": ", g.status().message());
    return std::nullopt;
  }
  Parts p;
  for (size_t j = 0; j < outer_shape.size(); ++j) {
    p.outer.push_back(internal::Block(*g, 2 * j));
    p.inner.push_back(internal::Block(*g, 2 * j + 1));
  }
  return p;
}

// big - small as multisets (nullopt when small is not contained in big).
std::optional<std::vector<Iter>> MultisetMinus(std::vector<Iter> big,
                                               const std::vector<Iter>& small) {
  for (const Iter& it : small) {
    auto pos = std::find(big.begin(), big.end(), it);
    if (pos == big.end()) return std::nullopt;
    big.erase(pos);
  }
  return big;
}

int64_t Width(const std::vector<Iter>& iters) {
  int64_t w = 0;
  for (const Iter& it : iters)
    w += (it.stride < 0 ? -it.stride : it.stride) * (it.extent - 1);  // valid layouts
  return w;
}

// Replica iters and offset of the unknown layout on one axis.
struct AxisPart {
  std::vector<Iter> replica;
  int64_t offset = 0;
};

absl::StatusOr<std::vector<int64_t>> PointSet(int64_t offset, const std::vector<Iter>& iters) {
  return internal::DistinctSums(offset, iters, kMaxSplitPoints);
}

// Inner known: find (R_C, O_C) on `axis` with W * P_C + P_B == P_A.
std::optional<AxisPart> OuterOnAxis(Axis axis, const Layout& a, const Layout& b, int64_t w,
                                    std::string* reason) {
  const std::vector<Iter> ra = internal::ItersOn(a.replica(), axis),
                          rb = internal::ItersOn(b.replica(), axis);
  const int64_t oa = a.offset().get(axis), ob = b.offset().get(axis);
  // Structural: R_A = W ⊙ R_C ⊎ R_B and O_A = W O_C + O_B.
  if (std::optional<std::vector<Iter>> rest = MultisetMinus(ra, rb)) {
    std::optional<int64_t> diff = CheckedSub(oa, ob);
    bool divisible = diff && *diff % w == 0;
    for (const Iter& it : *rest) divisible = divisible && it.stride % w == 0;
    if (divisible) {
      AxisPart out{{}, *diff / w};
      for (const Iter& it : *rest) out.replica.push_back(Iter{it.extent, it.stride / w, axis});
      return out;
    }
  }
  // By point sets: the translates W q + P_B (q in P_C) are disjoint because W exceeds the
  // width of P_B, so peeling them off P_A from the smallest value finds P_C if it exists.
  absl::StatusOr<std::vector<int64_t>> pa = PointSet(oa, ra), pb = PointSet(ob, rb);
  if (!pa.ok() || !pb.ok()) {
    *reason = absl::StrCat("axis ", axis.name(), ": too many replica points to split");
    return std::nullopt;
  }
  std::vector<bool> taken(pa->size(), false);
  std::vector<int64_t> q;
  for (size_t i = 0; i < pa->size(); ++i) {
    if (taken[i]) continue;
    std::optional<int64_t> diff = CheckedSub((*pa)[i], pb->front());
    if (!diff || FloorMod(*diff, w) != 0) {
      *reason = absl::StrCat("axis ", axis.name(), ": the replica point ", (*pa)[i],
                             " of A is not a translate of B's replica points by a multiple of ", w);
      return std::nullopt;
    }
    const int64_t d = *diff;
    for (int64_t v : *pb) {
      std::optional<int64_t> target = CheckedAdd(d, v);
      auto pos = target ? std::lower_bound(pa->begin(), pa->end(), *target) : pa->end();
      if (pos == pa->end() || *pos != *target || taken[static_cast<size_t>(pos - pa->begin())]) {
        *reason = absl::StrCat("axis ", axis.name(),
                               ": A's replica points are not a union of translates of B's");
        return std::nullopt;
      }
      taken[static_cast<size_t>(pos - pa->begin())] = true;
    }
    q.push_back(d / w);
  }
  std::optional<internal::ReplicaDecomposition> dec = internal::DecomposePointSet(q, axis);
  if (!dec) {
    *reason =
        absl::StrCat("axis ", axis.name(), ": the outer replica points form no replica iters");
    return std::nullopt;
  }
  return AxisPart{dec->iters, dec->offset};
}

// Outer known: find (R_B, O_B) on `axis` with W * P_C + P_B == P_A, W = w_shard + width(P_B).
std::optional<AxisPart> InnerOnAxis(Axis axis, const Layout& a, const Layout& c, int64_t w_shard,
                                    std::string* reason) {
  const std::vector<Iter> ra = internal::ItersOn(a.replica(), axis),
                          rc = internal::ItersOn(c.replica(), axis);
  const int64_t oa = a.offset().get(axis), oc = c.offset().get(axis);
  const bool c_uses = c.uses(axis);
  if (!c_uses) return AxisPart{ra, oa};  // the tile does not touch this axis of A
  // width(P_A) = W width(P_C) + width(P_B) and W = w_shard + width(P_B) determine width(P_B).
  const int64_t wa = Width(ra), wc = Width(rc);
  std::optional<int64_t> prod = CheckedMul(w_shard, wc);
  std::optional<int64_t> num = prod ? CheckedSub(wa, *prod) : std::nullopt;
  if (!num || *num < 0 || *num % (wc + 1) != 0) {
    *reason = absl::StrCat("axis ", axis.name(), ": no inner span W fits the replica widths of A (",
                           wa, ") and C (", wc, ")");
    return std::nullopt;
  }
  const int64_t wb = *num / (wc + 1);
  const int64_t w = w_shard + wb;
  // Structural: R_A = W ⊙ R_C ⊎ R_B.
  std::vector<Iter> scaled;
  bool fits = true;
  for (const Iter& it : rc) {
    std::optional<int64_t> s = CheckedMul(it.stride, w);
    fits = fits && s.has_value();
    if (s) scaled.push_back(Iter{it.extent, *s, axis});
  }
  std::optional<int64_t> oc_scaled = CheckedMul(oc, w);
  if (fits && oc_scaled) {
    if (std::optional<std::vector<Iter>> rest = MultisetMinus(ra, scaled)) {
      std::optional<int64_t> ob = CheckedSub(oa, *oc_scaled);
      if (ob && Width(*rest) == wb) return AxisPart{*rest, *ob};
    }
  }
  // By point sets: the first translate W min(P_C) + P_B is P_A ∩ [min P_A, min P_A + width(P_B)].
  absl::StatusOr<std::vector<int64_t>> pa = PointSet(oa, ra), pc = PointSet(oc, rc);
  if (!pa.ok() || !pc.ok()) {
    *reason = absl::StrCat("axis ", axis.name(), ": too many replica points to split");
    return std::nullopt;
  }
  std::optional<int64_t> shift = CheckedMul(w, pc->front());
  if (!shift) {
    *reason = absl::StrCat("axis ", axis.name(), ": offsets overflow int64");
    return std::nullopt;
  }
  std::vector<int64_t> pb;
  for (int64_t v : *pa) {
    if (v - pa->front() > wb) break;  // both are points of A: the difference fits
    std::optional<int64_t> b = CheckedSub(v, *shift);
    if (!b) {
      *reason = absl::StrCat("axis ", axis.name(), ": offsets overflow int64");
      return std::nullopt;
    }
    pb.push_back(*b);
  }
  std::optional<internal::ReplicaDecomposition> dec = internal::DecomposePointSet(pb, axis);
  if (!dec) {
    *reason =
        absl::StrCat("axis ", axis.name(), ": the inner replica points form no replica iters");
    return std::nullopt;
  }
  return AxisPart{dec->iters, dec->offset};
}

absl::Status CheckInputs(const Layout& a, absl::Span<const int64_t> a_shape, const Layout& known,
                         absl::Span<const int64_t> known_shape, absl::string_view which) {
  AXE_RETURN_IF_ERROR(internal::Annotate(
      internal::CheckSameRank(a_shape, "tiled shape", known_shape, absl::StrCat(which, " shape")),
      "tile-of: "));
  AXE_RETURN_IF_ERROR(
      internal::Annotate(CheckShapeAdmitted(a, a_shape), "tile-of: tiled layout: "));
  return internal::Annotate(CheckShapeAdmitted(known, known_shape),
                            absl::StrCat("tile-of: ", which, " layout: "));
}

// Builds the candidate and verifies Tile(outer, outer_shape, inner, inner_shape) ≡ a.
MaybeLayout Verify(absl::StatusOr<Layout> candidate, bool candidate_is_outer, const Layout& known,
                   absl::Span<const int64_t> outer_shape, absl::Span<const int64_t> inner_shape,
                   const Layout& a) {
  if (!candidate.ok())
    return MaybeLayout::None(absl::StrCat("no valid candidate: ", candidate.status().message()));
  const Layout& outer = candidate_is_outer ? *candidate : known;
  const Layout& inner = candidate_is_outer ? known : *candidate;
  absl::StatusOr<Layout> t = Tile(outer, outer_shape, inner, inner_shape);
  if (!t.ok()) {
    return MaybeLayout::None(absl::StrCat("the candidate ", candidate->ToString(),
                                          " cannot be tiled: ", t.status().message()));
  }
  absl::StatusOr<bool> same = Equivalent(*t, a);
  if (!same.ok()) {
    return MaybeLayout::None(absl::StrCat("the candidate ", candidate->ToString(),
                                          " could not be verified: ", same.status().message()));
  }
  if (!*same) {
    return MaybeLayout::None(absl::StrCat("re-tiling the candidate ", candidate->ToString(),
                                          " gives ", t->ToString(), ", not A"));
  }
  return MaybeLayout::Some(Canonicalize(*candidate));
}

// What both directions start from: canonical A and the known layout, both shapes, and A
// split by the interleaved shape.
struct Problem {
  Layout a, known;
  std::vector<int64_t> outer_shape, inner_shape;
  Parts parts;
};

// Input errors as a status; "no answer" when the shapes do not divide or A does not split.
absl::StatusOr<std::variant<Problem, MaybeLayout>> Prepare(const Layout& a,
                                                           absl::Span<const int64_t> a_shape,
                                                           const Layout& known,
                                                           absl::Span<const int64_t> known_shape,
                                                           bool known_is_inner) {
  const char* which = known_is_inner ? "inner" : "outer";
  AXE_RETURN_IF_ERROR(CheckInputs(a, a_shape, known, known_shape, which));
  std::optional<std::vector<int64_t>> missing = QuotientShape(a_shape, known_shape);
  if (!missing) {
    return MaybeLayout::None(absl::StrCat("the ", which, " shape ", FormatTuple(known_shape),
                                          " does not divide the tiled shape ",
                                          FormatTuple(a_shape)));
  }
  Problem p{
      Canonicalize(a),
      Canonicalize(known),
      known_is_inner ? *missing : std::vector<int64_t>(known_shape.begin(), known_shape.end()),
      known_is_inner ? std::vector<int64_t>(known_shape.begin(), known_shape.end()) : *missing,
      {}};
  std::string reason;
  std::optional<Parts> parts = SplitTiled(p.a, p.outer_shape, p.inner_shape, &reason);
  if (!parts) return MaybeLayout::None(reason);
  p.parts = *std::move(parts);
  return p;
}

// Completes the candidate with replicas and offsets solved per axis, then verifies it.
template <typename SolveAxis>
MaybeLayout Finish(const Problem& p, std::vector<Iter> shard, bool candidate_is_outer,
                   SolveAxis solve) {
  std::vector<Iter> replica;
  PhysCoord offset;
  std::string reason;
  for (Axis axis : internal::ReplicaOrOffsetAxes({&p.a, &p.known})) {
    std::optional<AxisPart> part = solve(axis, &reason);
    if (!part) return MaybeLayout::None(reason);
    replica.insert(replica.end(), part->replica.begin(), part->replica.end());
    offset.set(axis, part->offset);
  }
  return Verify(Layout::Create(std::move(shard), std::move(replica), std::move(offset)),
                candidate_is_outer, p.known, p.outer_shape, p.inner_shape, p.a);
}

}  // namespace

std::optional<std::vector<int64_t>> QuotientShape(absl::Span<const int64_t> a_shape,
                                                  absl::Span<const int64_t> part_shape) {
  if (a_shape.size() != part_shape.size()) return std::nullopt;
  std::vector<int64_t> q;
  for (size_t j = 0; j < a_shape.size(); ++j) {
    if (part_shape[j] < 1 || a_shape[j] % part_shape[j] != 0) return std::nullopt;
    q.push_back(a_shape[j] / part_shape[j]);
  }
  return q;
}

absl::StatusOr<MaybeLayout> TileOfInner(const Layout& a_in, absl::Span<const int64_t> a_shape,
                                        const Layout& inner,
                                        absl::Span<const int64_t> inner_shape) {
  AXE_ASSIGN_OR_RETURN(auto prepared,
                       Prepare(a_in, a_shape, inner, inner_shape, /*known_is_inner=*/true));
  if (MaybeLayout* none = std::get_if<MaybeLayout>(&prepared)) return *none;
  const Problem& p = std::get<Problem>(prepared);
  const Layout& b = p.known;
  absl::StatusOr<Grouped> gb = Group(b, inner_shape);
  if (!gb.ok()) return MaybeLayout::None(absl::StrCat("B does not group: ", gb.status().message()));
  std::vector<Iter> shard;
  for (size_t j = 0; j < inner_shape.size(); ++j) {
    std::vector<Iter> want = internal::NormalizedIters(internal::Block(*gb, j));
    if (internal::NormalizedIters(p.parts.inner[j]) != want) {
      return MaybeLayout::None(
          absl::StrCat("dimension ", j, ": the intra-tile part of A, ", Describe(p.parts.inner[j]),
                       ", differs from B's block, ", Describe(internal::Block(*gb, j))));
    }
    for (const Iter& it : p.parts.outer[j]) {
      if (it.extent == 1) {
        shard.push_back(Iter{1, 1, it.axis});
        continue;
      }
      const int64_t w = b.span(it.axis);
      if (it.stride % w != 0) {
        return MaybeLayout::None(absl::StrCat("dimension ", j, ": the inter-tile iter ",
                                              it.ToString(), " of A is not a multiple of B's span ",
                                              w, " on axis ", it.axis.name()));
      }
      shard.push_back(Iter{it.extent, it.stride / w, it.axis});
    }
  }
  return Finish(p, std::move(shard), /*candidate_is_outer=*/true,
                [&](Axis axis, std::string* reason) {
                  return OuterOnAxis(axis, p.a, b, b.span(axis), reason);
                });
}

absl::StatusOr<MaybeLayout> TileOfOuter(const Layout& a_in, absl::Span<const int64_t> a_shape,
                                        const Layout& outer,
                                        absl::Span<const int64_t> outer_shape) {
  AXE_ASSIGN_OR_RETURN(auto prepared,
                       Prepare(a_in, a_shape, outer, outer_shape, /*known_is_inner=*/false));
  if (MaybeLayout* none = std::get_if<MaybeLayout>(&prepared)) return *none;
  const Problem& p = std::get<Problem>(prepared);
  std::vector<Iter> shard;
  for (const std::vector<Iter>& block : p.parts.inner)
    shard.insert(shard.end(), block.begin(), block.end());
  return Finish(p, shard, /*candidate_is_outer=*/false, [&](Axis axis, std::string* reason) {
    int64_t w_shard = 1;  // part of A's span: fits
    for (const Iter& it : internal::ItersOn(shard, axis))
      w_shard += (it.stride < 0 ? -it.stride : it.stride) * (it.extent - 1);
    return InnerOnAxis(axis, p.a, p.known, w_shard, reason);
  });
}

}  // namespace axe
