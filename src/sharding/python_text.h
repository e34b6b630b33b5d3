// Python-style text pieces shared by the sharding printers and parsers (internal).
#ifndef AXE_SRC_SHARDING_PYTHON_TEXT_H_
#define AXE_SRC_SHARDING_PYTHON_TEXT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/base/scanner.h"

namespace axe::sharding {

// Names are checked with Axis::IsValidName (mesh axis names become Axis names).
// 'name' (names are identifiers, so no escaping is needed).
std::string PyStr(absl::string_view name);
// A Python tuple of strings: (), ('x',), ('x', 'y').
std::string PyStrTuple(absl::Span<const std::string> names);
// A Python tuple of ints: (), (8,), (8, 6).
std::string PyIntTuple(absl::Span<const int64_t> values);

// The longest mesh axis name meshes and PartitionSpecs accept (so that every accepted value
// prints within the parsers' text limits).
inline constexpr size_t kMaxAxisNameLength = 256;

// Reads a name written 'x', "x" or (when allow_bare) x; nullopt when none is next. A quoted
// text that is not an identifier is an error naming its position.
absl::StatusOr<std::optional<std::string>> ReadName(Scanner& s, bool allow_bare);

}  // namespace axe::sharding

#endif  // AXE_SRC_SHARDING_PYTHON_TEXT_H_
