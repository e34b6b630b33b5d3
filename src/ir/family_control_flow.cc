// The primitives that call jaxprs, with every rule: jit and closed_call (calls of their jaxpr),
// custom_jvp_call and custom_vjp_call (the custom rules are Python functions a printed jaxpr
// does not carry: JAX's relu and relu6 get their rules with the kinks, JAX's other library
// custom_jvp functions call_jaxpr's derivative, a user's custom rule is refused), cond
// (branches indexed by an int32 or a boolean) and scan. Typing checks how the operands meet
// the body (check_jaxpr checks the bodies); the impl runs the interpreter; JVP and batching
// rewrite the bodies; cond and scan transpose (the scan's residuals are recomputed by a
// forward scan).
//
// Sections hold the typing rules, then the impl, JVP, transpose and batching rules; the
// Register functions at the end register each primitive's rules together.
#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "axe/base/checked_math.h"
#include "axe/base/python_error.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/axis_env.h"
#include "axe/ir/batching.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"

#include "batching_util.h"
#include "eval_control.h"
#include "eval_util.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

using Result = absl::StatusOr<std::vector<ShapedArray>>;

// JAX's _check_call: operand count and types against the body's invars.
absl::Status CheckOperands(absl::string_view prim, absl::Span<const ShapedArray> avals,
                           const Jaxpr& body) {
  if (avals.size() != body.invars.size()) {
    return TypeError(absl::StrCat("Call primitive ", prim, " with ", avals.size(),
                                  " operands cannot call jaxpr with ", body.invars.size(),
                                  " inputs"));
  }
  for (size_t i = 0; i < avals.size(); ++i) {
    if (!TypesMatch(avals[i], body.aval(body.invars[i]))) {
      return TypeError(absl::StrCat("Call primitive ", prim, " passes operand ", i, " of type ",
                                    avals[i].Str(), " to jaxpr expecting type ",
                                    body.aval(body.invars[i]).Str()));
    }
  }
  return absl::OkStatus();
}

Rule Call(std::string prim, std::string param) {
  return [prim, param](absl::Span<const ShapedArray> avals, const Params& params) -> Result {
    AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, CalledJaxprParam(params, prim, param));
    AXE_RETURN_IF_ERROR(CheckOperands(prim, avals, body->jaxpr));
    return body->jaxpr.out_avals();
  };
}

std::string MatList(const Jaxpr& j) {
  std::vector<std::string> sets;
  for (const ShapedArray& a : j.out_avals()) sets.push_back(FrozensetRepr(a.vma()));
  return absl::StrCat("[", absl::StrJoin(sets, ", "), "]");
}

Result Cond(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  if (!branches->IsJaxprTuple()) {
    return TypeError("parameter branches of cond must be a tuple of jaxprs");
  }
  if (avals.empty() || avals[0].rank() != 0 ||
      (avals[0].dtype() != DType::kPred && !IsIntegral(avals[0].dtype()))) {
    return TypeError(absl::StrCat("cond index must be an integer or boolean scalar, got ",
                                  avals.empty() ? "no operands" : avals[0].Str()));
  }
  const Jaxpr& first = branches->items()[0].jaxpr()->jaxpr;
  for (const Param& b : branches->items()) {
    const Jaxpr& j = b.jaxpr()->jaxpr;
    AXE_RETURN_IF_ERROR(CheckOperands("cond", avals.subspan(1), j));
    std::vector<ShapedArray> outs = j.out_avals(), first_outs = first.out_avals();
    bool same = outs.size() == first_outs.size();
    for (size_t i = 0; same && i < outs.size(); ++i) {
      same = outs[i].shape() == first_outs[i].shape() && outs[i].dtype() == first_outs[i].dtype();
    }
    if (!same) return TypeError("cond branches must have equal output types but they differ.");
    if (MatList(j) != MatList(first)) {
      return TypeError(absl::StrCat(
          "The branches of cond produced mismatched varying manual axes. Got ", MatList(first),
          " and ", MatList(j),
          ". Please open an issue at https://github.com/jax-ml/jax/issues, "
          "and as a temporary workaround pass the check_vma=False argument to `jax.shard_map`"));
    }
  }
  return first.out_avals();
}

