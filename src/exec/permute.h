// Strided and transposing copies through the relayout engine (internal to src/exec).
#ifndef AXE_SRC_EXEC_PERMUTE_H_
#define AXE_SRC_EXEC_PERMUTE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/relayout/relayout_plan.h"

namespace axe::exec::internal {

// A planned copy of the box [0, shape) from elements at sum(x[k] * src_strides[k]) to elements
// at sum(x[k] * dst_strides[k]) (strides in elements; a source stride of 0 reads one element
// for a whole dimension). Empty boxes copy nothing.
class StridedCopy {
 public:
  static absl::StatusOr<StridedCopy> Plan(absl::Span<const int64_t> shape,
                                          absl::Span<const int64_t> src_strides,
                                          absl::Span<const int64_t> dst_strides, int element_bytes,
                                          int threads);
  absl::Status Run(const void* src, void* dst) const;

 private:
  std::shared_ptr<const relayout::RelayoutPlan> plan_;
  int64_t contiguous_bytes_ = -1;  // >= 0: both sides row-major, a memcpy of these bytes
};

// The copy of a row-major array of `shape` into the row-major array whose dimension k is the
// source's dimension perm[k] (a transpose).
absl::StatusOr<StridedCopy> PlanPermute(absl::Span<const int64_t> shape,
                                        absl::Span<const int64_t> perm, int element_bytes,
                                        int threads);

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_PERMUTE_H_
