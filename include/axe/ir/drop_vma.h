// The program as shard_map's check_vma = false would have traced it (spec ir-and-shard-map.md
// §4, §8): the baseline the communication count compares variance typing against.
//
//   absl::StatusOr<ClosedJaxpr> naive = DropVarianceTyping(f);
//   LinearTranspose(*naive, {true});   // the naive transpose, with its defensive psums
//
// Every shard_map gets check_vma=False; every value loses its variance set; the pvary casts
// auto pcast inserted are removed (their uses read the operand); psum_invariant becomes the
// legacy psum (axis_index_groups=None) and all_gather_invariant becomes all_gather (the same
// values, typed invariant). Other equations are kept. The result is canonical and checked.
#ifndef AXE_IR_DROP_VMA_H_
#define AXE_IR_DROP_VMA_H_

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"

namespace axe::ir {

// Errors: whatever CheckJaxpr reports for the result (InvalidArgument).
absl::StatusOr<ClosedJaxpr> DropVarianceTyping(const ClosedJaxpr& jaxpr);

}  // namespace axe::ir

#endif  // AXE_IR_DROP_VMA_H_
