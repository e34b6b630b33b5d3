// The `while` primitive (lax.while_loop, and fori_loop with a traced bound), with all its
// rules: JAX's params and printing, abstract evaluation, evaluation in the interpreter (a
// special form, so that the body's collectives run on the caller's mesh), JVP (forward mode:
// the body's JVP carried next to the primals), transpose (JAX's error: reverse mode does not
// work) and batching (JAX's rule: a batched predicate runs the loop while any lane's predicate
// holds, each lane keeping its carry once its own predicate is false).
//
//   outs = while[body_jaxpr body_nconsts cond_jaxpr cond_nconsts] cconsts... bconsts... init...
//
// The predicate (cond_jaxpr's one output) is a bool whose shape is a prefix of every carry's
// shape: () for the loops JAX's front end builds, the batch dimensions after vmap.
#include <algorithm>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/check.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/batching.h"
#include "axe/ir/primitives.h"
#include "batching_util.h"
#include "eval_control.h"
#include "eval_spmd.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace while_family {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

constexpr char kReverseModeError[] =
    "Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with "
    "dynamic start/stop values. Try using lax.scan, or using fori_loop with static start/stop.";

// The params of one while equation, checked against its operand count.
struct Parts {
  std::shared_ptr<const ClosedJaxpr> cond, body;
  size_t cond_nconsts = 0, body_nconsts = 0, num_carry = 0;
};

absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> JaxprOf(const Params& params, const char* name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, "while", name));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return TypeError(absl::StrCat("parameter ", name, " of while must be a jaxpr"));
  }
  return p->jaxpr();
}

absl::StatusOr<Parts> ReadParts(const Params& params, size_t operands) {
  Parts w;
  AXE_ASSIGN_OR_RETURN(w.cond, JaxprOf(params, "cond_jaxpr"));
  AXE_ASSIGN_OR_RETURN(w.body, JaxprOf(params, "body_jaxpr"));
  AXE_ASSIGN_OR_RETURN(int64_t cn, RequiredInt(params, "while", "cond_nconsts"));
  AXE_ASSIGN_OR_RETURN(int64_t bn, RequiredInt(params, "while", "body_nconsts"));
  const int64_t n = static_cast<int64_t>(operands);
  if (cn < 0 || bn < 0 || cn > n || bn > n - cn) {
    return TypeError(absl::StrCat("while with ", n, " operands cannot have cond_nconsts=", cn,
                                  " and body_nconsts=", bn));
  }
  w.cond_nconsts = static_cast<size_t>(cn);
  w.body_nconsts = static_cast<size_t>(bn);
  w.num_carry = operands - w.cond_nconsts - w.body_nconsts;
  // JAX's _while_loop_abstract_eval.
  const size_t cond_in = w.cond->jaxpr.invars.size(), body_in = w.body->jaxpr.invars.size();
  if (cond_in != w.cond_nconsts + w.num_carry) {
    return TypeError(
        absl::StrCat("while_loop len(cond_jaxpr.in_avals)=", cond_in,
                     " but len(cond_consts_avals) + len(in_avals)=", w.cond_nconsts + w.num_carry));
  }
  if (body_in != w.body_nconsts + w.num_carry) {
    return TypeError(
        absl::StrCat("while_loop len(body_jaxpr.in_avals)=", body_in,
                     " but len(body_consts_avals) + len(in_avals)=", w.body_nconsts + w.num_carry));
  }
  return w;
}

// The operands [from, to) followed by the carries.
template <typename T>
std::vector<T> WithCarry(absl::Span<const T> all, size_t from, size_t to, const Parts& w) {
  std::vector<T> out(all.begin() + static_cast<std::ptrdiff_t>(from),
                     all.begin() + static_cast<std::ptrdiff_t>(to));
  size_t carry = w.cond_nconsts + w.body_nconsts;
  out.insert(out.end(), all.begin() + static_cast<std::ptrdiff_t>(carry), all.end());
  return out;
}

absl::Status CheckInputs(const char* fn, absl::Span<const ShapedArray> avals, const Jaxpr& j) {
  for (size_t i = 0; i < avals.size(); ++i) {
    if (!TypesMatch(avals[i], j.aval(j.invars[i]))) {
      return TypeError(absl::StrCat("while_loop ", fn, " function input type error: ",
                                    avals[i].Str(), " != ", j.aval(j.invars[i]).Str()));
    }
  }
  return absl::OkStatus();
}

