// copy (JAX's copy_p: `jnp.array(x, copy=True)`, and the last equation of
// `jax.nn.gelu(x, approximate=False)`): its definition and every rule. It has no params; its
// value is its operand's (a new buffer in JAX, a value here). It is linear: its JVP copies the
// tangent and its transpose copies the cotangent, as JAX's rules do.
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<std::vector<ShapedArray>> CopyRule(absl::Span<const ShapedArray> avals,
                                                  const Params&) {
  AXE_RETURN_IF_ERROR(ExpectArity("copy", avals, 1));
  return One(avals[0]);
}

absl::StatusOr<std::vector<HostArray>> CopyImpl(absl::Span<const HostArray> args, const Params&) {
  return OneArray(args[0]);
}

absl::StatusOr<std::vector<OptTracer>> CopyTranspose(Builder&, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params&) {
  std::vector<OptTracer> out(args.size());
  if (cts[0]) {
    AXE_ASSIGN_OR_RETURN(out[0], Op(*Builtins().copy, {*cts[0]}));
  }
  return out;
}

absl::StatusOr<BatchResult> CopyBatch(Builder&, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params&) {
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*Builtins().copy, {args[0]}));
  return BatchResult{{out}, {dims[0]}};
}

}  // namespace

void DefineCopy(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "copy";
  absl::StatusOr<const Primitive*> copy = DefinePrimitive(std::move(o));
  AXE_CHECK(copy.ok()) << copy.status();  // a fixed identifier, defined once
  p.copy = *copy;
}

void RegisterCopyRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.copy, CopyRule);
  RegisterImpl(*p.copy, CopyImpl);
  DefLinear2(*p.copy, CopyTranspose);
  RegisterBatching(*p.copy, CopyBatch);
}

}  // namespace axe::ir::internal