Result Scan(absl::Span<const ShapedArray> avals, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const ClosedJaxpr* body, CalledJaxprParam(params, "scan", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(int64_t length, RequiredInt(params, "scan", "length"));
  AXE_ASSIGN_OR_RETURN(int64_t num_consts, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t num_carry, RequiredInt(params, "scan", "num_carry"));
  const Jaxpr& j = body->jaxpr;
  int64_t n = static_cast<int64_t>(avals.size());
  AXE_RETURN_IF_ERROR(CheckScanLength(length));
  if (num_consts < 0 || num_carry < 0 || num_consts > n - num_carry ||
      static_cast<int64_t>(j.outvars.size()) < num_carry) {
    return TypeError(absl::StrCat("scan with ", n, " operands cannot have num_consts=", num_consts,
                                  " and num_carry=", num_carry));
  }
  std::vector<ShapedArray> body_in(avals.begin(), avals.begin() + num_consts + num_carry);
  for (int64_t i = num_consts + num_carry; i < n; ++i) {
    const ShapedArray& x = avals[i];
    if (x.rank() == 0 || x.shape()[0] != length) {
      return TypeError(absl::StrCat("scan got operand ", i, " of type ", x.Str(),
                                    " whose leading axis is not of the length ", length));
    }
    body_in.push_back(x.WithShape({x.shape().begin() + 1, x.shape().end()}));
  }
  AXE_RETURN_IF_ERROR(CheckOperands("scan", body_in, j));
  std::vector<ShapedArray> outs = j.out_avals();
  for (int64_t i = 0; i < num_carry; ++i) {
    if (!TypesMatch(outs[i], body_in[num_consts + i])) {
      return TypeError(absl::StrCat(
          "scan body function carry input and carry output must have equal types, but they "
          "differ: carry[",
          i, "] is ", body_in[num_consts + i].Str(), " in and ", outs[i].Str(), " out"));
    }
  }
  for (size_t i = static_cast<size_t>(num_carry); i < outs.size(); ++i) {
    std::vector<int64_t> shape = {length};
    shape.insert(shape.end(), outs[i].shape().begin(), outs[i].shape().end());
    outs[i] = outs[i].WithShape(std::move(shape));
  }
  return outs;
}

JvpRule InlineJvp(const char* prim, const char* param) {
  return [prim, param](Builder& b, absl::Span<const Tracer> primals,
                       absl::Span<const OptTracer> tangents,
                       const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body, BodyParam(params, prim, param));
    return JvpTrace(b, *body, primals, tangents);
  };
}

// A jaxpr taking (primals..., the tangents `has_tangent` selects...) and returning
// (outs..., every out's tangent, instantiated).
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> JvpBody(const ClosedJaxpr& body,
                                                           const std::vector<bool>& has_tangent,
                                                           bool tangents_only) {
  Builder b;
  const Jaxpr& j = body.jaxpr;
  std::vector<Tracer> primals;
  for (VarId v : j.invars) primals.push_back(b.Arg(j.aval(v)));
  std::vector<OptTracer> tangents(primals.size());
  for (size_t i = 0; i < primals.size(); ++i) {
    if (has_tangent[i]) tangents[i] = b.Arg(j.aval(j.invars[i]));
  }
  AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(b, body, primals, tangents));
  std::vector<Tracer> outs;
  if (!tangents_only) outs = r.primals_out;
  for (size_t k = 0; k < r.tangents_out.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, r.tangents_out[k], r.primals_out[k].aval));
    outs.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

// The primal outputs come from the original cond, the tangents from a second cond whose
// branches compute only them (so that linearize finds the primal part free of tangents).
absl::StatusOr<JvpResult> CondJvp(Builder& b, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  std::vector<bool> has(primals.size() - 1);
  std::vector<Tracer> args(primals.begin(), primals.end());
  for (size_t i = 1; i < primals.size(); ++i) {
    has[i - 1] = tangents[i].has_value();
    if (tangents[i]) args.push_back(*tangents[i]);
  }
  std::vector<std::shared_ptr<const ClosedJaxpr>> jvps;
  for (const Param& br : branches->items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> j, JvpBody(*br.jaxpr(), has, true));
    jvps.push_back(std::move(j));
  }
  Params p = params;
  p["branches"] = Param::Jaxprs(std::move(jvps));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*Builtins().cond, primals, params));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> ts, BindWithAutoPvary(*Builtins().cond, args, p));
  return JvpResult{outs, std::vector<OptTracer>(ts.begin(), ts.end())};
}

// Every operand gets a tangent (zeros where symbolic), so the carry tangents are a fixed
// point; operands become (consts, const tangents, carry, carry tangents, xs, xs tangents).
absl::StatusOr<JvpResult> ScanJvp(Builder& b, absl::Span<const Tracer> primals,
                                  absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body, BodyParam(params, "scan", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(int64_t nc, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t nk, RequiredInt(params, "scan", "num_carry"));
  size_t n = primals.size();
  if (nc < 0 || nk < 0 || static_cast<size_t>(nc + nk) > n) {
    return absl::InvalidArgumentError("scan: num_consts + num_carry exceed the operands");
  }
  std::vector<Tracer> ts;
  for (size_t i = 0; i < n; ++i) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, tangents[i], primals[i].aval));
    ts.push_back(t);
  }
  std::vector<size_t> bounds = {0, static_cast<size_t>(nc), static_cast<size_t>(nc + nk), n};
  std::vector<Tracer> args;
  Builder inner;
  const Jaxpr& j = body->jaxpr;
  std::vector<Tracer> in_p;
  std::vector<OptTracer> in_topt(n);
  for (size_t g = 0; g < 3; ++g) {
    for (size_t i = bounds[g]; i < bounds[g + 1]; ++i) {
      args.push_back(primals[i]);
      in_p.push_back(inner.Arg(j.aval(j.invars[i])));
    }
    for (size_t i = bounds[g]; i < bounds[g + 1]; ++i) {
      args.push_back(ts[i]);
      in_topt[i] = inner.Arg(j.aval(j.invars[i]));
    }
  }
  AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(inner, *body, in_p, in_topt));
  std::vector<Tracer> outs;
  size_t nout = r.primals_out.size();
  std::vector<size_t> out_bounds = {0, static_cast<size_t>(nk), nout};
  for (size_t g = 0; g < 2; ++g) {
    for (size_t k = out_bounds[g]; k < out_bounds[g + 1]; ++k) outs.push_back(r.primals_out[k]);
    for (size_t k = out_bounds[g]; k < out_bounds[g + 1]; ++k) {
      AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(inner, r.tangents_out[k], r.primals_out[k].aval));
      outs.push_back(t);
    }
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr jvp_body, inner.Build(outs));
  Params p = params;
  p["jaxpr"] = Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(jvp_body)));
  p["num_consts"] = Param::Int(2 * nc);
  p["num_carry"] = Param::Int(2 * nk);
  if (p.count("linear") != 0) {
    p["linear"] = Param::Tuple(std::vector<Param>(2 * n, Param::Bool(false)));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, b.Bind(*Builtins().scan, args, p));
  // The primal outputs of the original scan (not those of the JVP scan), so that linearize
  // finds them free of tangents.
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> primal_outs, b.Bind(*Builtins().scan, primals, params));
  JvpResult out;
  for (size_t g = 0; g < 2; ++g) {
    size_t width = out_bounds[g + 1] - out_bounds[g];
    size_t base = 2 * out_bounds[g];
    for (size_t k = 0; k < width; ++k) {
      out.primals_out.push_back(primal_outs[out_bounds[g] + k]);
      out.tangents_out.push_back(res[base + width + k]);
    }
  }
  return out;
}

