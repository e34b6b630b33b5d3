// BlockSpec(block_shape, index_map): which window of an operand each program sees.
// The block shape (BlockDim per array dimension) is omitted for the whole array; the index
// map is omitted for all zeros. An omitted spec is BlockSpec(): the whole array, zeros.
//
//   BlockSpec({2, 3}, [](int64_t i, int64_t j) { return BlockIndices{i, j}; })
//   BlockSpec({Element(8), Element(128)}, [](int64_t i) { return std::pair{8 * i, 0}; })
//   BlockSpec({std::nullopt, 2}, ...)        // first dim squeezed out of the kernel's ref
//   BlockSpec::WholeArray()
//
// For an array of shape n and block sizes b, program p sees the window
// [start, start + b) per dimension with start = b*v (Blocked) or v (Element, Squeezed),
// v = index_map(p); see pallas_call.h for how interpret mode pads and clamps it.
//
// A BlockSpec holds a callable, so it has no ==; its block shape and memory space do.
#ifndef AXE_PALLAS_BLOCK_SPEC_H_
#define AXE_PALLAS_BLOCK_SPEC_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "axe/pallas/block_dim.h"
#include "axe/pallas/grid.h"
#include "axe/pallas/index_map.h"

namespace axe::pallas {

// Where a backend keeps an operand: kDefault (blocks pipelined into on-chip memory), kAny
// (TPU: left in HBM, whole array), kSmem (TPU scalar memory), kGmem (GPU global memory).
// Interpret and parallel mode ignore it; Validate checks it.
enum class MemorySpace : uint8_t { kDefault, kAny, kSmem, kGmem };
// "default", "ANY", "SMEM", "GMEM".
absl::string_view MemorySpaceName(MemorySpace m);
// Case-insensitive name; "hbm" is ANY.
absl::StatusOr<MemorySpace> ParseMemorySpace(absl::string_view text);

class BlockSpec {
 public:
  // The whole array with the zero index map.
  BlockSpec() = default;
  BlockSpec(std::vector<BlockDim> block_shape, IndexMap index_map = {},
            MemorySpace memory_space = MemorySpace::kDefault)
      : block_shape_(std::move(block_shape)),
        index_map_(std::move(index_map)),
        memory_space_(memory_space) {}
  // block_shape omitted: the whole array.
  static BlockSpec WholeArray(IndexMap index_map = {},
                              MemorySpace memory_space = MemorySpace::kDefault) {
    BlockSpec s;
    s.index_map_ = std::move(index_map);
    s.memory_space_ = memory_space;
    return s;
  }

  const std::optional<std::vector<BlockDim>>& block_shape() const { return block_shape_; }
  const IndexMap& index_map() const { return index_map_; }
  MemorySpace memory_space() const { return memory_space_; }

  // The block shape for an array of `array_shape`: block_shape(), or Blocked(n) per
  // dimension when it was omitted.
  std::vector<BlockDim> Resolve(absl::Span<const int64_t> array_shape) const;

  // "BlockSpec((Blocked(2), Blocked(3)), <lambda> at f.cc:3)"; an omitted block shape prints
  // as None.
  std::string ToString() const;

 private:
  std::optional<std::vector<BlockDim>> block_shape_;
  IndexMap index_map_;
  MemorySpace memory_space_ = MemorySpace::kDefault;
};

// The Pallas documentation's slices_for_invocation: the window [start, stop) per dimension
// that `spec` selects of an array of `x_shape` at grid point `invocation` — not clipped to
// the array and not clamped (start = b*v for Blocked, v otherwise; Element padding is not
// subtracted). Errors: invocation outside the grid, index-map errors or result counts, and
// a start at or past the array's end ("at least one element of the block must be within
// bounds").
//
//   SlicesForInvocation({100, 100}, BlockSpec({10, 20}, ...(i, j)), Grid{10, 5}, {2, 4})
//   // {{20, 30}, {80, 100}}
absl::StatusOr<std::vector<std::pair<int64_t, int64_t>>> SlicesForInvocation(
    absl::Span<const int64_t> x_shape, const BlockSpec& spec, const Grid& grid,
    absl::Span<const int64_t> invocation);
// Python's repr of such a list: "[slice(20, 30, None), slice(80, 100, None)]".
std::string FormatSlices(absl::Span<const std::pair<int64_t, int64_t>> slices);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_BLOCK_SPEC_H_
