#include "axe/relayout/buffer_layout.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"
#include "axe/base/status_macros.h"
#include "axe/layout/apply.h"

namespace axe::relayout {
namespace {

// Position of the `over` keyword that starts the domain: the last one outside brackets,
// preceded by a space and followed by '(' or a digit; npos if none.
size_t FindOver(absl::string_view text) {
  size_t found = absl::string_view::npos;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '[' || c == '(' || c == '{') ++depth;
    if (c == ']' || c == ')' || c == '}') --depth;
    if (depth != 0 || text.substr(i, 4) != "over") continue;
    const bool space_before = i > 0 && (text[i - 1] == ' ' || text[i - 1] == '\t');
    size_t k = i + 4;
    while (k < text.size() && (text[k] == ' ' || text[k] == '\t')) ++k;
    const bool domain_after =
        k < text.size() && (text[k] == '(' || (text[k] >= '0' && text[k] <= '9'));
    if (space_before && domain_after) found = i;
  }
  return found;
}

}  // namespace

std::vector<int64_t> BufferLayout::DomainFor(absl::Span<const int64_t> shape) const {
  if (!domain.empty()) return domain;
  std::vector<int64_t> d(shape.begin(), shape.end());
  for (int64_t& e : d) e = std::max<int64_t>(e, 1);
  return d;
}

absl::StatusOr<BufferLayout> BufferLayout::Parse(absl::string_view text) {
  const size_t over = FindOver(text);
  absl::StatusOr<Layout> layout = Layout::Parse(text.substr(0, over));
  if (!layout.ok()) return layout.status();
  if (over == absl::string_view::npos) return BufferLayout(*std::move(layout));
  absl::StatusOr<std::vector<int64_t>> domain = ParseIntList(text.substr(over + 4));
  if (!domain.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("domain after 'over' at position ", over, ": ", domain.status().message()));
  }
  if (domain->empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("empty domain after 'over' at position ", over, " in \"", text, "\""));
  }
  return BufferLayout(*std::move(layout), *std::move(domain));
}

std::string BufferLayout::ToString() const {
  if (domain.empty()) return layout.ToString();
  return absl::StrCat(layout.ToString(), " over ", FormatTuple(domain));
}

absl::Status CheckBufferLayout(const BufferLayout& buffer, absl::Span<const int64_t> shape,
                               absl::string_view what) {
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] < 0) {
      return absl::InvalidArgumentError(absl::StrCat("shape ", FormatTuple(shape), ": dimension ",
                                                     d, " has negative extent ", shape[d]));
    }
  }
  const std::vector<int64_t> domain = buffer.DomainFor(shape);
  if (domain.size() != shape.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, " ", buffer.ToString(), ": domain ", FormatTuple(domain), " has rank ", domain.size(),
        " but the shape ", FormatTuple(shape), " has rank ", shape.size()));
  }
  for (size_t d = 0; d < shape.size(); ++d) {
    if (domain[d] < 1 || domain[d] < shape[d]) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " ", buffer.ToString(), ": domain dimension ", d, " (extent ",
                       domain[d], ") cannot hold shape dimension ", d, " (extent ", shape[d], ")"));
    }
  }
  const std::vector<int64_t> checked = domain.empty() ? std::vector<int64_t>{1} : domain;
  absl::Status admitted = CheckShapeAdmitted(buffer.layout, checked);
  if (admitted.ok()) return absl::OkStatus();
  if (buffer.domain.empty() &&
      !std::equal(shape.begin(), shape.end(), checked.begin(), checked.end())) {
    // The layout was checked over the shape with zero extents (or a scalar) as 1: say so,
    // so that the message does not seem to quote a shape nobody gave.
    return absl::InvalidArgumentError(absl::StrCat(
        what, ": shape ", FormatTuple(shape), " is stored over the domain ", FormatTuple(checked),
        " (an empty dimension or a scalar still takes one element of the layout): ",
        admitted.message()));
  }
  return absl::InvalidArgumentError(absl::StrCat(what, ": ", admitted.message()));
}

}  // namespace axe::relayout
