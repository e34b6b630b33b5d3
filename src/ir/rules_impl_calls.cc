// Impl rules of the primitives the interpreter runs itself (calls, custom calls, cond, scan,
// shard_map, the collectives): each binds an equation and evaluates it on the host's simulated
// mesh, so that GetImplRule works for every built-in. A collective alone has no mesh: it reports
// its unbound axis name, as JAX does outside shard_map.
#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "eval_control.h"
#include "eval_util.h"

namespace axe::ir::internal {
namespace {

ImplRule ViaInterpreter(const Primitive& prim) {
  return [&prim](absl::Span<const HostArray> args,
                 const Params& params) -> absl::StatusOr<std::vector<HostArray>> {
    AXE_ASSIGN_OR_RETURN(std::vector<ShapedArray> out_avals,
                         AbstractEval(prim, PlainAvals(args), params));
    for (ShapedArray& a : out_avals) a = a.WithVma({});
    Eqn eqn;
    eqn.primitive = &prim;
    eqn.params = params;
    std::vector<Replicas> in;
    for (const HostArray& a : args) in.push_back(Replicas{a});
    int64_t budget = kEvalBudget;
    SpmdScope scope{nullptr, 0, 1, &HostExecutor(), &budget};
    std::optional<SpmdResult> out = EvalSpecial(eqn, in, out_avals, scope);
    if (!out) return absl::InternalError(absl::StrCat(prim.name(), " is not a special form"));
    AXE_ASSIGN_OR_RETURN(std::vector<Replicas> r, std::move(*out));
    std::vector<HostArray> result;
    for (Replicas& x : r) result.push_back(std::move(x[0]));
    return result;
  };
}

}  // namespace

void RegisterCallImpls(const BuiltinPrimitives& p) {
  for (const Primitive* prim :
       {p.jit, p.closed_call, p.custom_jvp_call, p.custom_vjp_call, p.cond, p.scan, p.shard_map,
        p.psum, p.psum_invariant, p.pmax, p.pmin, p.pvary, p.all_gather, p.all_gather_invariant,
        p.reduce_scatter, p.all_to_all, p.ppermute, p.axis_index, p.while_}) {
    RegisterImpl(*prim, ViaInterpreter(*prim));
  }
  RegisterImpl(*p.remat2, ViaInterpreter(*p.remat2));
}

}  // namespace axe::ir::internal
