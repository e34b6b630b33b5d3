#include "axe/layout/direct_sum.h"

#include "absl/strings/str_cat.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"

namespace axe {

absl::StatusOr<Layout> DirectSum(const Layout& a, absl::Span<const int64_t> a_shape,
                                 const Layout& b, absl::Span<const int64_t> b_shape) {
  AXE_RETURN_IF_ERROR(internal::Annotate(
      internal::CheckSameRank(a_shape, "left shape", b_shape, "right shape"), "direct sum: "));
  absl::StatusOr<Grouped> ga = Group(Canonicalize(a), a_shape);
  if (!ga.ok()) return internal::Annotate(ga.status(), "direct sum: left layout: ");
  absl::StatusOr<Grouped> gb = Group(Canonicalize(b), b_shape);
  if (!gb.ok()) return internal::Annotate(gb.status(), "direct sum: right layout: ");
  std::vector<Iter> shard;
  for (size_t j = 0; j < a_shape.size(); ++j) {
    for (const Iter& it : internal::Block(*ga, j)) shard.push_back(it);
    for (const Iter& it : internal::Block(*gb, j)) shard.push_back(it);
  }
  std::vector<Iter> replica = ga->layout.replica();
  replica.insert(replica.end(), gb->layout.replica().begin(), gb->layout.replica().end());
  PhysCoord offset = ga->layout.offset();
  for (const auto& [axis, value] : gb->layout.offset().entries()) {
    std::optional<int64_t> sum = CheckedAdd(offset.get(axis), value);
    if (!sum) {
      return absl::InvalidArgumentError(
          absl::StrCat("direct sum: the offset on axis ", axis.name(), " overflows int64"));
    }
    offset.set(axis, *sum);
  }
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), std::move(replica), std::move(offset));
  if (!out.ok()) return internal::Annotate(out.status(), "direct sum: ");
  return Canonicalize(*out);
}

}  // namespace axe
