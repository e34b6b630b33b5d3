// A cursor over text for axe's small parsers (Axe layouts, XLA shapes, index maps, CLI
// lists). It skips whitespace (and, optionally, C-style comments) between tokens, reads
// checked integers and identifiers, and formats errors that name the 0-based character
// position and what was expected:
//
//   position 12: expected ')' or ',', found '.' in "S[(8,2,4,2).(4@lane..."
#ifndef AXE_BASE_SCANNER_H_
#define AXE_BASE_SCANNER_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace axe {

// `text` for an error message: unchanged up to `max` bytes, else its first and last max/2
// bytes around "...", cut between UTF-8 characters. Messages quote inputs without echoing
// 100 KB dumps.
std::string ElideForMessage(absl::string_view text, size_t max = 160);

// The character at text[pos] (inside `text`) for an error message: 'x' for a printable ASCII
// character, 'é' for a whole well-formed UTF-8 character, "byte 0xff" for a control byte or a
// byte that does not start a well-formed character.
std::string DescribeCharAt(absl::string_view text, size_t pos);

class Scanner {
 public:
  struct Options {
    bool skip_comments = false;  // also skip /* ... */ and // ... (XLA's HLO lexer does)
  };

  explicit Scanner(absl::string_view text) : Scanner(text, Options{}) {}
  Scanner(absl::string_view text, Options options) : text_(text), options_(options) {}

  absl::string_view text() const { return text_; }
  // Offset of the next unread character (whitespace not yet skipped).
  size_t pos() const { return pos_; }
  void set_pos(size_t pos) { pos_ = pos; }

  // Skips whitespace and, if enabled, comments.
  void SkipSpace();
  // True when only whitespace (and comments) remain.
  bool AtEnd();
  // The next character after whitespace, or '\0' at the end.
  char Peek();
  // The character `k` places after the next one (no whitespace skipping in between).
  char PeekAhead(size_t k);

  // Consumes `c` (after whitespace) if it is next.
  bool TryConsume(char c);
  // Consumes the exact characters of `token` (after whitespace) if they are next.
  bool TryConsume(absl::string_view token);
  // Consumes `c` or returns "expected '<c>'".
  absl::Status Expect(char c);

  // Reads -?[0-9]+ that fits int64. Errors name the position.
  absl::StatusOr<int64_t> ReadInt();
  // Reads [0-9]+ that fits int64.
  absl::StatusOr<int64_t> ReadNonNegativeInt();
  // True if the next token starts an integer (a digit, or '-' followed by a digit).
  bool AtInt();
  // Reads [A-Za-z_][A-Za-z0-9_<extra>]* if next; nullopt (nothing consumed) otherwise.
  std::optional<absl::string_view> TryIdent(absl::string_view extra_chars = "");

  // "position <pos>: expected <expected>, found <what is there> in \"<text>\"".
  absl::Status ErrorAt(size_t pos, absl::string_view expected) const;
  // The same at the next token.
  absl::Status Error(absl::string_view expected);
  // "position <pos>: <message> in \"<text>\"" (no "expected"/"found").
  absl::Status MessageAt(size_t pos, absl::string_view message) const;

 private:
  std::string Context(size_t pos) const;

  absl::string_view text_;
  Options options_;
  size_t pos_ = 0;
};

}  // namespace axe

#endif  // AXE_BASE_SCANNER_H_
