#include "exec/permute.h"

#include <cstring>

#include "axe/base/status_macros.h"
#include "axe/layout/layout.h"
#include "exec/plan.h"

namespace axe::exec::internal {
namespace {

absl::StatusOr<Layout> MemoryLayout(absl::Span<const int64_t> shape,
                                    absl::Span<const int64_t> strides) {
  std::vector<Iter> iters;
  for (size_t k = 0; k < shape.size(); ++k) {
    iters.push_back(Iter{shape[k], strides[k], Axis::Memory()});
  }
  if (iters.empty()) iters.push_back(Iter{1, 1, Axis::Memory()});
  return Layout::Create(std::move(iters));
}

}  // namespace

absl::StatusOr<StridedCopy> StridedCopy::Plan(absl::Span<const int64_t> shape,
                                              absl::Span<const int64_t> src_strides,
                                              absl::Span<const int64_t> dst_strides,
                                              int element_bytes, int threads) {
  StridedCopy copy;
  int64_t n = 1;
  for (int64_t e : shape) n *= e;
  const std::vector<int64_t> row_major = RowMajorStrides(shape);
  const bool plain =
      std::equal(src_strides.begin(), src_strides.end(), row_major.begin(), row_major.end()) &&
      std::equal(dst_strides.begin(), dst_strides.end(), row_major.begin(), row_major.end());
  if (n == 0 || plain) {
    copy.contiguous_bytes_ = n * element_bytes;
    return copy;
  }
  AXE_ASSIGN_OR_RETURN(Layout src, MemoryLayout(shape, src_strides));
  AXE_ASSIGN_OR_RETURN(Layout dst, MemoryLayout(shape, dst_strides));
  relayout::RelayoutOptions options;
  options.threads = threads;
  std::vector<int64_t> extents(shape.begin(), shape.end());
  if (extents.empty()) extents.push_back(1);
  AXE_ASSIGN_OR_RETURN(relayout::RelayoutPlan plan,
                       relayout::PlanRelayout(src, dst, extents, element_bytes, options));
  copy.plan_ = std::make_shared<const relayout::RelayoutPlan>(std::move(plan));
  return copy;
}

absl::Status StridedCopy::Run(const void* src, void* dst) const {
  if (plan_ == nullptr) {
    if (contiguous_bytes_ > 0) std::memcpy(dst, src, static_cast<size_t>(contiguous_bytes_));
    return absl::OkStatus();
  }
  return plan_->Execute(src, dst);
}

absl::StatusOr<StridedCopy> PlanPermute(absl::Span<const int64_t> shape,
                                        absl::Span<const int64_t> perm, int element_bytes,
                                        int threads) {
  const std::vector<int64_t> in_strides = RowMajorStrides(shape);
  std::vector<int64_t> out_shape, src_strides;
  for (int64_t p : perm) {
    out_shape.push_back(shape[static_cast<size_t>(p)]);
    src_strides.push_back(in_strides[static_cast<size_t>(p)]);
  }
  return StridedCopy::Plan(out_shape, src_strides, RowMajorStrides(out_shape), element_bytes,
                           threads);
}

}  // namespace axe::exec::internal
