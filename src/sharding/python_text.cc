#include "python_text.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/layout/axis.h"

namespace axe::sharding {

std::string PyStr(absl::string_view name) { return absl::StrCat("'", name, "'"); }

std::string PyStrTuple(absl::Span<const std::string> names) {
  std::vector<std::string> quoted;
  for (const std::string& n : names) quoted.push_back(PyStr(n));
  return absl::StrCat("(", absl::StrJoin(quoted, ", "), names.size() == 1 ? ",)" : ")");
}

std::string PyIntTuple(absl::Span<const int64_t> values) {
  return absl::StrCat("(", absl::StrJoin(values, ", "), values.size() == 1 ? ",)" : ")");
}

namespace {

absl::StatusOr<std::optional<std::string>> CheckedName(Scanner& s, size_t at,
                                                       absl::string_view name) {
  if (name.size() > kMaxAxisNameLength) {
    return s.MessageAt(at, absl::StrCat("axis name of ", name.size(), " characters (at most ",
                                        kMaxAxisNameLength, ")"));
  }
  return std::optional<std::string>(std::string(name));
}

}  // namespace

absl::StatusOr<std::optional<std::string>> ReadName(Scanner& s, bool allow_bare) {
  const char q = s.Peek();
  if (q == '\'' || q == '"') {
    const size_t start = s.pos();
    s.TryConsume(q);
    const size_t begin = s.pos();
    const absl::string_view text = s.text();
    size_t end = begin;
    while (end < text.size() && text[end] != q && text[end] != '\n') ++end;
    if (end >= text.size() || text[end] != q) return s.MessageAt(start, "unterminated string");
    const absl::string_view name = text.substr(begin, end - begin);
    if (!Axis::IsValidName(name)) {
      return s.MessageAt(begin,
                         absl::StrCat("'", ElideForMessage(name, 40), "' is not an identifier"));
    }
    s.set_pos(end + 1);
    return CheckedName(s, begin, name);
  }
  if (!allow_bare) return std::nullopt;
  s.SkipSpace();
  const size_t at = s.pos();
  std::optional<absl::string_view> ident = s.TryIdent();
  if (!ident) return std::nullopt;
  return CheckedName(s, at, *ident);
}

}  // namespace axe::sharding
