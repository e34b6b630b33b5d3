// The generic path of a relayout: the exact fallback for layouts whose address does not
// split per dimension (or that would need too many pieces). Each side is an odometer over
// its canonical shard digits; elements are copied one by one, row by row of the tensor.
#ifndef AXE_SRC_RELAYOUT_RELAYOUT_PLAN_GENERIC_H_
#define AXE_SRC_RELAYOUT_RELAYOUT_PLAN_GENERIC_H_

#include <cstdint>

#include "absl/status/status.h"
#include "relayout/plan_data.h"
#include "relayout/relayout_plan_analysis.h"

namespace axe::relayout::internal {

// Sets up `plan` for the generic path: both sides' odometers, the destination copies,
// elements written, the offset ranges touched and the rows per chunk. Errors:
// ResourceExhausted when the destination has too many replica copies to enumerate.
absl::Status PlanGeneric(const Analysis& analysis, PlanData& plan);

// Runs a generic plan (copy, then the padding fill if asked).
void RunGeneric(const PlanData& plan, const uint8_t* src, uint8_t* dst);

}  // namespace axe::relayout::internal

#endif  // AXE_SRC_RELAYOUT_RELAYOUT_PLAN_GENERIC_H_
