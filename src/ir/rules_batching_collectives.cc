// Batching rules of shard_map and of the collectives in its body. A batched shard_map operand
// gets an unsharded leading dimension (None prepended to its in_spec), the body is batched
// with every batched value at 0, and every output comes out batched at 0 (None prepended to
// its out_spec). Collectives act per element of the batch: the reductions, pvary and ppermute
// keep the batch dimension where it is; all_gather, psum_scatter and all_to_all move it to 0
// and shift their dimension params by one.
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/batching.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using BatchRuleResult = absl::StatusOr<BatchResult>;

BatchingRule InPlace(const Primitive* prim) {
  return [prim](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, args, params));
    return BatchResult{outs, std::vector<BDim>(outs.size(), dims[0])};
  };
}

BatchingRule ShiftedDims(const Primitive* prim, std::vector<const char*> names) {
  return [prim, names](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                       const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(Tracer x, MoveBatchDim(args[0], *dims[0], 0));
    Params p = params;
    for (const char* name : names) {
      AXE_ASSIGN_OR_RETURN(int64_t d, RequiredInt(params, prim->name(), name));
      p[name] = Param::Int(d + 1);
    }
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*prim, {x}, p));
    return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
  };
}

absl::StatusOr<sharding::PartitionSpec> WithLeadingNone(const sharding::PartitionSpec& spec) {
  std::vector<sharding::PartitionSpec::Entry> entries = spec.entries();
  entries.insert(entries.begin(), sharding::PartitionSpec::Entry{});
  return sharding::PartitionSpec::Create(std::move(entries));
}

BatchRuleResult ShardMapBatch(Builder&, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                              const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* body_param, GetParam(params, "shard_map", "jaxpr"));
  if (body_param->jaxpr() == nullptr) return absl::InvalidArgumentError("shard_map: no body");
  std::shared_ptr<const ClosedJaxpr> body = body_param->jaxpr();
  AXE_ASSIGN_OR_RETURN(ShardMapSpec spec, ShardMapSpecOfParams(params));
  if (spec.in_specs.size() != args.size()) {
    return absl::InvalidArgumentError("shard_map: in_specs and operands differ in number");
  }
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> body_dims;
  for (size_t i = 0; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      AXE_ASSIGN_OR_RETURN(spec.in_specs[i], WithLeadingNone(spec.in_specs[i]));
    }
    ops.push_back(x);
    body_dims.push_back(dims[i] ? BDim(0) : std::nullopt);
  }
  for (sharding::PartitionSpec& out : spec.out_specs) {
    AXE_ASSIGN_OR_RETURN(out, WithLeadingNone(out));
  }
  ShardMapBody fn = [&](Builder& inner,
                        absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(inner, *body, xs, body_dims));
    std::vector<Tracer> outs;
    for (size_t k = 0; k < r.outs.size(); ++k) {
      AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
      outs.push_back(o);
    }
    return outs;
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, ShardMap(ops, spec, fn));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

}  // namespace

void RegisterCollectiveBatching(const BuiltinPrimitives& p) {
  auto add = [](const Primitive* prim, BatchingRule rule) {
    if (!GetBatchingRule(*prim).ok()) RegisterBatching(*prim, std::move(rule));
  };
  for (const Primitive* prim : {p.psum, p.psum_invariant, p.pmax, p.pmin, p.pvary, p.ppermute}) {
    add(prim, InPlace(prim));
  }
  add(p.all_gather, ShiftedDims(p.all_gather, {"all_gather_dimension"}));
  add(p.all_gather_invariant, ShiftedDims(p.all_gather_invariant, {"all_gather_dimension"}));
  add(p.reduce_scatter, ShiftedDims(p.reduce_scatter, {"scatter_dimension"}));
  add(p.all_to_all, ShiftedDims(p.all_to_all, {"split_axis", "concat_axis"}));
  add(p.shard_map, ShardMapBatch);
}

}  // namespace axe::ir::internal
