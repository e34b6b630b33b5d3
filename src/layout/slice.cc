#include "axe/layout/slice.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "algebra_internal.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"
#include "axe/layout/canonical.h"
#include "axe/layout/group.h"

namespace axe {
namespace {

// f_block(x): the block's map at block index x in [0, prod of extents).
PhysCoord BlockMap(const std::vector<Iter>& block, int64_t x) {
  PhysCoord p;
  for (size_t k = block.size(); k-- > 0;) {
    p.add(block[k].axis, (x % block[k].extent) * block[k].stride);  // within the layout's range
    x /= block[k].extent;
  }
  return p;
}

// Slices one dimension's block; appends the result iters and adds the offset.
// Returns a reason when neither sufficient form applies.
std::optional<std::string> SliceBlock(const std::vector<Iter>& block, int64_t b, int64_t t,
                                      size_t dim, std::vector<Iter>& out, PhysCoord& offset) {
  const size_t n = block.size();
  if (n == 1) {  // no modulo needed
    out.push_back(Iter{t, block[0].stride, block[0].axis});
    offset.add(block[0].axis, b * block[0].stride);
    return std::nullopt;
  }
  std::vector<int64_t> weight(n), d0(n);
  int64_t w = 1;
  for (size_t k = n; k-- > 0;) {
    weight[k] = w;
    d0[k] = (b / w) % block[k].extent;
    w *= block[k].extent;
  }
  const PhysCoord start = BlockMap(block, b);
  for (const auto& [axis, value] : start.entries()) offset.add(axis, value);
  int64_t rem = t;
  size_t k = n;  // digits [k, n) are peeled
  while (k > 0 && d0[k - 1] == 0 && rem % block[k - 1].extent == 0) {
    rem /= block[k - 1].extent;
    --k;
  }
  const std::vector<Iter> peeled(block.begin() + static_cast<std::ptrdiff_t>(k), block.end());
  if (k == 0) {
    out.insert(out.end(), peeled.begin(), peeled.end());
    return std::nullopt;
  }
  const size_t pivot = k - 1;
  const Iter& p = block[pivot];
  if (d0[pivot] + rem <= p.extent) {  // no wrap
    out.push_back(Iter{rem, p.stride, p.axis});
    out.insert(out.end(), peeled.begin(), peeled.end());
    return std::nullopt;
  }
  if (rem % 2 == 0 && d0[pivot] + rem / 2 == p.extent) {  // symmetric one-wrap
    std::optional<PhysCoord> delta =
        CheckedDifference(BlockMap(block, b + (rem / 2) * weight[pivot]), start);
    if (delta && delta->entries().size() == 1) {
      const auto& [axis, value] = delta->entries()[0];
      out.push_back(Iter{2, value, axis});
      out.push_back(Iter{rem / 2, p.stride, p.axis});
      out.insert(out.end(), peeled.begin(), peeled.end());
      return std::nullopt;
    }
    return absl::StrCat("dimension ", dim, ": the region wraps once around digit ", pivot, " (",
                        p.ToString(), ") but the jump between the two halves, ",
                        delta ? delta->ToString() : std::string("(overflow)"),
                        ", is not on exactly one axis");
  }
  return absl::StrCat("dimension ", dim, ": the region [", b, ", ", b + t,
                      ") is neither a contiguous run of digit ", pivot, " (", p.ToString(),
                      ", starting at ", d0[pivot], ", ", rem,
                      " steps) nor a symmetric single wrap of it");
}

}  // namespace

absl::StatusOr<MaybeLayout> Slice(const Layout& layout, absl::Span<const int64_t> shape,
                                  absl::Span<const Interval> region) {
  AXE_RETURN_IF_ERROR(internal::Annotate(CheckShapeAdmitted(layout, shape), "slice: "));
  if (region.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat("slice: the region ", BoxToString(region),
                                                   " has rank ", region.size(), " but the shape ",
                                                   FormatTuple(shape), " has rank ", shape.size()));
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    const Interval& r = region[i];
    if (r.begin < 0 || r.end <= r.begin || r.end > shape[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "slice: dimension ", i, ": the interval ", r.begin, ":", r.end,
          " is not a non-empty part of [0, ", shape[i], ") (shape ", FormatTuple(shape), ")"));
    }
  }
  const Layout canonical = Canonicalize(layout);
  absl::StatusOr<Grouped> g = Group(canonical, shape);
  if (!g.ok())
    return MaybeLayout::None(
        absl::StrCat("the shape does not group the layout: ", g.status().message()));
  std::vector<Iter> shard;
  PhysCoord offset = canonical.offset();
  for (size_t i = 0; i < shape.size(); ++i) {
    std::optional<std::string> why =
        SliceBlock(internal::Block(*g, i), region[i].begin, region[i].size(), i, shard, offset);
    if (why) return MaybeLayout::None(*why);
  }
  // Offsets stay within the layout's validated range (they are values of f_L plus O).
  absl::StatusOr<Layout> out =
      Layout::Create(std::move(shard), canonical.replica(), std::move(offset));
  if (!out.ok()) return internal::Annotate(out.status(), "slice: ");
  return MaybeLayout::Some(Canonicalize(*out));
}

}  // namespace axe
