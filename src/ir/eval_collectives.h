// Collective helpers shared by the host simulation and the device executors (internal).
#ifndef AXE_SRC_IR_EVAL_COLLECTIVES_H_
#define AXE_SRC_IR_EVAL_COLLECTIVES_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/ir/jaxpr.h"
#include "axe/sharding/mesh.h"

namespace axe::ir::internal {

// The axes a collective equation acts over (its `axes` or `axis_name` parameter).
absl::StatusOr<std::vector<std::string>> CollectiveAxes(const Eqn& eqn);

// Each mesh position's group (row-major over the other axes, mesh order) and index in it
// (row-major over `axes` in the order given). Unknown axis: JAX's unbound-axis text for `api`.
struct Member {
  int64_t group = 0;
  int64_t index = 0;
};
absl::StatusOr<std::vector<Member>> GroupMembers(const sharding::Mesh& mesh,
                                                 absl::Span<const std::string> axes,
                                                 absl::string_view api, int64_t& group_size);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_EVAL_COLLECTIVES_H_
