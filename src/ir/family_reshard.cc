// reshard (jax.sharding.reshard, and what JAX's gradient of a shard_map loss shows): its
// definition and every rule. JAX prints it without params (`b:f32[8@x,2] = reshard a`); its
// params dst_sharding and concrete_mesh, when a program built in C++ gives them, are kept and
// not printed (the parser refuses them in text, as they would not print back). axe's types carry no
// sharding, so reshard is the identity on types and values, on one device and on the runtime's
// devices alike (there it moves no data). It is linear: its transpose is a reshard of the cotangent
// (back to the source sharding, which axe's types do not record either).
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<std::vector<ShapedArray>> ReshardRule(absl::Span<const ShapedArray> avals,
                                                     const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("reshard", avals, 1));
  return One(avals[0]);
}

absl::StatusOr<std::vector<HostArray>> ReshardImpl(absl::Span<const HostArray> args,
                                                   const Params&) {
  HostArray out = args[0];
  out.aval = out.aval.WithVma({});
  return OneArray(std::move(out));
}

absl::StatusOr<std::vector<OptTracer>> ReshardTranspose(Builder&, absl::Span<const OptTracer> cts,
                                                        absl::Span<const TransposeArg> args,
                                                        const Params&) {
  std::vector<OptTracer> out(args.size());
  if (cts[0]) {
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().reshard, {*cts[0]}));
  }
  return out;
}

absl::StatusOr<BatchResult> ReshardBatch(Builder&, absl::Span<const Tracer> args,
                                         absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().reshard, {args[0]}, params));
  return BatchResult{{out}, {dims[0]}};
}

}  // namespace

void DefineReshard(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "reshard";
  o.params = {{"dst_sharding", ParamType::kAny, false}, {"concrete_mesh", ParamType::kAny, false}};
  o.printed_params = [](const Params& params) {
    Params shown = params;
    shown.erase("dst_sharding");
    shown.erase("concrete_mesh");
    return shown;
  };
  // Nothing restores them from the text: a printed dst_sharding= is refused (it would not
  // print back).
  o.complete_parsed_params = [](Params&, absl::Span<const ShapedArray>) {};
  absl::StatusOr<const Primitive*> reshard = DefinePrimitive(std::move(o));
  AXE_CHECK(reshard.ok()) << reshard.status();  // a fixed identifier, defined once
  p.reshard = *reshard;
}

void RegisterReshardRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.reshard, ReshardRule);
  RegisterImpl(*p.reshard, ReshardImpl);
  DefLinear2(*p.reshard, ReshardTranspose);
  RegisterBatching(*p.reshard, ReshardBatch);
}

}  // namespace axe::ir::internal