bool IsPrefix(absl::Span<const int64_t> prefix, absl::Span<const int64_t> shape) {
  return prefix.size() <= shape.size() && std::equal(prefix.begin(), prefix.end(), shape.begin());
}

Result AbstractEval(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Parts w, ReadParts(params, avals.size()));
  const Jaxpr& cond = w.cond->jaxpr;
  const Jaxpr& body = w.body->jaxpr;
  AXE_RETURN_IF_ERROR(CheckInputs("cond", WithCarry(avals, 0, w.cond_nconsts, w), cond));
  AXE_RETURN_IF_ERROR(CheckInputs(
      "body", WithCarry(avals, w.cond_nconsts, w.cond_nconsts + w.body_nconsts, w), body));
  absl::Span<const ShapedArray> carry = avals.subspan(w.cond_nconsts + w.body_nconsts);
  std::vector<ShapedArray> pred = cond.out_avals();
  if (pred.size() != 1 || pred[0].dtype() != DType::kPred) {
    std::vector<std::string> types;
    for (const ShapedArray& a : pred) types.push_back(absl::StrCat("ShapedArray(", a.Str(), ")"));
    return TypeError(absl::StrCat("cond_fun must return a boolean scalar, but got output type(s) [",
                                  absl::StrJoin(types, ", "), "]."));
  }
  std::vector<ShapedArray> outs = body.out_avals();
  if (outs.size() != carry.size()) {
    return TypeError(
        absl::StrCat("while_loop body function carry input and carry output must "
                     "have equal types, but they differ: ",
                     carry.size(), " carries in and ", outs.size(), " out"));
  }
  for (size_t i = 0; i < outs.size(); ++i) {
    if (!TypesMatch(outs[i], carry[i])) {
      return TypeError(
          absl::StrCat("while_loop body function carry input and carry output must "
                       "have equal types, but they differ: carry[",
                       i, "] is ", carry[i].Str(), " in and ", outs[i].Str(), " out"));
    }
    if (!IsPrefix(pred[0].shape(), carry[i].shape())) {
      return TypeError(absl::StrCat("while_loop predicate of type ", pred[0].Str(),
                                    " is not batched like carry[", i, "] of type ", carry[i].Str(),
                                    " (its shape must be a prefix)"));
    }
  }
  return outs;
}

// ---- evaluation ----

// The least an iteration costs against the evaluation's budget (its equations cost more), so
// that a loop that never ends stops within a second or so: at most 2^16 iterations per
// evaluation.
constexpr int64_t kIterationCost = kEvalBudget >> 16;

absl::Status ChargeIteration(const SpmdScope& scope, int64_t iterations) {
  if (scope.budget == nullptr) return absl::OkStatus();
  const int64_t cost = kIterationCost * std::max<int64_t>(scope.count, 1);
  if (*scope.budget < cost) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "evaluation stopped in a while loop after ", iterations,
        " iterations: the program needs more than ", kEvalBudget, " element operations"));
  }
  *scope.budget -= cost;
  return absl::OkStatus();
}

// Whether any element of the predicate holds at any position.
bool AnyTrue(const Replicas& pred) {
  for (const HostArray& p : pred) {
    for (double v : p.values) {
      if (v != 0) return true;
    }
  }
  return false;
}

// `next` where the predicate holds, `carry` elsewhere (the predicate's shape is a prefix of
// the carry's, so each predicate element covers a contiguous block).
void KeepWherePredicateFails(const Replicas& pred, const Replicas& carry, Replicas& next) {
  for (size_t p = 0; p < next.size() && p < carry.size() && p < pred.size(); ++p) {
    const std::vector<double>& lanes = pred[p].values;
    std::vector<double>& out = next[p].values;
    if (lanes.empty() || out.size() != carry[p].values.size()) continue;
    const size_t block = out.size() / lanes.size();
    for (size_t e = 0; e < out.size(); ++e) {
      if (lanes[e / block] == 0) out[e] = carry[p].values[e];
    }
  }
}

