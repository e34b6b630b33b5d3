// Percent-decoding and query strings of the explorer's requests.
#include "axe/explorer/url.h"

#include <cstdint>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace axe::explorer {
namespace {

constexpr size_t kMaxFields = 32;

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

absl::StatusOr<std::string> PercentDecode(absl::string_view text, bool plus_is_space) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
      continue;
    }
    if (c == '%') {
      const int hi = i + 1 < text.size() ? HexValue(text[i + 1]) : -1;
      const int lo = i + 2 < text.size() ? HexValue(text[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "position ", i, ": '%' must be followed by two hexadecimal digits (as %2B)"));
      }
      c = static_cast<char>(hi * 16 + lo);
      i += 2;
    }
    if (c == '\0') {
      return absl::InvalidArgumentError(absl::StrCat("position ", i, ": a NUL byte (%00)"));
    }
    out.push_back(c);
  }
  return out;
}

std::string PercentEncode(absl::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : text) {
    const auto u = static_cast<unsigned char>(c);
    if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
        c == '_' || c == '.' || c == '~') {
      out.push_back(c);
    } else {
      out.push_back('%');
      out.push_back(kHex[u >> 4]);
      out.push_back(kHex[u & 15]);
    }
  }
  return out;
}

absl::StatusOr<std::map<std::string, std::string>> ParseQuery(absl::string_view query) {
  std::map<std::string, std::string> fields;
  size_t count = 0;
  for (absl::string_view piece : absl::StrSplit(query, '&')) {
    if (piece.empty()) continue;
    if (++count > kMaxFields) {
      return absl::InvalidArgumentError(
          absl::StrCat("more than ", kMaxFields, " fields in the query"));
    }
    std::pair<absl::string_view, absl::string_view> kv =
        absl::StrSplit(piece, absl::MaxSplits('=', 1));
    absl::StatusOr<std::string> name = PercentDecode(kv.first);
    if (!name.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field name '", kv.first, "': ", name.status().message()));
    }
    if (name->empty()) return absl::InvalidArgumentError("a field with an empty name");
    absl::StatusOr<std::string> value = PercentDecode(kv.second);
    if (!value.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("field '", *name, "': ", value.status().message()));
    }
    if (!fields.emplace(*name, *std::move(value)).second) {
      return absl::InvalidArgumentError(absl::StrCat("field '", *name, "' is given twice"));
    }
  }
  return fields;
}

}  // namespace axe::explorer