const BuiltinPrimitives& CustomPrims() { return Builtins(); }

std::string CustomCallParam(const Params& params, const std::string& key) {
  auto it = params.find(key);
  return it == params.end() ? std::string() : it->second.ToString();
}

// The custom_jvp functions of JAX's own library (jax.nn, jax.numpy, jax.scipy.special) whose
// rule is the derivative of their body, written to be stable: differentiating the call_jaxpr
// gives their numbers.
bool IsJaxLibraryCustomJvp(const std::string& name) {
  static const auto* names = new absl::flat_hash_set<std::string>{
      "logaddexp",      "logaddexp2", "logit",    "xlogy",       "xlog1py",
      "_xlogx",         "log1mexp",   "_softmax", "log_ndtr",    "_sinc_maclaurin",
      "_erfcx",         "_i0",        "_dawsn",   "expi",        "fresnel",
      "sici",           "zeta",       "poch",     "_wofz",       "_owens_t_impl",
      "expn",           "_frexp",     "_det",     "_slogdet_lu", "_slogdet_qr",
      "_slogdet_small", "_pinv"};
  return names->contains(name);
}

// The tangent of jax.nn.relu (`relu6` false) or jax.nn.relu6 (`relu6` true): dx where
// 0 < x (and x < 6), else 0; so 0 at the kinks, as JAX's custom rules give.
absl::StatusOr<Tracer> ReluTangent(Builder& b, const Tracer& x, const Tracer& dx, bool relu6) {
  DType t = x.aval.dtype();
  AXE_ASSIGN_OR_RETURN(Tracer pass, Op(*CustomPrims().gt, {x, b.Scalar(0, t)}));
  if (relu6) {
    AXE_ASSIGN_OR_RETURN(Tracer below, Op(*CustomPrims().lt, {x, b.Scalar(6, t)}));
    AXE_ASSIGN_OR_RETURN(pass, Op(*CustomPrims().and_, {pass, below}));
  }
  AXE_ASSIGN_OR_RETURN(Tracer zeros, ZerosLike(b, dx.aval));
  return Op(*CustomPrims().select_n, {pass, zeros, dx});
}

absl::StatusOr<JvpResult> CustomJvpCallJvp(Builder& b, absl::Span<const Tracer> primals,
                                           absl::Span<const OptTracer> tangents,
                                           const Params& params) {
  std::string name = CustomCallParam(params, "name");
  bool known = (name == "relu" || name == "relu6") && primals.size() == 1 &&
               IsFloatingPoint(primals[0].aval.dtype());
  if (!known && IsJaxLibraryCustomJvp(name)) {
    AXE_ASSIGN_OR_RETURN(JvpRule call, GetJvpRule(*CustomPrims().closed_call));
    return call(b, primals, tangents, params);
  }
  if (!known) {
    return absl::UnimplementedError(absl::StrCat(
        "cannot differentiate custom_jvp_call (name=", name,
        "): its custom rule (jvp=", CustomCallParam(params, "jvp"),
        ") is a Python function that the printed jaxpr does not carry, and differentiating its "
        "call_jaxpr instead would ignore the rule; differentiate with JAX and pass the printed "
        "gradient jaxpr"));
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs,
                       b.Bind(*CustomPrims().custom_jvp_call, primals, params));
  if (outs.size() != 1 || outs[0].aval.shape() != primals[0].aval.shape()) {
    return absl::InvalidArgumentError(
        absl::StrCat("custom_jvp_call ", name, ": expected one result of its operand's shape"));
  }
  JvpResult r{outs, {std::nullopt}};
  if (!tangents[0]) return r;
  AXE_ASSIGN_OR_RETURN(Tracer t, ReluTangent(b, primals[0], *tangents[0], name == "relu6"));
  r.tangents_out[0] = t;
  return r;
}

