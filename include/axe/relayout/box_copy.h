// Copies a box of one stored tensor into a box of another through the relayout engine:
// each side's layout is sliced to its box (axe::Slice), and one relayout plan moves the
// elements from one slice to the other. Where a layout cannot be sliced to the whole box
// (a box that cuts through tiles in a way the paper's slice forms do not cover), the box is
// halved along its longest dimension and each half is copied the same way.
//
//   // rows [2, 4) of a row-major 8x8 tensor into rows [0, 2) of a column-major 4x8 one:
//   CopyBox({row_major_8x8, {8, 8}, src}, {{2, 4}, {0, 8}},
//           {col_major_4x8, {4, 8}, dst}, {{0, 2}, {0, 8}}, /*element_bytes=*/4);
#ifndef AXE_RELAYOUT_BOX_COPY_H_
#define AXE_RELAYOUT_BOX_COPY_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/slice.h"
#include "axe/relayout/buffer_layout.h"
#include "axe/relayout/index_box.h"

namespace axe::relayout {

// A tensor of `shape` stored in the buffer at `data` with layout `layout`.
struct StoredTensor {
  const BufferLayout& layout;
  absl::Span<const int64_t> shape;
  const void* data;
};
struct MutableStoredTensor {
  const BufferLayout& layout;
  absl::Span<const int64_t> shape;
  void* data;
};

// Copies src's elements in `src_box` to dst's elements in `dst_box` (the boxes have the
// same extents and lie within their tensors' shapes; an empty box copies nothing). The copy
// runs on the calling thread. Errors: boxes of different ranks or extents, or outside the
// shape (naming the dimension); the relayout engine's errors.
absl::Status CopyBox(const StoredTensor& src, absl::Span<const Interval> src_box,
                     const MutableStoredTensor& dst, absl::Span<const Interval> dst_box,
                     int element_bytes);

// The dense row-major buffer layout of a tensor of `shape` (zero extents count as 1; a
// scalar is S[1:1]). Errors: strides that overflow int64.
absl::StatusOr<BufferLayout> RowMajorBuffer(absl::Span<const int64_t> shape);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_BOX_COPY_H_
