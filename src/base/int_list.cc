#include "axe/base/int_list.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe {

absl::StatusOr<std::vector<int64_t>> ParseIntList(absl::string_view text) {
  Scanner s(text);
  char close = '\0';
  if (s.TryConsume('(')) {
    close = ')';
  } else if (s.TryConsume('[')) {
    close = ']';
  }
  std::vector<int64_t> values;
  if (!(close != '\0' ? s.Peek() == close : s.AtEnd())) {
    while (true) {
      AXE_ASSIGN_OR_RETURN(int64_t v, s.ReadInt());
      values.push_back(v);
      if (!s.TryConsume(',')) break;
      if (close != '\0' && s.Peek() == close) break;  // trailing comma: "(8,)"
    }
  }
  if (close != '\0') AXE_RETURN_IF_ERROR(s.Expect(close));
  if (!s.AtEnd()) return s.Error(close != '\0' ? "end of input" : "',' or end of input");
  return values;
}

std::string FormatTuple(absl::Span<const int64_t> values, bool python_tuple) {
  if (python_tuple && values.size() == 1) return absl::StrCat("(", values[0], ",)");
  return absl::StrCat("(", absl::StrJoin(values, ", "), ")");
}

}  // namespace axe
