#include "axe/xla/index_util.h"

#include "absl/strings/str_cat.h"
#include "axe/base/checked_math.h"
#include "axe/base/status_macros.h"
#include "checks.h"

namespace axe::xla {

absl::StatusOr<int64_t> IndexUtil::MultidimensionalIndexToLinearIndex(
    const Shape& shape, absl::Span<const int64_t> index) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "MultidimensionalIndexToLinearIndex"));
  AXE_RETURN_IF_ERROR(
      internal::CheckIndexInBounds(shape, index, "MultidimensionalIndexToLinearIndex"));
  // Validation bounds Π dims × ByteWidth by INT64_MAX, so these products cannot overflow.
  int64_t linear = 0, scale = 1;
  for (int64_t d : shape.layout().minor_to_major()) {
    linear += index[static_cast<size_t>(d)] * scale;
    scale *= shape.dimensions(static_cast<size_t>(d));
  }
  return linear;
}

absl::StatusOr<std::vector<int64_t>> IndexUtil::LinearIndexToMultidimensionalIndex(
    const Shape& shape, int64_t linear) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "LinearIndexToMultidimensionalIndex"));
  const int64_t total = internal::DenseElements(shape);
  if (linear < 0 || linear >= total) {
    return absl::OutOfRangeError(absl::StrCat("LinearIndexToMultidimensionalIndex: linear index ",
                                              linear, " is outside [0, ", total, ") for ",
                                              shape.ToString()));
  }
  std::vector<int64_t> index(shape.dimensions().size());
  int64_t divisor = 1;
  for (int64_t d : shape.layout().minor_to_major()) {
    const int64_t size = shape.dimensions(static_cast<size_t>(d));
    index[static_cast<size_t>(d)] = (linear / divisor) % size;
    divisor *= size;
  }
  return index;
}

absl::StatusOr<bool> IndexUtil::BumpIndices(const Shape& shape, absl::Span<int64_t> indices) {
  if (!shape.IsArray())
    return absl::InvalidArgumentError(
        absl::StrCat("BumpIndices needs an array, got ", shape.ToString()));
  AXE_RETURN_IF_ERROR(internal::CheckIndexInBounds(shape, indices, "BumpIndices"));
  for (size_t k = indices.size(); k-- > 0;) {
    if (indices[k] + 1 < shape.dimensions(k)) {
      ++indices[k];
      for (size_t j = k + 1; j < indices.size(); ++j) indices[j] = 0;
      return true;
    }
  }
  return false;
}

absl::StatusOr<int64_t> IndexUtil::GetDimensionStride(const Shape& shape, int64_t dimension) {
  AXE_RETURN_IF_ERROR(internal::CheckArrayWithLayout(shape, "GetDimensionStride"));
  if (dimension < 0 || dimension >= shape.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("GetDimensionStride: dimension ", dimension,
                                                   " is outside ", shape.ToString()));
  }
  int64_t stride = 1;
  for (int64_t d : shape.layout().minor_to_major()) {
    if (d == dimension) break;
    std::optional<int64_t> next = CheckedMul(stride, shape.dimensions(static_cast<size_t>(d)));
    if (!next) {
      return absl::OutOfRangeError(absl::StrCat("GetDimensionStride: the stride of dimension ",
                                                dimension, " of ", shape.ToString(),
                                                " overflows int64"));
    }
    stride = *next;
  }
  return stride;
}

bool IndexUtil::IndexInBounds(const Shape& shape, absl::Span<const int64_t> index) {
  if (!shape.IsArray() || static_cast<int64_t>(index.size()) != shape.rank()) return false;
  for (size_t d = 0; d < index.size(); ++d) {
    if (index[d] < 0 || index[d] >= shape.dimensions(d)) return false;
  }
  return true;
}

int IndexUtil::CompareIndices(absl::Span<const int64_t> lhs, absl::Span<const int64_t> rhs) {
  for (size_t i = 0; i < lhs.size() && i < rhs.size(); ++i) {
    if (lhs[i] < rhs[i]) return -1;
    if (lhs[i] > rhs[i]) return 1;
  }
  if (lhs.size() == rhs.size()) return 0;
  return lhs.size() < rhs.size() ? -1 : 1;
}

}  // namespace axe::xla
