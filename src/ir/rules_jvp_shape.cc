// JVP rules of the structural primitives: those linear in some operands (the tangent is the
// primitive applied to the tangents), dot_general (bilinear), reduce_max / reduce_min and
// reduce_prod.
#include <algorithm>
#include <numeric>
#include <optional>
#include <utility>

#include "axe/base/status_macros.h"
#include "axe/ir/primitives.h"
#include "axe/ir/shard_map.h"
#include "jvp_util.h"
#include "rule_util.h"

namespace axe::ir::internal {
namespace {

enum class LinearOperands { kFirst, kFirstTwo, kAll, kAllButFirst };

bool IsLinear(LinearOperands which, size_t i) {
  switch (which) {
    case LinearOperands::kFirst: return i == 0;
    case LinearOperands::kFirstTwo: return i < 2;
    case LinearOperands::kAll: return true;
    case LinearOperands::kAllButFirst: return i > 0;
  }
  return false;
}

// out = prim(primals); tangent = prim(primals with the linear operands replaced by their
// tangents, symbolic zeros instantiated), or a symbolic zero when every one is zero.
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

absl::StatusOr<JvpResult> DotGeneralJvp(Builder&, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const Primitive& dot = *Builtins().dot_general;
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(dot, primals, params));
  OptTracer a, c;
  if (tangents[0]) {
    AXE_ASSIGN_OR_RETURN(a, Op(dot, {*tangents[0], primals[1]}, params));
  }
  if (tangents[1]) {
    AXE_ASSIGN_OR_RETURN(c, Op(dot, {primals[0], *tangents[1]}, params));
  }
  AXE_ASSIGN_OR_RETURN(OptTracer t, AddTangents(a, c, out.aval));
  return JvpResult{{out}, {t}};
}

// The tangent at the maximal positions, averaged over ties (JAX's location-indicator rule).
// reduce_min likewise at the minimal positions.
JvpRule ReduceExtremumJvp(const Primitive* reduce) {
  return [reduce](Builder&, absl::Span<const Tracer> primals, absl::Span<const OptTracer> tangents,
                  const Params& params) -> absl::StatusOr<JvpResult> {
    const BuiltinPrimitives& p = Builtins();
    const Tracer& x = primals[0];
    AXE_ASSIGN_OR_RETURN(Tracer out, Op(*reduce, {x}, params));
    if (!tangents[0]) return JvpResult{{out}, {std::nullopt}};
    AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, reduce->name(), "axes"));
    std::vector<int64_t> kept;
    for (int64_t d = 0; d < static_cast<int64_t>(x.aval.rank()); ++d) {
      if (std::find(axes.begin(), axes.end(), d) == axes.end()) kept.push_back(d);
    }
    AXE_ASSIGN_OR_RETURN(Tracer wide, BroadcastInDim(out, x.aval.shape(), kept));
    AXE_ASSIGN_OR_RETURN(Tracer hit, Op(*p.eq, {x, wide}));
    AXE_ASSIGN_OR_RETURN(Tracer mask, ConvertElementType(hit, x.aval.dtype()));
    AXE_ASSIGN_OR_RETURN(Tracer picked, Op(*p.mul, {*tangents[0], mask}));
    AXE_ASSIGN_OR_RETURN(Tracer num, ReduceSum(picked, axes));
    AXE_ASSIGN_OR_RETURN(Tracer count, ReduceSum(mask, axes));
    AXE_ASSIGN_OR_RETURN(Tracer t, Op(*p.div, {num, count}));
    return JvpResult{{out}, {t}};
  };
}

// Operand `x` split at `at` along dimension 0: the pieces [0, at) and [at, size).
absl::StatusOr<std::pair<Tracer, Tracer>> SplitFront(const Tracer& x, int64_t at) {
  AXE_ASSIGN_OR_RETURN(Tracer front, SliceRows(x, 0, at));
  AXE_ASSIGN_OR_RETURN(Tracer back, SliceRows(x, at, x.aval.shape()[0]));
  return std::make_pair(front, back);
}

// `x` with one more row of `value` at the end of dimension 0.
absl::StatusOr<Tracer> PadEnd1(Builder& b, const Tracer& x, double value) {
  std::vector<Param> config(x.aval.rank(), Param::Ints({0, 0, 0}));
  config[0] = Param::Ints({0, 1, 0});
  return Op(*Builtins().pad, {x, b.Scalar(value, x.aval.dtype())},
            {{"padding_config", Param::Tuple(std::move(config))}});
}

