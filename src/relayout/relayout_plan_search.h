// The measured search (PlanSearch::kMeasure): candidate plans around the estimate are timed
// on scratch buffers and the fastest is kept.
#ifndef AXE_SRC_RELAYOUT_RELAYOUT_PLAN_SEARCH_H_
#define AXE_SRC_RELAYOUT_RELAYOUT_PLAN_SEARCH_H_

#include <memory>

#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"
#include "relayout/plan_data.h"
#include "relayout/relayout_plan_analysis.h"

namespace axe::relayout::internal {

// Varies one knob at a time around `estimate` (stores, loop order, transpose blocks, staging
// and tile edge), within options.measure_seconds, and returns the fastest plan, its note
// saying how many were tried. Plans whose buffers exceed options.measure_max_bytes are
// returned as they are.
std::shared_ptr<PlanData> MeasureBestPlan(const BufferLayout& src, const BufferLayout& dst,
                                          const Analysis& analysis, const RelayoutOptions& options,
                                          std::shared_ptr<PlanData> estimate);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RELAYOUT_PLAN_SEARCH_H_
