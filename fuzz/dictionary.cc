#include "dictionary.h"

#include <cstddef>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace axe::fuzz {
namespace {

constexpr size_t kMaxTokenBytes = 4096;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// One line's token: `line` is stripped and non-empty; `number` is 1-based, for messages.
absl::StatusOr<std::string> ParseLine(absl::string_view line, size_t number) {
  const size_t open = line.find('"');
  auto error = [&](size_t column, absl::string_view what) {
    return absl::InvalidArgumentError(
        absl::StrCat("dictionary line ", number, ", column ", column + 1, ": ", what));
  };
  if (open == absl::string_view::npos) return error(0, "expected a quoted token");
  if (line.back() != '"' || line.size() - 1 == open) {
    return error(line.size() - 1, "expected the token to end with '\"'");
  }
  std::string token;
  for (size_t i = open + 1; i + 1 < line.size(); ++i) {
    char c = line[i];
    if (c == '\\') {
      if (i + 2 >= line.size()) return error(i, "'\\' at the end of the token");
      const char next = line[++i];
      if (next == 'x') {
        const int hi = i + 2 < line.size() ? HexValue(line[i + 1]) : -1;
        const int lo = i + 2 < line.size() ? HexValue(line[i + 2]) : -1;
        if (hi < 0 || lo < 0) return error(i, "'\\x' needs two hexadecimal digits");
        c = static_cast<char>(hi * 16 + lo);
        i += 2;
      } else if (next == '\\' || next == '"') {
        c = next;
      } else {
        return error(i, "unknown escape (use \\\\, \\\" or \\xHH)");
      }
    }
    if (token.size() == kMaxTokenBytes) return error(i, "token longer than 4096 bytes");
    token.push_back(c);
  }
  if (token.empty()) return error(open, "empty token");
  return token;
}

}  // namespace

absl::StatusOr<std::vector<std::string>> ParseDictionary(absl::string_view text) {
  std::vector<std::string> tokens;
  size_t number = 0;
  for (absl::string_view line : absl::StrSplit(text, '\n')) {
    ++number;
    line = absl::StripAsciiWhitespace(line);
    if (line.empty() || line.front() == '#') continue;
    absl::StatusOr<std::string> token = ParseLine(line, number);
    if (!token.ok()) return token.status();
    tokens.push_back(*std::move(token));
  }
  return tokens;
}

}  // namespace axe::fuzz
