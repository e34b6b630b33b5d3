// The naive relayout oracle: element by element, straight from the definitions.
//
// For every point x of the box [0, shape): read element x of the source at
// ApplyBase(src.layout, flat_src(x)) and write it to every point of
// Apply(dst.layout, flat_dst(x)) (flat_* is x flattened row-major in that side's domain).
// With a padding value, every destination domain point outside the box gets it, on every
// replica copy. It shares no planning code with the engine (PlanRelayout) and is used as
// the engine's test oracle and by `axe relayout --check`. Slow: about 100 ns per element.
//
//   ReferenceRelayout(src, dst, {4, 8}, 4, src_ptr, dst_ptr);
#ifndef AXE_RELAYOUT_RELAYOUT_REFERENCE_H_
#define AXE_RELAYOUT_RELAYOUT_REFERENCE_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "absl/types/span.h"
#include "axe/base/thread_pool.h"
#include "axe/relayout/buffer_layout.h"

namespace axe::relayout {

// Errors: the buffer layouts do not hold `shape` (CheckBufferLayout), element_bytes is not
// supported, or a layout uses a non-memory axis. `pool` (optional) spreads the elements
// over its threads.
absl::Status ReferenceRelayout(
    const BufferLayout& src, const BufferLayout& dst, absl::Span<const int64_t> shape,
    int element_bytes, const void* src_ptr, void* dst_ptr,
    const std::optional<std::vector<uint8_t>>& padding_value = std::nullopt,
    ThreadPool* pool = nullptr);

}  // namespace axe::relayout

#endif  // AXE_RELAYOUT_RELAYOUT_REFERENCE_H_
