#include "axe/pallas/grid.h"

#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/int_list.h"
#include "axe/base/scanner.h"
#include "axe/base/status_macros.h"
#include "axe/pallas/ref.h"

namespace axe::pallas {
namespace {

bool IsIdentifier(absl::string_view s) {
  if (s.empty() || !(absl::ascii_isalpha(s[0]) || s[0] == '_')) return false;
  for (char c : s) {
    if (!(absl::ascii_isalnum(c) || c == '_')) return false;
  }
  return true;
}

// A quoted identifier: 'i' or "i".
absl::StatusOr<std::string> ReadQuotedName(Scanner& s) {
  char quote = s.Peek();
  if (quote != '\'' && quote != '"') return s.Error("a quoted axis name");
  s.TryConsume(quote);
  size_t start = s.pos();
  std::optional<absl::string_view> name = s.TryIdent();
  if (!name.has_value() || s.pos() >= s.text().size() || s.text()[s.pos()] != quote) {
    return s.ErrorAt(start, "an identifier followed by a closing quote");
  }
  s.set_pos(s.pos() + 1);
  return std::string(*name);
}

}  // namespace

Grid Grid::Named(std::vector<std::pair<std::string, int64_t>> axes) {
  Grid g;
  for (auto& [name, size] : axes) {
    g.names_.push_back(std::move(name));
    g.sizes_.push_back(size);
  }
  return g;
}

absl::StatusOr<Grid> Grid::Create(std::vector<int64_t> sizes, std::vector<std::string> names) {
  Grid g(std::move(sizes));
  g.names_ = std::move(names);
  AXE_RETURN_IF_ERROR(g.Validate());
  return g;
}

absl::Status Grid::Validate() const {
  for (int64_t s : sizes_) {
    if (s < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("Grid must be a tuple of non-negative integers, got ", ToString()));
    }
  }
  if (sizes_.size() > static_cast<size_t>(kMaxRank)) {
    return absl::InvalidArgumentError(absl::StrCat("Grid ", ToString(), " has ", sizes_.size(),
                                                   " axes; at most ", kMaxRank, " are supported"));
  }
  if (!names_.empty()) {
    if (names_.size() != sizes_.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("Grid has ", sizes_.size(), " sizes but ", names_.size(), " names"));
    }
    absl::flat_hash_set<std::string> seen;
    for (const std::string& n : names_) {
      if (!IsIdentifier(n)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Grid axis name '", n, "' is not an identifier in ", ToString()));
      }
      if (!seen.insert(n).second) {
        return absl::InvalidArgumentError(
            absl::StrCat("Grid axis name '", n, "' is repeated in ", ToString()));
      }
    }
  }
  if (!CheckedProduct(sizes_).has_value()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Grid ", ToString(), " has more programs than fit in int64"));
  }
  return absl::OkStatus();
}

int Grid::AxisOf(absl::string_view name) const {
  for (size_t a = 0; a < names_.size(); ++a) {
    if (names_[a] == name) return static_cast<int>(a);
  }
  return -1;
}

int64_t Grid::num_programs() const { return *CheckedProduct(sizes_); }

std::string Grid::ToString() const {
  if (names_.empty() || names_.size() != sizes_.size())
    return FormatTuple(sizes_, /*python_tuple=*/true);
  std::vector<std::string> items;
  for (size_t a = 0; a < sizes_.size(); ++a)
    items.push_back(absl::StrCat("('", names_[a], "', ", sizes_[a], ")"));
  if (items.size() == 1) return absl::StrCat("(", items[0], ",)");
  return absl::StrCat("(", absl::StrJoin(items, ", "), ")");
}

bool NextGridPoint(const Grid& grid, absl::Span<int64_t> point) {
  for (int a = grid.rank() - 1; a >= 0; --a) {
    if (++point[static_cast<size_t>(a)] < grid.size(a)) return true;
    point[static_cast<size_t>(a)] = 0;
  }
  return false;
}

absl::StatusOr<Grid> Grid::Parse(absl::string_view text) {
  Scanner s(text);
  // Named form: a tuple whose first item is itself a parenthesized ('name', size) pair.
  size_t start = s.pos();
  if (s.TryConsume('(') && s.Peek() == '(') {
    std::vector<std::pair<std::string, int64_t>> axes;
    while (s.TryConsume('(')) {
      AXE_ASSIGN_OR_RETURN(std::string name, ReadQuotedName(s));
      AXE_RETURN_IF_ERROR(s.Expect(','));
      AXE_ASSIGN_OR_RETURN(int64_t size, s.ReadInt());
      AXE_RETURN_IF_ERROR(s.Expect(')'));
      axes.emplace_back(std::move(name), size);
      if (!s.TryConsume(',')) break;
    }
    AXE_RETURN_IF_ERROR(s.Expect(')'));
    if (!s.AtEnd()) return s.Error("end of input");
    Grid g = Named(std::move(axes));
    AXE_RETURN_IF_ERROR(g.Validate());
    return g;
  }
  s.set_pos(start);
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, ParseIntList(text));
  return Create(std::move(sizes));
}

}  // namespace axe::pallas
