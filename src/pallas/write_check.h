// Parallel mode's write check: programs in different parallel slices (differing on a
// "parallel" grid axis) must write disjoint output windows, or the result would depend on
// timing.
#ifndef AXE_SRC_PALLAS_WRITE_CHECK_H_
#define AXE_SRC_PALLAS_WRITE_CHECK_H_

#include <vector>

#include "absl/status/status.h"
#include "axe/pallas/call_spec.h"
#include "operand_plan.h"

namespace axe::pallas::internal {

// Evaluates every output's index map at every grid point; an error names the two grid
// points and windows that overlap.
absl::Status CheckDisjointWrites(const CallSpec& spec, const Plan& plan,
                                 const std::vector<int>& parallel_axes);

}  // namespace axe::pallas::internal

#endif  // AXE_SRC_PALLAS_WRITE_CHECK_H_
