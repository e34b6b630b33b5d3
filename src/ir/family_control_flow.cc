// The transpose rule of scan, for scans whose non-linear values do not depend on the linear
// ones (what the JVP of a scan gives): a forward scan of the non-linear part stacks the
// non-linear carries each iteration starts from; a scan in the opposite direction runs the
// body's backward pass on them, carrying the cotangents of the linear carries and
// accumulating those of the linear consts, and stacks the cotangents of the linear xs.
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "axe/ir/transpose.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

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

}  // namespace

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

}  // namespace axe::ir::internal
