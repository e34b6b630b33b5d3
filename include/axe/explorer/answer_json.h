// The JSON answers of the explorer (`axe serve`), which are also what the matching CLI
// commands print with --json: one builder per command, returning compact JSON text with
// keys in a fixed order (stable field names; null where a field does not apply).
//
//   std::string j = *XlaShapeJson(*xla::ParseShape("f32[8,128]{1,0:T(8,128)}"));
#ifndef AXE_EXPLORER_ANSWER_JSON_H_
#define AXE_EXPLORER_ANSWER_JSON_H_

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/layout/layout.h"
#include "axe/layout/render.h"
#include "axe/pallas/array.h"
#include "axe/pallas/clamp_report.h"
#include "axe/sharding/explain.h"
#include "axe/xla/shape.h"

namespace axe::explorer {

// `axe layout show --json`: {"layout", "shape", "shown", "axes", "replica", "grid"}, the
// grid being the base point of each shown cell of the logical shape `shape`.
// Errors: ViewGrid's (the shape is not admitted by the layout).
absl::StatusOr<std::string> LayoutShowJson(const Layout& layout, std::array<int64_t, 2> shape,
                                           GridWindow window);

// `axe xla explain --json`: the facts of a shape (xla/explain.h), a tuple as
// {"shape", "tuple": [...]}. Errors: ExplainNonTuple's, tuples nested deeper than 512.
absl::StatusOr<std::string> XlaShapeJson(const xla::Shape& shape);

// `axe shard explain --json`: every field of the explanation.
std::string ShardingJson(const sharding::ShardingExplanation& explanation);

// `axe grid show --json`: {"output": the array as nested lists ([] for an array without
// elements, whatever its shape)} and, when some window was clamped, "clamped": one entry per
// event.
std::string GridShowJson(const pallas::AnyArray& output,
                         const std::vector<pallas::ClampEvent>& clamps);

}  // namespace axe::explorer

#endif  // AXE_EXPLORER_ANSWER_JSON_H_
