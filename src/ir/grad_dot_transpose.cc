// The transpose of dot_general (JAX's _dot_general_transpose_lhs/rhs): the cotangent
// contracted with the other operand over the kept dimensions, then permuted back.
#include <algorithm>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "axe/base/dims.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

struct DimNumbers {
  Dims lhs_contract, rhs_contract, lhs_batch, rhs_batch;
};

absl::StatusOr<DimNumbers> ReadDims(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<Dims> parts;
  for (const Param& pair : p->items()) {
    for (const Param& d : pair.items()) {
      AXE_ASSIGN_OR_RETURN(Dims v, d.AsInts("dimension_numbers"));
      parts.push_back(std::move(v));
    }
  }
  if (parts.size() != 4) return absl::InvalidArgumentError("dot_general: bad dimension_numbers");
  return DimNumbers{parts[0], parts[1], parts[2], parts[3]};
}

Dims Remaining(int64_t rank, const Dims& a, const Dims& b) {
  Dims out;
  for (int64_t d = 0; d < rank; ++d) {
    if (std::find(a.begin(), a.end(), d) == a.end() && std::find(b.begin(), b.end(), d) == b.end())
      out.push_back(d);
  }
  return out;
}

Dims Range(int64_t start, size_t n) {
  Dims out(n);
  std::iota(out.begin(), out.end(), start);
  return out;
}

Dims Argsort(const Dims& v) {
  Dims idx(v.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) { return v[a] < v[b]; });
  return idx;
}

Param List(const Dims& v) { return Param::Ints(v); }

// The cotangent of x in dot_general(x, y) (or of y when swap_ans: x and y already swapped).
absl::StatusOr<Tracer> TransposeLhs(const Tracer& g, const ShapedArray& x, const Tracer& y,
                                    const DimNumbers& dn, bool swap_ans, const Params& params) {
  int64_t x_rank = static_cast<int64_t>(x.rank());
  Dims x_kept = Remaining(x_rank, dn.lhs_contract, dn.lhs_batch);
  Dims y_kept = Remaining(static_cast<int64_t>(y.aval.rank()), dn.rhs_contract, dn.rhs_batch);
  size_t nb = dn.lhs_batch.size();
  Dims ans_batch = Range(0, nb);
  Dims ans_y = swap_ans ? Range(static_cast<int64_t>(nb), y_kept.size())
                        : Range(static_cast<int64_t>(nb + x_kept.size()), y_kept.size());
  Params p = params;
  p["dimension_numbers"] = Param::Tuple({Param::Tuple({List(ans_y), List(y_kept)}),
                                         Param::Tuple({List(ans_batch), List(dn.rhs_batch)})});
  p["preferred_element_type"] = Param::OfDType(x.dtype());
  Dims sorted_contract;
  for (int64_t i : Argsort(dn.rhs_contract)) sorted_contract.push_back(dn.lhs_contract[i]);
  Dims order = dn.lhs_batch;
  order.insert(order.end(), x_kept.begin(), x_kept.end());
  order.insert(order.end(), sorted_contract.begin(), sorted_contract.end());
  AXE_ASSIGN_OR_RETURN(Tracer d, Op(*Builtins().dot_general, {g, y}, p));
  Dims perm = Argsort(order);
  bool identity = true;
  for (size_t i = 0; i < perm.size(); ++i)
    identity = identity && perm[i] == static_cast<int64_t>(i);
  if (identity) return d;
  return Transpose(d, perm);
}

}  // namespace

absl::StatusOr<std::vector<OptTracer>> DotGeneralTranspose(Builder&,
                                                           absl::Span<const OptTracer> cts,
                                                           absl::Span<const TransposeArg> args,
                                                           const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (args.size() != 2 || (args[0].is_undefined_primal() && args[1].is_undefined_primal())) {
    return absl::InvalidArgumentError("dot_general is linear in one operand only");
  }
  if (!cts[0]) return out;
  AXE_ASSIGN_OR_RETURN(DimNumbers dn, ReadDims(params));
  if (args[0].is_undefined_primal()) {
    AXE_ASSIGN_OR_RETURN(out[0],
                         TransposeLhs(*cts[0], args[0].aval, *args[1].value, dn, false, params));
  } else {
    DimNumbers swapped{dn.rhs_contract, dn.lhs_contract, dn.rhs_batch, dn.lhs_batch};
    AXE_ASSIGN_OR_RETURN(
        out[1], TransposeLhs(*cts[0], args[1].aval, *args[0].value, swapped, true, params));
  }
  return out;
}

}  // namespace axe::ir::internal
