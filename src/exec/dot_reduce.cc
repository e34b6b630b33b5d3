#include "exec/dot_reduce.h"

#include <algorithm>
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"

namespace axe::exec::internal {
namespace {

constexpr int64_t kDotReduceBlockBytes = int64_t{256} << 10;
constexpr int64_t kMinBlockRows = 8;

// One size of block: its product, its chain and their types.
struct BlockKernels {
  int64_t rows = 0;
  ir::ShapedArray lhs;        // [rows, K]
  ir::ShapedArray rows_aval;  // [rows]: the block's row results
  BuiltKernel dot, chain;
};

struct DotReduceKernel {
  DotReduce plan;
  int64_t m = 0, k = 0;
  BlockKernels block;
  std::optional<BlockKernels> tail;  // the last rows when M is not a multiple of the block's
  ir::ShapedArray rows_aval;         // [M]
};

// The sum of the row results [first, first + n) as a balanced tree (the halves split at n / 2,
// the order PairwiseSum gives a whole product whose rows are power-of-two multiples of its
// block when M is a power of two); max and min in any order.
template <typename F>
F FoldRowResults(Fold fold, const F* rows, int64_t n) {
  if (fold != Fold::kSum) return FoldRow(fold, rows, n);
  if (n == 0) return F(0);
  if (n == 1) return rows[0];
  const int64_t half = n / 2;
  return FoldRowResults(fold, rows, half) + FoldRowResults(fold, rows + half, n - half);
}

template <typename F>
absl::Status RunDotReduce(const DotReduceKernel& k, const RunContext& ctx,
                          absl::Span<const Value> in, std::vector<Value>& out) {
  AXE_ASSIGN_OR_RETURN(out[0], ctx.Allocate(k.plan.result));
  Value row_results = out[0];  // reducing dimension 1: the rows are the result
  if (k.plan.total) {
    AXE_ASSIGN_OR_RETURN(row_results, ctx.Allocate(k.rows_aval));
  }
  std::vector<Value> dot_in(2), dot_out(1), chain_in(k.plan.sources.size()), chain_out(1);
  for (int64_t r0 = 0; r0 < k.m; r0 += k.block.rows) {
    if (ctx.cancelled()) return absl::CancelledError("the program was cancelled");
    const BlockKernels& b = r0 + k.block.rows <= k.m ? k.block : *k.tail;
    dot_in[0] = in[0].View(b.lhs, static_cast<size_t>(r0 * k.k) * sizeof(F));
    dot_in[1] = in[1];
    dot_out[0] = Value();
    AXE_RETURN_IF_ERROR(b.dot.kernel(ctx, dot_in, dot_out));
    for (size_t s = 0; s < chain_in.size(); ++s) {
      const int source = k.plan.sources[s];
      chain_in[s] = source < 0 ? dot_out[0] : in[2 + static_cast<size_t>(source)];
    }
    chain_out[0] = row_results.View(b.rows_aval, static_cast<size_t>(r0) * sizeof(F));
    AXE_RETURN_IF_ERROR(b.chain.kernel(ctx, chain_in, chain_out));
    for (Value& v : chain_in) v = Value();
    dot_in[0] = Value();
    chain_out[0] = Value();
    if (ctx.values != nullptr) ctx.values->Give(std::move(dot_out[0]));
  }
  if (k.plan.total) {
    out[0].mutable_data<F>()[0] =
        FoldRowResults(k.plan.group.row_fold->fold, row_results.data<F>(), k.m);
    if (ctx.values != nullptr) ctx.values->Give(std::move(row_results));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::optional<BlockKernels>> BuildBlock(const EqnView& dot, const DotReduce& plan,
                                                       int64_t rows) {
  BlockKernels b;
  b.rows = rows;
  b.lhs = dot.in[0].WithShape({rows, dot.in[0].shape()[1]});
  b.rows_aval = dot.out[0].WithShape({rows});
  const ir::ShapedArray out = dot.out[0].WithShape({rows, dot.out[0].shape()[1]});
  AXE_ASSIGN_OR_RETURN(
      std::optional<BuiltKernel> k,
      Kernels().at("dot_general")(EqnView{dot.eqn, {b.lhs, dot.in[1]}, {out}, dot.options}));
  // The lhs's rows are read in place (a view of each block); no operand is packed.
  if (!k || !k->pooled_scratch.empty() || k->description.find("lhs^T") != std::string::npos) {
    return std::nullopt;
  }
  b.dot = std::move(*k);
  FusedGroup group = plan.group;
  group.aval = out;
  group.row_fold->aval = b.rows_aval;
  b.chain = BuildFusedKernel(std::move(group));
  return b;
}

}  // namespace

int64_t DotReduceBlockRows(const ir::ShapedArray& product) {
  if (product.rank() != 2) return 0;
  const int64_t m = product.shape()[0];
  const int64_t row_bytes = product.shape()[1] * (product.dtype() == DType::kF64 ? 8 : 4);
  if (row_bytes <= 0) return 0;
  int64_t rows = kMinBlockRows;
  while (rows * 2 * row_bytes <= kDotReduceBlockBytes && rows * 2 <= m / 4) rows *= 2;
  return rows * 2 <= m ? rows : 0;  // one block of at most half the product, or none
}

absl::StatusOr<std::optional<BuiltKernel>> BuildDotReduce(const EqnView& dot, DotReduce plan) {
  const int64_t rows = DotReduceBlockRows(dot.out[0]);
  if (rows == 0 || dot.in.size() != 2 || dot.in[0].rank() != 2 || dot.in[1].rank() != 2 ||
      !plan.group.row_fold) {
    return std::nullopt;
  }
  auto k = std::make_shared<DotReduceKernel>();
  k->m = dot.out[0].shape()[0];
  k->k = dot.in[0].shape()[1];
  k->rows_aval = dot.out[0].WithShape({k->m});
  k->plan = std::move(plan);
  AXE_ASSIGN_OR_RETURN(std::optional<BlockKernels> block, BuildBlock(dot, k->plan, rows));
  if (!block) return std::nullopt;
  k->block = std::move(*block);
  const int64_t bytes = dot.out[0].dtype() == DType::kF64 ? 8 : 4;
  BuiltKernel built;
  // Taken from the value pool in this order and given back: the row results of a total
  // reduction, then each block size's product.
  if (k->plan.total) built.pooled_scratch.push_back(k->m * bytes);
  built.pooled_scratch.push_back(rows * dot.out[0].shape()[1] * bytes);
  if (k->m % rows != 0) {
    AXE_ASSIGN_OR_RETURN(block, BuildBlock(dot, k->plan, k->m % rows));
    if (!block) return std::nullopt;
    k->tail = std::move(*block);
    built.pooled_scratch.push_back((k->m % rows) * dot.out[0].shape()[1] * bytes);
  }
  const int64_t blocks = (k->m + rows - 1) / rows;
  built.work = blocks * (k->block.dot.work + k->block.chain.work);
  built.description =
      absl::StrCat(k->block.dot.description, " by ", rows, " rows, ", k->block.chain.description);
  built.kernel = [k](const RunContext& ctx, absl::Span<const Value> in,
                     std::vector<Value>& out) -> absl::Status {
    if (k->plan.result.dtype() == DType::kF32) return RunDotReduce<float>(*k, ctx, in, out);
    return RunDotReduce<double>(*k, ctx, in, out);
  };
  return built;
}

}  // namespace axe::exec::internal
