#include "axe/relayout/strided_copy.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/layout/iter.h"
#include "axe/layout/layout.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"

namespace axe::relayout {

namespace {

// The layout S[(counts):(strides)] on the memory axis (a rank-0 box: one element).
absl::StatusOr<Layout> StridedLayout(absl::Span<const int64_t> counts,
                                     absl::Span<const int64_t> strides) {
  std::vector<Iter> shard;
  for (size_t d = 0; d < counts.size(); ++d) {
    shard.push_back(Iter{counts[d], strides[d], Axis::Memory()});
  }
  if (shard.empty()) shard.push_back(Iter{1, 1, Axis::Memory()});
  return Layout::Create(std::move(shard));
}

absl::Status CheckStridedBox(absl::Span<const int64_t> src_strides,
                             absl::Span<const int64_t> dst_strides,
                             absl::Span<const int64_t> counts) {
  if (src_strides.size() != counts.size() || dst_strides.size() != counts.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "strided copy: the box has rank ", counts.size(), " but the source strides have rank ",
        src_strides.size(), " and the destination strides rank ", dst_strides.size()));
  }
  for (size_t d = 0; d < counts.size(); ++d) {
    if (counts[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("strided copy: the box's dimension ", d,
                                                     " has a negative extent ", counts[d]));
    }
  }
  return absl::OkStatus();
}

// The plans of the last few strided copies on this thread: a plan holds offsets relative
// to the base pointers, so the copies of equal blocks (a kernel's windows, one per program)
// plan once.
constexpr size_t kCachedPlans = 16;
struct CachedPlan {
  std::vector<int64_t> key;  // element bytes, counts, source strides, destination strides
  RelayoutPlan plan;
};

absl::StatusOr<RelayoutPlan> PlanStridedCopy(absl::Span<const int64_t> src_strides,
                                             absl::Span<const int64_t> dst_strides,
                                             absl::Span<const int64_t> counts, int element_bytes) {
  thread_local std::vector<CachedPlan> cache;
  std::vector<int64_t> key = {element_bytes};
  key.insert(key.end(), counts.begin(), counts.end());
  key.insert(key.end(), src_strides.begin(), src_strides.end());
  key.insert(key.end(), dst_strides.begin(), dst_strides.end());
  for (size_t i = 0; i < cache.size(); ++i) {
    if (cache[i].key != key) continue;
    std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
    return cache.front().plan;
  }
  AXE_ASSIGN_OR_RETURN(Layout from, StridedLayout(counts, src_strides));
  AXE_ASSIGN_OR_RETURN(Layout to, StridedLayout(counts, dst_strides));
  const std::vector<int64_t> shape =
      counts.empty() ? std::vector<int64_t>{1} : std::vector<int64_t>(counts.begin(), counts.end());
  RelayoutOptions options;
  options.threads = 1;
  AXE_ASSIGN_OR_RETURN(RelayoutPlan plan,
                       PlanRelayout(BufferLayout(std::move(from)), BufferLayout(std::move(to)),
                                    shape, element_bytes, options));
  if (cache.size() == kCachedPlans) cache.pop_back();
  cache.insert(cache.begin(), CachedPlan{std::move(key), plan});
  return plan;
}

}  // namespace

absl::Status CopyStrided(const void* src, absl::Span<const int64_t> src_strides, void* dst,
                         absl::Span<const int64_t> dst_strides, absl::Span<const int64_t> counts,
                         int element_bytes) {
  AXE_RETURN_IF_ERROR(CheckStridedBox(src_strides, dst_strides, counts));
  for (int64_t c : counts) {
    if (c == 0) return absl::OkStatus();
  }
  AXE_ASSIGN_OR_RETURN(RelayoutPlan plan,
                       PlanStridedCopy(src_strides, dst_strides, counts, element_bytes));
  return plan.Execute(src, dst);
}

}  // namespace axe::relayout