// reduce_prod's tangent without dividing by the operand (zeros are allowed), as JAX's rule
// computes it: the reduced axes are moved to the front and flattened, then the rows are
// halved until one is left, x = x1 * x2 and t = t1 * x2 + x1 * t2 (an odd second half padded
// with a row of ones, its tangent with zeros). Each step binds slice, pad, mul and add, so the
// tangent can be differentiated again.
absl::StatusOr<JvpResult> ReduceProdJvp(Builder& b, absl::Span<const Tracer> primals,
                                        absl::Span<const OptTracer> tangents,
                                        const Params& params) {
  const BuiltinPrimitives& p = Builtins();
  const Tracer& x = primals[0];
  AXE_ASSIGN_OR_RETURN(Tracer out, Op(*p.reduce_prod, {x}, params));
  const std::optional<int64_t> count = x.aval.NumElements();
  if (!count) return absl::InvalidArgumentError("reduce_prod: the operand's size overflows int64");
  if (!tangents[0] || *count == 0) return JvpResult{{out}, {std::nullopt}};
  AXE_ASSIGN_OR_RETURN(std::vector<int64_t> axes, RequiredInts(params, "reduce_prod", "axes"));
  const std::vector<int64_t>& shape = x.aval.shape();
  std::vector<int64_t> perm = axes, flat = {1};
  for (int64_t a : axes) flat[0] *= shape[static_cast<size_t>(a)];  // <= the element count
  for (int64_t d = 0; d < static_cast<int64_t>(shape.size()); ++d) {
    if (std::find(axes.begin(), axes.end(), d) != axes.end()) continue;
    perm.push_back(d);
    flat.push_back(shape[static_cast<size_t>(d)]);
  }
  const bool moved = !std::is_sorted(perm.begin(), perm.end());
  Tracer xs = x, ts = *tangents[0];
  const Params reshape = {{"dimensions", moved ? Param::Ints(perm) : Param::None()},
                          {"new_sizes", Param::Ints(flat)},
                          {"sharding", Param::None()}};
  for (Tracer* v : {&xs, &ts}) {
    if (!moved && v->aval.shape() == flat) continue;  // as JAX's reshape, which returns x
    AXE_ASSIGN_OR_RETURN(*v, Op(*p.reshape, {*v}, reshape));
  }
  for (int64_t n = flat[0]; n > 1; n = (n + 1) / 2) {
    AXE_ASSIGN_OR_RETURN(auto xh, SplitFront(xs, (n + 1) / 2));
    AXE_ASSIGN_OR_RETURN(auto th, SplitFront(ts, (n + 1) / 2));
    if (n % 2 == 1) {
      AXE_ASSIGN_OR_RETURN(xh.second, PadEnd1(b, xh.second, 1));
      AXE_ASSIGN_OR_RETURN(th.second, PadEnd1(b, th.second, 0));
    }
    AXE_ASSIGN_OR_RETURN(Tracer left, Op(*p.mul, {th.first, xh.second}));
    AXE_ASSIGN_OR_RETURN(Tracer right, Op(*p.mul, {xh.first, th.second}));
    AXE_ASSIGN_OR_RETURN(ts, Op(*p.add, {left, right}));
    AXE_ASSIGN_OR_RETURN(xs, Op(*p.mul, {xh.first, xh.second}));
  }
  AXE_ASSIGN_OR_RETURN(Tracer t, Squeeze(ts, {0}));
  return JvpResult{{out}, {t}};
}

}  // namespace

void RegisterShapeJvps(const BuiltinPrimitives& p) {
  for (const Primitive* prim :
       {p.convert_element_type, p.broadcast_in_dim, p.reshape, p.squeeze, p.transpose, p.reduce_sum,
        p.slice, p.dynamic_slice, p.with_layout_constraint}) {
    RegisterIfMissing(prim, LinearJvp(prim, LinearOperands::kFirst));
  }
  RegisterIfMissing(p.dynamic_update_slice,
                    LinearJvp(p.dynamic_update_slice, LinearOperands::kFirstTwo));
  RegisterIfMissing(p.concatenate, LinearJvp(p.concatenate, LinearOperands::kAll));
  RegisterIfMissing(p.select_n, LinearJvp(p.select_n, LinearOperands::kAllButFirst));
  RegisterIfMissing(p.dot_general, DotGeneralJvp);
  RegisterIfMissing(p.reduce_max, ReduceExtremumJvp(p.reduce_max));
  RegisterIfMissing(p.reduce_min, ReduceExtremumJvp(p.reduce_min));
  RegisterIfMissing(p.reduce_prod, ReduceProdJvp);
}

}  // namespace axe::ir::internal
