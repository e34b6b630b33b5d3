// A dot_general whose result only a reduction's elementwise chain reads (a loss such as
// sum((x @ w) ** 2)), run block by block of result rows (internal to src/exec): each block of
// rows is multiplied into a bounded scratch, the chain runs on it and its rows fold into the
// reduction, so the product [M, N] never exists whole.
#ifndef AXE_SRC_EXEC_DOT_REDUCE_H_
#define AXE_SRC_EXEC_DOT_REDUCE_H_

#include <optional>
#include <vector>

#include "absl/status/statusor.h"
#include "exec/fusion.h"
#include "exec/plan.h"

namespace axe::exec::internal {

struct DotReduce {
  // The chain over the product's type [M, N], ending in a row fold over dimension 1 (the
  // fold's aval is [M]). Its inputs other than the product read nothing along dimension 0.
  FusedGroup group;
  // Per group input: -1 the product, otherwise the index of the step's input it reads (the
  // step's inputs are the dot's lhs and rhs, then these).
  std::vector<int> sources;
  bool total = false;      // the reduction is over both dimensions: the row results fold again
  ir::ShapedArray result;  // the reduction's
};

// The rows of one block: at most 256 KiB of product and a quarter of the rows (fewer, smaller
// GEMMs run slower than the whole product's), a power of two, at least 8; 0 when the product
// has fewer than 16 rows.
int64_t DotReduceBlockRows(const ir::ShapedArray& product);

// The step's kernel, or nullopt when the dot has no typed kernel that reads its lhs in place
// as [M, K] and its rhs in place.
absl::StatusOr<std::optional<BuiltKernel>> BuildDotReduce(const EqnView& dot, DotReduce plan);

}  // namespace axe::exec::internal

#endif  // AXE_SRC_EXEC_DOT_REDUCE_H_
