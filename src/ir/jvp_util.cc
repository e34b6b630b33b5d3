#include "jvp_util.h"

#include <numeric>

#include "absl/strings/str_cat.h"
#include "axe/base/status_macros.h"
#include "axe/ir/linear.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"

namespace axe::ir::internal {

absl::StatusOr<Tracer> Op(const Primitive& prim, absl::Span<const Tracer> args, Params params) {
  AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(prim, args, std::move(params)));
  if (outs.size() != 1) return absl::InternalError("Op: a primitive with several results");
  return outs[0];
}

// Size-1 dimensions that broadcast are reshaped away first, so that the broadcast_in_dim
// only adds dimensions (its transpose is then a reduce_sum).
absl::StatusOr<Tracer> FitTo(const Tracer& t, const ShapedArray& aval) {
  if (t.aval.shape() == aval.shape()) return t;
  std::vector<int64_t> dims, kept_shape;
  if (t.aval.rank() == aval.rank()) {
    for (size_t d = 0; d < aval.rank(); ++d) {
      if (t.aval.shape()[d] != aval.shape()[d]) continue;
      dims.push_back(static_cast<int64_t>(d));
      kept_shape.push_back(aval.shape()[d]);
    }
  }
  Tracer x = t;
  if (kept_shape != t.aval.shape()) {
    AXE_ASSIGN_OR_RETURN(x, Reshape(t, kept_shape));
  }
  return BroadcastInDim(x, aval.shape(), dims);
}

absl::StatusOr<Tracer> Instantiate(Builder& b, const OptTracer& t, const ShapedArray& aval) {
  if (t) return FitTo(*t, aval);
  return ZerosLike(b, aval);
}

absl::StatusOr<OptTracer> AddTangents(const OptTracer& a, const OptTracer& b,
                                      const ShapedArray& aval) {
  if (!a && !b) return OptTracer();
  if (!a || !b) {
    AXE_ASSIGN_OR_RETURN(Tracer t, FitTo(a ? *a : *b, aval));
    return OptTracer(t);
  }
  AXE_ASSIGN_OR_RETURN(Tracer s, Op(*Builtins().add, {*a, *b}));
  AXE_ASSIGN_OR_RETURN(s, FitTo(s, aval));
  return OptTracer(s);
}

bool Differentiable(DType dtype) { return IsFloatingPoint(dtype) || IsComplex(dtype); }

std::vector<int64_t> InversePermutation(absl::Span<const int64_t> perm) {
  std::vector<int64_t> inverse(perm.size());
  for (size_t i = 0; i < perm.size(); ++i)
    inverse[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return inverse;
}

absl::StatusOr<Tracer> SliceRows(const Tracer& x, int64_t from, int64_t to) {
  std::vector<int64_t> start(x.aval.rank(), 0), limit = x.aval.shape();
  start[0] = from;
  limit[0] = to;
  return Slice(x, start, limit);
}

absl::Status CheckConstValues(const ClosedJaxpr& jaxpr, absl::string_view what) {
  if (jaxpr.consts.size() == jaxpr.jaxpr.constvars.size()) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat(what, ": the jaxpr has ", jaxpr.jaxpr.constvars.size(), " constvars but ",
                   jaxpr.consts.size(), " constant values (a jaxpr read from text has none)"));
}

absl::StatusOr<std::vector<Tracer>> InlineJaxpr(Builder& b, const ClosedJaxpr& jaxpr,
                                                absl::Span<const Tracer> args) {
  AXE_RETURN_IF_ERROR(CheckConstValues(jaxpr, "inlining a jaxpr"));
  const Jaxpr& j = jaxpr.jaxpr;
  if (args.size() != j.invars.size()) {
    return absl::InvalidArgumentError("InlineJaxpr: argument count mismatch");
  }
  std::vector<std::optional<Tracer>> env(j.vars.size());
  for (size_t i = 0; i < jaxpr.consts.size(); ++i) env[j.constvars[i]] = b.Const(jaxpr.consts[i]);
  for (size_t i = 0; i < args.size(); ++i) env[j.invars[i]] = args[i];
  auto read = [&](const Atom& a) { return a.is_literal() ? b.Lit(*a.literal) : *env[a.var]; };
  for (const Eqn& e : j.eqns) {
    std::vector<Tracer> in;
    for (const Atom& a : e.inputs) in.push_back(read(a));
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, b.Bind(*e.primitive, in, e.params));
    for (size_t k = 0; k < outs.size() && k < e.outputs.size(); ++k) env[e.outputs[k]] = outs[k];
  }
  std::vector<Tracer> outs;
  for (const Atom& a : j.outvars) outs.push_back(read(a));
  return outs;
}

namespace {

bool IsLinear(LinearOperands which, size_t i) {
  switch (which) {
    case LinearOperands::kFirst: return i == 0;
    case LinearOperands::kFirstTwo: return i < 2;
    case LinearOperands::kAll: return true;
    case LinearOperands::kAllButFirst: return i > 0;
  }
  return false;
}

}  // namespace

JvpRule LinearJvp(const Primitive* prim, LinearOperands which) {
  return [prim, which](Builder& b, absl::Span<const Tracer> primals,
                       absl::Span<const OptTracer> tangents,
                       const Params& params) -> absl::StatusOr<JvpResult> {
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> outs, BindWithAutoPvary(*prim, primals, params));
    JvpResult r{outs, std::vector<OptTracer>(outs.size())};
    bool any = false;
    std::vector<Tracer> args(primals.begin(), primals.end());
    for (size_t i = 0; i < primals.size(); ++i) {
      if (!IsLinear(which, i)) continue;
      any = any || tangents[i].has_value();
      AXE_ASSIGN_OR_RETURN(args[i], Instantiate(b, tangents[i], primals[i].aval));
    }
    if (!any) return r;
    AXE_ASSIGN_OR_RETURN(std::vector<Tracer> touts, BindWithAutoPvary(*prim, args, params));
    for (size_t k = 0; k < touts.size(); ++k) r.tangents_out[k] = touts[k];
    return r;
  };
}

}  // namespace axe::ir::internal
