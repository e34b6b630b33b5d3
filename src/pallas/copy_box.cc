#include "copy_box.h"

#include <algorithm>
#include <cstring>

#include "axe/pallas/ref.h"

namespace axe::pallas::internal {

void CopyBox(std::byte* dst, const int64_t* dst_strides, const std::byte* src,
             const int64_t* src_strides, const int64_t* counts, int rank, size_t element_bytes) {
  for (int d = 0; d < rank; ++d) {
    if (counts[d] <= 0) return;
  }
  if (rank == 0) {
    std::memcpy(dst, src, element_bytes);
    return;
  }
  const auto bytes = static_cast<int64_t>(element_bytes);
  const int last = rank - 1;
  const bool dense = dst_strides[last] == 1 && src_strides[last] == 1;
  int64_t index[kMaxRank] = {};
  int64_t dst_offset = 0, src_offset = 0;
  while (true) {
    if (dense) {
      std::memcpy(dst + dst_offset * bytes, src + src_offset * bytes,
                  static_cast<size_t>(counts[last]) * element_bytes);
    } else {
      for (int64_t i = 0; i < counts[last]; ++i) {
        std::memcpy(dst + (dst_offset + i * dst_strides[last]) * bytes,
                    src + (src_offset + i * src_strides[last]) * bytes, element_bytes);
      }
    }
    int d = last - 1;
    while (d >= 0) {
      dst_offset += dst_strides[d];
      src_offset += src_strides[d];
      if (++index[d] < counts[d]) break;
      dst_offset -= dst_strides[d] * counts[d];
      src_offset -= src_strides[d] * counts[d];
      index[d] = 0;
      --d;
    }
    if (d < 0) return;
  }
}

Dims ContiguousStrides(absl::Span<const int64_t> shape) {
  Dims strides(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) {
    const size_t k = static_cast<size_t>(d);
    strides[k] = strides[k + 1] * std::max<int64_t>(shape[k + 1], 1);
  }
  return strides;
}

}  // namespace axe::pallas::internal
