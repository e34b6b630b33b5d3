// The opt-in clamp report of interpret and parallel mode. When an index map asks for a
// window that does not fit the (padded) array, the window is moved into it — JAX's
// lax.dynamic_slice semantics (a negative start counts once from the end of the padded
// dimension, then every start is clamped), no error. Most such windows are the classic
// mistake of returning element offsets instead of block indices (CK-2: `i -> 4*i` with
// block 4), which silently leaves the middle blocks uninitialized; the report names each case.
//
//   std::vector<ClampEvent> clamps;
//   spec.options.clamp_report = &clamps;
//   ... run ...
//   clamps[0].ToString();
//   // "args[0] at grid point (1,): the index map returned (4,), asking for the window
//   //  [16:20] of an array of shape (12,); it was clamped to [8:12] (an index map
//   //  returns block indices, not element offsets)"
#ifndef AXE_PALLAS_CLAMP_REPORT_H_
#define AXE_PALLAS_CLAMP_REPORT_H_

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

namespace axe::pallas {

struct ClampEvent {
  std::string operand;              // "args[0]", "outputs[1]"
  std::vector<int64_t> grid_point;  // the program
  std::vector<int64_t> indices;     // what the index map returned
  // Per array dimension, in array coordinates (Element padding lo subtracted, so a window
  // reaching into the front padding starts below 0): the requested window start, the
  // clamped start, and the window size (1 for Squeezed).
  std::vector<int64_t> requested_start;
  std::vector<int64_t> start;
  std::vector<int64_t> size;
  std::vector<int64_t> array_shape;
  bool blocked_dim_moved = false;  // a Blocked dimension was clamped
  // Some requested start was negative: like JAX's interpret mode (lax.dynamic_slice), it first
  // counted from the end of the padded dimension, then was clamped.
  bool negative_start = false;

  std::string ToString() const;
  friend bool operator==(const ClampEvent&, const ClampEvent&) = default;
};

// "[16:20]", "[0:2, 16:20]": Python slices of a window.
// The end start + size of a window dimension (size >= 0). A window of a huge empty dimension
// can end past INT64_MAX: that end is returned as the unsigned sum, which stays below 2^64.
std::variant<int64_t, uint64_t> WindowEnd(int64_t start, int64_t size);

std::string FormatWindow(const std::vector<int64_t>& start, const std::vector<int64_t>& size);

}  // namespace axe::pallas

#endif  // AXE_PALLAS_CLAMP_REPORT_H_
