// The sharding of an HLO instruction line as it appears in a dump:
//
//   %dot.3 = f32[8,8]{1,0} dot(f32[8,4]{1,0} %a, f32[4,8]{1,0} %b), lhs_contracting_dims={1},
//       rhs_contracting_dims={0}, sharding={devices=[2,1,2]<=[4] last_tile_dim_replicate}
//
// gives the result shape f32[8,8]{1,0} and the sharding after `sharding=` (its braces matched,
// quoted metadata strings skipped), so a user can paste the line and ask where its elements
// live.
#ifndef AXE_SHARDING_HLO_INSTRUCTION_H_
#define AXE_SHARDING_HLO_INSTRUCTION_H_

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/sharding/hlo_sharding.h"
#include "axe/xla/shape.h"

namespace axe::sharding {

struct ShardedInstruction {
  xla::Shape result;
  HloSharding sharding;
};

// True when `text` looks like an instruction line carrying a sharding attribute rather than
// a bare sharding (it has `sharding=` after an `=`).
bool IsShardedInstruction(absl::string_view text);

// Errors: no instruction (xla::ScanHlo's errors), no `sharding=` attribute, unbalanced braces,
// HloSharding::Parse's errors (positions relative to the sharding text).
absl::StatusOr<ShardedInstruction> ParseShardedInstruction(absl::string_view line);

}  // namespace axe::sharding

#endif  // AXE_SHARDING_HLO_INSTRUCTION_H_