SpmdResult EvalWhile(const Eqn& eqn, const std::vector<Replicas>& in, const SpmdScope& scope) {
  AXE_ASSIGN_OR_RETURN(Parts w, ReadParts(eqn.params, in.size()));
  const size_t fixed = w.cond_nconsts + w.body_nconsts;
  std::vector<Replicas> carry(in.begin() + static_cast<std::ptrdiff_t>(fixed), in.end());
  for (int64_t iterations = 0;; ++iterations) {
    AXE_RETURN_IF_ERROR(ChargeIteration(scope, iterations));
    std::vector<Replicas> cond_args(in.begin(),
                                    in.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts));
    cond_args.insert(cond_args.end(), carry.begin(), carry.end());
    AXE_ASSIGN_OR_RETURN(std::vector<Replicas> pred, EvalSpmd(*w.cond, cond_args, scope));
    if (pred.size() != 1) return absl::InvalidArgumentError("while: cond_jaxpr has no predicate");
    if (!AnyTrue(pred[0])) break;
    std::vector<Replicas> body_args(in.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts),
                                    in.begin() + static_cast<std::ptrdiff_t>(fixed));
    body_args.insert(body_args.end(), carry.begin(), carry.end());
    AXE_ASSIGN_OR_RETURN(std::vector<Replicas> next, EvalSpmd(*w.body, body_args, scope));
    if (next.size() != carry.size()) {
      return absl::InvalidArgumentError("while: the body's outputs do not match the carry");
    }
    for (size_t k = 0; k < carry.size(); ++k) {
      KeepWherePredicateFails(pred[0], carry[k], next[k]);
      carry[k] = std::move(next[k]);
    }
  }
  return carry;
}

// ---- JVP ----

// (cond consts..., carry..., carry tangents...) -> cond's predicate.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> CondWithTangents(
    const Parts& w, const std::vector<ShapedArray>& tangent_avals) {
  Builder b;
  const Jaxpr& j = w.cond->jaxpr;
  std::vector<Tracer> args;
  for (VarId v : j.invars) args.push_back(b.Arg(j.aval(v)));
  for (const ShapedArray& a : tangent_avals) b.Arg(a);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, InlineJaxpr(b, *w.cond, args));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

// (body consts..., their tangents..., carry..., carry tangents...) -> (carry..., carry
// tangents...): the body's JVP, a tangent for each float value.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BodyJvp(
    const Parts& w, const std::vector<bool>& differentiable) {
  Builder b;
  const Jaxpr& j = w.body->jaxpr;
  std::vector<Tracer> primals(j.invars.size());
  std::vector<OptTracer> tangents(j.invars.size());
  std::vector<size_t> bounds = {0, w.body_nconsts, j.invars.size()};
  for (size_t g = 0; g < 2; ++g) {
    for (size_t i = bounds[g]; i < bounds[g + 1]; ++i) primals[i] = b.Arg(j.aval(j.invars[i]));
    for (size_t i = bounds[g]; i < bounds[g + 1]; ++i) {
      if (differentiable[i]) tangents[i] = b.Arg(j.aval(j.invars[i]));
    }
  }
  AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(b, *w.body, primals, tangents));
  std::vector<Tracer> outs = r.primals_out;
  for (size_t k = 0; k < r.primals_out.size(); ++k) {
    if (!differentiable[w.body_nconsts + k]) continue;
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, r.tangents_out[k], r.primals_out[k].aval));
    outs.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

// One while carries the primals and their tangents; the primal outputs come from the original
// while, so that linearize finds them free of tangents (and Grad then reaches the transpose
// rule's error, as JAX's reverse mode does).
absl::StatusOr<JvpResult> Jvp(Builder& b, absl::Span<const Tracer> primals,
                              absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Parts w, ReadParts(params, primals.size()));
  const size_t fixed = w.cond_nconsts + w.body_nconsts;
  std::vector<bool> differentiable;  // per body input: body consts, then carries
  for (size_t i = w.cond_nconsts; i < primals.size(); ++i) {
    differentiable.push_back(Differentiable(primals[i].aval.dtype()));
  }
  std::vector<Tracer> args(primals.begin(), primals.begin() + static_cast<std::ptrdiff_t>(fixed));
  std::vector<ShapedArray> carry_tangent_avals;
  std::vector<Tracer> carry_tangents;
  int64_t const_tangents = 0;
  for (size_t i = w.cond_nconsts; i < primals.size(); ++i) {
    if (!differentiable[i - w.cond_nconsts]) continue;
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, tangents[i], primals[i].aval));
    if (i < fixed) {
      args.push_back(t);
      ++const_tangents;
    } else {
      carry_tangents.push_back(t);
      carry_tangent_avals.push_back(primals[i].aval);
    }
  }
  args.insert(args.end(), primals.begin() + static_cast<std::ptrdiff_t>(fixed), primals.end());
  args.insert(args.end(), carry_tangents.begin(), carry_tangents.end());
  Params p = params;
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> cond,
                       CondWithTangents(w, carry_tangent_avals));
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body, BodyJvp(w, differentiable));
  p["cond_jaxpr"] = Param::Jaxpr(std::move(cond));
  p["body_jaxpr"] = Param::Jaxpr(std::move(body));
  p["body_nconsts"] = Param::Int(static_cast<int64_t>(w.body_nconsts) + const_tangents);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, b.Bind(*Builtins().while_, args, p));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*Builtins().while_, primals, params));
  JvpResult r{outs, std::vector<OptTracer>(outs.size())};
  for (size_t k = 0, next = w.num_carry; k < w.num_carry; ++k) {
    if (differentiable[w.body_nconsts + k]) r.tangents_out[k] = res[next++];
  }
  return r;
}