absl::StatusOr<JvpResult> CustomVjpCallJvp(Builder&, absl::Span<const Tracer>,
                                           absl::Span<const OptTracer>, const Params& params) {
  return absl::UnimplementedError(absl::StrCat(
      "cannot differentiate custom_vjp_call (name=", CustomCallParam(params, "name"),
      "): its custom rule (fwd=", CustomCallParam(params, "fwd"),
      ", bwd=", CustomCallParam(params, "bwd"),
      ") is a Python function that the printed jaxpr does not carry, and differentiating its "
      "call_jaxpr instead would ignore the rule; differentiate with JAX and pass the printed "
      "gradient jaxpr"));
}

// The backward pass of `branch` as a closed jaxpr: (non-linear operands..., cts...) ->
// cotangents of the linear operands.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> TransposedBranch(
    const ClosedJaxpr& branch, absl::Span<const TransposeArg> ops,
    absl::Span<const ShapedArray> ct_avals) {
  const Jaxpr& j = branch.jaxpr;
  Builder b;
  std::vector<Tracer> consts;
  for (const HostArray& c : branch.consts) consts.push_back(b.Const(c));
  std::vector<std::optional<Tracer>> inputs;
  for (size_t i = 0; i < ops.size(); ++i) {
    inputs.push_back(ops[i].is_undefined_primal()
                         ? std::nullopt
                         : std::optional<Tracer>(b.Arg(j.aval(j.invars[i]))));
  }
  std::vector<std::optional<Tracer>> cts;
  for (const ShapedArray& a : ct_avals) cts.push_back(b.Arg(a));
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                       BackwardPass(b, j, consts, inputs, cts));
  std::vector<Tracer> outs;
  for (size_t i = 0; i < ops.size(); ++i) {
    if (!ops[i].is_undefined_primal()) continue;
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, in_cts[i], j.aval(j.invars[i])));
    outs.push_back(t);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr closed, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(closed));
}

absl::StatusOr<std::vector<OptTracer>> CondTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params& params) {
  std::vector<OptTracer> out(args.size());
  if (args.empty() || args[0].is_undefined_primal()) {
    return absl::InvalidArgumentError("cond is not linear in its index");
  }
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  if (branches->items().empty() || branches->items()[0].jaxpr() == nullptr) {
    return absl::InvalidArgumentError("cond without branches");
  }
  absl::Span<const TransposeArg> ops = args.subspan(1);
  std::vector<ShapedArray> ct_avals = branches->items()[0].jaxpr()->jaxpr.out_avals();
  std::vector<Tracer> operands = {*args[0].value};
  for (const TransposeArg& a : ops) {
    if (!a.is_undefined_primal()) operands.push_back(*a.value);
  }
  for (size_t k = 0; k < cts.size() && k < ct_avals.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(b, cts[k], ct_avals[k]));
    operands.push_back(t);
  }
  std::vector<std::shared_ptr<const ClosedJaxpr>> transposed;
  for (const Param& br : branches->items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(auto t, TransposedBranch(*br.jaxpr(), ops, ct_avals));
    transposed.push_back(std::move(t));
  }
  Params p = params;
  p["branches"] = Param::Jaxprs(std::move(transposed));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> results,
                       BindWithAutoPvary(*Builtins().cond, operands, p));
  for (size_t i = 1, next = 0; i < args.size(); ++i) {
    if (args[i].is_undefined_primal()) out[i] = results[next++];
  }
  return out;
}

struct ScanTransposeShape {
  size_t nc = 0, nk = 0, n = 0;
  int64_t length = 0;
  bool reverse = false;
  std::shared_ptr<const ClosedJaxpr> body;
  bool IsConst(size_t i) const { return i < nc; }
  bool IsCarry(size_t i) const { return i >= nc && i < nc + nk; }
};

absl::StatusOr<ScanTransposeShape> ReadScanForTranspose(const Params& params, size_t n) {
  ScanTransposeShape s;
  AXE_ASSIGN_OR_RETURN(const Param* body, GetParam(params, "scan", "jaxpr"));
  s.body = body->jaxpr();
  AXE_ASSIGN_OR_RETURN(int64_t nc, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t nk, RequiredInt(params, "scan", "num_carry"));
  AXE_ASSIGN_OR_RETURN(s.length, RequiredInt(params, "scan", "length"));
  if (auto it = params.find("reverse"); it != params.end()) {
    AXE_ASSIGN_OR_RETURN(s.reverse, it->second.AsBool("reverse"));
  }
  if (s.body == nullptr || nc < 0 || nk < 0 || static_cast<size_t>(nc + nk) > n) {
    return absl::InvalidArgumentError("scan: bad num_consts / num_carry or body");
  }
  s.nc = static_cast<size_t>(nc);
  s.nk = static_cast<size_t>(nk);
  s.n = n;
  return s;
}

Params ScanParams(const Params& old, ClosedJaxpr body, size_t nc, size_t nk, size_t n,
                  bool reverse) {
  Params p = old;
  p["jaxpr"] = Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(body)));
  p["num_consts"] = Param::Int(static_cast<int64_t>(nc));
  p["num_carry"] = Param::Int(static_cast<int64_t>(nk));
  p["reverse"] = Param::Bool(reverse);
  if (p.count("linear") != 0) p["linear"] = Param::Tuple(std::vector<Param>(n, Param::Bool(false)));
  return p;
}

