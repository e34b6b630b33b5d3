// Fuzzing dictionaries in libFuzzer's (and AFL's) format, read by the replay driver's
// mutation mode: one token per line, `"text"` or `name="text"`, with the escapes `\\`, `\"`
// and `\xHH`; blank lines and lines starting with `#` are skipped.
#ifndef AXE_FUZZ_DICTIONARY_H_
#define AXE_FUZZ_DICTIONARY_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace axe::fuzz {

// The tokens of a dictionary, in file order. An error names the line and column.
absl::StatusOr<std::vector<std::string>> ParseDictionary(absl::string_view text);

}  // namespace axe::fuzz

#endif  // AXE_FUZZ_DICTIONARY_H_
