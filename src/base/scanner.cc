#include "axe/base/scanner.h"

#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "axe/base/utf8.h"

namespace axe {
namespace {

bool IsIdentStart(char c) { return absl::ascii_isalpha(c) || c == '_'; }

// Quotes a character for an error message.
std::string Describe(absl::string_view text, size_t pos) {
  if (pos >= text.size()) return "end of input";
  return DescribeCharAt(text, pos);
}

}  // namespace

void Scanner::SkipSpace() {
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
      continue;
    }
    if (options_.skip_comments && c == '/' && pos_ + 1 < text_.size()) {
      if (text_[pos_ + 1] == '*') {
        size_t end = text_.find("*/", pos_ + 2);
        pos_ = end == absl::string_view::npos ? text_.size() : end + 2;
        continue;
      }
      if (text_[pos_ + 1] == '/') {
        size_t end = text_.find('\n', pos_ + 2);
        pos_ = end == absl::string_view::npos ? text_.size() : end + 1;
        continue;
      }
    }
    break;
  }
}

bool Scanner::AtEnd() {
  SkipSpace();
  return pos_ >= text_.size();
}

char Scanner::Peek() {
  SkipSpace();
  return pos_ < text_.size() ? text_[pos_] : '\0';
}

char Scanner::PeekAhead(size_t k) {
  SkipSpace();
  return pos_ + k < text_.size() ? text_[pos_ + k] : '\0';
}

bool Scanner::TryConsume(char c) {
  if (Peek() != c || AtEnd()) return false;
  ++pos_;
  return true;
}

bool Scanner::TryConsume(absl::string_view token) {
  SkipSpace();
  if (text_.substr(pos_, token.size()) != token) return false;
  pos_ += token.size();
  return true;
}

absl::Status Scanner::Expect(char c) {
  if (TryConsume(c)) return absl::OkStatus();
  return Error(absl::StrCat("'", std::string(1, c), "'"));
}

bool Scanner::AtInt() {
  char c = Peek();
  if (absl::ascii_isdigit(c)) return true;
  return c == '-' && absl::ascii_isdigit(PeekAhead(1));
}

absl::StatusOr<int64_t> Scanner::ReadInt() {
  SkipSpace();
  size_t start = pos_;
  bool negative = false;
  if (pos_ < text_.size() && text_[pos_] == '-') {
    negative = true;
    ++pos_;
  }
  if (pos_ >= text_.size() || !absl::ascii_isdigit(text_[pos_])) {
    pos_ = start;
    return Error("an integer");
  }
  // Accumulate negatively so that INT64_MIN is representable.
  int64_t value = 0;
  while (pos_ < text_.size() && absl::ascii_isdigit(text_[pos_])) {
    int digit = text_[pos_] - '0';
    if (__builtin_mul_overflow(value, int64_t{10}, &value) ||
        __builtin_sub_overflow(value, int64_t{digit}, &value)) {
      return MessageAt(start, "integer does not fit in int64");
    }
    ++pos_;
  }
  if (!negative) {
    if (value == INT64_MIN) return MessageAt(start, "integer does not fit in int64");
    value = -value;
  }
  return value;
}

absl::StatusOr<int64_t> Scanner::ReadNonNegativeInt() {
  SkipSpace();
  if (pos_ >= text_.size() || !absl::ascii_isdigit(text_[pos_])) {
    return Error("a non-negative integer");
  }
  return ReadInt();
}

std::optional<absl::string_view> Scanner::TryIdent(absl::string_view extra_chars) {
  SkipSpace();
  if (pos_ >= text_.size() || !IsIdentStart(text_[pos_])) return std::nullopt;
  size_t start = pos_;
  while (pos_ < text_.size()) {
    char c = text_[pos_];
    if (absl::ascii_isalnum(c) || c == '_' || extra_chars.find(c) != absl::string_view::npos) {
      ++pos_;
    } else {
      break;
    }
  }
  return text_.substr(start, pos_ - start);
}

std::string ElideForMessage(absl::string_view text, size_t max) {
  if (text.size() <= max) return std::string(text);
  return absl::StrCat(Utf8Prefix(text, max / 2), "...", Utf8Suffix(text, max / 2));
}

std::string DescribeCharAt(absl::string_view text, size_t pos) {
  const auto c = static_cast<unsigned char>(text[pos]);
  if (absl::ascii_isprint(c)) return absl::StrCat("'", std::string(1, static_cast<char>(c)), "'");
  Utf8Sequence s = Utf8SequenceAt(text, pos);
  if (c >= 0x80 && s.valid) return absl::StrCat("'", text.substr(pos, s.length), "'");
  return absl::StrCat("byte 0x", absl::Hex(c, absl::kZeroPad2));
}

std::string Scanner::Context(size_t pos) const {
  constexpr size_t kMax = 80;
  if (text_.size() <= kMax) return absl::StrCat(" in \"", text_, "\"");
  size_t from = Utf8CharStart(text_, pos > kMax / 2 ? pos - kMax / 2 : 0);
  absl::string_view window = Utf8Prefix(text_.substr(from), kMax);
  return absl::StrCat(" in \"", from > 0 ? "..." : "", window,
                      from + window.size() < text_.size() ? "..." : "", "\"");
}

absl::Status Scanner::ErrorAt(size_t pos, absl::string_view expected) const {
  return absl::InvalidArgumentError(absl::StrCat("position ", pos, ": expected ", expected,
                                                 ", found ", Describe(text_, pos), Context(pos)));
}

absl::Status Scanner::Error(absl::string_view expected) {
  SkipSpace();
  return ErrorAt(pos_, expected);
}

absl::Status Scanner::MessageAt(size_t pos, absl::string_view message) const {
  return absl::InvalidArgumentError(absl::StrCat("position ", pos, ": ", message, Context(pos)));
}

}  // namespace axe
