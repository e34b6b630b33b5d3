#include "axe/relayout/index_box.h"

#include <algorithm>
#include <cstddef>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"

namespace axe::relayout {

std::optional<int64_t> BoxElements(absl::Span<const Interval> box) {
  int64_t n = 1;
  for (const Interval& r : box) {
    if (r.end <= r.begin) return 0;
  }
  for (const Interval& r : box) {
    std::optional<int64_t> size = CheckedSub(r.end, r.begin);
    std::optional<int64_t> next = size ? CheckedMul(n, *size) : std::nullopt;
    if (!next) return std::nullopt;
    n = *next;
  }
  return n;
}

IndexBox WholeBox(absl::Span<const int64_t> shape) {
  IndexBox box;
  for (int64_t d : shape) box.push_back({0, d});
  return box;
}

std::optional<IndexBox> Intersect(absl::Span<const Interval> a, absl::Span<const Interval> b) {
  IndexBox out;
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    Interval r{std::max(a[i].begin, b[i].begin), std::min(a[i].end, b[i].end)};
    if (r.end <= r.begin) return std::nullopt;
    out.push_back(r);
  }
  return out;
}

std::vector<IndexBox> Subtract(absl::Span<const Interval> a, absl::Span<const Interval> b) {
  std::vector<IndexBox> out;
  if (BoxElements(a).value_or(1) == 0) return out;
  if (!Intersect(a, b).has_value()) {
    out.emplace_back(a.begin(), a.end());
    return out;
  }
  IndexBox rest(a.begin(), a.end());
  for (size_t i = 0; i < rest.size(); ++i) {
    if (rest[i].begin < b[i].begin) {
      IndexBox below = rest;
      below[i].end = b[i].begin;
      out.push_back(std::move(below));
      rest[i].begin = b[i].begin;
    }
    if (rest[i].end > b[i].end) {
      IndexBox above = rest;
      above[i].begin = b[i].end;
      out.push_back(std::move(above));
      rest[i].end = b[i].end;
    }
  }
  return out;  // `rest` is now a ∩ b
}

IndexBox Relative(absl::Span<const Interval> box, absl::Span<const Interval> origin) {
  IndexBox out;
  for (size_t i = 0; i < box.size(); ++i) {
    out.push_back({box[i].begin - origin[i].begin, box[i].end - origin[i].begin});
  }
  return out;
}

void SplitBox(absl::Span<const Interval> box, int64_t max_elements, std::vector<IndexBox>& out) {
  const int64_t n = BoxElements(box).value_or(0);
  if (n <= max_elements) {
    if (n > 0) out.emplace_back(box.begin(), box.end());
    return;
  }
  size_t i = 0;
  while (box[i].size() == 1) ++i;  // n > max_elements >= 1: some extent exceeds 1
  const int64_t inner = n / box[i].size();
  const int64_t rows = std::max<int64_t>(1, max_elements / inner);
  for (int64_t begin = box[i].begin; begin < box[i].end; begin += rows) {
    IndexBox part(box.begin(), box.end());
    part[i] = {begin, std::min(box[i].end, begin + rows)};
    SplitBox(part, max_elements, out);
  }
}

}  // namespace axe::relayout
