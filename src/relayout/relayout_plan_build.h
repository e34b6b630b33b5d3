// Building a relayout plan from the analysis: the copy is cut into pieces (boxes of the
// tensor in the common mixed radix of both sides, see radix.h), each piece is planned as a
// nest (relayout_plan_nest.h), or the generic path is taken; then the destination's
// injectivity is checked, the offset ranges are computed and the work is cut into chunks.
#ifndef AXE_SRC_RELAYOUT_RELAYOUT_PLAN_BUILD_H_
#define AXE_SRC_RELAYOUT_RELAYOUT_PLAN_BUILD_H_

#include <memory>

#include "absl/status/statusor.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/relayout_plan.h"
#include "relayout/plan_data.h"
#include "relayout/relayout_plan_analysis.h"
#include "relayout/relayout_plan_nest.h"

namespace axe::relayout::internal {

// The plan of `analysis` (of the relayout src -> dst) with `options` and `tuning`.
absl::StatusOr<std::shared_ptr<PlanData>> BuildPlan(const BufferLayout& src,
                                                    const BufferLayout& dst,
                                                    const Analysis& analysis,
                                                    const RelayoutOptions& options,
                                                    const Tuning& tuning);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RELAYOUT_PLAN_BUILD_H_
