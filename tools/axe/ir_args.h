// What the `axe ir` commands share: reading the JAXPR argument and printing a jaxpr result.
#ifndef AXE_TOOLS_AXE_IR_ARGS_H_
#define AXE_TOOLS_AXE_IR_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "axe/ir/jaxpr.h"
#include "cli.h"

namespace axe::cli {

// The JAXPR argument (text, '-' or '@FILE') read, parsed and type-checked.
absl::StatusOr<ir::ClosedJaxpr> ReadCheckedJaxpr(const std::string& arg);

// ["f32[8]", ...]
Json AvalsJson(const std::vector<ir::ShapedArray>& avals);

// The jaxpr in JAX's text form, or with --json {"jaxpr", "in_avals", "out_avals"} plus
// `extra`'s fields.
void PrintJaxprResult(const ir::ClosedJaxpr& j, bool json, Json extra = Json::object());

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_IR_ARGS_H_