// Which body outputs depend on the inputs `mask` marks.
std::vector<bool> DependsOn(const Jaxpr& j, const std::vector<bool>& mask) {
  std::vector<bool> dep(j.vars.size(), false);
  for (size_t i = 0; i < j.invars.size() && i < mask.size(); ++i) dep[j.invars[i]] = mask[i];
  for (const Eqn& e : j.eqns) {
    bool any = false;
    for (const Atom& a : e.inputs) any = any || (!a.is_literal() && dep[a.var]);
    for (VarId o : e.outputs) dep[o] = any;
  }
  std::vector<bool> out;
  for (const Atom& a : j.outvars) out.push_back(!a.is_literal() && dep[a.var]);
  return out;
}

// The linear operands: the undefined ones, and the carries whose next value depends on a
// linear operand (an instantiated zero tangent arrives defined), to a fixed point.
std::vector<bool> LinearMask(const ScanTransposeShape& s, absl::Span<const TransposeArg> args) {
  std::vector<bool> lin(s.n);
  for (size_t i = 0; i < s.n; ++i) lin[i] = args[i].is_undefined_primal();
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<bool> dep = DependsOn(s.body->jaxpr, lin);
    for (size_t k = 0; k < s.nk; ++k) {
      if (dep[k] && !lin[s.nc + k]) lin[s.nc + k] = changed = true;
    }
  }
  return lin;
}

ShapedArray Stacked(const ShapedArray& a, int64_t length) {
  std::vector<int64_t> shape = a.shape();
  shape.insert(shape.begin(), length);
  return a.WithShape(std::move(shape));
}

// The forward scan of the non-linear part: returns the carries each iteration starts from,
// stacked (one per non-linear carry).
absl::StatusOr<std::vector<Tracer>> ResidualCarries(Builder& outer, const ScanTransposeShape& s,
                                                    absl::Span<const TransposeArg> args,
                                                    const std::vector<bool>& lin,
                                                    const Params& params) {
  const Jaxpr& j = s.body->jaxpr;
  Builder b;
  std::vector<Tracer> in, operands, carry_in;
  std::vector<size_t> nonlin_carry;
  size_t nc = 0, nk = 0;
  for (size_t i = 0; i < s.n; ++i) {
    if (lin[i]) {
      AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, j.aval(j.invars[i])));
      in.push_back(z);
      continue;
    }
    Tracer a = b.Arg(j.aval(j.invars[i]));
    in.push_back(a);
    operands.push_back(*args[i].value);
    if (s.IsConst(i)) ++nc;
    if (s.IsCarry(i)) {
      ++nk;
      nonlin_carry.push_back(i - s.nc);
      carry_in.push_back(a);
    }
  }
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, InlineJaxpr(b, *s.body, in));
  std::vector<Tracer> body_outs;
  for (size_t k : nonlin_carry) body_outs.push_back(outs[k]);
  body_outs.insert(body_outs.end(), carry_in.begin(), carry_in.end());
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr fwd, b.Build(body_outs));
  if (nk == 0) return std::vector<Tracer>{};
  Params p = ScanParams(params, DeadCodeEliminated(fwd), nc, nk, operands.size(), s.reverse);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, outer.Bind(*Builtins().scan, operands, p));
  return std::vector<Tracer>(res.begin() + static_cast<int64_t>(nk), res.end());
}

// The operand positions by role and linearity.
struct Roles {
  std::vector<size_t> lin_c, lin_k, lin_x, nonlin_c, nonlin_k, nonlin_x;
};

Roles Partition(const ScanTransposeShape& s, const std::vector<bool>& linear) {
  Roles r;
  for (size_t i = 0; i < s.n; ++i) {
    bool lin = linear[i];
    auto& list = s.IsConst(i)   ? (lin ? r.lin_c : r.nonlin_c)
                 : s.IsCarry(i) ? (lin ? r.lin_k : r.nonlin_k)
                                : (lin ? r.lin_x : r.nonlin_x);
    list.push_back(i);
  }
  return r;
}

