// A box of a stored tensor described as nested strided runs of bytes, the shape a transport
// can move in place (an MPI derived datatype, or one contiguous block) without packing it
// through a relayout first.
//
// Element (i_0, ..., i_{k-1}) of the box, counted row-major over the box, starts at byte
//   offset_bytes + sum_j d_j * dims[j].stride_bytes
// where (d_0, ..., d_{m-1}) are the digits of its row-major index over the dims' extents
// (each dim covers one or more whole runs of `run_bytes` bytes; the innermost contiguous
// bytes are folded into run_bytes). A box that is one contiguous block has no dims.
//
//   // columns [4, 8) of rows [0, 2) of a row-major 4x8 f32 tensor:
//   DescribeStridedBox(row_major_4x8, {4, 8}, {{0, 2}, {4, 8}}, 4);
//   // -> offset_bytes 16, run_bytes 16, dims {{2, 32}}
#ifndef AXE_RELAYOUT_STRIDED_BOX_H_
#define AXE_RELAYOUT_STRIDED_BOX_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/layout/slice.h"
#include "axe/relayout/buffer_layout.h"

namespace axe::relayout {

struct StridedDim {
  int64_t extent = 1;
  int64_t stride_bytes = 0;
  friend bool operator==(const StridedDim&, const StridedDim&) = default;
};

struct StridedBox {
  int64_t offset_bytes = 0;      // of the box's first element from the buffer's start
  int64_t run_bytes = 0;         // the innermost contiguous run
  std::vector<StridedDim> dims;  // outermost first; extents > 1, strides > 0
  bool contiguous() const { return dims.empty(); }
  int64_t bytes() const;  // run_bytes x the product of the extents
};

// The description of `box` (within `shape`, non-empty) of a tensor stored in `layout`, or
// nullopt when there is none of this form: the layout cannot be sliced to the box
// (axe::Slice has no answer), it has replicas or non-memory axes, a stride that is zero or
// negative, or a byte count overflows. Errors: Slice's (a box outside the shape).
absl::StatusOr<std::optional<StridedBox>> DescribeStridedBox(const BufferLayout& layout,
                                                             absl::Span<const int64_t> shape,
                                                             absl::Span<const Interval> box,
                                                             int element_bytes);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_STRIDED_BOX_H_
