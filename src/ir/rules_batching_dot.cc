// The batching rule of dot_general: batched on both sides, the batch dimension becomes a new
// leading batch dimension; batched on one side, it is a kept (free) dimension of that side.
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Ints = std::vector<int64_t>;

Ints Shift(const Ints& v) {
  Ints out;
  for (int64_t d : v) out.push_back(d + 1);
  return out;
}

size_t Kept(size_t rank, const Ints& contract, const Ints& batch) {
  return rank - contract.size() - batch.size();
}

}  // namespace

absl::StatusOr<BatchResult> DotGeneralBatch(Builder&, absl::Span<const Tracer> args,
                                            absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* dn, GetParam(params, "dot_general", "dimension_numbers"));
  std::vector<Ints> parts;
  for (const Param& pair : dn->items()) {
    for (const Param& d : pair.items()) {
      AXE_ASSIGN_OR_RETURN(Ints v, d.AsInts("dimension_numbers"));
      parts.push_back(std::move(v));
    }
  }
  if (parts.size() != 4) return absl::InvalidArgumentError("dot_general: bad dimension_numbers");
  Ints lc = parts[0], rc = parts[1], lb = parts[2], rb = parts[3];
  Tracer x = args[0], y = args[1];
  int64_t out_dim = 0;
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[0], 0));
    lc = Shift(lc);
    lb = Shift(lb);
  }
  if (dims[1]) {
    AXE_ASSIGN_OR_RETURN(y, MoveBatchDim(y, *dims[1], 0));
    rc = Shift(rc);
    rb = Shift(rb);
  }
  if (dims[0] && dims[1]) {
    lb.insert(lb.begin(), 0);
    rb.insert(rb.begin(), 0);
  } else if (dims[0]) {
    out_dim = static_cast<int64_t>(lb.size());
  } else {
    out_dim = static_cast<int64_t>(lb.size() + Kept(x.aval.rank(), lc, lb));
  }
  Params p = params;
  p["dimension_numbers"] = Param::Tuple({Param::Tuple({Param::Ints(lc), Param::Ints(rc)}),
                                         Param::Tuple({Param::Ints(lb), Param::Ints(rb)})});
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       BindWithAutoPvary(*Builtins().dot_general, {x, y}, p));
  return BatchResult{outs, {out_dim}};
}

}  // namespace axe::ir::internal
