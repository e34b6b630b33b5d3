// Analysis, the first phase of planning a relayout: both buffer layouts are checked and
// brought into the form the planner works on (the source's base copy, the canonical
// destination with its replicas, and each side's digits per domain dimension).
#ifndef AXE_SRC_RELAYOUT_RELAYOUT_PLAN_ANALYSIS_H_
#define AXE_SRC_RELAYOUT_RELAYOUT_PLAN_ANALYSIS_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/layout.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"
#include "relayout/radix.h"

namespace axe::relayout::internal {

// One side of a relayout, ready for planning.
struct Side {
  Layout layout;  // source: without replicas; destination: canonical
  std::vector<int64_t> domain;
  int64_t offset = 0;          // O, in elements
  std::vector<Iter> replicas;  // destination copies (the gap condition holds)
  // Per domain dimension, the digits (extent > 1) of its address, most significant first;
  // nullopt when the layout does not group by the domain.
  std::optional<std::vector<std::vector<Digit>>> digits_per_dim;
};

struct Analysis {
  Side src, dst;
  std::vector<int64_t> shape;  // {1} for a scalar
  int element_bytes = 4;
  std::vector<uint8_t> padding_value;  // empty: padding untouched
  int64_t elements = 0;                // of the tensor's box
};

// Checks the request (see PlanRelayout's errors) and analyses both sides.
absl::StatusOr<Analysis> Analyze(const BufferLayout& src, const BufferLayout& dst,
                                 absl::Span<const int64_t> shape, int element_bytes,
                                 const RelayoutOptions& options);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RELAYOUT_PLAN_ANALYSIS_H_
