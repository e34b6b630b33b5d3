#include "axe/runtime/box_copy.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "axe/runtime/relayout_plan.h"

namespace axe::runtime {

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
  // Halve the longest dimension (every dimension of extent 1 always slices).
  size_t longest = 0;
  for (size_t i = 1; i < extents.size(); ++i) {
    if (extents[i] > extents[longest]) longest = i;
  }
  if (extents.empty() || extents[longest] <= 1) {
    return absl::InternalError("a single element could not be sliced out of its layout");
  }
  int64_t half = extents[longest] / 2;
  std::vector<Interval> src_hi = src_box, dst_hi = dst_box;
  src_box[longest].end = src_box[longest].begin + half;
  dst_box[longest].end = dst_box[longest].begin + half;
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

}  // namespace axe::runtime
