// URL pieces of the explorer's requests: percent-decoding and query strings
// (application/x-www-form-urlencoded: `a=1&b=x%2By`, '+' read as a space).
//
//   *ParseQuery("layout=S%5B8%3A1%5D&shape=2,4")  // {{"layout", "S[8:1]"}, {"shape", "2,4"}}
#ifndef AXE_EXPLORER_URL_H_
#define AXE_EXPLORER_URL_H_

#include <map>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::explorer {

// `text` with %XX escapes decoded (and '+' as a space when `plus_is_space`).
// Errors: a '%' not followed by two hexadecimal digits (naming its position), a NUL byte.
absl::StatusOr<std::string> PercentDecode(absl::string_view text, bool plus_is_space = true);

// The inverse: every byte outside A-Z a-z 0-9 - _ . ~ as %XX.
std::string PercentEncode(absl::string_view text);

// The fields of a query string or form body. Empty pieces ("a=1&&b=2") are skipped; a
// field without '=' has the empty value. Errors: PercentDecode's, a field given twice, an
// empty name, more than 32 fields.
absl::StatusOr<std::map<std::string, std::string>> ParseQuery(absl::string_view query);

}  // namespace axe::explorer

#endif  // AXE_EXPLORER_URL_H_
