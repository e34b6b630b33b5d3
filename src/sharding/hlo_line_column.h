// Errors in a module's text at "line L, column C" (1-based), from a Scanner message
// "position P: rest" about text that starts at column `column` of line `line`.
#ifndef AXE_SRC_SHARDING_HLO_LINE_COLUMN_H_
#define AXE_SRC_SHARDING_HLO_LINE_COLUMN_H_

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "absl/strings/strip.h"

namespace axe::sharding::internal {

// "line L, column C: <prefix><rest>" with C = column + P (C = column when the message names
// no position); the status code is kept.
inline absl::Status AtLineColumn(size_t line, size_t column, const absl::Status& status,
                                 absl::string_view prefix = "") {
  absl::string_view message = status.message();
  size_t position = 0;
  absl::string_view rest = message;
  if (absl::ConsumePrefix(&rest, "position ")) {
    const size_t colon = rest.find(':');
    if (colon != absl::string_view::npos && absl::SimpleAtoi(rest.substr(0, colon), &position)) {
      message = absl::StripLeadingAsciiWhitespace(rest.substr(colon + 1));
    } else {
      position = 0;
    }
  }
  return absl::Status(status.code(), absl::StrCat("line ", line, ", column ", column + position,
                                                  ": ", prefix, message));
}

}  // namespace axe::sharding::internal

#endif  // AXE_SRC_SHARDING_HLO_LINE_COLUMN_H_
