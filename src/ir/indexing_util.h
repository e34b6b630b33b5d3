// The geometry of gather and the scatter family (internal to src/ir and src/exec): their
// params read and checked, and the map from window and batch positions to element offsets
// that both the interpreter's impl rules and the executor's typed kernels walk.
//
// A gather reads, for each batch position b (each index vector of `indices`), a window of the
// operand; a scatter writes a window of `updates` into the operand at each batch position. In
// both, the element at window position w of batch position b is
//
//   operand offset   base[b] + window_operand[w]     (base[b] < 0: out of bounds)
//   other offset     batch_other[b] + window_other[w]
//
// where "other" is the gather's output or the scatter's updates. Out-of-bounds windows are
// clamped in (CLIP, and gather's PROMISE_IN_BOUNDS as XLA:CPU does), or marked (FILL_OR_DROP:
// a gather fills them, a scatter drops them; scatter's PROMISE_IN_BOUNDS drops them too).
#ifndef AXE_SRC_IR_INDEXING_UTIL_H_
#define AXE_SRC_IR_INDEXING_UTIL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/ir/param.h"
#include "axe/ir/shaped_array.h"

namespace axe::ir::internal {

enum class IndexMode { kClip, kFillOrDrop, kPromiseInBounds };

// GatherDimensionNumbers(...) or ScatterDimensionNumbers(...), in one form: `window_dims` are
// offset_dims / update_window_dims, `collapsed_dims` collapsed_slice_dims /
// inserted_window_dims, `start_index_map` start_index_map / scatter_dims_to_operand_dims and
// `indices_batching_dims` start_indices_batching_dims / scatter_indices_batching_dims.
struct IndexDims {
  std::vector<int64_t> window_dims;
  std::vector<int64_t> collapsed_dims;
  std::vector<int64_t> start_index_map;
  std::vector<int64_t> operand_batching_dims;
  std::vector<int64_t> indices_batching_dims;
};

struct GatherParams {
  IndexDims dims;
  std::vector<int64_t> slice_sizes;
  IndexMode mode = IndexMode::kPromiseInBounds;
  std::optional<double> fill_value;  // None: JAX's default for the dtype
};

struct ScatterParams {
  IndexDims dims;
  IndexMode mode = IndexMode::kFillOrDrop;
};

// The params read (InvalidArgument naming the parameter when malformed), not yet checked
// against the operands' shapes.
absl::StatusOr<GatherParams> ReadGatherParams(const Params& params);
absl::StatusOr<ScatterParams> ReadScatterParams(const Params& params);
// The params as JAX prints them.
Param GatherDimensionNumbersParam(const IndexDims& dims);
Param ScatterDimensionNumbersParam(const IndexDims& dims);
Param ModeParam(IndexMode mode);

// gather's result shape, checked as JAX's _gather_shape_rule does (its TypeError words).
absl::StatusOr<std::vector<int64_t>> GatherShape(const ShapedArray& operand,
                                                 const ShapedArray& indices, const GatherParams& g);
// The scatter family's checks (JAX's _scatter_shape_rule); the result has the operand's shape.
absl::Status CheckScatterShapes(absl::string_view prim, const ShapedArray& operand,
                                const ShapedArray& indices, const ShapedArray& updates,
                                const ScatterParams& s);

// The fill value of a FILL_OR_DROP gather: the param, or JAX's default for `dtype` (NaN for
// floats, the minimum of signed and the maximum of unsigned integers, True for bool).
double GatherFillValue(const GatherParams& g, DType dtype);

struct IndexMap {
  std::vector<int64_t> base;  // per batch position; -1: the window is out of bounds
  std::vector<int64_t> batch_other;
  std::vector<int64_t> window_operand;
  std::vector<int64_t> window_other;
};

// The map of a gather (other = its output) or a scatter (other = updates), for shapes already
// checked. `indices` holds the index values in row-major order (integers read into int64,
// unsigned ones past 2^63 saturated). `clamp`: out-of-bounds windows are clamped in; otherwise
// they get base -1.
IndexMap BuildIndexMap(absl::Span<const int64_t> operand_shape,
                       absl::Span<const int64_t> indices_shape,
                       absl::Span<const int64_t> other_shape, const IndexDims& dims,
                       absl::Span<const int64_t> indices, bool clamp);

// Whether a gather in `mode` clamps (CLIP and PROMISE_IN_BOUNDS) and a scatter does (CLIP).
inline bool GatherClamps(IndexMode mode) { return mode != IndexMode::kFillOrDrop; }
inline bool ScatterClamps(IndexMode mode) { return mode == IndexMode::kClip; }

// How a scatter combines an update into the operand, by primitive name.
enum class ScatterCombine { kReplace, kAdd, kMul, kMin, kMax };
std::optional<ScatterCombine> ScatterCombineOf(absl::string_view prim);

}  // namespace axe::ir::internal

#endif  // AXE_SRC_IR_INDEXING_UTIL_H_
