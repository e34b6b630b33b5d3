// Integer lists as users type them: "8,16", "(8, 16)", "[2,9]", "" (empty).
//
//   absl::StatusOr<std::vector<int64_t>> shape = ParseIntList("8,16");  // {8, 16}
#ifndef AXE_BASE_INT_LIST_H_
#define AXE_BASE_INT_LIST_H_

#include <cstdint>
#include <string>
#include <vector>
#include "absl/strings/string_view.h"

#include "absl/status/statusor.h"
#include "absl/types/span.h"

namespace axe {

// Parses comma-separated int64 values, optionally wrapped in () or []. Errors name the
// position. An empty string (or "()") is the empty list.
absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text);

// "(8, 16)"; a single value prints as "(8,)" in Python style when `python_tuple` is set.
std::string FormatTuple(absl::Span<const int64_t> values, bool python_tuple = false);

}  // namespace axe

#endif  // AXE_BASE_INT_LIST_H_
