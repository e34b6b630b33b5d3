// JVP rules of the call-like primitives: jit / closed_call (inlined), cond, scan, shard_map.
#include <memory>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/ad.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

absl::StatusOr<std::shared_ptr<const ClosedJaxpr>> BodyParam(const Params& params,
                                                             absl::string_view prim,
                                                             absl::string_view name) {
  AXE_ASSIGN_OR_RETURN(const Param* p, GetParam(params, prim, name));
  if (p->jaxpr() == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(prim, ": parameter ", name, " is no jaxpr"));
  }
  return p->jaxpr();
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

// The primal outputs come from the original shard_map; a second one takes (primals...,
// tangents...) and returns the tangents of the float outputs.
absl::StatusOr<JvpResult> ShardMapJvp(Builder& b, absl::Span<const Tracer> primals,
                                      absl::Span<const OptTracer> tangents, const Params& params) {
  AXE_ASSIGN_OR_RETURN(std::shared_ptr<const ClosedJaxpr> body,
                       BodyParam(params, "shard_map", "jaxpr"));
  AXE_ASSIGN_OR_RETURN(ShardMapSpec spec, ShardMapSpecOfParams(params));
  std::vector<Tracer> args(primals.begin(), primals.end());
  std::vector<bool> has(primals.size());
  for (size_t i = 0; i < primals.size() && i < spec.in_specs.size(); ++i) {
    has[i] = tangents[i].has_value();
    if (!has[i]) continue;
    args.push_back(*tangents[i]);
    spec.in_specs.push_back(spec.in_specs[i]);
  }
  const Jaxpr& bj = body->jaxpr;
  std::vector<bool> float_out(bj.outvars.size());
  std::vector<sharding::PartitionSpec> out_specs;
  for (size_t k = 0; k < bj.outvars.size() && k < spec.out_specs.size(); ++k) {
    float_out[k] = Differentiable(bj.aval(bj.outvars[k]).dtype());
    if (float_out[k]) out_specs.push_back(spec.out_specs[k]);
  }
  spec.out_specs = out_specs;
  ShardMapBody fn = [&](Builder& inner,
                        absl::Span<const Tracer> xs) -> absl::StatusOr<std::vector<Tracer>> {
    std::vector<Tracer> in_p(xs.begin(), xs.begin() + primals.size());
    std::vector<OptTracer> in_t(primals.size());
    size_t next = primals.size();
    for (size_t i = 0; i < primals.size(); ++i) {
      if (has[i]) in_t[i] = xs[next++];
    }
    AXE_ASSIGN_OR_RETURN(JvpResult r, JvpTrace(inner, *body, in_p, in_t));
    std::vector<Tracer> outs;
    for (size_t k = 0; k < r.tangents_out.size(); ++k) {
      if (!float_out[k]) continue;
      AXE_ASSIGN_OR_RETURN(Tracer t, Instantiate(inner, r.tangents_out[k], r.primals_out[k].aval));
      outs.push_back(t);
    }
    return outs;
  };
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*Builtins().shard_map, primals, params));
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> ts, ShardMap(args, spec, fn));
  JvpResult r{outs, std::vector<OptTracer>(outs.size())};
  for (size_t k = 0, next = 0; k < outs.size(); ++k) {
    if (float_out[k]) r.tangents_out[k] = ts[next++];
  }
  return r;
}

}  // namespace

void RegisterCallJvps(const BuiltinPrimitives& p) {
  RegisterIfMissing(p.jit, InlineJvp("jit", "jaxpr"));
  RegisterIfMissing(p.closed_call, InlineJvp("closed_call", "call_jaxpr"));
  RegisterIfMissing(p.cond, CondJvp);
  RegisterIfMissing(p.scan, ScanJvp);
  RegisterIfMissing(p.shard_map, ShardMapJvp);
}

}  // namespace axe::ir::internal
