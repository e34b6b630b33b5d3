// name (JAX's name_p: `jax.ad_checkpoint.checkpoint_name(x, "proj")`, which a checkpoint
// policy such as save_only_these_names reads): its definition and every rule. Its value is its
// operand's; `name` only labels it for the policy, which decides what JAX saves, never values.
// Like JAX's rules, the JVP passes the tangent through (unnamed) and batching keeps the batch
// dimension; the identity is linear, so its transpose passes the cotangent through.
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<std::vector<ShapedArray>> NameRule(absl::Span<const ShapedArray> avals,
                                                  const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("name", avals, 1));
  return One(avals[0]);
}

absl::StatusOr<std::vector<HostArray>> NameImpl(absl::Span<const HostArray> args, const Params&) {
  return OneArray(args[0]);
}

absl::StatusOr<JvpResult> NameJvp(Builder&, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().name, {primals[0]}, params));
  return JvpResult{{out}, {tangents[0]}};
}

absl::StatusOr<std::vector<OptTracer>> NameTranspose(Builder&, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg>,
                                                     const Params&) {
  return std::vector<OptTracer>{cts[0]};
}

absl::StatusOr<BatchResult> NameBatch(Builder&, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().name, {args[0]}, params));
  return BatchResult{{out}, {dims[0]}};
}

}  // namespace

void DefineCheckpointName(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "name";
  o.params = {{"name", ParamType::kAny}};
  absl::StatusOr<const Primitive*> name = DefinePrimitive(std::move(o));
  AXE_CHECK(name.ok()) << name.status();  // a fixed identifier, defined once
  p.name = *name;
}

void RegisterCheckpointNameRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.name, NameRule);
  RegisterImpl(*p.name, NameImpl);
  RegisterJvp(*p.name, NameJvp);
  RegisterTranspose(*p.name, NameTranspose);
  RegisterBatching(*p.name, NameBatch);
}

}  // namespace axe::ir::internal
