// debug_print (jax.debug.print's primitive): an effect without outputs. Its params are kept as
// JAX prints them (fmt unquoted, in_tree as PyTreeDef text) so that a program reads back
// unchanged. axe types it (any operands, no outputs) and keeps it through grads and vmaps (the
// "Debug" effect keeps dead-code elimination from dropping it), but a run does not print: the
// impl formats nothing and returns no values, so a program with jax.debug.print runs and gives
// JAX's values.
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<std::vector<ShapedArray>> DebugPrintRule(absl::Span<const ShapedArray>,
                                                        const Params&) {
  return std::vector<ShapedArray>{};
}

absl::StatusOr<std::vector<HostArray>> DebugPrintImpl(absl::Span<const HostArray>, const Params&) {
  return std::vector<HostArray>{};
}

// The primal values are printed; tangents are not (JAX's rule).
absl::StatusOr<JvpResult> DebugPrintJvp(Builder& b, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer>, const Params& params) {
  AXE_RETURN_IF_ERROR(b.Bind(*Builtins().debug_print, primals, params).status());
  return JvpResult{{}, {}};
}

// Prints the batched operands whole.
absl::StatusOr<BatchResult> DebugPrintBatch(Builder& b, absl::Span<const Tracer> args,
                                            absl::Span<const BDim>, const Params& params) {
  AXE_RETURN_IF_ERROR(b.Bind(*Builtins().debug_print, args, params).status());
  return BatchResult{{}, {}};
}

}  // namespace

void DefineDebug(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "debug_print";
  o.multiple_results = true;
  o.effects = {"Debug"};
  absl::StatusOr<const Primitive*> debug_print = DefinePrimitive(std::move(o));
  AXE_CHECK(debug_print.ok()) << debug_print.status();  // a fixed identifier, defined once
  p.debug_print = *debug_print;
}

void RegisterDebugRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.debug_print, DebugPrintRule);
  RegisterImpl(*p.debug_print, DebugPrintImpl);
  RegisterJvp(*p.debug_print, DebugPrintJvp);
  RegisterBatching(*p.debug_print, DebugPrintBatch);
}

}  // namespace axe::ir::internal
