// Operand planning for ExecuteCall: everything about one operand of a Pallas call that does
// not change from program to program (block sizes, padded shape, the buffer programs read and
// write), and the evaluation of its index map into clamped window starts.
#ifndef AXE_SRC_PALLAS_OPERAND_PLAN_H_
#define AXE_SRC_PALLAS_OPERAND_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "axe/pallas/array.h"
#include "axe/pallas/call_spec.h"
#include "axe/pallas/execute.h"

namespace axe::pallas::internal {

// "(1, 0)": a grid point as Python prints a tuple.
std::string PointText(absl::Span<const int64_t> point);
// "pallas_call <name>" or "pallas_call <name> at <file>:<line>".
std::string CallName(const CallSpec& spec, const CallSite& site);

// One operand of the call. Coordinates are "padded": Element padding in front counts, so the
// array's element 0 sits at padding_lo.
struct Operand {
  std::string origin;  // "args[0]" / "outputs[0]"
  bool is_output = false;
  int64_t index = 0;  // among the inputs or among the outputs
  const BlockSpec* spec = nullptr;
  DType dtype = DType::kF32;
  size_t element_bytes = 0;
  alignas(8) unsigned char uninitialized_bytes[8] = {};  // one uninitialized element
  int rank = 0;
  Shape array_shape;
  std::vector<BlockDim> block_dims;
  Shape block_size;    // per dimension (1 for Squeezed)
  Shape padding_lo;    // Element padding in front (0 for other kinds)
  Shape padded_shape;  // lo + shape + hi, rounded up to a multiple of block_size
  Shape max_start;     // padded_shape - block_size: starts end up in [0, max_start]
  absl::InlinedVector<bool, 6> is_blocked;  // start = block_size * index (else: index)
  bool has_element_padding = false;
  // The kernel's ref: the dimensions that are not squeezed.
  Shape ref_shape;
  absl::InlinedVector<int, 6> kept_dims;
  // The buffer programs read and write: buffer index = padded coordinate - buffer_origin.
  std::byte* buffer = nullptr;
  Shape buffer_shape, buffer_strides, buffer_origin, ref_strides;
  // Input windows that reach into padding are copied into a dense block of block_size.
  int64_t block_elements = 0;
  Shape scratch_strides, scratch_ref_strides;
  // Outputs whose padded shape differs from their shape run in this buffer.
  bool needs_padded_buffer = false;
  std::optional<AnyArray> padded_buffer;
};

struct Plan {
  std::vector<Operand> operands;  // inputs, then outputs
  size_t num_inputs = 0;
};

// "Block shape for <origin> (= <block shape>) <rest>".
std::string BlockShapeError(const Operand& op, absl::string_view rest);

// Checks the call without data (grid, semantics, spec counts, block shapes, index-map
// arities, aliases) and plans every operand; buffers are not set.
absl::StatusOr<Plan> BuildPlan(const CallSpec& spec, absl::Span<const ShapeDType> inputs,
                               absl::Span<const ShapeDType> outputs);

// The errors of EvaluateIndexMap and WindowAt (out of line: the functions below run once per
// program and operand).
absl::Status IndexMapFailed(const Operand& op, absl::Span<const int64_t> point,
                            const absl::Status& error);
absl::Status IndexMapCountError(const Operand& op, absl::Span<const int64_t> point,
                                const BlockIndices& indices);
absl::Status WindowStartOverflow(const Operand& op, absl::Span<const int64_t> point,
                                 const BlockIndices& indices, int d);

// Evaluates op's index map at `point` into `indices`, checking the result count (JAX's
// message).
inline absl::Status EvaluateIndexMap(const Operand& op, absl::Span<const int64_t> point,
                                     BlockIndices& indices) {
  if (absl::Status s = op.spec->index_map().Evaluate(point, op.rank, &indices); !s.ok()) {
    return IndexMapFailed(op, point, s);
  }
  if (static_cast<int>(indices.size()) != op.rank) return IndexMapCountError(op, point, indices);
  return absl::OkStatus();
}

// Evaluates every index map at the first grid point, so that a wrong result count is
// reported before any program runs (JAX finds it when tracing).
absl::Status ProbeIndexMaps(const CallSpec& spec, const Plan& plan);

// The window of `op` at `point`.
struct Window {
  BlockIndices indices;         // what the index map returned
  Shape starts;                 // placed starts, padded coordinates
  bool clamped = false;         // some start moved
  bool blocked_moved = false;   // a Blocked dimension's start moved
  bool negative_start = false;  // some start was negative (counted from the end, then clamped)
};
// Evaluates the index map and places the starts as JAX's interpret mode does (a negative
// start plus the padded size, then clamped into [0, max_start]); errors on a wrong count or
// an overflowing start (block_size * index, or index - Element padding lo).
inline absl::Status WindowAt(const Operand& op, absl::Span<const int64_t> point, Window& window) {
  if (absl::Status s = EvaluateIndexMap(op, point, window.indices); !s.ok()) return s;
  window.starts.resize(static_cast<size_t>(op.rank));
  window.clamped = window.blocked_moved = window.negative_start = false;
  for (int d = 0; d < op.rank; ++d) {
    const size_t k = static_cast<size_t>(d);
    int64_t start = window.indices[k];
    if (op.is_blocked[k] && __builtin_mul_overflow(op.block_size[k], window.indices[k], &start)) {
      return WindowStartOverflow(op, point, window.indices, d);
    }
    // The start in array coordinates (Element padding lo subtracted), which the clamp report
    // and block windows give, must fit too.
    if (int64_t array_start; __builtin_sub_overflow(start, op.padding_lo[k], &array_start)) {
      return WindowStartOverflow(op, point, window.indices, d);
    }
    // JAX's interpreter slices with lax.dynamic_slice, whose default allow_negative_indices
    // counts a negative start once from the end of the padded dimension; XLA then clamps.
    // No overflow: start < 0 < padded_shape.
    const int64_t wrapped = start < 0 ? start + op.padded_shape[k] : start;
    const int64_t clamped =
        wrapped < 0 ? 0 : (wrapped > op.max_start[k] ? op.max_start[k] : wrapped);
    if (start < 0) window.negative_start = true;
    if (clamped != start) {
      window.clamped = true;
      if (op.is_blocked[k]) window.blocked_moved = true;
    }
    window.starts[k] = clamped;
  }
  return absl::OkStatus();
}

}  // namespace axe::pallas::internal

#endif  // AXE_SRC_PALLAS_OPERAND_PLAN_H_