// ---- batching ----

// `x` batched at `to` (broadcast when unbatched, moved otherwise).
absl::StatusOr<Tracer> BatchedAt(const Tracer& x, const BDim& dim, int64_t size, int64_t to) {
  if (!dim) return BroadcastBatched(x, size, to);
  return MoveBatchDim(x, *dim, to);
}

ShapedArray WithBatchDim(const ShapedArray& a, const BDim& dim, int64_t size) {
  if (!dim) return a;
  std::vector<int64_t> shape = a.shape();
  shape.insert(shape.begin() + *dim, size);
  return a.WithShape(std::move(shape));
}

// Traces `jaxpr` batched on arguments of its input types batched at `dims`.
absl::StatusOr<BatchResult> TraceBatched(Builder& b, const ClosedJaxpr& jaxpr,
                                         const std::vector<BDim>& dims, int64_t size) {
  const Jaxpr& j = jaxpr.jaxpr;
  std::vector<Tracer> args;
  for (size_t i = 0; i < j.invars.size(); ++i) {
    args.push_back(b.Arg(WithBatchDim(j.aval(j.invars[i]), dims[i], size)));
  }
  return BatchTrace(b, jaxpr, args, dims);
}

// Which carries are batched: those batched on entry, and those the body makes batched (a
// fixed point; each round batches at least one more).
absl::StatusOr<std::vector<bool>> BatchedCarries(const Parts& w, const std::vector<BDim>& bconst,
                                                 std::vector<bool> carry, int64_t size) {
  for (size_t round = 0; round <= carry.size(); ++round) {
    std::vector<BDim> dims = bconst;
    for (bool c : carry) dims.push_back(c ? BDim(0) : std::nullopt);
    Builder scratch;
    AXE_ASSIGN_OR_RETURN(BatchResult r, TraceBatched(scratch, *w.body, dims, size));
    bool changed = false;
    for (size_t k = 0; k < carry.size() && k < r.out_dims.size(); ++k) {
      if (!carry[k] && r.out_dims[k]) carry[k] = changed = true;
    }
    if (!changed) return carry;
  }
  return absl::InternalError("while batching: no fixed point of the batched carries");
}

