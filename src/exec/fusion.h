// Fused groups of elementwise operations (internal to src/exec).
//
// A group computes several equations of one float type and one result shape S in a single
// pass over S, tile by tile: each tile's inputs are read where they lie (a full operand in
// place, a broadcast operand through its strides, a scalar as one value), every operation runs
// on the tile in registers (arrays of one tile), and only the values used after the group are
// written to memory. broadcast_in_dim feeding the group is a strided read, never a copy. A
// reduction along the last dimension of a value only it reads after the group ends the group:
// the group then runs row by row and folds that value's row from a row buffer (a layer norm's
// sum of squares never writes the squares).
#ifndef AXE_SRC_EXEC_FUSION_H_
#define AXE_SRC_EXEC_FUSION_H_

#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/types/span.h"
#include "axe/ir/jaxpr.h"
#include "exec/ew_ops.h"
#include "exec/fold.h"
#include "exec/plan.h"

namespace axe::exec::internal {

struct FusedInput {
  int slot = -1;
  std::vector<int64_t> strides;  // elements per step of each dimension of S (0: broadcast)
};

// A register: -1 - i for input i, k >= 0 for the result of operation k.
inline int InputReg(size_t input) { return -1 - static_cast<int>(input); }

// An operation on registers.
struct FusedOp {
  EwOp op;
  int a = 0;
  int b = 0;
};

struct FusedGroup {
  ir::ShapedArray aval;  // S and the float type
  std::vector<FusedInput> inputs;
  std::vector<FusedOp> ops;
  std::vector<std::pair<int, int>> outputs;  // (register, slot)
  // The reduction ending the group, folding register `reg` along the last dimension into
  // the group's last output (after `outputs`).
  struct RowFold {
    Fold fold = Fold::kSum;
    int reg = 0;
    ir::ShapedArray aval;  // the reduction's result
  };
  std::optional<RowFold> row_fold;

  // The index of register `r` among inputs then operations.
  size_t Index(int r) const {
    return r < 0 ? static_cast<size_t>(-1 - r) : inputs.size() + static_cast<size_t>(r);
  }
  std::vector<std::string> names;  // the fused primitives, in order
};

// Whether `eqn` can join a group whose result type is `aval` (f32 or f64): an elementwise
// operation of that type whose operands have that type or one element, or a broadcast_in_dim
// to it.
bool Fusible(const ir::Eqn& eqn, absl::Span<const ir::ShapedArray> in_avals,
             const ir::ShapedArray& out_aval, const ir::ShapedArray& aval);

// Adds `eqn` (Fusible) reading `in_slots` and writing `out_slot` to `group`; `reg_of_slot`
// maps the slots computed inside the group (or already read) to their registers and is
// extended.
void AddToGroup(const ir::Eqn& eqn, absl::Span<const int> in_slots,
                absl::Span<const ir::ShapedArray> in_avals, int out_slot, FusedGroup& group,
                absl::flat_hash_map<int, int>& reg_of_slot);

// Adds `eqn`, a reduction reading `in_slot` (computed in the group, read by nothing after the
// group) and writing `out_aval`, as the group's row fold when it reduces the last dimension
// of the group's type; false (the group unchanged) otherwise.
bool AddRowFold(const ir::Eqn& eqn, const ir::ShapedArray& in_aval, int in_slot,
                const ir::ShapedArray& out_aval, FusedGroup& group,
                const absl::flat_hash_map<int, int>& reg_of_slot);

// The kernel of a finished group (its inputs are the step's inputs, in order; its outputs the
// step's outputs).
BuiltKernel BuildFusedKernel(FusedGroup group);

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_FUSION_H_