// The backward scan's body: (non-linear consts; accumulated const cotangents, linear-carry
// cotangents; non-linear xs, the carries the iteration started from, ys cotangents) ->
// (new accumulators, carry cotangents; xs cotangents).
absl::StatusOr<ClosedJaxpr> BackwardBody(const ScanTransposeShape& s, const Roles& r,
                                         absl::Span<const TransposeArg> args) {
  const Jaxpr& j = s.body->jaxpr;
  size_t ny = j.outvars.size() - s.nk;
  Builder inner;
  std::vector<Tracer> body_consts;
  for (const HostArray& c : s.body->consts) body_consts.push_back(inner.Const(c));
  std::vector<std::optional<Tracer>> inputs(s.n);
  for (size_t i : r.nonlin_c) inputs[i] = inner.Arg(j.aval(j.invars[i]));
  std::vector<Tracer> acc_in, ct_in;
  for (size_t i : r.lin_c) acc_in.push_back(inner.Arg(args[i].aval));
  for (size_t i : r.lin_k) ct_in.push_back(inner.Arg(j.aval(j.invars[i])));
  for (size_t i : r.nonlin_x) inputs[i] = inner.Arg(j.aval(j.invars[i]));
  for (size_t i : r.nonlin_k) inputs[i] = inner.Arg(j.aval(j.invars[i]));
  std::vector<std::optional<Tracer>> body_cts(j.outvars.size());
  for (size_t k = 0; k < r.lin_k.size(); ++k) body_cts[r.lin_k[k] - s.nc] = ct_in[k];
  for (size_t y = 0; y < ny; ++y) body_cts[s.nk + y] = inner.Arg(j.aval(j.outvars[s.nk + y]));
  AXE_ASSIGN_OR_RETURN(std::vector<std::optional<Tracer>> in_cts,
                       BackwardPass(inner, j, body_consts, inputs, body_cts));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.lin_c.size(); ++k) {
    const ShapedArray& aval = args[r.lin_c[k]].aval;
    AXE_ASSIGN_OR_RETURN(OptTracer sum,
                         AddTangents(OptTracer(acc_in[k]), in_cts[r.lin_c[k]], aval));
    outs.push_back(*sum);
  }
  for (const auto* list : {&r.lin_k, &r.lin_x}) {
    for (size_t i : *list) {
      AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(inner, in_cts[i], j.aval(j.invars[i])));
      outs.push_back(t);
    }
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr bwd, inner.Build(outs));
  return DeadCodeEliminated(bwd);
}

// The backward scan's operands (in BackwardBody's order) and its number of carries.
absl::StatusOr<std::pair<std::vector<Tracer>, size_t>> BackwardOperands(
    Builder& b, const ScanTransposeShape& s, const Roles& r, absl::Span<const OptTracer> cts,
    absl::Span<const TransposeArg> args, const std::vector<Tracer>& stacked) {
  const Jaxpr& j = s.body->jaxpr;
  std::vector<Tracer> ops;
  for (size_t i : r.nonlin_c) ops.push_back(*args[i].value);
  for (size_t i : r.lin_c) {
    AXE_ASSIGN_OR_RETURN(Tracer z, ZerosLike(b, args[i].aval));
    ops.push_back(z);
  }
  for (size_t i : r.lin_k) {
    AXE_ASSIGN_OR_RETURN(Tracer c, Instantiate(b, cts[i - s.nc], args[i].aval));
    ops.push_back(c);
  }
  for (size_t i : r.nonlin_x) ops.push_back(*args[i].value);
  ops.insert(ops.end(), stacked.begin(), stacked.end());
  for (size_t y = 0; y + s.nk < j.outvars.size(); ++y) {
    ShapedArray a = Stacked(j.aval(j.outvars[s.nk + y]), s.length);
    AXE_ASSIGN_OR_RETURN(Tracer c, Instantiate(b, cts[s.nk + y], a));
    ops.push_back(c);
  }
  return std::make_pair(std::move(ops), r.lin_c.size() + r.lin_k.size());
}

absl::StatusOr<std::vector<OptTracer>> ScanTranspose(Builder& b, absl::Span<const OptTracer> cts,
                                                     absl::Span<const TransposeArg> args,
                                                     const Params& params) {
  AXE_ASSIGN_OR_RETURN(ScanTransposeShape s, ReadScanForTranspose(params, args.size()));
  std::vector<bool> linear = LinearMask(s, args);
  Roles r = Partition(s, linear);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> stacked, ResidualCarries(b, s, args, linear, params));
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr body, BackwardBody(s, r, args));
  AXE_ASSIGN_OR_RETURN(auto operands, BackwardOperands(b, s, r, cts, args, stacked));
  Params p = ScanParams(params, std::move(body), r.nonlin_c.size(), operands.second,
                        operands.first.size(), !s.reverse);
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, b.Bind(*Builtins().scan, operands.first, p));
  std::vector<OptTracer> out(args.size());
  size_t next = 0;
  // A carry made linear by the fixed point has a value, not an undefined primal: no cotangent.
  for (const auto* list : {&r.lin_c, &r.lin_k, &r.lin_x}) {
    for (size_t i : *list) {
      if (args[i].is_undefined_primal()) out[i] = res[next];
      ++next;
    }
  }
  return out;
}

using BatchRuleResult = absl::StatusOr<BatchResult>;

BatchingRule InlineBatch(const char* prim, const char* param) {
  return [prim, param](Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                       const Params& params) -> BatchRuleResult {
    AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, param));
    if (p->jaxpr() == nullptr) return absl::InvalidArgumentError(absl::StrCat(prim, ": no body"));
    return BatchTrace(b, *p->jaxpr(), args, dims);
  };
}

// `body` batched at `dims` (each 0 or unbatched) with every output materialized at 0.
absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BatchedBranch(const ClosedJaxpr& body,
                                                                 absl::Span<const Tracer> like,
                                                                 absl::Span<const BDim> dims,
                                                                 int64_t size) {
  Builder b;
  std::vector<Tracer> args;
  for (const Tracer& t : like) args.push_back(b.Arg(t.aval));
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(b, body, args, dims));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
    outs.push_back(o);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr j, b.Build(outs));
  return std::make_shared<const ClosedJaxpr>(std::move(j));
}

