#include "axe/layout/tile.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"

namespace axe {

absl::StatusOr<Layout> Tile(const Layout& outer, absl::Span<const int64_t> outer_shape,
                            const Layout& inner, absl::Span<const int64_t> inner_shape) {
  AXE_RETURN_IF_ERROR(internal::Annotate(
      internal::CheckSameRank(outer_shape, "outer shape", inner_shape, "inner shape"), "tile: "));
  const Layout a = Canonicalize(outer), b = Canonicalize(inner);
  absl::StatusOr<Grouped> ga = Group(a, outer_shape);
  if (!ga.ok()) return internal::Annotate(ga.status(), "tile: outer layout: ");
  absl::StatusOr<Grouped> gb = Group(b, inner_shape);
  if (!gb.ok()) return internal::Annotate(gb.status(), "tile: inner layout: ");

  // Σ[a] = span_a(B): Layout::span is offset-free over D and R, and 1 on unused axes.
  auto scale = [&b](const Iter& it) -> absl::StatusOr<Iter> {
    absl::StatusOr<Iter> s = internal::ScaleIter(it, b.span(it.axis));
    if (!s.ok()) return internal::Annotate(s.status(), "tile: ");
    return s;
  };
  std::vector<Iter> shard, replica;
  for (size_t j = 0; j < outer_shape.size(); ++j) {
    for (const Iter& it : internal::Block(*ga, j)) {
      AXE_ASSIGN_OR_RETURN(Iter s, scale(it));
      shard.push_back(s);
    }
    for (const Iter& it : internal::Block(*gb, j)) shard.push_back(it);
  }
  for (const Iter& it : a.replica()) {
    AXE_ASSIGN_OR_RETURN(Iter s, scale(it));
    replica.push_back(s);
  }
  replica.insert(replica.end(), b.replica().begin(), b.replica().end());
  PhysCoord offset = b.offset();
  for (const auto& [axis, value] : a.offset().entries()) {
    std::optional<int64_t> scaled = CheckedMul(value, b.span(axis));
    std::optional<int64_t> sum = scaled ? CheckedAdd(*scaled, offset.get(axis)) : std::nullopt;
    if (!sum) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile: the offset on axis ", axis.name(), " overflows int64"));
    }
    offset.set(axis, *sum);
  }
  absl::StatusOr<Layout> t =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  if (!t.ok()) return internal::Annotate(t.status(), "tile: ");
  return Canonicalize(*t);
}

absl::StatusOr<std::vector<int64_t>> TiledShape(absl::Span<const int64_t> outer_shape,
                                                absl::Span<const int64_t> inner_shape) {
  AXE_RETURN_IF_ERROR(
      internal::CheckSameRank(outer_shape, "outer shape", inner_shape, "inner shape"));
  std::vector<int64_t> out;
  for (size_t j = 0; j < outer_shape.size(); ++j) {
    std::optional<int64_t> p = CheckedMul(outer_shape[j], inner_shape[j]);
    if (!p)
      return absl::InvalidArgumentError(
          absl::StrCat("tiled shape dimension ", j, " overflows int64"));
    out.push_back(*p);
  }
  return out;
}

absl::StatusOr<Layout> TileTo(const Layout& layout, absl::Span<const int64_t> to_shape,
                              absl::Span<const int64_t> cur_shape) {
  AXE_RETURN_IF_ERROR(internal::Annotate(
      internal::CheckSameRank(to_shape, "target shape", cur_shape, "current shape"), "tile_to: "));
  std::vector<int64_t> quotient;
  for (size_t j = 0; j < to_shape.size(); ++j) {
    if (cur_shape[j] < 1 || to_shape[j] < 1 || to_shape[j] % cur_shape[j] != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("tile_to: dimension ", j, ": current size ", cur_shape[j],
                       " does not divide target size ", to_shape[j], " (target ",
                       FormatTuple(to_shape), ", current ", FormatTuple(cur_shape), ")"));
    }
    quotient.push_back(to_shape[j] / cur_shape[j]);
  }
  AXE_ASSIGN_OR_RETURN(Layout outer, Layout::RowMajor(quotient));
  return Tile(outer, quotient, layout, cur_shape);
}

}  // namespace axe
