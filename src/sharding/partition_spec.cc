#include "axe/sharding/partition_spec.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/layout/axis.h"
#include "python_text.h"

namespace axe::sharding {

absl::StatusOr<PartitionSpec> PartitionSpec::Create(std::vector<Entry> entries) {
  if (entries.size() > kMaxEntries) {
    return absl::InvalidArgumentError(
        absl::StrCat("PartitionSpec: ", entries.size(), " entries (at most ", kMaxEntries, ")"));
  }
  size_t names = 0;
  for (size_t i = 0; i < entries.size(); ++i) {
    names += entries[i].size();
    if (names > kMaxNames) {
      return absl::InvalidArgumentError(
          absl::StrCat("PartitionSpec: more than ", kMaxNames, " names (at entry ", i, ")"));
    }
    for (const std::string& name : entries[i]) {
      if (name.size() > kMaxAxisNameLength) {
        return absl::InvalidArgumentError(
            absl::StrCat("PartitionSpec: entry ", i, " names an axis of ", name.size(),
                         " characters (at most ", kMaxAxisNameLength, ")"));
      }
      if (!Axis::IsValidName(name)) {
        return absl::InvalidArgumentError(absl::StrCat("PartitionSpec: entry ", i, " names '",
                                                       ElideForMessage(name, 40),
                                                       "', which is not an identifier"));
      }
    }
  }
  return PartitionSpec(std::move(entries));
}

const PartitionSpec::Entry& PartitionSpec::entry(size_t i) const {
  static const Entry kNone;
  return i < entries_.size() ? entries_[i] : kNone;
}

std::string PartitionSpec::EntryToString(const Entry& entry) {
  if (entry.empty()) return "None";
  if (entry.size() == 1) return PyStr(entry[0]);
  return PyStrTuple(entry);
}

std::string PartitionSpec::ToString() const {
  std::vector<std::string> parts;
  for (const Entry& e : entries_) parts.push_back(EntryToString(e));
  return absl::StrCat("P(", absl::StrJoin(parts, ", "), entries_.size() == 1 ? ",)" : ")");
}

namespace {

// A parenthesised tuple of names (its '(' already read): ('x', 'y'), ('x',), ().
absl::StatusOr<PartitionSpec::Entry> ReadTuple(Scanner& s) {
  PartitionSpec::Entry names;
  while (!s.TryConsume(')')) {
    AXE_ASSIGN_OR_RETURN(std::optional<std::string> name, ReadName(s, /*allow_bare=*/false));
    if (!name) return s.Error("a quoted mesh axis name or ')'");
    names.push_back(*std::move(name));
    if (s.TryConsume(')')) break;
    if (!s.TryConsume(',')) return s.Error("',' or ')'");
  }
  return names;
}

// None, a quoted name or a tuple of quoted names.
absl::StatusOr<PartitionSpec::Entry> ReadEntry(Scanner& s) {
  if (s.TryConsume('(')) return ReadTuple(s);
  s.SkipSpace();
  const size_t start = s.pos();
  std::optional<absl::string_view> word = s.TryIdent();
  if (word) {
    if (*word == "None") return PartitionSpec::Entry{};
    return s.MessageAt(start, absl::StrCat("expected None, a quoted mesh axis name or a tuple, "
                                           "found the bare word ",
                                           *word));
  }
  AXE_ASSIGN_OR_RETURN(std::optional<std::string> name, ReadName(s, /*allow_bare=*/false));
  if (!name) return s.Error("None, a quoted mesh axis name or a tuple");
  return PartitionSpec::Entry{*std::move(name)};
}

}  // namespace

absl::StatusOr<PartitionSpec> PartitionSpec::Parse(absl::string_view text) {
  if (text.size() > kMaxTextLength) {
    return absl::InvalidArgumentError(absl::StrCat("PartitionSpec text of ", text.size(),
                                                   " characters (at most ", kMaxTextLength, ")"));
  }
  Scanner s(text);
  if (!s.TryConsume("PartitionSpec") && !s.TryConsume("P")) {
    return s.Error("P( or PartitionSpec(");
  }
  AXE_RETURN_IF_ERROR(s.Expect('('));
  std::vector<Entry> entries;
  while (!s.TryConsume(')')) {
    if (entries.size() >= kMaxEntries) {
      return s.MessageAt(s.pos(), absl::StrCat("more than ", kMaxEntries, " entries"));
    }
    AXE_ASSIGN_OR_RETURN(Entry e, ReadEntry(s));
    entries.push_back(std::move(e));
    if (s.TryConsume(')')) break;
    if (!s.TryConsume(',')) return s.Error("',' or ')'");
  }
  if (!s.AtEnd()) return s.Error("end of input");
  return Create(std::move(entries));
}

}  // namespace axe::sharding