// Every branch inlined and batched; output k = select_n(index, branch outputs k...).
BatchRuleResult SelectBranches(Builder& b, const Param& branches, const Tracer& index,
                               absl::Span<const Tracer> ops, absl::Span<const BDim> dims,
                               int64_t size) {
  std::vector<std::vector<Tracer>> outs;
  for (const Param& br : branches.items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(b, *br.jaxpr(), ops, dims));
    std::vector<Tracer> mat;
    for (size_t k = 0; k < r.outs.size(); ++k) {
      AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
      mat.push_back(o);
    }
    outs.push_back(std::move(mat));
  }
  BatchResult result;
  for (size_t k = 0; !outs.empty() && k < outs[0].size(); ++k) {
    const std::vector<int64_t>& shape = outs[0][k].aval.shape();
    AXE_ASSIGN_OR_RETURN(Tracer which, BroadcastInDim(index, shape, {0}));
    std::vector<Tracer> sel = {which};
    for (const auto& o : outs) sel.push_back(o[k]);
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> s, BindWithAutoPvary(*Builtins().select_n, sel));
    result.outs.push_back(s[0]);
    result.out_dims.push_back(0);
  }
  return result;
}

BatchRuleResult CondBatch(Builder& b, absl::Span<const Tracer> args, absl::Span<const BDim> dims,
                          const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* branches, GetParam(params, "cond", "branches"));
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> op_dims;
  for (size_t i = 1; i < args.size(); ++i) {
    Tracer x = args[i];
    if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], 0));
      op_dims.push_back(0);
    } else {
      op_dims.push_back(std::nullopt);
    }
    ops.push_back(x);
  }
  if (dims[0]) {
    AXE_ASSIGN_OR_RETURN(Tracer index, MoveBatchDim(args[0], *dims[0], 0));
    return SelectBranches(b, *branches, index, ops, op_dims, size);
  }
  std::vector<std::shared_ptr<const ClosedJaxpr>> batched;
  for (const Param& br : branches->items()) {
    if (br.jaxpr() == nullptr) return absl::InvalidArgumentError("cond: a branch is no jaxpr");
    AXE_ASSIGN_OR_RETURN(auto j, BatchedBranch(*br.jaxpr(), ops, op_dims, size));
    batched.push_back(std::move(j));
  }
  Params p = params;
  p["branches"] = Param::Jaxprs(std::move(batched));
  std::vector<Tracer> cond_args = {args[0]};
  cond_args.insert(cond_args.end(), ops.begin(), ops.end());
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*Builtins().cond, cond_args, p));
  return BatchResult{outs, std::vector<BDim>(outs.size(), 0)};
}

absl::StatusOr<BatchResult> ScanBatch(Builder& b, absl::Span<const Tracer> args,
                                      absl::Span<const BDim> dims, const Params& params) {
  AXE_ASSIGN_OR_RETURN(const Param* body_param, GetParam(params, "scan", "jaxpr"));
  if (body_param->jaxpr() == nullptr) return absl::InvalidArgumentError("scan: no body");
  const ClosedJaxpr& body = *body_param->jaxpr();
  AXE_ASSIGN_OR_RETURN(int64_t nc, RequiredInt(params, "scan", "num_consts"));
  AXE_ASSIGN_OR_RETURN(int64_t nk, RequiredInt(params, "scan", "num_carry"));
  size_t n = args.size(), c_end = static_cast<size_t>(nc), k_end = static_cast<size_t>(nc + nk);
  if (nc < 0 || nk < 0 || k_end > n) {
    return absl::InvalidArgumentError("scan: num_consts + num_carry exceed the operands");
  }
  int64_t size = BatchSize(args, dims);
  std::vector<Tracer> ops;
  std::vector<BDim> body_dims;
  for (size_t i = 0; i < n; ++i) {
    Tracer x = args[i];
    bool batched = dims[i].has_value() || (i >= c_end && i < k_end);
    if (i >= c_end && i < k_end) {
      AXE_ASSIGN_OR_RETURN(x, Materialize(x, dims[i], size));
    } else if (dims[i]) {
      AXE_ASSIGN_OR_RETURN(x, MoveBatchDim(x, *dims[i], i < c_end ? 0 : 1));
    }
    ops.push_back(x);
    body_dims.push_back(batched ? BDim(0) : std::nullopt);
  }
  Builder inner;
  const Jaxpr& j = body.jaxpr;
  std::vector<Tracer> in;
  for (size_t i = 0; i < n; ++i) {
    ShapedArray a = j.aval(j.invars[i]);
    if (body_dims[i]) {
      std::vector<int64_t> shape = a.shape();
      shape.insert(shape.begin(), size);
      a = a.WithShape(std::move(shape));
    }
    in.push_back(inner.Arg(a));
  }
  AXE_ASSIGN_OR_RETURN(BatchResult r, BatchTrace(inner, body, in, body_dims));
  std::vector<Tracer> outs;
  for (size_t k = 0; k < r.outs.size(); ++k) {
    AXE_ASSIGN_OR_RETURN(Tracer o, Materialize(r.outs[k], r.out_dims[k], size));
    outs.push_back(o);
  }
  AXE_ASSIGN_OR_RETURN(ClosedJaxpr batched_body, inner.Build(outs));
  Params p = params;
  p["jaxpr"] = Param::Jaxpr(std::make_shared<const ClosedJaxpr>(std::move(batched_body)));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> res, b.Bind(*Builtins().scan, ops, p));
  std::vector<BDim> out_dims;
  for (size_t k = 0; k < res.size(); ++k) out_dims.push_back(k < static_cast<size_t>(nk) ? 0 : 1);
  return BatchResult{res, out_dims};
}

}  // namespace

