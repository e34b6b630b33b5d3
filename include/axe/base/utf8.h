// UTF-8 for what axe prints. axe reads its inputs as bytes, and user text may hold bytes that
// are not UTF-8 ('S[\xff]'). Whatever quotes user text (error messages, JSON, Python strings)
// goes through these helpers, so that it never cuts a character in half and never hands out
// ill-formed UTF-8.
//
// Ill-formed text is repaired the way Unicode recommends ("maximal subparts", the same as
// nlohmann::json's error_handler_t::replace and Python's bytes.decode(errors='replace')):
// each maximal subpart of an ill-formed sequence becomes one U+FFFD REPLACEMENT CHARACTER.
//
//   ToValidUtf8("S[\xff]")       == "S[\uFFFD]"
//   ToValidUtf8("\xe2\x82")      == "\uFFFD"        (a truncated 3-byte character)
//   Utf8SequenceLength("é", 0) == 2
#ifndef AXE_BASE_UTF8_H_
#define AXE_BASE_UTF8_H_

#include <cstddef>
#include <string>

#include "absl/strings/string_view.h"

namespace axe {

// U+FFFD, in UTF-8.
inline constexpr absl::string_view kReplacementCharacter = "\xEF\xBF\xBD";

// The sequence that starts at text[pos]: its length in bytes (1 to 4 for a well-formed
// character; for an ill-formed one, its maximal subpart, at least 1) and whether it is a
// well-formed character. `pos` must be inside `text`.
struct Utf8Sequence {
  size_t length = 1;
  bool valid = false;
};
Utf8Sequence Utf8SequenceAt(absl::string_view text, size_t pos);

// True when `text` is well-formed UTF-8.
bool IsValidUtf8(absl::string_view text);

// `text` with each maximal subpart of an ill-formed sequence replaced by U+FFFD.
std::string ToValidUtf8(absl::string_view text);

// The start of the character that holds byte `pos` (back over at most 3 continuation bytes
// of one well-formed character); `pos` itself when it starts one or is ill-formed.
size_t Utf8CharStart(absl::string_view text, size_t pos);

// The longest prefix of `text` of at most `max_bytes` bytes that does not end inside a
// well-formed character.
absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes);

// The longest suffix of `text` of at most `max_bytes` bytes that does not start inside a
// well-formed character.
absl::string_view Utf8Suffix(absl::string_view text, size_t max_bytes);

// Compact JSON of an nlohmann::json value in which strings holding ill-formed UTF-8 are
// repaired as ToValidUtf8 does (nlohmann's default dump throws on them). Every JSON that axe
// prints or serves goes through this one function.
template <typename Json>
std::string DumpJson(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace axe

#endif  // AXE_BASE_UTF8_H_
