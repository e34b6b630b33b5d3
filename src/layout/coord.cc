#include "axe/layout/coord.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/iter.h"

namespace axe {

std::string FormatStride(int64_t stride, Axis axis) {
  if (axis == Axis::Memory()) return absl::StrCat(stride);
  return absl::StrCat(stride, "@", axis.name());
}

std::string Iter::ToString() const { return absl::StrCat(extent, ":", FormatStride(stride, axis)); }

PhysCoord::PhysCoord(std::initializer_list<Entry> entries) {
  for (const Entry& e : entries) add(e.first, e.second);
}

int64_t PhysCoord::get(Axis a) const {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), a,
                             [](const Entry& e, Axis x) { return e.first < x; });
  return (it != entries_.end() && it->first == a) ? it->second : 0;
}

void PhysCoord::set(Axis a, int64_t value) {
  auto it = std::lower_bound(entries_.begin(), entries_.end(), a,
                             [](const Entry& e, Axis x) { return e.first < x; });
  if (it != entries_.end() && it->first == a) {
    if (value == 0) {
      entries_.erase(it);
    } else {
      it->second = value;
    }
  } else if (value != 0) {
    entries_.insert(it, Entry{a, value});
  }
}

void PhysCoord::add(Axis a, int64_t value) {
  if (value == 0) return;
  auto it = std::lower_bound(entries_.begin(), entries_.end(), a,
                             [](const Entry& e, Axis x) { return e.first < x; });
  if (it != entries_.end() && it->first == a) {
    it->second += value;
    if (it->second == 0) entries_.erase(it);
  } else {
    entries_.insert(it, Entry{a, value});
  }
}

bool operator<(const PhysCoord& a, const PhysCoord& b) {
  // Compare as dense vectors over the union of axes (sorted by name), missing entries 0.
  auto i = a.entries_.begin(), j = b.entries_.begin();
  while (i != a.entries_.end() || j != b.entries_.end()) {
    int64_t x = 0, y = 0;
    if (j == b.entries_.end() || (i != a.entries_.end() && i->first < j->first)) {
      x = (i++)->second;
    } else if (i == a.entries_.end() || j->first < i->first) {
      y = (j++)->second;
    } else {
      x = (i++)->second;
      y = (j++)->second;
    }
    if (x != y) return x < y;
  }
  return false;
}

std::string PhysCoord::ToString() const {
  return absl::StrCat("{",
                      absl::StrJoin(entries_, ", ",
                                    [](std::string* out, const Entry& e) {
                                      absl::StrAppend(out, e.first.name(), ":", e.second);
                                    }),
                      "}");
}

absl::StatusOr<PhysCoord> PhysCoord::Parse(absl::string_view text, const AxisCatalog& catalog) {
  Scanner s(text);
  bool braces = s.TryConsume('{');
  char sep = braces ? ':' : '=';
  PhysCoord out;
  if (!(braces ? s.Peek() == '}' : s.AtEnd())) {
    while (true) {
      size_t at = (s.SkipSpace(), s.pos());
      std::optional<absl::string_view> name = s.TryIdent();
      if (!name) return s.Error("an axis name");
      Axis axis = catalog.Resolve(*name);
      for (const Entry& e : out.entries_) {
        if (e.first == axis) return s.MessageAt(at, absl::StrCat("axis '", *name, "' given twice"));
      }
      AXE_RETURN_IF_ERROR(s.Expect(sep));
      AXE_ASSIGN_OR_RETURN(int64_t v, s.ReadInt());
      // Zero values are dropped but still count as given.
      out.entries_.insert(std::lower_bound(out.entries_.begin(), out.entries_.end(), axis,
                                           [](const Entry& e, Axis x) { return e.first < x; }),
                          Entry{axis, v});
      if (!s.TryConsume(',')) break;
    }
  }
  if (braces) AXE_RETURN_IF_ERROR(s.Expect('}'));
  if (!s.AtEnd()) return s.Error(braces ? "end of input" : "',' or end of input");
  out.entries_.erase(std::remove_if(out.entries_.begin(), out.entries_.end(),
                                    [](const Entry& e) { return e.second == 0; }),
                     out.entries_.end());
  return out;
}

std::optional<PhysCoord> CheckedDifference(const PhysCoord& a, const PhysCoord& b) {
  PhysCoord out = a;
  for (const PhysCoord::Entry& e : b.entries()) {
    std::optional<int64_t> v = CheckedSub(out.get(e.first), e.second);
    if (!v) return std::nullopt;
    out.set(e.first, *v);
  }
  return out;
}

}  // namespace axe
