// Strided block copies between operand buffers, padded buffers and scratch blocks, through
// the relayout engine (axe::relayout::CopyStrided).
#ifndef AXE_SRC_PALLAS_COPY_BOX_H_
#define AXE_SRC_PALLAS_COPY_BOX_H_

#include <cstddef>
#include <cstdint>

#include "absl/types/span.h"
#include "operand_plan.h"

namespace axe::pallas::internal {

// Copies a rank-`rank` block of counts[0] x ... x counts[rank-1] elements of
// `element_bytes` bytes each between buffers with the given strides (in elements). Nothing
// for an empty block. The operands' buffers and strides were checked when the call was
// planned: an engine error here is a bug in axe and aborts.
void CopyBlock(std::byte* dst, const int64_t* dst_strides, const std::byte* src,
               const int64_t* src_strides, const int64_t* counts, int rank, size_t element_bytes);

// Row-major strides (in elements) of a dense array of `shape` (zero sizes count as 1).
Shape ContiguousStrides(absl::Span<const int64_t> shape);

}  // namespace axe::pallas::internal

#endif  // AXE_SRC_PALLAS_COPY_BOX_H_
