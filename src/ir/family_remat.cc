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
// it into a sub-plan, like closed_call); its JVP inlines the body (what the derivative
// computes equals jax.grad's; the rematerialisation itself is not kept), its batching rule
// keeps a remat2 of the batched body, as JAX's does.
#include "absl/strings/str_cat.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/shard_map.h"
#include "batching_util.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<const ClosedJaxpr*> RematBody(const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "remat2", "jaxpr"));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return TypeError("parameter jaxpr of remat2 must be a jaxpr");
  }
  return p->jaxpr().get();
}

absl::StatusOr<JvpResult> RematJvp(Builder& b, absl::Span<const Tracer> primals,
                                   absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, RematBody(params));
  AXE_RETURN_IF_ERROR(CheckConstValues(*body, "remat2's jaxpr"));
  return JvpTrace(b, *body, primals, tangents);
}

// As JAX's rule: a remat2 of the batched body, batched operands and results at dimension 0,
// unbatched ones left unbatched.
absl::StatusOr<BatchResult> RematBatch(Builder&, absl::Span<const Tracer> args,
                                       absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, RematBody(params));
  AXE_RETURN_IF_ERROR(CheckConstValues(*body, "remat2's jaxpr"));
  std::vector<Tracer> operands;
  std::vector<BDim> at_zero;
  for (size_t i = 0; i < args.size(); ++i) {
    if (!dims[i]) {
      operands.push_back(args[i]);
      at_zero.push_back(std::nullopt);
      continue;
    }
    AXE_ASSIGN_OR_RETURN(Tracer moved, MoveBatchDim(args[i], *dims[i], 0));
    operands.push_back(moved);
    at_zero.push_back(0);
  }
  Builder inner;
  std::vector<Tracer> inner_args;
  for (const Tracer& t : operands) inner_args.push_back(inner.Arg(t.aval));
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(inner, *body, inner_args, at_zero));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    if (!r.out_dims[k]) {
      outs.push_back(r.outs[k]);
      continue;
    }
    AXE_ASSIGN_OR_RETURN(Tracer moved, MoveBatchDim(r.outs[k], *r.out_dims[k], 0));
    outs.push_back(moved);
    r.out_dims[k] = 0;
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr batched, inner.Build(outs));
  Params p = params;
  p["jaxpr"] = Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(batched)));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> results,
                       BindWithAutoPvary(*Builtins().remat2, operands, p));
  return BatchResult{std::move(results), r.out_dims};
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

// The impl rule is the interpreter's call (ViaInterpreter, eval_control.cc), so that a
// remat2 inside a shard_map body runs its collectives on the body's mesh.
void RegisterRematRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.remat2, CallRule("remat2", "jaxpr"));
  RegisterImpl(*p.remat2, ViaInterpreter(*p.remat2));
  RegisterJvp(*p.remat2, RematJvp);
  RegisterBatching(*p.remat2, RematBatch);
}

}  // namespace axe::ir::internal
