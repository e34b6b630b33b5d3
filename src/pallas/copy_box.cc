#include "copy_box.h"

#include <algorithm>

#include "absl/status/status.h"
#include "axe/base/check.h"
#include "axe/relayout/strided_copy.h"

namespace axe::pallas::internal {

void CopyBlock(std::byte* dst, const int64_t* dst_strides, const std::byte* src,
               const int64_t* src_strides, const int64_t* counts, int rank, size_t element_bytes) {
  const auto n = static_cast<size_t>(rank);
  const absl::Status copied = relayout::CopyStrided(
      src, absl::MakeConstSpan(src_strides, n), dst, absl::MakeConstSpan(dst_strides, n),
      absl::MakeConstSpan(counts, n), static_cast<int>(element_bytes));
  AXE_CHECK(copied.ok()) << "Pallas block copy: " << copied;
}

Shape ContiguousStrides(absl::Span<const int64_t> shape) {
  Shape strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    const size_t k = static_cast<size_t>(d);
    strides[k] = strides[k + 1] * std::max<int64_t>(shape[k + 1], 1);
  }
  return strides;
}

}  // namespace axe::pallas::internal
