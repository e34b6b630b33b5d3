#include "picture/xml_check.h"

#include <cctype>
#include <set>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"

namespace axe::picture::testing {
namespace {

bool NameChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == ':' ||
         c == '.';
}

// Checks the character data (or attribute value) text[begin, end) for '<' and entities.
std::string CheckData(const std::string& text, size_t begin, size_t end) {
  static const std::set<std::string> kEntities = {"amp", "lt", "gt", "quot", "apos"};
  for (size_t i = begin; i < end; ++i) {
    if (text[i] == '<') return absl::StrCat("'<' in text at ", i);
    if (text[i] != '&') continue;
    const size_t semi = text.find(';', i);
    if (semi == std::string::npos || semi > end) return absl::StrCat("unterminated & at ", i);
    if (!kEntities.count(text.substr(i + 1, semi - i - 1)))
      return absl::StrCat("unknown entity at ", i);
  }
  return "";
}

// Parses the attributes of a start tag from `i` to its '>' or "/>"; sets `i` after it.
std::string ParseAttributes(const std::string& text, size_t& i, bool& self_closing) {
  std::set<std::string> names;
  while (i < text.size()) {
    while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
    if (i >= text.size()) break;
    if (text[i] == '>') {
      ++i;
      self_closing = false;
      return "";
    }
    if (text.compare(i, 2, "/>") == 0) {
      i += 2;
      self_closing = true;
      return "";
    }
    const size_t name_start = i;
    while (i < text.size() && NameChar(text[i])) ++i;
    if (i == name_start) return absl::StrCat("bad attribute name at ", i);
    const std::string name = text.substr(name_start, i - name_start);
    if (!names.insert(name).second) return absl::StrCat("duplicate attribute ", name);
    if (i + 1 >= text.size() || text[i] != '=' || (text[i + 1] != '"' && text[i + 1] != '\''))
      return absl::StrCat("attribute ", name, " is not name=\"value\" at ", i);
    const char quote = text[i + 1];
    const size_t close = text.find(quote, i + 2);
    if (close == std::string::npos) return absl::StrCat("unterminated value at ", i);
    if (std::string e = CheckData(text, i + 2, close); !e.empty()) return e;
    i = close + 1;
  }
  return "unterminated start tag";
}

}  // namespace

std::string CheckXml(const std::string& text) {
  size_t i = 0;
  if (text.compare(0, 5, "<?xml") == 0) {
    i = text.find("?>");
    if (i == std::string::npos) return "unterminated XML declaration";
    i += 2;
  }
  std::vector<std::string> open;
  int roots = 0;
  while (i < text.size()) {
    const size_t lt = text.find('<', i);
    const size_t end = lt == std::string::npos ? text.size() : lt;
    if (std::string e = CheckData(text, i, end); !e.empty()) return e;
    if (open.empty()) {
      for (size_t k = i; k < end; ++k) {
        if (!std::isspace(static_cast<unsigned char>(text[k])))
          return absl::StrCat("text outside the root at ", k);
      }
    }
    if (lt == std::string::npos) break;
    i = lt + 1;
    const bool closing = i < text.size() && text[i] == '/';
    if (closing) ++i;
    const size_t name_start = i;
    while (i < text.size() && NameChar(text[i])) ++i;
    const std::string name = text.substr(name_start, i - name_start);
    if (name.empty()) return absl::StrCat("bad tag at ", lt);
    if (closing) {
      if (open.empty() || open.back() != name)
        return absl::StrCat("</", name, "> does not close the open element at ", lt);
      open.pop_back();
      if (i >= text.size() || text[i] != '>') return absl::StrCat("bad end tag at ", lt);
      ++i;
      continue;
    }
    if (open.empty() && ++roots > 1) return absl::StrCat("a second root element at ", lt);
    bool self_closing = false;
    if (std::string e = ParseAttributes(text, i, self_closing); !e.empty()) return e;
    if (!self_closing) open.push_back(name);
  }
  if (!open.empty()) return absl::StrCat("<", open.back(), "> is never closed");
  if (roots != 1) return "no root element";
  return "";
}

int CountElements(const std::string& text, const std::string& name) {
  int count = 0;
  for (size_t i = text.find("<" + name); i != std::string::npos; i = text.find("<" + name, i + 1)) {
    const char next = i + 1 + name.size() < text.size() ? text[i + 1 + name.size()] : '\0';
    if (next == ' ' || next == '>' || next == '/') ++count;
  }
  return count;
}

}  // namespace axe::picture::testing
