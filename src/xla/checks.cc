#include "checks.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "axe/base/int_list.h"
#include "axe/xla/validate.h"

namespace axe::xla::internal {

absl::Status CheckArrayWithLayout(const Shape& shape, absl::string_view op) {
  if (!shape.IsArray()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, " needs an array shape, got ", shape.ToString()));
  }
  if (!shape.has_layout()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": shape ", shape.ToString(), " does not have a layout"));
  }
  if (absl::Status st = ValidateShape(shape); !st.ok()) {
    return absl::InvalidArgumentError(absl::StrCat(op, ": ", st.message()));
  }
  for (size_t i = 0; i < shape.dimensions().size(); ++i) {
    if (shape.is_unbounded_dynamic_dimension(i)) {
      return absl::InvalidArgumentError(absl::StrCat(op, ": dimension ", i, " of ",
                                                     shape.ToString(),
                                                     " is unbounded ('?'), so it has no size"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIndexInBounds(absl::Span<const int64_t> dims, absl::Span<const int64_t> index,
                                absl::string_view op) {
  if (index.size() != dims.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat(op, ": index ", FormatTuple(index), " has ", index.size(),
                     " entries, but the shape has rank ", dims.size()));
  }
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= dims[d]) {
      return absl::OutOfRangeError(absl::StrCat(op, ": index ", FormatTuple(index),
                                                " is out of bounds in dimension ", d, " (",
                                                index[d], " is not in [0, ", dims[d], "))"));
    }
  }
  return absl::OkStatus();
}

absl::Status CheckIndexInBounds(const Shape& shape, absl::Span<const int64_t> index,
                                absl::string_view op) {
  absl::Status st = CheckIndexInBounds(shape.dimensions(), index, op);
  if (st.ok()) return st;
  return absl::Status(st.code(), absl::StrCat(st.message(), " of ", shape.ToString()));
}

int64_t DenseElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape.dimensions()) {
    if (d == 0) return 0;
  }
  for (int64_t d : shape.dimensions()) n *= d;
  return n;
}

std::vector<int64_t> MaxSplitSizes(const Shape& shape) {
  std::vector<int64_t> sizes(shape.dimensions().begin(), shape.dimensions().end());
  absl::Span<const int64_t> m2m = shape.layout().minor_to_major();
  for (const SplitConfig& c : shape.layout().split_configs()) {
    // Physical dim p (0 = most major) is logical dim m2m[rank - 1 - p] (validated in range).
    const size_t logical =
        static_cast<size_t>(m2m[m2m.size() - 1 - static_cast<size_t>(c.dimension())]);
    int64_t largest = 0, start = 0;
    for (int64_t i : c.split_indices()) {
      largest = std::max(largest, i - start);
      start = i;
    }
    sizes[logical] = std::max(largest, sizes[logical] - start);
  }
  return sizes;
}

std::vector<int64_t> MajorToMinor(const Shape& shape) {
  absl::Span<const int64_t> m2m = shape.layout().minor_to_major();
  return std::vector<int64_t>(m2m.rbegin(), m2m.rend());
}

}  // namespace axe::xla::internal