// The jaxpr batched with its outputs moved to `out_dims` (nullopt: must come out unbatched).
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> Rebatched(const ClosedJaxpr& jaxpr,
                                                             const std::vector<BDim>& dims,
                                                             const std::vector<BDim>& out_dims,
                                                             int64_t size) {
  Builder b;
  AXE_ASSIGN_OR_RETURN(BatchResult r, TraceBatched(b, jaxpr, dims, size));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    if (!out_dims[k]) {
      if (r.out_dims[k]) return absl::InternalError("while batching: an unbatched carry batched");
      outs.push_back(r.outs[k]);
      continue;
    }
    AXE_ASSIGN_OR_RETURN(Tracer o, BatchedAt(r.outs[k], r.out_dims[k], size, *out_dims[k]));
    outs.push_back(o);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

absl::StatusOr<BatchResult> Batch(Builder& b, absl::Span<const Tracer> args,
                                  absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(Parts w, ReadParts(params, args.size()));
  const size_t fixed = w.cond_nconsts + w.body_nconsts;
  const int64_t size = BatchSize(args, dims);
  std::vector<BDim> cconst(dims.begin(),
                           dims.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts));
  std::vector<BDim> bconst(dims.begin() + static_cast<std::ptrdiff_t>(w.cond_nconsts),
                           dims.begin() + static_cast<std::ptrdiff_t>(fixed));
  std::vector<bool> carry_batched;
  for (size_t i = fixed; i < dims.size(); ++i) carry_batched.push_back(dims[i].has_value());
  AXE_ASSIGN_OR_RETURN(carry_batched, BatchedCarries(w, bconst, carry_batched, size));
  std::vector<BDim> cond_dims = cconst;
  for (bool c : carry_batched) cond_dims.push_back(c ? BDim(0) : std::nullopt);
  Builder scratch;
  AXE_ASSIGN_OR_RETURN(BatchResult pred, TraceBatched(scratch, *w.cond, cond_dims, size));
  const bool pred_batched = !pred.out_dims.empty() && pred.out_dims[0].has_value();
  // A batched predicate batches every carry at 0 (its shape then stays a prefix of theirs);
  // otherwise the batched carries go after the predicate's dimensions.
  const int64_t at = pred_batched ? 0 : w.cond->jaxpr.out_avals()[0].rank();
  std::vector<BDim> carry_dims;
  for (bool c : carry_batched) carry_dims.push_back(c || pred_batched ? BDim(at) : std::nullopt);
  cond_dims = cconst;
  cond_dims.insert(cond_dims.end(), carry_dims.begin(), carry_dims.end());
  std::vector<BDim> body_dims = bconst;
  body_dims.insert(body_dims.end(), carry_dims.begin(), carry_dims.end());
  AXE_ASSIGN_OR_RETURN(
      std::shared_ptr<const ClosedJaxpr> cond,
      Rebatched(*w.cond, cond_dims, {pred_batched ? BDim(0) : std::nullopt}, size));
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body,
                       Rebatched(*w.body, body_dims, carry_dims, size));
  std::vector<Tracer> ops(args.begin(), args.begin() + static_cast<std::ptrdiff_t>(fixed));
  for (size_t k = 0; k < carry_dims.size(); ++k) {
    const Tracer& x = args[fixed + k];
    if (!carry_dims[k]) {
      ops.push_back(x);
      continue;
    }
    AXE_ASSIGN_OR_RETURN(Tracer t, BatchedAt(x, dims[fixed + k], size, *carry_dims[k]));
    ops.push_back(t);
  }
  Params p = params;
  p["cond_jaxpr"] = Param::Jaxpr(std::move(cond));
  p["body_jaxpr"] = Param::Jaxpr(std::move(body));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*Builtins().while_, ops, p));
  return BatchResult{outs, carry_dims};
}

}  // namespace while_family

std::optional<SpmdResult> EvalWhileSpecial(const Eqn& eqn, const std::vector<Replicas>& in,
                                           const SpmdScope& scope) {
  if (eqn.primitive != Builtins().while_) return std::nullopt;
  return while_family::EvalWhile(eqn, in, scope);
}

void DefineWhile(BuiltinPrimitives& p) {
  Primitive::Options o;
  o.name = "while";
  o.multiple_results = true;
  o.params = {{"body_jaxpr", ParamType::kJaxpr},
              {"body_nconsts", ParamType::kInt},
              {"cond_jaxpr", ParamType::kJaxpr},
              {"cond_nconsts", ParamType::kInt}};
  absl::StatusOr<const Primitive*> prim = DefinePrimitive(std::move(o));
  AXE_CHECK(prim.ok()) << prim.status();
  p.while_ = *prim;
}

void RegisterWhileRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.while_, while_family::AbstractEval);
  RegisterImpl(*p.while_, ViaInterpreter(*p.while_));  // the interpreter's loop
  RegisterJvp(*p.while_, while_family::Jvp);
  RegisterTranspose(
      *p.while_,
      [](Builder&, absl::Span<const std::optional<Tracer>>, absl::Span<const TransposeArg>,
         const Params&) -> absl::StatusOr<std::vector<std::optional<Tracer>>> {
        return absl::InvalidArgumentError(while_family::kReverseModeError);
      });
  RegisterBatching(*p.while_, while_family::Batch);
}

}  // namespace axe::ir::internal
