// Copies a box of elements between two buffers addressed by per-dimension strides (in
// elements), through one relayout plan: the copies of dense or strided arrays that have no
// Axe layout of their own (Pallas's blocks, padded and scratch buffers).
//
//   // a 4x8 block of a row-major 16x8 array into a 4x8 column-major scratch:
//   CopyStrided(src + 2 * 8, {8, 1}, scratch, {1, 4}, {4, 8}, /*element_bytes=*/4);
#ifndef AXE_RELAYOUT_STRIDED_COPY_H_
#define AXE_RELAYOUT_STRIDED_COPY_H_

#include <cstdint>

#include "absl/status/status.h"
#include "absl/types/span.h"

namespace axe::relayout {

// Copies the counts[0] x ... x counts[rank-1] elements of `element_bytes` bytes at
// src + sum(i_d * src_strides[d]) to dst + sum(i_d * dst_strides[d]) (offsets in elements);
// rank 0 copies one element, an empty box nothing. The copy runs on the calling thread.
// Errors (InvalidArgument): strides or counts of different ranks, a negative count (naming
// the dimension); PlanRelayout's (a destination that is not one-to-one, an element size the
// engine does not copy, source and destination ranges that overlap).
absl::Status CopyStrided(const void* src, absl::Span<const int64_t> src_strides, void* dst,
                         absl::Span<const int64_t> dst_strides, absl::Span<const int64_t> counts,
                         int element_bytes);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_STRIDED_COPY_H_
