// The impl rule of dot_general: batch dimensions, then the lhs's and the rhs's free
// dimensions; products summed over the contracting dimensions in double and rounded once.
#include <algorithm>
#include <cstdint>

#include "axe/base/status_macros.h"
#include "axe/ir/eval.h"
#include "eval_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

struct Operand {
  std::vector<int64_t> batch, contract, free;
  std::vector<int64_t> strides;
};

Operand Split(const ShapedArray& a, std::vector<int64_t> contract, std::vector<int64_t> batch) {
  Operand o{std::move(batch), std::move(contract), {}, Strides(a.shape())};
  for (int64_t d = 0; d < static_cast<int64_t>(a.rank()); ++d) {
    if (std::find(o.batch.begin(), o.batch.end(), d) == o.batch.end() &&
        std::find(o.contract.begin(), o.contract.end(), d) == o.contract.end()) {
      o.free.push_back(d);
    }
  }
  return o;
}

// The flat offset of an operand's element: batch and free coordinates from the output
// index (free ones start at `free_at`), contracting ones from `k`.
int64_t Offset(const Operand& o, const std::vector<int64_t>& out, size_t free_at,
               const std::vector<int64_t>& k) {
  int64_t flat = 0;
  for (size_t i = 0; i < o.batch.size(); ++i) flat += out[i] * o.strides[o.batch[i]];
  for (size_t i = 0; i < o.free.size(); ++i) flat += out[free_at + i] * o.strides[o.free[i]];
  for (size_t i = 0; i < o.contract.size(); ++i) flat += k[i] * o.strides[o.contract[i]];
  return flat;
}

}  // namespace

absl::StatusOr<std::vector<HostArray>> DotGeneralImpl(absl::Span<const HostArray> args,
                                                      const Params& params) {
  AXE_ASSIGN_OR_RETURN(ShapedArray aval, ResultAval(*Builtins().dot_general, args, params));
  const Param& dn = params.find("dimension_numbers")->second;  // checked by ResultAval
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lc,
                       dn.items()[0].items()[0].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rc,
                       dn.items()[0].items()[1].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> lb,
                       dn.items()[1].items()[0].AsInts("dimension_numbers"));
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> rb,
                       dn.items()[1].items()[1].AsInts("dimension_numbers"));
  const HostArray& l = args[0];
  const HostArray& r = args[1];
  Operand lo = Split(l.aval, lc, lb);
  Operand ro = Split(r.aval, rc, rb);
  std::vector<int64_t> contract_shape;
  for (int64_t d : lc) contract_shape.push_back(l.aval.shape()[d]);
  bool empty_contract =
      std::find(contract_shape.begin(), contract_shape.end(), 0) != contract_shape.end();
  AXE_ASSIGN_OR_RETURN(HostArray out, ZeroArray(aval));
  std::vector<int64_t> index(aval.rank(), 0);
  size_t l_free_at = lo.batch.size();
  size_t r_free_at = l_free_at + lo.free.size();
  // Integer products and sums wrap on 64-bit bits and then in the result's width: a double
  // accumulator would round a product past 2^53 before the wrap.
  const bool integral = IsIntegral(aval.dtype());
  for (size_t i = 0; i < out.values.size(); ++i, NextIndex(index, aval.shape())) {
    double sum = 0;
    uint64_t int_sum = 0;
    std::vector<int64_t> k(contract_shape.size(), 0);
    if (!empty_contract) {
      do {
        double a = l.values[static_cast<size_t>(Offset(lo, index, l_free_at, k))];
        double b = r.values[static_cast<size_t>(Offset(ro, index, r_free_at, k))];
        if (integral) {
          int_sum += static_cast<uint64_t>(AsInt64(a)) * static_cast<uint64_t>(AsInt64(b));
        } else {
          sum += a * b;
        }
      } while (NextIndex(k, contract_shape));
    }
    out.values[i] =
        integral ? IntegerFromBits(int_sum, aval.dtype()) : RoundToDType(sum, aval.dtype());
  }
  return OneArray(std::move(out));
}

}  // namespace axe::ir::internal
