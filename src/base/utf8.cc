#include "axe/base/utf8.h"

#include <string>

namespace axe {
namespace {

bool IsContinuation(unsigned char b) { return (b & 0xC0) == 0x80; }

// For a lead byte: how many continuation bytes follow, and the range the first of them must
// lie in (which rules out overlong forms, surrogates and code points past U+10FFFF).
struct Lead {
  int continuations = -1;  // -1: not a lead byte
  unsigned char low = 0x80, high = 0xBF;
};

Lead LeadOf(unsigned char b) {
  if (b >= 0xC2 && b <= 0xDF) return {1};
  if (b == 0xE0) return {2, 0xA0, 0xBF};
  if (b == 0xED) return {2, 0x80, 0x9F};
  if (b >= 0xE1 && b <= 0xEF) return {2};
  if (b == 0xF0) return {3, 0x90, 0xBF};
  if (b >= 0xF1 && b <= 0xF3) return {3};
  if (b == 0xF4) return {3, 0x80, 0x8F};
  return {};
}

}  // namespace

Utf8Sequence Utf8SequenceAt(absl::string_view text, size_t pos) {
  const auto b0 = static_cast<unsigned char>(text[pos]);
  if (b0 < 0x80) return {1, true};
  Lead lead = LeadOf(b0);
  if (lead.continuations < 0) return {1, false};
  size_t length = 1;
  for (int k = 0; k < lead.continuations; ++k) {
    if (pos + length >= text.size()) return {length, false};
    const auto b = static_cast<unsigned char>(text[pos + length]);
    const unsigned char low = k == 0 ? lead.low : 0x80;
    const unsigned char high = k == 0 ? lead.high : 0xBF;
    if (b < low || b > high) return {length, false};
    ++length;
  }
  return {length, true};
}

bool IsValidUtf8(absl::string_view text) {
  for (size_t pos = 0; pos < text.size();) {
    Utf8Sequence s = Utf8SequenceAt(text, pos);
    if (!s.valid) return false;
    pos += s.length;
  }
  return true;
}

std::string ToValidUtf8(absl::string_view text) {
  if (IsValidUtf8(text)) return std::string(text);
  std::string out;
  out.reserve(text.size() + 8);
  for (size_t pos = 0; pos < text.size();) {
    Utf8Sequence s = Utf8SequenceAt(text, pos);
    if (s.valid) {
      out.append(text.data() + pos, s.length);
    } else {
      out.append(kReplacementCharacter.data(), kReplacementCharacter.size());
    }
    pos += s.length;
  }
  return out;
}

size_t Utf8CharStart(absl::string_view text, size_t pos) {
  if (pos >= text.size()) return pos;
  for (size_t back = 1; back <= 3 && back <= pos; ++back) {
    if (!IsContinuation(static_cast<unsigned char>(text[pos - back + 1]))) break;
    const size_t start = pos - back;
    if (IsContinuation(static_cast<unsigned char>(text[start]))) continue;
    Utf8Sequence s = Utf8SequenceAt(text, start);
    return s.valid && start + s.length > pos ? start : pos;
  }
  return pos;
}

absl::string_view Utf8Prefix(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  return text.substr(0, Utf8CharStart(text, max_bytes));
}

absl::string_view Utf8Suffix(absl::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t from = text.size() - max_bytes;
  const size_t start = Utf8CharStart(text, from);
  if (start != from) from = start + Utf8SequenceAt(text, start).length;
  return text.substr(from);
}

}  // namespace axe
