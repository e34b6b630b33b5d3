#include "python_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace axe::ir::internal {

bool IsPrimitiveName(absl::string_view text) {
  for (absl::string_view part : absl::StrSplit(text, '-')) {
    if (!IsIdentifier(part)) return false;
  }
  return text.size() <= 256;
}

bool IsIdentifier(absl::string_view text) {
  if (text.empty() || text.size() > 256) return false;
  if (!absl::ascii_isalpha(text[0]) && text[0] != '_') return false;
  for (char c : text) {
    if (!absl::ascii_isalnum(c) && c != '_') return false;
  }
  return true;
}

std::string PythonFloat(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  // Shortest round-trip digits in scientific form: "-d.ddde+XX".
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), value, std::chars_format::scientific);
  std::string sci(buf, end);
  bool negative = !sci.empty() && sci[0] == '-';
  if (negative) sci.erase(0, 1);
  size_t e = sci.find('e');
  std::string mantissa = sci.substr(0, e);
  int exponent = std::atoi(sci.c_str() + e + 1);
  std::string digits;
  for (char c : mantissa) {
    if (c != '.') digits += c;
  }
  std::string out = negative ? "-" : "";
  if (exponent >= -4 && exponent < 16) {
    // Fixed notation with at least one digit after the point.
    if (exponent >= 0) {
      size_t int_len = static_cast<size_t>(exponent) + 1;
      if (digits.size() <= int_len) {
        out += digits + std::string(int_len - digits.size(), '0') + ".0";
      } else {
        out += digits.substr(0, int_len) + "." + digits.substr(int_len);
      }
    } else {
      out += "0." + std::string(static_cast<size_t>(-exponent - 1), '0') + digits;
    }
    return out;
  }
  out += digits.substr(0, 1);
  if (digits.size() > 1) {
    // (Appended piecewise: `"." + digits.substr(1)` trips g++ 12's -Wrestrict false positive.)
    out += '.';
    out.append(digits, 1, std::string::npos);
  }
  char exp_buf[16];
  std::snprintf(exp_buf, sizeof(exp_buf), "e%c%02d", exponent < 0 ? '-' : '+', std::abs(exponent));
  return out + exp_buf;
}

std::string PythonStringRepr(absl::string_view text) {
  char quote = '\'';
  if (text.find('\'') != absl::string_view::npos && text.find('"') == absl::string_view::npos) {
    quote = '"';
  }
  std::string out(1, quote);
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    unsigned char u = static_cast<unsigned char>(c);
    // U+0080..U+00A0 and U+00AD, which Python does not print either: '\x85'.
    const unsigned char next = i + 1 < text.size() ? static_cast<unsigned char>(text[i + 1]) : 0;
    if (u == 0xC2 && ((next >= 0x80 && next <= 0xA0) || next == 0xAD)) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", next);
      out += hex;
      ++i;
      continue;
    }
    if (c == '\\' || c == quote) {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c == '\t') {
      out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
      char hex[8];
      std::snprintf(hex, sizeof(hex), "\\x%02x", u);
      out += hex;
    } else {
      out += c;
    }
  }
  out += quote;
  return out;
}

}  // namespace axe::ir::internal
