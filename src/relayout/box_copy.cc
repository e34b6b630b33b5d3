#include "axe/relayout/box_copy.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/relayout/relayout_plan.h"

namespace axe::relayout {

namespace {

absl::Status CheckBox(absl::Span<const Interval> box, absl::Span<const int64_t> shape,
                      absl::string_view what) {
  if (box.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " box has rank ", box.size(),
                                                   " but the tensor has rank ", shape.size()));
  }
  for (size_t i = 0; i < box.size(); ++i) {
    if (box[i].begin < 0 || box[i].end < box[i].begin || box[i].end > shape[i]) {
      return absl::InvalidArgumentError(absl::StrCat(what, " box [", box[i].begin, ", ", box[i].end,
                                                     ") of dimension ", i, " is outside [0, ",
                                                     shape[i], ")"));
    }
  }
  return absl::OkStatus();
}

// The layout of `box` inside a stored tensor, or nullopt when Slice has no answer.
absl::StatusOr<std::optional<Layout>> SliceToBox(const BufferLayout& layout,
                                                 absl::Span<const int64_t> shape,
                                                 absl::Span<const Interval> box) {
  std::vector<int64_t> domain = layout.DomainFor(shape);
  bool whole = true;
  for (size_t i = 0; i < box.size() && whole; ++i) {
    whole = box[i].begin == 0 && box[i].end == domain[i];
  }
  if (whole) return std::optional<Layout>(layout.layout);
  AXE_ASSIGN_OR_RETURN(MaybeLayout sliced, Slice(layout.layout, domain, box));
  return sliced.layout;
}

// The offset (in (0, extent)) at which to cut two boxes of the same extent along one
// dimension: where the source index is a multiple of the largest power of two that has a
// multiple inside the source interval (tiles of power-of-two sizes are then cut at tile
// boundaries), unless that leaves the destination at an odd offset while its own such cut
// would not; the middle when neither helps.
int64_t AlignedCut(const Interval& src, const Interval& dst) {
  auto cut_of = [](const Interval& r) -> std::pair<int64_t, int> {
    for (int k = 62; k >= 0; --k) {
      const int64_t p = int64_t{1} << k;
      std::optional<int64_t> m = CheckedAdd(r.begin - r.begin % p, p);  // begin >= 0
      if (m && *m < r.end) return {*m - r.begin, k};
    }
    return {r.size() / 2, 0};
  };
  const auto [src_cut, src_k] = cut_of(src);
  const auto [dst_cut, dst_k] = cut_of(dst);
  return dst_k > src_k ? dst_cut : src_cut;
}

// The longest dimension of `box` (of extent > 1) whose interval alone, the other
// dimensions whole, cannot be sliced out of the tensor's layout; nullopt when there is none.
template <typename Tensor>
absl::StatusOr<std::optional<size_t>> BadDimension(const Tensor& t,
                                                   absl::Span<const Interval> box) {
  const std::vector<int64_t> domain = t.layout.DomainFor(t.shape);
  std::optional<size_t> bad;
  for (size_t i = 0; i < box.size(); ++i) {
    if (box[i].size() <= 1 || (box[i].begin == 0 && box[i].end == domain[i])) continue;
    std::vector<Interval> region;
    for (int64_t d : domain) region.push_back({0, d});
    region[i] = box[i];
    AXE_ASSIGN_OR_RETURN(MaybeLayout sliced, Slice(t.layout.layout, domain, region));
    if (!sliced.has_value() && (!bad || box[i].size() > box[*bad].size())) bad = i;
  }
  return bad;
}

absl::Status CopyBoxRecursive(const StoredTensor& src, std::vector<Interval> src_box,
                              const MutableStoredTensor& dst, std::vector<Interval> dst_box,
                              int element_bytes) {
  AXE_ASSIGN_OR_RETURN(std::optional<Layout> from, SliceToBox(src.layout, src.shape, src_box));
  AXE_ASSIGN_OR_RETURN(std::optional<Layout> to, SliceToBox(dst.layout, dst.shape, dst_box));
  std::vector<int64_t> extents;
  for (const Interval& r : src_box) extents.push_back(r.size());
  if (from.has_value() && to.has_value()) {
    RelayoutOptions options;
    options.threads = 1;
    return Relayout(*from, *to, extents, element_bytes, src.data, dst.data, options);
  }
  // Cut a dimension in two (a box of single elements always slices): the longest of those
  // whose interval alone cannot be sliced out on one side, else the longest.
  AXE_ASSIGN_OR_RETURN(std::optional<size_t> bad_src, BadDimension(src, src_box));
  AXE_ASSIGN_OR_RETURN(std::optional<size_t> bad_dst, BadDimension(dst, dst_box));
  size_t longest = 0;
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i] > extents[longest]) longest = i;
  }
  if (bad_src || bad_dst) {
    longest = bad_src.value_or(*bad_dst);
    if (bad_src && bad_dst && extents[*bad_dst] > extents[*bad_src]) longest = *bad_dst;
  }
  if (extents.empty() || extents[longest] <= 1) {
    return absl::InternalError("a single element could not be sliced out of its layout");
  }
  const int64_t cut = AlignedCut(src_box[longest], dst_box[longest]);
  std::vector<Interval> src_hi = src_box, dst_hi = dst_box;
  src_box[longest].end = src_box[longest].begin + cut;
  dst_box[longest].end = dst_box[longest].begin + cut;
  src_hi[longest].begin = src_box[longest].end;
  dst_hi[longest].begin = dst_box[longest].end;
  AXE_RETURN_IF_ERROR(CopyBoxRecursive(src, src_box, dst, dst_box, element_bytes));
  return CopyBoxRecursive(src, std::move(src_hi), dst, std::move(dst_hi), element_bytes);
}

}  // namespace

absl::StatusOr<BufferLayout> RowMajorBuffer(absl::Span<const int64_t> shape) {
  if (shape.empty()) {
    AXE_ASSIGN_OR_RETURN(Layout point, Layout::RowMajor(std::vector<int64_t>{1}));
    return BufferLayout(std::move(point), {});
  }
  std::vector<int64_t> domain(shape.begin(), shape.end());
  for (int64_t& d : domain) d = std::max<int64_t>(d, 1);
  AXE_ASSIGN_OR_RETURN(Layout l, Layout::RowMajor(domain));
  return BufferLayout(std::move(l));
}

absl::Status CopyBox(const StoredTensor& src, absl::Span<const Interval> src_box,
                     const MutableStoredTensor& dst, absl::Span<const Interval> dst_box,
                     int element_bytes) {
  AXE_RETURN_IF_ERROR(CheckBox(src_box, src.shape, "source"));
  AXE_RETURN_IF_ERROR(CheckBox(dst_box, dst.shape, "destination"));
  for (size_t i = 0; i < src_box.size(); ++i) {
    if (i >= dst_box.size() || src_box[i].size() != dst_box[i].size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "the boxes differ in dimension ", i, ": the source's has extent ", src_box[i].size(),
          ", the destination's ", i < dst_box.size() ? dst_box[i].size() : 0));
    }
  }
  if (src_box.size() != dst_box.size()) {
    return absl::InvalidArgumentError("the source and destination boxes differ in rank");
  }
  if (BoxElements(src_box).value_or(1) == 0) return absl::OkStatus();
  return CopyBoxRecursive(src, {src_box.begin(), src_box.end()}, dst,
                          {dst_box.begin(), dst_box.end()}, element_bytes);
}

}  // namespace axe::relayout
