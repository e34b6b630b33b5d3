// Elementwise equations whose operands broadcast against each other through size-1 dimensions
// (JAX prints `lt i32[1,5] i32[3,1]` with a bool[3,5] result for `iota[None, :] < n[:, None]`):
// the typed kernels take operands of the result's shape or scalars, so each other operand is
// first expanded to the result's shape by one strided copy (stride 0 along its size-1
// dimensions), then the equation's own typed kernel runs on the full operands.
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "axe/base/status_macros.h"
#include "axe/ir/primitive.h"
#include "exec/permute.h"
#include "exec/plan.h"

namespace axe::exec::internal {
// A named namespace: the unity build shares anonymous namespaces between files.
namespace broadcast_operands {

// The elementwise primitives whose operands may broadcast through size-1 dimensions.
bool BroadcastsOperands(const std::string& primitive) {
  static const auto* names = new std::set<std::string>{"add",
                                                       "add_any",
                                                       "sub",
                                                       "mul",
                                                       "div",
                                                       "rem",
                                                       "pow",
                                                       "max",
                                                       "min",
                                                       "and",
                                                       "or",
                                                       "xor",
                                                       "eq",
                                                       "ne",
                                                       "lt",
                                                       "le",
                                                       "gt",
                                                       "ge",
                                                       "eq_to",
                                                       "le_to",
                                                       "lt_to",
                                                       "atan2",
                                                       "nextafter",
                                                       "shift_left",
                                                       "shift_right_logical",
                                                       "shift_right_arithmetic",
                                                       "select_n",
                                                       "clamp"};
  return names->count(primitive) > 0;
}

struct Expansion {
  size_t operand = 0;
  ir::ShapedArray aval;  // the operand's dtype, the result's shape
  StridedCopy copy;
};

}  // namespace broadcast_operands

absl::StatusOr<std::optional<BuiltKernel>> BuildWithBroadcastOperands(
    const EqnView& v, const KernelBuilder& builder) {
  using broadcast_operands::Expansion;
  if (v.out.size() != 1 || !broadcast_operands::BroadcastsOperands(v.eqn.primitive->name())) {
    return std::nullopt;
  }
  const std::vector<int64_t>& shape = v.out[0].shape();
  std::vector<ir::ShapedArray> in = v.in;
  std::vector<Expansion> expansions;
  int64_t copied = 0;
  for (size_t k = 0; k < v.in.size(); ++k) {
    const ir::ShapedArray& a = v.in[k];
    if (a.rank() == 0 || a.shape() == shape) continue;
    if (a.rank() != shape.size()) return std::nullopt;
    const std::vector<int64_t> strides = RowMajorStrides(a.shape());
    std::vector<int64_t> src(shape.size());
    for (size_t d = 0; d < shape.size(); ++d) {
      if (a.shape()[d] != shape[d] && a.shape()[d] != 1) return std::nullopt;
      src[d] = a.shape()[d] == 1 ? 0 : strides[d];
    }
    AXE_ASSIGN_OR_RETURN(size_t bytes, ElementBytes(a.dtype()));
    in[k] = a.WithShape(shape);
    AXE_ASSIGN_OR_RETURN(StridedCopy copy,
                         StridedCopy::Plan(shape, src, RowMajorStrides(shape),
                                           static_cast<int>(bytes), v.options.num_threads));
    expansions.push_back(Expansion{k, in[k], std::move(copy)});
    copied += NumElements(in[k]) * static_cast<int64_t>(bytes);
  }
  if (expansions.empty()) return std::nullopt;
  AXE_ASSIGN_OR_RETURN(std::optional<BuiltKernel> inner,
                       builder(EqnView{v.eqn, in, v.out, v.options, v.unread}));
  if (!inner) return std::nullopt;
  BuiltKernel k = *std::move(inner);
  k.description = "operands broadcast, " + k.description;
  k.work += 2 * copied;
  k.scratch_bytes += copied;
  auto shared = std::make_shared<const std::vector<Expansion>>(std::move(expansions));
  k.kernel = [shared, kernel = std::move(k.kernel)](const RunContext& ctx,
                                                    absl::Span<const Value> in,
                                                    std::vector<Value>& out) -> absl::Status {
    std::vector<Value> full(in.begin(), in.end());
    for (const Expansion& e : *shared) {
      AXE_ASSIGN_OR_RETURN(full[e.operand], ctx.Allocate(e.aval));
      AXE_RETURN_IF_ERROR(e.copy.Run(in[e.operand].bytes(), full[e.operand].mutable_bytes()));
    }
    absl::Status s = kernel(ctx, full, out);
    if (ctx.values != nullptr) {
      for (const Expansion& e : *shared) ctx.values->Give(std::move(full[e.operand]));
    }
    return s;
  };
  return k;
}

}  // namespace axe::exec::internal
