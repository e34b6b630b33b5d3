#include "axe/layout/box.h"

#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"

namespace axe {
namespace {

// "[[0, 4], [4, 8]]" after its first '['.
absl::StatusOr<std::vector<Interval>> ParseNested(Scanner& s) {
  std::vector<Interval> out;
  if (s.TryConsume(']')) return out;
  do {
    AXE_RETURN_IF_ERROR(s.Expect('['));
    Interval r;
    AXE_ASSIGN_OR_RETURN(r.begin, s.ReadInt());
    AXE_RETURN_IF_ERROR(s.Expect(','));
    AXE_ASSIGN_OR_RETURN(r.end, s.ReadInt());
    AXE_RETURN_IF_ERROR(s.Expect(']'));
    out.push_back(r);
  } while (s.TryConsume(','));
  AXE_RETURN_IF_ERROR(s.Expect(']'));
  return out;
}

// "0:8,8:24" (a single index "3" for 3:4).
absl::StatusOr<std::vector<Interval>> ParseShort(Scanner& s) {
  std::vector<Interval> out;
  do {
    s.SkipSpace();
    Interval r;
    AXE_ASSIGN_OR_RETURN(r.begin, s.ReadInt());
    if (s.TryConsume(':')) {
      s.SkipSpace();
      AXE_ASSIGN_OR_RETURN(r.end, s.ReadInt());
    } else {
      std::optional<int64_t> next = CheckedAdd(r.begin, 1);
      if (!next) return s.Error("an index below 2^63 - 1");
      r.end = *next;
    }
    out.push_back(r);
  } while (s.TryConsume(','));
  return out;
}

}  // namespace

std::string BoxToString(absl::Span<const Interval> box) {
  return absl::StrCat("[",
                      absl::StrJoin(box, ", ",
                                    [](std::string* out, const Interval& r) {
                                      absl::StrAppend(out, "[", r.begin, ", ", r.end, "]");
                                    }),
                      "]");
}

absl::StatusOr<std::vector<Interval>> ParseBox(absl::string_view text) {
  Scanner s(text);
  if (s.AtEnd()) return s.Error("a box such as [[0, 8], [8, 24]] or 0:8,8:24");
  absl::StatusOr<std::vector<Interval>> box = s.TryConsume('[') ? ParseNested(s) : ParseShort(s);
  if (!box.ok()) return box.status();
  if (!s.AtEnd()) return s.Error("',' or end of input");
  return box;
}

}  // namespace axe
