// Options shared by `axe compile` and `axe call`: the jaxpr and the --in/--out formats.
#ifndef AXE_TOOLS_AXE_JIT_ARGS_H_
#define AXE_TOOLS_AXE_JIT_ARGS_H_

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "axe/ir/jaxpr.h"
#include "axe/jit/compile.h"
#include "cli.h"

namespace axe::cli {

// --jaxpr: a path, '-' (stdin), '@FILE' or the text itself, parsed.
absl::StatusOr<ir::ClosedJaxpr> JaxprOption(const std::string& arg);

// --in / --out: "none" (or empty) is no format; anything else a Format repr.
absl::StatusOr<std::vector<std::optional<jit::Format>>> FormatOptions(
    const std::vector<std::string>& texts, absl::string_view option);

// The JSON of compiled formats: [{"layout": {...}, "sharding": ..., "format": "..."}].
Json CompiledFormatsJson(const std::vector<jit::Format>& formats);

}  // namespace axe::cli

#endif  // AXE_TOOLS_AXE_JIT_ARGS_H_
