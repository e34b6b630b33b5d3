// Nest planning, the second phase of planning a relayout: the loops of one piece (a box of
// the tensor copied by one strided copy) are fused and ordered, and get a kernel, cache
// blocks and the unit loops around the kernel calls.
#ifndef AXE_SRC_RELAYOUT_RELAYOUT_PLAN_NEST_H_
#define AXE_SRC_RELAYOUT_RELAYOUT_PLAN_NEST_H_

#include <cstdint>
#include <string>
#include <vector>

#include "axe/relayout/relayout_plan.h"
#include "relayout/plan_data.h"

namespace axe::relayout::internal {

// The planner's knobs, from RelayoutOptions (0 / kAuto: the planner chooses).
struct Tuning {
  int max_vector_bytes = 16;  // of this CPU's SIMD target
  int tile_lanes = 0;
  int64_t block_rows = 0, block_cols = 0;
  int staged = 0;
  LoopOrder loop_order = LoopOrder::kAuto;
  bool stream = false;  // the plan will use streaming stores
};

Tuning TuningFrom(const RelayoutOptions& options);

// Plans one piece: `loops` (any order, extents of 1 allowed) from the source and
// destination offsets `src_base` and `dst_base` (elements). A fill writes the padding value
// and ignores the source strides.
Nest PlanNest(const std::vector<Loop>& loops, int64_t src_base, int64_t dst_base, bool fill,
              int element_bytes, const Tuning& tuning);

// Whether `nest` can use streaming stores (when `want`), and with which alignment of the
// destination base.
void SetStreaming(Nest& nest, int element_bytes, bool want);

// The kernel's name, e.g. "transpose 16x16".
std::string KernelName(const Nest& nest);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RELAYOUT_PLAN_NEST_H_
