// remat2 (jax.checkpoint): its definition and rules. JAX prints it
//
//   b:f32[2,3] = remat2[
//     differentiated=False
//     jaxpr={ lambda ; c:f32[2,3]. let d:f32[2,3] = sin c in (d,) }
//     policy=None
//     prevent_cse=True
//   ] a
//
// with `policy` one of JAX's policy objects as printed (None, DotsSaveable(...),
// <function nothing_saveable at 0x...>, SaveOnlyTheseNames(...)): kept as read and printed
// back unchanged. A policy and prevent_cse decide what JAX keeps for the backward pass, which
// is memory, never a value: axe evaluates remat2 as a call of `jaxpr` (the executor compiles
// it into a sub-plan, like closed_call), and its JVP and batching rules inline the body (what
// the derivative computes equals jax.grad's; the rematerialisation itself is not kept).
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "batching_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<const ClosedJaxpr*> Body(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "remat2", "jaxpr"));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return TypeError("parameter jaxpr of remat2 must be a jaxpr");
  }
  return p->jaxpr().get();
}

absl::StatusOr<JvpResult> RematJvp(Builder& b, absl::Span<const Tracer> primals,
                                   absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, Body(params));
  AXE_RETURN_IF_ERROR(CheckConstValues(*body, "remat2's jaxpr"));
  return JvpTrace(b, *body, primals, tangents);
}

absl::StatusOr<BatchResult> RematBatch(Builder& b, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, Body(params));
  AXE_RETURN_IF_ERROR(CheckConstValues(*body, "remat2's jaxpr"));
  return BatchTrace(b, *body, args, dims);
}

}  // namespace

void DefineRemat(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "remat2";
  o.multiple_results = true;
  o.call_primitive = true;
  o.params = {{"jaxpr", ParamType::kJaxpr},
              {"prevent_cse", ParamType::kBool, false},
              {"differentiated", ParamType::kBool, false},
              {"policy", ParamType::kAny, false}};
  absl::StatusOr<const Primitive*> remat = DefinePrimitive(std::move(o));
  AXE_CHECK(remat.ok()) << remat.status();  // a fixed identifier, defined once
  p.remat2 = *remat;
}

// The impl rule is the interpreter's call (rules_impl_calls.cc, eval_control.cc), so that a
// remat2 inside a shard_map body runs its collectives on the body's mesh.
void RegisterRematRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.remat2, CallRule("remat2", "jaxpr"));
  RegisterJvp(*p.remat2, RematJvp);
  RegisterBatching(*p.remat2, RematBatch);
}

}  // namespace axe::ir::internal
