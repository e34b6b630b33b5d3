// The reference kernel of the Pallas grid documentation: an output of shape `shape` with
// one BlockSpec(block_shape, index_map); every program fills its whole output block with
// its grid indices as decimal digits, sum_a pid[a] * 10^(len(grid) - 1 - a), converted to
// the dtype (C++ conversion: wraps for narrow integers, nonzero is true for bool).
//
//   AnyArray a = *ShowProgramIds({DType::kS32, {8, 6}}, std::vector<BlockDim>{2, 3}, Grid{4, 2},
//                                IndexMapExpr::Identity(2).ToIndexMap());
//   FormatNumpy(a);   // "[[ 0  0  0  1  1  1]\n [ 0  0  0  1  1  1]\n [10 10 10 11 11 11] ..."
#ifndef AXE_PALLAS_SHOW_PROGRAM_IDS_H_
#define AXE_PALLAS_SHOW_PROGRAM_IDS_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/base/memory_budget.h"
#include "axe/pallas/array.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/grid.h"
#include "axe/pallas/index_map.h"

namespace axe::pallas {

// `block_shape` nullopt: the whole array. `options` selects the mode and the clamp report.
// Errors: those of ExecuteCall, and a grid with more than 18 axes (the digits overflow).
absl::StatusOr<AnyArray> ShowProgramIds(const ShapeDType& out,
                                        std::optional<std::vector<BlockDim>> block_shape,
                                        const Grid& grid, IndexMap index_map,
                                        CallOptions options = {});

// The most programs the command line and Python run (each costs time; a reported clamp
// about kClampEventBytes of memory).
inline constexpr int64_t kMaxShowPrograms = int64_t{1} << 24;
inline constexpr int64_t kClampEventBytes = 640;

// Checked before running: at most kMaxShowPrograms programs (InvalidArgument naming the
// grid), and the output, its copies and its printed text (16 bytes an element) plus up to
// `max_clamp_reports` clamp reports (one per program at most) within `budget`
// (ResourceExhausted, MemoryBudget::Check's message).
absl::Status CheckShowProgramIdsCost(const ShapeDType& out, const Grid& grid,
                                     int64_t max_clamp_reports, const MemoryBudget& budget);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_SHOW_PROGRAM_IDS_H_