absl::StatusOr<const ClosedJaxpr*> CalledJaxprParam(const Params& params, absl::string_view prim,
                                                    absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, name));
  if (p->kind() != Param::Kind::kJaxpr || p->jaxpr() == nullptr) {
    return TypeError(absl::StrCat("parameter ", name, " of ", prim, " must be a jaxpr"));
  }
  return p->jaxpr().get();
}

AbstractEvalRule CallRule(std::string prim, std::string param) {
  return Call(std::move(prim), std::move(param));
}

absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BodyParam(const Params& params,
                                                             absl::string_view prim,
                                                             absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, name));
  if (p->jaxpr() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(prim, ": parameter ", name, " is no jaxpr"));
  }
  return p->jaxpr();
}

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

void DefineControlFlow(BuiltinPrimitives& p) {
  Primitive::Options jit = MultiResultOptions("jit", {{"jaxpr", ParamType::kJaxpr}});
  jit.call_primitive = true;
  jit.params_printed_first = {"name"};
  jit.param_named_like_operands = "jaxpr";
  p.jit = DefineBuiltin(std::move(jit));
  Primitive::Options closed_call =
      MultiResultOptions("closed_call", {{"call_jaxpr", ParamType::kJaxpr}});
  closed_call.call_primitive = true;
  p.closed_call = DefineBuiltin(std::move(closed_call));
  Primitive::Options custom_jvp =
      MultiResultOptions("custom_jvp_call", {{"call_jaxpr", ParamType::kJaxpr}});
  custom_jvp.call_primitive = true;
  custom_jvp.params_printed_first = {"name"};
  p.custom_jvp_call = DefineBuiltin(std::move(custom_jvp));
  Primitive::Options custom_vjp =
      MultiResultOptions("custom_vjp_call", {{"call_jaxpr", ParamType::kJaxpr}});
  custom_vjp.call_primitive = true;
  custom_vjp.params_printed_first = {"name"};
  p.custom_vjp_call = DefineBuiltin(std::move(custom_vjp));
  p.cond = DefineBuiltin(MultiResultOptions("cond", {{"branches", ParamType::kJaxprs}}));
  p.scan = DefineBuiltin(MultiResultOptions("scan", {{"jaxpr", ParamType::kJaxpr},
                                                     {"length", ParamType::kInt},
                                                     {"num_consts", ParamType::kInt},
                                                     {"num_carry", ParamType::kInt}}));
}

void RegisterControlFlowRules(const BuiltinPrimitives& p) {
  RegisterAbstractEval(*p.jit, Call("jit", "jaxpr"));
  RegisterImpl(*p.jit, ViaInterpreter(*p.jit));
  RegisterJvp(*p.jit, InlineJvp("jit", "jaxpr"));
  RegisterBatching(*p.jit, InlineBatch("jit", "jaxpr"));

  RegisterAbstractEval(*p.closed_call, Call("closed_call", "call_jaxpr"));
  RegisterImpl(*p.closed_call, ViaInterpreter(*p.closed_call));
  RegisterJvp(*p.closed_call, InlineJvp("closed_call", "call_jaxpr"));
  RegisterBatching(*p.closed_call, InlineBatch("closed_call", "call_jaxpr"));

  RegisterAbstractEval(*p.custom_jvp_call, Call("custom_jvp_call", "call_jaxpr"));
  RegisterImpl(*p.custom_jvp_call, ViaInterpreter(*p.custom_jvp_call));
  RegisterJvp(*p.custom_jvp_call, CustomJvpCallJvp);
  RegisterBatching(*p.custom_jvp_call, InlineBatch("custom_jvp_call", "call_jaxpr"));

  RegisterAbstractEval(*p.custom_vjp_call, Call("custom_vjp_call", "call_jaxpr"));
  RegisterImpl(*p.custom_vjp_call, ViaInterpreter(*p.custom_vjp_call));
  RegisterJvp(*p.custom_vjp_call, CustomVjpCallJvp);
  RegisterBatching(*p.custom_vjp_call, InlineBatch("custom_vjp_call", "call_jaxpr"));

  RegisterAbstractEval(*p.cond, Cond);
  RegisterImpl(*p.cond, ViaInterpreter(*p.cond));
  RegisterJvp(*p.cond, CondJvp);
  RegisterTranspose(*p.cond, CondTranspose);
  RegisterBatching(*p.cond, CondBatch);

  RegisterAbstractEval(*p.scan, Scan);
  RegisterImpl(*p.scan, ViaInterpreter(*p.scan));
  RegisterJvp(*p.scan, ScanJvp);
  RegisterTranspose(*p.scan, ScanTranspose);
  RegisterBatching(*p.scan, ScanBatch);
}

}  // namespace axe::ir::internal
